# SPDX-License-Identifier: Apache-2.0
"""train.py - a small PyTorch CPU training whose GEMMs are worked out by hand,
for the process-tree tests (test_procs_torch.py).

Model Linear(IN, HID) -> ReLU -> Linear(HID, OUT), batch B, SGD, MSE loss;
flopcount_step() after each optimizer step (when the shim is preloaded).
On CPU each Linear is one sgemm_ forward; backward is one sgemm_ per weight
gradient and one for the second layer's data gradient (the input needs no
gradient). Per step:
  forward   2*B*IN*HID + 2*B*HID*OUT
  backward  2*B*HID*OUT (dgrad 2) + 2*B*HID*OUT (wgrad 2) + 2*B*IN*HID (wgrad 1)
  total     4*B*IN*HID + 6*B*HID*OUT, in 5 sgemm_ calls
Nothing else runs a GEMM (loss, SGD, data loading: elementwise).

Options:
  --steps N           training steps (default 6)
  --batch B           (default 8)
  --fork-child N      after training, fork a child that trains N steps of its
                      own (same shapes) and exits normally; wait for it
  --mp-child N        after training, start a multiprocessing Process (fork
                      start method) that trains N steps of its own; it ends,
                      as multiprocessing's children do, with os._exit
  --dataloader        feed the batches through a DataLoader with
                      num_workers=2 (its workers make tensors, no GEMM)
  --sleep S           sleep S seconds between steps (signal tests)
  --ready FILE        create FILE once the first step is done
"""
import argparse
import ctypes
import os
import sys
import time

import torch
import torch.nn as nn

IN, HID, OUT = 32, 64, 16


def per_step(b):
    return 4 * b * IN * HID + 6 * b * HID * OUT


def marker():
    try:
        fn = ctypes.CDLL(None).flopcount_step
    except AttributeError:
        return lambda: None
    fn.restype = None
    return fn


class Batches(torch.utils.data.Dataset):
    def __init__(self, n, b):
        self.n, self.b = n, b

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(self.b, IN, generator=g), torch.randn(self.b, OUT, generator=g)


def train(steps, b, args, step_fn):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(IN, HID), nn.ReLU(), nn.Linear(HID, OUT))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = Batches(steps, b)
    if args.dataloader:
        loader = torch.utils.data.DataLoader(data, batch_size=None, num_workers=2)
    else:
        loader = (data[i] for i in range(steps))
    for i, (x, y) in enumerate(loader):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        step_fn()
        if i == 0 and args.ready:
            open(args.ready, "w").close()
        if args.sleep:
            time.sleep(args.sleep)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--fork-child", type=int, default=0)
    p.add_argument("--mp-child", type=int, default=0)
    p.add_argument("--dataloader", action="store_true")
    p.add_argument("--sleep", type=float, default=0)
    p.add_argument("--ready", default="")
    a = p.parse_args()
    torch.set_num_threads(1)
    step_fn = marker()
    train(a.steps, a.batch, a, step_fn)
    if a.fork_child:
        pid = os.fork()
        if pid == 0:  # the child trains and ends the script normally (exit handlers run)
            a.dataloader = False
            a.ready = ""
            train(a.fork_child, a.batch, a, step_fn)
            return
        _, st = os.waitpid(pid, 0)
        if st != 0:
            sys.exit("train.py: the fork child failed")
    if a.mp_child:
        import multiprocessing
        a.dataloader = False
        a.ready = ""
        child = multiprocessing.get_context("fork").Process(
            target=train, args=(a.mp_child, a.batch, a, step_fn))
        child.start()
        child.join()
        if child.exitcode != 0:
            sys.exit("train.py: the multiprocessing child failed")


if __name__ == "__main__":
    main()
