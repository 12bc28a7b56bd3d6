#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run.sh - the GPU validation run: every GPU-side claim of flopcount checked on
# one GPU in one bounded command (tests/gpu/README.md, docs/gpu-validation.md).
#
#   bash tests/gpu/run.sh --prepare [PREFIX] [--from-build BUILD]
#        here: build and install a self-contained prefix (default .gpu/prefix)
#   bash tests/gpu/run.sh [--out DIR] [--only 02,07a] [--budget SECONDS]
#        on the GPU machine: every check, one line each, DIR/summary.json
#   bash tests/gpu/run.sh --dry-run [--prefix P] [--out DIR]
#        anywhere: syntax, bring-up, each check's SKIP path, self-tests, summary shape
#   bash tests/gpu/run.sh --rehearse-cpu [--prefix P] [--out DIR]
#        check 03's whole logic on Debian's CPU torch (exit 77 without it)
#   bash tests/gpu/run.sh --list
#
# Each check runs under its own `timeout`; one that fails, crashes or hangs
# never stops the others; the whole run stays within --budget (default 420 s)
# and exits 1 when any check FAILed. Results: DIR/checks/ID/ (result.json,
# check.log, the reports and logs of its programs) and DIR/summary.json,
# rewritten after every check. DIR: --out, else $OUT, else .gpu/out.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=${FC_PYTHON:-python3}
export FC_PYTHON=$PY PYTHONDONTWRITEBYTECODE=1

# id:timeout_seconds, in run order, the most valuable first (a run cut short by
# its budget loses the last ones); later checks use earlier results (07b reads 07a).
CHECKS="00_bringup:60 01_peak:90 02_eager_gemms:150 09_sdpa:150 03_gpt_train:240 10_grad_accum:120
11_dtype_mix:90 04a_cuda_graphs:90 06_kernels:150 07a_ncu_reference:180 07b_hw_flops:150 04b_compile:240
05_jax:180 08_overhead:240 12_moe:120"

die() { echo "run.sh: $*" >&2; exit 2; }

mode=gpu prefix="" out="" only="" budget=420 from_build=""
while [ $# -gt 0 ]; do
    case $1 in
    --prepare) mode=prepare
        if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then prefix=$2; shift; fi ;;
    --from-build) [ $# -gt 1 ] || die "--from-build needs a build folder"; from_build=$2; shift ;;
    --dry-run) mode=dry-run ;;
    --rehearse-cpu) mode=rehearse ;;
    --list) mode=list ;;
    --prefix) [ $# -gt 1 ] || die "--prefix needs a folder"; prefix=$2; shift ;;
    --out) [ $# -gt 1 ] || die "--out needs a folder"; out=$2; shift ;;
    --only) [ $# -gt 1 ] || die "--only needs check ids (02,07a)"; only=$2; shift ;;
    --budget) [ $# -gt 1 ] || die "--budget needs seconds"; budget=$2; shift
        case $budget in '' | *[!0-9]*) die "--budget: '$budget' is not a number of seconds" ;; esac ;;
    -h | --help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
    esac
    shift
done

# The prefix: --prefix, else the one this copy lives in (PREFIX/share/flopcount-gpu), else .gpu/prefix.
if [ -z "$prefix" ]; then
    if [ "$(basename "$HERE")" = flopcount-gpu ] && [ -x "$HERE/../../bin/flopcount" ]; then
        prefix=$(cd "$HERE/../.." && pwd)
    else
        prefix=$ROOT/.gpu/prefix
    fi
fi

if [ "$mode" = prepare ]; then
    exec bash "$HERE/prepare.sh" "$prefix" ${from_build:+"$from_build"}
fi
if [ "$mode" = list ]; then
    for c in $CHECKS; do
        printf '%-18s %4s s  %s\n' "${c%%:*}" "${c##*:}" "$(sed -n '2s/^"""//p' "$HERE/checks/${c%%:*}.py")"
    done
    exit 0
fi

[ -d "$prefix" ] || die "no prefix at $prefix: run 'bash tests/gpu/run.sh --prepare' first (CPU machine)"
prefix=$(cd "$prefix" && pwd)
export FC_PREFIX=$prefix
if [ -z "$out" ]; then
    case $mode in
    gpu) out=${OUT:-$ROOT/.gpu/out} ;;
    *) out=$ROOT/.gpu/$mode-out ;;
    esac
fi
mkdir -p "$out/checks" || die "cannot create $out"
out=$(cd "$out" && pwd)

if [ "$mode" = rehearse ]; then
    rp=${FC_REHEARSE_PYTHON:-/usr/bin/python3}
    if ! "$rp" -c 'import torch' 2>/dev/null; then
        echo "rehearsal: SKIP: $rp has no torch"
        exit 77
    fi
    d=$out/rehearsal/03_gpt_train
    rm -rf "$d" && mkdir -p "$d"
    timeout -k 10 330 "$PY" "$HERE/checks/03_gpt_train.py" --rehearse-cpu --python "$rp" --out "$d" \
        --prefix "$prefix" --timeout 320 >"$d/check.log" 2>&1
    [ -f "$d/result.json" ] ||
        "$PY" "$HERE/lib/summary.py" result "$d" 03_gpt_train FAIL "no result (see $d/check.log)"
    "$PY" "$HERE/lib/summary.py" line "$d/result.json" | sed 's/^/rehearsal: /'
    grep -q '"status": "PASS"' "$d/result.json"
    exit $?
fi

selected() { # is check $1 in --only (ids or their number prefixes, comma-separated)?
    [ -z "$only" ] && return 0
    local want
    for want in ${only//,/ }; do
        case $1 in "$want" | "$want"_* | "$want"[a-z]_*) return 0 ;; esac
    done
    return 1
}

START=$(date +%s)
ids=()
for c in $CHECKS; do selected "${c%%:*}" && ids+=("${c%%:*}"); done
[ ${#ids[@]} -gt 0 ] || die "--only '$only' names no check (try --list)"
write_summary() {
    "$PY" "$HERE/lib/summary.py" build "$out" "$mode" "$budget" "$START" "$prefix" "${ids[@]}"
}

CUR=""
on_signal() {
    [ -n "$CUR" ] && kill -TERM "$CUR" 2>/dev/null
    echo "run.sh: interrupted; partial summary in $out/summary.json" >&2
    write_summary
    exit 130
}
trap on_signal INT TERM

status=0
if [ "$mode" = dry-run ]; then
    budget=300
    echo "== syntax"
    for f in "$HERE"/*.sh; do
        bash -n "$f" || { echo "syntax: $f"; status=1; }
    done
    "$PY" - "$HERE" <<'EOF' || status=1
import ast, os, sys
bad = 0
for d, _, files in os.walk(sys.argv[1]):
    for f in sorted(files):
        if f.endswith(".py"):
            p = os.path.join(d, f)
            try:
                ast.parse(open(p).read(), p)
            except SyntaxError as e:
                print("syntax: %s" % e)
                bad += 1
print("syntax: bash -n and Python ast: %s" % ("ok" if not bad else "%d files bad" % bad))
sys.exit(1 if bad else 0)
EOF
fi

echo "== machine"
{ read -r FC_GPU; read -r FC_GPU_REASON; read -r about; } < \
    <("$PY" "$HERE/lib/summary.py" probe "$out/machine.json")
echo "${about:-machine: probe failed}"
if [ "$mode" = dry-run ]; then
    FC_GPU=0 FC_GPU_REASON="dry run; machine: ${FC_GPU_REASON:-?}"
fi
export FC_GPU=${FC_GPU:-0} FC_GPU_REASON=${FC_GPU_REASON:-probe failed}

# run_one ID SCRIPT DIR LIMIT: one check under its own timeout (SIGTERM, SIGKILL
# FC_KILL_GRACE s later); DIR/result.json whatever happens to it; then the
# process groups its programs ran in (DIR/pgids, written by lib/fcgpu.py)
# are killed, in case the check itself was killed before it could.
run_one() {
    local id=$1 script=$2 d=$3 limit=$4 rc why g
    rm -rf "$d" && mkdir -p "$d"
    FC_CHECK_TIMEOUT=$limit timeout -k "${FC_KILL_GRACE:-10}" "$limit" "$PY" "$script" --out "$d" \
        --prefix "$prefix" --timeout "$limit" >"$d/check.log" 2>&1 &
    CUR=$!
    { wait "$CUR"; } 2>/dev/null  # no "Killed" job notice: the result says it
    rc=$?
    CUR=""
    if [ -f "$d/pgids" ]; then
        while read -r g; do kill -KILL -- "-$g" 2>/dev/null; done <"$d/pgids"
    fi
    [ -f "$d/result.json" ] && return 0
    case $rc in
    124 | 137) why="timed out after $limit s (killed by its timeout)" ;;
    *) why="exited with status $rc and no result: $(tail -c 300 "$d/check.log" | tr '\n' ' ')" ;;
    esac
    "$PY" "$HERE/lib/summary.py" result "$d" "$id" FAIL "$why"
}

echo "== checks (budget ${budget} s, prefix $prefix, results in $out)"
for c in $CHECKS; do
    id=${c%%:*} limit=${c##*:}
    selected "$id" || continue
    d=$out/checks/$id
    left=$((budget - ($(date +%s) - START)))
    if [ $left -lt 25 ]; then
        rm -rf "$d"
        "$PY" "$HERE/lib/summary.py" result "$d" "$id" SKIP "no time left in the run's ${budget} s budget"
    else
        [ $limit -le $((left - 5)) ] || limit=$((left - 5))
        run_one "$id" "$HERE/checks/$id.py" "$d" "$limit"
    fi
    "$PY" "$HERE/lib/summary.py" after "$id" "$out" "$mode" "$budget" "$START" "$prefix" "${ids[@]}"
done

if [ "$mode" = dry-run ]; then
    echo "== self-tests"
    "$PY" "$HERE/lib/expect.py" || status=1
    "$PY" "$HERE/lib/summary.py" selftests "${ids[@]}" || status=1
    echo "== no-GPU path of the checks still to be built"
    # The feature probes answer yes, so these checks go on to their GPU gate.
    for id in 04b_compile 05_jax 06_kernels 07b_hw_flops 09_sdpa 10_grad_accum 11_dtype_mix; do
        FC_ASSUME_BUILT=1 run_one "$id" "$HERE/checks/$id.py" "$out/assume-built/$id" 60
        "$PY" "$HERE/lib/summary.py" line "$out/assume-built/$id/result.json"
        grep -q '"reason": "no GPU' "$out/assume-built/$id/result.json" || { echo "$id: FAILED"; status=1; }
    done
    echo "== robustness"
    # A check that hangs (ignoring SIGTERM, its program in a session of its own)
    # and one that crashes: each must end as FAIL with a reason, nothing left running.
    FC_KILL_GRACE=2 run_one fixture_hang "$HERE/lib/fixture_check.py" "$out/robustness/hang" 3
    FC_FIXTURE=crash run_one fixture_crash "$HERE/lib/fixture_check.py" "$out/robustness/crash" 30
    "$PY" "$HERE/lib/summary.py" line "$out/robustness/hang/result.json"
    "$PY" "$HERE/lib/summary.py" line "$out/robustness/crash/result.json"
    grep -q '"reason": "timed out after 3 s' "$out/robustness/hang/result.json" &&
        grep -q '"reason": "exited with status 3' "$out/robustness/crash/result.json" ||
        { echo "robustness: FAILED"; status=1; }
    # Killed means gone or a zombie: its parent (the check) was killed too, so
    # it waits for whichever process adopts it to reap it; allow that 5 s.
    hang_pid=$(cat "$out/robustness/hang/program.pid" 2>/dev/null || echo 999999999)
    alive=1
    for _ in $(seq 50); do
        state=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\).*/\1/p' "/proc/$hang_pid/stat" 2>/dev/null)
        case $state in "" | Z | X) alive=0; break ;; esac
        sleep 0.1
    done
    if [ $alive -eq 1 ]; then
        echo "robustness: the hanging check's program survived (state $state)"; status=1
    fi
    echo "== summary shape"
    "$PY" "$HERE/lib/summary.py" validate "$out/summary.json" --dry-run || status=1
    echo "dry run: $([ $status -eq 0 ] && echo ok || echo FAILED) ($(($(date +%s) - START)) s)"
    exit $status
fi
"$PY" - "$out/summary.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
c = s["counts"]
print("== %d PASS, %d FAIL, %d SKIP in %.0f s; %s"
      % (c["PASS"], c["FAIL"], c["SKIP"], s["seconds"], sys.argv[1]))
sys.exit(1 if c["FAIL"] or not s["complete"] else 0)
EOF
