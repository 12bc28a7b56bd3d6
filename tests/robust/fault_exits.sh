#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fault_exits.sh - the ways a process ends besides returning from main, with
# the shim preloaded: threads that end first, _exit, SIGKILL, exec, fork
# without exec. The report is either absent or a whole, valid JSON file
# with exact counts; never a partial file. Exit statuses match a run
# without the shim.
#
# usage: fault_exits.sh DIR PRELOAD WORK (as fault_signals.sh)
# test_fault_signal makes N sgemm_ calls of 2x3x4 = 48 FLOPs first.
set -u
DIR=$1 PRELOAD=$2 WORK=$3
. "$(dirname "$0")/fault_lib.sh"

# pick DIR BOOL: the report in DIR whose process.fork_child is BOOL.
pick() {
    "$JSONPY" -c 'import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    if json.load(open(f))["process"]["fork_child"] == (sys.argv[2] == "true"):
        print(f)' "$1" "$2" 2>/dev/null
}

shim() { # shim OUTPUT [VAR=VALUE...] CMD...: run CMD with the shim
    out=$1
    shift
    env LD_PRELOAD="$PRELOAD" FLOPCOUNT_QUIET=1 FLOPCOUNT_OUTPUT="$out" "$@"
}

# Threads that end before the process: 16 x 100,000 calls (worked out in
# test_fault_stress.c): 1,600,000 calls, 752,800,000 FLOPs, 17 shapes.
shim "$WORK/stress.json" "$DIR/test_fault_stress" >/dev/null || fail "stress: program failed"
json "$WORK/stress.json" 'r["status"] == "complete" and r["totals"]["gemm_calls"] == 1600000 and r["totals"]["gemm_flops"] == 752800000 and r["totals"]["distinct_shapes"] == 17'

# _exit skips destructors; the shim's _exit writes the report first
# (shim/exit_direct.c): "complete", the 3 calls made (144 FLOPs).
"$EXE" exit 3 >/dev/null
base=$?
shim "$WORK/exit-nosnap.json" "$EXE" exit 3 >/dev/null
st=$?
[ "$base" = 5 ] && [ "$st" = 5 ] || fail "_exit: status $st with the shim, $base without (want 5)"
json "$WORK/exit-nosnap.json" 'r["status"] == "complete" and r["totals"]["gemm_calls"] == 3 and r["totals"]["gemm_flops"] == 144'
# With snapshots every 0.1 s the final report replaces the last snapshot:
# all 6 calls, 288 FLOPs, "complete".
shim "$WORK/exit-snap.json" FLOPCOUNT_SNAPSHOT_SECONDS=0.1 "$EXE" exit 6 >/dev/null
[ $? = 5 ] || fail "_exit with snapshots: wrong status"
json "$WORK/exit-snap.json" 'r["status"] == "complete" and r["totals"]["gemm_calls"] == 6 and r["totals"]["gemm_flops"] == 288'
# A vfork child shares the parent's memory and counters: its _exit(3)
# passes straight through, writes nothing (nor marks the report written);
# the parent's report (%p: one file a process) is the only one, with its
# 2 calls before the vfork and 1 after: 3 (144 FLOPs).
rm -rf "$WORK/vfork" && mkdir "$WORK/vfork"
shim "$WORK/vfork/r-%p.json" "$EXE" vfork-exit 2 >/dev/null || fail "vfork-exit: program failed"
[ "$(ls "$WORK/vfork" | wc -l)" = 1 ] || fail "vfork-exit: $(ls "$WORK/vfork" | wc -l) reports, want 1"
json "$(pick "$WORK/vfork" false)" 'r["status"] == "complete" and r["totals"]["gemm_calls"] == 3 and r["totals"]["gemm_flops"] == 144'

# SIGKILL at moments spread over the snapshot period: the file, when there
# is one, always parses.
for delay in 0.02 0.05 0.09 0.13 0.17 0.21 0.26 0.35; do
    rm -f "$WORK/kill.json"
    # env execs the program, so $! is the program itself (a shell function
    # here would put a subshell in between and SIGKILL would orphan it).
    env LD_PRELOAD="$PRELOAD" FLOPCOUNT_QUIET=1 FLOPCOUNT_OUTPUT="$WORK/kill.json" \
        FLOPCOUNT_SNAPSHOT_SECONDS=0.1 "$EXE" wait 4 >/dev/null 2>&1 &
    pid=$!
    sleep $delay
    kill -s KILL $pid
    wait $pid
    [ $? = 137 ] || fail "SIGKILL after $delay s: not killed"
    [ ! -e "$WORK/kill.json" ] || json "$WORK/kill.json" 'r["status"] == "running"'
done
# Once the calls are made ("ready"), two snapshot periods later the file
# holds all 4 calls: 192 FLOPs (startup time does not count: slow under TSan).
rm -f "$WORK/kill.json"
env LD_PRELOAD="$PRELOAD" FLOPCOUNT_QUIET=1 FLOPCOUNT_OUTPUT="$WORK/kill.json" \
    FLOPCOUNT_SNAPSHOT_SECONDS=0.1 "$EXE" wait 4 >"$WORK/kill.out" 2>&1 &
pid=$!
i=0
while ! grep -q ready "$WORK/kill.out" && [ $i -lt 200 ]; do
    sleep 0.05
    i=$((i + 1))
done
sleep 0.35
kill -s KILL $pid
wait $pid
json "$WORK/kill.json" 'r["status"] == "running" and r["totals"]["gemm_calls"] == 4 and r["totals"]["gemm_flops"] == 192'

# exec replaces the image without destructors: the shim writes the report
# before exec ("exec", the 3 calls made: 144 FLOPs); the new image
# (/bin/true, the shim inherited through LD_PRELOAD) ran no GEMM and leaves
# it alone. tests/procs has exec'd programs that run GEMMs too.
"$EXE" exec 3 >/dev/null
base=$?
shim "$WORK/exec.json" "$EXE" exec 3 >/dev/null
st=$?
[ "$base" = 0 ] && [ "$st" = 0 ] || fail "exec: status $st with the shim, $base without"
json "$WORK/exec.json" 'r["status"] == "exec" and r["totals"]["gemm_calls"] == 3 and r["totals"]["gemm_flops"] == 144'

# fork without exec, %p in the path: one report per process. Parent: 3
# calls before fork + 1 after = 4 (192 FLOPs); child: its own 2 (96),
# whether it ends with exit or _exit.
for mode in fork fork-exit; do
    rm -rf "$WORK/$mode" && mkdir "$WORK/$mode"
    shim "$WORK/$mode/r-%p.json" "$EXE" $mode 3 >/dev/null || fail "$mode: program failed"
    parent=$(pick "$WORK/$mode" false)
    child=$(pick "$WORK/$mode" true)
    [ -n "$parent" ] && json "$parent" 'r["totals"]["gemm_calls"] == 4 and r["totals"]["gemm_flops"] == 192' ||
        fail "$mode: no parent report"
    # the child that ends with _exit writes its report all the same
    [ -n "$child" ] && json "$child" 'r["status"] == "complete" and r["totals"]["gemm_calls"] == 2 and r["totals"]["gemm_flops"] == 96' ||
        fail "$mode: no child report"
done
# Without %p the child must not overwrite the parent's file: the file is
# the run joined (docs/launchers.md), the parent's report with the child's
# counts summed in.
shim "$WORK/fork-one.json" "$EXE" fork 3 >/dev/null 2>"$WORK/fork-one.err" || fail "fork: failed"
json "$WORK/fork-one.json" 'r["totals"]["gemm_calls"] == 6 and not r["process"]["fork_child"] and len(r["processes"]) == 2'

if [ $failures -ne 0 ]; then
    echo "fault_exits: $failures failure(s)" >&2
    exit 1
fi
echo "fault_exits: all cases passed"
