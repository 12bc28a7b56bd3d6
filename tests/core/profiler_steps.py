# SPDX-License-Identifier: Apache-2.0
"""profiler_steps.py - two training steps of the tiny GPT (block 0
checkpointed) under torch.profiler(with_flops=True), run with the shim
preloaded. Prints: shim_calls shim_flops profiler_calls profiler_flops for
exactly the profiled steps (shim counters read through flopcount_snapshot_get).
Profiler calls count one per mm/addmm event and one per batch entry of a bmm,
as the CPU BLAS sees them (torch runs a bmm as one sgemm_ per batch entry)."""
import ctypes
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "demo"))
from tiny_gpt import TinyGPT  # noqa: E402

L, H, A, V, S, B = 2, 64, 4, 96, 32, 2


class Snapshot(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("version", ctypes.c_uint32),
                ("gemm_calls", ctypes.c_uint64), ("gemm_flops_lo", ctypes.c_uint64),
                ("gemm_flops_hi", ctypes.c_uint64), ("failed_calls", ctypes.c_uint64),
                ("invalid_calls", ctypes.c_uint64), ("iterations", ctypes.c_uint64)]


def snapshot():
    s = Snapshot(size=ctypes.sizeof(Snapshot))
    if ctypes.CDLL(None).flopcount_snapshot_get(ctypes.byref(s)) != 0:
        raise SystemExit("flopcount_snapshot_get failed")
    return s.gemm_calls, (s.gemm_flops_hi << 64) | s.gemm_flops_lo


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = TinyGPT(L, H, A, V, S, checkpointed=[0])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    batches = [(torch.randint(V, (B, S)), torch.randint(V, (B, S))) for _ in range(2)]
    c0, f0 = snapshot()
    with torch.profiler.profile(with_flops=True, record_shapes=True) as prof:
        for idx, target in batches:
            loss = F.cross_entropy(model(idx).reshape(-1, V), target.reshape(-1))
            loss.backward()
            opt.step()
            opt.zero_grad()
    c1, f1 = snapshot()
    calls = flops = 0
    for evt in prof.events():
        if evt.name in ("aten::mm", "aten::addmm", "aten::bmm"):
            flops += evt.flops
            calls += evt.input_shapes[0][0] if evt.name == "aten::bmm" else 1
    print(c1 - c0, f1 - f0, calls, flops)


if __name__ == "__main__":
    main()
