# SPDX-License-Identifier: Apache-2.0
"""test_core.py - the shim's core on the CPU BLAS: exact FLOPs per entry
point (worked out by hand below), the nested CBLAS -> Fortran call counted
once, RTLD_LOCAL libraries, GEMMs before our constructor, fork without exec,
the report file's atomic write, and `flopcount run`.

usage: /usr/bin/python3 test_core.py BINDIR SHIM_SO FLOPCOUNT_EXE WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys
import unittest

BIN = SHIM = EXE = WORK = None


def run(args, report, extra_env=None, preload=True, check=True):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop("FLOPCOUNT_OUTPUT", None)
    if preload:
        env["LD_PRELOAD"] = SHIM
        if os.environ.get("FC_SANITIZER_RUNTIME"):  # a sanitized shim needs its runtime first
            env["LD_PRELOAD"] = os.environ["FC_SANITIZER_RUNTIME"] + ":" + SHIM
    if report:
        env["FLOPCOUNT_OUTPUT"] = report
    env.update(extra_env or {})
    p = subprocess.run(args, env=env, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"{args} exited {p.returncode}: {p.stderr}")
    return p


def load(path):
    with open(path) as f:
        return json.load(f)


def shape_map(r):
    return {(s["api"], s["m"], s["n"], s["k"], s["transa"], s["transb"]): s for s in r["shapes"]}


class Core(unittest.TestCase):
    def report_path(self, name):
        return os.path.join(WORK, name + ".json")

    def test_fortran_entry_points(self):
        path = self.report_path("fortran")
        run([os.path.join(BIN, "blas_calls"), "fortran"], path)
        r = load(path)
        sm = shape_map(r)
        # real: 2*m*n*k; complex: 8*m*n*k
        self.assertEqual(sm[("sgemm_", 2, 3, 4, "N", "N")]["flops"], 2 * 2 * 3 * 4)    # 48
        self.assertEqual(sm[("dgemm_", 5, 6, 7, "T", "N")]["flops"], 2 * 5 * 6 * 7)    # 420
        self.assertEqual(sm[("cgemm_", 2, 2, 2, "N", "C")]["flops"], 8 * 2 * 2 * 2)    # 64
        self.assertEqual(sm[("zgemm_", 3, 1, 2, "N", "N")]["flops"], 8 * 3 * 1 * 2)    # 48
        self.assertEqual(sm[("cgemm_", 2, 2, 2, "N", "C")]["dtype"], "complex64")
        self.assertEqual(sm[("zgemm_", 3, 1, 2, "N", "N")]["dtype"], "complex128")
        self.assertEqual(sm[("dgemm_", 5, 6, 7, "T", "N")]["dtype"], "fp64")
        self.assertEqual(r["totals"]["gemm_calls"], 4)
        self.assertEqual(r["totals"]["gemm_flops"], 48 + 420 + 64 + 48)
        self.assertEqual(r["by_dtype"]["fp32"]["flops"], 48)
        self.assertEqual(r["process"]["command"], os.path.join(BIN, "blas_calls") + " fortran")

    def test_cblas_counted_once(self):
        path = self.report_path("cblas")
        run([os.path.join(BIN, "blas_calls"), "cblas"], path)
        r = load(path)
        # Reference CBLAS calls sgemm_ itself; only the outer cblas_* call counts.
        self.assertEqual(set(r["by_api"]), {"cblas_sgemm", "cblas_dgemm", "cblas_cgemm", "cblas_zgemm"})
        self.assertEqual(r["by_api"]["cblas_sgemm"], {"calls": 1, "flops": 2 * 4 * 5 * 6})
        self.assertEqual(r["by_api"]["cblas_dgemm"], {"calls": 1, "flops": 2 * 3 * 3 * 3})
        self.assertEqual(r["by_api"]["cblas_cgemm"], {"calls": 1, "flops": 8 * 2 * 3 * 4})
        self.assertEqual(r["by_api"]["cblas_zgemm"], {"calls": 1, "flops": 8 * 1 * 2 * 3})
        self.assertEqual(r["totals"]["gemm_calls"], 4)

    def test_zero_dims_are_valid_and_free(self):
        path = self.report_path("zero")
        run([os.path.join(BIN, "blas_calls"), "zero"], path)
        r = load(path)
        self.assertEqual(r["totals"]["gemm_calls"], 2)
        self.assertEqual(r["totals"]["gemm_flops"], 0)
        self.assertEqual(r["totals"]["invalid_calls"], 0)

    def test_rtld_local_library_is_forwarded(self):
        path = self.report_path("local")
        run([os.path.join(BIN, "local_main"), os.path.join(BIN, "liblocal_plugin.so")], path)
        r = load(path)
        self.assertEqual(r["totals"]["gemm_flops"], 2 * 3 * 4 * 5)
        self.assertEqual(r["totals"]["unresolved_calls"], 0)

    def test_gemm_before_constructor(self):
        path = self.report_path("early")
        run([os.path.join(BIN, "early_main")], path)
        r = load(path)
        self.assertEqual(r["totals"]["gemm_flops"], 2 * 2 * 2 * 3)

    def test_fork_child_without_gemm_does_not_overwrite(self):
        path = self.report_path("fork_quiet")
        p = run([os.path.join(BIN, "blas_calls"), "fork"], path)
        r = load(path)
        self.assertEqual(r["totals"]["gemm_flops"], 2 * 8 * 8 * 8)
        self.assertFalse(r["process"]["fork_child"])
        self.assertEqual(p.stderr.count("flopcount: pid"), 1)  # one summary, the parent's

    def test_fork_child_with_gemm_reports_apart(self):
        tmpl = os.path.join(WORK, "fork_pid_%p.json")
        run([os.path.join(BIN, "blas_calls"), "fork", "child-gemm"], tmpl)
        files = sorted(f for f in os.listdir(WORK) if f.startswith("fork_pid_") and f.endswith(".json"))
        self.assertEqual(len(files), 2)
        reports = [load(os.path.join(WORK, f)) for f in files]
        by_child = {r["process"]["fork_child"]: r for r in reports}
        self.assertEqual(by_child[False]["totals"]["gemm_flops"], 2 * 8 * 8 * 8)
        self.assertEqual(by_child[True]["totals"]["gemm_flops"], 2 * 2 * 2 * 2)

    def test_fork_child_with_gemm_same_file_keeps_parent(self):
        path = self.report_path("fork_same")
        p = run([os.path.join(BIN, "blas_calls"), "fork", "child-gemm"], path)
        r = load(path)  # the run joined into FILE: the parent's report, the child's summed in
        self.assertEqual(r["totals"]["gemm_flops"], 2 * 8 * 8 * 8 + 2 * 2 * 2 * 2)
        self.assertFalse(r["process"]["fork_child"])
        self.assertEqual(len(r["processes"]), 2)
        self.assertIn("put %p in FLOPCOUNT_OUTPUT", p.stderr)
        parts = [load(os.path.join(path + ".parts", f)) for f in os.listdir(path + ".parts")]
        by_child = {x["process"]["fork_child"]: x["totals"]["gemm_flops"] for x in parts}
        self.assertEqual(by_child, {False: 2 * 8 * 8 * 8, True: 2 * 2 * 2 * 2})  # each its own

    def test_rank_template(self):
        tmpl = os.path.join(WORK, "rank%r.json")
        # A launcher process (no rank, no GEMM) must not take rank 0's name.
        run(["sh", "-c", "exit 0"], tmpl, {"FLOPCOUNT_QUIET": "1"})
        self.assertFalse(os.path.exists(os.path.join(WORK, "rank0.json")))
        run([os.path.join(BIN, "blas_calls"), "zero"], tmpl,
            {"FLOPCOUNT_QUIET": "1", "RANK": "3", "LOCAL_RANK": "1", "WORLD_SIZE": "4"})
        r = load(os.path.join(WORK, "rank3.json"))
        self.assertEqual((r["process"]["rank"], r["process"]["local_rank"], r["process"]["world_size"]),
                         (3, 1, 4))
        self.assertEqual(r["process"]["launcher"], "torchrun")
        run([os.path.join(BIN, "blas_calls"), "zero"], tmpl,
            {"FLOPCOUNT_QUIET": "1", "OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_SIZE": "8"})
        self.assertEqual(load(os.path.join(WORK, "rank5.json"))["process"]["launcher"], "openmpi")
        run([os.path.join(BIN, "blas_calls"), "zero"], tmpl,
            {"FLOPCOUNT_QUIET": "1", "SLURM_PROCID": "6", "SLURM_NTASKS": "8", "SLURM_LOCALID": "2"})
        r = load(os.path.join(WORK, "rank6.json"))
        self.assertEqual((r["process"]["launcher"], r["process"]["local_rank"]), ("slurm", 2))
        run([os.path.join(BIN, "blas_calls"), "zero"], tmpl,
            {"FLOPCOUNT_QUIET": "1", "PMI_RANK": "7", "PMI_SIZE": "8"})
        self.assertEqual(load(os.path.join(WORK, "rank7.json"))["process"]["launcher"], "pmi")

    def test_no_temp_files_left(self):
        path = self.report_path("atomic")
        run([os.path.join(BIN, "blas_calls"), "fortran"], path)
        self.assertFalse([f for f in os.listdir(WORK) if ".tmp." in f])

    def test_quiet_silences_summary(self):
        p = run([os.path.join(BIN, "blas_calls"), "fortran"], None, {"FLOPCOUNT_QUIET": "1"})
        self.assertEqual(p.stderr, "")
        p = run([os.path.join(BIN, "blas_calls"), "fortran"], None)
        self.assertIn("flopcount: pid", p.stderr)
        self.assertIn("4 GEMM calls", p.stderr)

    def test_bad_env_value_warns_once_and_keeps_default(self):
        p = run([os.path.join(BIN, "blas_calls"), "fortran"], None, {"FLOPCOUNT_QUIET": "maybe"})
        self.assertIn("flopcount: FLOPCOUNT_QUIET='maybe' is not 0 or 1; ignored", p.stderr)
        self.assertIn("4 GEMM calls", p.stderr)

    def test_run_verb(self):
        if os.environ.get("FC_SANITIZER_RUNTIME"):
            self.skipTest("flopcount run puts the shim first in LD_PRELOAD, before any sanitizer runtime")
        path = self.report_path("run")
        p = run([EXE, "run", "--output", path, "--quiet", "--", os.path.join(BIN, "blas_calls"), "fortran"],
                None, preload=False)
        self.assertEqual(load(path)["totals"]["gemm_calls"], 4)
        # The command's own exit status comes back: usage error of blas_calls is 2.
        p = run([EXE, "run", "--output", path, "--", os.path.join(BIN, "blas_calls"), "nonsense"],
                None, preload=False, check=False)
        self.assertEqual(p.returncode, 2)
        p = run([EXE, "run", "--output", path, "--", "sh", "-c", "exit 7"], None, preload=False, check=False)
        self.assertEqual(p.returncode, 7)
        # An existing LD_PRELOAD is kept, after the shim.
        p = run([EXE, "run", "--quiet", "--output", path, "--", "sh", "-c", "echo $LD_PRELOAD"],
                None, {"LD_PRELOAD": "libm.so.6"}, preload=False)
        self.assertEqual(p.stdout.strip(), os.path.realpath(SHIM) + ":libm.so.6")

    def test_run_verb_errors(self):
        for args, msg in ((["run"], "no command given"),
                          (["run", "--bogus", "--", "true"], "unknown option '--bogus'"),
                          (["run", "--log-every", "x", "--", "true"], "bad value 'x' for --log-every"),
                          (["run", "--peak-tflops", "-3", "--", "true"], "bad value '-3' for --peak-tflops"),
                          (["run", "--output"], "--output needs a value"),
                          (["frobnicate"], "unknown command 'frobnicate'")):
            p = run([EXE] + args, None, preload=False, check=False)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(msg, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)


if __name__ == "__main__":
    BIN, SHIM, EXE, WORK = (os.path.abspath(a) for a in sys.argv[1:5])
    shutil.rmtree(WORK, ignore_errors=True)  # reports, and the FILE.parts/ of fork children
    os.makedirs(WORK)
    unittest.main(argv=sys.argv[:1], verbosity=2)
