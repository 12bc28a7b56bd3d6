# SPDX-License-Identifier: Apache-2.0
"""train_markers.py - `import flopcount` from an installed wheel, under
`flopcount run`: the module is the venv's (no PYTHONPATH), finds the
preloaded shim, and its markers and snapshot agree with the GEMMs run.

Each step is a training step of y = x @ w, x 32x64, w 64x64 (a parameter):
the forward GEMM and, in the backward, the weight gradient x^T @ dy (x needs
no gradient), each one sgemm_ of the reference BLAS of 2*32*64*64 = 262,144
FLOPs; STEPS steps, one flopcount.step() after each.

usage: python train_markers.py VENV_PREFIX
"""
import os
import sys

import flopcount
import torch

STEPS = 6
PER_GEMM = 2 * 32 * 64 * 64

prefix = os.path.realpath(sys.argv[1])
where = os.path.realpath(flopcount.__file__)
assert where.startswith(prefix + os.sep), f"flopcount imported from {where}, not the venv {prefix}"
assert flopcount.active(), "the shim is not loaded (flopcount.active() is False)"
x, w = torch.ones(32, 64), torch.ones(64, 64, requires_grad=True)
for _ in range(STEPS):
    y = x @ w
    y.sum().backward()
    flopcount.step()
s = flopcount.snapshot()
assert s["active"], s
assert s["gemm_calls"] == 2 * STEPS, s
assert s["gemm_flops"] == 2 * STEPS * PER_GEMM, s
assert s["detected_by"] == "marker", s
assert s["iterations"] is not None and s["iterations"] >= STEPS - 1, s
assert float(y[0, 0]) == 64.0 and float(w.grad[0, 0]) == 32.0 * STEPS
print(f"train_markers: ok: {s['gemm_flops']} FLOPs in {s['gemm_calls']} GEMMs, "
      f"{s['iterations']} iterations by {s['detected_by']}")
