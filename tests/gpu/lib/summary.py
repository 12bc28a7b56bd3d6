# SPDX-License-Identifier: Apache-2.0
"""summary.py - run.sh's helper for what is not a check: the machine probe,
a result for a check that left none, the one line per check, OUT/summary.json
and its shape.

  summary.py probe OUT/machine.json              prints "1|0", the reason, a line about it
  summary.py result DIR ID STATUS REASON         writes DIR/result.json
  summary.py line DIR/result.json                prints "ID  STATUS: reason"
  summary.py build OUT MODE BUDGET START PREFIX ID...   writes OUT/summary.json
  summary.py after ID OUT MODE BUDGET START PREFIX ID...   line of ID, then build
  summary.py validate OUT/summary.json [--dry-run]
  summary.py selftests ID...                     every check's self_test(), in one process

summary.json (schema "flopcount-gpu-validation/1"):
  schema, mode ("gpu" | "dry-run"), started, finished (UTC ISO 8601),
  seconds, budget_seconds, complete (every listed check has a result),
  machine {host, kernel, glibc, python, gpu, reason, torch, nvidia_smi, ncu,
  nvcc, packages}, prefix {path, manifest}, counts {PASS, FAIL, SKIP},
  checks [{id, title, status, reason, seconds, figures, log}]."""
import json
import os
import platform
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fcgpu  # noqa: E402

SCHEMA = "flopcount-gpu-validation/1"
PACKAGES = ("torch", "triton", "jax", "jaxlib", "cupy-cuda13x", "cupy", "numpy")


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def first_line(cmd, timeout=30, last=False):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "unavailable (%s)" % type(e).__name__
    lines = [x for x in r.stdout.decode(errors="replace").splitlines() if x.strip()]
    if not lines:
        return "unavailable (no output, exit %d)" % r.returncode
    return (lines[-1] if last else lines[0]).strip()


def packages(python):
    code = (
        "import importlib.metadata as m, json\nd = {}\nfor p in %r:\n    try: d[p] = m.version(p)\n"
        "    except Exception: pass\nprint(json.dumps(d))" % (PACKAGES,)
    )
    try:
        r = subprocess.run(
            [python, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60
        )
        return json.loads(r.stdout.decode().strip() or "{}")
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return {}


def probe(path):
    python = os.environ.get("FC_PYTHON", "python3")
    t = fcgpu.probe_torch(python)
    ncu = shutil.which("ncu") or (
        "/usr/local/cuda/bin/ncu" if os.path.exists("/usr/local/cuda/bin/ncu") else None
    )
    m = {
        "host": platform.node(),
        "kernel": platform.release(),
        "arch": platform.machine(),
        "glibc": os.confstr("CS_GNU_LIBC_VERSION") if hasattr(os, "confstr") else None,
        "python": first_line([python, "--version"]),
        "gpu": bool(t.get("gpu")),
        "reason": t.get("reason", ""),
        "torch": t,
        "nvidia_smi": first_line(
            [
                "nvidia-smi",
                "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                "--format=csv,noheader",
            ]
        )
        if shutil.which("nvidia-smi")
        else "no nvidia-smi",
        "ncu": first_line([ncu, "--version"], last=True) if ncu else "no ncu",
        "nvcc": first_line(["nvcc", "--version"], last=True) if shutil.which("nvcc") else "no nvcc",
        "packages": packages(python),
    }
    with open(path, "w") as f:
        json.dump(m, f, indent=1, sort_keys=True)
    desc = (
        "%s (torch %s, CUDA %s)" % (t.get("name"), t.get("torch"), t.get("torch_cuda"))
        if m["gpu"]
        else "no GPU: %s" % m["reason"]
    )
    print("1" if m["gpu"] else "0")
    print(m["reason"] or "ok")
    print("machine: %s, %s, %s; %s" % (m["host"], m["glibc"], m["arch"], desc))


def write_result(d, cid, status, reason):
    os.makedirs(d, exist_ok=True)
    res = {"id": cid, "title": cid, "status": status, "reason": reason, "seconds": 0, "figures": {}}
    with open(os.path.join(d, "result.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)


def line(path):
    r = fcgpu.load_json(path, "result")
    print("%-18s %s: %s" % (r["id"], r["status"], r["reason"]))


def build(out, mode, budget, start, prefix, ids):
    checks, counts = [], {s: 0 for s in fcgpu.STATUSES}
    for cid in ids:
        d = os.path.join(out, "checks", cid)
        try:
            with open(os.path.join(d, "result.json")) as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue
        r["log"] = os.path.relpath(os.path.join(d, "check.log"), out)
        checks.append(r)
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    manifest = None
    try:
        with open(os.path.join(prefix, "share", "flopcount-gpu", "manifest.json")) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        pass
    try:
        with open(os.path.join(out, "machine.json")) as f:
            machine = json.load(f)
    except (OSError, ValueError):
        machine = None
    now = time.time()
    s = {
        "schema": SCHEMA,
        "mode": mode,
        "started": iso(float(start)),
        "finished": iso(now),
        "seconds": round(now - float(start), 1),
        "budget_seconds": int(budget),
        "complete": len(checks) == len(ids),
        "machine": machine,
        "prefix": {"path": prefix, "manifest": manifest},
        "counts": counts,
        "checks": checks,
    }
    tmp = os.path.join(out, "summary.json.tmp")
    with open(tmp, "w") as f:
        json.dump(s, f, indent=1, sort_keys=True, default=str)
    os.replace(tmp, os.path.join(out, "summary.json"))


def selftests(ids):
    """Imports checks/ID.py for each id and runs its self_test(): the logic
    that will judge a GPU run, on synthetic reports (passing and failing)."""
    import importlib.util

    bad = 0
    checks = os.path.join(fcgpu.GPU_DIR, "checks")
    for cid in ids:
        try:
            spec = importlib.util.spec_from_file_location("check_" + cid, os.path.join(checks, cid + ".py"))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            n = mod.self_test()
            print("self-test %-18s ok (%d cases)" % (cid, n))
        except Exception as e:  # report every failing check, not only the first
            bad += 1
            print("self-test %-18s FAILED: %s: %s" % (cid, type(e).__name__, e))
    return 1 if bad else 0


def problems_of(s, dry_run):
    """What is wrong with a summary's shape (a list of sentences)."""
    p = []

    def need(obj, key, types, where):
        if not isinstance(obj, dict) or key not in obj:
            p.append("%s: no '%s'" % (where, key))
            return None
        if not isinstance(obj[key], types):
            p.append("%s.%s: %s is not %s" % (where, key, type(obj[key]).__name__, types))
            return None
        return obj[key]

    if need(s, "schema", str, "summary") not in (SCHEMA, None):
        p.append("schema is %r" % s["schema"])
    need(s, "mode", str, "summary")
    for k in ("started", "finished"):
        need(s, k, str, "summary")
    need(s, "seconds", (int, float), "summary")
    need(s, "budget_seconds", int, "summary")
    need(s, "complete", bool, "summary")
    m = need(s, "machine", dict, "summary")
    if m is not None:
        for k in ("host", "glibc", "gpu", "reason", "torch", "nvidia_smi", "ncu"):
            need(m, k, (str, bool, dict, type(None)), "machine")
    pr = need(s, "prefix", dict, "summary")
    if pr is not None:
        mf = need(pr, "manifest", dict, "prefix")
        if mf is not None:
            for k in ("source_hash", "glibc_required", "libs_copied"):
                need(mf, k, (str, list), "prefix.manifest")
    counts = need(s, "counts", dict, "summary") or {}
    checks = need(s, "checks", list, "summary") or []
    seen, tally = set(), {st: 0 for st in fcgpu.STATUSES}
    for i, c in enumerate(checks):
        w = "checks[%d]" % i
        for k, t in (
            ("id", str),
            ("title", str),
            ("status", str),
            ("reason", str),
            ("seconds", (int, float)),
            ("figures", dict),
            ("log", str),
        ):
            need(c, k, t, w)
        if c.get("status") not in fcgpu.STATUSES:
            p.append("%s: status %r" % (w, c.get("status")))
        else:
            tally[c["status"]] += 1
        if c.get("id") in seen:
            p.append("%s: id %s twice" % (w, c.get("id")))
        seen.add(c.get("id"))
        if not str(c.get("reason", "")).strip():
            p.append("%s: empty reason" % w)
    if any(counts.get(st) != tally[st] for st in fcgpu.STATUSES):
        p.append("counts %s do not match the checks %s" % (counts, tally))
    if dry_run:
        if s.get("mode") != "dry-run" or not s.get("complete"):
            p.append("dry run: mode %r, complete %r" % (s.get("mode"), s.get("complete")))
        for c in checks:
            if c.get("id") == "00_bringup":
                if c.get("status") != "PASS":
                    p.append("dry run: bring-up is %s: %s" % (c.get("status"), c.get("reason")))
            elif c.get("status") != "SKIP" or not str(c.get("reason", "")).startswith(
                ("no GPU", "not built")
            ):
                p.append(
                    "dry run: %s is %s: %s (expected SKIP: no GPU or not built)"
                    % (c.get("id"), c.get("status"), c.get("reason"))
                )
        if "00_bringup" not in seen:
            p.append("dry run: no bring-up result")
    return p


def validate(path, dry_run):
    s = fcgpu.load_json(path, "the summary")
    p = problems_of(s, dry_run)
    for x in p:
        print("summary: %s" % x)
    if not p:
        print("summary: %s is well formed (%d checks: %s)" % (path, len(s["checks"]), s["counts"]))
    return 1 if p else 0


def main():
    a = sys.argv[1:]
    try:
        if a[0] == "probe":
            probe(a[1])
        elif a[0] == "result":
            write_result(a[1], a[2], a[3], a[4])
        elif a[0] == "line":
            line(a[1])
        elif a[0] == "build":
            build(a[1], a[2], a[3], a[4], a[5], a[6:])
        elif a[0] == "after":
            line(os.path.join(a[2], "checks", a[1], "result.json"))
            build(a[2], a[3], a[4], a[5], a[6], a[7:])
        elif a[0] == "selftests":
            return selftests(a[1:])
        elif a[0] == "validate":
            return validate(a[1], "--dry-run" in a[2:])
        else:
            raise IndexError
    except IndexError:
        print(__doc__, file=sys.stderr)
        return 2
    except fcgpu.Fail as e:
        print("summary: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
