#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""split_pymodule.py - the Python module's phase markers make a GAN's split
exact: a generator and a discriminator trained on real PyTorch (CPU), the
discriminator run again for the generator's loss and checkpointed, its
phases declared only with flopcount.forward(), flopcount.backward() and
`with flopcount.recompute():` (python/flopcount); checked per iteration
against split_child.py's own counter, and the snapshot's split_guessed.

usage: /usr/bin/python3 split_pymodule.py SHIM_SO PYTHON_DIR WORKDIR
       (PYTHON_DIR: build/lib/flopcount/python)"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

CHILD = r'''
import json, sys, torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.checkpoint import checkpoint
import flopcount
import split_child as C
torch.manual_seed(0)
torch.set_num_threads(1)
C.MARK = C.Markers("auto")          # no ctypes markers: the module declares
B, S, D = 4, 8, 32
G = nn.Sequential(nn.Linear(16, 48), nn.GELU(), nn.Linear(48, D))
body = nn.Sequential(nn.Linear(D, 64), nn.GELU(), nn.Linear(64, 32))
head = nn.Linear(32, 1)
C.State.params = {C.storage_ptr(p): n for n, p in
                  list(G.named_parameters()) + list(body.named_parameters()) + list(head.named_parameters())}

def body_declared(x):           # the checkpointed part, declared when recomputed
    if C.State.phase == "bwd":
        with flopcount.recompute():
            return C.recomputable(body)(x)
    return body(x)

def disc(x):
    return head(checkpoint(body_declared, x, use_reentrant=False))

og = torch.optim.SGD(G.parameters(), lr=1e-3)
od = torch.optim.SGD(list(body.parameters()) + list(head.parameters()), lr=1e-3)
with C.Counter():
    for step in range(5):
        flopcount.forward()
        fake = G(torch.randn(B, S, 16))
        loss_d = F.softplus(-disc(torch.randn(B, S, D))).mean() + F.softplus(disc(fake.detach())).mean()
        flopcount.backward()
        C.backward(loss_d)
        od.step(); od.zero_grad()
        flopcount.forward()
        loss_g = F.softplus(-disc(fake)).mean()
        flopcount.backward()
        C.backward(loss_g)
        og.step(); og.zero_grad()
        flopcount.step()
        C.State.events.append(["step", "fwd", 0, 0, 0])
    snap = flopcount.snapshot()
json.dump({"events": C.State.events, "total": C.State.total, "snapshot": snap}, open(sys.argv[1], "w"))
'''


def main():
    import split_lib as L
    shim, pydir, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    report, counted = os.path.join(work, "pymodule.report.json"), os.path.join(work, "pymodule.counted.json")
    env = dict(os.environ, LD_PRELOAD=shim, FLOPCOUNT_OUTPUT=report, FLOPCOUNT_QUIET="1", OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([pydir, HERE]))
    p = subprocess.run([L.PYTHON, "-c", CHILD, counted], env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        print("child failed: %s" % p.stderr[-3000:])
        return 1
    rep, cnt = json.load(open(report)), json.load(open(counted))
    v, why = L.judge(cnt, rep, "marked")
    it = rep["iterations"]
    bad = v != "exact" or it["split"] != "declared" or it["ambiguous_iterations"] != 0 or \
        cnt["snapshot"].get("split_guessed") is not False
    print("pymodule: %s %s; split %s, ambiguous %d, snapshot split_guessed %s" % (
        v, why, it["split"], it["ambiguous_iterations"], cnt["snapshot"].get("split_guessed")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
