# SPDX-License-Identifier: Apache-2.0
"""split_child.py - one generated training (or inference) program, run
under the shim by split_lib.py, counting its own GEMM FLOPs by phase.

usage: /usr/bin/python3 split_child.py SPEC_JSON MODE OUT_JSON
       (MODE: auto - no markers; marked - every marker the library exports;
        nvtx - flopcount_step and evaluation brackets, the phases as NVTX
        ranges named forward / backward / recompute, opened through the
        library FC_NVTX_FIXTURE names)

The independent counter is a TorchDispatchMode that sees every aten
mm/addmm/bmm/baddbmm (forward, backward and recompute alike: torch 1.13
runs a CPU backward on the calling thread, under the mode) and takes each
one's FLOPs from its shapes. The phase of a product is where the program
is, not what the call looks like:
  forward    a training forward (grad enabled, outside backward())
  backward   inside loss.backward()
  recompute  inside a checkpointed function that runs again while
             backward() is under way (reentrant or not, nested too)
  eval       inside an evaluation pass or an inference loop (no_grad)
Torch 1.13 on CPU sends mm/addmm through sgemm_ always and bmm/baddbmm as
one sgemm_ per batch entry only when m*n*k >= 400 (smaller ones run a
plain loop that no BLAS hook sees); the counter applies the same rule and
split_lib.py checks the total against the shim's to the FLOP.

Writes OUT_JSON: {"events": [[kind, phase, flops, anchor, calls], ...],
"total": N}, in program order: kind is "gemm" or the marker called
("step", "eval_begin", "backward_begin", ...); anchor is 1 for a product
on the first layer's weight (in a training forward that is the start of
one micro-batch: what an automatic iteration is); calls is the number of
sgemm_ calls the product makes."""
import ctypes
import json
import os
import random
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.checkpoint import checkpoint

aten = torch.ops.aten
GEMMS = {aten.mm.default: "mm", aten.addmm.default: "addmm",
         aten.bmm.default: "bmm", aten.baddbmm.default: "baddbmm"}


class State:
    phase = "fwd"          # fwd, bwd, rec, eval
    events = []
    total = 0
    anchor = None          # storage pointer of the first product's weight
    params = {}            # storage pointer -> parameter name


def storage_ptr(t):
    return t.storage().data_ptr()


def gemm_flops(kind, args):
    if kind == "mm":
        a, b = args[0], args[1]
        return 2 * a.shape[0] * a.shape[1] * b.shape[1], (b,), 1
    if kind == "addmm":
        a, b = args[1], args[2]
        return 2 * a.shape[0] * a.shape[1] * b.shape[1], (b,), 1
    a, b = (args[0], args[1]) if kind == "bmm" else (args[1], args[2])
    bs, m, k = a.shape
    n = b.shape[2]
    if m * n * k < 400:      # torch's small-bmm loop: no sgemm_
        return 0, (), 0
    return 2 * bs * m * n * k, (b,), bs


def product(func, args):
    """(FLOPs, the weight operand's storage pointers, sgemm_ calls) of an
    aten GEMM that reaches BLAS; None for any other op."""
    kind = GEMMS.get(func)
    if kind is None:
        return None
    flops, weights, calls = gemm_flops(kind, args)
    return (flops, [storage_ptr(w) for w in weights], calls) if flops else None


class Counter(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        got = product(func, args)
        if got is not None:
            flops, ptrs, calls = got
            if State.anchor is None:
                for p in ptrs:
                    if p in State.params:
                        State.anchor = p
            State.events.append(["gemm", State.phase, flops, int(State.anchor in ptrs), calls])
            State.total += flops
        if func is aten.detach.default and not isinstance(args[0], torch.Tensor):
            # torch 1.13: a non-reentrant checkpoint saving a wrapped Python
            # number (x * 0.5) hands the mode a float to detach
            return torch.tensor(args[0])
        return func(*args, **(kwargs or {}))


class Markers:
    """The library's markers, called only in MODE marked (nvtx) and only
    those it exports (so the same program runs against any version). In
    MODE nvtx the phases are NVTX ranges: a forward range from
    forward_begin to backward_begin, a backward range from there to the
    step or the next forward, a recompute range inside it."""

    def __init__(self, mode):
        lib = ctypes.CDLL(None)
        self.fns = {}
        self.nvtx = None
        self.open = None   # the phase range open in MODE nvtx
        names = ()
        if mode == "marked":
            names = ("step", "eval_begin", "eval_end", "forward_begin", "backward_begin",
                     "recompute_begin", "recompute_end")
        elif mode == "nvtx":
            names = ("step", "eval_begin", "eval_end")
            self.nvtx = ctypes.CDLL(os.environ["FC_NVTX_FIXTURE"])
            self.nvtx.fixture_nvtx_push.argtypes = [ctypes.c_char_p]
        for name in names:
            if hasattr(lib, "flopcount_" + name):
                self.fns[name] = getattr(lib, "flopcount_" + name)

    def _range(self, name):
        if name in ("forward_begin", "backward_begin"):
            if self.open is not None:
                self.nvtx.fixture_nvtx_pop()
            self.open = name.split("_")[0]
            self.nvtx.fixture_nvtx_push(self.open.encode())
        elif name == "recompute_begin":
            self.nvtx.fixture_nvtx_push(b"recompute")
        elif name == "recompute_end":
            self.nvtx.fixture_nvtx_pop()
        elif name == "step" and self.open is not None:
            self.nvtx.fixture_nvtx_pop()
            self.open = None

    def __call__(self, name):
        fn = self.fns.get(name)
        if self.nvtx is not None and name not in ("eval_begin", "eval_end"):
            self._range(name)
        if fn is not None:
            State.events.append([name, State.phase, 0, 0, 0])
            fn()


MARK = None


def recomputable(fn):
    """fn, noting recompute while it runs again inside backward()."""
    def run(*args):
        before = State.phase
        if before in ("bwd", "rec"):
            State.phase = "rec"
            MARK("recompute_begin")
        try:
            return fn(*args)
        finally:
            if before in ("bwd", "rec"):
                MARK("recompute_end")
            State.phase = before
    return run


def ckpt(fn, reentrant, *args):
    if not torch.is_grad_enabled():
        return fn(*args)
    if reentrant and not any(a.requires_grad for a in args):
        reentrant = False    # a reentrant checkpoint needs an input with grad
    return checkpoint(recomputable(fn), *args, use_reentrant=reentrant)


# ---- building blocks: (B, S, D) -> (B, S, D) ----

class MLP(nn.Module):
    def __init__(self, d, cfg):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, cfg["width"]), nn.Linear(cfg["width"], d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(x)))


class Fork(nn.Module):
    """One input feeding two Linear layers of different widths."""

    def __init__(self, d, cfg, d_out=None):
        super().__init__()
        w1, w2 = cfg["w1"], cfg["w2"]
        self.concat = cfg["concat"]
        self.a, self.b = nn.Linear(d, w1), nn.Linear(d, w2)
        d_out = d_out or d
        if self.concat:
            self.out = nn.Linear(w1 + w2, d_out)
        else:
            self.oa, self.ob = nn.Linear(w1, d_out), nn.Linear(w2, d_out)

    def forward(self, x):
        a, b = F.gelu(self.a(x)), torch.tanh(self.b(x))
        if self.concat:
            return self.out(torch.cat([a, b], dim=-1))
        return self.oa(a) + self.ob(b)


class Attn(nn.Module):
    """Separate q/k/v projections, heads*head_dim need not be the hidden size,
    fewer key/value heads than query heads (GQA) when kv_heads < heads."""

    def __init__(self, d, cfg):
        super().__init__()
        self.h, self.kv, self.hd = cfg["heads"], cfg["kv_heads"], cfg["head_dim"]
        self.causal, self.sel, self.reent = cfg["causal"], cfg["selective"], cfg["reentrant"]
        self.q = nn.Linear(d, self.h * self.hd)
        self.k = nn.Linear(d, self.kv * self.hd)
        self.v = nn.Linear(d, self.kv * self.hd)
        self.o = nn.Linear(self.h * self.hd, d)

    def core(self, q, k, v):
        s = q.shape[2]
        att = (q @ k.transpose(-2, -1)) * self.hd ** -0.5
        if self.causal:
            att = att.masked_fill(torch.ones(s, s, dtype=torch.bool).triu(1), float("-inf"))
        return att.softmax(-1) @ v

    def forward(self, x):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.h, self.hd).transpose(1, 2)
        k = self.k(x).view(b, s, self.kv, self.hd).transpose(1, 2)
        v = self.v(x).view(b, s, self.kv, self.hd).transpose(1, 2)
        if self.kv != self.h:
            k = k.repeat_interleave(self.h // self.kv, dim=1)
            v = v.repeat_interleave(self.h // self.kv, dim=1)
        y = ckpt(self.core, self.reent, q, k, v) if self.sel else self.core(q, k, v)
        return x + self.o(y.transpose(1, 2).reshape(b, s, self.h * self.hd))


class MHA(nn.Module):
    """nn.MultiheadAttention with kdim/vdim: keys and values come from a
    memory that is either its own input (needs no gradient) or two
    projections of x of different widths."""

    def __init__(self, d, cfg):
        super().__init__()
        self.kd, self.vd, self.src = cfg["kdim"], cfg["vdim"], cfg["memory"]
        self.att = nn.MultiheadAttention(d, cfg["heads"], kdim=self.kd, vdim=self.vd, batch_first=True)
        if self.src == "proj":
            self.pk, self.pv = nn.Linear(d, self.kd), nn.Linear(d, self.vd)
        else:
            self.register_buffer("mk", torch.randn(1, cfg["mem_len"], self.kd))
            self.register_buffer("mv", torch.randn(1, cfg["mem_len"], self.vd))

    def forward(self, x):
        if self.src == "proj":
            k, v = self.pk(x), self.pv(x)
        else:
            k, v = self.mk.expand(x.shape[0], -1, -1), self.mv.expand(x.shape[0], -1, -1)
        return x + self.att(x, k, v, need_weights=False)[0]


class Gram(nn.Module):
    """A product of a tensor with itself: (x x^T) x, per sequence."""

    def forward(self, x):
        g = (x @ x.transpose(-2, -1)) / x.shape[-1]
        return x + 0.1 * (g.softmax(-1) @ x)


BLOCKS = {"mlp": MLP, "fork": Fork, "attn": Attn, "mha": MHA}


class Body(nn.Module):
    """First layer on the raw input (a Linear, or a fork of two), then the
    blocks with their checkpointing, then the head."""

    def __init__(self, spec, d_in, d_head):
        super().__init__()
        d = spec["D"]
        first = spec["first"]
        self.first = Fork(d_in, first, d) if first["type"] == "fork" else nn.Linear(d_in, d)
        if spec["frozen_first"]:
            for p in self.first.parameters():
                p.requires_grad_(False)
        self.blocks = nn.ModuleList(Gram() if c["type"] == "gram" else BLOCKS[c["type"]](d, c)
                                    for c in spec["blocks"])
        self.ck = [c.get("ckpt", "none") for c in spec["blocks"]]
        self.reent = [c.get("reentrant", False) for c in spec["blocks"]]
        self.head = nn.Linear(d, d_head)

    def run_blocks(self, x, lo, hi):
        i = lo
        while i < hi:
            c, blk = self.ck[i], self.blocks[i]
            if c == "full":
                x = ckpt(blk, self.reent[i], x)
            elif c == "nested" and i + 1 < hi:
                x = ckpt(lambda y, j=i: self.run_nested(y, j), self.reent[i], x)
                i += 1
            else:
                x = blk(x)
            i += 1
        return x

    def run_nested(self, x, j):
        """Blocks j and j+1 in one checkpoint, block j+1 in its own inside."""
        x = self.blocks[j](x)
        return ckpt(self.blocks[j + 1], self.reent[j], x)

    def forward(self, x):
        return self.head(self.run_blocks(F.gelu(self.first(x)), 0, len(self.blocks)))


def loss_of(spec, out, target):
    if spec["loss"] == "contrastive":      # z z^T: every sequence against every other
        z = F.normalize(out.mean(1), dim=-1)
        return F.cross_entropy(z @ z.t() / 0.1, torch.arange(z.shape[0]))
    return F.mse_loss(out, target)


# ---- programs ----

def backward(loss):
    MARK("backward_begin")
    State.phase = "bwd"
    loss.backward()
    State.phase = "fwd"


def forward_mark():
    MARK("forward_begin")


def train(spec):
    B, S, din = spec["B"], spec["S"], spec["Din"]
    model = Body(spec, din, spec["Dout"])
    State.params = {storage_ptr(p): n for n, p in model.named_parameters()}
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    xbuf = torch.empty(B, S, din) if spec["static_input"] else None
    for step in range(spec["steps"]):
        for _ in range(spec["micro"]):
            x = torch.randn(B, S, din)
            if xbuf is not None:       # a preallocated batch: same address every step
                xbuf.copy_(x)
                x = xbuf
            forward_mark()
            loss = loss_of(spec, model(x), torch.randn(B, S, spec["Dout"]))
            backward(loss)
        opt.step()
        opt.zero_grad(set_to_none=spec["set_to_none"])
        MARK("step")
        if spec["eval_every"] and step % spec["eval_every"] == 0:
            evaluate(spec, model, din)
    return model


def evaluate(spec, model, din):
    MARK("eval_begin")
    State.phase = "eval"
    with torch.no_grad():
        model(torch.randn(spec["eval_B"], spec["S"], din))
    State.phase = "fwd"
    MARK("eval_end")


def gan(spec):
    B, S, din = spec["B"], spec["S"], spec["Din"]
    gen = Body(dict(spec, blocks=spec["gen_blocks"], frozen_first=False, first={"type": "linear"}),
               spec["latent"], din)
    disc = Body(spec, din, 1)
    State.params = {storage_ptr(p): n for n, p in list(gen.named_parameters()) + list(disc.named_parameters())}
    og = torch.optim.SGD(gen.parameters(), lr=1e-3)
    od = torch.optim.SGD([p for p in disc.parameters() if p.requires_grad], lr=1e-3)
    for step in range(spec["steps"]):
        forward_mark()
        fake = gen(torch.randn(B, S, spec["latent"]))
        real = torch.randn(B, S, din)
        if spec["gan_concat"]:
            d = disc(torch.cat([real, fake.detach()]))
            loss_d = F.softplus(-d[:B]).mean() + F.softplus(d[B:]).mean()
        else:
            loss_d = F.softplus(-disc(real)).mean() + F.softplus(disc(fake.detach())).mean()
        backward(loss_d)
        od.step()
        od.zero_grad()
        forward_mark()
        if spec["gan_regen"]:          # the generator runs again for its own step
            fake = gen(torch.randn(B, S, spec["latent"]))
        backward(F.softplus(-disc(fake)).mean())
        og.step()
        og.zero_grad()
        MARK("step")


def infer(spec):
    """No training at all: an inference loop, with a product of a tensor
    with itself (x x^T, or X X for a square X)."""
    State.phase = "eval"
    with torch.no_grad():
        if spec["infer"] == "square":
            n = spec["D"]
            X = torch.randn(n, n) / n
            for _ in range(spec["steps"]):
                Y = X @ X
                X = Y / Y.norm()
        else:
            model = Body(spec, spec["Din"], spec["Dout"])
            for _ in range(spec["steps"]):
                model(torch.randn(spec["B"], spec["S"], spec["Din"]))
    State.phase = "fwd"


def program(spec, mode, out):
    global MARK
    MARK = Markers(mode)
    torch.manual_seed(spec["seed"])
    random.seed(spec["seed"])
    torch.set_num_threads(1)
    with Counter():
        {"train": train, "gan": gan, "infer": infer}[spec["kind"]](spec)
    with open(out, "w") as f:
        json.dump({"events": State.events, "total": State.total}, f)


def serve():
    """--serve: torch imported once; each line on stdin ({"spec", "mode",
    "out"}) runs in a forked child, whose pid is written back once it has
    exited (the shim wrote its report at that exit: FLOPCOUNT_OUTPUT holds
    %p). For long runs on a busy machine; the child starts from the
    shim's fork state (empty), its own program, its own report."""
    torch.set_num_threads(1)
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                program(job["spec"], job["mode"], job["out"])
            except BaseException as e:  # noqa: BLE001 - any failure is the job's
                sys.stderr.write("split_child: %r\n" % e)
                code = 1
            sys.stdout.flush()
            sys.exit(code)  # a normal exit: the shim's destructor writes the report
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"pid": pid, "status": status}), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve()
    else:
        program(json.loads(sys.argv[1]), sys.argv[2], sys.argv[3])
