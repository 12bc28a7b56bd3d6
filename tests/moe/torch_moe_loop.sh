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
# The model (torch_moe_loop.py: 2 layers of attention + this MoE layer, an
# embedding, logits to V 1000; B 2 x S 256 = T, 4 heads of 64), per step:
#   per layer  QKV 3*2*512*256*768 = 603,979,776; out 3*2*512*256*256 =
#              201,326,592; QK^T and AV 3*2*(2*4*2*256*256*64) = 402,653,184;
#              MoE 1,514,668,032: 2,722,627,584
#   logits     3*2*512*256*1000 = 786,432,000
#   step       2 * 2,722,627,584 + 786,432,000 = 6,231,687,168 in 159 GEMMs
#              (2 * (66 + 3 + 3 + 6) + 3)
# Both figures are also FlopCounterMode's over one step of the same program
# (run without the shim). Asserts, each run: 4 iterations (the optimizer's, no
# markers), each counted = the figure exactly, forward a third and backward
# two thirds of them, the calls, all bf16, the
# forward profile's forward = a third, nothing uncounted. The lone layer is
# no transformer, so the inferred model reads nothing there (it says "not
# inferred"; it must claim no other experts or top-k); in the model it must
# read experts 6, topk 2, moe_ffn 128, shared_experts 1, shared_ffn 384 exact
# and its formula's forward equal the counted one.
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
for kind in layer model; do
    LD_LIBRARY_PATH="$ng${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FLOPCOUNT_LIBCUDA="$ng/libcuda.so.1" \
        FLOPCOUNT_NULLGPU_DEVICE=h100 FLOPCOUNT_CUPTI=0 FLOPCOUNT_OUTPUT="$out/$kind.json" \
        FLOPCOUNT_QUIET=1 LD_PRELOAD="$preload" PYTHONDONTWRITEBYTECODE=1 \
        "$py" "$HERE/torch_moe_loop.py" train $kind "$out/meta.json" ||
        { echo "FAIL: the training program ($kind) failed"; exit 1; }
    "$cli" report "$out/$kind.json" > "$out/$kind.txt" || { echo "FAIL: flopcount report ($kind)"; exit 1; }
done
LD_LIBRARY_PATH="$ng${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FLOPCOUNT_NULLGPU_DEVICE=h100 \
    PYTHONDONTWRITEBYTECODE=1 "$py" "$HERE/torch_moe_loop.py" fcm "$out/fcm.json" ||
    { echo "FAIL: the FlopCounterMode program failed"; exit 1; }
/usr/bin/python3 - "$out" <<'PY'
import json, re, sys
d = sys.argv[1]
meta = json.load(open(d + "/meta.json"))
fcm = json.load(open(d + "/fcm.json"))
T, D, F, FS, E, K, steps = (meta[k] for k in ("T", "D", "F", "FS", "E", "topk", "steps"))
B, S, A, V, L = (meta[k] for k in ("B", "S", "A", "V", "L"))
rows = meta["rows"]
layer = 3 * 2 * T * D * E + 9 * 2 * T * D * FS + sum(9 * 2 * n * D * F for n in rows)
core = 3 * 2 * (B * A * 2 * S * S * (D // A))
model = L * (3 * 2 * T * D * 3 * D + 3 * 2 * T * D * D + core + layer) + 3 * 2 * T * D * V
problems = []
def want(what, got, exp):
    if got != exp:
        problems.append("%s: %r, expected %r" % (what, got, exp))
want("rows per expert", rows, [341, 86, 85, 341, 85, 86])
want("the layer's hand figure", layer, 1514668032)
want("the model's hand figure", model, 6231687168)
inferred = {}
for kind, hand, calls in (("layer", layer, 66), ("model", model, 159)):
    r = json.load(open("%s/%s.json" % (d, kind)))
    want(kind + ": FlopCounterMode over one step", fcm["fcm_" + kind], hand)
    it = r.get("iterations") or {}
    want(kind + ": iterations", it.get("count"), steps)
    want(kind + ": iterations found by", it.get("detected_by"), "optimizer")
    want(kind + ": forward / backward FLOPs", (it.get("forward_flops"), it.get("backward_flops")),
         (hand // 3 * steps, 2 * hand // 3 * steps))
    want(kind + ": per-iteration FLOPs", [x.get("flops") for x in it.get("list", [])], [hand] * steps)
    tot = r.get("totals") or {}
    want(kind + ": GEMM calls", tot.get("gemm_calls"), calls * steps)
    want(kind + ": GEMM FLOPs", tot.get("gemm_flops"), hand * steps)
    want(kind + ": dtypes", sorted((r.get("by_dtype") or {}).keys()), ["bf16"])
    want(kind + ": uncounted", r.get("uncounted"), [])
    want(kind + ": forward profile FLOPs", (r.get("forward_profile") or {}).get("flops"), hand // 3)
    txt = open("%s/%s.txt" % (d, kind)).read()
    got = {n: v + "/" + how for n, v, how in
           re.findall(r"^  (experts|topk|moe_ffn|shared_experts|shared_ffn) +(\S+) +(\w+)", txt, re.M)}
    inferred[kind] = {n: got.get(n) for n in ("experts", "topk", "moe_ffn", "shared_experts", "shared_ffn")}
    exp = {"experts": "6/exact", "topk": "2/exact", "moe_ffn": "128/exact", "shared_experts": "1/exact",
           "shared_ffn": "384/exact"}
    if kind == "model":
        want("model: the inferred experts", inferred[kind], exp)
        if "the formula's forward equals the counted forward exactly" not in txt:
            problems.append("model: the formula's forward does not equal the counted one")
    else:
        for n, v in inferred[kind].items():
            if v is not None and v.split("/")[0] not in ("?", exp[n].split("/")[0]):
                problems.append("layer: the inferred model says %s %s" % (n, v))
        if not re.search(r"^  not inferred ", txt, re.M):
            inferred[kind] = "?"
        else:
            inferred[kind] = "not inferred"
print("torch_moe_loop: %s: %d steps of %d (layer) and %d (model) FLOPs (FlopCounterMode %d, %d); inferred %s" % (
    "FAIL: " + "; ".join(problems) if problems else "ok", steps, layer, model, fcm["fcm_layer"],
    fcm["fcm_model"], inferred))
sys.exit(1 if problems else 0)
PY
