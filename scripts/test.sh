#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test.sh - install dependencies, build, and run the whole test suite (ctest).
#   bash scripts/test.sh            # release build in build/
#   BUILD=build-x bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOPCOUNT_TESTS=ON >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
cd "$BUILD"
ctest --output-on-failure -j"$(nproc)" "$@"
