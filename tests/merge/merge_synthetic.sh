#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# merge_synthetic.sh SCENARIO MERGE_GEN FLOPCOUNT WORKDIR DATADIR
# 'flopcount merge' on synthetic reports (tests/merge/merge_gen.c, hand-written
# tests/data/reports/). Every expected number is derived in the comments
# from the generator's shapes: one call m = n = k = 8192, batch B, is
# 2 * 8192^3 * B = 2^40 * B FLOPs; a k = 4096 call is half that.
set -euo pipefail
scenario=$1 gen=$2 cli=$3 work=$4 data=$5
dir="$work/$scenario"
rm -rf "$dir" && mkdir -p "$dir/in"

# Debian's interpreter starts fast; any python3 will do for the JSON checks.
py=/usr/bin/python3
[ -x "$py" ] || py=python3

fail() { echo "FAIL ($scenario): $*" >&2; exit 1; }

# check FILE 'python expression over j (the parsed JSON)' ... : each must hold.
check() {
    local file=$1
    shift
    "$py" - "$file" "$@" <<'PY' || fail "JSON checks on $1"
import json, math, sys
j = json.load(open(sys.argv[1]))
bad = 0
for expr in sys.argv[2:]:
    try:
        ok = eval(expr, {"math": math, "j": j})
    except Exception as e:
        ok, expr = False, f"{expr} raised {e!r}"
    if not ok:
        print("  not true:", expr, file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
PY
}

want_text() { grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "no '$2' in $(basename "$1")"; }; }

case $scenario in
ranks1024)
    # 1,024 ranks, rank 1000 missing, rank 17 the straggler (0.15 s steps
    # against 0.1 s), batch 2^20: one call is 2^40 * 2^20 = 2^60 FLOPs, one
    # iteration 4 shapes * 2^60 = 2^62 per rank; 10 iterations; 1,023 ranks.
    # Steady iterations: 1-8 (0 is warm-up, 9 open-ended), so 8 aligned.
    "$gen" "$dir/in" --ranks 1024 --missing 1000 --straggler 17 --batch 1048576
    start=$(date +%s%N)
    "$cli" merge "$dir/in" --json --peak-tflops 1e8 >"$dir/out.json" 2>"$dir/err.txt"
    end=$(date +%s%N)
    # Per GPU: 2^62 FLOPs in the slowest rank's 0.15 s at 1e8 TFLOP/s = 1e20
    # FLOP/s: HFU = 2^62 / (0.15 * 1e20) = 0.307445734...
    check "$dir/out.json" \
        'j["kind"] == "merge" and j["world_size"] == 1024' \
        'j["merge"]["missing_ranks"] == [1000] and j["merge"]["ranks_merged"] == 1023' \
        'j["totals"]["gemm_flops"] == 1023 * 10 * 2**62' \
        'j["totals"]["gemm_flops"] > 2**64' \
        'j["totals"]["gemm_calls"] == 1023 * 10 * 4' \
        'j["iterations"]["count"] == 8 and j["iterations"]["median_seconds"] == 0.15' \
        'all(s["flops"] == 1023 * 2**62 and s["slowest_rank"] == 17 for s in j["iterations"]["list"])' \
        'j["merge"]["straggler"]["rank"] == 17' \
        'abs(j["merge"]["straggler"]["behind_seconds"] - 0.05) < 1e-12' \
        'abs(j["merge"]["straggler"]["behind_fraction"] - 0.5) < 1e-12' \
        'j["merge"]["straggler"]["slowest_in_steps"] == 8' \
        'j["merge"]["flops_consistency"]["verdict"] == "same"' \
        'abs(j["utilization"]["hfu"] - 2**62 / (0.15 * 1e20)) < 1e-12' \
        'j["status"] == "incomplete" and len(j["merge"]["ranks"]) == 1023' \
        'j["shapes"][0]["calls"] == 1023 * 40 and j["shapes"][0]["flops"] == 1023 * 10 * 2**62'
    want_text "$dir/err.txt" "1 of 1024 ranks missing: 1000"
    ms=$(((end - start) / 1000000))
    echo "merge of 1,023 reports: $ms ms"
    # The goal is under a second (bench/merge_bench.c measures it); 10 s
    # leaves room for sanitizer builds and a loaded machine.
    [ "$ms" -lt 10000 ] || fail "merge took $ms ms"
    "$cli" merge "$dir/in" >"$dir/out.txt" 2>/dev/null
    want_text "$dir/out.txt" "MISSING ranks: 1000 (1 of 1024)"
    want_text "$dir/out.txt" "rank 17: median step 0.1500 s vs 0.1000 s for the others (+0.0500 s, +50.0%)"
    set +e
    "$cli" merge "$dir/in" --strict >/dev/null 2>&1
    rc=$?
    set -e
    [ "$rc" = 1 ] || fail "--strict with a missing rank: exit $rc, want 1"
    ;;
outlier)
    # 8 ranks, batch 1: F = 4 * 2^40 = 2^42 per iteration; rank 5 runs one
    # k = 4096 call more: 2^42 + 2^39. Rank 2's report is given twice.
    "$gen" "$dir/in" --ranks 8 --outlier 5 --duplicate 2
    "$cli" merge "$dir/in" --json >"$dir/out.json" 2>"$dir/err.txt"
    check "$dir/out.json" \
        'j["totals"]["gemm_flops"] == 10 * (7 * 2**42 + (2**42 + 2**39))' \
        'j["merge"]["duplicate_reports"][0]["rank"] == 2' \
        'j["merge"]["duplicate_reports"][0]["file"].rsplit("/", 1)[1] in ("rank2.json", "rank2-again.json")' \
        'j["merge"]["missing_ranks"] == []' \
        'j["merge"]["flops_consistency"]["verdict"] == "outliers"' \
        'j["merge"]["flops_consistency"]["groups"][0]["ranks"] == [0, 1, 2, 3, 4, 6, 7]' \
        'j["merge"]["flops_consistency"]["groups"][1] == {"flops": 2**42 + 2**39, "ranks": [5]}' \
        'j["merge"]["straggler"]["rank"] == 0 and j["merge"]["straggler"]["behind_seconds"] == 0' \
        '"utilization" not in j'
    want_text "$dir/err.txt" "repeats rank 2; ignored"
    "$cli" merge "$dir/in" >"$dir/out.txt" 2>/dev/null
    want_text "$dir/out.txt" "differ on a few ranks"
    want_text "$dir/out.txt" "1 rank (5), +12.50% vs the largest group"
    want_text "$dir/out.txt" "straggler        none"
    ;;
stages)
    # 8 ranks in 2 pipeline stages of 4: stage 1 (ranks 4-7) runs one k = 4096
    # call more per iteration: 2^42 against 2^42 + 2^39.
    "$gen" "$dir/in" --ranks 8 --stages 2
    "$cli" merge "$dir/in" --json >"$dir/out.json"
    check "$dir/out.json" \
        'j["merge"]["flops_consistency"]["verdict"] == "stages"' \
        'sorted(g["ranks"] for g in j["merge"]["flops_consistency"]["groups"]) == [[0, 1, 2, 3], [4, 5, 6, 7]]' \
        'j["iterations"]["list"][0]["flops"] == 4 * 2**42 + 4 * (2**42 + 2**39)'
    "$cli" merge "$dir/in" >"$dir/out.txt"
    want_text "$dir/out.txt" "pipeline stages (legitimate)"
    ;;
noiter)
    # No iterations section: totals only (one iteration's worth, 2^42 each).
    "$gen" "$dir/in" --ranks 4 --iterations 0 --straggler 3
    "$cli" merge "$dir/in" --json >"$dir/out.json"
    check "$dir/out.json" \
        '"iterations" not in j and j["totals"]["gemm_flops"] == 4 * 2**42' \
        'j["merge"]["straggler"]["by"] == "wall_seconds" and j["merge"]["straggler"]["rank"] == 3' \
        'j["merge"]["flops_consistency"]["basis"] == "total"'
    "$cli" merge "$dir/in" >"$dir/out.txt"
    want_text "$dir/out.txt" "no iterations found"
    ;;
aligned)
    # Hand-written: rank 0 lists steps 0-3 (1.0, 2.0, 3.0, 0.5 s), rank 1
    # steps 1-4 (1.5, 1.0, 4.0, 9.0 s; step 4 open-ended). Steady steps drop
    # each rank's first (warm-up) and an open-ended last: rank 0 keeps 1-3,
    # rank 1 keeps 2-3. Common: 2 and 3; slowest per step 3.0 s (rank 0),
    # 4.0 s (rank 1): median (the lower middle) 3.0 s. FLOPs per step
    # 1e6 + 2e6, recompute 1e5 + 2e5. Peak 1e-6 TFLOP/s = 1e6 FLOP/s:
    # HFU = 3e6 / (2 * 1e6 * 3.0) = 0.5, MFU = 2.7e6 / 6e6 = 0.45. Rank
    # medians over their steady steps: rank 0 of (2.0, 3.0, 0.5) is 2.0 s,
    # rank 1 of (1.0, 4.0) is 1.0 s: rank 0 the straggler, +100%, slowest
    # in 1 of the 2 common steps.
    "$cli" merge "$data/align_rank0.json" "$data/align_rank1.json" --json --peak-tflops 1e-6 \
        >"$dir/out.json"
    check "$dir/out.json" \
        '[s["index"] for s in j["iterations"]["list"]] == [2, 3]' \
        '[s["seconds"] for s in j["iterations"]["list"]] == [3.0, 4.0]' \
        '[s["slowest_rank"] for s in j["iterations"]["list"]] == [0, 1]' \
        'j["iterations"]["median_seconds"] == 3.0 and j["iterations"]["count"] == 2' \
        'all(s["flops"] == 3000000 and s["recompute_flops"] == 300000 for s in j["iterations"]["list"])' \
        'abs(j["utilization"]["hfu"] - 0.5) < 1e-12 and abs(j["utilization"]["mfu"] - 0.45) < 1e-12' \
        'j["merge"]["straggler"]["rank"] == 0 and j["merge"]["straggler"]["slowest_in_steps"] == 1' \
        'j["merge"]["straggler"]["seconds"] == 2.0 and j["merge"]["straggler"]["others_median_seconds"] == 1.0' \
        'j["merge"]["flops_consistency"]["verdict"] == "mixed"' \
        'j["totals"]["gemm_flops"] == 12000000 and j["process"]["hosts"] == 2'
    ;;
errors)
    # Each must fail with exit 2 and one "flopcount merge:" line.
    "$gen" "$dir/in" --ranks 2
    printf '{"totals": {"gemm_calls": 1, "gemm_flops": 2}}\n' >"$dir/noschema.json"
    printf '{"schema": 99, "totals": {"gemm_calls": 1, "gemm_flops": 2}}\n' >"$dir/schema99.json"
    printf '{"schema": 1, "totals": {"gemm_calls": 1, "gemm_fl' >"$dir/cut.json"
    "$cli" merge "$dir/in" --json >"$dir/merged.json"
    mkdir -p "$dir/empty"
    n=0
    for args in "$dir/missing.json" "$dir/noschema.json" "$dir/schema99.json" "$dir/cut.json" \
        "$dir/merged.json" "$dir/empty" "--bogus $dir/in" "--peak-tflops" \
        "--peak-tflops -3 $dir/in" "--gpu NoSuchGPU --dtype bf16 $dir/in" ""; do
        n=$((n + 1))
        set +e
        # shellcheck disable=SC2086
        "$cli" merge $args >"$dir/o$n.txt" 2>"$dir/e$n.txt"
        rc=$?
        set -e
        [ "$rc" = 2 ] || fail "merge $args: exit $rc, want 2"
        [ "$(wc -l <"$dir/e$n.txt")" = 1 ] || fail "merge $args: want one error line, got: $(cat "$dir/e$n.txt")"
        grep -q '^flopcount merge: ' "$dir/e$n.txt" || fail "merge $args: $(cat "$dir/e$n.txt")"
    done
    want_text "$dir/e2.txt" 'no "schema"'
    want_text "$dir/e3.txt" "schema 99"
    want_text "$dir/e5.txt" "is a merged report"
    # A rank report cut short inside its shapes and inside its iteration
    # list (a rank killed while writing; the reader's fast path reads those
    # two arrays): exit 2 and one line naming the file, as for any bad JSON.
    size=$(wc -c <"$dir/in/rank1.json")
    for at in $((size / 3)) $((size * 3 / 4)) $((size - 2)); do
        rm -rf "$dir/cutrank" && mkdir -p "$dir/cutrank"
        cp "$dir/in/rank0.json" "$dir/cutrank/"
        head -c "$at" "$dir/in/rank1.json" >"$dir/cutrank/rank1.json"
        set +e
        "$cli" merge "$dir/cutrank" >"$dir/cut.out" 2>"$dir/cut.err"
        rc=$?
        set -e
        [ "$rc" = 2 ] || fail "report cut at byte $at: exit $rc, want 2"
        [ "$(wc -l <"$dir/cut.err")" = 1 ] || fail "cut at $at: want one line: $(cat "$dir/cut.err")"
        want_text "$dir/cut.err" "flopcount merge: $dir/cutrank/rank1.json: not valid JSON"
    done
    # A launcher preloaded with its ranks (no rank, no GEMM) is left out, said.
    printf '{"schema": 1, "process": {"rank": null}, "totals": {"gemm_calls": 0, "gemm_flops": 0}}' \
        >"$dir/in/agent.json"
    "$cli" merge "$dir/in" --json >"$dir/agent.out" 2>"$dir/agent.err"
    check "$dir/agent.out" 'j["merge"]["ranks_merged"] == 2 and j["merge"]["missing_ranks"] == []'
    want_text "$dir/agent.err" "agent.json names no rank and ran no GEMM (a launcher process?); skipped"
    # Under srun the torchrun agent has a rank (SLURM_PROCID) but no GEMM: the
    # worker's report of that rank is kept whichever comes first.
    printf '{"schema": 1, "process": {"rank": 0, "world_size": 1, "launcher": "slurm"},
             "totals": {"gemm_calls": 0, "gemm_flops": 0}}' >"$dir/in/a-agent.json"
    "$cli" merge "$dir/in" --json >"$dir/agent2.out" 2>"$dir/agent2.err"
    # two ranks of 10 iterations of 2^42 (see the outlier case)
    check "$dir/agent2.out" 'j["merge"]["ranks_merged"] == 2' \
        'j["merge"]["duplicate_reports"][0]["file"].endswith("a-agent.json")' \
        'j["totals"]["gemm_flops"] == 2 * 10 * 2**42 and j["process"]["launcher"] == "torchrun"'
    want_text "$dir/agent2.err" "a-agent.json repeats rank 0; ignored"
    # The CUPTI sections come from the same parse as the rest (merge_load.c):
    # a bad one in a rank's report still stops the merge, naming the file and
    # the field; the same in a skipped launcher's report is never read.
    mkdir -p "$dir/gpu"
    "$gen" "$dir/gpu" --ranks 2
    "$py" - "$dir/gpu/rank1.json" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read().rstrip()
open(p, "w").write(s[:-1] + ', "kernels": {"kernels": "many"}}\n')
PY
    set +e
    "$cli" merge "$dir/gpu" --json >"$dir/gpu.out" 2>"$dir/gpu.err"
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "merge with a bad kernels section: exit $rc, want 2"
    [ "$(wc -l <"$dir/gpu.err")" = 1 ] || fail "bad kernels section: $(cat "$dir/gpu.err")"
    want_text "$dir/gpu.err" "gpu/rank1.json: kernels.kernels: expected a non-negative integer"
    printf '{"schema": 1, "process": {"rank": null}, "totals": {"gemm_calls": 0, "gemm_flops": 0},
             "kernels": {"kernels": "many"}}' >"$dir/in/agent.json"
    "$cli" merge "$dir/in" --json >"$dir/agent3.out" 2>"$dir/agent3.err"
    check "$dir/agent3.out" 'j["merge"]["ranks_merged"] == 2'
    want_text "$dir/agent3.err" "agent.json names no rank and ran no GEMM (a launcher process?); skipped"
    ;;
*)
    fail "unknown scenario"
    ;;
esac
echo "ok: $scenario"
