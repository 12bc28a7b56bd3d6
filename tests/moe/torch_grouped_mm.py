# SPDX-License-Identifier: Apache-2.0
"""torch_grouped_mm.py - torch._grouped_mm's bf16 CUTLASS grouped kernel on
the null GPU as an H100 (tests/moe/torch_grouped_mm.sh): 3 experts, offs
{32, 48, 80} built on the host (groups of 32, 16, 32 rows; x's last 16
rows in none), so the launch's Params hold 3 groups.
Forward y = x w (2D x 3D, M ragged) and the backward's dx = dy w^T (the
same case); w takes no gradient (its 2D x 2D GEMM's TMA descriptor is not
made on the null GPU). Prints FlopCounterMode's count: 0, as torch 2.15
has no formula for _grouped_mm (the script checks the hand figures)."""
import os
import sys

import torch
from torch.utils.flop_counter import FlopCounterMode

x = torch.ones(96, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
w = torch.ones(3, 64, 128, device="cuda", dtype=torch.bfloat16).transpose(-2, -1)
offs = torch.tensor([32, 48, 80], device="cuda", dtype=torch.int32)
with FlopCounterMode(display=False) as fc:
    y = torch._grouped_mm(x, w, offs=offs)
    y.backward(torch.ones(96, 64, device="cuda", dtype=torch.bfloat16))
torch.cuda.synchronize()
assert tuple(y.shape) == (96, 64) and tuple(x.grad.shape) == (96, 128)
print("FLOPCOUNTERMODE", fc.get_total_flops())
sys.stdout.flush()

# PyTorch on the null GPU aborts now and then at interpreter exit
# ("terminate called without an active exception", no Python frame), with
# or without libflopcount.so (3 of 16 bare runs under load). The work is
# done and checked: end here with os._exit, as multiprocessing's children
# do; the shim writes its report at _exit (shim/exit_direct.c).
os._exit(0)
