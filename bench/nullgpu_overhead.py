# SPDX-License-Identifier: Apache-2.0
"""nullgpu_overhead.py - host overhead on real PyTorch CUDA, on the null GPU
(where a training step is pure host time: the worst case of what a tool adds
to a launch-bound job). The small GPT of nullgpu_step.py, eager and
torch.compile'd, SDPA forced to flash or cuDNN, run in fresh processes:
  bare       the program alone
  flopcount  under `flopcount run --null-gpu` (the default mode)
  kernels    the same with --kernels (CUPTI is kept out on the null GPU, so
             this measures the option's own bookkeeping only)
  profiler   the program inside torch.profiler.profile(with_flops=True)
             (CPU activity: CUDA activity needs CUPTI)
Rounds interleave every (config, mode) in a rotating order; per process the
median step wall time and CPU time per step (every thread); per cell the
median over rounds and the spread (min-max), and each mode's overhead as the
median over rounds of its ratio to the same round's bare run.
  python3 bench/nullgpu_overhead.py --flopcount build/bin/flopcount \\
      --nullgpu build/nullgpu [--python VENV/bin/python] [--rounds 5] \\
      [--configs eager-flash,eager-cudnn,compiled-flash] [--modes bare,flopcount,kernels,profiler]
      [--steps 40] [--warmup 10] [--json OUT]"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run_one(a, config, mode, tmp):
    attn = config.split("-")[1]
    prog = [a.python, os.path.join(HERE, "nullgpu_step.py"), "--attn", attn, "--warmup", str(a.warmup),
            "--steps", str(a.steps)]
    if config.startswith("compiled"):
        prog.append("--compile")
    env = dict(os.environ)
    env["TORCHINDUCTOR_MAX_AUTOTUNE"] = "0"
    if mode == "profiler":
        prog.append("--profiler")
    if mode in ("bare", "profiler"):
        env["LD_LIBRARY_PATH"] = a.nullgpu + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        env["FLOPCOUNT_NULLGPU_DEVICE"] = "h100"
        argv = prog
    else:
        argv = [a.flopcount, "run", "--null-gpu", "h100", "--quiet", "--output",
                os.path.join(tmp, "r.%p.json")] + (["--kernels"] if mode == "kernels" else []) + ["--"] + prog
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=900)
    lines = [l for l in r.stdout.decode().splitlines() if l.startswith("{")]
    if r.returncode != 0 or not lines:
        sys.exit("nullgpu_overhead: %s %s failed (%d): %s" % (config, mode, r.returncode,
                                                            r.stderr.decode(errors="replace")[-800:]))
    d = json.loads(lines[-1])
    return statistics.median(d["wall"]), statistics.median(d["cpu"])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--flopcount", required=True)
    p.add_argument("--nullgpu", required=True, help="the folder of the null GPU's libcuda.so.1")
    cache = os.environ.get("FLOPCOUNT_CACHE") or os.path.expanduser("~/.cache/flopcount")
    p.add_argument("--python", default=os.path.join(cache, "torch-venv", "bin", "python"))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--configs", default="eager-flash,eager-cudnn,compiled-flash")
    p.add_argument("--modes", default="bare,flopcount,kernels,profiler")
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--json", default=None)
    a = p.parse_args()
    a.nullgpu = os.path.abspath(a.nullgpu)
    configs, modes = a.configs.split(","), a.modes.split(",")
    cells = [(c, m) for c in configs for m in modes]
    res = {cell: [] for cell in cells}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            order = cells[r % len(cells):] + cells[:r % len(cells)]
            for c, m in order:
                res[(c, m)].append(run_one(a, c, m, tmp))
            print("round %d/%d done" % (r + 1, a.rounds), file=sys.stderr, flush=True)
    print("| config | mode | step ms (median, min-max) | CPU ms/step (median, min-max) | step vs bare | CPU vs bare |")
    print("|---|---|---|---|---|---|")
    out = []
    for c, m in cells:
        w = [x[0] * 1e3 for x in res[(c, m)]]
        u = [x[1] * 1e3 for x in res[(c, m)]]
        bw = [x[0] for x in res[(c, "bare")]] if (c, "bare") in res else None
        bu = [x[1] for x in res[(c, "bare")]] if (c, "bare") in res else None
        rw = [x[0] / b - 1 for x, b in zip(res[(c, m)], bw)] if bw else []
        ru = [x[1] / b - 1 for x, b in zip(res[(c, m)], bu)] if bu else []

        def pct(xs):
            if not xs or m == "bare":
                return "-"
            return "%+.1f%% (%+.1f..%+.1f)" % (100 * statistics.median(xs), 100 * min(xs), 100 * max(xs))
        print("| %s | %s | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %s | %s |"
              % (c, m, statistics.median(w), min(w), max(w), statistics.median(u), min(u), max(u), pct(rw),
                 pct(ru)))
        out.append({"config": c, "mode": m, "step_ms": w, "cpu_ms": u, "step_vs_bare": rw, "cpu_vs_bare": ru})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
