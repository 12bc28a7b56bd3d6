#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# torch_grouped_mm.sh PRELOAD NULLGPU_DIR OUT CLI - the real torch._grouped_mm
# (the cached PyTorch CUDA environment, scripts/deps.sh test) on the null
# GPU as an H100 under the shim (torch_grouped_mm.py: forward and dx, offs
# {32, 48, 80}, x 96 x 128, w 3 x 128 x 64), twice. Each CUTLASS 3 grouped
# launch (forward and dx, two kernels) is decoded from its real Params (3
# groups) and linked to PyTorch's prepare_grouped_gemm_data before it.
# By hand: forward 2 x (32 + 16 + 32) x 64 x 128 = 1,310,720 FLOPs; dx
# (rows x 128 x 64) the same.
#  default: each listed sizes_in_device_memory with host_bound upper_bound
#    2 x 96 (x's rows) x 64 x 128 = 1,572,864, nothing read, totals 0,
#    and the text report's uncounted lines say "at most 1572864 FLOPs";
#  --read-device-sizes: offs read back (the null GPU never runs the setup
#    kernel, so the shapes stay zeros; offs is the host's copy): each
#    1,310,720 exactly, groups 16..32 rows, totals 2,621,440.
# Exit 77 (skip) without the environment.
set -u
preload=$1 ng=$2 out=$3 cli=$4
HERE=$(cd "$(dirname "$0")" && pwd)
py=${FC_TORCH_PYTHON:-${FLOPCOUNT_CACHE:-$HOME/.cache/flopcount}/torch-venv/bin/python}
if ! [ -x "$py" ] || ! [ -f "$(dirname "$py")/../.flopcount-ready" ]; then
    echo "SKIP: no PyTorch CUDA environment at $py (bash scripts/deps.sh test makes it)"
    exit 77
fi
mkdir -p "$(dirname "$out")"
for read in 0 1; do
    o=$out.$read.json
    rm -f "$o"
    LD_LIBRARY_PATH="$ng${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FLOPCOUNT_LIBCUDA="$ng/libcuda.so.1" \
        FLOPCOUNT_NULLGPU_DEVICE=h100 FLOPCOUNT_CUPTI=0 FLOPCOUNT_READ_DEVICE_SIZES=$read \
        FLOPCOUNT_OUTPUT="$o" FLOPCOUNT_QUIET=1 LD_PRELOAD="$preload" PYTHONDONTWRITEBYTECODE=1 \
        "$py" "$HERE/torch_grouped_mm.py" > "$o.out" 2> "$o.err" ||
        { cat "$o.err"; echo "FAIL: the PyTorch program failed"; exit 1; }
    /usr/bin/python3 - "$o" "$read" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
read = sys.argv[2] == "1"
e = [u for u in r.get("uncounted", []) if "17GroupProblemShapeI" in u["name"]]
ok = len(e) == 2
for u in e:
    hb = u.get("host_bound", {})
    rd = u.get("read_from_device")
    ok = ok and u["reason"] == "sizes_in_device_memory" and u["calls"] == 1
    ok = ok and u["detail"].startswith("3 groups;")
    ok = ok and hb.get("kind") == "upper_bound" and hb.get("calls") == 1
    ok = ok and hb.get("flops") == 2 * 96 * 64 * 128 and "A's rows (96)" in hb.get("reason", "")
    if read:
        ok = ok and rd is not None and rd["calls"] == 1 and rd["counted_calls"] == 1
        ok = ok and rd["flops"] == 2 * (32 + 16 + 32) * 64 * 128 and rd["groups"] == 3
        ok = ok and rd["group_rows_min"] == 16 and rd["group_rows_max"] == 32
    else:
        ok = ok and rd is None
t = r["totals"]["gemm_flops"]
ok = ok and t == (2 * 2 * 80 * 64 * 128 if read else 0)
print("torch_grouped_mm read=%d: %s: totals %d; %s" % (read, "ok" if ok else "FAIL", t,
      json.dumps([{k: v for k, v in u.items() if k != "name"} for u in e])[:900]))
sys.exit(0 if ok else 1)
PY
done
n=$("$cli" report "$out.0.json" | grep -c 'GroupProblemShape problem_shapes); at most 1572864 FLOPs')
[ "$n" = 2 ] || { echo "FAIL: the text report shows the bound on $n lines, not 2"; exit 1; }
