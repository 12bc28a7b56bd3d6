# SPDX-License-Identifier: Apache-2.0
"""nanogpt_child.py - runs a training script (nanoGPT's own train.py, from a
copy the caller made; nothing of it is in this repository) unchanged, and
counts its GEMM FLOPs by phase from inside the process, independently of
the shim: split_nanogpt.py runs it under the shim and compares.

usage: /usr/bin/python3 nanogpt_child.py OUT_JSON SCRIPT [ARGS...]
       (run in the script's directory: train.py reads configurator.py and
        data/ from there)

The counter is split_child.py's: a TorchDispatchMode that sees every aten
mm/addmm/bmm/baddbmm and takes each one's FLOPs from its shapes (the same
small-bmm rule as torch 1.13's CPU path). The phase of a product comes
from where the program is, never from what the call looks like:
  backward   inside Tensor.backward() / torch.autograd.backward() (torch
             1.13 runs a CPU backward on the calling thread, under the mode)
  eval       autograd off (torch.no_grad(): train.py's estimate_loss)
  forward    anything else (a training forward)
The script is unmodified: the backward is seen by wrapping torch's two
entry points before the script imports anything.

Writes OUT_JSON as split_child.py does: {"events": [[kind, phase, flops,
anchor, calls], ...], "total": N} with kind "gemm" (no markers here);
anchor is 1 for a product on the first product's weight operand (the first
Linear's weight: in a training forward, the start of one micro-batch, which
is what an automatic iteration is) and "optim_steps": the optimizer steps
taken (torch.optim.Optimizer.step calls), with "micro_batches": the
training forwards (anchor products) before each."""
import json
import os
import runpy
import sys

import torch
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from split_child import product  # noqa: E402


class State:
    in_backward = 0
    events = []
    total = 0
    anchor = None
    forwards = 0       # training forwards since the last optimizer step
    micro = []         # training forwards per optimizer step


def phase():
    if State.in_backward:
        return "bwd"
    return "fwd" if torch.is_grad_enabled() else "eval"


class Counter(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        got = product(func, args)
        if got is not None:
            flops, ptrs, calls = got
            if State.anchor is None and ptrs:
                State.anchor = ptrs[0]
            anchor = int(State.anchor in ptrs)
            ph = phase()
            if anchor and ph == "fwd":
                State.forwards += 1
            State.events.append(["gemm", ph, flops, anchor, calls])
            State.total += flops
        return func(*args, **(kwargs or {}))


def in_backward(fn):
    def run(*a, **k):
        State.in_backward += 1
        try:
            return fn(*a, **k)
        finally:
            State.in_backward -= 1
    return run


def counted_step(fn):
    def step(self, *a, **k):
        State.micro.append(State.forwards)
        State.forwards = 0
        return fn(self, *a, **k)
    return step


def main():
    out, script = sys.argv[1], sys.argv[2]
    torch.Tensor.backward = in_backward(torch.Tensor.backward)
    torch.autograd.backward = in_backward(torch.autograd.backward)
    for cls in (torch.optim.AdamW, torch.optim.Adam, torch.optim.SGD):
        cls.step = counted_step(cls.step)
    sys.argv = [script] + sys.argv[3:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))  # as `python3 SCRIPT` would
    with Counter():
        runpy.run_path(script, run_name="__main__")
    with open(out, "w") as f:
        json.dump({"events": State.events, "total": State.total, "micro_batches": State.micro}, f)


if __name__ == "__main__":
    main()
