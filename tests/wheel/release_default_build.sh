#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# release_default_build.sh SRC DIR - the project configured and built as a
# user does it, `cmake -S SRC -B DIR -DCMAKE_BUILD_TYPE=Release && cmake
# --build DIR`, no other option: it must succeed whatever warnings this
# compiler adds at -O3 (gcc 12's -Wformat-truncation in shim/cupti/loader.c
# broke it while -Werror was the default), and -Werror must be off.
# CMAKE_C_COMPILER_LAUNCHER=ccache comes from the environment when ccache
# is installed (not a project option: the build is the same).
set -eu
src=$1
dir=$2
rm -rf "$dir"
if command -v ccache >/dev/null 2>&1; then
    CMAKE_C_COMPILER_LAUNCHER=ccache
    export CMAKE_C_COMPILER_LAUNCHER
fi
if ! cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release >"$dir.log" 2>&1 ||
    ! cmake --build "$dir" -j2 >>"$dir.log" 2>&1; then
    tail -30 "$dir.log"
    echo "release_default_build: the default Release build failed (log $dir.log)"
    exit 1
fi
grep -q '^FLOPCOUNT_WERROR:BOOL=OFF$' "$dir/CMakeCache.txt" ||
    { echo "release_default_build: FLOPCOUNT_WERROR is not off by default"; exit 1; }
test -x "$dir/bin/flopcount" && test -f "$dir/lib/libflopcount.so" ||
    { echo "release_default_build: no bin/flopcount or lib/libflopcount.so"; exit 1; }
"$dir/bin/flopcount" --version
echo "release_default_build: ok ($(grep -c 'warning:' "$dir.log" || true) warnings, not errors)"
