# SPDX-License-Identifier: Apache-2.0
"""graphs.py - for check 04a: 10 bf16 GEMMs of distinct shapes, run eagerly
WARMUP times on a side stream (as torch.cuda.graphs asks before capture),
captured once into a torch.cuda.CUDAGraph, replayed REPLAYS times.
--meta gets the shapes and the shim's counters (flopcount_snapshot_get)
before capture, after capture and at the end, so the check can tell
"0 FLOPs at capture" from "counted at replay"."""
import argparse
import sys

import torch

import fcmark

WARMUP, REPLAYS = 3, 100
SHAPES = [(512 + 64 * i, 768 + 32 * i, 256 + 128 * i) for i in range(10)]  # (M, N, K)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--meta", required=True)
    a = p.parse_args()
    dev, dt = "cuda", torch.bfloat16
    ins = [
        (torch.randn(M, K, device=dev, dtype=dt), torch.randn(K, N, device=dev, dtype=dt))
        for M, N, K in SHAPES
    ]
    outs = [torch.empty(M, N, device=dev, dtype=dt) for M, N, K in SHAPES]

    def body():
        for (x, w), y in zip(ins, outs):
            torch.mm(x, w, out=y)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(WARMUP):
            body()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    before = fcmark.snapshot()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        body()
    torch.cuda.synchronize()
    captured = fcmark.snapshot()
    for _ in range(REPLAYS):
        g.replay()
    torch.cuda.synchronize()
    fcmark.write_meta(
        a.meta,
        {
            "shapes": SHAPES,
            "warmup": WARMUP,
            "replays": REPLAYS,
            "torch": torch.__version__,
            "snap_before_capture": before,
            "snap_after_capture": captured,
            "snap_end": fcmark.snapshot(),
        },
    )
    print("graphs: %d GEMMs x (%d eager + %d replays)" % (len(SHAPES), WARMUP, REPLAYS), file=sys.stderr)


if __name__ == "__main__":
    main()
