#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""split_nanogpt.py - nanoGPT's own train.py, unmodified, under the shim,
checked iteration by iteration against an independent per-phase count
(nanogpt_child.py's TorchDispatchMode; verdicts as split_lib.py's).

usage: /usr/bin/python3 split_nanogpt.py FLOPCOUNT_BIN SHIM_SO NANOGPT_DIR WORKDIR
           [--runs N] [--configs a,b,c] [--ways run,bash,pinned] [--keep]

NANOGPT_DIR is a checkout of github.com/karpathy/nanoGPT that the caller
provides (nothing of it is in this repository and nothing is fetched):
train.py, model.py and configurator.py are copied into a temporary
directory under WORKDIR with a generated dataset (random tokens,
meta.pkl's vocab_size), and train.py runs there on the CPU
(--device=cpu --compile=False --dtype=float32), AdamW, tied embeddings,
evaluation every few steps. Without NANOGPT_DIR's train.py the test
skips (exit 0, saying why) - ctest passes FC_NANOGPT_DIR when set.

Each configuration (CONFIGS) runs N times each way:
  run      flopcount run --output ... -- python3 ...
  bash     LD_PRELOAD=SHIM bash -c "python3 ..." (the shim in the shell too)
  pinned   taskset -c 0 flopcount run ... (one CPU: no drainer thread,
           the program's thread drains its ring itself)
and every iteration is judged: exact (forward, backward and recompute
FLOPs equal the count), flagged (the report says its split is unsure),
or silently wrong (differs, unflagged). An iteration is a micro-batch here
(no markers on the CPU: the optimizer step runs no GEMM); the report must
say so ("micro_batch": "may be" or "yes" in the iterations section) when
the program accumulates gradients.

Prints per configuration and way: runs, iterations, flagged, silently
wrong, and the verdicts summed. Exit 1 when an iteration is silently
wrong, a total is off, the flagged share exceeds --max-flagged (percent,
default 0.5) or a run fails."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import split_lib as L  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "nanogpt_child.py")
COMMON = ["--dataset=gen", "--device=cpu", "--compile=False", "--dtype=float32",
          "--log_interval=5", "--eval_iters=2", "--warmup_iters=2", "--lr_decay_iters=100"]
# name: train.py overrides. Three shapes of model; accumulation 1 and 2;
# an evaluation pass every few steps (estimate_loss: train and val).
CONFIGS = {
    "a": ["--n_layer=2", "--n_head=2", "--n_embd=32", "--block_size=32", "--batch_size=4",
          "--gradient_accumulation_steps=1", "--max_iters=24", "--eval_interval=5"],
    "b": ["--n_layer=3", "--n_head=4", "--n_embd=48", "--block_size=24", "--batch_size=3",
          "--gradient_accumulation_steps=2", "--max_iters=14", "--eval_interval=4", "--bias=True"],
    "c": ["--n_layer=4", "--n_head=4", "--n_embd=64", "--block_size=64", "--batch_size=2",
          "--gradient_accumulation_steps=2", "--max_iters=12", "--eval_interval=3",
          "--always_save_checkpoint=False"],
    "d": ["--n_layer=6", "--n_head=6", "--n_embd=192", "--block_size=64", "--batch_size=4",
          "--gradient_accumulation_steps=1", "--max_iters=10", "--eval_interval=4"],
    # dropout, three micro-batches a step, an odd head count
    "e": ["--n_layer=3", "--n_head=3", "--n_embd=96", "--block_size=48", "--batch_size=5",
          "--gradient_accumulation_steps=3", "--max_iters=12", "--eval_interval=4",
          "--dropout=0.1", "--bias=True"],
    # five layers, no gradient clipping, no weight decay, a rare evaluation
    "f": ["--n_layer=5", "--n_head=2", "--n_embd=80", "--block_size=40", "--batch_size=3",
          "--gradient_accumulation_steps=1", "--max_iters=18", "--eval_interval=6",
          "--grad_clip=0.0", "--weight_decay=0.0"],
}
VOCAB = 65


def make_copy(src, work):
    d = tempfile.mkdtemp(prefix="nanogpt.", dir=work)
    for f in ("train.py", "model.py", "configurator.py"):
        shutil.copy(os.path.join(src, f), d)
    import numpy as np  # Debian's python3-numpy, beside torch
    import pickle
    os.makedirs(os.path.join(d, "data", "gen"))
    r = np.random.default_rng(0)
    r.integers(0, VOCAB, 40000, dtype=np.uint16).tofile(os.path.join(d, "data", "gen", "train.bin"))
    r.integers(0, VOCAB, 8000, dtype=np.uint16).tofile(os.path.join(d, "data", "gen", "val.bin"))
    with open(os.path.join(d, "data", "gen", "meta.pkl"), "wb") as f:
        pickle.dump({"vocab_size": VOCAB}, f)
    return d


def run_once(a, copy, cfg, way, tag):
    rep = os.path.join(a.work, tag + ".report.json")
    cnt = os.path.join(a.work, tag + ".counted.json")
    for f in (rep, cnt):
        if os.path.exists(f):
            os.unlink(f)
    cmd = [L.PYTHON, CHILD, cnt, "train.py"] + COMMON + CONFIGS[cfg] + \
          ["--out_dir=" + os.path.join(copy, "out")]
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if way == "bash":
        env.update(LD_PRELOAD=a.shim, FLOPCOUNT_OUTPUT=rep, FLOPCOUNT_QUIET="1")
        argv = ["bash", "-c", " ".join("'%s'" % x for x in cmd)]
    else:
        argv = [a.flopcount, "run", "--quiet", "--output", rep, "--"] + cmd
        if way == "pinned":
            argv = ["taskset", "-c", "0"] + argv
    p = subprocess.run(argv, cwd=copy, env=env, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (tag, p.stderr[-3000:]))
    return L.load(rep, cnt)


def judge_iterations(counted, rep):
    """(iterations, flagged, silently wrong, verdict, details): per
    iteration, against split_lib.expected()'s automatic iterations."""
    verdict, why = L.judge(counted, rep, "auto")
    it = rep["iterations"]
    want, _, _ = L.expected(counted, "auto")
    got = [[e["forward_flops"], e["backward_flops"], e["recompute_flops"]] for e in it["list"]]
    flagged = sum(1 for e in it["list"] if e.get("ambiguous"))
    silent = 0
    if len(got) == len(want):
        silent = sum(1 for e, g, w in zip(it["list"], got, want) if g != w and not e.get("ambiguous"))
    elif verdict == "wrong":
        silent = max(len(got), len(want))
    return len(want), flagged, silent, verdict, why


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("flopcount")
    ap.add_argument("shim")
    ap.add_argument("nanogpt")
    ap.add_argument("work")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--configs", default="a,b,c")
    ap.add_argument("--ways", default="run,bash,pinned")
    ap.add_argument("--max-flagged", type=float, default=0.5)
    ap.add_argument("--keep", action="store_true", help="keep every report (else only bad runs')")
    a = ap.parse_args()
    a.flopcount, a.work = os.path.abspath(a.flopcount), os.path.abspath(a.work)
    a.shim = ":".join(os.path.abspath(x) for x in a.shim.split(":"))  # a sanitizer runtime first
    if not a.nanogpt or not os.path.isfile(os.path.join(a.nanogpt, "train.py")):
        print("split_nanogpt: SKIPPED - no nanoGPT checkout given (NANOGPT_DIR %r has no train.py;"
              " set FC_NANOGPT_DIR to a clone of github.com/karpathy/nanoGPT)" % a.nanogpt)
        return 0
    os.makedirs(a.work, exist_ok=True)
    copy = make_copy(a.nanogpt, a.work)
    failed = False
    total = {"its": 0, "flagged": 0, "silent": 0}
    try:
        for cfg in a.configs.split(","):
            micro = any(x.startswith("--gradient_accumulation_steps=") and
                        int(x.split("=")[1]) > 1 for x in CONFIGS[cfg])
            for way in a.ways.split(","):
                its = flagged = silent = 0
                verdicts = {}
                for i in range(a.runs):
                    tag = "%s.%s.%d" % (cfg, way, i)
                    rep, cnt = run_once(a, copy, cfg, way, tag)
                    n, fl, si, v, why = judge_iterations(cnt, rep)
                    mb = rep["iterations"].get("micro_batch")
                    if micro and mb not in ("yes", "may be"):
                        v, why = "wrong", "micro_batch %r under gradient accumulation" % mb
                        si = max(si, 1)
                    its, flagged, silent = its + n, flagged + fl, silent + si
                    verdicts[v] = verdicts.get(v, 0) + 1
                    if v in ("wrong", "error") or fl or why:
                        print("  %s: %s, %d of %d iterations flagged%s" % (
                            tag, v, fl, n, ("  " + why) if why else ""), flush=True)
                    if not a.keep and not (v in ("wrong", "error") or fl):
                        for f in (tag + ".report.json", tag + ".counted.json"):
                            os.unlink(os.path.join(a.work, f))
                    failed |= v in ("wrong", "error")
                print("config %s, %s: %d runs, %d iterations, %d flagged (%.2f%%), %d silently"
                      " wrong; runs %s" % (cfg, way, a.runs, its, flagged,
                                          100.0 * flagged / max(its, 1), silent,
                                          ", ".join("%s %d" % kv for kv in sorted(verdicts.items()))),
                      flush=True)
                total["its"] += its
                total["flagged"] += flagged
                total["silent"] += silent
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    share = 100.0 * total["flagged"] / max(total["its"], 1)
    print("all: %d iterations, %d flagged (%.2f%%), %d silently wrong" % (
        total["its"], total["flagged"], share, total["silent"]))
    failed |= total["silent"] > 0 or share > a.max_flagged
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
