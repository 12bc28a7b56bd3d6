#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_check.sh NULLGPU_DIR PREFIX OUT ID LIMIT - one check of tests/gpu run
# on the null GPU (NULLGPU_DIR/libcuda.so.1) with the real PyTorch CUDA of
# the cached environment (scripts/deps.sh test; FC_TORCH_PYTHON names its
# interpreter). CUPTI is kept out (it cannot run on the null GPU), so CUDA
# graphs are counted through the runtime's graph calls; autotuning off. Exit 0 for PASS,
# 77 for SKIP (ctest's skip: no torch environment, or a check that needs a
# real device), 1 for FAIL with the check's log.
set -u
ng=$1 prefix=$2 out=$3 id=$4 limit=$5
HERE=$(cd "$(dirname "$0")" && pwd)
GPU=$(cd "$HERE/../gpu" && pwd)
py=${FC_TORCH_PYTHON:-${FLOPCOUNT_CACHE:-$HOME/.cache/flopcount}/torch-venv/bin/python}
if ! [ -x "$py" ] || ! [ -f "$(dirname "$py")/../.flopcount-ready" ]; then
    echo "SKIP: no PyTorch CUDA environment at $py (bash scripts/deps.sh test makes it)"
    exit 77
fi
d=$out/$id
rm -rf "$d" && mkdir -p "$d"
FC_GPU=1 FC_GPU_REASON="the null GPU" FC_NULLGPU=1 FC_PYTHON=$py FLOPCOUNT_CUPTI=0 TORCHINDUCTOR_MAX_AUTOTUNE=0 \
    LD_LIBRARY_PATH="$ng${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONDONTWRITEBYTECODE=1 \
    timeout -k 10 "$limit" "$py" "$GPU/checks/$id.py" --out "$d" --prefix "$prefix" \
    --timeout "$((limit - 5))" >"$d/check.log" 2>&1
rc=$?
cat "$d/check.log"
[ -f "$d/result.json" ] || { echo "FAIL: no result (exit $rc)"; exit 1; }
case $(sed -n 's/.*"status": "\([A-Z]*\)".*/\1/p' "$d/result.json") in
PASS) exit 0 ;;
SKIP) exit 77 ;;
*) for f in "$d"/*.log; do echo "== $f"; tail -30 "$f"; done; exit 1 ;;
esac
