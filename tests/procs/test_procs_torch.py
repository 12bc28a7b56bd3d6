# SPDX-License-Identifier: Apache-2.0
"""test_procs_torch.py - one report per job with real PyTorch CPU training
(Debian's /usr/bin/python3 and torch): train.py behind wrappers, two
trainings in a row and at once, a fork child that trains (exiting normally,
or with os._exit as multiprocessing's children do), DataLoader
workers, two gloo DDP ranks started by a launcher, SIGTERM to flopcount
run. Every total is checked against train.py's hand formula
(4*B*IN*HID + 6*B*HID*OUT per step, 5 sgemm_ calls) and against the same
training run bare (one process, its own report).

usage: /usr/bin/python3 test_procs_torch.py SHIM_SO FLOPCOUNT_EXE WORKDIR DDP_TRAIN_PY
"""
import glob
import json
import os
import signal
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
TRAIN = os.path.join(HERE, "train.py")
LAUNCH = os.path.join(HERE, "launch_ranks.py")
IN, HID, OUT, B = 32, 64, 16, 8
SHIM = EXE = WORK = DDP = None


def per_step(b=B):
    return 4 * b * IN * HID + 6 * b * HID * OUT


def env(extra=None):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("FLOPCOUNT_", "LD_PRELOAD", "RANK", "WORLD_SIZE", "LOCAL_RANK"))
           or k == "FLOPCOUNT_CALLSITES"}  # the sanitizer builds' setting stays
    e.update(FLOPCOUNT_QUIET="1", OMP_NUM_THREADS="1", FLOPCOUNT_LIB=SHIM)
    e.update(extra or {})
    return e


def run(args, extra=None, timeout=300):
    p = subprocess.run(args, env=env(extra), capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise AssertionError(f"{args} exited {p.returncode}: {p.stderr[-2000:]}")
    return p


def direct(args, out):
    return run(args, {"LD_PRELOAD": SHIM, "FLOPCOUNT_OUTPUT": out})


def wrapped(args, out):
    return run([EXE, "run", "--quiet", "--output", out, "--", *args])


def load(path):
    with open(path) as f:
        return json.load(f)


def report_json(path):
    p = subprocess.run([EXE, "report", path, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"report {path}: {p.stderr}")
    return json.loads(p.stdout), p.stderr


def fresh(name):
    p = os.path.join(WORK, name)
    subprocess.run(["rm", "-rf", p, p + ".parts"] + glob.glob(p + ".parts-*"), check=True)
    return p


class Torch(unittest.TestCase):
    bare = None

    @classmethod
    def setUpClass(cls):
        out = fresh("bare.json")
        direct([PY, TRAIN], out)
        cls.bare = load(out)

    def check_bare(self, r, steps=6):
        t = r["totals"]
        self.assertEqual((t["gemm_calls"], t["gemm_flops"]), (5 * steps, steps * per_step()))

    def same_as_bare(self, r):
        """The job report of one training holds what its own report says."""
        b = self.bare
        for key in ("totals", "by_api", "by_dtype", "shapes"):
            self.assertEqual(r[key], b[key], key)
        self.assertEqual(r["iterations"]["count"], b["iterations"]["count"])
        self.assertEqual([i["flops"] for i in r["iterations"]["list"]],
                         [i["flops"] for i in b["iterations"]["list"]])
        self.assertEqual(r["iterations"]["detected_by"], "marker")

    def test_bare_is_the_hand_count(self):
        self.check_bare(self.bare)
        self.assertEqual(self.bare["iterations"]["count"], 6)
        self.assertTrue(all(i["flops"] == per_step() for i in self.bare["iterations"]["list"]))

    def test_behind_wrappers(self):
        script = os.path.join(WORK, "one.sh")
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\n{PY} {TRAIN}\necho done\n")
        os.chmod(script, 0o755)
        cases = {"timeout": ["timeout", "300", PY, TRAIN],
                 "bash": ["bash", "-c", f"{PY} {TRAIN}; true"],
                 "script": [script]}
        for name, args in cases.items():
            with self.subTest(wrapper=name, how="flopcount run"):
                out = fresh(f"w-{name}.json")
                wrapped(args, out)
                r = load(out)
                self.same_as_bare(r)
                trainers = [p for p in r["processes"] if p["iterations_used"]]
                self.assertEqual(len(trainers), 1)
                self.assertEqual(r["job"]["iterations_from"], [trainers[0]["pid"]])
            with self.subTest(wrapper=name, how="LD_PRELOAD"):
                out = fresh(f"d-{name}.json")
                direct(args, out)
                self.same_as_bare(load(out))
                self.assertFalse(os.path.exists(out + ".parts"))

    def test_two_trainings_in_a_row(self):
        script = os.path.join(WORK, "two.sh")
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\n{PY} {TRAIN} --steps 6\n{PY} {TRAIN} --steps 4\n")
        os.chmod(script, 0o755)
        out = fresh("row-run.json")
        wrapped([script], out)
        r = load(out)
        self.check_bare(r, steps=10)
        self.assertEqual(sorted(p["gemm_flops"] for p in r["processes"] if p["gemm_calls"]),
                         [4 * per_step(), 6 * per_step()])
        self.assertEqual(r["iterations"]["count"], 6)  # the larger training's
        out = fresh("row-direct.json")
        direct([script], out)
        r = load(out)  # the second training joined the run into FILE (the friction of issue 28)
        self.check_bare(r, steps=10)
        self.assertEqual(r["iterations"]["count"], 6)  # the larger training's
        r, note = report_json(out)
        self.assertEqual(r["totals"]["gemm_flops"], 10 * per_step())
        self.assertEqual(note, "")

    def test_two_at_once_same_output(self):
        out = fresh("once-direct.json")
        e = env({"LD_PRELOAD": SHIM, "FLOPCOUNT_OUTPUT": out})
        ps = [subprocess.Popen([PY, TRAIN], env=e) for _ in range(2)]
        self.assertEqual([p.wait(timeout=300) for p in ps], [0, 0])
        r, _ = report_json(out)
        self.assertEqual(r["totals"]["gemm_flops"], 12 * per_step())
        out = fresh("once-run.json")
        wrapped(["sh", "-c", f"{PY} {TRAIN} & {PY} {TRAIN} & wait"], out)
        self.check_bare(load(out), steps=12)

    def test_fork_child_and_dataloader_workers(self):
        args = [PY, TRAIN, "--fork-child", "2", "--dataloader"]
        out = fresh("fork-run.json")
        wrapped(args, out)
        r = load(out)
        self.check_bare(r, steps=8)
        gemm = [p for p in r["processes"] if p["gemm_calls"]]
        self.assertEqual(sorted((p["fork_child"], p["gemm_flops"]) for p in gemm),
                         [(False, 6 * per_step()), (True, 2 * per_step())])
        self.assertEqual(len(r["processes"]), 2)  # the workers ran no GEMM: not listed
        self.assertEqual([i["flops"] for i in r["iterations"]["list"]], [per_step()] * 6)
        out = fresh("fork-direct.json")
        direct(args, out)
        r = load(out)  # joined: the parent's report, the child's summed in
        self.check_bare(r, steps=8)
        self.assertEqual([i["flops"] for i in r["iterations"]["list"]], [per_step()] * 6)
        r, _ = report_json(out)
        self.assertEqual(r["totals"]["gemm_flops"], 8 * per_step())

    def test_multiprocessing_child_ends_with_os_exit(self):
        # multiprocessing's fork children end with os._exit: no exit code
        # runs; the shim's _exit writes the child's report first
        out = fresh("mp-run.json")
        wrapped([PY, TRAIN, "--mp-child", "3"], out)
        r = load(out)
        gemm = [p for p in r["processes"] if p["gemm_calls"]]
        self.assertEqual(sorted((p["fork_child"], p["status"], p["gemm_flops"]) for p in gemm),
                         [(False, "complete", 6 * per_step()), (True, "complete", 3 * per_step())])
        self.assertEqual(r["totals"]["gemm_flops"], 9 * per_step())
        self.assertEqual(r["totals"]["gemm_calls"], 9 * 5)

    def test_ddp_ranks_from_a_launcher(self):
        out = fresh("ddp.json")
        wrapped([PY, LAUNCH, "2", PY, DDP, "--steps", "5"], out)
        r = load(out)
        self.assertEqual(r["kind"], "merge")
        self.assertEqual(r["world_size"], 2)
        # ddp_train.py: 4*b*IN*HID + 6*b*HID*OUT per step with its own
        # defaults IN 32, HID 64, OUT 16, batch 8 (the same as train.py).
        self.assertEqual({x["rank"]: x["gemm_flops"] for x in r["merge"]["ranks"]},
                         {0: 5 * per_step(), 1: 5 * per_step()})
        self.assertEqual(r["totals"]["gemm_flops"], 10 * per_step())
        self.assertEqual(r["merge"]["missing_ranks"], [])
        self.assertEqual(sorted(p["rank"] for p in r["processes"] if p["gemm_calls"]), [0, 1])
        text = subprocess.run([EXE, "report", out], capture_output=True, text=True).stdout
        self.assertIn("merged report of 2 ranks", text)
        self.assertIn("processes", text)

    def test_sigterm_reaches_the_training(self):
        out = fresh("term.json")
        ready = os.path.join(WORK, "term.ready")
        if os.path.exists(ready):
            os.unlink(ready)
        w = subprocess.Popen([EXE, "run", "--quiet", "--output", out, "--", PY, TRAIN,
                              "--steps", "100000", "--sleep", "0.02", "--ready", ready], env=env())
        try:
            for _ in range(3000):
                if os.path.exists(ready) or w.poll() is not None:
                    break
                time.sleep(0.01)
            time.sleep(0.3)
            w.send_signal(signal.SIGTERM)
            w.wait(timeout=60)
        finally:
            if w.poll() is None:
                w.kill()
        self.assertEqual(w.returncode, 143)
        r = load(out)
        self.assertEqual(r["status"], "interrupted")
        self.assertEqual(r["job"]["forwarded_signal"], "SIGTERM")
        self.assertEqual(r["processes"][0]["ended"], "signal 15 (SIGTERM)")
        calls = r["totals"]["gemm_calls"]
        self.assertGreater(calls, 0)
        self.assertEqual(r["totals"]["gemm_flops"], calls // 5 * per_step())
        self.assertEqual(calls % 5, 0)


if __name__ == "__main__":
    SHIM, EXE, WORK, DDP = (os.path.abspath(a) for a in sys.argv[1:5])
    os.makedirs(WORK, exist_ok=True)
    unittest.main(argv=sys.argv[:1], verbosity=2)
