#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""split_classes.py - the five shapes of program whose phase split was
wrong (issue 13), each as fixed real-PyTorch programs run again and again
under the shim and checked against the program's own per-phase counter
(split_child.py; verdicts: split_lib.py).

usage: /usr/bin/python3 split_classes.py SHIM_SO WORKDIR CLASS [--runs N]
  CLASS  shared   one input feeding Linear layers of different widths:
                  the smallest form (input -> Linear(20,48), Linear(20,32)
                  -> head), separate q/k/v with heads*head_dim != hidden
                  and GQA, nn.MultiheadAttention with kdim/vdim
         frozen   inputs that need no gradient: a preallocated batch
                  copied into every step (same address), a frozen first
                  layer, a key/value memory buffer
         gan      two optimizers a step (generator, discriminator), with
                  and without the generator running again
         self     a tensor times itself: a contrastive loss z z^T in
                  training, an inference loop X X, a model with x x^T
                  under no_grad
         threads  64 threads issuing GEMMs at once (split_threads.py)
Every program runs N times (a fresh process each: the allocator places
tensors differently every time) without markers (exact, or flagged
ambiguous where it is not), with every marker the library exports
(exact), and, when FC_NVTX_FIXTURE names tests/split's NVTX library, with
the phases as NVTX ranges (exact). --programs picks some programs of the
class by name (comma-separated); --modes some modes. Exit 1 when a run
fails."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import split_lib as L  # noqa: E402


def base(**kw):
    s = {"seed": 7, "kind": "train", "B": 4, "S": 8, "Din": 20, "D": 32, "Dout": 8,
         "first": {"type": "linear"}, "frozen_first": False, "static_input": False, "blocks": [],
         "loss": "mse", "steps": 5, "micro": 1, "eval_every": 0, "eval_B": 2, "set_to_none": True}
    s.update(kw)
    return s


def mlp(width=64, ck="none"):
    return {"type": "mlp", "width": width, "ckpt": ck, "reentrant": False}


PROGRAMS = {
    "shared": {
        # input -> Linear(20,48) and Linear(20,32) -> Linear(80,32) -> head
        "smallest": base(first={"type": "fork", "w1": 48, "w2": 32, "concat": True}),
        "smallest_sum": base(first={"type": "fork", "w1": 48, "w2": 32, "concat": False}, eval_every=2),
        # Gemma-like: 4 heads of 16 on a hidden size of 32; GQA 4:1
        "qkv_headdim": base(blocks=[{"type": "attn", "heads": 4, "kv_heads": 4, "head_dim": 16,
                                     "causal": True, "selective": False, "ckpt": "none",
                                     "reentrant": False}, mlp()]),
        "gqa": base(S=12, blocks=[{"type": "attn", "heads": 4, "kv_heads": 1, "head_dim": 12,
                                   "causal": False, "selective": False, "ckpt": "none",
                                   "reentrant": False}]),
        "mha_kdim_vdim": base(blocks=[{"type": "mha", "heads": 2, "kdim": 20, "vdim": 24, "memory": "proj",
                                       "mem_len": 8, "ckpt": "none", "reentrant": False}]),
    },
    "frozen": {
        "static_batch": base(static_input=True, blocks=[mlp(), mlp(48)]),
        "static_batch_eval": base(static_input=True, blocks=[mlp()], eval_every=1),
        "frozen_first": base(frozen_first=True, blocks=[mlp()]),
        "frozen_static": base(frozen_first=True, static_input=True, blocks=[mlp(), mlp(40)]),
        "memory_buffer": base(blocks=[{"type": "mha", "heads": 2, "kdim": 28, "vdim": 16, "memory": "input",
                                       "mem_len": 10, "ckpt": "none", "reentrant": False}]),
    },
    "gan": {
        "split": base(kind="gan", latent=16, gan_concat=False, gan_regen=False, gen_blocks=[mlp()],
                      blocks=[mlp()]),
        "concat": base(kind="gan", latent=16, gan_concat=True, gan_regen=False, gen_blocks=[mlp()],
                       blocks=[mlp(48)]),
        "regen": base(kind="gan", latent=8, gan_concat=False, gan_regen=True, gen_blocks=[mlp()],
                      blocks=[mlp()]),
    },
    "self": {
        "contrastive": base(loss="contrastive", blocks=[mlp()]),
        "gram_train": base(blocks=[{"type": "gram", "ckpt": "none", "reentrant": False}, mlp()]),
        "infer_square": base(kind="infer", infer="square", D=64, steps=6),
        "infer_gram": base(kind="infer", infer="model", steps=4,
                           blocks=[{"type": "gram", "ckpt": "none", "reentrant": False}]),
    },
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shim")
    ap.add_argument("work")
    ap.add_argument("cls", choices=sorted(PROGRAMS) + ["threads"])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--programs", default="")
    ap.add_argument("--fork", action="store_true",
                    help="one torch import, a forked process per run (quicker; the repeated "
                         "runs then share the parent's allocator state, so use fresh processes "
                         "to look for flakiness)")
    ap.add_argument("--modes", default="auto,marked,nvtx" if os.environ.get("FC_NVTX_FIXTURE")
                    else "auto,marked")
    a = ap.parse_args()
    modes = a.modes.split(",")
    if a.cls == "threads":
        here = os.path.dirname(os.path.abspath(__file__))
        return subprocess.call([L.PYTHON, os.path.join(here, "split_threads.py"), a.shim, a.work,
                                "--runs", str(a.runs)])
    bad = 0
    server = L.Server(a.shim, a.work) if a.fork else None
    for name, spec in PROGRAMS[a.cls].items():
        if a.programs and name not in a.programs.split(","):
            continue
        tally = {}
        for i in range(a.runs):
            for mode in modes:
                tag = "%s.%s.%s" % (a.cls, name, mode)
                rep, cnt = server.run(spec, mode, tag) if server else L.run(a.shim, spec, mode, a.work, tag)
                v, why = L.judge(cnt, rep, mode)
                tally.setdefault(mode, {}).setdefault(v, 0)
                tally[mode][v] += 1
                if v in ("wrong", "error") or (mode != "auto" and v != "exact"):
                    bad += 1
                    print("%s/%s run %d %s: %s  %s" % (a.cls, name, i + 1, mode, v.upper(), why[:400]),
                          flush=True)
        print("%s/%s: %s" % (a.cls, name, "; ".join(
            "%s %s" % (m, ", ".join("%d %s" % (n, v) for v, n in sorted(t.items()))) for m, t in tally.items())),
            flush=True)
    if server:
        server.close()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
