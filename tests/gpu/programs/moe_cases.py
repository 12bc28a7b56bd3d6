# SPDX-License-Identifier: Apache-2.0
"""moe_cases.py - for check 12: a torchtitan-style MoE layer trained a few
steps in bf16. A router Linear (D -> E), E SwiGLU experts (w1, w3: D -> F,
w2: F -> D) run with torch._grouped_mm over the rows routed to them (offs
made on the host and copied to the device, as torchtitan's are), and one
shared SwiGLU expert (width FS) over every token. The routing is decided on
the host (token i goes to experts (3i) % E and (3i + 1 + i % 3) % E, top-2),
so the group sizes are known and uneven; the router's scores weight the
outputs (the router gets gradients). --meta gets the shapes, the group
sizes and whether torch._grouped_mm ran (the check works the FLOPs out)."""
import argparse
import sys

import torch

import fcmark

T, D, F, FS, E, TOPK, STEPS = 2048, 1024, 512, 1024, 8, 2, 6


def routing():
    first = [(3 * i) % E for i in range(T)]
    second = [(3 * i + 1 + i % 3) % E for i in range(T)]
    second = [s if s != f else (s + 1) % E for f, s in zip(first, second)]
    return first, second


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--meta", required=True)
    a = p.parse_args()
    dev, bf = "cuda", torch.bfloat16
    torch.manual_seed(0)
    first, second = routing()
    experts = torch.tensor(first + second)  # host: (T*TOPK,)
    rows = torch.cat([torch.arange(T), torch.arange(T)])
    order = torch.argsort(experts, stable=True)
    sizes = torch.bincount(experts, minlength=E)
    offs = torch.cumsum(sizes, 0).to(torch.int32).to(dev)
    rows_sorted = rows[order].to(dev)
    slot = order.to(dev)  # which (token, choice) each sorted row is
    x = torch.randn(T, D, device=dev, dtype=bf, requires_grad=True)
    gate = torch.nn.Linear(D, E, bias=False, device=dev, dtype=bf)
    w1 = torch.nn.Parameter(torch.randn(E, D, F, device=dev, dtype=bf) * 0.02)
    w3 = torch.nn.Parameter(torch.randn(E, D, F, device=dev, dtype=bf) * 0.02)
    w2 = torch.nn.Parameter(torch.randn(E, F, D, device=dev, dtype=bf) * 0.02)
    s1 = torch.nn.Linear(D, FS, bias=False, device=dev, dtype=bf)
    s3 = torch.nn.Linear(D, FS, bias=False, device=dev, dtype=bf)
    s2 = torch.nn.Linear(FS, D, bias=False, device=dev, dtype=bf)
    error, grouped = None, False
    try:
        for _ in range(STEPS):
            scores = torch.softmax(gate(x).float(), dim=-1)  # (T, E)
            pick = torch.cat([torch.tensor(first), torch.tensor(second)]).to(dev)
            weight = scores[torch.cat([torch.arange(T), torch.arange(T)]).to(dev), pick][slot]
            xs = x[rows_sorted]
            h = torch.nn.functional.silu(torch._grouped_mm(xs, w1, offs=offs)) * torch._grouped_mm(
                xs, w3, offs=offs
            )
            ys = torch._grouped_mm(h, w2, offs=offs) * weight.to(bf)[:, None]
            grouped = True
            routed = torch.zeros(T, D, device=dev, dtype=bf).index_add(0, rows_sorted, ys)
            shared = s2(torch.nn.functional.silu(s1(x)) * s3(x))
            (routed + shared).float().square().mean().backward()
            torch.cuda.synchronize()
            fcmark.step()
    except Exception as e:
        error = "%s: %s" % (type(e).__name__, str(e)[:200])
    fcmark.write_meta(
        a.meta,
        {"T": T, "D": D, "F": F, "FS": FS, "E": E, "topk": TOPK, "steps": STEPS,
         "sizes": [int(s) for s in sizes], "grouped_mm": grouped, "error": error,
         "torch": torch.__version__, "device_name": torch.cuda.get_device_name(0)},
    )
    print("moe_cases: %d steps%s" % (STEPS, ", " + error if error else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
