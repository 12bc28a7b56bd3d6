# SPDX-License-Identifier: Apache-2.0
"""hw_load.py - for checks 07a and 07b: one 4096^3 bf16 GEMM, non-causal
and causal flash SDPA (B=4, 16 heads, s=4096, d=128), after an untimed
warm-up of each.
--mode ncu (07a, under Nsight Compute): the three inside one NVTX range
  "fcgpu", separated by torch.cuda._sleep spin kernels, so the profiled
  kernels split into GEMM / full / causal at the spin kernels whatever the
  kernels are named.
--mode hw (07b, under flopcount run --hw-flops): flopcount_step() markers
  make iterations: 1 warm-up, 2 = GEMM_REPS GEMMs, 3 = a 64^3 GEMM + SDPA_REPS
  non-causal SDPA, 4 = a 64^3 GEMM + SDPA_REPS causal SDPA; the GPU idles
  (synchronize, sleep) at each boundary."""
import argparse
import contextlib
import sys
import time

import torch
import torch.nn.functional as F

import fcmark

N, B, HEADS, S, D = 4096, 4, 16, 4096, 128
GEMM_REPS, SDPA_REPS, TINY = 10, 5, 64


def flash_only():
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        return sdpa_kernel([SDPBackend.FLASH_ATTENTION])
    except ImportError:
        return contextlib.nullcontext()


def boundary():
    torch.cuda.synchronize()
    time.sleep(0.05)
    fcmark.step()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--meta", required=True)
    p.add_argument("--mode", choices=("ncu", "hw"), required=True)
    a = p.parse_args()
    dt = torch.bfloat16
    x, w, y = (torch.randn(N, N, device="cuda", dtype=dt) for _ in range(3))
    t1, t2 = (torch.randn(TINY, TINY, device="cuda", dtype=dt) for _ in range(2))
    q, k, v = (torch.randn(B, HEADS, S, D, device="cuda", dtype=dt) for _ in range(3))
    with flash_only():
        torch.mm(x, w, out=y)
        F.scaled_dot_product_attention(q, k, v, is_causal=False)
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
        if a.mode == "ncu":
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push("fcgpu")
            torch.mm(x, w, out=y)
            torch.cuda._sleep(100000)
            F.scaled_dot_product_attention(q, k, v, is_causal=False)
            torch.cuda._sleep(100000)
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
        else:
            boundary()
            for _ in range(GEMM_REPS):
                torch.mm(x, w, out=y)
            boundary()
            torch.mm(t1, t2)
            for _ in range(SDPA_REPS):
                F.scaled_dot_product_attention(q, k, v, is_causal=False)
            boundary()
            torch.mm(t1, t2)
            for _ in range(SDPA_REPS):
                F.scaled_dot_product_attention(q, k, v, is_causal=True)
            boundary()
    fcmark.write_meta(
        a.meta,
        {
            "mode": a.mode,
            "n": N,
            "b": B,
            "heads": HEADS,
            "s": S,
            "d": D,
            "gemm_reps": GEMM_REPS,
            "sdpa_reps": SDPA_REPS,
            "tiny": TINY,
            "torch": torch.__version__,
        },
    )
    print("hw_load: %s done" % a.mode, file=sys.stderr)


if __name__ == "__main__":
    main()
