# SPDX-License-Identifier: Apache-2.0
"""overhead_ab.py - bench/shim_overhead for one or more builds of the shim,
in the four situations of issue 14: calls spaced like cuBLAS launches
(--work-ns 3000) and back to back (--work-ns 0), each with the process free
to use every CPU and pinned to one (taskset -c FIRST_CPU). Runs alternate
between the libraries (the order flipping every repetition), each run its
own process; per case and library, the median and spread (min..max) over
repetitions of: added_ns (the calling thread, wall time),
caller_cpu_ns_per_call (its CPU time), cpu_ns_per_call (the whole process,
every thread) and context_switches_per_1000_calls.

usage: python3 bench/overhead_ab.py [--reps N] [--bench PATH] LIB [LIB...]
A few minutes with the defaults (3 repetitions; shorter runs than the
benchmark's own defaults: --rounds 60 --cost-rounds 20 --shape-calls 200000).
The last line is one JSON object.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [("spaced", "3000", False), ("spaced-pinned", "3000", True),
         ("back-to-back", "0", False), ("back-to-back-pinned", "0", True)]
FIELDS = ("added_ns", "caller_cpu_ns_per_call", "cpu_ns_per_call", "context_switches_per_1000_calls")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--bench", default=os.path.join(HERE, "..", "build", "bench", "shim_overhead"))
    p.add_argument("libs", nargs="+")
    a = p.parse_args()
    first_cpu = min(os.sched_getaffinity(0))
    res = {c[0]: {lib: {f: [] for f in FIELDS} for lib in a.libs} for c in CASES}
    for r in range(a.reps):
        for name, work, pinned in CASES:
            for lib in (a.libs if r % 2 == 0 else a.libs[::-1]):
                cmd = [a.bench, "--work-ns", work, "--rounds", "60", "--cost-rounds", "20",
                       "--shape-calls", "200000", "--shim", os.path.abspath(lib)]
                if pinned:
                    cmd = ["taskset", "-c", str(first_cpu)] + cmd
                out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                j = json.loads(out.strip().splitlines()[-1])
                if not j["counts_exact"] or j["allocations_after_warmup"] != 0:
                    sys.exit(f"overhead_ab: {lib} {name}: counts not exact or allocations")
                for f in FIELDS:
                    res[name][lib][f].append(j[f])
                print(f"rep {r + 1} {name:20s} {lib}: " +
                      ", ".join(f"{f} {j[f]}" for f in FIELDS), file=sys.stderr, flush=True)
    summary = {"load": os.getloadavg(), "reps": a.reps, "cases": {}}
    for name, _, _ in CASES:
        summary["cases"][name] = {}
        for lib in a.libs:
            row = {}
            for f in FIELDS:
                v = res[name][lib][f]
                row[f] = {"median": statistics.median(v), "min": min(v), "max": max(v)}
            summary["cases"][name][lib] = row
            print(f"{name:20s} {lib:40.40s} " + "  ".join(
                f"{f} {row[f]['median']:.2f} ({row[f]['min']:.2f}..{row[f]['max']:.2f})" for f in FIELDS))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
