# SPDX-License-Identifier: Apache-2.0
"""gputime_check.py - reads the report of one test_gputime run and checks
the GPU figures (shim/probe/gputime.c) against what the program declared.
usage: gputime_check.py REPORT MODE   (MODE as for test_gputime)

The program's fake GPU does 10, 2.5, 4, 2.5, 7 ms of work in steps 1-5
(tests/gputime/test_gputime.c), so by hand:
  markers: an iteration per step, GPU seconds 0.010 0.0025 0.004 0.0025
           0.007; steady state = iterations 2-5, sorted 2.5 2.5 4 7 ms,
           median = the lower middle value (analysis/stats.h) = 2.5 ms.
  auto:    iterations run from one step's first GEMM to the next's, so the
           same figures for 1-4; the 5th has no known end (open_end): no
           GPU figure, and left out of the steady state, which is 2-4:
           2.5 4 2.5 ms, median 2.5 ms.
  nodriver, nocontext: no GPU figures, and the reason why."""
import json
import sys

path, mode = sys.argv[1], sys.argv[2]
with open(path) as f:
    it = json.load(f)["iterations"]
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def close(a, b):
    return isinstance(a, float) and abs(a - b) < 1e-9


STEP_S = [0.010, 0.0025, 0.004, 0.0025, 0.007]
if mode in ("auto", "markers"):
    want_by = "auto" if mode == "auto" else "marker"
    check(it["detected_by"] == want_by, "detected_by %r" % it["detected_by"])
    check(it["count"] == 5, "count %r" % it["count"])
    check(it.get("gpu_timing") == "events", "gpu_timing %r" % it.get("gpu_timing"))
    got = [e.get("gpu_seconds", "absent") for e in it["list"]]
    want = STEP_S if mode == "markers" else STEP_S[:4] + [None]
    check(len(got) == 5, "list length %d" % len(got))
    for i, (g, w) in enumerate(zip(got, want)):
        check(g is None if w is None else close(g, w), "iteration %d gpu_seconds %r, want %r" % (i + 1, g, w))
    check(close(it.get("gpu_median_seconds"), 0.0025),
          "gpu_median_seconds %r" % it.get("gpu_median_seconds"))
    # wall time is still there, and on this CPU it is not the fake GPU's
    check(it["median_seconds"] is not None, "median_seconds missing")
else:
    why = {"nodriver": "unavailable: CUDA driver (", "nocontext": "unavailable: no events recorded"}[mode]
    check(str(it.get("gpu_timing", "")).startswith(why), "gpu_timing %r" % it.get("gpu_timing"))
    check("gpu_median_seconds" not in it, "gpu_median_seconds present")
    check(all("gpu_seconds" not in e for e in it["list"]), "gpu_seconds present")
    check(it["count"] == 5 and it["median_seconds"] is not None, "wall timing lost")
for f in fails:
    print("gputime_check %s: %s" % (mode, f))
sys.exit(1 if fails else 0)
