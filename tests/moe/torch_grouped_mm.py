# SPDX-License-Identifier: Apache-2.0
"""torch_grouped_mm.py - torch._grouped_mm's bf16 CUTLASS grouped kernel on
the null GPU as an H100 (tests/moe/torch_grouped_mm.sh): 3 experts, offs
{32, 48, 96} built on the host, so the launch's Params hold 3 groups."""
import torch

x = torch.ones(96, 128, device="cuda", dtype=torch.bfloat16)
w = torch.ones(3, 64, 128, device="cuda", dtype=torch.bfloat16).transpose(-2, -1)
offs = torch.tensor([32, 48, 96], device="cuda", dtype=torch.int32)
y = torch._grouped_mm(x, w, offs=offs)
torch.cuda.synchronize()
assert tuple(y.shape) == (96, 64)
