# SPDX-License-Identifier: Apache-2.0
"""fcgpu.py - what every GPU validation check shares (tests/gpu/README.md).

A check is one small Python file, checks/NN_name.py, run by run.sh as
    python3 checks/NN_name.py --out DIR --prefix PREFIX --timeout SECONDS
It runs its workload programs (programs/), under `flopcount run` or not, each
with a timeout that kills the program's whole process group, reads the
reports, and ends with exactly one result: DIR/result.json and one line on
stdout, `NN_name  PASS|FAIL|SKIP: reason with the figures`.

Check drivers never import torch: they run on any python3, so the dry run on a
machine without a GPU goes through every check's SKIP path."""
import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import traceback

LIB_DIR = os.path.dirname(os.path.abspath(__file__))
GPU_DIR = os.path.dirname(LIB_DIR)
PROGRAMS = os.path.join(GPU_DIR, "programs")
REPO = os.path.dirname(os.path.dirname(GPU_DIR))
STATUSES = ("PASS", "FAIL", "SKIP")

# Sources whose hash says which tree a prefix was built from (prepare.sh
# writes it into the manifest, check 00 compares it with the tree it runs in).
SOURCE_DIRS = ("analysis", "shim", "tools", "include", "tests/gpu/programs")
SOURCE_SUFFIXES = (".c", ".h", ".txt", ".cmake")


class Skip(Exception):
    """The check cannot run here (no GPU, feature not built)."""


class Fail(Exception):
    """The check ran and a figure is wrong."""


def source_hash(root):
    """sha256 over the C sources and build files the prefix is built from."""
    h = hashlib.sha256()
    files = []
    for d in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = [x for x in dirnames if x != "__pycache__"]
            for f in filenames:
                if f.endswith(SOURCE_SUFFIXES):
                    files.append(os.path.relpath(os.path.join(dirpath, f), root))
    files.append("CMakeLists.txt")
    for rel in sorted(files):
        h.update(rel.encode() + b"\0")
        with open(os.path.join(root, rel), "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def default_prefix():
    """--prefix, else $FC_PREFIX, else the prefix this copy of tests/gpu
    lives in (PREFIX/share/flopcount-gpu), else REPO/.gpu/prefix."""
    env = os.environ.get("FC_PREFIX")
    if env:
        return env
    up = os.path.dirname(os.path.dirname(GPU_DIR))
    if os.path.basename(GPU_DIR) == "flopcount-gpu" and os.path.exists(os.path.join(up, "bin", "flopcount")):
        return up
    return os.path.join(REPO, ".gpu", "prefix")


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2.0


def rel_diff(a, b):
    """|a - b| / |b|."""
    return abs(a - b) / abs(b) if b else float("inf")


def si(x, unit="FLOP"):
    """1.23 GFLOP style, for result lines."""
    for scale, p in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return "%.3g %s%s" % (x / scale, p, unit)
    return "%g %s" % (x, unit)


class Proc:
    """What one program run left: exit status, seconds, its log."""

    def __init__(self, rc, seconds, log, timed_out):
        self.rc, self.seconds, self.log, self.timed_out = rc, seconds, log, timed_out

    def tail(self, n=1500):
        try:
            with open(self.log, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - n))
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def describe(self):
        if self.timed_out:
            return "timed out after %.0f s" % self.seconds
        return "exit %s after %.1f s" % (self.rc, self.seconds)


class Check:
    """One check: command line, budget, program runs, the one result."""

    def __init__(self, cid, doc):
        self.cid = cid
        self.title = (doc or "").strip().splitlines()[0] if doc else cid
        p = argparse.ArgumentParser(description=self.title)
        p.add_argument("--out", default=None, help="folder for result.json, reports and logs")
        p.add_argument("--prefix", default=None, help="the prepared install prefix")
        p.add_argument(
            "--python", default=None, help="interpreter for the workloads (default $FC_PYTHON or python3)"
        )
        p.add_argument("--timeout", type=float, default=float(os.environ.get("FC_CHECK_TIMEOUT", "300")))
        p.add_argument(
            "--self-test", action="store_true", help="test this check's logic on synthetic reports"
        )
        p.add_argument(
            "--rehearse-cpu", action="store_true", help="(03 only) run the check's logic on CPU torch"
        )
        self.args = p.parse_args()
        self.start = time.time()
        self.deadline = self.start + self.args.timeout - 5
        self.out = os.path.abspath(self.args.out or os.path.join(REPO, ".gpu", "out", "checks", cid))
        self.prefix = os.path.abspath(self.args.prefix or default_prefix())
        self.python = self.args.python or os.environ.get("FC_PYTHON") or "python3"
        self.flopcount = os.path.join(self.prefix, "bin", "flopcount")
        self.shim = os.path.join(self.prefix, "lib", "libflopcount.so")
        self.figures = {}
        self.children = []
        self.done = False
        if not self.args.self_test:
            os.makedirs(self.out, exist_ok=True)
            signal.signal(signal.SIGTERM, self._terminated)

    # -- result -------------------------------------------------------------
    def finish(self, status, reason):
        assert status in STATUSES
        if self.done:
            return
        self.done = True
        reason = " ".join(str(reason).split())
        res = {
            "id": self.cid,
            "title": self.title,
            "status": status,
            "reason": reason,
            "seconds": round(time.time() - self.start, 2),
            "figures": self.figures,
        }
        tmp = os.path.join(self.out, "result.json.tmp")
        with open(tmp, "w") as f:
            json.dump(res, f, indent=1, sort_keys=True, default=str)
        os.replace(tmp, os.path.join(self.out, "result.json"))
        print("%-18s %s: %s" % (self.cid, status, reason), flush=True)

    def _terminated(self, signum, frame):
        self.kill_children()
        self.finish("FAIL", "terminated by the run's timeout after %.0f s" % (time.time() - self.start))
        os._exit(124)

    def __enter__(self):
        return self

    def __exit__(self, etype, e, tb):
        self.kill_children()
        if etype is None:
            if not self.done:
                self.finish("FAIL", "internal error: the check ended without a result")
            return False
        if etype is Skip:
            self.finish("SKIP", str(e))
        elif etype is Fail:
            self.finish("FAIL", str(e))
        elif issubclass(etype, KeyboardInterrupt):
            self.finish("FAIL", "interrupted")
        else:
            with open(os.path.join(self.out, "internal_error.txt"), "w") as f:
                traceback.print_exception(etype, e, tb, file=f)
            self.finish("FAIL", "internal error in the check: %s: %s" % (etype.__name__, e))
        return True

    # -- time -----------------------------------------------------------------
    def remaining(self):
        return self.deadline - time.time()

    def budget(self, want):
        """Seconds a program may run: want, or what is left of the check's time."""
        left = self.remaining()
        if left < 5:
            raise Fail(
                "no time left in the check's %.0f s (figures so far: %s)"
                % (self.args.timeout, json.dumps(self.figures, default=str)[:300])
            )
        return min(want, left)

    # -- gates ------------------------------------------------------------------
    def need_gpu(self):
        """Skip: no GPU unless run.sh (or a probe here) found torch with CUDA."""
        flag = os.environ.get("FC_GPU")
        reason = os.environ.get("FC_GPU_REASON", "")
        if flag is None:
            flag, reason = probe_gpu(self.python)
        if flag != "1":
            raise Skip("no GPU (%s)" % reason)

    def need_real_gpu(self, why):
        """Skip on the null GPU (FC_NULLGPU=1: nullgpu/, CI's torch_cuda tests),
        where kernels do nothing and times are the host's: why says what of
        a real device the check needs."""
        if os.environ.get("FC_NULLGPU") == "1":
            raise Skip("needs a real GPU (%s); this run is on the null GPU" % why)

    def need_prefix(self):
        if not os.access(self.flopcount, os.X_OK) or not os.path.exists(self.shim):
            raise Fail("no prepared prefix at %s (run tests/gpu/run.sh --prepare)" % self.prefix)

    def run_help(self):
        """`flopcount run --help`: the options this build has."""
        self.need_prefix()
        r = subprocess.run(
            [self.flopcount, "run", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30
        )
        return r.stdout.decode(errors="replace")

    def has_run_option(self, option):
        return assume_built() or option in self.run_help()

    def shim_defines(self, symbol):
        """True when libflopcount.so itself defines (exports) symbol."""
        self.need_prefix()
        return assume_built() or symbol in defined_dynamic_symbols(self.shim)

    # -- programs -----------------------------------------------------------------
    def run(self, argv, name, timeout, env=None, under=None, cwd=None):
        """Runs argv (under `flopcount run FLAGS --` when under is a list of
        flags), output in OUT/name.log; the report, if any, is OUT/name.PID.json.
        The program gets its own process group, killed on timeout."""
        timeout = self.budget(timeout)
        if under is not None:
            self.need_prefix()
            argv = (
                [self.flopcount, "run", "--output", os.path.join(self.out, name + ".%p.json")]
                + list(under)
                + ["--"]
                + list(argv)
            )
        full_env = dict(os.environ)
        full_env.update({"PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"})
        if env:
            full_env.update(env)
        log = os.path.join(self.out, name + ".log")
        with open(log, "ab") as lf:
            lf.write(("$ %s\n" % " ".join(argv)).encode())
            lf.flush()
            t0 = time.time()
            p = subprocess.Popen(
                argv,
                stdout=lf,
                stderr=subprocess.STDOUT,
                env=full_env,
                cwd=cwd or self.out,
                start_new_session=True,
            )
            self.children.append(p)
            with open(os.path.join(self.out, "pgids"), "a") as f:  # run.sh kills these if the check is killed
                f.write("%d\n" % p.pid)
            timed_out = False
            try:
                rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                kill_group(p)
                rc = p.wait()
            self.children.remove(p)
            secs = time.time() - t0
            lf.write(
                ("# %s: rc %s, %.2f s%s\n" % (name, rc, secs, ", TIMED OUT" if timed_out else "")).encode()
            )
        return Proc(rc, secs, log, timed_out)

    def run_ok(self, argv, name, timeout, **kw):
        """run(), and Fail when the program did not exit 0."""
        pr = self.run(argv, name, timeout, **kw)
        if pr.timed_out or pr.rc != 0:
            raise Fail(
                "%s: %s; log %s ends: %s"
                % (name, pr.describe(), os.path.basename(pr.log), pr.tail(400).strip()[-400:])
            )
        return pr

    def capture(self, argv, name, timeout=60):
        """stdout of a quick command (kept in OUT/name.out); Fail unless it exits 0."""
        try:
            r = subprocess.run(
                argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=self.budget(timeout)
            )
        except subprocess.TimeoutExpired:
            raise Fail("%s timed out" % " ".join(argv))
        text = r.stdout.decode(errors="replace")
        with open(os.path.join(self.out, name + ".out"), "w") as f:
            f.write("$ %s\n%s%s" % (" ".join(argv), text, r.stderr.decode(errors="replace")))
        if r.returncode != 0:
            raise Fail(
                "%s: exit %d: %s" % (" ".join(argv), r.returncode, r.stderr.decode(errors="replace")[-300:])
            )
        return text

    def python_program(self, program, args, name, timeout, wrap=(), **kw):
        """Runs programs/PROGRAM with the workload interpreter (behind the
        command wrap, e.g. ncu and its options); returns its meta JSON
        (written by the program to OUT/name.meta.json)."""
        meta = os.path.join(self.out, name + ".meta.json")
        if os.path.exists(meta):
            os.remove(meta)
        argv = (
            list(wrap)
            + [self.python, os.path.join(PROGRAMS, program), "--meta", meta]
            + [str(a) for a in args]
        )
        self.run_ok(argv, name, timeout, **kw)
        return load_json(meta, "%s's meta file" % name)

    def report(self, name, pid):
        """The report the program with this pid wrote; other reports in the
        folder with the same name (child processes: ldconfig, compile workers)
        are listed in the figures."""
        path = os.path.join(self.out, "%s.%s.json" % (name, pid))
        others = [
            f
            for f in os.listdir(self.out)
            if f.startswith(name + ".")
            and f.endswith(".json")
            and not f.endswith(".meta.json")
            and f != os.path.basename(path)
        ]
        if others:
            self.figures.setdefault("child_reports", {})[name] = len(others)
        return load_json(path, "the flopcount report of %s (pid %s)" % (name, pid))

    def kill_children(self):
        for p in list(self.children):
            kill_group(p)


def assume_built():
    """FC_ASSUME_BUILT=1: feature probes say yes (the dry run uses it to walk the
    not-yet-built checks past their probe to their no-GPU SKIP)."""
    return os.environ.get("FC_ASSUME_BUILT") == "1"


def kill_group(p):
    """SIGTERM to the process group, SIGKILL 5 s later if it is still there."""
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except OSError:
        return
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise Fail("%s is missing (%s)" % (what, path))
    except ValueError as e:
        raise Fail("%s is not JSON: %s" % (what, e))


PROBE = r"""
import json
try:
    import torch
except Exception as e:
    print(json.dumps({"gpu": False, "reason": "python3 cannot import torch: %s" % type(e).__name__}))
    raise SystemExit(0)
d = {"torch": torch.__version__, "torch_cuda": getattr(torch.version, "cuda", None)}
if not torch.cuda.is_available():
    d.update(gpu=False, reason="torch %s: torch.cuda.is_available() is False" % torch.__version__)
else:
    p = torch.cuda.get_device_properties(0)
    d.update(gpu=True, reason="", name=torch.cuda.get_device_name(0), count=torch.cuda.device_count(),
             sm_count=p.multi_processor_count, cc="%d.%d" % (p.major, p.minor),
             memory_gib=round(p.total_memory / 2**30, 1))
print(json.dumps(d))
"""


def probe_torch(python, timeout=120):
    """What the workload interpreter says about torch and CUDA (a dict)."""
    try:
        r = subprocess.run(
            [python, "-c", PROBE], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout
        )
    except FileNotFoundError:
        return {"gpu": False, "reason": "no %s" % python}
    except subprocess.TimeoutExpired:
        return {"gpu": False, "reason": "probing torch timed out after %d s" % timeout}
    try:
        return json.loads(r.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"gpu": False, "reason": "torch probe failed: %s" % r.stderr.decode(errors="replace")[-200:]}


def probe_gpu(python):
    d = probe_torch(python)
    return ("1" if d.get("gpu") else "0"), d.get("reason", "")


def defined_dynamic_symbols(path):
    """Names an ELF shared object defines in its dynamic symbol table
    (nm -D --defined-only, else readelf)."""
    for cmd in (["nm", "-D", "--defined-only", path], ["readelf", "-W", "--dyn-syms", path]):
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if r.returncode != 0:
            continue
        names = set()
        for line in r.stdout.decode(errors="replace").splitlines():
            parts = line.split()
            if cmd[0] == "nm" and len(parts) >= 3:
                names.add(parts[2].split("@")[0])
            elif cmd[0] == "readelf" and len(parts) >= 8 and parts[6] != "UND":
                names.add(parts[7].split("@")[0])
        return names
    raise Fail("cannot list the symbols of %s (neither nm nor readelf ran)" % path)
