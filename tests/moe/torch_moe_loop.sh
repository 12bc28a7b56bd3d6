#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# torch_moe_loop.sh PRELOAD NULLGPU_DIR CLI WORKDIR - an MoE layer whose
# experts run one by one through cuBLAS (torch_moe_loop.py: router, 6 SwiGLU
# experts over host-routed rows 341, 86, 85, 341, 85, 86, a shared expert),
# trained 4 AdamW steps in bf16 with the real PyTorch of the cached
# environment (scripts/deps.sh test) on the null GPU as an H100, under the
# shim, no markers. Per step, by hand (T 512, D 256, F 128, FS 384, E 6,
# top-2: 1,024 routed rows), each Linear 2*rows*in*out forward and twice that
# backward (dX and dW: the input needs its gradient):
#   router   3 * 2*512*256*6           =     4,718,592
#   shared   9 * 2*512*256*384         =   905,969,664
#   experts  9 * 2*1024*256*128        =   603,979,776  (sum over experts of 9*2*rows_e*D*F)
#   step                                 1,514,668,032 in 66 GEMMs (3 + 9 + 6*9)
# and the same figure from torch.utils.flop_counter.FlopCounterMode over one
# step of the same program (run without the shim). Asserts: 4 iterations
# (the optimizer's), each counted = that figure exactly, 264 calls, all bf16,
# the forward profile's forward = a third (504,889,344), nothing uncounted,
# and the inferred model claims no experts or top-k other than 6 and 2.
# Exit 77 (skip) without the environment.
set -u
preload=$1 ng=$2 cli=$3 out=$4
HERE=$(cd "$(dirname "$0")" && pwd)
py=${FC_TORCH_PYTHON:-${FLOPCOUNT_CACHE:-$HOME/.cache/flopcount}/torch-venv/bin/python}
if ! [ -x "$py" ] || ! [ -f "$(dirname "$py")/../.flopcount-ready" ]; then
    echo "SKIP: no PyTorch CUDA environment at $py (bash scripts/deps.sh test makes it)"
    exit 77
fi
rm -rf "$out" && mkdir -p "$out"
LD_LIBRARY_PATH="$ng${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FLOPCOUNT_LIBCUDA="$ng/libcuda.so.1" \
    FLOPCOUNT_NULLGPU_DEVICE=h100 FLOPCOUNT_CUPTI=0 FLOPCOUNT_OUTPUT="$out/run.json" FLOPCOUNT_QUIET=1 \
    LD_PRELOAD="$preload" PYTHONDONTWRITEBYTECODE=1 \
    "$py" "$HERE/torch_moe_loop.py" train "$out/meta.json" || { echo "FAIL: the training program failed"; exit 1; }
LD_LIBRARY_PATH="$ng${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FLOPCOUNT_NULLGPU_DEVICE=h100 \
    PYTHONDONTWRITEBYTECODE=1 "$py" "$HERE/torch_moe_loop.py" fcm "$out/fcm.json" ||
    { echo "FAIL: the FlopCounterMode program failed"; exit 1; }
"$cli" report "$out/run.json" > "$out/report.txt" || { echo "FAIL: flopcount report"; exit 1; }
/usr/bin/python3 - "$out" <<'PY'
import json, re, sys
d = sys.argv[1]
r = json.load(open(d + "/run.json"))
meta = json.load(open(d + "/meta.json"))
fcm = json.load(open(d + "/fcm.json"))["fcm_flops"]
T, D, F, FS, E, K, steps = (meta[k] for k in ("T", "D", "F", "FS", "E", "topk", "steps"))
rows = meta["rows"]
hand = 3 * 2 * T * D * E + 9 * 2 * T * D * FS + sum(9 * 2 * n * D * F for n in rows)
problems = []
def want(what, got, exp):
    if got != exp:
        problems.append("%s: %r, expected %r" % (what, got, exp))
want("rows per expert", rows, [341, 86, 85, 341, 85, 86])
want("the hand figure", hand, 1514668032)
want("FlopCounterMode over one step", fcm, hand)
it = r.get("iterations") or {}
want("iterations", it.get("count"), steps)
want("per-iteration FLOPs", [x.get("flops") for x in it.get("list", [])], [hand] * steps)
tot = r.get("totals") or {}
want("GEMM calls", tot.get("gemm_calls"), 66 * steps)
want("GEMM FLOPs", tot.get("gemm_flops"), hand * steps)
want("dtypes", sorted((r.get("by_dtype") or {}).keys()), ["bf16"])
want("uncounted", r.get("uncounted"), [])
want("forward profile FLOPs", (r.get("forward_profile") or {}).get("flops"), hand // 3)
txt = open(d + "/report.txt").read()
for name, exp in (("experts", E), ("topk", K)):
    m = re.search(r"^  %s +(\S+)" % name, txt, re.M)
    if m and m.group(1) not in ("?", str(exp)):
        problems.append("the inferred model says %s %s, not %d" % (name, m.group(1), exp))
inferred = [l.strip() for l in txt.splitlines() if re.match(r"^  (experts|topk|not inferred) ", l)]
print("torch_moe_loop: %s: %d steps of %d FLOPs (FlopCounterMode %d); inferred: %s" % (
    "FAIL: " + "; ".join(problems) if problems else "ok", steps, hand, fcm, inferred))
sys.exit(1 if problems else 0)
PY
