# SPDX-License-Identifier: Apache-2.0
"""split_lib.py - shared by the split tests: random model graphs, a run of
one under the shim beside its own per-phase counter (split_child.py), and
the verdict on the report's forward/backward/recompute split.

Verdict of one run (judge()):
  exact    every iteration's forward, backward and recompute FLOPs, the
           iteration count and the evaluation FLOPs equal the counter's
  flagged  something differs, and the report says, where it differs, that
           its split is unsure (an iteration's "ambiguous"; for a count or
           an evaluation that is off, the iterations section's
           "ambiguous_iterations" or "ambiguous_reasons", or
           "eval_passes.ambiguous")
  wrong    something differs and the report does not say so, or an
           iteration's recompute differs where the report says its doubt
           moves FLOPs between forward and backward only
           ("ambiguous_recompute": false: MFU is then taken as sure)
The process total must always equal the counter's total (else: error)."""
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "split_child.py")
PYTHON = "/usr/bin/python3"       # Debian's torch 1.13 (CPU)


# ---- generator ----

def gen_block(r, d):
    t = r.choice(["mlp", "mlp", "fork", "attn", "attn", "mha", "gram"])
    c = {"type": t, "ckpt": r.choice(["none", "none", "full", "nested"]),
         "reentrant": r.random() < 0.5}
    if t == "mlp":
        c["width"] = r.choice([24, 32, 40, 64, 96])
    elif t == "fork":
        w1 = r.choice([16, 20, 32, 48])
        c.update(w1=w1, w2=r.choice([w for w in (12, 24, 32, 40, 56) if w != w1]),
                 concat=r.random() < 0.5)
    elif t == "attn":
        h = r.choice([2, 4])
        c.update(heads=h, kv_heads=r.choice([k for k in (1, 2, 4) if h % k == 0]),
                 head_dim=r.choice([8, 12, 16, 20]), causal=r.random() < 0.5,
                 selective=r.random() < 0.3)
    elif t == "mha":
        h = r.choice([k for k in (1, 2, 4) if d % k == 0])
        c.update(heads=h, kdim=r.choice([12, 20, 28, 40]), vdim=r.choice([8, 16, 24, 36]),
                 memory=r.choice(["input", "proj"]), mem_len=r.choice([8, 10, 16]))
    return c


def gen_spec(seed):
    """A random program: training (one optimizer), GAN (two), or inference."""
    r = random.Random(seed)
    d = r.choice([16, 24, 32, 48, 64])
    kind = r.choices(["train", "gan", "infer"], [0.7, 0.2, 0.1])[0]
    first = {"type": "linear"}
    if r.random() < 0.3:
        w1 = r.choice([20, 32, 48])
        first = {"type": "fork", "w1": w1, "w2": r.choice([w for w in (16, 24, 32, 40) if w != w1]),
                 "concat": r.random() < 0.5}
    spec = {
        "seed": seed, "kind": kind, "B": r.choice([2, 3, 4, 6]), "S": r.choice([8, 12, 16]),
        "Din": r.choice([12, 20, 28, 40]), "D": d, "Dout": r.choice([8, 16, 24]),
        "first": first, "frozen_first": r.random() < 0.2, "static_input": r.random() < 0.35,
        "blocks": [gen_block(r, d) for _ in range(r.randint(1, 4))],
        "loss": "contrastive" if r.random() < 0.2 else "mse",
        "steps": r.randint(4, 6), "micro": 1 if r.random() < 0.7 else r.randint(2, 3),
        "eval_every": r.choice([0, 0, 1, 2]), "eval_B": r.choice([1, 2, 4]),
        "set_to_none": r.random() < 0.5,
    }
    if kind == "gan":
        spec.update(latent=r.choice([8, 16]), gan_concat=r.random() < 0.5, gan_regen=r.random() < 0.4,
                    gen_blocks=[gen_block(r, d) for _ in range(r.randint(1, 2))], micro=1, eval_every=0)
    if kind == "infer":
        spec.update(infer=r.choice(["square", "model"]), steps=r.randint(3, 6))
    for b in spec["blocks"]:
        if b["type"] == "attn" and b.get("selective") and b["ckpt"] != "none":
            b["selective"] = False    # selective inside a full checkpoint: keep it simple
    return spec


def describe(spec):
    """One line: what the program is."""
    parts = [spec["kind"], "first=%s" % spec["first"]["type"]]
    for b in spec["blocks"]:
        s = b["type"]
        if b["type"] == "attn":
            s += "(h%d kv%d hd%d%s)" % (b["heads"], b["kv_heads"], b["head_dim"], " sel" if b["selective"] else "")
        elif b["type"] == "mha":
            s += "(k%d v%d %s)" % (b["kdim"], b["vdim"], b["memory"])
        if b["ckpt"] != "none":
            s += "[%s%s]" % (b["ckpt"], " re" if b["reentrant"] else "")
        parts.append(s)
    for k in ("frozen_first", "static_input"):
        if spec[k]:
            parts.append(k)
    if spec["loss"] == "contrastive":
        parts.append("zzT")
    if spec["micro"] > 1:
        parts.append("accum%d" % spec["micro"])
    if spec["eval_every"]:
        parts.append("eval/%d" % spec["eval_every"])
    if spec["kind"] == "gan":
        parts.append("concat" if spec["gan_concat"] else "split")
        if spec["gan_regen"]:
            parts.append("regen")
    if spec["kind"] == "infer":
        parts.append(spec["infer"])
    return " ".join(parts)


# ---- one run ----

def run(shim, spec, mode, workdir, tag, extra_env=None):
    """Runs spec under the shim; returns (report, counted)."""
    os.makedirs(workdir, exist_ok=True)
    report = os.path.join(workdir, "%s.report.json" % tag)
    counted = os.path.join(workdir, "%s.counted.json" % tag)
    for f in (report, counted):
        if os.path.exists(f):
            os.unlink(f)
    env = dict(os.environ, LD_PRELOAD=shim, FLOPCOUNT_OUTPUT=report, FLOPCOUNT_QUIET="1",
               OMP_NUM_THREADS="1", NVTX_INJECTION64_PATH=shim.split(":")[-1])
    env.update(extra_env or {})
    p = subprocess.run([PYTHON, CHILD, json.dumps(spec), mode, counted], env=env,
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("child failed (%s): %s" % (tag, p.stderr[-3000:]))
    return load(report, counted)


def load(report, counted):
    """(report, counted): the shim's report and the program's own count."""
    with open(report) as f:
        rep = json.load(f)
    with open(counted) as f:
        cnt = json.load(f)
    return rep, cnt


class Server:
    """split_child.py --serve under the shim: one torch import, a fork per
    run (run_forked). Faster on a loaded machine; every run still has a
    process, a shim state and a report of its own."""

    def __init__(self, shim, workdir):
        os.makedirs(workdir, exist_ok=True)
        self.workdir = workdir
        env = dict(os.environ, LD_PRELOAD=shim, FLOPCOUNT_OUTPUT=os.path.join(workdir, "fork.%p.json"),
                   FLOPCOUNT_QUIET="1", OMP_NUM_THREADS="1", NVTX_INJECTION64_PATH=shim.split(":")[-1])
        self.p = subprocess.Popen([PYTHON, CHILD, "--serve"], env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)

    def run(self, spec, mode, tag):
        counted = os.path.join(self.workdir, "%s.counted.json" % tag)
        self.p.stdin.write(json.dumps({"spec": spec, "mode": mode, "out": counted}) + "\n")
        self.p.stdin.flush()
        reply = json.loads(self.p.stdout.readline())
        report = os.path.join(self.workdir, "fork.%d.json" % reply["pid"])
        if reply["status"] != 0:
            raise RuntimeError("forked child failed (%s): status %d" % (tag, reply["status"]))
        rep, cnt = load(report, counted)
        os.replace(report, os.path.join(self.workdir, "%s.report.json" % tag))
        return rep, cnt

    def close(self):
        self.p.stdin.close()
        self.p.wait()


# ---- what the report should say ----

PH = {"fwd": 0, "bwd": 1, "rec": 2}


def expected(counted, mode):
    """Iterations [fwd, bwd, rec], evaluation FLOPs, other FLOPs.

    auto: an iteration starts at each training-forward product on the first
    layer's weight (the first one at the first training product); evaluation
    products are in none. marked: an iteration ends at each step marker;
    products after the last are other."""
    its, cur, ev, other = [], None, 0, 0
    for kind, phase, flops, anchor, _ in counted["events"]:
        if kind == "step" and mode != "auto":
            if cur is not None:
                its.append(cur)
            cur = None
            continue
        if kind != "gemm":
            continue
        if phase == "eval":
            ev += flops
            continue
        if mode == "auto" and anchor and phase == "fwd" and cur is not None:
            its.append(cur)
            cur = None
        if cur is None:
            cur = [0, 0, 0]
        cur[PH[phase]] += flops
    if cur is not None:
        if mode == "auto":
            its.append(cur)
        else:
            other += sum(cur)
    return its, ev, other


def judge(counted, rep, mode):
    """(verdict, details); verdict is exact, flagged, wrong or error."""
    total = rep["totals"]["gemm_flops"]
    if total != counted["total"]:
        return "error", "total %d != counted %d" % (total, counted["total"])
    it = rep["iterations"]
    got = [[e["forward_flops"], e["backward_flops"], e["recompute_flops"]] for e in it["list"]]
    flags = [bool(e.get("ambiguous")) for e in it["list"]]
    section_flag = bool(it.get("ambiguous_iterations") or it.get("ambiguous_reasons")
                        or rep["eval_passes"].get("ambiguous"))
    want, ev, other = expected(counted, mode)
    problems, unflagged = [], False
    if it["flops"] + rep["eval_passes"]["flops"] + it["other_flops"] != total:
        problems.append("iterations + evaluation + other = %d, not the total %d" % (
            it["flops"] + rep["eval_passes"]["flops"] + it["other_flops"], total))
        unflagged = not section_flag
    if len(got) != len(want) or rep["eval_passes"]["flops"] != ev or it["other_flops"] != other:
        problems.append("iterations %d (want %d), eval %d (want %d), other %d (want %d)" % (
            len(got), len(want), rep["eval_passes"]["flops"], ev, it["other_flops"], other))
        unflagged |= not section_flag
    else:
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                rec_sure = flags[i] and not it["list"][i].get("ambiguous_recompute", True)
                problems.append("iteration %d: f/b/r %s want %s%s" % (
                    i + 1, g, w, (" (flagged, recompute said sure)" if rec_sure else " (flagged)")
                    if flags[i] else ""))
                unflagged |= not flags[i] or (rec_sure and g[2] != w[2])
    if not problems:
        needless = any(flags) or section_flag
        return "exact", "(exact, yet flagged)" if needless else ""
    return ("wrong" if unflagged else "flagged"), "; ".join(problems)


def figure(verdicts, needless=0):
    """The property test's figure; needless: exact runs the report flagged anyway."""
    n = len(verdicts)
    c = {k: sum(1 for v in verdicts if v == k) for k in ("exact", "flagged", "wrong", "error")}
    s = "%d graphs: %d exact, %d flagged, %d silently wrong" % (n, c["exact"], c["flagged"], c["wrong"])
    if needless:
        s += " (of the exact, %d flagged as unsure all the same)" % needless
    if c["error"]:
        s += ", %d totals off (errors)" % c["error"]
    return s
