#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fault_signals.sh - SIGTERM/SIGINT with the shim preloaded: the process ends
# exactly as it does without the shim (same exit status, same output), the
# program's own handlers still run, and the report is complete and marked
# "interrupted". Each case runs the program twice, without and with the shim.
#
# usage: fault_signals.sh DIR PRELOAD WORK
#   DIR      where test_fault_signal and libfc_fault_blas.so are
#   PRELOAD  LD_PRELOAD value for the shim (sanitizer runtime first if any)
#   WORK     scratch directory of this test (emptied first)
# Every case makes N sgemm_ calls of 2x3x4 = 48 FLOPs before the signal.
set -u
DIR=$1 PRELOAD=$2 WORK=$3
. "$(dirname "$0")/fault_lib.sh"

# start NAME SIGMODE CMD...: runs CMD in the background with SIGINT reset to
# its default (a background job of a script inherits SIGINT ignored) and
# waits until it prints "ready". Sets $pid.
start() {
    name=$1 sigmode=$2
    shift 2
    env "$sigmode" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    pid=$!
    i=0
    while ! grep -q ready "$WORK/$name.out" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 200 ] || ! kill -0 $pid 2>/dev/null; then
            fail "$name: never printed ready"
            kill -9 $pid 2>/dev/null
            return 1
        fi
        sleep 0.05
    done
    return 0
}

# killed CASE SIG MODE N: kill the waiting program with SIG, without and with
# the shim; the statuses must match. Report in $WORK/CASE.json.
killed() {
    case_=$1 sig=$2 mode=$3 n=$4
    start "$case_-base" --default-signal=INT "$EXE" "$mode" "$n" || return
    kill -s "$sig" $pid
    wait $pid
    base=$?
    start "$case_-shim" --default-signal=INT LD_PRELOAD="$PRELOAD" FLOPCOUNT_QUIET=1 \
        FLOPCOUNT_OUTPUT="$WORK/$case_.json" "$EXE" "$mode" "$n" || return
    kill -s "$sig" $pid
    wait $pid
    shim=$?
    [ "$base" = "$shim" ] || fail "$case_: exit status $shim with the shim, $base without"
    cmp -s "$WORK/$case_-base.out" "$WORK/$case_-shim.out" ||
        fail "$case_: output differs with the shim"
    echo "$case_: status $base/$shim"
}

# ran CASE ENVMODE MODE N: a program that signals itself; statuses and
# output must match.
ran() {
    case_=$1 envmode=$2 mode=$3 n=$4
    env "$envmode" "$EXE" "$mode" "$n" >"$WORK/$case_-base.out" 2>&1
    base=$?
    env "$envmode" LD_PRELOAD="$PRELOAD" FLOPCOUNT_QUIET=1 FLOPCOUNT_OUTPUT="$WORK/$case_.json" \
        "$EXE" "$mode" "$n" >"$WORK/$case_-shim.out" 2>&1
    shim=$?
    [ "$base" = "$shim" ] || fail "$case_: exit status $shim with the shim, $base without"
    cmp -s "$WORK/$case_-base.out" "$WORK/$case_-shim.out" ||
        fail "$case_: output differs: $(cat "$WORK/$case_-shim.out")"
    echo "$case_: status $base/$shim, output $(tr '\n' ' ' <"$WORK/$case_-shim.out")"
}

# Default dispositions: dies of the signal (128 + 15, 128 + 2), report
# written first: 5 calls * 48 = 240 FLOPs.
killed term-default TERM wait 5
[ "$base" = 143 ] || fail "term-default: expected death by SIGTERM (143), got $base"
json "$WORK/term-default.json" \
    'r["status"] == "interrupted" and r["totals"]["gemm_calls"] == 5 and r["totals"]["gemm_flops"] == 240'
killed int-default INT wait 5
[ "$base" = 130 ] || fail "int-default: expected death by SIGINT (130), got $base"
json "$WORK/int-default.json" 'r["status"] == "interrupted" and r["totals"]["gemm_calls"] == 5'

# SIGTERM while the shim's drainer thread sleeps with calls still queued
# (it wakes every 10 ms while calls come, every 0.1 s once they stopped for
# 0.1 s: the 0.3 s pause puts it in the long sleep, and the signal follows
# the last 5 calls within microseconds): the handler drains them itself;
# the report has all 10 calls, 480 FLOPs.
ran asleep-term --default-signal=INT asleep 5
[ "$base" = 143 ] || fail "asleep-term: expected death by SIGTERM (143), got $base"
json "$WORK/asleep-term.json" \
    'r["status"] == "interrupted" and r["totals"]["gemm_calls"] == 10 and r["totals"]["gemm_flops"] == 480'

# The program's handler, installed after the shim's constructor, runs and
# the program goes on: 3 calls, then 2 after the signal = 5 calls, 240 FLOPs.
for sig in TERM INT; do
    killed "handler-$sig" $sig handler 3
    [ "$base" = 0 ] || fail "handler-$sig: expected exit 0, got $base"
    grep -q handled "$WORK/handler-$sig-shim.out" || fail "handler-$sig: handler did not run"
    json "$WORK/handler-$sig.json" \
        'r["status"] in ("interrupted", "complete") and r["totals"]["gemm_calls"] == 5 and r["totals"]["gemm_flops"] == 240'
done

# A handler that ends the process with _exit(7): no destructor runs, so the
# report must have been written before the handler: 3 calls, 144 FLOPs.
killed handler-exit TERM handler-exit 3
[ "$base" = 7 ] || fail "handler-exit: expected exit 7, got $base"
json "$WORK/handler-exit.json" \
    'r["status"] == "interrupted" and r["totals"]["gemm_calls"] == 3 and r["totals"]["gemm_flops"] == 144'

# SA_RESETHAND: the first SIGINT runs the handler, the second kills.
ran resethand --default-signal=INT resethand 1
[ "$base" = 130 ] || fail "resethand: expected death by SIGINT (130), got $base"
grep -q 'count=1' "$WORK/resethand-shim.out" || fail "resethand: handler did not run once"
json "$WORK/resethand.json" 'r["status"] == "interrupted" and r["totals"]["gemm_calls"] == 1'

# signal() hands back what the program set; the handler runs.
ran signal-fn --default-signal=INT signal-fn 2
[ "$base" = 0 ] && grep -q '^handled' "$WORK/signal-fn-shim.out" || fail "signal-fn: not handled"
# Ignored by the program, or inherited as ignored: nothing happens.
ran ignore --default-signal=INT ignore 2
grep -q survived "$WORK/ignore-shim.out" || fail "ignore: did not survive SIGTERM"
json "$WORK/ignore.json" 'r["status"] == "complete" and r["totals"]["gemm_calls"] == 2'
ran inherited-ignore --ignore-signal=INT raise-int 2
grep -q survived "$WORK/inherited-ignore-shim.out" || fail "inherited-ignore: did not survive"

# Python installs its SIGINT handler after the shim; an uncaught
# KeyboardInterrupt ends the interpreter by re-raising SIGINT with SIG_DFL.
# The report must still be there: 4 calls of 2x3x4 through ctypes = 192.
# Skipped under sanitizers (an uninstrumented interpreter).
case $PRELOAD in
*:*) echo "python cases skipped (sanitizer build)" ;;
*)
    cat >"$WORK/train.py" <<EOF
import ctypes, sys, time
ctypes.CDLL("$DIR/libfc_fault_blas.so", mode=ctypes.RTLD_GLOBAL)
sgemm = ctypes.CDLL(None).sgemm_  # the first sgemm_ in the process: the shim's when preloaded
i = ctypes.c_int
m, n, k, ld = i(2), i(3), i(4), i(4)
one, zero = ctypes.c_float(1), ctypes.c_float(0)
buf = (ctypes.c_float * 16)()
for _ in range(4):
    sgemm(b"N", b"N", ctypes.byref(m), ctypes.byref(n), ctypes.byref(k), ctypes.byref(one), buf,
          ctypes.byref(ld), buf, ctypes.byref(ld), ctypes.byref(zero), buf, ctypes.byref(ld),
          ctypes.c_size_t(1), ctypes.c_size_t(1))
print("ready", flush=True)
while True:
    time.sleep(0.01)
EOF
    for sig in INT TERM; do
        start "py-$sig-base" --default-signal=INT /usr/bin/python3 "$WORK/train.py" || continue
        kill -s $sig $pid
        wait $pid
        base=$?
        start "py-$sig-shim" --default-signal=INT LD_PRELOAD="$PRELOAD" FLOPCOUNT_QUIET=1 \
            FLOPCOUNT_OUTPUT="$WORK/py-$sig.json" /usr/bin/python3 "$WORK/train.py" || continue
        kill -s $sig $pid
        wait $pid
        shim=$?
        [ "$base" = "$shim" ] || fail "py-$sig: exit status $shim with the shim, $base without"
        echo "py-$sig: status $base/$shim"
        json "$WORK/py-$sig.json" \
            'r["status"] == "interrupted" and r["totals"]["gemm_calls"] == 4 and r["totals"]["gemm_flops"] == 192'
    done
    ;;
esac

if [ $failures -ne 0 ]; then
    echo "fault_signals: $failures failure(s)" >&2
    exit 1
fi
echo "fault_signals: all cases passed"
