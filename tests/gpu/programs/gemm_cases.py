# SPDX-License-Identifier: Apache-2.0
"""gemm_cases.py - for check 02: eager torch GEMMs on CUDA, each case with
its own shape so the report's shapes can be told apart, each run REPS times
inside torch.utils.flop_counter.FlopCounterMode.

Cases: matmul, nn.Linear with bias (the cuBLASLt epilogue path), nn.Linear
without bias, bmm, baddbmm; each in bf16, fp16, fp32 with TF32 on
(torch.set_float32_matmul_precision("high")) and off ("highest"); and fp8
(e4m3) through torch._scaled_mm. Case i has M = 256 + 32i, N = 384 + 32i,
K = 512 + 16i (multiples of 16, as fp8 needs), batch 4 for bmm/baddbmm.
--meta gets, per case: op, dtype, the dtype name flopcount should report,
M, N, K, batch, reps, FlopCounterMode's FLOPs and 2*M*N*K*batch*reps."""
import argparse
import sys

import torch
from torch.utils.flop_counter import FlopCounterMode

import fcmark

REPS = 3
DTYPES = (
    ("bf16", torch.bfloat16, None, "bf16"),
    ("fp16", torch.float16, None, "fp16"),
    ("fp32-tf32", torch.float32, "high", "tf32"),
    ("fp32", torch.float32, "highest", "fp32"),
)
OPS = ("matmul", "linear_bias", "linear_nobias", "bmm", "baddbmm")


def make_case(op, dtype, M, N, K, batch):
    """A closure that runs the op once on fresh CUDA tensors."""
    dev = "cuda"
    if op == "matmul":
        a, b = torch.randn(M, K, device=dev, dtype=dtype), torch.randn(K, N, device=dev, dtype=dtype)
        return lambda: torch.matmul(a, b)
    if op in ("linear_bias", "linear_nobias"):
        lin = torch.nn.Linear(K, N, bias=(op == "linear_bias")).to(device=dev, dtype=dtype)
        x = torch.randn(M, K, device=dev, dtype=dtype)
        return lambda: lin(x)
    if op == "bmm":
        a, b = torch.randn(batch, M, K, device=dev, dtype=dtype), torch.randn(
            batch, K, N, device=dev, dtype=dtype
        )
        return lambda: torch.bmm(a, b)
    if op == "baddbmm":
        c = torch.randn(batch, M, N, device=dev, dtype=dtype)
        a, b = torch.randn(batch, M, K, device=dev, dtype=dtype), torch.randn(
            batch, K, N, device=dev, dtype=dtype
        )
        return lambda: torch.baddbmm(c, a, b)
    if op == "scaled_mm":
        a = torch.randn(M, K, device=dev).to(torch.float8_e4m3fn)
        w = torch.randn(N, K, device=dev).to(torch.float8_e4m3fn)  # row-major (N, K): column-major (K, N)
        one = torch.tensor(1.0, device=dev)
        return lambda: torch._scaled_mm(a, w.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    raise ValueError(op)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--meta", required=True)
    a = p.parse_args()
    cases = []
    plan = [(op, d) for d in DTYPES for op in OPS] + [("scaled_mm", ("fp8", None, None, "fp8_e4m3"))]
    with torch.no_grad():
        for i, (op, (dname, dtype, precision, expect_dtype)) in enumerate(plan):
            M, N, K = 256 + 32 * i, 384 + 32 * i, 512 + 16 * i
            batch = 4 if op in ("bmm", "baddbmm") else 1
            case = {
                "op": op,
                "dtype": dname,
                "expect_dtype": expect_dtype,
                "M": M,
                "N": N,
                "K": K,
                "batch": batch,
                "reps": REPS,
                "hand_flops": 2 * M * N * K * batch * REPS,
            }
            try:
                if precision:
                    torch.set_float32_matmul_precision(precision)
                fn = make_case(op, dtype, M, N, K, batch)
                torch.cuda.synchronize()
                with FlopCounterMode(display=False) as fc:
                    for _ in range(REPS):
                        fn()
                torch.cuda.synchronize()
                case["fcm_flops"] = fc.get_total_flops()
                case["matmul_precision"] = torch.get_float32_matmul_precision()
            except Exception as e:  # an op this torch cannot run: the check says so
                case["error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
            cases.append(case)
    fcmark.write_meta(a.meta, {"cases": cases, "torch": torch.__version__, "snapshot": fcmark.snapshot()})
    print(
        "gemm_cases: %d cases, %d with errors" % (len(cases), sum("error" in c for c in cases)),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
