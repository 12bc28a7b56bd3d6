# SPDX-License-Identifier: Apache-2.0
"""optim_check.py REPORT BY COUNT MICRO RECOMPUTE THREADS EVALS

Checks optim_prog.cu's report. The model is fixture_gpt_stream.c's GPT of
REFERENCE.md's tiny configuration (l=2 h=64 a=4 V=128 s=32 B=2), one
micro-batch:
  forward   24 B s h^2 (1 + s/6h) per layer = 6,815,744, times 2 layers,
            plus the logits 2 B s h V = 1,048,576: 14,680,064
  backward  twice the forward: 29,360,128
  recompute the first layer's forward again: 6,815,744 (RECOMPUTE 1)
(44,040,192 a micro-batch, Megatron's 72 B s l h^2 (1 + s/6h + V/12lh)).
BY: iterations.detected_by; COUNT iterations of MICRO micro-batches each,
each MICRO times one micro-batch's split; at most one flagged
("ambiguous"), and a flagged one may not be exact. THREADS: on | off
(detector.thread_evidence is "on", or is not). EVALS: evaluation passes.
"""
import json
import sys

FWD, BWD, REC = 14_680_064, 29_360_128, 6_815_744


def main():
    path, by, count, micro, rec, threads, evals = sys.argv[1:8]
    count, micro, rec, evals = int(count), int(micro), int(rec), int(evals)
    d = json.load(open(path))
    it = d["iterations"]
    det = it["detector"]
    bad = []

    def want(what, got, exp):
        if got != exp:
            bad.append(f"{what}: {got!r}, expected {exp!r}")

    want("detected_by", it["detected_by"], by)
    want("count", it["count"], count)
    want("listed", len(it["list"]), count)
    want("micro_batch", it["micro_batch"], "no" if by == "optimizer" else "may be")
    want("optimizer_steps", det["optimizer_steps"], count if by == "optimizer" else 0)
    want("thread_evidence on", det["thread_evidence"] == "on", threads == "on")
    want("eval passes", d["eval_passes"]["count"], evals)
    flagged = 0
    for x in it["list"]:
        want(f"iteration {x['index']} micro_batches", x["micro_batches"], micro)
        if x["ambiguous"]:
            flagged += 1
            continue
        want(f"iteration {x['index']} forward", x["forward_flops"], micro * FWD)
        want(f"iteration {x['index']} backward", x["backward_flops"], micro * BWD)
        want(f"iteration {x['index']} recompute", x["recompute_flops"], micro * REC * rec)
    if flagged > 1:
        bad.append(f"{flagged} iterations flagged, at most 1 expected")
    for b in bad:
        print("optim_check:", path, b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
