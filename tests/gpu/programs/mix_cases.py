# SPDX-License-Identifier: Apache-2.0
"""mix_cases.py - for check 11: a loop whose steps mix FP8 and BF16 GEMMs in
known proportions, as an FP8 training does (its Linear layers in FP8
through torch._scaled_mm, the rest in BF16): per step NF8 e4m3 GEMMs of
M x N x K and NBF bf16 matmuls of M x N x K, then flopcount_step(). --meta
gets the shapes, counts and steps (the check works the FLOPs out)."""
import argparse
import sys

import torch

import fcmark

M, N, K = 4096, 4096, 4096
NF8, NBF, STEPS = 12, 4, 12


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--meta", required=True)
    a = p.parse_args()
    dev = "cuda"
    x8 = torch.randn(M, K, device=dev).to(torch.float8_e4m3fn)
    w8 = torch.randn(N, K, device=dev).to(torch.float8_e4m3fn)
    one = torch.tensor(1.0, device=dev)
    xb = torch.randn(M, K, device=dev, dtype=torch.bfloat16)
    wb = torch.randn(K, N, device=dev, dtype=torch.bfloat16)
    error = None
    try:
        for _ in range(STEPS):
            for _ in range(NF8):
                torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            for _ in range(NBF):
                torch.matmul(xb, wb)
            torch.cuda.synchronize()
            fcmark.step()
    except Exception as e:
        error = "%s: %s" % (type(e).__name__, str(e)[:200])
    fcmark.write_meta(a.meta, {"M": M, "N": N, "K": K, "nf8": NF8, "nbf": NBF, "steps": STEPS, "error": error,
                               "torch": torch.__version__, "device_name": torch.cuda.get_device_name(0)})
    print("mix_cases: %d steps%s" % (STEPS, ", " + error if error else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
