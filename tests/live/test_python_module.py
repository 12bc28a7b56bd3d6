# SPDX-License-Identifier: Apache-2.0
"""test_python_module.py - the Python module `flopcount` (python/flopcount)
on a real PyTorch (CPU) training run (train_child.py, FLOPs worked out there
by hand):

- flopcount.step()/flopcount.eval() give the same iterations, phases and
  evaluation passes as the ctypes markers, and the hand-computed values;
- snapshot() at the end equals the final JSON report, field by field;
- a snapshot after each step already counts that step (once the detector's
  first three segments are in);
- without the library (or with FLOPCOUNT_DISABLE=1) every function returns
  at once, calling nothing, and snapshot() says inactive;
- `flopcount run` puts the module on PYTHONPATH, in the build tree and in an
  installed prefix (`cmake --install`).

usage: /usr/bin/python3 test_python_module.py SHIM_SO FLOPCOUNT_EXE PYDIR CMAKE BUILD_DIR WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "train_child.py")
SHIM = EXE = PYDIR = CMAKE = BUILD = WORK = None

# train_child.py's model, by hand
FWD, BWD, REC = 917504, 1572864, 524288
PER_ITER = FWD + BWD + REC                     # 3,014,656
EVAL_PASS = 2 * 4 * (64 * 128 + 128 * 128 + 128 * 32)   # 229,376
STEPS, EVAL_EVERY = 7, 2
EVALS = len(range(0, STEPS, EVAL_EVERY))       # 4
assert PER_ITER == 3014656 and EVAL_PASS == 229376

# Seconds (and HFU/MFU, which divide by them) are read at two moments: the
# snapshot in the program, the report at exit. The shim turns cycle-counter
# ticks into seconds with a ratio it refines at every drain (core/clock.c),
# so the two can differ by a few parts per million: since the clock is
# calibrated at the first GEMM rather than at start-up, this run's baseline
# is a few tenths of a second, and CLOCK_MONOTONIC itself is slewed by NTP
# by up to that much. Everything else is exact.
REL_SECONDS = 2e-5


def base_env(extra=None):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("FLOPCOUNT_") or k in ("LD_PRELOAD", "RANK", "LOCAL_RANK", "WORLD_SIZE"):
            env.pop(k)
    env["PYTHONPATH"] = PYDIR
    env["OMP_NUM_THREADS"] = "1"
    env.update(extra or {})
    return env


def train(name, markers, extra_env=None):
    report = os.path.join(WORK, name + ".json")
    out = os.path.join(WORK, name + ".out.json")
    for f in (report, out):
        if os.path.exists(f):
            os.unlink(f)
    cfg = {"markers": markers, "steps": STEPS, "eval_every": EVAL_EVERY,
           "out": out if markers == "module" else None}
    env = base_env({"LD_PRELOAD": SHIM, "FLOPCOUNT_OUTPUT": report, "FLOPCOUNT_QUIET": "1"})
    env.update(extra_env or {})
    p = subprocess.run([sys.executable, CHILD, json.dumps(cfg)], env=env, capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        raise AssertionError("child failed: %s" % p.stderr[-3000:])
    with open(report) as f:
        rep = json.load(f)
    snaps = None
    if markers == "module":
        with open(out) as f:
            snaps = json.load(f)
    return rep, snaps, p


def lower_median(values):
    v = sorted(values)
    return v[(len(v) - 1) // 2]


class PythonModule(unittest.TestCase):
    def assertClose(self, a, b, rel=REL_SECONDS, msg=None):
        self.assertIsNotNone(a, msg)
        self.assertLessEqual(abs(a - b), rel * abs(b), "%r vs %r %s" % (a, b, msg or ""))

    def check_hand_values(self, rep):
        it = rep["iterations"]
        self.assertEqual(it["detected_by"], "marker")
        self.assertEqual(it["count"], STEPS)
        for e in it["list"]:
            self.assertEqual((e["flops"], e["forward_flops"], e["backward_flops"], e["recompute_flops"]),
                             (PER_ITER, FWD, BWD, REC), e)
        self.assertEqual(rep["eval_passes"]["count"], EVALS)
        self.assertEqual(rep["eval_passes"]["flops"], EVALS * EVAL_PASS)
        self.assertEqual(rep["totals"]["gemm_flops"], STEPS * PER_ITER + EVALS * EVAL_PASS)

    def test_module_markers_match_ctypes_markers(self):
        mod, _, _ = train("module", "module")
        ct, _, _ = train("ctypes", "ctypes")
        self.check_hand_values(mod)
        self.check_hand_values(ct)
        strip = lambda r: [(e["index"], e["flops"], e["forward_flops"], e["backward_flops"],
                            e["recompute_flops"], e["calls"]) for e in r["iterations"]["list"]]
        self.assertEqual(strip(mod), strip(ct))
        for k in ("count", "flops", "forward_flops", "backward_flops", "recompute_flops", "other_flops",
                  "detected_by"):
            self.assertEqual(mod["iterations"][k], ct["iterations"][k], k)
        self.assertEqual(mod["eval_passes"]["count"], ct["eval_passes"]["count"])
        self.assertEqual(mod["eval_passes"]["flops"], ct["eval_passes"]["flops"])
        self.assertEqual(mod["totals"], ct["totals"])

    def test_snapshot_equals_report(self):
        rep, snaps, p = train("snap", "module", {"RANK": "1", "LOCAL_RANK": "1", "WORLD_SIZE": "2"})
        self.check_hand_values(rep)
        s = snaps["final"]
        it, u, t = rep["iterations"], rep["utilization"], rep["totals"]
        self.assertTrue(s["active"])
        exact = {
            "gemm_calls": t["gemm_calls"], "gemm_flops": t["gemm_flops"],
            "failed_calls": t["failed_calls"], "invalid_calls": t["invalid_calls"],
            "iterations": it["count"], "detected_by": it["detected_by"],
            "steady_iterations": len(it["list"]) - 1,      # all but the first (no open end here)
            "eval_passes": rep["eval_passes"]["count"],
            "flops_per_iteration": u["hardware_flops_per_iteration"],
            "model_flops_per_iteration": u["model_flops_per_iteration"],
            "recompute_flops_per_iteration": REC,
            "recompute_flops": rep["recompute"]["flops"],
            "recompute_fraction": rep["recompute"]["fraction"],
            "peak_flops": u["peak_flops"], "peak_source": u["peak_source"], "peak_dtype": u["dtype"],
            "rank": rep["process"]["rank"], "local_rank": rep["process"]["local_rank"],
            "world_size": rep["process"]["world_size"],
        }
        for k, v in exact.items():
            self.assertEqual(s[k], v, k)
        self.assertEqual((s["rank"], s["local_rank"], s["world_size"]), (1, 1, 2))
        self.assertEqual(s["recompute_fraction"], REC / PER_ITER)
        self.assertEqual(s["flops_per_iteration"], PER_ITER)
        self.assertClose(s["median_iteration_seconds"], it["median_seconds"])
        self.assertClose(s["median_iteration_seconds"], lower_median([e["seconds"] for e in it["list"][1:]]))
        self.assertClose(s["last_iteration_seconds"], it["list"][-1]["seconds"])
        self.assertClose(s["hfu"], u["hfu"])
        self.assertClose(s["mfu"], u["mfu"])
        # HFU/MFU as defined: per-iteration FLOPs over peak x median seconds
        self.assertClose(s["hfu"], PER_ITER / (s["peak_flops"] * s["median_iteration_seconds"]), 1e-12)
        self.assertClose(s["mfu"], (PER_ITER - REC) / (s["peak_flops"] * s["median_iteration_seconds"]), 1e-12)
        # HFU at the dtype mix: every FLOP is fp32, so it is HFU to the bit -
        # in the report and in the snapshot - and the one dtype has it all
        self.assertEqual(u["hfu_mix"], u["hfu"])
        self.assertEqual(s["hfu_mix"], s["hfu"])
        self.assertIsNone(s["hfu_mix_reason"])
        self.assertEqual(s["flops_share_by_dtype"], {"fp32": 1.0})
        self.assertEqual(s["peak_flops_by_dtype"], {"fp32": s["peak_flops"]})
        self.assertEqual(it["flops_by_dtype"], {"fp32": STEPS * PER_ITER})
        self.assertEqual([(x["dtype"], x["share"], x["peak_flops"]) for x in u["mix"]],
                         [("fp32", 1, u["peak_flops"])])
        # the README's example line, printed by the child beside its loss
        self.assertRegex(p.stdout, r"step %d loss \d+\.\d+ HFU \d+\.\d+%% MFU \d+\.\d+%%" % (STEPS - 1))

    def test_snapshot_after_each_step(self):
        _, snaps, _ = train("steps", "module")
        got = [s["iterations"] for s in snaps["per_step"]]
        # A marker ends its segment, so the snapshot right after step() counts
        # that step - once the detector has its first three segments (it
        # learns weights from them before labelling any).
        self.assertEqual(got, [0, 0] + list(range(3, STEPS + 1)))
        for i, s in enumerate(snaps["per_step"]):
            self.assertEqual(s["gemm_flops"], (i + 1) * PER_ITER + len(range(0, i, EVAL_EVERY)) * EVAL_PASS)
            if i >= 3:  # two steady iterations or more: medians, HFU, last time
                self.assertEqual(s["flops_per_iteration"], PER_ITER)
                self.assertEqual(s["steady_iterations"], i)
                self.assertGreater(s["hfu"], 0)
                self.assertGreater(s["last_iteration_seconds"], 0)
            if i >= 2:  # the evaluation passes before this step are in
                self.assertEqual(s["eval_passes"], len(range(0, i, EVAL_EVERY)))

    INACTIVE = r'''
import sys
import flopcount
assert "torch" not in sys.modules
out = {"file": flopcount.__file__, "active": flopcount.active(), "snapshot": flopcount.snapshot(),
       "version": flopcount.version(), "write_report": flopcount.write_report()}
events = []
def prof(frame, event, arg):
    events.append((event, getattr(arg, "__name__", None) if event.startswith("c_") else frame.f_code.co_name))
sys.setprofile(prof)
for _ in range(3):
    flopcount.step()
    with flopcount.eval():
        pass
    flopcount.snapshot()
    flopcount.active()
sys.setprofile(None)
out["events"] = sorted(set(e for e in events if e[0] in ("call", "c_call")))
import json
print(json.dumps(out))
'''

    def run_inactive(self, env):
        p = subprocess.run([sys.executable, "-c", self.INACTIVE], env=env, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout.strip().splitlines()[-1])

    def test_without_the_library(self):
        out = self.run_inactive(base_env())
        self.assertEqual(out["file"], os.path.join(PYDIR, "flopcount", "__init__.py"))
        self.assertFalse(out["active"])
        self.assertEqual(out["snapshot"], {"active": False})
        self.assertIsNone(out["version"])
        self.assertFalse(out["write_report"])
        # Returning at once: the calls reach no C function (no ctypes call
        # into a library) and no Python function but the module's own no-ops.
        self.assertEqual([e for e in out["events"] if e[0] == "c_call"], [["c_call", "setprofile"]])
        self.assertEqual(sorted(n for ev, n in out["events"] if ev == "call"),
                         ["__enter__", "__exit__", "_noop", "active", "eval", "snapshot"])

    def test_disabled_library_is_inactive(self):
        out = self.run_inactive(base_env({"LD_PRELOAD": SHIM, "FLOPCOUNT_DISABLE": "1"}))
        self.assertFalse(out["active"])
        self.assertEqual(out["snapshot"], {"active": False})
        self.assertEqual(out["version"], "0.1.0")

    PROBE = ("import flopcount, os; print(flopcount.__file__); print(flopcount.active()); "
             "print(os.environ['PYTHONPATH'])")

    def run_probe(self, exe, env):
        p = subprocess.run([exe, "run", "--quiet", "--output", os.path.join(WORK, "probe.json"), "--",
                            sys.executable, "-c", self.PROBE], env=env, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.split("\n")

    def test_flopcount_run_puts_the_module_on_pythonpath(self):
        env = base_env()
        env["PYTHONPATH"] = "/nonexistent-before"
        file_, active, path, _ = self.run_probe(EXE, env)
        self.assertEqual(file_, os.path.join(os.path.realpath(PYDIR), "flopcount", "__init__.py"))
        self.assertEqual(active, "True")
        self.assertEqual(path, os.path.realpath(PYDIR) + ":/nonexistent-before")

    def test_installed_prefix(self):
        prefix = os.path.join(WORK, "prefix")
        shutil.rmtree(prefix, ignore_errors=True)
        p = subprocess.run([CMAKE, "--install", BUILD, "--prefix", prefix], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        env = base_env()
        env.pop("PYTHONPATH")
        file_, active, path, _ = self.run_probe(os.path.join(prefix, "bin", "flopcount"), env)
        self.assertEqual(file_, os.path.join(prefix, "lib", "flopcount", "python", "flopcount", "__init__.py"))
        self.assertEqual(active, "True")
        self.assertEqual(path, os.path.join(prefix, "lib", "flopcount", "python"))

    def test_readme_example(self):
        """scripts/demo/log_hfu.py under `flopcount run`: HFU/MFU beside the
        loss from the third step on, and the report's iterations by hand:
        256 -> 1024 -> 256, batch 64, an evaluation pass on 256 rows after
        steps 3, 7 and 11, no checkpointing:
          forward  2*64*(256*1024 + 1024*256)            =  67,108,864
          backward 2 x forward less l1's input gradient  = 100,663,296
          eval     2*256*(256*1024 + 1024*256)           = 268,435,456 each."""
        report = os.path.join(WORK, "log_hfu.json")
        p = subprocess.run([EXE, "run", "--quiet", "--output", report, "--", sys.executable,
                            os.path.join(HERE, "..", "..", "scripts", "demo", "log_hfu.py")],
                           env=base_env(), capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines), 12)
        for i, line in enumerate(lines):
            if i < 2:
                self.assertRegex(line, r"^step %d loss \d+\.\d+$" % i)
            else:
                self.assertRegex(line, r"^step %d loss \d+\.\d+ HFU \d+\.\d%% MFU \d+\.\d%% "
                                       r"\(\d+\.\d ms/iteration\)$" % i)
        with open(report) as f:
            rep = json.load(f)
        it = rep["iterations"]
        self.assertEqual((it["count"], it["detected_by"]), (12, "marker"))
        for e in it["list"]:
            self.assertEqual((e["forward_flops"], e["backward_flops"], e["recompute_flops"]),
                             (67108864, 100663296, 0), e)
        self.assertEqual((rep["eval_passes"]["count"], rep["eval_passes"]["flops"]), (3, 3 * 268435456))


if __name__ == "__main__":
    SHIM, EXE, PYDIR, CMAKE, BUILD, WORK = sys.argv[1:7]
    os.makedirs(WORK, exist_ok=True)
    unittest.main(argv=[sys.argv[0]])
