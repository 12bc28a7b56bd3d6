# SPDX-License-Identifier: Apache-2.0
"""fixture_train.py CONFIG_JSON - trains a small model of the shape CONFIG_JSON
describes on random tokens with Debian's CPU torch (Linear, mm and bmm go
through sgemm_), for test_infer_torch.py to read back from its GEMMs.

Keys (all optional): layers, hidden, heads, kv_heads, head_dim, ffn, vocab,
seq, batch, steps; qkv: fused | separate | q_kv; mlp: plain | gated |
gated_fused; attention: bmm (one bmm per product) | loop (one mm per head,
QK^T and AV alternating) | fused (no GEMM: elementwise products);
tied (bool); ckpt: list of checkpointed layers or "all"; selective (the
attention core alone checkpointed in every layer); accum (micro-batches per
optimizer step); markers (flopcount_step() after each optimizer step);
eval_every; moe: {experts, topk, ffn, shared, shared_ffn, every,
first_dense} (layer i has experts when i >= first_dense and i % every ==
0; router, then each expert on its routed tokens, then shared experts);
kind: transformer | mlp (Linear blocks only, no attention); logits: false
for a pipeline stage before the last (no output layer: the loss is the
mean square of the last layer's output).
"""
import ctypes
import json
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

C = dict(layers=2, hidden=64, heads=4, kv_heads=None, head_dim=None, ffn=None, vocab=96, seq=32,
         batch=2, steps=4, qkv="fused", mlp="plain", attention="bmm", tied=True, ckpt=[],
         selective=False, accum=1, markers=False, eval_every=0, moe=None, kind="transformer",
         logits=True)
C.update(json.loads(sys.argv[1]))
H, A = C["hidden"], C["heads"]
G = C["kv_heads"] or A
D = C["head_dim"] or H // A
FFN = C["ffn"] or 4 * H


class MLP(nn.Module):
    def __init__(self, f):
        super().__init__()
        kind = C["mlp"]
        if kind == "gated":
            self.gate, self.up = nn.Linear(H, f, bias=False), nn.Linear(H, f, bias=False)
        elif kind == "gated_fused":
            self.gate_up = nn.Linear(H, 2 * f, bias=False)
        else:
            self.up = nn.Linear(H, f)
        self.down = nn.Linear(f, H)

    def forward(self, x):
        if C["mlp"] == "gated":
            return self.down(F.silu(self.gate(x)) * self.up(x))
        if C["mlp"] == "gated_fused":
            g, u = self.gate_up(x).chunk(2, dim=-1)
            return self.down(F.silu(g) * u)
        return self.down(F.gelu(self.up(x)))


class MoE(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.k = m["topk"]
        self.router = nn.Linear(H, m["experts"], bias=False)
        self.experts = nn.ModuleList(MLP(m["ffn"]) for _ in range(m["experts"]))
        self.shared = nn.ModuleList(MLP(m.get("shared_ffn") or m["ffn"])
                                    for _ in range(m.get("shared", 0)))

    def forward(self, x):
        b, s, h = x.shape
        t = x.reshape(-1, h)
        w, idx = self.router(t).softmax(-1).topk(self.k, dim=-1)
        out = torch.zeros_like(t)
        for e, expert in enumerate(self.experts):
            rows, slot = (idx == e).nonzero(as_tuple=True)
            if rows.numel() > 0:
                out = out.index_add(0, rows, expert(t[rows]) * w[rows, slot, None])
        for mlp in self.shared:
            out = out + mlp(t)
        return out.reshape(b, s, h)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        if C["qkv"] == "fused":
            self.qkv = nn.Linear(H, (A + 2 * G) * D)
        elif C["qkv"] == "q_kv":
            self.q, self.kv = nn.Linear(H, A * D), nn.Linear(H, 2 * G * D)
        else:
            self.q, self.k, self.v = nn.Linear(H, A * D), nn.Linear(H, G * D), nn.Linear(H, G * D)
        self.o = nn.Linear(A * D, H)

    def project(self, x):
        if C["qkv"] == "fused":
            return self.qkv(x).split([A * D, G * D, G * D], dim=-1)
        if C["qkv"] == "q_kv":
            return (self.q(x),) + tuple(self.kv(x).split([G * D, G * D], dim=-1))
        return self.q(x), self.k(x), self.v(x)

    @staticmethod
    def core(q, k, v):
        b, s, _ = q.shape

        def heads(t, n):  # (b, s, n*D) -> (b*A, s, D), K/V heads repeated for GQA
            t = t.reshape(b, s, n, D).transpose(1, 2)
            return t.repeat_interleave(A // n, dim=1).reshape(b * A, s, D).contiguous()

        q, k, v = heads(q, A), heads(k, G), heads(v, G)
        mask = torch.ones(s, s, dtype=torch.bool).triu(1)
        if C["attention"] == "fused":
            scores = (q[:, :, None, :] * k[:, None, :, :]).sum(-1) / math.sqrt(D)
            p = scores.masked_fill(mask, float("-inf")).softmax(-1)
            y = (p[:, :, :, None] * v[:, None, :, :]).sum(2)
        elif C["attention"] == "loop":
            ys = []
            for i in range(b * A):
                p = (q[i] @ k[i].t() / math.sqrt(D)).masked_fill(mask, float("-inf")).softmax(-1)
                ys.append(p @ v[i])
            y = torch.stack(ys)
        else:
            scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(D)
            y = torch.bmm(scores.masked_fill(mask, float("-inf")).softmax(-1), v)
        return y.reshape(b, A, s, D).transpose(1, 2).reshape(b, s, A * D)

    def forward(self, x):
        q, k, v = self.project(x)
        if C["selective"] and self.training:
            y = checkpoint(self.core, q, k, v, use_reentrant=False)
        else:
            y = self.core(q, k, v)
        return self.o(y)


class Block(nn.Module):
    def __init__(self, i):
        super().__init__()
        m = C["moe"]
        self.ln1, self.ln2 = nn.LayerNorm(H), nn.LayerNorm(H)
        self.attn = Attention() if C["kind"] == "transformer" else None
        moe = m and i >= m.get("first_dense", 0) and i % m.get("every", 1) == 0
        self.mlp = MoE(m) if moe else MLP(FFN)

    def forward(self, x):
        if self.attn is not None:
            x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(C["vocab"], H), nn.Embedding(C["seq"], H)
        self.blocks = nn.ModuleList(Block(i) for i in range(C["layers"]))
        self.ln, self.head = nn.LayerNorm(H), nn.Linear(H, C["vocab"], bias=False)
        if C["tied"]:
            self.head.weight = self.tok.weight
        ck = C["ckpt"]
        self.ckpt = set(range(C["layers"])) if ck == "all" else set(ck)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        for i, blk in enumerate(self.blocks):
            x = checkpoint(blk, x, use_reentrant=False) if i in self.ckpt and self.training else blk(x)
        return self.head(self.ln(x)) if C["logits"] else x


def loss_of(out, idx):
    if not C["logits"]:
        return out.pow(2).mean()
    return F.cross_entropy(out.reshape(-1, C["vocab"]), idx.reshape(-1))


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    lib = ctypes.CDLL(None)
    model = Model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    V, S, B = C["vocab"], C["seq"], C["batch"]
    for step in range(C["steps"]):
        for _ in range(C["accum"]):
            idx = torch.randint(0, V, (B, S))
            loss_of(model(idx), idx).backward()
        opt.step()
        opt.zero_grad()
        if C["markers"]:
            lib.flopcount_step()
        if C["eval_every"] and step % C["eval_every"] == 0:
            model.eval()
            with torch.no_grad():
                model(torch.randint(0, V, (B, S)))
            model.train()


if __name__ == "__main__":
    main()
