#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# merge_mpirun.sh SHIM FLOPCOUNT WORKDIR DIST_DIR
# Three ranks under Open MPI's mpirun, each under the shim (the OMPI_COMM_WORLD_*
# variables give rank and world size); rank r runs (r + 1) sgemm_ calls of
# 2*32*48*64 = 196,608 FLOPs (tests/merge/dist/mpi_gemm.py). Then 'flopcount merge'.
set -euo pipefail
shim=$1 cli=$2 work=$3 dist=$4
command -v mpirun >/dev/null || { echo "mpirun not installed (openmpi-bin)"; exit 77; }
py=/usr/bin/python3
dir="$work/mpirun"
rm -rf "$dir" && mkdir -p "$dir/reports"
fail() { echo "FAIL: $*" >&2; exit 1; }

# The shim goes in through `env`, not mpirun's own environment, so mpirun
# (a process with no rank) writes no report of its own.
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 \
    env LD_PRELOAD="$shim" FLOPCOUNT_OUTPUT="$dir/reports/rank%r.json" FLOPCOUNT_QUIET=1 \
    "$py" "$dist/mpi_gemm.py"

"$py" - "$dir/reports" <<'PY' || fail "per-rank reports"
import json, os, sys
d = sys.argv[1]
assert sorted(os.listdir(d)) == ["rank0.json", "rank1.json", "rank2.json"], os.listdir(d)
for r in range(3):
    rep = json.load(open(os.path.join(d, f"rank{r}.json")))
    p, t = rep["process"], rep["totals"]
    assert (p["rank"], p["local_rank"], p["world_size"], p["launcher"]) == (r, r, 3, "openmpi"), p
    assert t["gemm_calls"] == r + 1 and t["gemm_flops"] == (r + 1) * 2 * 32 * 48 * 64, t
PY

"$cli" merge "$dir/reports" --json >"$dir/merged.json"
"$py" - "$dir/merged.json" <<'PY' || fail "merged report"
import json, sys
m = json.load(open(sys.argv[1]))
# (1 + 2 + 3) * 196,608 = 1,179,648 FLOPs in 6 calls
assert m["totals"]["gemm_flops"] == 6 * 196608 and m["totals"]["gemm_calls"] == 6, m["totals"]
assert m["world_size"] == 3 and m["process"]["launcher"] == "openmpi"
fc = m["merge"]["flops_consistency"]
assert fc["verdict"] == "mixed" and len(fc["groups"]) == 3, fc  # every rank differs
PY

# Rank 1's report lost: merge says so, and --strict fails.
rm "$dir/reports/rank1.json"
"$cli" merge "$dir/reports" >"$dir/out.txt" 2>"$dir/err.txt"
grep -qF "MISSING ranks: 1 (1 of 3)" "$dir/out.txt" || fail "$(cat "$dir/out.txt")"
grep -qF "1 of 3 ranks missing: 1" "$dir/err.txt" || fail "$(cat "$dir/err.txt")"
set +e
"$cli" merge "$dir/reports" --strict >/dev/null 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "--strict with a missing rank: exit $rc"
# flopcount run around mpirun, one plain output path: the ranks (mpirun's
# descendants, the shim inherited) write their parts, and the job report is
# their merge: the same 6 calls, 1,179,648 FLOPs, world size 3.
# Not with a sanitized shim (RUNTIME:SHIM): mpirun itself would run under the
# sanitizer, which reports Open MPI's own races.
case $shim in *:*) echo "ok: mpirun, 3 ranks (flopcount run around mpirun: not in sanitizer builds)"; exit 0 ;; esac
FLOPCOUNT_LIB="$shim" timeout 120 "$cli" run --quiet --output "$dir/job.json" -- \
    mpirun --allow-run-as-root --oversubscribe -np 3 "$py" "$dist/mpi_gemm.py"
"$py" - "$dir/job.json" <<'PY' || fail "job report of flopcount run -- mpirun"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["kind"] == "merge" and j["world_size"] == 3, (j.get("kind"), j["world_size"])
assert j["totals"]["gemm_flops"] == 6 * 196608 and j["totals"]["gemm_calls"] == 6, j["totals"]
ranks = {r["rank"]: r["gemm_flops"] for r in j["merge"]["ranks"]}
assert ranks == {r: (r + 1) * 196608 for r in range(3)}, ranks
assert j["processes"][0]["command"].startswith("mpirun"), j["processes"][0]
PY
echo "ok: mpirun, 3 ranks"
