# SPDX-License-Identifier: Apache-2.0
"""fixture_kinds.py CONFIG_JSON - trains a small model of the 2025-26 layer
kinds on random tokens with Debian's CPU torch, every matrix product a
Linear, mm, bmm or matmul (so every one goes through sgemm_ and is
counted), for test_infer_kinds.py to read back from its GEMMs.

Layers (key "layers": a list of [mixer, mlp] pairs, as flopcount's
--layer-pattern and --mlp-pattern letters):
  mixer  A  attention: GQA, or multi-latent attention when "mla" is given
            (q_lora / kv_lora down-projections, per-head up-projections of
            the latent; the training, non-absorbed, form)
         C  chunked attention (keys within the query's chunk of "chunk")
         G  gated delta-net (Qwen3-Next): the chunked delta rule written
            as in transformers' torch_chunk_gated_delta_rule, its products
            as matmuls, the triangular solve elementwise
         M  Mamba-2: the SSD scan in chunks (ssd_minimal's four products as
            bmm, the state passing elementwise)
         -  none
  mlp    D  gated MLP of "ffn"; E  mixture of experts ("moe"); -  none
"mtp": multi-token prediction depths after the main layers (DeepSeek-V3:
[norm(embedding of the next token); norm(h)] -> 2h -> h, one block of
"mtp_block" kinds, the shared head). Convolutions, norms, gates, decays
and the rotary parts are elementwise: no GEMM.
"""
import json
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

C = dict(hidden=48, heads=4, kv_heads=2, head_dim=12, ffn=80, vocab=72, seq=24, batch=2, steps=5,
         layers=[["A", "D"], ["A", "D"]], mla=None, moe=None, mtp=0, mtp_block=["A", "E"],
         chunk=8, gdn=None, mamba=None)
C.update(json.loads(sys.argv[1]))
H, A = C["hidden"], C["heads"]


class MLP(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.gate, self.up = nn.Linear(H, f, bias=False), nn.Linear(H, f, bias=False)
        self.down = nn.Linear(f, H, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class MoE(nn.Module):
    """router, the experts on their routed tokens, then the shared experts"""

    def __init__(self, m):
        super().__init__()
        self.k = m["topk"]
        self.router = nn.Linear(H, m["experts"], bias=False)
        self.experts = nn.ModuleList(MLP(m["ffn"]) for _ in range(m["experts"]))
        self.shared = nn.ModuleList(MLP(m["shared_ffn"]) for _ in range(m.get("shared", 0)))

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


def causal_attention(q, k, v):
    """(n, s, dqk), (n, s, dqk), (n, s, dv): QK^T and AV as bmm"""
    s = q.shape[1]
    mask = torch.ones(s, s, dtype=torch.bool).triu(1)
    p = (torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])).masked_fill(mask, float("-inf"))
    return torch.bmm(p.softmax(-1), v)


class Attention(nn.Module):
    """GQA with separate Q, K, V; chunked: each chunk of C["chunk"] on its own"""

    def __init__(self, chunked):
        super().__init__()
        self.g, self.d, self.chunked = C["kv_heads"], C["head_dim"], chunked
        self.q = nn.Linear(H, A * self.d, bias=False)
        self.k = nn.Linear(H, self.g * self.d, bias=False)
        self.v = nn.Linear(H, self.g * self.d, bias=False)
        self.o = nn.Linear(A * self.d, H, bias=False)

    def heads(self, t, n):
        b, s, _ = t.shape
        t = t.reshape(b, s, n, self.d).transpose(1, 2).repeat_interleave(A // n, dim=1)
        return t.reshape(b * A, s, self.d).contiguous()

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.heads(self.q(x), A), self.heads(self.k(x), self.g), self.heads(self.v(x), self.g)
        if self.chunked:
            c = C["chunk"]
            y = torch.cat([causal_attention(q[:, i:i + c].contiguous(), k[:, i:i + c].contiguous(),
                                            v[:, i:i + c].contiguous()) for i in range(0, s, c)], 1)
        else:
            y = causal_attention(q, k, v)
        return self.o(y.reshape(b, A, s, self.d).transpose(1, 2).reshape(b, s, A * self.d))


class MLA(nn.Module):
    """q_a -> q_b (or q direct), kv_a -> latent + the shared rope key, kv_b
    -> K_nope and V of every head, the core with d_qk = nope + rope, o"""

    def __init__(self, m):
        super().__init__()
        self.m = m
        dqk = m["nope"] + m["rope"]
        if m["q_lora"]:
            self.q_a = nn.Linear(H, m["q_lora"], bias=False)
            self.q_norm = nn.LayerNorm(m["q_lora"])
            self.q_b = nn.Linear(m["q_lora"], A * dqk, bias=False)
        else:
            self.q = nn.Linear(H, A * dqk, bias=False)
        self.kv_a = nn.Linear(H, m["kv_lora"] + m["rope"], bias=False)
        self.kv_norm = nn.LayerNorm(m["kv_lora"])
        self.kv_b = nn.Linear(m["kv_lora"], A * (m["nope"] + m["v"]), bias=False)
        self.o = nn.Linear(A * m["v"], H, bias=False)

    def forward(self, x):
        m, (b, s, _) = self.m, x.shape
        dqk = m["nope"] + m["rope"]
        q = self.q_b(self.q_norm(self.q_a(x))) if m["q_lora"] else self.q(x)
        q = q.reshape(b, s, A, dqk).transpose(1, 2).reshape(b * A, s, dqk)
        c, k_pe = self.kv_a(x).split([m["kv_lora"], m["rope"]], dim=-1)
        kv = self.kv_b(self.kv_norm(c)).reshape(b, s, A, m["nope"] + m["v"])
        k_nope, v = kv.split([m["nope"], m["v"]], dim=-1)
        k = torch.cat([k_nope, k_pe[:, :, None, :].expand(b, s, A, m["rope"])], dim=-1)
        k = k.transpose(1, 2).reshape(b * A, s, dqk)
        v = v.transpose(1, 2).reshape(b * A, s, m["v"])
        y = causal_attention(q, k, v).reshape(b, A, s, m["v"]).transpose(1, 2)
        return self.o(y.reshape(b, s, A * m["v"]))


def causal_conv(x, w):
    """depthwise causal convolution over the sequence, elementwise (no GEMM)"""
    s, kern = x.shape[1], w.shape[1]
    xp = F.pad(x, (0, 0, kern - 1, 0))
    return sum(xp[:, i:i + s] * w[:, i] for i in range(kern))


class GatedDeltaNet(nn.Module):
    """Qwen3-Next's linear attention: in_proj_qkvz, in_proj_ba, the chunked
    gated delta rule per value head, out_proj"""

    def __init__(self, g):
        super().__init__()
        self.g = g
        kd, vd = g["k_heads"] * g["k_dim"], g["v_heads"] * g["v_dim"]
        self.kd, self.vd = kd, vd
        self.in_qkvz = nn.Linear(H, 2 * kd + 2 * vd, bias=False)
        self.in_ba = nn.Linear(H, 2 * g["v_heads"], bias=False)
        self.conv = nn.Parameter(torch.randn(2 * kd + vd, 4) * 0.3)
        self.a_log = nn.Parameter(torch.zeros(g["v_heads"]))
        # a learned initial state: every product against the state then has
        # its two gradients, as in a model trained from a carried-over state
        self.s0 = nn.Parameter(torch.zeros(g["v_heads"], g["k_dim"], g["v_dim"]))
        self.out = nn.Linear(vd, H, bias=False)

    def forward(self, x):
        g, (b, s, _) = self.g, x.shape
        hv, hk, dk, dv, c = g["v_heads"], g["k_heads"], g["k_dim"], g["v_dim"], C["chunk"]
        q, k, v, z = self.in_qkvz(x).split([self.kd, self.kd, self.vd, self.vd], dim=-1)
        beta, a = self.in_ba(x).split([hv, hv], dim=-1)
        qkv = F.silu(causal_conv(torch.cat([q, k, v], -1), self.conv))
        q, k, v = qkv.split([self.kd, self.kd, self.vd], dim=-1)

        def heads(t, n, d):  # (b, s, n*d) -> (b, hv, s, d), keys repeated to the value heads
            t = t.reshape(b, s, n, d).transpose(1, 2)
            return t.repeat_interleave(hv // n, dim=1) if n != hv else t

        q, k, v = F.normalize(heads(q, hk, dk), dim=-1), F.normalize(heads(k, hk, dk), dim=-1), heads(v, hv, dv)
        beta = beta.sigmoid().transpose(1, 2)
        gate = (-self.a_log.exp()[:, None] * F.softplus(a.transpose(1, 2)))  # (b, hv, s)
        n = s // c
        q, k, v = (t.reshape(b, hv, n, c, -1) for t in (q / math.sqrt(dk), k, v))
        kb, vb = k * beta.reshape(b, hv, n, c, 1), v * beta.reshape(b, hv, n, c, 1)
        gc = gate.reshape(b, hv, n, c).cumsum(-1)
        decay = (gc[..., :, None] - gc[..., None, :]).tril().exp().tril()
        strict = torch.ones(c, c, dtype=torch.bool).triu(0)
        attn = -(torch.matmul(kb, k.transpose(-1, -2)) * decay).masked_fill(strict, 0)
        for i in range(1, c):  # (I + A)^-1 by forward substitution, elementwise
            row = attn[..., i, :i].clone()
            attn[..., i, :i] = row + (row.unsqueeze(-1) * attn[..., :i, :i].clone()).sum(-2)
        attn = attn + torch.eye(c)
        u = torch.matmul(attn, vb)
        w = torch.matmul(attn, kb * gc.exp()[..., None])
        state = self.s0.expand(b, hv, dk, dv)
        mask = torch.ones(c, c, dtype=torch.bool).triu(1)
        outs = []
        for i in range(n):
            qi, ki = q[:, :, i], k[:, :, i]
            qk = (torch.matmul(qi, ki.transpose(-1, -2)) * decay[:, :, i]).masked_fill(mask, 0)
            v_new = u[:, :, i] - torch.matmul(w[:, :, i], state)
            inter = torch.matmul(qi * gc[:, :, i, :, None].exp(), state)
            outs.append(inter + torch.matmul(qk, v_new))
            last = gc[:, :, i, -1, None, None]
            state = state * last.exp() + torch.matmul(
                (ki * (gc[:, :, i, -1, None] - gc[:, :, i]).exp()[..., None]).transpose(-1, -2), v_new)
        # the final state is an output too (the next segment's initial state)
        o = torch.stack(outs, 2).reshape(b, hv, s, dv).transpose(1, 2) + 0 * state.sum()
        o = F.layer_norm(o, (dv,)) * F.silu(z.reshape(b, s, hv, dv))
        return self.out(o.reshape(b, s, hv * dv))


class Mamba2(nn.Module):
    """in_proj -> z, x, B, C, dt; the SSD scan in chunks; out_proj"""

    def __init__(self, m):
        super().__init__()
        self.m = m
        di, gn = m["heads"] * m["head_dim"], m["groups"] * m["state"]
        self.di, self.gn = di, gn
        self.in_proj = nn.Linear(H, 2 * di + 2 * gn + m["heads"], bias=False)
        self.conv = nn.Parameter(torch.randn(di + 2 * gn, 4) * 0.3)
        self.a_log = nn.Parameter(torch.zeros(m["heads"]))
        self.d = nn.Parameter(torch.ones(m["heads"]))
        self.out_proj = nn.Linear(di, H, bias=False)

    def forward(self, x):
        m, (b, s, _) = self.m, x.shape
        nh, p, ns, g, c = m["heads"], m["head_dim"], m["state"], m["groups"], C["chunk"]
        z, xbc, dt = self.in_proj(x).split([self.di, self.di + 2 * self.gn, nh], dim=-1)
        xbc = F.silu(causal_conv(xbc, self.conv))
        xs, bm, cm = xbc.split([self.di, self.gn, self.gn], dim=-1)
        dt = F.softplus(dt)                                   # (b, s, nh)
        a = -self.a_log.exp() * dt                            # (b, s, nh)
        n = s // c
        X = (xs * dt.repeat_interleave(p, -1)).reshape(b, n, c, nh, p)
        Bg, Cg = bm.reshape(b, n, c, g, ns), cm.reshape(b, n, c, g, ns)
        a = a.reshape(b, n, c, nh).permute(0, 3, 1, 2)        # (b, nh, n, c)
        acs = a.cumsum(-1)
        seg = (acs[..., :, None] - acs[..., None, :]).masked_fill(
            ~torch.ones(c, c, dtype=torch.bool).tril(), float("-inf")).exp()  # L: (b, nh, n, c, c)
        hpg = nh // g
        # 1. C B^T per group, then (C B^T o L) X per head
        cb = torch.bmm(Cg.permute(0, 1, 3, 2, 4).reshape(-1, c, ns),
                       Bg.permute(0, 1, 3, 4, 2).reshape(-1, ns, c)).reshape(b, n, g, c, c)
        cb = cb.repeat_interleave(hpg, 2) * seg.permute(0, 2, 1, 3, 4)          # (b, n, nh, c, c)
        Xh = X.permute(0, 1, 3, 2, 4).reshape(-1, c, p)                           # (b n nh, c, p)
        y_diag = torch.bmm(cb.reshape(-1, c, c), Xh).reshape(b, n, nh, c, p)
        # 2. each chunk's state: (B * decay)^T X per head
        decay = (acs[..., -1:] - acs).exp().permute(0, 2, 1, 3)                  # (b, n, nh, c)
        Bh = Bg.permute(0, 1, 3, 2, 4).repeat_interleave(hpg, 2) * decay[..., None]
        states = torch.bmm(Bh.reshape(-1, c, ns).transpose(1, 2), Xh).reshape(b, n, nh, ns, p)
        # 3. the states passed from chunk to chunk: elementwise
        total = acs[..., -1].permute(0, 2, 1).exp()                               # (b, n, nh)
        prev, run = [], torch.zeros(b, nh, ns, p)
        for i in range(n):
            prev.append(run)
            run = run * total[:, i, :, None, None] + states[:, i]
        prev = torch.stack(prev, 1)                                               # (b, n, nh, ns, p)
        # 4. each chunk's output from the state before it: (C * decay) S
        Ch = Cg.permute(0, 1, 3, 2, 4).repeat_interleave(hpg, 2) * \
            acs.exp().permute(0, 2, 1, 3)[..., None]
        y_off = torch.bmm(Ch.reshape(-1, c, ns), prev.reshape(-1, ns, p)).reshape(b, n, nh, c, p)
        y = (y_diag + y_off).permute(0, 1, 3, 2, 4).reshape(b, s, nh, p) + \
            xs.reshape(b, s, nh, p) * self.d[:, None]
        y = F.layer_norm(y.reshape(b, s, self.di) * F.silu(z), (self.di,))
        return self.out_proj(y)


def mixer(kind):
    if kind == "A":
        return MLA(C["mla"]) if C["mla"] else Attention(False)
    if kind == "C":
        return Attention(True)
    if kind == "G":
        return GatedDeltaNet(C["gdn"])
    if kind == "M":
        return Mamba2(C["mamba"])
    return None


def mlp(kind):
    return MLP(C["ffn"]) if kind == "D" else MoE(C["moe"]) if kind == "E" else None


class Block(nn.Module):
    def __init__(self, kinds):
        super().__init__()
        self.mix, self.mlp = mixer(kinds[0]), mlp(kinds[1])
        self.n1, self.n2 = nn.LayerNorm(H), nn.LayerNorm(H)

    def forward(self, x):
        if self.mix is not None:
            x = x + self.mix(self.n1(x))
        if self.mlp is not None:
            x = x + self.mlp(self.n2(x))
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(C["vocab"], H)
        self.blocks = nn.ModuleList(Block(k) for k in C["layers"])
        self.ln = nn.LayerNorm(H)
        self.head = nn.Linear(H, C["vocab"], bias=False)
        self.mtp = nn.ModuleList(nn.ModuleDict(dict(
            e_norm=nn.LayerNorm(H), h_norm=nn.LayerNorm(H), proj=nn.Linear(2 * H, H, bias=False),
            block=Block(C["mtp_block"]), norm=nn.LayerNorm(H))) for _ in range(C["mtp"]))

    def forward(self, idx):
        x = self.tok(idx)
        for blk in self.blocks:
            x = blk(x)
        logits = [self.head(self.ln(x))]
        for d, m in enumerate(self.mtp):  # depth d predicts token t + d + 2 from t + d + 1
            e = self.tok(idx.roll(-(d + 1), 1))
            x = m["block"](m["proj"](torch.cat([m["e_norm"](e), m["h_norm"](x)], -1)))
            logits.append(self.head(m["norm"](x)))
        return logits


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = Model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    V, S, B = C["vocab"], C["seq"], C["batch"]
    for _ in range(C["steps"]):
        idx = torch.randint(0, V, (B, S))
        loss = sum(F.cross_entropy(lg.reshape(-1, V), idx.roll(-(d + 1), 1).reshape(-1))
                   for d, lg in enumerate(model(idx)))
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
