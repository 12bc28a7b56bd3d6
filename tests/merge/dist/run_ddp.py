# SPDX-License-Identifier: Apache-2.0
"""run_ddp.py WORLD SHIM FLOPCOUNT WORKDIR [--batch-last N]

Starts WORLD ranks of ddp_train.py the way torchrun does (RANK, LOCAL_RANK,
WORLD_SIZE, MASTER_ADDR=127.0.0.1, MASTER_PORT on a free port; Debian's
torchrun itself is broken on Python 3.11), each under the shim writing
WORKDIR/ddpWORLD/rank%r.json; checks every rank's FLOPs against the hand
formula of ddp_train.py, then 'flopcount merge' on the directory.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"  # Debian's interpreter: the one with torch
IN, HID, OUT, BATCH, STEPS = 32, 64, 16, 8, 5


def per_step(b):
    """GEMM FLOPs of one step with batch b (derivation in ddp_train.py)."""
    return 4 * b * IN * HID + 6 * b * HID * OUT


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def launch(world, shim, out_dir, batch_last):
    port = str(free_port())
    procs = []
    for r in range(world):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("OMPI_", "PMI_", "SLURM_"))}
        env.update(RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(world),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=port, LD_PRELOAD=shim,
                   FLOPCOUNT_OUTPUT=os.path.join(out_dir, "rank%r.json"), FLOPCOUNT_QUIET="1",
                   OMP_NUM_THREADS="1")
        cmd = [PY, os.path.join(HERE, "ddp_train.py"), "--in-features", str(IN), "--hidden",
               str(HID), "--out-features", str(OUT), "--batch", str(BATCH), "--steps", str(STEPS),
               "--batch-last", str(batch_last)]
        procs.append(subprocess.Popen(cmd, env=env))
    try:
        codes = [p.wait(timeout=150) for p in procs]
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        fail("ranks did not finish in 150 s")
    if any(codes):
        fail(f"rank exit codes {codes}")


def check_rank(path, r, world, b):
    rep = json.load(open(path))
    pr = rep["process"]
    if (pr["rank"], pr["local_rank"], pr["world_size"], pr["launcher"]) != (r, r, world, "torchrun"):
        fail(f"{path}: process {pr}")
    want = STEPS * per_step(b)
    t = rep["totals"]
    if t["gemm_flops"] != want or t["gemm_calls"] != 5 * STEPS or t["failed_calls"] != 0:
        fail(f"{path}: totals {t}, want {want} FLOPs in {5 * STEPS} calls")
    # Per shape: m*n*k is b*IN*HID (layer 1 forward, its weight gradient)
    # or b*HID*OUT (layer 2 forward, data and weight gradients).
    calls = {}
    for s in rep["shapes"]:
        calls[s["m"] * s["n"] * s["k"]] = calls.get(s["m"] * s["n"] * s["k"], 0) + s["calls"]
    if calls != {b * IN * HID: 2 * STEPS, b * HID * OUT: 3 * STEPS}:
        fail(f"{path}: calls by m*n*k {calls}")
    it = rep.get("iterations")
    if it and it.get("list"):  # markers end each step: every step is exact
        bad = [x for x in it["list"] if x["flops"] != per_step(b)]
        if bad:
            fail(f"{path}: iterations with FLOPs other than {per_step(b)}: {bad[:3]}")
    return rep


def check_merge(cli, out_dir, world, batches, reports):
    out = subprocess.run([cli, "merge", out_dir, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"merge exit {out.returncode}: {out.stderr}")
    m = json.loads(out.stdout)
    want = sum(STEPS * per_step(b) for b in batches)
    if m["world_size"] != world or m["totals"]["gemm_flops"] != want:
        fail(f"merge: world {m['world_size']}, FLOPs {m['totals']['gemm_flops']}, want {want}")
    mg = m["merge"]
    if mg["missing_ranks"] or mg["duplicate_reports"] or mg["ranks_merged"] != world:
        fail(f"merge: ranks {mg['ranks_merged']}, missing {mg['missing_ranks']}")
    if m["process"]["launcher"] != "torchrun":
        fail(f"merge: launcher {m['process']['launcher']}")
    groups = [g["ranks"] for g in mg["flops_consistency"]["groups"]]
    want_groups = [list(range(world))] if len(set(batches)) == 1 else \
        [list(range(world - 1)), [world - 1]]
    if groups != want_groups:
        fail(f"merge: FLOP groups {groups}, want {want_groups}")
    has_iter = all(r.get("iterations", {}).get("list") for r in reports)
    if has_iter:
        steps = m["iterations"]["list"]
        if not steps or any(s["flops"] != sum(per_step(b) for b in batches) for s in steps):
            fail(f"merge: aligned steps {steps[:3]}")
        # 'flopcount report' reads the merged report: the job's step, summed.
        path = os.path.join(os.path.dirname(out_dir), f"merged{world}.json")
        with open(path, "w") as f:
            f.write(out.stdout)
        rep = subprocess.run([cli, "report", path, "--json"], capture_output=True, text=True)
        got = json.loads(rep.stdout)["measured"] if rep.returncode == 0 else rep.stderr
        if got["flops_per_iteration"] != sum(per_step(b) for b in batches) or got["gpus"] != world:
            fail(f"report on the merged report: {got}")
    text = subprocess.run([cli, "merge", out_dir], capture_output=True, text=True).stdout
    words = "aligned across" if has_iter else "no iterations found"
    if words not in text:
        fail(f"merge text lacks '{words}':\n{text}")
    return m


def main():
    p = argparse.ArgumentParser()
    p.add_argument("world", type=int)
    p.add_argument("shim")
    p.add_argument("cli")
    p.add_argument("workdir")
    p.add_argument("--batch-last", type=int, default=0)
    a = p.parse_args()
    out_dir = os.path.join(a.workdir, f"ddp{a.world}")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    launch(a.world, a.shim, out_dir, a.batch_last)
    names = sorted(os.listdir(out_dir))
    if names != sorted(f"rank{r}.json" for r in range(a.world)):
        fail(f"reports written: {names}")
    batches = [BATCH] * a.world
    if a.batch_last:
        batches[-1] = a.batch_last
    reports = [check_rank(os.path.join(out_dir, f"rank{r}.json"), r, a.world, batches[r])
               for r in range(a.world)]
    check_merge(a.cli, out_dir, a.world, batches, reports)
    print(f"ok: {a.world} ranks, per-rank FLOPs {[STEPS * per_step(b) for b in batches]}")


if __name__ == "__main__":
    main()
