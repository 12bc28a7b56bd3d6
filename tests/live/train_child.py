# SPDX-License-Identifier: Apache-2.0
"""train_child.py - a small real PyTorch (CPU) training run for the tests of
the Python module and the Prometheus file (tests/live/).

usage: /usr/bin/python3 train_child.py CONFIG_JSON

CONFIG keys: markers ("module": flopcount.step()/flopcount.eval(),
"ctypes": flopcount_step & co through ctypes.CDLL(None)), steps, eval_every,
out (JSON written at the end: the snapshot after every step and the final
one, or null when markers is "ctypes"), ready (a file created once training
is done), wait (a file whose appearance ends the run; the child waits at
most 120 s for it).

The model, batch B = 16, all Linear layers through sgemm_:
  l1 64 -> 128, ReLU, l2 128 -> 128 (checkpointed: recomputed in the
  backward), ReLU, l3 128 -> 32.
  forward   2*B*(64*128 + 128*128 + 128*32)            =   917,504
  backward  2 x forward less l1's input gradient (the
            input needs none): 1,835,008 - 2*B*64*128  = 1,572,864
  recompute l2 again: 2*B*128*128                      =   524,288
  per iteration                                          3,014,656
  an evaluation pass on E rows: 2*E*(64*128 + 128*128 + 128*32).
"""
import json
import os
import sys
import time

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

B, E = 16, 4


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(64, 128), nn.Linear(128, 128), nn.Linear(128, 32)

    def forward(self, x):
        x = torch.relu(self.l1(x))
        x = checkpoint(lambda t: torch.relu(self.l2(t)), x, use_reentrant=False)
        return self.l3(x)


def main():
    cfg = json.loads(sys.argv[1])
    torch.manual_seed(0)
    torch.set_num_threads(1)
    if cfg["markers"] == "module":
        import flopcount
        step, evaluation, snapshot = flopcount.step, flopcount.eval, flopcount.snapshot
    else:
        import contextlib
        import ctypes
        lib = ctypes.CDLL(None)

        @contextlib.contextmanager
        def evaluation():
            lib.flopcount_eval_begin()
            yield
            lib.flopcount_eval_end()
        step, snapshot = lib.flopcount_step, None
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    per_step = []
    for i in range(cfg["steps"]):
        loss = model(torch.randn(B, 64)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        step()
        if snapshot is not None:
            s = snapshot()
            per_step.append(s)
            if s.get("hfu") is not None:  # the README's example, plain print
                print("step %d loss %.4f HFU %.2f%% MFU %.2f%%" % (i, loss.item(), 100 * s["hfu"], 100 * s["mfu"]))
        if cfg["eval_every"] and i % cfg["eval_every"] == 0:
            with evaluation():
                with torch.no_grad():
                    model(torch.randn(E, 64))
    final = snapshot() if snapshot is not None else None
    if cfg.get("out"):
        with open(cfg["out"], "w") as f:
            json.dump({"per_step": per_step, "final": final}, f)
    if cfg.get("ready"):
        open(cfg["ready"], "w").close()
    if cfg.get("wait"):
        deadline = time.monotonic() + 120
        while not os.path.exists(cfg["wait"]) and time.monotonic() < deadline:
            time.sleep(0.05)


if __name__ == "__main__":
    main()
