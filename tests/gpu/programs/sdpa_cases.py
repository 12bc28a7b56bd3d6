# SPDX-License-Identifier: Apache-2.0
"""sdpa_cases.py - for check 09: torch's scaled_dot_product_attention with
each backend forced (torch.nn.attention.sdpa_kernel: FLASH_ATTENTION,
EFFICIENT_ATTENTION, CUDNN_ATTENTION), causal and not, GQA (enable_gqa),
forward and backward, each case REPS times inside FlopCounterMode; then the
flash-attn package (flash_attn_func) and TransformerEngine's
DotProductAttention when the machine has them; and a flash and a cuDNN
case captured into a CUDA graph (torch.cuda.graph) and replayed REPLAYS
times after one eager warm-up call: 1 + REPLAYS calls each way, none at
the capture.

Every case has its own sequence length (so the report's attention shapes
can be told apart): s = 512 + 64 i, bf16, (B, H, S, D) tensors. --meta gets
per case: backend, b, h, h_k, s, d, causal, reps, FlopCounterMode's FLOPs
(forward and backward together; it never halves causal) or the error that
kept the case from running (a backend refusing a shape is a fact, not a
failure of the program)."""
import argparse
import sys

import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

import fcmark

REPS = 3
REPLAYS = 4
B, H, D = 2, 16, 64


def case_list():
    out = []
    i = 0
    for backend in ("flash", "efficient", "cudnn"):
        for causal, hk, d in ((False, H, D), (True, H, D), (True, 4, D), (True, H, 128)):
            out.append({"backend": backend, "b": B, "h": H, "h_k": hk, "s": 512 + 64 * i, "d": d,
                        "causal": causal, "reps": REPS})
            i += 1
    return out


def backend_ctx(name):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel({"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
                        "cudnn": SDPBackend.CUDNN_ATTENTION}[name])


def run_sdpa(c):
    dev, dt = "cuda", torch.bfloat16
    q = torch.randn(c["b"], c["h"], c["s"], c["d"], device=dev, dtype=dt, requires_grad=True)
    k = torch.randn(c["b"], c["h_k"], c["s"], c["d"], device=dev, dtype=dt, requires_grad=True)
    v = torch.randn(c["b"], c["h_k"], c["s"], c["d"], device=dev, dtype=dt, requires_grad=True)
    kw = {"is_causal": c["causal"]}
    if c["h_k"] != c["h"]:
        kw["enable_gqa"] = True
    fcm = FlopCounterMode(display=False)
    with backend_ctx(c["backend"]), fcm:
        for _ in range(c["reps"]):
            out = F.scaled_dot_product_attention(q, k, v, **kw)
            out.backward(torch.ones_like(out))
    torch.cuda.synchronize()
    c["fcm_flops"] = int(fcm.get_total_flops())


def run_graphed(cases):
    """The flash and cuDNN backends inside a captured CUDA graph."""
    for i, backend in enumerate(("flash", "cudnn")):
        c = {"backend": backend, "b": B, "h": H, "h_k": H, "s": 2240 + 64 * i, "d": D, "causal": True,
             "reps": 1 + REPLAYS, "graphed": True}
        cases.append(c)
        try:
            q, k, v = (torch.randn(B, H, c["s"], D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                       for _ in range(3))
            with backend_ctx(backend):
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):  # the warm-up torch asks for before a capture: eager
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                    o.backward(torch.ones_like(o))
                torch.cuda.current_stream().wait_stream(side)
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                    o.backward(torch.ones_like(o))
                for _ in range(REPLAYS):
                    g.replay()
            torch.cuda.synchronize()
        except Exception as e:
            c["error"] = "%s: %s" % (type(e).__name__, str(e)[:200])


def run_flash_attn_pkg(cases):
    try:
        from flash_attn import flash_attn_func
    except Exception as e:  # not installed: the check says so
        return "flash-attn not importable (%s)" % type(e).__name__
    c = {"backend": "flash_attn_pkg", "b": B, "h": H, "h_k": H, "s": 2048, "d": D, "causal": True, "reps": REPS}
    try:
        q, k, v = (torch.randn(B, c["s"], H, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                   for _ in range(3))  # flash-attn takes (B, S, H, D)
        for _ in range(REPS):
            o = flash_attn_func(q, k, v, causal=True)
            o.backward(torch.ones_like(o))
        torch.cuda.synchronize()
    except Exception as e:
        c["error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
    cases.append(c)
    return None


def run_te(cases):
    try:
        import transformer_engine.pytorch as te
    except Exception as e:
        return "TransformerEngine not importable (%s)" % type(e).__name__
    c = {"backend": "te", "b": B, "h": H, "h_k": H, "s": 2112, "d": D, "causal": True, "reps": REPS}
    try:
        attn = te.DotProductAttention(H, D, attn_mask_type="causal", qkv_format="bshd")
        q, k, v = (torch.randn(B, c["s"], H, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                   for _ in range(3))
        for _ in range(REPS):
            o = attn(q, k, v)
            o.backward(torch.ones_like(o))
        torch.cuda.synchronize()
    except Exception as e:
        c["error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
    cases.append(c)
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--meta", required=True)
    a = p.parse_args()
    cases = case_list()
    for c in cases:
        try:
            run_sdpa(c)
        except Exception as e:  # the backend refused the case (shape, GQA, build)
            c["error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
    run_graphed(cases)
    notes = [n for n in (run_flash_attn_pkg(cases), run_te(cases)) if n]
    fcmark.write_meta(a.meta, {
        "cases": cases,
        "notes": notes,
        "torch": torch.__version__,
        "cudnn": torch.backends.cudnn.version(),
        "device_name": torch.cuda.get_device_name(0),
    })
    print("sdpa_cases: %d cases, %d refused" % (len(cases), sum("error" in c for c in cases)), file=sys.stderr)


if __name__ == "__main__":
    main()
