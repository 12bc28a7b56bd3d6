#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# scripts/ci/sanitizers.sh [address|thread ...] - build the project with
# -DFLOPCOUNT_SANITIZE=address (ASan + UBSan) in build-asan/ and =thread
# (TSan) in build-tsan/, and run the test suite in each, except the tests
# labelled "torch" (an uninstrumented interpreter loading a sanitized
# library proves nothing and runs for minutes) and "nullgpu" (the real,
# uninstrumented NVIDIA libraries keep their allocations to exit, and the
# null GPU's device memory is heap the programs hand back to no one:
# LeakSanitizer reports both; the main build runs them). Tests that preload the shim
# put the sanitizer runtime first in LD_PRELOAD (tests/robust/robust.cmake).
# Extra ctest arguments: FC_CTEST_ARGS (e.g. "-R fault_"). Exit 1 when a
# build or a test fails.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JOBS=${FC_JOBS:-2}
kinds=${*:-address thread}
# halt_on_error: the first report fails the test; TSan's exit code is 66.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:halt_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# die_after_fork=0: the shim starts a thread in fork children (iteration
# drainer), which TSan refuses by default in a child of a threaded parent.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:die_after_fork=0}

failures=0
for kind in $kinds; do
    case $kind in
    address) B=$ROOT/build-asan ;;
    thread) B=$ROOT/build-tsan
        # libunwind's per-thread cache destructor crashes inside the TSan
        # runtime when a thread ends (a TSan/libunwind clash, not a race in
        # flopcount): TSan runs check everything else with call sites off.
        export FLOPCOUNT_CALLSITES=0 ;;
    *) echo "sanitizers: unknown kind $kind (address or thread)"; exit 2 ;;
    esac
    echo "sanitizers: $kind in $B"
    if ! cmake -S "$ROOT" -B "$B" -DFLOPCOUNT_SANITIZE="$kind" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOPCOUNT_WERROR=ON \
        >"$B.configure.log" 2>&1 || ! cmake --build "$B" -j"$JOBS" >"$B.build.log" 2>&1; then
        echo "sanitizers: $kind: build failed"
        tail -30 "$B.build.log" 2>/dev/null || cat "$B.configure.log"
        failures=$((failures + 1))
        continue
    fi
    # shellcheck disable=SC2086 # FC_CTEST_ARGS is a word list
    if ! ctest --test-dir "$B" -j"$JOBS" -LE "torch|nullgpu" --timeout 900 --output-on-failure \
        ${FC_CTEST_ARGS:-}; then
        echo "sanitizers: $kind: tests failed"
        failures=$((failures + 1))
    fi
done
[ $failures -eq 0 ] || { echo "sanitizers: $failures configuration(s) failed"; exit 1; }
echo "sanitizers: all clean"
