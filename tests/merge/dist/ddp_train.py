# SPDX-License-Identifier: Apache-2.0
"""ddp_train.py - one rank of a tiny DistributedDataParallel run over gloo.

Started by run_ddp.py the way torchrun starts ranks (RANK, LOCAL_RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT in the environment), under the shim.

Model: Linear(IN, HID) -> ReLU -> Linear(HID, OUT), batch BATCH per rank
(BATCH_LAST on the last rank when given: an uneven shard). On CPU each Linear
is one sgemm_ forward; backward is one sgemm_ for each weight gradient and
one for the data gradient of the second layer only (the input needs no
gradient, so the first layer's data gradient is skipped). Per step:
  forward   2*b*IN*HID + 2*b*HID*OUT
  backward  2*b*HID*OUT (dgrad 2) + 2*b*HID*OUT (wgrad 2) + 2*b*IN*HID (wgrad 1)
  total     4*b*IN*HID + 6*b*HID*OUT
MSE loss, gloo's all-reduce and SGD run no GEMM.
"""
import argparse
import ctypes
import os

import torch
import torch.distributed as dist
import torch.nn as nn


def step_marker():
    """flopcount_step() of the preloaded shim, or a no-op without one."""
    try:
        fn = ctypes.CDLL(None).flopcount_step
    except AttributeError:
        return lambda: None
    fn.restype = None
    return fn


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--in-features", type=int, default=32)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--out-features", type=int, default=16)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--batch-last", type=int, default=0)
    p.add_argument("--steps", type=int, default=5)
    a = p.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")  # env:// from the variables above
    rank, world = dist.get_rank(), dist.get_world_size()
    assert rank == int(os.environ["RANK"]) and world == int(os.environ["WORLD_SIZE"])
    b = a.batch_last if (a.batch_last and rank == world - 1) else a.batch
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(a.in_features, a.hidden), nn.ReLU(),
                          nn.Linear(a.hidden, a.out_features))
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    gen = torch.Generator().manual_seed(rank + 1)
    marker = step_marker()
    for _ in range(a.steps):
        x = torch.randn(b, a.in_features, generator=gen)
        y = torch.randn(b, a.out_features, generator=gen)
        opt.zero_grad()
        loss = nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        marker()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
