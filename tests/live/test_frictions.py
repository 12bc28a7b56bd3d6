# SPDX-License-Identifier: Apache-2.0
"""test_frictions.py - what a new user met first (issue 28), one test each:

- `flopcount run --prometheus DIR` / `--tensorboard DIR` with a DIR that does
  not exist: it is made (mkdir -p); one that cannot be made is one line with
  the path and the reason, and exit 2 before anything runs;
- the live line's rate takes the prefix that fits it (a CPU job's MFLOP/s or
  GFLOP/s, never "0.00 TFLOP/s"), the figure that of the report's iteration;
- two trainings in a row under plain LD_PRELOAD and one FLOPCOUNT_OUTPUT:
  FILE itself, read with json.load as people read it, has the totals of
  both once both have ended, and parses at every moment of the run;
- a training SIGKILLed between two others leaves FILE valid at once, and
  the last one's join counts its last snapshot; a join interrupted between
  keeping the first writer's report and replacing FILE counts nobody twice.

fixture_gemm_loop (tests/live) by hand: 6 sgemm_ calls of 2*16^3 = 8,192
FLOPs per step, 49,152 FLOPs a step.

usage: /usr/bin/python3 test_frictions.py PRELOAD FLOPCOUNT_EXE GEMM_LOOP WORKDIR
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import unittest

PRELOAD = EXE = LOOP = WORK = None
STEP_FLOPS, STEP_CALLS = 6 * 2 * 16 ** 3, 6


def env(extra=None):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("FLOPCOUNT_", "LD_PRELOAD", "RANK", "WORLD_SIZE", "LOCAL_RANK"))
         or k == "FLOPCOUNT_CALLSITES"}
    e["FLOPCOUNT_QUIET"] = "1"
    e.update(extra or {})
    return e


def fresh(name):
    p = os.path.join(WORK, name)
    shutil.rmtree(p, ignore_errors=True)
    os.makedirs(p)
    return p


def totals_as_people_read_them(path):
    """What `python3 -c 'json.load(...)["totals"]'` on FILE says."""
    p = subprocess.run([sys.executable, "-c", "import json, sys; "
                        "print(json.dumps(json.load(open(sys.argv[1]))['totals']))", path],
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def run_cli(args, extra=None):
    """flopcount run (a sanitizer runtime stays first in LD_PRELOAD)."""
    e = env(extra)
    rt = PRELOAD.split(":")[0] if ":" in PRELOAD else None
    if rt:
        e["LD_PRELOAD"] = rt
    e["FLOPCOUNT_LIB"] = PRELOAD.split(":")[-1]
    return subprocess.run([EXE, "run", *args], env=e, capture_output=True, text=True, timeout=120)


class Directories(unittest.TestCase):
    def test_missing_directories_are_made(self):
        work = fresh("dirs")
        prom, tb = os.path.join(work, "prom", "x", "y"), os.path.join(work, "tb", "a", "b")
        p = run_cli(["--quiet", "--output", os.path.join(work, "r.json"), "--prometheus", prom,
                     "--tensorboard", tb, "--", LOOP, "4", "/"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        self.assertTrue(any(f.endswith(".prom") for f in os.listdir(prom)))
        (folder,) = os.listdir(tb)
        self.assertTrue(folder.startswith("pid"))
        self.assertTrue(os.listdir(os.path.join(tb, folder))[0].startswith("events.out.tfevents."))

    def test_a_directory_that_cannot_be_made_says_why(self):
        work = fresh("dirs-bad")
        blocker = os.path.join(work, "plain-file")
        open(blocker, "w").close()
        for flag in ("--prometheus", "--tensorboard"):
            with self.subTest(flag=flag):
                bad = os.path.join(blocker, "sub", "dir")
                p = run_cli([flag, bad, "--", "/bin/true"])
                self.assertEqual(p.returncode, 2)
                self.assertEqual(p.stderr, f"flopcount run: {flag} {bad}: cannot create the "
                                           f"directory ({blocker}: Not a directory)\n")
                self.assertEqual(os.listdir(work), ["plain-file"])  # nothing ran, nothing written
        for flag in ("--prometheus", "--tensorboard"):  # an unset shell variable
            with self.subTest(flag=flag, value=""):
                p = run_cli([flag, "", "--", "/bin/true"])
                self.assertEqual((p.returncode, p.stderr),
                                 (2, f"flopcount run: {flag}: the directory is empty; name one\n"))


class LiveLine(unittest.TestCase):
    UNITS = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}

    def test_rate_unit_fits_the_rate(self):
        work = fresh("live")
        out = os.path.join(work, "r.json")
        p = subprocess.run([LOOP, "6", "/"], capture_output=True, text=True, timeout=120,
                           env=env({"LD_PRELOAD": PRELOAD, "FLOPCOUNT_OUTPUT": out,
                                    "FLOPCOUNT_LOG_EVERY": "1", "FLOPCOUNT_PEAK_TFLOPS": "1"}))
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = re.findall(r"^flopcount: step (\d+) \S+ s (\d+(?:\.\d+)?) ([kMGTP]?)FLOP/s ", p.stderr,
                           re.M)
        self.assertEqual([int(s) for s, _, _ in lines], list(range(1, 7)), p.stderr)
        self.assertNotIn("0.00 TFLOP/s", p.stderr)
        with open(out) as f:
            its = {i["index"]: i for i in json.load(f)["iterations"]["list"]}
        for step, value, prefix in lines:
            it = its[int(step)]
            rate = it["flops"] / it["seconds"]
            with self.subTest(step=step, rate=rate):
                self.assertEqual(it["flops"], STEP_FLOPS)
                shown = float(value) * self.UNITS[prefix]
                self.assertTrue(1 <= float(value) < 1000, value)  # the prefix that fits
                self.assertAlmostEqual(shown / rate, 1, delta=0.01)  # three digits, and the clock


    def test_small_utilization_keeps_its_digits(self):
        # a CPU loop against a 1 TFLOP/s peak: HFU ~ 5e-4 %. Printed with
        # three significant digits (as HFU at the dtype mix beside it), never
        # "HFU 0.0%", in the live lines and the summary; the figure is the
        # report's iteration's flops / (1e12 x seconds), flops by hand
        work = fresh("small")
        out = os.path.join(work, "r.json")
        p = subprocess.run([LOOP, "6", "/"], capture_output=True, text=True, timeout=120,
                           env=env({"LD_PRELOAD": PRELOAD, "FLOPCOUNT_OUTPUT": out, "FLOPCOUNT_QUIET": "0",
                                    "FLOPCOUNT_LOG_EVERY": "1", "FLOPCOUNT_PEAK_TFLOPS": "1"}))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotRegex(p.stderr, r"[HM]FU 0\.0%")
        lines = re.findall(r"^flopcount: step (\d+) \S+ s \S+ \S+/s HFU (\S+)% MFU (\S+)% ",
                           p.stderr, re.M)
        self.assertEqual([int(s) for s, _, _ in lines], list(range(1, 7)), p.stderr)
        with open(out) as f:
            r = json.load(f)
        its = {i["index"]: i for i in r["iterations"]["list"]}
        for step, hfu, mfu in lines:
            it = its[int(step)]
            with self.subTest(step=step):
                self.assertEqual(it["flops"], STEP_FLOPS)
                want = 100 * STEP_FLOPS / (1e12 * it["seconds"])
                self.assertLess(want, 0.1)
                self.assertEqual(hfu, mfu)  # nothing recomputed
                self.assertAlmostEqual(float(hfu) / want, 1, delta=0.01)  # 3 digits, and the clock
        m = re.search(r"^flopcount: HFU (\S+)% MFU (\S+)% of 1 TFLOP/s", p.stderr, re.M)
        self.assertIsNotNone(m, p.stderr)
        self.assertAlmostEqual(float(m.group(1)) / (100 * r["utilization"]["hfu"]), 1, delta=0.01)


class SharedOutput(unittest.TestCase):
    def test_two_trainings_in_a_row_fill_the_file(self):
        work = fresh("row")
        out = os.path.join(work, "job.json")
        seen, stop = [], threading.Event()

        def watch():  # FILE must parse whenever it is there
            while not stop.is_set():
                try:
                    with open(out) as f:
                        seen.append(json.load(f)["totals"]["gemm_flops"])
                except FileNotFoundError:
                    pass
                time.sleep(0.002)
        t = threading.Thread(target=watch)
        t.start()
        try:
            p = subprocess.run(["bash", "-c", f"{LOOP} 4 /; {LOOP} 6 /; true"], timeout=120,
                               env=env({"LD_PRELOAD": PRELOAD, "FLOPCOUNT_OUTPUT": out}))
        finally:
            stop.set()
            t.join()
        self.assertEqual(p.returncode, 0)
        t = totals_as_people_read_them(out)
        self.assertEqual((t["gemm_calls"], t["gemm_flops"]), (10 * STEP_CALLS, 10 * STEP_FLOPS))
        self.assertEqual(t["processes"], 2)
        self.assertTrue(seen)
        self.assertTrue(set(seen) <= {4 * STEP_FLOPS, 10 * STEP_FLOPS}, set(seen))
        with open(out) as f:
            r = json.load(f)
        self.assertEqual(r["iterations"]["count"], 6)  # the larger training's iterations
        self.assertEqual(sorted(x["gemm_flops"] for x in r["processes"]), [4 * STEP_FLOPS, 6 * STEP_FLOPS])

    def test_sigkill_between_two_writers(self):
        work = fresh("kill")
        out, pidfile = os.path.join(work, "job.json"), os.path.join(work, "b.pid")
        go = os.path.join(work, "go")
        # A trains 3 steps and ends; B trains 5, then waits (snapshots every
        # 0.1 s) until it is killed; C trains 2 steps once B is gone and FILE
        # has been read.
        script = (f"{LOOP} 3 /; FLOPCOUNT_SNAPSHOT_SECONDS=0.1 {LOOP} 5 {work}/never & "
                  f"echo $! > {pidfile}; wait; while [ ! -e {go} ]; do sleep 0.02; done; "
                  f"{LOOP} 2 /; true")
        sh = subprocess.Popen(["bash", "-c", script],
                              env=env({"LD_PRELOAD": PRELOAD, "FLOPCOUNT_OUTPUT": out}))
        try:
            deadline = time.monotonic() + 60
            b = None
            while time.monotonic() < deadline:  # B's snapshot with its 5 steps in the parts
                if b is None and os.path.exists(pidfile):
                    with open(pidfile) as f:
                        b = int(f.read().strip() or 0) or None
                if b is not None and self.part_of(out, b, 5 * STEP_FLOPS):
                    break
                time.sleep(0.05)
            self.assertIsNotNone(b)
            os.kill(b, signal.SIGKILL)
            mid = totals_as_people_read_them(out)  # valid at once: A's report
            self.assertEqual(mid["gemm_flops"], 3 * STEP_FLOPS)
            open(go, "w").close()
            self.assertEqual(sh.wait(timeout=60), 0)
        finally:
            if sh.poll() is None:
                sh.kill()
        t = totals_as_people_read_them(out)  # C joined A, B's last snapshot and itself
        self.assertEqual(t["gemm_flops"], 10 * STEP_FLOPS)
        with open(out) as f:
            r = json.load(f)
        self.assertEqual(r["status"], "incomplete")
        self.assertEqual(sorted(p["status"] for p in r["processes"]), ["complete", "complete", "running"])

    @staticmethod
    def part_of(out, pid, flops):
        d = out + ".parts"
        for name in os.listdir(d) if os.path.isdir(d) else []:
            if name.startswith(f"{pid}-") and name.endswith(".json"):
                try:
                    with open(os.path.join(d, name)) as f:
                        return json.load(f)["totals"]["gemm_flops"] == flops
                except (OSError, ValueError):
                    return False
        return False

    def test_join_cut_short_counts_nobody_twice(self):
        work = fresh("cut")
        out = os.path.join(work, "job.json")
        subprocess.run(["bash", "-c", f"{LOOP} 4 /; {LOOP} 6 /; true"], timeout=120, check=True,
                       env=env({"LD_PRELOAD": PRELOAD, "FLOPCOUNT_OUTPUT": out}))
        parts = sorted(os.listdir(out + ".parts"))
        self.assertEqual(len(parts), 2)
        # the state a join leaves when killed after keeping the first
        # writer's report in the parts and before replacing FILE
        first = min(parts, key=lambda n: int(n.split("-")[1].split(".")[0]))
        shutil.copy(os.path.join(out + ".parts", first), out)
        self.assertEqual(totals_as_people_read_them(out)["gemm_flops"], 4 * STEP_FLOPS)
        p = subprocess.run([EXE, "report", out, "--json"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        r = json.loads(p.stdout)
        self.assertEqual(r["totals"]["gemm_flops"], 10 * STEP_FLOPS)
        self.assertEqual(len(r["processes"]), 2)


if __name__ == "__main__":
    PRELOAD = sys.argv[1]
    EXE, LOOP, WORK = (os.path.abspath(a) for a in sys.argv[2:5])
    os.makedirs(WORK, exist_ok=True)
    unittest.main(argv=sys.argv[:1], verbosity=2)
