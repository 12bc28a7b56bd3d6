# SPDX-License-Identifier: Apache-2.0
"""e2e_torch.py - a real PyTorch CPU training run, for the end-to-end overhead
benchmark (bench/e2e_torch.sh) and the bitwise-identity test
(tests/robust/fault_torch_bitwise.sh). Run it with /usr/bin/python3 (Debian's torch,
whose Linear/mm/bmm reach sgemm_ of libblas.so.3, where the shim counts them).

Prints one "step_ms X" (wall) and one "step_cpu_ms X" (CPU time of every
thread of the process, user + system) line per timed step, then
"weights_sha256 HEX" over every parameter's bytes after the last step, then
a JSON line.

Models:
  gpt  a small GPT (4 layers, h=256, 8 heads, s=128, B=8, V=512): many GEMM
       calls per step (torch.bmm runs one sgemm_ per batch entry), the
       harder case for a per-call overhead. --small: 2 layers, h=128,
       4 heads, s=64, B=4, V=256 (for tests). --tiny: 2 layers, h=64,
       4 heads, s=32, B=4, V=128: ~220 GEMMs in a step of ~15 ms, where a
       per-call cost and the shim's thread show most.
  mlp  three Linear layers, 256 -> 512 -> 512 -> 128, batch 32, MSE loss:
       8 GEMMs per step whose FLOPs are worked out in the bitwise test.
"""
import argparse
import hashlib
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.qkv, self.proj = nn.Linear(h, 3 * h), nn.Linear(h, h)
        self.up, self.down = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)

    def forward(self, x):
        B, s, h = x.shape
        a = self.heads
        d = h // a
        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        split = lambda t: t.reshape(B, s, a, d).transpose(1, 2).reshape(B * a, s, d)
        q, k, v = split(q), split(k), split(v)
        att = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d)
        causal = torch.ones(s, s, dtype=torch.bool).triu(1)
        att = att.masked_fill(causal, float("-inf")).softmax(dim=-1)
        y = torch.bmm(att, v).reshape(B, a, s, d).transpose(1, 2).reshape(B, s, h)
        x = x + self.proj(y)
        return x + self.down(F.gelu(self.up(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, layers=4, h=256, heads=8, vocab=512, seq=128):
        super().__init__()
        self.tok = nn.Embedding(vocab, h)
        self.pos = nn.Parameter(torch.zeros(1, seq, h))
        self.blocks = nn.ModuleList(Block(h, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(h)
        self.head = nn.Linear(h, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos[:, : idx.shape[1]]
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def make(model, seed, small, tiny=False):
    torch.manual_seed(seed)
    if model == "gpt":
        if tiny:
            vocab, seq, batch = 128, 32, 4
            net = GPT(layers=2, h=64, heads=4, vocab=vocab, seq=seq)
        elif small:
            vocab, seq, batch = 256, 64, 4
            net = GPT(layers=2, h=128, heads=4, vocab=vocab, seq=seq)
        else:
            net, vocab, seq, batch = GPT(), 512, 128, 8
        data = torch.randint(0, vocab, (batch, seq + 1))

        def loss_fn():
            logits = net(data[:, :-1])
            return F.cross_entropy(logits.reshape(-1, vocab), data[:, 1:].reshape(-1))
    else:
        net = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                            nn.Linear(512, 128))
        x, y = torch.randn(32, 256), torch.randn(32, 128)

        def loss_fn():
            return F.mse_loss(net(x), y)
    return net, loss_fn


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", choices=("gpt", "mlp"), default="gpt")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--small", action="store_true", help="a smaller GPT, for tests")
    p.add_argument("--tiny", action="store_true", help="a tiny GPT: many short GEMMs per step")
    p.add_argument("--optim", choices=("sgd", "adamw"), default="sgd")
    args = p.parse_args()
    torch.set_num_threads(args.threads)  # fixed threads: stable timing, reproducible sums
    net, loss_fn = make(args.model, args.seed, args.small, args.tiny)
    if args.optim == "adamw":
        opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    else:
        opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    times = []
    for step in range(args.warmup + args.steps):
        t0, c0 = time.perf_counter(), time.process_time()
        opt.zero_grad(set_to_none=True)
        loss_fn().backward()
        opt.step()
        ms = (time.perf_counter() - t0) * 1e3
        cpu_ms = (time.process_time() - c0) * 1e3  # every thread of the process
        if step >= args.warmup:
            times.append(ms)
            print(f"step_ms {ms:.4f}", flush=True)
            print(f"step_cpu_ms {cpu_ms:.4f}", flush=True)
    h = hashlib.sha256()
    for t in net.state_dict().values():
        h.update(t.detach().contiguous().numpy().tobytes())
    print(f"weights_sha256 {h.hexdigest()}")
    times.sort()
    print(json.dumps({"model": args.model, "steps": args.steps,
                      "median_step_ms": times[len(times) // 2] if times else None}))


if __name__ == "__main__":
    main()
