# SPDX-License-Identifier: Apache-2.0
"""test_prometheus.py - FLOPCOUNT_PROMETHEUS read by the real thing: Debian's
prometheus-node-exporter, started here on 127.0.0.1 (a free port) with its
textfile collector pointed at the metrics directory, scraped over HTTP
while two ranks of a real PyTorch (CPU) training run (train_child.py, FLOPs
worked out there by hand) and again after they exit; the values must equal
each rank's JSON report. `promtool check metrics` (Debian's prometheus)
lints every file. Bad values cost one flopcount: line and the job runs on.

usage: /usr/bin/python3 test_prometheus.py PRELOAD FLOPCOUNT_EXE PYDIR BLAS_CALLS WORKDIR [TEST ...]
       (PRELOAD: the shim, after its sanitizer runtime in a sanitizer build;
       TEST: unittest names, e.g. Prometheus.test_bad_directory; default all)

Every process started here is stopped in a finally clause, within seconds.
"""
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "train_child.py")
DASHBOARD = os.path.join(HERE, "..", "..", "docs", "grafana", "flopcount-dashboard.json")
SHIM = EXE = PYDIR = BLAS = WORK = None
EXPORTER = "/usr/bin/prometheus-node-exporter"
PROMTOOL = "/usr/bin/promtool"

# train_child.py's model, by hand
PER_ITER, REC, EVAL_PASS = 3014656, 524288, 229376
STEPS, EVAL_EVERY = 8, 2
EVALS = len(range(0, STEPS, EVAL_EVERY))
TOTAL_FLOPS = STEPS * PER_ITER + EVALS * EVAL_PASS     # 25,034,752
BLAS_FORTRAN_FLOPS = 48 + 420 + 64 + 48                # tests/core/blas_calls fortran
REL_SECONDS = 1e-6  # see test_python_module.py: seconds are read at two moments

NAMES = ["flopcount_gemm_flops_total", "flopcount_gemm_calls_total", "flopcount_iterations_total",
         "flopcount_iteration_seconds", "flopcount_last_iteration_seconds", "flopcount_recompute_ratio",
         "flopcount_hfu_ratio", "flopcount_mfu_ratio", "flopcount_peak_flops"]
COUNTERS = {"flopcount_gemm_flops_total", "flopcount_gemm_calls_total", "flopcount_iterations_total"}

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def unescape(v):
    return re.sub(r'\\(.)', lambda m: {"n": "\n", "\\": "\\", '"': '"'}[m.group(1)], v)


def parse(text):
    """The text exposition format: {name: [(labels dict, value)]}, {name: type}."""
    samples, types = {}, {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ", 3)
            types[name] = typ
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if m is None:
            raise AssertionError("not a sample line: %r" % line)
        labels, rest = {}, m.group(2) or ""
        pos = 0
        while pos < len(rest):
            lm = LABEL.match(rest, pos)
            if lm is None:
                raise AssertionError("bad labels in %r" % line)
            labels[lm.group(1)] = unescape(lm.group(2))
            pos = lm.end()
        samples.setdefault(m.group(1), []).append((labels, float(m.group(3))))
    return samples, types


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(p):
    """Ends a process started here: SIGTERM, then SIGKILL after 5 s."""
    if p is None or p.poll() is not None:
        return
    p.terminate()
    try:
        p.wait(5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait(5)


def base_env(extra=None):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith(("FLOPCOUNT_", "SLURM_", "OMPI_", "PMIX_", "PBS_", "LSB_", "FLUX_", "TORCHELASTIC_")) or \
                k in ("LD_PRELOAD", "RANK", "LOCAL_RANK", "WORLD_SIZE"):
            env.pop(k)
    env.update({"PYTHONPATH": PYDIR, "OMP_NUM_THREADS": "1", "FLOPCOUNT_QUIET": "1"})
    env.update(extra or {})
    return env


class Exporter:
    """prometheus-node-exporter on 127.0.0.1 with only the textfile collector."""

    def __init__(self, directory):
        self.proc = None
        self.log = open(os.path.join(WORK, "node-exporter.log"), "w")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, never a proxy
        for _ in range(5):  # the free port may be taken before the exporter binds it
            self.port = free_port()
            self.proc = subprocess.Popen(
                [EXPORTER, "--web.listen-address=127.0.0.1:%d" % self.port, "--collector.disable-defaults",
                 "--collector.textfile", "--collector.textfile.directory=" + directory],
                stdout=self.log, stderr=subprocess.STDOUT)
            self.opener = opener
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    self.scrape_text()
                    return
                except OSError:
                    time.sleep(0.1)
            stop(self.proc)
        raise AssertionError("node-exporter did not start; see %s" % self.log.name)

    def scrape_text(self):
        with self.opener.open("http://127.0.0.1:%d/metrics" % self.port, timeout=10) as r:
            return r.read().decode()

    def scrape(self):
        return parse(self.scrape_text())

    def close(self):
        stop(self.proc)
        self.log.close()


def by_rank(samples, name):
    return {lab.get("rank"): (lab, v) for lab, v in samples.get(name, [])}


class Prometheus(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.join(WORK, self.id().rsplit(".", 1)[-1])
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(os.path.join(self.dir, "metrics"))
        self.metrics = os.path.join(self.dir, "metrics")

    def promtool(self, path):
        with open(path) as f:
            p = subprocess.run([PROMTOOL, "check", "metrics"], stdin=f, capture_output=True, text=True,
                               timeout=60)
        self.assertEqual(p.returncode, 0, "promtool on %s: %s%s" % (path, p.stdout, p.stderr))
        self.assertEqual(p.stdout + p.stderr, "", path)

    def test_node_exporter_scrapes_two_ranks(self):
        host = socket.gethostname()
        wait = os.path.join(self.dir, "go")
        ranks = {
            # rank 0: the job id from Slurm; rank 1: FLOPCOUNT_JOB wins, with
            # characters the exposition format must escape
            "0": {"SLURM_JOB_ID": "4242"},
            "1": {"SLURM_JOB_ID": "4242", "FLOPCOUNT_JOB": 'run "b" \\ 7'},
        }
        want_job = {"0": "4242", "1": 'run "b" \\ 7'}
        children, errs, exporter = {}, [], None
        try:
            exporter = Exporter(self.metrics)
            for r, extra in ranks.items():
                env = base_env({"LD_PRELOAD": SHIM, "RANK": r, "LOCAL_RANK": r, "WORLD_SIZE": "2",
                                "FLOPCOUNT_OUTPUT": os.path.join(self.dir, "rank%s.json" % r),
                                "FLOPCOUNT_PROMETHEUS": self.metrics, "FLOPCOUNT_PROMETHEUS_SECONDS": "0.5"})
                env.update(extra)
                cfg = {"markers": "module", "steps": STEPS, "eval_every": EVAL_EVERY, "out": None,
                       "ready": os.path.join(self.dir, "ready%s" % r), "wait": wait}
                errs.append(open(os.path.join(self.dir, "rank%s.err" % r), "w"))
                children[r] = subprocess.Popen([sys.executable, CHILD, json.dumps(cfg)], env=env,
                                               stdout=subprocess.DEVNULL, stderr=errs[-1])
            deadline = time.monotonic() + 300
            while not all(os.path.exists(os.path.join(self.dir, "ready%s" % r)) for r in ranks):
                for r, p in children.items():
                    self.assertIsNone(p.poll(), "rank %s exited early" % r)
                self.assertLess(time.monotonic(), deadline, "training did not finish")
                time.sleep(0.1)

            # Training done, processes alive: the periodic file reaches all steps.
            deadline = time.monotonic() + 30
            while True:
                samples, types = exporter.scrape()
                it = by_rank(samples, "flopcount_iterations_total")
                if all(r in it and it[r][1] == STEPS for r in ranks) or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            self.assertEqual(samples.get("node_textfile_scrape_error"), [({}, 0.0)])
            for name in NAMES:
                self.assertEqual(types.get(name), "counter" if name in COUNTERS else "gauge", name)
                got = by_rank(samples, name)
                self.assertEqual(sorted(got), sorted(ranks), name)
                for r in ranks:
                    lab = got[r][0]
                    want = {"rank": r, "local_rank": r, "host": host, "job": want_job[r],
                            "pid": str(children[r].pid)}
                    if name == "flopcount_peak_flops":
                        want.update({"source": "cpu-estimate", "dtype": "fp32"})
                    self.assertEqual(lab, want, name)
            for r in ranks:  # the last GEMM came before the last step: all of them are in
                self.assertEqual(by_rank(samples, "flopcount_iterations_total")[r][1], STEPS)
                self.assertEqual(by_rank(samples, "flopcount_gemm_flops_total")[r][1], TOTAL_FLOPS)
                self.assertEqual(by_rank(samples, "flopcount_recompute_ratio")[r][1], REC / PER_ITER)
            files = sorted(os.listdir(self.metrics))
            self.assertEqual(files, sorted("flopcount-rank%s-pid%d.prom" % (r, children[r].pid) for r in ranks))
            for f in files:
                self.promtool(os.path.join(self.metrics, f))

            open(wait, "w").close()
            for r, p in children.items():
                self.assertEqual(p.wait(120), 0, "rank %s" % r)

            # After exit: the file holds the final figures, equal to the report.
            samples, _ = exporter.scrape()
            for r in ranks:
                with open(os.path.join(self.dir, "rank%s.json" % r)) as f:
                    rep = json.load(f)
                it, u = rep["iterations"], rep["utilization"]
                val = lambda name: by_rank(samples, name)[r][1]
                self.assertEqual(val("flopcount_gemm_flops_total"), rep["totals"]["gemm_flops"])
                self.assertEqual(val("flopcount_gemm_flops_total"), TOTAL_FLOPS)
                self.assertEqual(val("flopcount_gemm_calls_total"), rep["totals"]["gemm_calls"])
                self.assertEqual(val("flopcount_iterations_total"), it["count"])
                self.assertEqual(val("flopcount_recompute_ratio"), rep["recompute"]["fraction"])
                self.assertEqual(val("flopcount_recompute_ratio"), REC / PER_ITER)
                self.assertEqual(val("flopcount_peak_flops"), u["peak_flops"])
                for name, want in (("flopcount_iteration_seconds", it["median_seconds"]),
                                   ("flopcount_last_iteration_seconds", it["list"][-1]["seconds"]),
                                   ("flopcount_hfu_ratio", u["hfu"]), ("flopcount_mfu_ratio", u["mfu"])):
                    self.assertLessEqual(abs(val(name) - want), REL_SECONDS * want, name)
            for f in glob.glob(os.path.join(self.metrics, "*")):
                self.assertTrue(f.endswith(".prom"), f)  # no temporary file left behind
                self.promtool(f)
        finally:
            open(wait, "w").close()
            for p in children.values():
                stop(p)
            if exporter is not None:
                exporter.close()
            for f in errs:
                f.close()

    def test_periodic_and_final_under_load(self):
        """fixture_gemm_loop: 30 steps of 6 sgemm_ calls (49,152 FLOPs), a
        snapshot after each, the file rewritten every 0.1 s while the
        program waits after its last step, then once more at exit. The
        drainer's writes, the program's snapshots and the exit path run
        side by side (the sanitizer builds run this test)."""
        steps, wait = 30, os.path.join(self.dir, "go")
        env = base_env({"LD_PRELOAD": SHIM, "FLOPCOUNT_PROMETHEUS": self.metrics,
                        "FLOPCOUNT_PROMETHEUS_SECONDS": "0.1", "RANK": "2", "LOCAL_RANK": "0",
                        "FLOPCOUNT_OUTPUT": os.path.join(self.dir, "loop.json")})
        p = subprocess.Popen([os.environ["FC_GEMM_LOOP"], str(steps), wait], env=env,
                             stderr=subprocess.PIPE, text=True)
        try:
            path = os.path.join(self.metrics, "flopcount-rank2-pid%d.prom" % p.pid)
            deadline = time.monotonic() + 120
            while True:  # the periodic file, while the program still runs
                self.assertIsNone(p.poll(), "the program exited before its wait")
                samples = None
                if os.path.exists(path):
                    with open(path) as f:
                        samples, _ = parse(f.read())
                if samples and samples["flopcount_iterations_total"][0][1] == steps:
                    break
                self.assertLess(time.monotonic(), deadline, "no periodic file with every step")
                time.sleep(0.05)
            self.assertEqual(samples["flopcount_gemm_calls_total"][0][1], 6 * steps)
            self.assertEqual(samples["flopcount_gemm_flops_total"][0][1], 6 * steps * 8192)
            self.assertEqual(samples["flopcount_recompute_ratio"][0][1], 0)
            self.promtool(path)
            open(wait, "w").close()
            _, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, err)
        finally:
            open(wait, "w").close()
            stop(p)
        with open(path) as f:
            samples, _ = parse(f.read())
        with open(os.path.join(self.dir, "loop.json")) as f:
            rep = json.load(f)
        self.assertEqual(rep["iterations"]["count"], steps)
        self.assertEqual(rep["iterations"]["list"][-1]["flops"], 6 * 8192)
        self.assertEqual(samples["flopcount_iterations_total"][0][1], steps)
        self.assertEqual(samples["flopcount_gemm_flops_total"][0][1], rep["totals"]["gemm_flops"])
        if rep["utilization"] is not None:  # a CPU estimate needs the clock (FLOPCOUNT_CPU_GHZ on some VMs)
            self.assertLessEqual(abs(samples["flopcount_hfu_ratio"][0][1] - rep["utilization"]["hfu"]),
                                 REL_SECONDS * rep["utilization"]["hfu"])
            # all fp32: HFU at the dtype mix is HFU to the bit, in the file and the report
            self.assertEqual(samples["flopcount_hfu_mix_ratio"][0][1], samples["flopcount_hfu_ratio"][0][1])
            self.assertEqual(rep["utilization"]["hfu_mix"], rep["utilization"]["hfu"])
            self.assertEqual([(lb["dtype"], v) for lb, v in samples["flopcount_dtype_peak_flops"]],
                             [("fp32", samples["flopcount_peak_flops"][0][1])])
        self.assertEqual([(lb["dtype"], v) for lb, v in samples["flopcount_flops_share_ratio"]], [("fp32", 1)])
        self.assertEqual(os.listdir(self.metrics), [os.path.basename(path)])

    def run_blas(self, extra, check_rc=True):
        env = base_env({"LD_PRELOAD": SHIM, "FLOPCOUNT_OUTPUT": os.path.join(self.dir, "blas.json")})
        env.update(extra)
        p = subprocess.run([BLAS, "fortran"], env=env, capture_output=True, text=True, timeout=60)
        if check_rc:
            self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.dir, "blas.json")) as f:
            self.assertEqual(json.load(f)["totals"]["gemm_flops"], BLAS_FORTRAN_FLOPS)  # the job ran on
        return p

    def one_line(self, stderr, word):
        lines = [ln for ln in stderr.splitlines() if ln.startswith("flopcount:")]
        self.assertEqual(len(lines), 1, stderr)
        self.assertIn(word, lines[0])
        return lines[0]

    def test_bad_directory(self):
        line = self.one_line(self.run_blas({"FLOPCOUNT_PROMETHEUS": "/nonexistent/metrics"}).stderr,
                             "FLOPCOUNT_PROMETHEUS")
        self.assertIn("No such file or directory", line)
        regular = os.path.join(self.dir, "a-file")
        open(regular, "w").close()
        line = self.one_line(self.run_blas({"FLOPCOUNT_PROMETHEUS": regular}).stderr, "FLOPCOUNT_PROMETHEUS")
        self.assertIn("not a directory", line)

    def test_bad_period_keeps_the_default(self):
        for bad in ("abc", "0", "-1"):
            for f in glob.glob(os.path.join(self.metrics, "*")):
                os.unlink(f)
            p = self.run_blas({"FLOPCOUNT_PROMETHEUS": self.metrics, "FLOPCOUNT_PROMETHEUS_SECONDS": bad})
            self.one_line(p.stderr, "FLOPCOUNT_PROMETHEUS_SECONDS")
            files = glob.glob(os.path.join(self.metrics, "*"))
            self.assertEqual(len(files), 1, files)  # written at exit all the same
            with open(files[0]) as f:
                samples, _ = parse(f.read())
            self.assertEqual(samples["flopcount_gemm_flops_total"][0][1], BLAS_FORTRAN_FLOPS)
            self.assertEqual(samples["flopcount_gemm_calls_total"][0][1], 4)
            # no launcher: rank and local rank empty (absent for Prometheus), pid in the name
            lab = samples["flopcount_gemm_flops_total"][0][0]
            self.assertEqual((lab["rank"], lab["local_rank"], lab["job"]), ("", "", ""))
            self.assertEqual(os.path.basename(files[0]), "flopcount-pid%s.prom" % lab["pid"])
            self.promtool(files[0])

    def test_process_without_gemm_writes_nothing(self):
        env = base_env({"LD_PRELOAD": SHIM, "FLOPCOUNT_PROMETHEUS": self.metrics})
        p = subprocess.run(["/bin/true"], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual(os.listdir(self.metrics), [])  # a launcher leaves no file of zeros

    def test_flopcount_run_option(self):
        env = base_env()
        p = subprocess.run([EXE, "run", "--quiet", "--prometheus", self.metrics, "--output",
                            os.path.join(self.dir, "blas.json"), "--", BLAS, "fortran"],
                           env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        files = glob.glob(os.path.join(self.metrics, "flopcount-pid*.prom"))
        self.assertEqual(len(files), 1)
        self.promtool(files[0])
        # a missing directory is made (issue 28); one under a regular file cannot be
        made = os.path.join(self.dir, "made", "metrics")
        p = subprocess.run([EXE, "run", "--quiet", "--prometheus", made, "--output",
                            os.path.join(self.dir, "made.json"), "--", BLAS, "fortran"],
                           env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual(len(glob.glob(os.path.join(made, "flopcount-pid*.prom"))), 1)
        blocker = os.path.join(self.dir, "a-file")
        open(blocker, "w").close()
        p = subprocess.run([EXE, "run", "--prometheus", os.path.join(blocker, "metrics"), "--", BLAS,
                            "fortran"], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("--prometheus", p.stderr)
        self.assertIn(f"({blocker}: Not a directory)", p.stderr)

    def test_dashboard_reads_what_is_written(self):
        """docs/grafana: every flopcount series a panel or variable asks for is
        one the shim writes (NAMES, all seen by node-exporter above)."""
        with open(DASHBOARD) as f:
            dash = json.load(f)
        exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
        exprs += [v["definition"] for v in dash["templating"]["list"] if "definition" in v]
        used = set(re.findall(r"\b(flopcount_[a-z_]+|DCGM_[A-Z_]+)", " ".join(exprs)))
        self.assertEqual(used - set(NAMES), {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"})
        self.assertEqual(set(NAMES) - used, set())


if __name__ == "__main__":
    SHIM, EXE, PYDIR, BLAS, WORK = sys.argv[1:6]
    os.makedirs(WORK, exist_ok=True)
    for tool in (EXPORTER, PROMTOOL):
        if not os.access(tool, os.X_OK):
            sys.exit("test_prometheus: %s is missing (bash scripts/deps.sh installs it)" % tool)
    unittest.main(argv=[sys.argv[0]] + sys.argv[6:])
