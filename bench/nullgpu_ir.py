# SPDX-License-Identifier: Apache-2.0
"""nullgpu_ir.py - host overhead on real PyTorch CUDA (the null GPU) counted
in instructions, which the machine's load does not change (times on a shared
machine swing by +-30-70%: bench/nullgpu_overhead.py). The small GPT of
nullgpu_step.py runs under valgrind's callgrind with instrumentation off for
start-up and warm-up; bench/step_marker.c switches it on at the first
measured step and dumps one profile per step (every thread: the shim's
drainer, PyTorch's autograd thread). Per process: the median instructions
per step. Modes as nullgpu_overhead.py: bare, flopcount (`flopcount run
--null-gpu`, the default mode), kernels (--kernels), profiler
(torch.profiler with_flops).
Two figures for the shim, independent of each other:
  whole process  (instructions per step under flopcount) / (bare) - 1, per
                 round (processes of a round side by side), median and spread
  shim's own     what the profiles put on libflopcount.so: its functions' own
                 instructions plus everything they call in other libraries
                 (libc, libunwind, the CUDA libraries' getters) except the
                 call forwarded to the real function (a callee whose name is
                 one the library exports: its hooks), per step, and as a
                 share of the bare step
  python3 bench/nullgpu_ir.py --flopcount build/bin/flopcount --nullgpu build/nullgpu \\
      [--marker build/bench/libfc_step_marker.so] [--python VENV/bin/python] \\
      [--configs eager-flash,eager-cudnn,compiled-flash] [--modes bare,flopcount,kernels] \\
      [--rounds 2] [--steps 8] [--warmup 3] [--jobs 2] [--top 12] [--json OUT]
      [--save FILE] [--cells ROUND:CONFIG:MODE,...] [--load FILE,...]
Under valgrind a step lasts seconds and the shim's drainer wakes tens of
times in it (a native step sees <= 2): the last columns bring each process
to 2 wake-ups a step, with the wake-up's cost fitted over the steps.
Needs valgrind (`bash scripts/deps.sh bench`). About 2 minutes of CPU per
eager process (start-up runs ~5x slower under valgrind), more compiled."""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def exported_names(shim):
    out = subprocess.run(["nm", "-D", "--defined-only", shim], stdout=subprocess.PIPE, check=True).stdout
    return {ln.split()[-1].split("@")[0] for ln in out.decode().splitlines() if ln.strip()}


def parse_profile(path, shim_base, hooks):
    """-> (total Ir, shim Ir, {shim function: Ir}, {hook: calls}, drainer
    wake-ups) of one callgrind dump; the hooks' calls are those made into the
    shim from outside it, the wake-ups the drainer's calls of
    fc_ring_pending (one per nap, shim/ring/drainer.c)."""
    names = {"ob": {}, "fn": {}}
    total, shim, per_fn, entries, wakes = 0, 0, {}, {}, 0
    ncalls = 0
    ob = fn = None
    cob = cfn = None
    in_call = False
    pat = re.compile(r"^\((\d+)\)(?: (.*))?$")

    def name(kind, v):
        m = pat.match(v)
        if not m:
            return v
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), v)

    with open(path, errors="replace") as f:
        for ln in f:
            c = ln[0] if ln else ""
            if c.isdigit() or c in "+-*":
                ir = int(ln.split()[-1])
                if in_call:
                    callee_ob = cob if cob is not None else ob
                    if callee_ob.endswith(shim_base) and not (ob or "").endswith(shim_base):
                        entries[cfn] = entries.get(cfn, 0) + ncalls
                    if fn == "drainer_main" and cfn == "fc_ring_pending":
                        wakes += ncalls
                    if (ob and ob.endswith(shim_base) and not callee_ob.endswith(shim_base)
                            and cfn not in hooks):
                        shim += ir
                        per_fn[fn] = per_fn.get(fn, 0) + ir
                    in_call, cob, cfn = False, None, None
                else:
                    total += ir
                    if ob and ob.endswith(shim_base):
                        shim += ir
                        per_fn[fn] = per_fn.get(fn, 0) + ir
            elif ln.startswith("ob="):
                ob = name("ob", ln[3:].rstrip("\n"))
            elif ln.startswith("fn="):
                fn = name("fn", ln[3:].rstrip("\n"))
            elif ln.startswith("cob="):
                cob = name("ob", ln[4:].rstrip("\n"))
            elif ln.startswith("cfn="):
                cfn = name("fn", ln[4:].rstrip("\n"))
            elif ln.startswith("calls="):
                in_call = True
                ncalls = int(ln[6:].split()[0])
    return total, shim, per_fn, entries, wakes


def run_one(a, config, mode, hooks):
    attn = config.split("-")[1]
    with tempfile.TemporaryDirectory() as tmp:
        vg = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--dump-line=no",
              "--callgrind-out-file=" + os.path.join(tmp, "cg.%p")]
        prog = [a.python, os.path.join(HERE, "nullgpu_step.py"), "--attn", attn, "--warmup", str(a.warmup),
                "--steps", str(a.steps), "--marker", a.marker]
        if config.startswith("compiled"):
            prog.append("--compile")
        if mode == "profiler":
            prog.append("--profiler")
        env = dict(os.environ, TORCHINDUCTOR_MAX_AUTOTUNE="0", PYTHONHASHSEED="0")
        if mode in ("bare", "profiler"):
            env["LD_LIBRARY_PATH"] = a.nullgpu + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
            env["FLOPCOUNT_NULLGPU_DEVICE"] = "h100"
            argv = vg + prog
        else:
            argv = [a.flopcount, "run", "--null-gpu", "h100", "--quiet", "--output",
                    os.path.join(tmp, "r.%p.json")] + (["--kernels"] if mode == "kernels" else []) + ["--"] + vg + prog
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=3600)
        if r.returncode != 0:
            sys.exit("nullgpu_ir: %s %s failed (%d): %s" % (config, mode, r.returncode,
                                                          r.stderr.decode(errors="replace")[-1500:]))
        steps = []
        for path in glob.glob(os.path.join(tmp, "cg.*")):
            with open(path, errors="replace") as f:
                head = f.read(2000)
            if re.search(r"Trigger: Client Request: step \d+", head):
                steps.append(parse_profile(path, a.shim_base, hooks))
        if len(steps) != a.steps:
            sys.exit("nullgpu_ir: %s %s: %d step profiles, expected %d" % (config, mode, len(steps), a.steps))
    fns, hooked = {}, {}
    for _, _, per, ent, _ in steps:
        for k, v in per.items():
            fns[k] = fns.get(k, 0) + v / len(steps)
        for k, v in ent.items():
            hooked[k] = hooked.get(k, 0) + v / len(steps)
    return {"ir": statistics.median(s[0] for s in steps), "shim": statistics.median(s[1] for s in steps),
            "ir_steps": [s[0] for s in steps], "shim_steps": [s[1] for s in steps], "shim_fns": fns,
            "hook_calls": hooked, "wakes_steps": [s[4] for s in steps]}


def wake_cost(rows):
    """Instructions a drainer wake-up costs: least squares of the shim's
    own instructions on the wake-ups over every step, each process about its
    own means (its records, repeats and config are its own), pooled. Under
    valgrind a step lasts seconds, so the drainer (a nap of 10 ms,
    shim/ring/drainer.c) wakes tens of times per step where a native step
    of <= 20 ms sees <= 2: the figures at NATIVE_WAKES take that out.
    None without wake data."""
    num = den = 0.0
    for r in rows:
        if "wakes_steps" not in r:
            continue
        w, x = r["wakes_steps"], r["shim_steps"]
        mw, mx = sum(w) / len(w), sum(x) / len(x)
        num += sum((a - mw) * (b - mx) for a, b in zip(w, x))
        den += sum((a - mw) ** 2 for a in w)
    return num / den if den > 0 else None


def at_native(r, key, per_wake):
    """The process's mean of key per step with its wake-ups brought to
    NATIVE_WAKES."""
    w = r["wakes_steps"]
    return sum(r[key]) / len(r[key]) - per_wake * (sum(w) / len(w) - NATIVE_WAKES)


NATIVE_WAKES = 2  # a native step of <= 20 ms (5.9-16 ms here) and a 10 ms nap


def spread(xs, fmt):
    return (fmt + " (" + fmt + ".." + fmt + ")") % (statistics.median(xs), min(xs), max(xs))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--flopcount", required=True)
    p.add_argument("--nullgpu", required=True, help="the folder of the null GPU's libcuda.so.1")
    p.add_argument("--marker", default=None, help="libfc_step_marker.so (default: beside the flopcount build)")
    p.add_argument("--shim", default=None, help="libflopcount.so (default: the build's lib/)")
    cache = os.environ.get("FLOPCOUNT_CACHE") or os.path.expanduser("~/.cache/flopcount")
    p.add_argument("--python", default=os.path.join(cache, "torch-venv", "bin", "python"))
    p.add_argument("--configs", default="eager-flash,eager-cudnn,compiled-flash")
    p.add_argument("--modes", default="bare,flopcount,kernels")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--jobs", type=int, default=2, help="processes at once (counts do not depend on load)")
    p.add_argument("--top", type=int, default=12, help="the shim's costliest functions to list")
    p.add_argument("--json", default=None)
    p.add_argument("--save", default=None, help="append each process's result to this file as it ends (JSON lines)")
    p.add_argument("--cells", default=None, help="run only these, ROUND:CONFIG:MODE,... (rounds from 1), "
                   "to complete a --save file")
    p.add_argument("--load", default=None, help="make the tables from --save files (comma-separated) instead of running")
    a = p.parse_args()
    build = os.path.dirname(os.path.dirname(os.path.abspath(a.flopcount)))
    a.marker = os.path.abspath(a.marker or os.path.join(build, "bench", "libfc_step_marker.so"))
    a.shim = os.path.abspath(a.shim or os.path.join(build, "lib", "libflopcount.so"))
    a.shim_base = os.path.basename(os.path.realpath(a.shim))  # the profiles name the file itself
    a.nullgpu = os.path.abspath(a.nullgpu)
    for need in (a.marker, a.shim):
        if not os.path.exists(need):
            sys.exit("nullgpu_ir: %s missing (valgrind's header absent at configure time? "
                     "bash scripts/deps.sh bench)" % need)
    hooks = exported_names(a.shim)
    configs, modes = a.configs.split(","), a.modes.split(",")
    jobs = [(r, c, m) for r in range(a.rounds) for c in configs for m in modes]
    if a.cells:
        jobs = [(int(x.split(":")[0]) - 1, x.split(":")[1], x.split(":")[2]) for x in a.cells.split(",")]
    res = {}
    if a.load:
        for path in a.load.split(","):
            with open(path) as f:
                for ln in f:
                    d = json.loads(ln)
                    res[(d["round"], d["config"], d["mode"])] = d["result"]
        jobs = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(run_one, a, c, m, hooks): (r, c, m) for r, c, m in jobs}
        for fu in concurrent.futures.as_completed(futs):
            r, c, m = futs[fu]
            try:
                res[(r, c, m)] = fu.result()
            except SystemExit as e:  # one failed process: its row is left out, the others still count
                print(e, file=sys.stderr, flush=True)
                continue
            print("done %s %s round %d" % (c, m, r + 1), file=sys.stderr, flush=True)
            if a.save:
                with open(a.save, "a") as f:
                    f.write(json.dumps({"round": r, "config": c, "mode": m, "result": res[(r, c, m)]}) + "\n")
    # per config, the rounds its bare process ran in (each mode's are paired with those)
    done = {c: [r for r in sorted({k[0] for k in res}) if (r, c, "bare") in res] for c in configs}
    configs = [c for c in configs if done[c]]
    per_wake = wake_cost([res[k] for k in res if k[2] in ("flopcount", "kernels")])
    if per_wake is not None:
        print("a drainer wake-up: %.0f instructions (fit over every step of the flopcount and kernels processes)\n"
              % per_wake)
    print("| config | mode | instructions / step, M (median, min..max) | vs bare | shim's own / bare step | "
          "drainer wake-ups / step | vs bare at %d wake-ups | shim's own at %d wake-ups, K (/ bare step) |"
          % (NATIVE_WAKES, NATIVE_WAKES))
    print("|---|---|---|---|---|---|---|---|")
    out = []
    for c in configs:
        for m in modes:
            rr = [r for r in done[c] if (r, c, m) in res]
            if not rr:
                continue
            bare = [res[(r, c, "bare")]["ir"] for r in rr]
            rows = [res[(r, c, m)] for r in rr]
            ir = [x["ir"] for x in rows]
            cols = [spread([x / 1e6 for x in ir], "%.3f")] + ["-"] * 5
            if m in ("flopcount", "kernels") and bare:
                cols[1] = spread([100 * (x / b - 1) for x, b in zip(ir, bare)], "%+.2f%%")
                cols[2] = spread([100 * x["shim"] / b for x, b in zip(rows, bare)], "%.2f%%")
                # means over steps here (a wake-up correction is a mean), the bare process's too
                bmean = [sum(res[(r, c, "bare")]["ir_steps"]) / len(res[(r, c, "bare")]["ir_steps"]) for r in rr]
                pairs = [(x, b) for x, b in zip(rows, bmean) if "wakes_steps" in x]
                if pairs and per_wake is not None:
                    cols[3] = spread([statistics.median(x["wakes_steps"]) for x, _ in pairs], "%.0f")
                    cols[4] = spread([100 * (at_native(x, "ir_steps", per_wake) / b - 1) for x, b in pairs],
                                     "%+.2f%%")
                    own = [at_native(x, "shim_steps", per_wake) for x, _ in pairs]
                    cols[5] = "%s (%s)" % (spread([o / 1e3 for o in own], "%.1f"),
                                           spread([100 * o / b for o, (_, b) in zip(own, pairs)], "%.2f%%"))
            elif m != "bare" and bare:
                cols[1] = spread([100 * (x / b - 1) for x, b in zip(ir, bare)], "%+.2f%%")
            print("| %s | %s | %s |" % (c, m, " | ".join(cols)))
            out.append({"config": c, "mode": m, "rounds": rows})
    for c in configs:
        for m in ("flopcount", "kernels"):
            if m not in modes or a.top <= 0:
                continue
            rr = [r for r in done[c] if (r, c, m) in res]
            if not rr:
                continue
            first = res[(rr[0], c, m)]
            fns = first["shim_fns"]
            top = sorted(fns.items(), key=lambda kv: -kv[1])[:a.top]
            print("\n%s %s, first round: the shim's costliest functions (own + non-forwarded callees, per step)"
                  % (c, m))
            for k, v in top:
                print("  %10.0f  %s" % (v, k))
            print("%s %s, first round: calls into the shim per step (mean over steps)" % (c, m))
            for k, v in sorted(first["hook_calls"].items(), key=lambda kv: -kv[1]):
                print("  %10.1f  %s" % (v, k))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"per_wake": per_wake, "native_wakes": NATIVE_WAKES, "cells": out}, f, indent=1)


if __name__ == "__main__":
    main()
