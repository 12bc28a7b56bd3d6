#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# e2e_torch.sh - end-to-end overhead on a real PyTorch CPU training run:
# bench/e2e_torch.py without and with the shim, each run its own process,
# in interleaved rounds (every round runs every mode, and in each mode the
# order of the runs flips from round to round, so drift hits all alike).
# Per round and mode, the ratio of the shim run's median step to the bare
# run's (wall time, and CPU time of the whole process per step, which a
# shared machine disturbs less); over rounds, the median of those ratios
# and their spread.
# Target: at most 1% slower. Also checks that the final weights are bitwise
# identical and that the shim counted the GEMMs.
# The last line of output is one JSON object (bench/README.md).
#
# usage: bench/e2e_torch.sh [LIB[:LIB...]] [ROUNDS] [STEPS] [MODEL] [MODES]
#   defaults: build/lib/libflopcount.so, 5 rounds, 10 timed steps, gpt, free
#   LIB: several libraries separated by ':' are each run in every round
#        (an old and a new build, interleaved), each against the same bare run
#   MODEL: gpt, gpt-small (e2e_torch.py --small), tiny (--tiny with AdamW,
#          the issue-14 model) or mlp
#   MODES: comma-separated, each the core situation of both runs of a pair:
#     free    both cores free (as free as the machine is)
#     pinned  the process pinned to one core (taskset -c FIRST_CPU)
#     busy    a busy loop (sh 'while :; do :; done') pinned to the last
#             allowed CPU for the duration of the pair; training unpinned
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
LIBS=${1:-$HERE/../build/lib/libflopcount.so}
ROUNDS=${2:-5}
STEPS=${3:-10}
MODEL=${4:-gpt}
MODES=${5:-free}
case $MODEL in
gpt-small) ARGS="--model gpt --small" ;;
tiny) ARGS="--model gpt --tiny --optim adamw" ;;
gpt | mlp) ARGS="--model $MODEL" ;;
*) echo "e2e_torch: unknown model $MODEL" >&2; exit 2 ;;
esac
PY=/usr/bin/python3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flopcount-e2e.XXXXXX") || exit 1
BUSY_PID=
cleanup() {
    [ -n "$BUSY_PID" ] && kill "$BUSY_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
OLDIFS=$IFS
IFS=:
set -- $LIBS
IFS=$OLDIFS
NLIB=$#
i=1
for lib in "$@"; do
    [ -r "$lib" ] || { echo "e2e_torch: no $lib (build first, or pass the path)" >&2; exit 2; }
    eval "LIB_$i=\$lib"
    i=$((i + 1))
done
for mode in $(echo "$MODES" | tr ',' ' '); do
    case $mode in free | pinned | busy) ;; *) echo "e2e_torch: unknown mode $mode" >&2; exit 2 ;; esac
done
CPUS=$($PY -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
FIRST_CPU=${CPUS%% *}
LAST_CPU=${CPUS##* }
if [ "$FIRST_CPU" = "$LAST_CPU" ] && echo "$MODES" | grep -q busy; then
    echo "e2e_torch: 'busy' needs two CPUs (allowed: $CPUS)" >&2
    exit 2
fi

run() { # run MODE KIND ROUND (KIND: base or lib index)
    out="$WORK/$1-$2-$3.out"
    pin=
    [ "$1" = pinned ] && pin="taskset -c $FIRST_CPU"
    if [ "$2" = base ]; then
        $pin $PY "$HERE/e2e_torch.py" $ARGS --steps "$STEPS" >"$out"
    else
        eval "lib=\$LIB_$2"
        $pin env LD_PRELOAD="$lib" FLOPCOUNT_QUIET=1 FLOPCOUNT_OUTPUT="$WORK/report-$1-$2-$3.json" \
            $PY "$HERE/e2e_torch.py" $ARGS --steps "$STEPS" >"$out"
    fi || { echo "e2e_torch: $1 $2 run $3 failed" >&2; exit 1; }
}

median() { grep '^step_ms ' "$1" | sort -k2 -g | awk '{v[NR] = $2} END {print v[int((NR + 1) / 2)]}'; }

r=1
while [ "$r" -le "$ROUNDS" ]; do
    for mode in $(echo "$MODES" | tr ',' ' '); do
        if [ "$mode" = busy ]; then
            taskset -c "$LAST_CPU" sh -c 'while :; do :; done' &
            BUSY_PID=$!
        fi
        kinds=base
        i=1
        while [ $i -le "$NLIB" ]; do kinds="$kinds $i"; i=$((i + 1)); done
        if [ $((r % 2)) = 0 ]; then kinds=$(echo "$kinds" | awk '{for (i = NF; i > 0; i--) printf "%s ", $i}'); fi
        for k in $kinds; do run "$mode" "$k" "$r"; done
        if [ -n "$BUSY_PID" ]; then
            kill "$BUSY_PID"
            wait "$BUSY_PID" 2>/dev/null
            BUSY_PID=
        fi
        line="round $r $mode: median step $(median "$WORK/$mode-base-$r.out") ms bare"
        i=1
        while [ $i -le "$NLIB" ]; do
            line="$line, $(median "$WORK/$mode-$i-$r.out") ms lib $i"
            i=$((i + 1))
        done
        echo "$line" >&2
    done
    r=$((r + 1))
done

$PY - "$WORK" "$ROUNDS" "$STEPS" "$MODEL" "$MODES" "$LIBS" "$(uptime)" <<'PYEOF'
import glob, json, os, statistics, sys
work, rounds, steps, model, modes, libs, up = sys.argv[1:8]
rounds, steps, modes, libs = int(rounds), int(steps), modes.split(","), libs.split(":")

def run_of(path):
    ms, cpu, h = [], [], None
    for line in open(path):
        if line.startswith("step_ms "):
            ms.append(float(line.split()[1]))
        elif line.startswith("step_cpu_ms "):
            cpu.append(float(line.split()[1]))
        elif line.startswith("weights_sha256 "):
            h = line.split()[1]
    return statistics.median(ms), statistics.median(cpu), h

def lower_mid(v):
    v = sorted(v)
    return v[(len(v) - 1) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2

result = {"model": model, "rounds": rounds, "steps_per_run": steps, "modes": {}, "load": up.strip()}
hashes = set()
for mode in modes:
    per_lib = []
    for li, lib in enumerate(libs, 1):
        ratios, cpu_ratios, base_ms, shim_ms, calls = [], [], [], [], []
        for r in range(1, rounds + 1):
            b, bc, hb = run_of(f"{work}/{mode}-base-{r}.out")
            s, sc, hs = run_of(f"{work}/{mode}-{li}-{r}.out")
            hashes.update([hb, hs])
            ratios.append(s / b)
            cpu_ratios.append(sc / bc)
            base_ms.append(b)
            shim_ms.append(s)
            rep = f"{work}/report-{mode}-{li}-{r}.json"
            if os.path.exists(rep):
                calls.append(json.load(open(rep))["totals"]["gemm_calls"])
        med, cmed = statistics.median(ratios), statistics.median(cpu_ratios)
        print(f"{mode:6s} lib {li}: step ratio median {(med - 1) * 100:+.2f}% "
              f"(rounds {(min(ratios) - 1) * 100:+.2f}% .. {(max(ratios) - 1) * 100:+.2f}%), "
              f"CPU per step {(cmed - 1) * 100:+.2f}% "
              f"({(min(cpu_ratios) - 1) * 100:+.2f}% .. {(max(cpu_ratios) - 1) * 100:+.2f}%); "
              f"median step {statistics.median(base_ms):.3f} ms bare, {statistics.median(shim_ms):.3f} ms shim; "
              f"{min(calls) if calls else 0} GEMM calls counted per run")
        per_lib.append({"lib": lib, "slowdown_pct": round((med - 1) * 100, 3),
                        "slowdown_min_pct": round((min(ratios) - 1) * 100, 3),
                        "slowdown_max_pct": round((max(ratios) - 1) * 100, 3),
                        "cpu_added_pct": round((cmed - 1) * 100, 3),
                        "cpu_added_min_pct": round((min(cpu_ratios) - 1) * 100, 3),
                        "cpu_added_max_pct": round((max(cpu_ratios) - 1) * 100, 3),
                        "base_step_ms": round(statistics.median(base_ms), 4),
                        "shim_step_ms": round(statistics.median(shim_ms), 4),
                        "gemm_calls_per_run": min(calls) if calls else 0})
    result["modes"][mode] = per_lib
result["weights_identical"] = len(hashes) == 1
print(json.dumps(result))
PYEOF
