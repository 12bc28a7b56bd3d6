# SPDX-License-Identifier: Apache-2.0
"""kernels_load.py - for check 06: an 8192^3 bf16 GEMM run REPS times
back to back, timed with one pair of torch.cuda.Event around them (after
WARMUP untimed calls), then causal SDPA (flash) calls, so the kernel
report has one big GEMM shape and attention kernels. --meta gets torch's
seconds per GEMM and TFLOP/s = 2*8192^3 / seconds."""
import argparse
import sys

import torch
import torch.nn.functional as F

import fcmark

N, WARMUP, REPS = 8192, 3, 20
B, HEADS, S, D, SDPA_CALLS = 4, 16, 4096, 128, 5


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--meta", required=True)
    a = p.parse_args()
    x = torch.randn(N, N, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, N, device="cuda", dtype=torch.bfloat16)
    y = torch.empty(N, N, device="cuda", dtype=torch.bfloat16)
    for _ in range(WARMUP):
        torch.mm(x, w, out=y)
    t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0.record()
    for _ in range(REPS):
        torch.mm(x, w, out=y)
    t1.record()
    torch.cuda.synchronize()
    per_call = t0.elapsed_time(t1) / 1000.0 / REPS
    q, k, v = (torch.randn(B, HEADS, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        ctx = sdpa_kernel([SDPBackend.FLASH_ATTENTION])
    except ImportError:
        import contextlib

        ctx = contextlib.nullcontext()
    with ctx:
        for _ in range(SDPA_CALLS):
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.cuda.synchronize()
    fcmark.write_meta(
        a.meta,
        {
            "n": N,
            "warmup": WARMUP,
            "reps": REPS,
            "gemm_seconds": per_call,
            "gemm_tflops": 2 * N**3 / per_call / 1e12,
            "sdpa_calls": SDPA_CALLS,
            "torch": torch.__version__,
        },
    )
    print("kernels_load: %.3f ms per GEMM" % (per_call * 1e3), file=sys.stderr)


if __name__ == "__main__":
    main()
