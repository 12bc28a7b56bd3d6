# SPDX-License-Identifier: Apache-2.0
"""test_tensorboard.py - FLOPCOUNT_TENSORBOARD's event files read back by an
independent reader: protoc (Debian's protobuf-compiler) compiles event.proto,
written here from TensorFlow's public field numbers; python3-protobuf parses
every record; every length and data CRC is checked with a bitwise CRC32C
written here (itself checked against the standard check value). The scalars
must be the JSON report's figures of the same iteration: the FLOP ratios
exactly (as float32), the time-based ones to the clock's refinement (the
tick-to-second ratio is refined after every drain; the report's list is
computed with the final ratio), and against the FLOPs worked out by hand
from fixture_tb_loop.c's shapes. A process killed by SIGKILL leaves a file
that reads to its last record.

usage: /usr/bin/python3 test_tensorboard.py PRELOAD FIXTURE PROTO WORKDIR [FLOPCOUNT_EXE TINY_GPT]
       (PRELOAD: the shim, after its sanitizer runtime in a sanitizer build;
       with FLOPCOUNT_EXE and TINY_GPT, also the PyTorch case: formula MFU)
"""
import glob
import importlib
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
import unittest

PRELOAD = FIXTURE = PROTO = WORK = EXE = TINY_GPT = None
pb = None

# fixture_tb_loop.c by hand: 8,192 FLOPs a GEMM, 7 GEMMs an iteration, 1 of them recompute
GEMM = 2 * 16 ** 3
PER_ITER, REC = 7 * GEMM, GEMM
EVAL_PASS = 2 * GEMM
PEAK = 1e12                      # FLOPCOUNT_PEAK_TFLOPS=1
REL_SECONDS = 1e-5               # the clock's refinement between a tick and the report
TAGS = {"flopcount/hfu", "flopcount/mfu", "flopcount/tflops", "flopcount/iteration_seconds",
        "flopcount/recompute_fraction", "flopcount/eval_passes"}


def crc32c(data):
    """CRC32C (Castagnoli), bit by bit: independent of any table."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def read_events(path):
    """Every record of an event file, CRCs checked: (events, trailing bytes)."""
    with open(path, "rb") as f:
        data = f.read()
    events, o = [], 0
    while len(data) - o >= 12:
        head = data[o:o + 8]
        (n,) = struct.unpack("<Q", head)
        (hcrc,) = struct.unpack("<I", data[o + 8:o + 12])
        if masked(crc32c(head)) != hcrc:
            raise AssertionError(f"{path}: length CRC wrong at byte {o}")
        if len(data) - o < 12 + n + 4:
            break  # a record not written in full
        body = data[o + 12:o + 12 + n]
        (dcrc,) = struct.unpack("<I", data[o + 12 + n:o + 16 + n])
        if masked(crc32c(body)) != dcrc:
            raise AssertionError(f"{path}: data CRC wrong at byte {o}")
        e = pb.Event()
        e.ParseFromString(body)
        events.append(e)
        o += 16 + n
    return events, len(data) - o


def scalars(e):
    return {v.tag: v.simple_value for v in e.summary.value}


def env(extra):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("FLOPCOUNT_", "LD_PRELOAD", "RANK", "WORLD_SIZE", "LOCAL_RANK"))
         or k == "FLOPCOUNT_CALLSITES"}
    e.update({"LD_PRELOAD": PRELOAD, "FLOPCOUNT_QUIET": "1", "FLOPCOUNT_PEAK_TFLOPS": "1"})
    e.update(extra)
    return e


def fresh(name):
    p = os.path.join(WORK, name)
    shutil.rmtree(p, ignore_errors=True)
    os.makedirs(p)
    return p


class Events(unittest.TestCase):
    def run_fixture(self, work, steps, eval_every, extra=None, tb=None, mode=()):
        tb = tb or os.path.join(work, "tb", "a", "b")  # made by the library: mkdir -p
        out = os.path.join(work, "report.json")
        go = os.path.join(work, "go")
        open(go, "w").close()
        p = subprocess.run([FIXTURE, str(steps), str(eval_every), go, *mode], capture_output=True,
                           text=True, timeout=120,
                           env=env({"FLOPCOUNT_TENSORBOARD": tb, "FLOPCOUNT_OUTPUT": out, **(extra or {})}))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            return tb, json.load(f), p

    def one_file(self, folder):
        files = glob.glob(os.path.join(folder, "events.out.tfevents.*"))
        self.assertEqual(len(files), 1, files)
        name = os.path.basename(files[0])
        self.assertRegex(name, r"^events\.out\.tfevents\.\d+\.[^.]+(\.[^.]+)*\.\d+\.flopcount$")
        return files[0]

    def test_crc32c_is_the_standard_one(self):
        self.assertEqual(crc32c(b"123456789"), 0xE3069283)  # the CRC-32C check value

    def test_scalars_are_the_reports_figures(self):
        work = fresh("figures")
        steps, every = 7, 3
        tb, rep, _ = self.run_fixture(work, steps, every)
        pid = rep["process"]["pid"]
        self.assertEqual(os.listdir(tb), [f"pid{pid}"])  # no rank: the pid's own run folder
        events, rest = read_events(self.one_file(os.path.join(tb, f"pid{pid}")))
        self.assertEqual(rest, 0)
        self.assertEqual(events[0].file_version, "brain.Event:2")
        its = rep["iterations"]["list"]
        self.assertEqual(rep["iterations"]["detected_by"], "marker")
        self.assertEqual([i["flops"] for i in its], [PER_ITER] * steps)  # the hand count
        self.assertEqual([i["recompute_flops"] for i in its], [REC] * steps)
        self.assertEqual(rep["utilization"]["peak_flops"], PEAK)
        evals = rep["eval_passes"]
        self.assertEqual((evals["count"], evals["flops"]), (steps // every, steps // every * EVAL_PASS))
        self.assertEqual([e.step for e in events[1:]], list(range(1, steps + 1)))
        start = rep["process"]["started_unix_ns"] / 1e9
        self.assertEqual(events[0].wall_time, start)
        for e, it in zip(events[1:], its):
            s = scalars(e)
            with self.subTest(step=e.step):
                # no model inferred: no formula MFU; one dtype (fp32) at the one peak given:
                # HFU at the dtype mix is HFU itself, to the bit
                mix = rep["utilization"].get("hfu_mix") is not None
                self.assertTrue(mix, rep["utilization"].get("mix_reason"))
                self.assertEqual(set(s), TAGS | ({"flopcount/hfu_dtype_mix"} if mix else set()))
                if mix:
                    self.assertEqual(rep["utilization"]["hfu_mix"], rep["utilization"]["hfu"])
                    self.assertEqual(s["flopcount/hfu_dtype_mix"], s["flopcount/hfu"])
                secs, fl, rec = it["seconds"], it["flops"], it["recompute_flops"]
                self.assertEqual(s["flopcount/recompute_fraction"], f32(rec / fl))
                self.assertEqual(s["flopcount/recompute_fraction"], f32(1 / 7))
                for tag, want in (("flopcount/iteration_seconds", secs),
                                  ("flopcount/hfu", fl / (PEAK * secs)),
                                  ("flopcount/mfu", (fl - rec) / (PEAK * secs)),
                                  ("flopcount/tflops", fl / secs / 1e12)):
                    self.assertAlmostEqual(s[tag] / want, 1, delta=REL_SECONDS, msg=tag)
                self.assertEqual(s["flopcount/mfu"], f32(s["flopcount/mfu"]))
                self.assertAlmostEqual(s["flopcount/mfu"] / s["flopcount/hfu"], 6 / 7, delta=1e-6)
                # the passes before the iteration ended: the fixture runs one
                # after every `every`-th step, so (step - 1) // every of them
                self.assertEqual(s["flopcount/eval_passes"], (e.step - 1) // every)
                self.assertEqual(it["eval_passes"], (e.step - 1) // every)
                self.assertGreater(e.wall_time, start)
                self.assertAlmostEqual(e.wall_time, start + it["start_seconds"] + secs, delta=0.05)
        self.assertEqual(scalars(events[-1])["flopcount/eval_passes"], evals["count"])
        self.assertEqual(sorted(e.wall_time for e in events[1:]), [e.wall_time for e in events[1:]])

    def test_eval_passes_are_each_iterations_own(self):
        # the whole loop within one drain: the iterations and the passes
        # between them reach the writer together, and each point still
        # counts only the passes before its iteration ended (a pass after
        # step 3 and one after step 6 of 7), not the two counted by then
        work = fresh("evals")
        tb, rep, _ = self.run_fixture(work, 7, 3, mode=["fast"])
        pid = rep["process"]["pid"]
        events, rest = read_events(self.one_file(os.path.join(tb, f"pid{pid}")))
        self.assertEqual(rest, 0)
        self.assertEqual(rep["eval_passes"]["count"], 2)
        want = [0, 0, 0, 1, 1, 1, 2]
        self.assertEqual([e.step for e in events[1:]], list(range(1, 8)))
        self.assertEqual([scalars(e)["flopcount/eval_passes"] for e in events[1:]], want)
        self.assertEqual([it["eval_passes"] for it in rep["iterations"]["list"]], want)

    def test_fast_loop_live_line_keeps_its_digits(self):
        # the 'fast' loop's iterations take microseconds: the live line shows
        # them with 3 significant digits (was "0.000 s" beside "5.02 GFLOP/s"),
        # each the report's iteration's seconds
        work = fresh("fastlive")
        _, rep, p = self.run_fixture(work, 5, 0, {"FLOPCOUNT_LOG_EVERY": "1"}, mode=["fast"])
        lines = re.findall(r"^flopcount: step (\d+) ([0-9.]+) s ", p.stderr, re.M)
        self.assertEqual([int(k) for k, _ in lines], [1, 2, 3, 4, 5], p.stderr)
        its = {i["index"]: i for i in rep["iterations"]["list"]}
        for k, shown in lines:
            secs = its[int(k)]["seconds"]
            with self.subTest(step=k, shown=shown, seconds=secs):
                self.assertGreater(float(shown), 0)
                self.assertAlmostEqual(float(shown) / secs, 1, delta=0.01)

    def test_rank_has_its_run_folder(self):
        work = fresh("rank")
        tb, rep, _ = self.run_fixture(work, 4, 0, {"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "3"})
        self.assertEqual(os.listdir(tb), ["rank3"])
        events, rest = read_events(self.one_file(os.path.join(tb, "rank3")))
        self.assertEqual(([e.step for e in events[1:]], rest), ([1, 2, 3, 4], 0))

    def signalled(self, args, extra, sig, ready):
        """The fixture with args, sent sig once it printed "done" and
        ready(pid) is true (polled for at most 30 s); its pid."""
        p = subprocess.Popen([FIXTURE, *args], stdout=subprocess.PIPE, text=True, env=env(extra))
        try:
            self.assertEqual(p.stdout.readline().strip(), "done")
            deadline = time.monotonic() + 30
            while not ready(p.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            p.send_signal(sig)
            p.wait(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
            p.stdout.close()
        self.assertEqual(p.returncode, -sig)
        return p.pid

    def test_sigkill_leaves_a_readable_file(self):
        work = fresh("kill")
        tb = os.path.join(work, "tb")

        def written(pid):  # the ticks write within 0.1 s of the last step
            files = glob.glob(os.path.join(tb, f"pid{pid}", "events.out.tfevents.*"))
            return files and len(read_events(files[0])[0]) >= 6  # file_version and 5 steps
        pid = self.signalled(["5", "0", os.path.join(work, "never")], {"FLOPCOUNT_TENSORBOARD": tb},
                             signal.SIGKILL, written)
        events, rest = read_events(self.one_file(os.path.join(tb, f"pid{pid}")))
        self.assertEqual(rest, 0)
        self.assertEqual([e.step for e in events[1:]], [1, 2, 3, 4, 5])
        for e in events[1:]:
            self.assertEqual(scalars(e)["flopcount/recompute_fraction"], f32(1 / 7))

    def test_sigterm_flushes_the_last_iteration(self):
        """No markers: the detector's last iteration ends with the stream,
        which the SIGTERM handler's report ends; the event file gets it
        from the handler too, then the process dies of the signal."""
        work = fresh("term")
        tb, out = os.path.join(work, "tb"), os.path.join(work, "report.json")
        start = time.monotonic()  # a few ticks after "done": what is finished is written
        pid = self.signalled(["8", "0", os.path.join(work, "never"), "auto"],
                             {"FLOPCOUNT_TENSORBOARD": tb, "FLOPCOUNT_OUTPUT": out}, signal.SIGTERM,
                             lambda _: time.monotonic() - start > 0.3)
        with open(out) as f:
            rep = json.load(f)
        self.assertEqual((rep["status"], rep["iterations"]["detected_by"]), ("interrupted", "auto"))
        its = rep["iterations"]["list"]
        self.assertTrue(its and its[-1].get("open_end"), its)
        events, rest = read_events(self.one_file(os.path.join(tb, f"pid{pid}")))
        self.assertEqual(rest, 0)
        self.assertEqual([e.step for e in events[1:]], [i["index"] for i in its])
        for e, it in zip(events[1:], its):
            self.assertEqual(scalars(e)["flopcount/recompute_fraction"],
                             f32(it["recompute_flops"] / it["flops"]))

    def test_no_iteration_no_file(self):
        work = fresh("none")
        tb = os.path.join(work, "tb")
        p = subprocess.run(["/bin/true"], env=env({"FLOPCOUNT_TENSORBOARD": tb}), timeout=60)
        self.assertEqual(p.returncode, 0)
        self.assertFalse(os.path.exists(tb))

    def test_directory_that_cannot_be_made(self):
        work = fresh("bad")
        blocker = os.path.join(work, "file")
        open(blocker, "w").close()
        tb = os.path.join(blocker, "tb")  # under a regular file
        _, rep, p = self.run_fixture(work, 3, 0, {"FLOPCOUNT_QUIET": "0"}, tb=tb)
        self.assertIn(f"flopcount: cannot create the directory {tb}/pid{rep['process']['pid']} "
                      f"({blocker}: Not a directory); no TensorBoard scalars", p.stderr)
        self.assertEqual(p.stderr.count("TensorBoard"), 1)
        self.assertEqual(rep["totals"]["gemm_flops"], 3 * PER_ITER)  # the job ran on


class Torch(unittest.TestCase):
    """A real PyTorch training of a small GPT under `flopcount run --tensorboard`:
    the formula MFU appears once the model read off the GEMMs fits the count,
    as in the live line."""

    def test_formula_mfu_beside_the_live_line(self):
        work = fresh("torch")
        tb, out = os.path.join(work, "runs"), os.path.join(work, "gpt.json")
        e = {k: v for k, v in os.environ.items() if not k.startswith(("FLOPCOUNT_", "LD_PRELOAD"))}
        e["FLOPCOUNT_PEAK_TFLOPS"] = "0.001"  # 1 GFLOP/s: MFU in hundreds of %, 4 digits on the line
        p = subprocess.run([EXE, "run", "--output", out, "--log-every", "1", "--tensorboard", tb,
                            "--", "/usr/bin/python3", TINY_GPT, "--layers", "2", "--hidden", "64",
                            "--heads", "2", "--vocab", "128", "--seq", "32", "--batch", "4",
                            "--steps", "8"], capture_output=True, text=True, timeout=600, env=e)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            rep = json.load(f)
        live = {int(m.group(1)): float(m.group(2)) for m in
                re.finditer(r"^flopcount: step (\d+) .* formula MFU ([0-9.]+)%$", p.stderr, re.M)}
        self.assertTrue(live, p.stderr)
        (folder,) = glob.glob(os.path.join(tb, "pid*"))
        events, rest = read_events(glob.glob(os.path.join(folder, "events.out.tfevents.*"))[0])
        self.assertEqual(rest, 0)
        by_step = {e.step: scalars(e) for e in events[1:]}
        self.assertEqual(sorted(by_step), list(range(1, rep["iterations"]["count"] + 1)))
        for step, pct in live.items():
            with self.subTest(step=step):
                s = by_step[step]
                self.assertAlmostEqual(100 * s["flopcount/mfu_formula"], pct, delta=0.05)
                # the demo's GEMMs follow the formula's shapes and nothing is
                # recomputed: its model FLOPs are the counted ones, exactly
                self.assertEqual(s["flopcount/mfu_formula"], s["flopcount/mfu"])
        self.assertTrue(all("flopcount/mfu_formula" not in by_step[i] for i in by_step if i not in live))
        for it in rep["iterations"]["list"]:
            s = by_step[it["index"]]
            self.assertEqual(s["flopcount/recompute_fraction"],
                             f32(it["recompute_flops"] / it["flops"]))
            self.assertAlmostEqual(s["flopcount/hfu"] / (it["flops"] / (1e9 * it["seconds"])), 1,
                                   delta=REL_SECONDS)


def compile_proto():
    out = os.path.join(WORK, "proto")
    os.makedirs(out, exist_ok=True)
    subprocess.run(["protoc", "-I", os.path.dirname(PROTO), "--python_out", out,
                    os.path.basename(PROTO)], check=True)
    sys.path.insert(0, out)
    return importlib.import_module("event_pb2")


if __name__ == "__main__":
    PRELOAD, FIXTURE, PROTO, WORK = sys.argv[1], *(os.path.abspath(a) for a in sys.argv[2:5])
    if len(sys.argv) > 6:
        EXE, TINY_GPT = (os.path.abspath(a) for a in sys.argv[5:7])
    os.makedirs(WORK, exist_ok=True)
    pb = compile_proto()
    names = ["Events"] + (["Torch"] if EXE else [])
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromTestCase(globals()[n])
                               for n in names)
    sys.exit(0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1)
