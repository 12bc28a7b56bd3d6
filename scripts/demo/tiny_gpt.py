# SPDX-License-Identifier: Apache-2.0
"""tiny_gpt.py - a small GPT trained on random tokens, for the demo and the tests.

Its GEMMs follow the shapes of the Megatron/Korthikanti formula exactly:
fused QKV (h -> 3h), attention scores and attention*V as batched matmuls over
B*a heads, output projection (h -> h), MLP h -> 4h -> h, logits h -> V. Run
under `flopcount run` its counted FLOPs per step equal
72*B*s*l*h^2*(1 + s/(6h) + V/(12*h*l)), and with every block checkpointed the
96-form of full recomputation.

    /usr/bin/python3 scripts/demo/tiny_gpt.py --layers 2 --hidden 64 --heads 4 \
        --vocab 96 --seq 32 --batch 2 --steps 3
"""
import argparse
import ctypes
import hashlib
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.ln2 = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, 4 * hidden)
        self.fc2 = nn.Linear(4 * hidden, hidden)

    def forward(self, x):
        B, s, h = x.shape
        a, d = self.heads, h // self.heads

        def heads(t):  # (B, s, h) -> (B*a, s, d), contiguous
            return t.reshape(B, s, a, d).transpose(1, 2).reshape(B * a, s, d)

        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        q, k, v = heads(q), heads(k), heads(v)
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d)
        mask = torch.ones(s, s, dtype=torch.bool).triu(1)
        probs = scores.masked_fill(mask, float("-inf")).softmax(dim=-1)
        y = torch.bmm(probs, v).reshape(B, a, s, d).transpose(1, 2).reshape(B, s, h)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class TinyGPT(nn.Module):
    def __init__(self, layers, hidden, heads, vocab, seq, checkpointed=()):
        super().__init__()
        self.tok = nn.Embedding(vocab, hidden)
        self.pos = nn.Embedding(seq, hidden)
        self.blocks = nn.ModuleList(Block(hidden, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        self.checkpointed = set(checkpointed)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        for i, block in enumerate(self.blocks):
            if i in self.checkpointed and self.training:
                x = checkpoint(block, x)
            else:
                x = block(x)
        return self.head(self.ln(x))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--vocab", type=int, default=256)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--checkpoint", default="", help="comma-separated block indices, or 'all'")
    p.add_argument("--eval-every", type=int, default=0, help="an eval forward after every N steps")
    p.add_argument("--accum", type=int, default=1, help="micro-batches per optimizer step")
    p.add_argument("--markers", action="store_true", help="call flopcount_step() after each step")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--hash", action="store_true", help="print the SHA-256 of the trained weights")
    return p.parse_args(argv)


def step_marker():
    """flopcount_step() when the shim is preloaded, else a no-op."""
    try:
        return ctypes.CDLL(None).flopcount_step
    except AttributeError:
        return lambda: None


def weights_hash(model):
    h = hashlib.sha256()
    for name, t in sorted(model.state_dict().items()):
        h.update(name.encode())
        h.update(t.detach().contiguous().numpy().tobytes())
    return h.hexdigest()


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    if args.checkpoint == "all":
        ckpt = range(args.layers)
    else:
        ckpt = [int(i) for i in args.checkpoint.split(",") if i != ""]
    model = TinyGPT(args.layers, args.hidden, args.heads, args.vocab, args.seq, ckpt)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    marker = step_marker() if args.markers else None
    gen = torch.Generator().manual_seed(args.seed + 1)
    for step in range(args.steps):
        for _ in range(args.accum):
            idx = torch.randint(args.vocab, (args.batch, args.seq), generator=gen)
            target = torch.randint(args.vocab, (args.batch, args.seq), generator=gen)
            logits = model(idx)
            loss = F.cross_entropy(logits.reshape(-1, args.vocab), target.reshape(-1))
            loss.backward()
        opt.step()
        opt.zero_grad()
        if marker is not None:
            marker()
        if args.eval_every and (step + 1) % args.eval_every == 0:
            model.eval()
            with torch.no_grad():
                model(torch.randint(args.vocab, (args.batch, args.seq), generator=gen))
            model.train()
        print(f"step {step} loss {loss.item():.4f}", file=sys.stderr)
    if args.hash:
        print(weights_hash(model))


if __name__ == "__main__":
    main()
