# SPDX-License-Identifier: Apache-2.0
"""log_hfu.py - the README's example of the Python module: a small MLP trained
on random data that logs measured HFU/MFU beside its loss, with an evaluation
pass every 4 steps. Without flopcount it trains the same and logs the loss alone.

    flopcount run --quiet -- /usr/bin/python3 scripts/demo/log_hfu.py
"""
import torch
import torch.nn as nn

import flopcount  # on PYTHONPATH under `flopcount run`; every call a no-op without the library

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 256))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
writer = None  # e.g. torch.utils.tensorboard.SummaryWriter(); W&B and MLflow alike

for step in range(12):
    x = torch.randn(64, 256)
    loss = (model(x) - x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    flopcount.step()  # after optimizer.step(): one training iteration

    s = flopcount.snapshot()
    line = "step %d loss %.4f" % (step, loss.item())
    if s["active"] and s["hfu"] is not None:  # known once the detector has 3 iterations
        line += " HFU %.1f%% MFU %.1f%% (%.1f ms/iteration)" % (
            100 * s["hfu"], 100 * s["mfu"], 1000 * s["last_iteration_seconds"])
        if writer is not None:
            writer.add_scalar("flopcount/hfu", s["hfu"], step)
            writer.add_scalar("flopcount/mfu", s["mfu"], step)
    print(line)

    if step % 4 == 3:
        with flopcount.eval():  # counted apart, never part of an iteration
            with torch.no_grad():
                model(torch.randn(256, 256))
