# SPDX-License-Identifier: Apache-2.0
"""test_infer_merge.py SHIM CLI WORKDIR LAYOUT - the job's model from several
ranks' reports ('flopcount merge'), LAYOUT dp, pp or run.

The ranks are fixture_train.py processes started one after another with the
launcher's variables (RANK, LOCAL_RANK, WORLD_SIZE), each under the shim:
  dp  2 ranks training the same GPT (3 layers, B=2 each): data-parallel
      replicas; the job is that model with B = 2 x 2.
  pp  4 ranks, ranks 0-1 the first pipeline stage (layers 0-1, no logits),
      ranks 2-3 the second (layer 2 and the logits): 2 stages x 2 replicas;
      the job is a 3-layer model with B = 2 x 2.
  run the dp job under 'flopcount run' through a launcher (tests/procs/launch_ranks.py):
      the job report it writes is the ranks merged, and 'flopcount report' on it
      takes the job's model with no flag.
No gradient is exchanged (no GEMM would be); each rank's FLOPs are its own.
The merged model must be the job's, and its formula equal to 'flopcount
formula' with the job's flags and to the ranks' counted FLOPs summed.
"""
import json
import os
import shutil
import subprocess
import sys

PY = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))
# 6 steps: the model is read from the forward profile, which needs an
# iteration after the detector's first three (with 4, a flagged fourth one
# left it unread in 1 of ~50 runs under CI's load)
GPT = dict(layers=3, hidden=64, heads=4, vocab=96, seq=32, batch=2, steps=6)
JOB = dict(layers=3, hidden=64, heads=4, kv_heads=4, head_dim=16, ffn=256, swiglu=False, vocab=96,
           seq=32, batch=4, experts=0, recompute="none", causal_attention="full")


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def run_rank(shim, out_dir, rank, world, cfg):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMI_", "SLURM_"))}
    env.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world), LD_PRELOAD=shim,
               FLOPCOUNT_OUTPUT=os.path.join(out_dir, "rank%r.json"), FLOPCOUNT_QUIET="1",
               OMP_NUM_THREADS="1")
    p = subprocess.run([PY, os.path.join(HERE, "fixture_train.py"), json.dumps(cfg)], env=env,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        fail("rank %d: %s" % (rank, p.stderr[-2000:]))


def run_job(cli, work):
    """The dp job under 'flopcount run', ranks started by a launcher."""
    job = os.path.join(work, "run_job.json")
    launcher = os.path.join(HERE, "..", "procs", "launch_ranks.py")
    cmd = [cli, "run", "--quiet", "--output", job, "--", PY, launcher, "2", PY,
           os.path.join(HERE, "fixture_train.py"), json.dumps(GPT)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        fail("flopcount run: %s" % p.stderr[-2000:])
    r = subprocess.run([cli, "report", job, "--json", "--peak-tflops", "1"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail("report of the job: %s" % r.stderr)
    j = json.loads(r.stdout)
    flags = ["--layers", "3", "--hidden", "64", "--heads", "4", "--vocab", "96", "--seq", "32",
             "--batch", "4"]
    f = json.loads(subprocess.run([cli, "formula", "--json"] + flags, capture_output=True,
                                  text=True, check=True).stdout)
    rf = j["formula"]
    if rf is None or rf["model_from"] != "the ranks' GEMMs (merge)" or \
            rf["model_flops_per_iteration"] != f["model_flops_per_iteration"] or \
            j["difference"]["counted_is"] != "equal":
        fail("report of the job under flopcount run: %s %s" % (rf, j.get("difference")))
    print("ok: run: the job report of 2 ranks carries the job's model")


def main():
    shim, cli, work, layout = sys.argv[1:5]
    if layout == "run":
        return run_job(cli, work)
    out = os.path.join(work, "merge_" + layout)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    if layout == "dp":
        for r in range(2):
            run_rank(shim, out, r, 2, GPT)
    else:
        for r in range(4):
            stage = dict(GPT, layers=2, logits=False) if r < 2 else dict(GPT, layers=1)
            run_rank(shim, out, r, 4, stage)
    m = subprocess.run([cli, "merge", out, "--json", "--peak-tflops", "1"], capture_output=True, text=True)
    if m.returncode != 0:
        fail("merge: %s" % m.stderr)
    j = json.loads(m.stdout)
    im = j["inferred_model"]
    if im["state"] != "complete":
        fail("merged model: %s" % im)
    want_layout = ("data-parallel", 2, 1) if layout == "dp" else ("pipeline", 2, 2)
    if (im["layout"], im["data_parallel"], im["stages"]) != want_layout:
        fail("layout %s" % im)
    bad = {k: (im["model"].get(k), v) for k, v in JOB.items() if im["model"].get(k) != v}
    if bad:
        fail("merged model (got, want): %s" % bad)
    flags = ["--layers", "3", "--hidden", "64", "--heads", "4", "--vocab", "96", "--seq", "32",
             "--batch", "4"]
    f = json.loads(subprocess.run([cli, "formula", "--json"] + flags, capture_output=True,
                                  text=True, check=True).stdout)
    if im["formula_model_flops_per_iteration"] != f["model_flops_per_iteration"]:
        fail("merge formula %s, formula %s" % (im["formula_model_flops_per_iteration"],
                                               f["model_flops_per_iteration"]))
    # every step: the ranks' FLOPs summed, no recompute, equal to the formula
    steps = j["iterations"]["list"]
    if not im["fits"] or not steps or any(s["flops"] != f["model_flops_per_iteration"] or
                                          s["recompute_flops"] != 0 for s in steps):
        fail("steps %s vs formula %s (fits %s)" % (steps, f["model_flops_per_iteration"], im["fits"]))
    # the merged report read back: 'flopcount report' takes the job's model from it, no flag
    job = os.path.join(work, "merge_%s.json" % layout)
    with open(job, "w") as fh:
        fh.write(m.stdout)
    r = subprocess.run([cli, "report", job, "--json", "--peak-tflops", "1"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail("report of the merged job: %s" % r.stderr)
    rf = json.loads(r.stdout)["formula"]
    if rf is None or rf["model_from"] != "the ranks' GEMMs (merge)" or \
            rf["model_flops_per_iteration"] != f["model_flops_per_iteration"]:
        fail("report of the merged job: formula %s" % rf)
    text = subprocess.run([cli, "merge", out, "--peak-tflops", "1"], capture_output=True, text=True).stdout
    if "inferred model   l=3 h=64 a=4 kv=4 d=16 ffn=256 V=96 s=32 B=4" not in text:
        fail("merge text:\n" + text)
    print("ok: %s job model merged from the ranks' forwards" % layout)


if __name__ == "__main__":
    main()
