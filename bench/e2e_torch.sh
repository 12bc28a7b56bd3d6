#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# e2e_torch.sh - end-to-end overhead on a real PyTorch CPU training run:
# bench/e2e_torch.py without and with the shim, interleaved (the order flips
# every round, so drift hits both alike), median step time of each.
# Target: the shim run at most 1% slower. Also checks that the final
# weights are bitwise identical and that the shim counted the GEMMs.
# The last line of output is one JSON object (bench/README.md).
#
# usage: bench/e2e_torch.sh [LIBFLOPCOUNT] [ROUNDS] [STEPS] [MODEL]
#   defaults: build/lib/libflopcount.so, 5 rounds, 10 timed steps, gpt
#   MODEL: gpt, gpt-small (e2e_torch.py --small) or mlp
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
LIB=${1:-$HERE/../build/lib/libflopcount.so}
ROUNDS=${2:-5}
STEPS=${3:-10}
MODEL=${4:-gpt}
case $MODEL in
gpt-small) ARGS="--model gpt --small" ;;
gpt | mlp) ARGS="--model $MODEL" ;;
*) echo "e2e_torch: unknown model $MODEL" >&2; exit 2 ;;
esac
PY=/usr/bin/python3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flopcount-e2e.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
[ -r "$LIB" ] || { echo "e2e_torch: no $LIB (build first, or pass the path)" >&2; exit 2; }

run() { # run base|shim ROUND
    if [ "$1" = shim ]; then
        env LD_PRELOAD="$LIB" FLOPCOUNT_QUIET=1 FLOPCOUNT_OUTPUT="$WORK/report-$2.json" \
            $PY "$HERE/e2e_torch.py" $ARGS --steps "$STEPS" >"$WORK/$1-$2.out"
    else
        $PY "$HERE/e2e_torch.py" $ARGS --steps "$STEPS" >"$WORK/$1-$2.out"
    fi || { echo "e2e_torch: $1 run $2 failed" >&2; exit 1; }
}

median() { grep '^step_ms ' "$1" | sort -k2 -g | awk '{v[NR] = $2} END {print v[int((NR + 1) / 2)]}'; }

r=1
while [ $r -le "$ROUNDS" ]; do
    if [ $((r % 2)) = 1 ]; then run base $r; run shim $r; else run shim $r; run base $r; fi
    echo "round $r: median step $(median "$WORK/base-$r.out") ms without, $(median "$WORK/shim-$r.out") ms with the shim" >&2
    r=$((r + 1))
done

$PY - "$WORK" "$ROUNDS" "$STEPS" "$MODEL" <<'EOF'
import glob, json, statistics, sys
work, rounds, steps, model = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def steps_of(kind):
    ms, hashes = [], set()
    for f in sorted(glob.glob(f"{work}/{kind}-*.out")):
        for line in open(f):
            if line.startswith("step_ms "):
                ms.append(float(line.split()[1]))
            elif line.startswith("weights_sha256 "):
                hashes.add(line.split()[1])
    return ms, hashes

base, base_h = steps_of("base")
shim, shim_h = steps_of("shim")
calls = [json.load(open(f))["totals"]["gemm_calls"] for f in glob.glob(f"{work}/report-*.json")]
b, s = statistics.median(base), statistics.median(shim)
print(f"median step: {b:.3f} ms without, {s:.3f} ms with the shim ({(s / b - 1) * 100:+.2f}%); "
      f"{min(calls)} GEMM calls counted per run")
print(json.dumps({"model": model, "rounds": rounds, "steps_per_run": steps,
                  "base_step_ms": round(b, 4), "shim_step_ms": round(s, 4),
                  "slowdown_pct": round((s / b - 1) * 100, 3),
                  "gemm_calls_per_run": min(calls),
                  "weights_identical": len(base_h) == 1 and base_h == shim_h}))
EOF
