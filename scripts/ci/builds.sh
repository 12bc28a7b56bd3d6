#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# builds.sh [TYPE:COMPILER ...] - the project built as users build it, with
# warnings as errors (-DFLOPCOUNT_WERROR=ON), tests included, one build
# directory each (build-werror-TYPE-COMPILER/); exit 1 at the first that
# fails, with its last lines. Default: the four CI builds, Release, Debug
# and RelWithDebInfo with gcc and Release with clang (.ci/run passes three:
# scripts/test.sh's build is the RelWithDebInfo gcc one). ccache is used
# when it is installed. FC_JOBS: parallel jobs (default 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
builds=("$@")
[ ${#builds[@]} -gt 0 ] || builds=(Release:gcc Debug:gcc RelWithDebInfo:gcc Release:clang)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
for b in "${builds[@]}"; do
    type=${b%%:*} cc=${b#*:}
    dir=build-werror-$type-$cc
    t=$(date +%s)
    if ! cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" -DCMAKE_C_COMPILER="$cc" \
        -DFLOPCOUNT_WERROR=ON -DFLOPCOUNT_TESTS=ON "${launcher[@]}" >"$dir.log" 2>&1 ||
        ! cmake --build "$dir" -j"${FC_JOBS:-2}" >>"$dir.log" 2>&1; then
        grep -E "(warning|error):" "$dir.log" | head -20 || true
        tail -5 "$dir.log"
        echo "builds.sh: $type with $cc failed (-Werror; log $dir.log)" >&2
        exit 1
    fi
    echo "builds: $type $cc -Werror ok in $(($(date +%s) - t)) s"
done
