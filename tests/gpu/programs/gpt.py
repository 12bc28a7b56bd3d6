# SPDX-License-Identifier: Apache-2.0
"""gpt.py - the small GPT of the GPU checks: 03 (training), 04b
(torch.compile), 07b (a step under --hw-flops), 08 (overhead).

Decoder blocks with fused QKV (h -> 3h), attention, output projection
(h -> h), MLP h -> 4h -> h, logits h -> V without bias; AdamW; optional
activation checkpointing of chosen blocks (torch.utils.checkpoint,
non-reentrant) and an evaluation forward under no_grad every N steps.
Attention is SDPA (flash or memory-efficient kernels only, never the math
fallback, so no attention GEMM reaches cuBLAS) or, for the CPU rehearsal
on torch builds without SDPA, two torch.bmm over B*a heads.
lib/expect.py enumerates its GEMMs from the same shapes.

Timing written to --meta: with CUDA, one torch.cuda.Event recorded at the
start of every step and one after the last, so step k's time is start(k) to
start(k+1), evaluation included (the span flopcount's automatic iterations
cover); with --sync-steps, host wall time per step with a synchronize at its
end (check 08)."""
import argparse
import contextlib
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint as _ckpt
from torch.utils.checkpoint import checkpoint

import fcmark


class Block(nn.Module):
    def __init__(self, hidden, heads, attention):
        super().__init__()
        self.heads, self.attention = heads, attention
        self.ln1 = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.ln2 = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, 4 * hidden)
        self.fc2 = nn.Linear(4 * hidden, hidden)

    def forward(self, x):
        B, s, h = x.shape
        a, d = self.heads, h // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        if self.attention == "sdpa":
            q, k, v = (t.view(B, s, a, d).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            y = y.transpose(1, 2).reshape(B, s, h)
        else:

            def heads(t):  # (B, s, h) -> (B*a, s, d)
                return t.reshape(B, s, a, d).transpose(1, 2).reshape(B * a, s, d)

            q, k, v = heads(q), heads(k), heads(v)
            scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d)
            mask = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
            probs = scores.masked_fill(mask, float("-inf")).softmax(dim=-1)
            y = torch.bmm(probs, v).reshape(B, a, s, d).transpose(1, 2).reshape(B, s, h)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.tok = nn.Embedding(a.vocab, a.hidden)
        self.pos = nn.Embedding(a.seq, a.hidden)
        self.blocks = nn.ModuleList(Block(a.hidden, a.heads, a.attention) for _ in range(a.layers))
        self.ln = nn.LayerNorm(a.hidden)
        self.head = nn.Linear(a.hidden, a.vocab, bias=False)
        self.ckpt = set(a.checkpoint)
        self.register_buffer("positions", torch.arange(a.seq), persistent=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(self.positions)
        for i, block in enumerate(self.blocks):
            if self.training and i in self.ckpt:
                # the whole block is recomputed, as the expectation counts:
                # since PyTorch 2.4 non-reentrant checkpointing stops the
                # recompute early by default, once every tensor the backward
                # needs is back, so the block's last GEMM (the MLP's second,
                # whose output no backward needs) would not run again
                with early_stop_off():
                    x = checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        return self.head(self.ln(x))


def early_stop_off():
    """Full recompute of a checkpointed block (older PyTorch has no early stop)."""
    f = getattr(_ckpt, "set_checkpoint_early_stop", None)
    return f(False) if f is not None else contextlib.nullcontext()


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--meta", required=True)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--vocab", type=int, default=8192)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--checkpoint", default="", help="comma-separated block indices")
    p.add_argument("--eval-every", type=int, default=0)
    p.add_argument("--device", default="cuda")
    p.add_argument("--dtype", default="bf16", choices=("bf16", "fp32"))
    p.add_argument("--attention", default="sdpa", choices=("sdpa", "manual"))
    p.add_argument("--compile", default="none", help="torch.compile mode, or none")
    p.add_argument(
        "--sync-steps", action="store_true", help="synchronize after each step; wall time per step"
    )
    p.add_argument("--markers", action="store_true", help="flopcount_step() after each optimizer step")
    p.add_argument("--accum", type=int, default=1, help="micro-batches (forward + backward) per optimizer step")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    a.checkpoint = [int(i) for i in a.checkpoint.split(",") if i != ""]
    return a


def sdpa_backends(cuda):
    """Flash or memory-efficient attention only (no math fallback through cuBLAS)."""
    if not cuda:
        return contextlib.nullcontext()
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        return contextlib.nullcontext()
    return sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION])


def main():
    a = parse_args()
    torch.manual_seed(a.seed)
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if not cuda:
        torch.set_num_threads(1)
    dtype = {"bf16": torch.bfloat16, "fp32": torch.float32}[a.dtype]
    model = GPT(a).to(device=dev, dtype=dtype)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    run_model = model if a.compile == "none" else torch.compile(model, mode=a.compile)
    gen = torch.Generator(device=dev).manual_seed(a.seed + 1)
    idx = torch.randint(a.vocab, (a.steps, a.accum, a.batch, a.seq), device=dev, generator=gen)
    tgt = torch.randint(a.vocab, (a.steps, a.accum, a.batch, a.seq), device=dev, generator=gen)
    eval_idx = torch.randint(a.vocab, (a.batch, a.seq), device=dev, generator=gen)
    events = [torch.cuda.Event(enable_timing=True) for _ in range(a.steps + 1)] if cuda else None
    wall, evals = [], 0
    t_start = time.perf_counter()
    with sdpa_backends(cuda):
        for step in range(a.steps):
            if a.compile != "none":
                torch.compiler.cudagraph_mark_step_begin()
            if events:
                events[step].record()
            t0 = time.perf_counter()
            for micro in range(a.accum):  # gradient accumulation: one optimizer step per a.accum
                logits = run_model(idx[step, micro])
                loss = F.cross_entropy(logits.float().reshape(-1, a.vocab), tgt[step, micro].reshape(-1))
                (loss / a.accum).backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            if a.markers:
                fcmark.step()
            if a.sync_steps:
                if cuda:
                    torch.cuda.synchronize()
                wall.append(time.perf_counter() - t0)
            if a.eval_every and (step + 1) % a.eval_every == 0:
                model.eval()
                with torch.no_grad():
                    run_model(eval_idx)
                model.train()
                evals += 1
        if events:
            events[a.steps].record()
            torch.cuda.synchronize()
    total = time.perf_counter() - t_start
    step_gpu = [events[i].elapsed_time(events[i + 1]) / 1000.0 for i in range(a.steps)] if events else None
    cfg = {
        k: getattr(a, k)
        for k in (
            "layers",
            "hidden",
            "heads",
            "vocab",
            "seq",
            "batch",
            "steps",
            "checkpoint",
            "eval_every",
            "attention",
            "dtype",
            "device",
            "compile",
            "accum",
        )
    }
    fcmark.write_meta(
        a.meta,
        {
            "config": cfg,
            "evals": evals,
            "loss": float(loss),
            "seconds": total,
            "event_step_seconds": step_gpu,
            "wall_step_seconds": wall or None,
            "torch": torch.__version__,
            "device_name": torch.cuda.get_device_name(0) if cuda else "cpu",
            "snapshot": fcmark.snapshot(),
        },
    )
    print("gpt: %d steps, loss %.4f, %.2f s" % (a.steps, float(loss), total), file=sys.stderr)


if __name__ == "__main__":
    main()
