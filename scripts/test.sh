#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test.sh - install dependencies, build (warnings are errors here), and run
# the whole test suite (ctest), or with --quick its quick tier (ctest -L
# quick: every layer, under two minutes on two cores; tests/quick.cmake).
#   bash scripts/test.sh            # RelWithDebInfo build in build/
#   bash scripts/test.sh --quick    # the quick tier, with its time
#   BUILD=build-x bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
quick=()
if [ "${1:-}" = "--quick" ]; then
    quick=(-L quick)
    shift
fi
bash scripts/deps.sh test
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOPCOUNT_TESTS=ON -DFLOPCOUNT_WERROR=ON >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
cd "$BUILD"
start=$(date +%s)
ctest --output-on-failure -j"$(nproc)" "${quick[@]}" "$@"
[ ${#quick[@]} -eq 0 ] || echo "test.sh: the quick tier took $(($(date +%s) - start)) s"
