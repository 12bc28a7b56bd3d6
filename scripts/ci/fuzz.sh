#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# scripts/ci/fuzz.sh [SECONDS] - build the libFuzzer targets of fuzz/ with clang
# (ASan + UBSan, coverage on the analysis libraries) in build-fuzz/, and run
# each for SECONDS (default 20) starting from its committed seed corpus
# fuzz/corpus/<target>/. New inputs go to build-fuzz/corpus-<target>/, never
# into the source tree; a crash leaves build-fuzz/artifacts/<target>-crash-*
# and makes the script exit 1. A target whose parser is not in the tree yet
# is skipped with a note.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build-fuzz
SECS=${1:-20}
CC=${FUZZ_CC:-clang}
JOBS=${FUZZ_JOBS:-2}

cmake -S "$ROOT" -B "$B" -DCMAKE_C_COMPILER="$CC" -DFLOPCOUNT_TESTS=OFF -DFLOPCOUNT_WERROR=OFF \
    -DFLOPCOUNT_SANITIZE=address -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link" >"$B.configure.log" 2>&1 ||
    { cat "$B.configure.log"; exit 1; }
cmake --build "$B" -j"$JOBS" --target fc_analysis fc_analysis_io >"$B.build.log" 2>&1 ||
    { tail -40 "$B.build.log"; exit 1; }

failures=0
mkdir -p "$B/artifacts"
for target in parse report_read hfconfig; do
    src=$ROOT/fuzz/fuzz_$target.c
    if [ ! -f "$src" ]; then
        echo "fuzz: $target: no $src, skipped"
        continue
    fi
    exe=$B/fuzz_$target
    # shellcheck disable=SC2046 # pkg-config prints several words
    if ! "$CC" -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
        -fno-sanitize-recover=undefined -I"$ROOT/analysis" -I"$ROOT/analysis/run" -I"$ROOT/analysis/io" "$src" \
        "$B/analysis/libfc_analysis_io.a" "$B/analysis/libfc_analysis.a" \
        $(pkg-config --libs json-c) -lm -ldl -o "$exe"; then
        echo "fuzz: $target: build failed"
        failures=$((failures + 1))
        continue
    fi
    mkdir -p "$B/corpus-$target"
    echo "fuzz: $target for ${SECS}s"
    if "$exe" -max_total_time="$SECS" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$B/artifacts/$target-" \
        "$B/corpus-$target" "$ROOT/fuzz/corpus/$target" >"$B/fuzz-$target.log" 2>&1; then
        grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$B/fuzz-$target.log" |
            sed "s/^/fuzz: $target: /"
    else
        echo "fuzz: $target: FAILED (log $B/fuzz-$target.log)"
        grep -E 'ERROR|SUMMARY|Test unit written' "$B/fuzz-$target.log" | head -5
        failures=$((failures + 1))
    fi
done
[ $failures -eq 0 ] || { echo "fuzz: $failures target(s) failed"; exit 1; }
echo "fuzz: all targets ran clean"
