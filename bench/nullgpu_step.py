# SPDX-License-Identifier: Apache-2.0
"""nullgpu_step.py - one process of bench/nullgpu_overhead.py: a small GPT
(2 layers, hidden 256, 4 heads, seq 128, batch 4, bf16, AdamW) trained on
the null GPU, where a step is pure host time; prints one JSON line with
each measured step's wall time and this process's CPU time (every thread:
the shim's drainer included) per step.
  python nullgpu_step.py --attn flash|cudnn [--compile] [--profiler]
    [--warmup 10] [--steps 40] [--marker build/bench/libfc_step_marker.so]
--marker: call fc_bench_step_marker(i) of that library (bench/step_marker.c)
before each measured step and fc_bench_step_stop(steps) after the last: under
callgrind, one profile per measured step (bench/nullgpu_ir.py).
--profiler: the measured steps run inside torch.profiler.profile(
activities=[CPU], with_flops=True) (CUDA activities need CUPTI, which the
null GPU cannot run)."""
import argparse
import ctypes
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


class Block(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.qkv, self.out = nn.Linear(h, 3 * h), nn.Linear(h, h)
        self.fc1, self.fc2 = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, h // self.heads).unbind(2)
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                           is_causal=True)
        x = x + self.out(y.transpose(1, 2).reshape(b, s, h))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, layers=2, h=256, heads=4, vocab=1024, seq=128):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, h), nn.Embedding(seq, h)
        self.blocks = nn.ModuleList(Block(h, heads) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(h), nn.Linear(h, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--attn", choices=("flash", "cudnn"), default="flash")
    p.add_argument("--compile", action="store_true")
    p.add_argument("--profiler", action="store_true")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--marker", default=None)
    a = p.parse_args()
    mark = stop = lambda i: None  # noqa: E731
    if a.marker:
        lib = ctypes.CDLL(a.marker)
        mark, stop = lib.fc_bench_step_marker, lib.fc_bench_step_stop
        for f in (mark, stop):
            f.argtypes, f.restype = [ctypes.c_int64], None
    torch.manual_seed(0)
    model = GPT().cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    fwd = torch.compile(model) if a.compile else model
    idx = torch.zeros(4, 128, dtype=torch.long, device="cuda")
    backend = SDPBackend.FLASH_ATTENTION if a.attn == "flash" else SDPBackend.CUDNN_ATTENTION

    def step():
        with sdpa_kernel(backend):
            loss = F.cross_entropy(fwd(idx).float().view(-1, 1024), idx.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()

    for _ in range(a.warmup):
        step()
    walls, cpus = [], []
    prof = None
    if a.profiler:
        prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], with_flops=True)
        prof.__enter__()
    for i in range(a.steps):
        mark(i)
        t0, c0 = time.perf_counter(), time.process_time()
        step()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    stop(a.steps)
    if prof is not None:
        prof.__exit__(None, None, None)
    print(json.dumps({"wall": walls, "cpu": cpus}), flush=True)


if __name__ == "__main__":
    main()
