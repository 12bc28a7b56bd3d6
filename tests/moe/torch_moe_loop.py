# SPDX-License-Identifier: Apache-2.0
"""torch_moe_loop.py - an MoE layer whose experts run one by one (the eager
loop of many Hugging Face MoE blocks), trained with AdamW in bf16 on the null
GPU as an H100 (tests/moe/torch_moe_loop.sh). A router Linear (D -> E), E
SwiGLU experts (nn.Linear w1, w3: D -> F, w2: F -> D), each run with
F.linear over the rows routed to it, and one shared SwiGLU expert (width FS)
over every token. The routing is decided on the host (tests/gpu/programs/
moe_cases.py's routing(): token i to experts (3i) % E and (3i + 1 + i % 3) % E,
top-2), so the rows per expert are known and uneven (E = 6: 341, 86, 85, 341,
85, 86); the null GPU's zeros never decide it. The router's scores weight the
experts' outputs (the router gets gradients).

The model: L = 2 transformer layers around it (B = 2 sequences of S = 256,
a fused QKV Linear, A = 4 heads of 64, attention as eager matmuls, an output
Linear, then the MoE layer over the B*S = T tokens), an embedding and a
logits Linear (V = 1000), so that flopcount's inferred model has layers to
read the experts off.

  torch_moe_loop.py train layer|model META   STEPS steps (the count under
                        flopcount), then the shapes and rows per expert
  torch_moe_loop.py fcm META   one step of each under torch.utils.
                        flop_counter.FlopCounterMode (no flopcount): totals"""
import json
import os
import sys

import torch
import torch.nn.functional as Fn

T, D, F, FS, E, TOPK, STEPS = 512, 256, 128, 384, 6, 2, 4
B, S, A, V, L = 2, 256, 4, 1000, 2


def routing():
    first = [(3 * i) % E for i in range(T)]
    second = [(3 * i + 1 + i % 3) % E for i in range(T)]
    second = [s if s != f else (s + 1) % E for f, s in zip(first, second)]
    return first, second


class Expert(torch.nn.Module):
    def __init__(self, width, dev, dt):
        super().__init__()
        self.w1 = torch.nn.Linear(D, width, bias=False, device=dev, dtype=dt)
        self.w3 = torch.nn.Linear(D, width, bias=False, device=dev, dtype=dt)
        self.w2 = torch.nn.Linear(width, D, bias=False, device=dev, dtype=dt)

    def forward(self, x):
        return self.w2(Fn.silu(self.w1(x)) * self.w3(x))


class MoE(torch.nn.Module):
    def __init__(self, dev, dt):
        super().__init__()
        self.gate = torch.nn.Linear(D, E, bias=False, device=dev, dtype=dt)
        self.experts = torch.nn.ModuleList(Expert(F, dev, dt) for _ in range(E))
        self.shared = Expert(FS, dev, dt)
        first, second = routing()
        # host-decided: per expert, the tokens routed to it (host lists,
        # copied to the device: real data even on the null GPU)
        self.rows = []
        for e in range(E):
            r = sorted([i for i in range(T) if first[i] == e] + [i for i in range(T) if second[i] == e])
            self.rows.append(r)
        self.idx = [torch.tensor(r, device=dev) for r in self.rows]

    def forward(self, x):
        scores = torch.softmax(self.gate(x).float(), dim=-1)  # (T, E)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            idx = self.idx[e]
            y = expert(x[idx]) * scores[idx, e].to(x.dtype)[:, None]
            out = out.index_add(0, idx, y)
        return out + self.shared(x)


class Layer(torch.nn.Module):
    def __init__(self, dev, dt):
        super().__init__()
        self.qkv = torch.nn.Linear(D, 3 * D, bias=False, device=dev, dtype=dt)
        self.o = torch.nn.Linear(D, D, bias=False, device=dev, dtype=dt)
        self.moe = MoE(dev, dt)

    def forward(self, x):
        q, k, v = self.qkv(x).view(B, S, 3, A, D // A).permute(2, 0, 3, 1, 4)
        p = torch.softmax((q @ k.transpose(-1, -2)).float(), -1).to(x.dtype)
        x = x + self.o((p @ v).transpose(1, 2).reshape(B, S, D))
        return x + self.moe(x.reshape(T, D)).view(B, S, D)


class Model(torch.nn.Module):
    def __init__(self, dev, dt):
        super().__init__()
        self.emb = torch.nn.Embedding(V, D, device=dev, dtype=dt)
        self.layers = torch.nn.ModuleList(Layer(dev, dt) for _ in range(L))
        self.head = torch.nn.Linear(D, V, bias=False, device=dev, dtype=dt)
        self.tok = torch.randint(0, V, (B, S), device=dev)

    def forward(self, _):
        x = self.emb(self.tok)
        for layer in self.layers:
            x = layer(x)
        return self.head(x).float()


def make(kind, dev, dt):
    model = MoE(dev, dt) if kind == "layer" else Model(dev, dt)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(T, D, device=dev, dtype=dt, requires_grad=True)
    return model, opt, x


def step(model, opt, x):
    opt.zero_grad(set_to_none=True)
    model(x).float().square().mean().backward()
    opt.step()


def main():
    mode, kind, meta = sys.argv[1], sys.argv[2] if sys.argv[1] == "train" else None, sys.argv[-1]
    dev, bf = "cuda", torch.bfloat16
    torch.manual_seed(0)
    first, second = routing()
    out = {"T": T, "D": D, "F": F, "FS": FS, "E": E, "topk": TOPK, "steps": STEPS,
           "B": B, "S": S, "A": A, "V": V, "L": L,
           "rows": [first.count(e) + second.count(e) for e in range(E)], "torch": torch.__version__}
    if mode == "fcm":
        from torch.utils.flop_counter import FlopCounterMode

        for kind in ("layer", "model"):
            model, opt, x = make(kind, dev, bf)
            with FlopCounterMode(display=False) as fcm:
                step(model, opt, x)
            torch.cuda.synchronize()
            out["fcm_" + kind] = int(fcm.get_total_flops())
    else:
        model, opt, x = make(kind, dev, bf)
        for _ in range(STEPS):
            step(model, opt, x)
        torch.cuda.synchronize()
    with open(meta, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
    # PyTorch on the null GPU aborts now and then at interpreter exit
    # ("terminate called without an active exception", no Python frame), with
    # or without libflopcount.so (3 of 16 bare runs under load). The work is
    # done and checked: end here with os._exit, as multiprocessing's children
    # do; the shim writes its report at _exit (shim/exit_direct.c).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
