#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""split_graphs.py - the randomized property test of the phase split: random
model graphs trained on real PyTorch (CPU) under the shim, each checked
against its own per-phase counter (split_child.py, split_lib.py).

usage: /usr/bin/python3 split_graphs.py SHIM_SO WORKDIR [--seeds A:B]
           [--modes auto,marked,nvtx] [--require-exact-marked] [--verbose]

For each seed in [A, B) one program is generated and run once per mode:
auto (no markers), marked (every marker the library exports), nvtx (the
phases as NVTX ranges; needs FC_NVTX_FIXTURE, see split_child.py). Prints
a line per run that is not exact (or exact but flagged) and, per mode,
the figure
    N graphs: X exact, Y flagged, Z silently wrong
Exit status 1 when a total is off, a run is silently wrong, or (with
--require-exact-marked) a marked or nvtx run is not exact.

The full run (docs/iterations.md): seeds 0:200 (about an hour on two idle
cores; --fork imports torch once and forks a process per run, which
spares the import on a busy machine). CI (tests/split/split.cmake) runs a
bounded slice."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import split_lib as L  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shim")
    ap.add_argument("work")
    ap.add_argument("--seeds", default="0:200")
    ap.add_argument("--modes", default="auto,marked")
    ap.add_argument("--require-exact-marked", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--fork", action="store_true",
                    help="one torch import, a forked process per run (split_lib.Server)")
    a = ap.parse_args()
    server = L.Server(a.shim, a.work) if a.fork else None
    lo, hi = (int(x) for x in a.seeds.split(":"))
    modes = a.modes.split(",")
    verdicts = {m: [] for m in modes}
    needless = {m: 0 for m in modes}
    failed = False
    for seed in range(lo, hi):
        spec = L.gen_spec(seed)
        for mode in modes:
            tag = "g%d.%s" % (seed, mode)
            rep, cnt = server.run(spec, mode, tag) if server else L.run(a.shim, spec, mode, a.work, tag)
            v, why = L.judge(cnt, rep, mode)
            verdicts[mode].append(v)
            needless[mode] += v == "exact" and bool(why)
            bad = v in ("wrong", "error") or (mode != "auto" and a.require_exact_marked and v != "exact")
            failed |= bad
            if bad or a.verbose or v != "exact" or why:
                print("seed %d %s: %s  [%s]%s" % (seed, mode, v.upper(), L.describe(spec),
                                                   ("  " + why) if why else ""), flush=True)
    if server:
        server.close()
    for mode in modes:
        print("%s: %s" % (mode, L.figure(verdicts[mode], needless[mode])), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
