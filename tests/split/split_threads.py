#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""split_threads.py - 64 threads issuing GEMMs at once (issue 13, class 5):
a model trained by the main thread, then served by 64 threads, each running
its forward under no_grad, all at the same time.

usage: /usr/bin/python3 split_threads.py SHIM_SO WORKDIR [--runs N] [--threads T]
       /usr/bin/python3 split_threads.py --child MODE OUT_JSON T   (internal)

The training is counted by split_child.py's counter; one served forward is
measured by it once (an evaluation pass of the served batch), and the 64 x
K served forwards are that many evaluation passes. Checked per run, with
and without markers: the total to the FLOP; the split (split_lib.judge);
and, when records were lost to the detector (more threads than the
shim's 128 rings: iterations.detector.dropped_records > 0), that the
iterations section says so (a reason in ambiguous_reasons naming lost
records). 64 threads must lose nothing."""
import argparse
import json
import os
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

FORWARDS = 12
SPEC = {"seed": 3, "kind": "train", "B": 4, "S": 8, "Din": 20, "D": 32, "Dout": 8,
        "first": {"type": "linear"}, "frozen_first": False, "static_input": False,
        "blocks": [{"type": "mlp", "width": 64, "ckpt": "none", "reentrant": False}],
        "loss": "mse", "steps": 4, "micro": 1, "eval_every": 0, "eval_B": 2, "set_to_none": True}


def child(mode, out, threads):
    import torch
    import split_child as C
    torch.manual_seed(0)
    torch.set_num_threads(1)
    C.MARK = C.Markers(mode)
    with C.Counter():
        model = C.train(SPEC)
        before = C.State.total
        C.evaluate(SPEC, model, SPEC["Din"])       # one served forward, measured
        served = C.State.total - before
    gate = threading.Barrier(threads)

    def serve():
        x = torch.randn(SPEC["eval_B"], SPEC["S"], SPEC["Din"])
        gate.wait()
        with torch.no_grad():
            for _ in range(FORWARDS):
                model(x)

    C.MARK("eval_begin")
    workers = [threading.Thread(target=serve) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    C.MARK("eval_end")
    n = threads * FORWARDS
    C.State.events += [["gemm", "eval", served, 1, 0]] * n
    C.State.total += served * n
    with open(out, "w") as f:
        json.dump({"events": C.State.events, "total": C.State.total}, f)


def run(shim, work, mode, tag, threads):
    os.makedirs(work, exist_ok=True)
    report, counted = (os.path.join(work, "%s.%s.json" % (tag, k)) for k in ("report", "counted"))
    env = dict(os.environ, LD_PRELOAD=shim, FLOPCOUNT_OUTPUT=report, FLOPCOUNT_QUIET="1", OMP_NUM_THREADS="1")
    p = subprocess.run(["/usr/bin/python3", os.path.abspath(__file__), "--child", mode, counted, str(threads)],
                       env=env,
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("child failed: %s" % p.stderr[-3000:])
    with open(report) as f, open(counted) as g:
        return json.load(f), json.load(g)


def main():
    if sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    import split_lib as L
    ap = argparse.ArgumentParser()
    ap.add_argument("shim")
    ap.add_argument("work")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=64)
    a = ap.parse_args()
    bad = 0
    for i in range(a.runs):
        for mode in ("auto", "marked"):
            rep, cnt = run(a.shim, a.work, mode, "threads%d.%s" % (a.threads, mode), a.threads)
            v, why = L.judge(cnt, rep, mode)
            it = rep["iterations"]
            dropped = it["detector"]["dropped_records"]
            said = any("lost" in r for r in it.get("ambiguous_reasons", []))
            if dropped and not said:
                v, why = "wrong", "%d records lost to the detector, not said in the report; %s" % (dropped, why)
            if a.threads <= 64 and dropped:
                v, why = "wrong", "%d records lost with %d threads" % (dropped, a.threads)
            # lost records are a reason to be unsure, markers or not
            ok = v == "exact" or (v == "flagged" and (mode == "auto" or dropped))
            bad += not ok
            print("threads run %d %s: %s (dropped %d)%s" % (i + 1, mode, v, dropped, "  " + why[:300] if why else ""),
                  flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
