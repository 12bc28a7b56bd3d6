# SPDX-License-Identifier: Apache-2.0
"""test_procs.py - one report per job through wrappers, exec and fork, with C
programs (procs_gemm.c): under 'flopcount run' and with LD_PRELOAD and one
FLOPCOUNT_OUTPUT. Every figure is worked out from the shapes: procs_gemm
"gemm N D" makes N sgemm_ calls of m = n = k = D, 2*D^3 FLOPs each.

usage: test_procs.py BINDIR SHIM_SO FLOPCOUNT_EXE WORKDIR
(FC_SANITIZER_RUNTIME in the environment: a sanitized shim's runtime, put
first in LD_PRELOAD.)
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

BIN = SHIM = EXE = WORK = None


def flops(n, d):
    return n * 2 * d ** 3


def preload():
    rt = os.environ.get("FC_SANITIZER_RUNTIME")
    return f"{rt}:{SHIM}" if rt else SHIM


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("FLOPCOUNT_", "LD_PRELOAD", "RANK", "WORLD_SIZE", "LOCAL_RANK"))
           or k == "FLOPCOUNT_CALLSITES"}  # the sanitizer builds' setting stays
    env["FLOPCOUNT_QUIET"] = "1"
    env.update(extra or {})
    return env


def direct(args, output, extra=None, check=True):
    """The command with LD_PRELOAD and one FLOPCOUNT_OUTPUT."""
    env = clean_env(extra)
    env.update(LD_PRELOAD=preload(), FLOPCOUNT_OUTPUT=output)
    p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"{args} exited {p.returncode}: {p.stderr}")
    return p


def wrapped(args, output, opts=(), extra=None, check=True):
    """The command under flopcount run (a sanitizer runtime stays first)."""
    env = clean_env(extra)
    if os.environ.get("FC_SANITIZER_RUNTIME"):
        env["LD_PRELOAD"] = os.environ["FC_SANITIZER_RUNTIME"]
    env["FLOPCOUNT_LIB"] = SHIM
    p = subprocess.run([EXE, "run", "--quiet", *opts, "--output", output, "--", *args], env=env,
                       capture_output=True, text=True, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"flopcount run {args} exited {p.returncode}: {p.stderr}")
    return p


def load(path):
    with open(path) as f:
        return json.load(f)


def report_json(path):
    """'flopcount report --json': the file with any FILE.parts/ of its run."""
    p = subprocess.run([EXE, "report", path, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"report {path}: {p.stderr}")
    return json.loads(p.stdout), p.stderr


def gemm(n, d, *more):
    return [os.path.join(BIN, "procs_gemm"), "gemm", str(n), str(d), *more]


def at_once(n, d):
    """n GEMMs of d, then a second alive: started together, two of these
    overlap in time (a run is told from the next by time, and a process the
    shim no longer slows can end before the other one starts)."""
    return [os.path.join(BIN, "procs_gemm"), "sleep", str(n), str(d), "1"]


class Case(unittest.TestCase):
    def path(self, name):
        p = os.path.join(WORK, name)
        for f in glob.glob(p + "*"):
            if os.path.isdir(f):
                for g in glob.glob(f + "/*"):
                    os.unlink(g)
                os.rmdir(f)
            else:
                os.unlink(f)
        return p

    def assert_job(self, r, calls, fl, status="complete"):
        self.assertEqual((r["totals"]["gemm_calls"], r["totals"]["gemm_flops"]), (calls, fl))
        self.assertEqual(r["status"], status)

    def no_leftovers(self, out):
        self.assertEqual(glob.glob(out + ".parts-*"), [], "the per-run directory is removed")
        self.assertEqual(glob.glob(out + ".tmp.*"), [])


class Run(Case):
    """flopcount run: one report for the whole process tree."""

    def test_no_gemm_at_all(self):
        out = self.path("none.json")
        wrapped([os.path.join(BIN, "procs_gemm"), "none"], out)
        r = load(out)
        self.assert_job(r, 0, 0)
        self.assertEqual(len(r["processes"]), 1)
        self.assertEqual(r["processes"][0]["ended"], "exit 0")
        self.assertEqual(r["job"]["processes_with_gemms"], 0)
        self.no_leftovers(out)

    def test_one_process_is_its_own_report(self):
        out = self.path("one.json")
        wrapped(gemm(3, 4), out)
        r = load(out)
        self.assert_job(r, 3, flops(3, 4))
        self.assertEqual(r["shapes"][0]["calls"], 3)
        self.assertEqual(r["job"]["processes_with_gemms"], 1)
        self.assertNotIn("kind", r)
        # %p in --output: the command's pid
        for f in glob.glob(os.path.join(WORK, "pid-*.json")):
            os.unlink(f)
        wrapped(gemm(1, 2), os.path.join(WORK, "pid-%p.json"))
        found = glob.glob(os.path.join(WORK, "pid-*.json"))
        self.assertEqual(len(found), 1)
        r = load(found[0])
        self.assertEqual(found[0], os.path.join(WORK, "pid-%d.json" % r["process"]["pid"]))
        self.assertEqual(r["job"]["pid"], r["process"]["pid"])

    def test_shell_runs_two_one_in_the_background(self):
        out = self.path("sh.json")
        g = os.path.join(BIN, "procs_gemm")
        wrapped(["sh", "-c", f"{g} gemm 3 4; {g} gemm 2 5 & {g} gemm 1 6; wait; true"], out)
        r = load(out)
        self.assert_job(r, 6, flops(3, 4) + flops(2, 5) + flops(1, 6))
        self.assertEqual(sorted(p["gemm_flops"] for p in r["processes"] if p["gemm_calls"]),
                         sorted([flops(3, 4), flops(2, 5), flops(1, 6)]))
        by_dims = {s["m"]: s["calls"] for s in r["shapes"]}
        self.assertEqual(by_dims, {4: 3, 5: 2, 6: 1})
        self.assertEqual(r["totals"]["processes"], 3)

    def test_exec_family(self):
        g = os.path.join(BIN, "procs_gemm")
        for how in ("execv", "execve", "execvp", "execvpe", "execl", "execlp", "execle", "fexecve"):
            with self.subTest(how=how):
                out = self.path(f"exec-{how}.json")
                wrapped([g, "exec", "3", "4", how, g, "gemm", "2", "5"], out)
                r = load(out)
                self.assert_job(r, 5, flops(3, 4) + flops(2, 5))
                procs = r["processes"]
                self.assertEqual([p["status"] for p in procs], ["exec", "complete"])
                self.assertEqual(procs[0]["pid"], procs[1]["pid"])
                self.assertEqual([p["gemm_flops"] for p in procs], [flops(3, 4), flops(2, 5)])

    def test_fork_child(self):
        out = self.path("fork.json")
        wrapped([os.path.join(BIN, "procs_gemm"), "fork", "3", "4", "2"], out)
        r = load(out)
        self.assert_job(r, 5, flops(5, 4))
        kids = [p for p in r["processes"] if p["fork_child"]]
        self.assertEqual(len(kids), 1)
        self.assertEqual(kids[0]["gemm_flops"], flops(2, 4))

    def test_waits_for_a_process_the_command_left_running(self):
        # sh leaves once the background process has run its GEMMs; it then
        # sleeps 1 s, which flopcount run waits for.
        out = self.path("orphan.json")
        said = os.path.join(WORK, "orphan.out")
        g = os.path.join(BIN, "procs_gemm")
        wrapped(["sh", "-c", f"rm -f {said}; {g} sleep 2 4 1 >{said} & "
                             f"while ! grep -q ready {said} 2>/dev/null; do sleep 0.05; done"], out)
        self.assert_job(load(out), 2, flops(2, 4))

    def test_exit_status_and_exec_errors(self):
        out = self.path("status.json")
        self.assertEqual(wrapped(["sh", "-c", "exit 7"], out, check=False).returncode, 7)
        self.assert_job(load(out), 0, 0)  # it ran: a report of 0
        os.unlink(out)
        p = wrapped(["/nonexistent/program"], out, check=False)
        self.assertEqual(p.returncode, 127)
        self.assertIn("cannot run '/nonexistent/program'", p.stderr)
        p = wrapped([WORK], out, check=False)  # a directory: found, not runnable
        self.assertEqual(p.returncode, 126)
        nox = os.path.join(WORK, "not-executable")
        open(nox, "w").close()
        os.chmod(nox, 0o644)
        self.assertEqual(wrapped([nox], out, check=False).returncode, 126)
        self.assertEqual(glob.glob(out + "*"), [], "no report for a command that never ran")

    def test_cuda_injection(self):
        """The driver's injection names the shim (CUPTI at cuInit: docs/launch.md),
        unless a profiler set it already or FLOPCOUNT_CUPTI=0 keeps CUPTI out."""
        out = self.path("inject.json")
        cmd = ["/bin/sh", "-c", "echo \"inj=${CUDA_INJECTION64_PATH-unset}\""]
        p = wrapped(cmd, out)
        self.assertIn("inj=" + SHIM, p.stdout)
        p = wrapped(cmd, out, extra={"CUDA_INJECTION64_PATH": "/opt/nsys/libinj.so"})
        self.assertIn("inj=/opt/nsys/libinj.so", p.stdout)
        p = wrapped(cmd, out, extra={"FLOPCOUNT_CUPTI": "0"})
        self.assertIn("inj=unset", p.stdout)

    def test_output_dash_dash_refused(self):
        p = subprocess.run([EXE, "run", "--output", "--", "true"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr, "flopcount run: --output needs a value\n")
        self.assertFalse(os.path.exists("--"))

    def test_per_run_place_not_creatable(self):
        # a folder under a regular file (root makes any missing folder)
        blocker = self.path("blocker")
        open(blocker, "w").close()
        p = wrapped(gemm(1, 2), blocker + "/sub/r.json", check=False)
        self.assertEqual(p.returncode, 0)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith("flopcount run: cannot create the per-run directory "
                                            + blocker + "/sub/r.json.parts-"), p.stderr)
        self.assertTrue(lines[0].endswith(": Not a directory; no report will be written "
                                          "(the command runs on)"), p.stderr)

    def test_missing_output_folders_are_made(self):
        # as --tensorboard's: --output in folders that do not exist yet (the
        # library itself never makes FLOPCOUNT_OUTPUT's: tests/robust/fault_output.sh)
        top = os.path.join(WORK, "made")
        shutil.rmtree(top, ignore_errors=True)
        p = wrapped(gemm(2, 3), os.path.join(top, "a", "b", "r.json"))
        self.assertEqual(p.stderr, "")
        self.assertEqual(load(os.path.join(top, "a", "b", "r.json"))["totals"]["gemm_flops"],
                         flops(2, 3))

    def test_shim_run_dir_gone(self):
        # FLOPCOUNT_RUN_DIR that does not exist: one flopcount: line, the job runs on.
        env = clean_env({"FLOPCOUNT_RUN_DIR": "/nonexistent-run-dir", "LD_PRELOAD": preload()})
        p = subprocess.run(gemm(2, 3), env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertTrue(p.stderr.startswith("flopcount: "), p.stderr)

    def test_sigterm_is_passed_on(self):
        out = self.path("term.json")
        env = clean_env({"FLOPCOUNT_LIB": SHIM})
        if os.environ.get("FC_SANITIZER_RUNTIME"):
            env["LD_PRELOAD"] = os.environ["FC_SANITIZER_RUNTIME"]
        w = subprocess.Popen([EXE, "run", "--quiet", "--output", out, "--",
                              os.path.join(BIN, "procs_gemm"), "sleep", "3", "4", "60"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(w.stdout.readline().strip(), "ready")
            w.send_signal(signal.SIGTERM)
            w.wait(timeout=30)
        finally:
            if w.poll() is None:
                w.kill()
        self.assertEqual(w.returncode, 143)
        r = load(out)
        self.assert_job(r, 3, flops(3, 4), status="interrupted")
        self.assertEqual(r["job"]["forwarded_signal"], "SIGTERM")
        self.assertEqual(r["processes"][0]["ended"], "signal 15 (SIGTERM)")

    def test_sigkilled_member_is_incomplete(self):
        out = self.path("kill.json")
        pidfile = os.path.join(WORK, "kill.pid")
        g = os.path.join(BIN, "procs_gemm")
        env = clean_env({"FLOPCOUNT_LIB": SHIM})
        if os.environ.get("FC_SANITIZER_RUNTIME"):
            env["LD_PRELOAD"] = os.environ["FC_SANITIZER_RUNTIME"]
        script = f"{g} sleep 3 4 60 & k=$!; echo $k > {pidfile}; {g} gemm 1 2; wait $k"
        w = subprocess.Popen([EXE, "run", "--quiet", "--snapshot-seconds", "0.1", "--output", out,
                              "--", "sh", "-c", script], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(w.stdout.readline().strip(), "ready")
            time.sleep(0.5)  # a snapshot after the 3 calls
            os.kill(int(open(pidfile).read()), signal.SIGKILL)
            w.wait(timeout=60)
        finally:
            if w.poll() is None:
                w.kill()
        self.assertEqual(w.returncode, 137)  # sh's wait: the killed member's status
        r = load(out)
        self.assert_job(r, 4, flops(3, 4) + flops(1, 2), status="incomplete")
        self.assertEqual(r["job"]["incomplete"], 1)
        dead = [p for p in r["processes"] if p["status"] == "running"]
        self.assertEqual(len(dead), 1)
        self.assertIn("no final report", dead[0]["ended"])
        text = subprocess.run([EXE, "report", out], capture_output=True, text=True).stdout
        self.assertIn("INCOMPLETE", text)


class Direct(Case):
    """LD_PRELOAD and one FLOPCOUNT_OUTPUT: never the last writer's alone."""

    def test_wrapper_without_gemm_keeps_the_report(self):
        out = self.path("timeout.json")
        direct(["timeout", "300", *gemm(3, 4)], out)
        r = load(out)
        self.assert_job(r, 3, flops(3, 4))
        self.assertEqual(r["process"]["command"], " ".join(gemm(3, 4)))
        self.assertFalse(os.path.exists(out + ".parts"))

    def test_two_in_a_row_and_stale_parts(self):
        out = self.path("row.json")
        g = os.path.join(BIN, "procs_gemm")
        direct(["bash", "-c", f"{g} gemm 3 4; {g} gemm 2 5; true"], out)
        r = load(out)  # the second writer joined the run into FILE
        self.assertEqual(r["totals"]["gemm_flops"], flops(3, 4) + flops(2, 5))
        self.assertEqual(len(r["processes"]), 2)
        self.assertEqual(len(glob.glob(out + ".parts/*.json")), 2)  # the first writer's kept there
        rep, note = report_json(out)
        self.assertEqual(rep["totals"]["gemm_flops"], flops(3, 4) + flops(2, 5))
        self.assertEqual(note, "")  # FILE read as it is
        # a new run with the same path: the earlier file and part are stale
        direct(gemm(1, 3), out)
        r, note = report_json(out)
        self.assertEqual(r["totals"]["gemm_flops"], flops(1, 3))
        self.assertEqual(note, "")

    def test_script_that_preloads_its_children(self):
        # the script exports LD_PRELOAD itself (bash is not preloaded): each
        # child is a run of its own, so the second replaces the first's FILE
        # as stale; it says so, with the ways to keep both. With
        # FLOPCOUNT_RUN_ID exported in the script, FILE holds all of them.
        out = self.path("script.json")
        g = os.path.join(BIN, "procs_gemm")
        body = (f"export LD_PRELOAD='{preload()}' FLOPCOUNT_OUTPUT='{out}'\n"
                f"{g} gemm 3 4\n{g} gemm 2 5\n{g} gemm 1 6\n")
        p = subprocess.run(["bash", "-c", body], env=clean_env(), capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr.count(f"flopcount: {out}: replacing the report of pid "), 2,
                         p.stderr)
        self.assertIn("FLOPCOUNT_RUN_ID", p.stderr)
        self.assertEqual(load(out)["totals"]["gemm_flops"], flops(1, 6))  # the last run's
        p = subprocess.run(["bash", "-c", "export FLOPCOUNT_RUN_ID=$$.$(date +%s%N)\n" + body],
                           env=clean_env(), capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("replacing", p.stderr)
        r = load(out)
        self.assertEqual(r["totals"]["gemm_flops"], flops(3, 4) + flops(2, 5) + flops(1, 6))
        self.assertEqual(len(r["processes"]), 3)

    def test_two_at_once_same_path(self):
        out = self.path("twice.json")
        env = clean_env({"LD_PRELOAD": preload(), "FLOPCOUNT_OUTPUT": out})
        # each lives a second after its GEMMs, so the two overlap in time
        # however fast the shim lets them start and end
        ps = [subprocess.Popen(at_once(3, 4), env=env, stdout=subprocess.DEVNULL),
              subprocess.Popen(at_once(2, 5), env=env, stdout=subprocess.DEVNULL)]
        self.assertEqual([p.wait(timeout=60) for p in ps], [0, 0])
        r, _ = report_json(out)
        self.assertEqual(r["totals"]["gemm_flops"], flops(3, 4) + flops(2, 5))

    def test_exec_keeps_both(self):
        out = self.path("exec.json")
        g = os.path.join(BIN, "procs_gemm")
        direct([g, "exec", "3", "4", "execv", g, "gemm", "2", "5"], out)
        r = load(out)  # joined by the image after exec
        self.assertEqual(r["totals"]["gemm_flops"], flops(3, 4) + flops(2, 5))
        self.assertEqual([p["status"] for p in r["processes"]], ["exec", "complete"])
        r, _ = report_json(out)
        self.assertEqual(r["totals"]["gemm_flops"], flops(3, 4) + flops(2, 5))

    def test_no_gemm_replaces_only_stale(self):
        out = self.path("zero.json")
        direct(gemm(2, 3), out)
        direct(["/bin/true"], out)  # a new run, no GEMM: the old file is stale
        self.assert_job(load(out), 0, 0)
        g = os.path.join(BIN, "procs_gemm")
        direct(["sh", "-c", f"{g} gemm 2 3; {g} none"], out)  # same run: kept
        self.assert_job(load(out), 2, flops(2, 3))

    def test_ranks_without_percent_r_merge(self):
        out = self.path("ranks.json")
        ps = []
        for rank, d in ((0, 4), (1, 5)):
            env = clean_env({"LD_PRELOAD": preload(), "FLOPCOUNT_OUTPUT": out, "RANK": str(rank),
                             "LOCAL_RANK": str(rank), "WORLD_SIZE": "2"})
            ps.append(subprocess.Popen(at_once(3, d), env=env, stdout=subprocess.DEVNULL))
        self.assertEqual([p.wait(timeout=60) for p in ps], [0, 0])
        m = subprocess.run([EXE, "merge", out, "--json"], capture_output=True, text=True)
        self.assertEqual(m.returncode, 0, m.stderr)
        j = json.loads(m.stdout)
        self.assertEqual((j["world_size"], j["totals"]["gemm_flops"]), (2, flops(3, 4) + flops(3, 5)))
        self.assertEqual({x["rank"]: x["gemm_flops"] for x in j["merge"]["ranks"]},
                         {0: flops(3, 4), 1: flops(3, 5)})
        self.assertIn("rank report", m.stderr)


if __name__ == "__main__":
    BIN, SHIM, EXE, WORK = (os.path.abspath(a) for a in sys.argv[1:5])
    os.makedirs(WORK, exist_ok=True)
    unittest.main(argv=sys.argv[:1], verbosity=2)
