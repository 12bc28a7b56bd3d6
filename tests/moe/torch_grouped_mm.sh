#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# torch_grouped_mm.sh PRELOAD NULLGPU_DIR OUT - the real torch._grouped_mm
# (the cached PyTorch CUDA environment, scripts/deps.sh test) on the null
# GPU as an H100 under the shim with --read-device-sizes: its CUTLASS 3
# kernel (GemmUniversal<GroupProblemShape<Shape<int,int,int>>>) must be
# decoded from its real Params: 3 groups (offs has 3 entries), listed
# sizes_in_device_memory, its problem shapes read back once. The sizes
# themselves are not checked: on the null GPU no kernel runs, so the one
# that fills them from offs (prepare_grouped_gemm_data) never does.
# Exit 77 (skip) without the environment.
set -u
preload=$1 ng=$2 out=$3
HERE=$(cd "$(dirname "$0")" && pwd)
py=${FC_TORCH_PYTHON:-${FLOPCOUNT_CACHE:-$HOME/.cache/flopcount}/torch-venv/bin/python}
if ! [ -x "$py" ] || ! [ -f "$(dirname "$py")/../.flopcount-ready" ]; then
    echo "SKIP: no PyTorch CUDA environment at $py (bash scripts/deps.sh test makes it)"
    exit 77
fi
mkdir -p "$(dirname "$out")"
rm -f "$out"
LD_LIBRARY_PATH="$ng${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FLOPCOUNT_LIBCUDA="$ng/libcuda.so.1" \
    FLOPCOUNT_NULLGPU_DEVICE=h100 FLOPCOUNT_CUPTI=0 FLOPCOUNT_READ_DEVICE_SIZES=1 \
    FLOPCOUNT_OUTPUT="$out" FLOPCOUNT_QUIET=1 LD_PRELOAD="$preload" PYTHONDONTWRITEBYTECODE=1 \
    "$py" "$HERE/torch_grouped_mm.py" || { echo "FAIL: the PyTorch program failed"; exit 1; }
/usr/bin/python3 - "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = [u for u in r.get("uncounted", []) if "17GroupProblemShapeI" in u["name"]]
ok = (len(e) == 1 and e[0]["reason"] == "sizes_in_device_memory" and e[0]["calls"] == 1 and
      e[0]["detail"].startswith("3 groups;"))
rd = e[0].get("read_from_device", {}) if e else {}
ok = ok and rd.get("calls") == 1 and rd.get("counted_calls") == 1 and rd.get("groups") == 3
print("torch_grouped_mm: %s: %s" % ("ok" if ok else "FAIL", json.dumps(e)[:600]))
sys.exit(0 if ok else 1)
PY
