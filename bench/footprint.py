# SPDX-License-Identifier: Apache-2.0
"""footprint.py - what preloading libflopcount.so costs a whole process:
wall time, CPU time (user + system, the process and every child it waited
for) and peak resident memory (ru_maxrss: the largest process of the tree),
bare and with the shim, for processes that run no GEMM and for a training
run. Each run goes through build/bench/rusage_run (a small C launcher, so
the peak RSS is the command's, not this script's). Runs alternate (bare,
then each library, the order flipping every repetition); medians and the
spread (min..max) per case.

usage: python3 bench/footprint.py [--reps N] [--cases a,b] [--runner PATH] LIB [LIB...]

Cases (bench/README.md, "Footprint"):
  true       /bin/true
  true-opts  /bin/true with every option set (report with %p, live line,
             snapshots every 0.1 s, call sites): an idle process must not
             pay for options either
  shell200   sh running 200 /bin/true one after another (the shim is loaded
             201 times)
  torch      /usr/bin/python3 -c 'import torch'
  train      bench/e2e_torch.py --model gpt --tiny --optim adamw --steps 40:
             ~9,000 GEMMs; the shim's memory and its start-up and exit time
  register10k  build/bench/launch_overhead --register-only 10000: a process
             that registers 10,000 CUDA kernels at start, as libtorch_cuda
             does thousands (one in ten of interest to the launch layer),
             on a runtime that does nothing itself (bench/noop_cudart.c)
The last line is one JSON object.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"

CASES = {
    "true": (["/bin/true"], 30, {}),
    "true-opts": (["/bin/true"], 30, {"FLOPCOUNT_OUTPUT": "{tmp}/r-%p.json", "FLOPCOUNT_LOG_EVERY": "1",
                                      "FLOPCOUNT_SNAPSHOT_SECONDS": "0.1", "FLOPCOUNT_CALLSITES": "1"}),
    "shell200": (["/bin/sh", "-c", "i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i+1)); done"], 5, {}),
    "torch": ([PY, "-c", "import torch"], 5, {}),
    "train": ([PY, os.path.join(HERE, "e2e_torch.py"), "--model", "gpt", "--tiny", "--optim", "adamw",
               "--steps", "40"], 5, {"FLOPCOUNT_OUTPUT": "{tmp}/train-%p.json"}),
    "register10k": ([os.path.join(HERE, "..", "build", "bench", "launch_overhead"), "--register-only",
                     "10000"], 20, {}),
}


def run_once(runner, argv, env, extra):
    """wall ms, CPU ms, peak RSS KiB of argv (its environment: env and the
    NAME=VALUE strings of extra), measured by rusage_run."""
    r, w = os.pipe()
    pid = os.posix_spawn(runner, [runner] + extra + argv, env, file_actions=[
        (os.POSIX_SPAWN_DUP2, w, 2), (os.POSIX_SPAWN_CLOSE, r)])
    os.close(w)
    text = os.read(r, 65536).decode()
    while True:
        more = os.read(r, 65536)
        if not more:
            break
        text += more.decode()
    os.close(r)
    _, status = os.waitpid(pid, 0)
    last = text.strip().splitlines()[-1] if text.strip() else ""
    f = last.split()
    if status != 0 or len(f) != 5:
        sys.exit(f"footprint: {argv} failed: {text.strip()[-500:]}")
    return int(f[0]) / 1e6, (int(f[1]) + int(f[2])) / 1e3, int(f[3])


def spread(v):
    return {"median": round(statistics.median(v), 3), "min": round(min(v), 3), "max": round(max(v), 3)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=0, help="repetitions per case (default: per case)")
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--runner", default=os.path.join(HERE, "..", "build", "bench", "rusage_run"))
    p.add_argument("libs", nargs="+")
    a = p.parse_args()
    for lib in a.libs + [a.runner]:
        if not os.path.exists(lib):
            sys.exit(f"footprint: no {lib}")
    tmp = tempfile.mkdtemp(prefix="flopcount-footprint.")
    saved_stdout = os.dup(1)
    null = open(os.devnull, "w")
    os.dup2(null.fileno(), 1)  # the programs' stdout; ours goes to stderr, the JSON at the end
    out = {"load": os.getloadavg(), "cases": {}}
    kinds = ["bare"] + a.libs
    for case in a.cases.split(","):
        argv, reps, opts = CASES[case]
        reps = a.reps or reps
        res = {k: ([], [], []) for k in kinds}
        for r in range(reps):
            order = kinds if r % 2 == 0 else kinds[::-1]
            for k in order:
                env = {n: v for n, v in os.environ.items()
                       if n != "LD_PRELOAD" and not n.startswith("FLOPCOUNT_")}
                extra = []
                if k != "bare":
                    extra = [f"LD_PRELOAD={os.path.abspath(k)}"]
                    extra += [f"{n}={v.format(tmp=tmp)}" for n, v in opts.items()]
                w, c, m = run_once(a.runner, argv, env, extra)
                for lst, v in zip(res[k], (w, c, m)):
                    lst.append(v)
        row = {}
        for k in kinds:
            w, c, m = res[k]
            row[k] = {"wall_ms": spread(w), "cpu_ms": spread(c), "max_rss_kib": spread(m)}
            line = (f"{case:9s} {'bare' if k == 'bare' else k:40.40s} wall {statistics.median(w):8.2f} ms "
                    f"({min(w):.2f}..{max(w):.2f})  cpu {statistics.median(c):8.2f} ms "
                    f"({min(c):.2f}..{max(c):.2f})  rss {statistics.median(m):8.0f} KiB ({min(m)}..{max(m)})")
            if k != "bare":
                bw, bc, bm = res["bare"]
                added = {"wall_ms": statistics.median(w) - statistics.median(bw),
                         "cpu_ms": statistics.median(c) - statistics.median(bc),
                         "max_rss_kib": statistics.median(m) - statistics.median(bm)}
                row[k]["added"] = {n: round(v, 3) for n, v in added.items()}
                line += (f"  added: {added['wall_ms']:+.2f} ms wall, {added['cpu_ms']:+.2f} ms cpu, "
                         f"{added['max_rss_kib']:+.0f} KiB")
            print(line, file=sys.stderr, flush=True)
        out["cases"][case] = row
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)
    os.dup2(saved_stdout, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
