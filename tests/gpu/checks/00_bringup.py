# SPDX-License-Identifier: Apache-2.0
"""00 bring-up: the carried prefix loads here, the CLI runs, the shim preloads and counts.

Needs no GPU (the dry run passes it on the CPU machine). Asserts:
  * the prefix has its manifest, was built from the sources of the tree it
    runs in (same source hash; a stale prefix would validate other code),
    and this machine's glibc is at least the newest symbol version the
    prefix's files need;
  * ldd finds every library of the CLI and the shim (the copied ones inside
    the prefix);
  * `flopcount peak --gpu H200 --dtype bf16 --json` answers 989.4e12 FLOP/s
    (REFERENCE.md section 3; CLI and peak table, no device needed);
  * the trivial program libexec/flopcount-gpu/fcgpu_bringup (three sgemm_
    calls through the prefix's own tiny BLAS) under `flopcount run`: 3 calls
    and 2*(2*3*4 + 5*6*7 + 16*16*16) = 8660 FLOPs, by hand; its output is the
    same as without the shim; the call sites have frames (libunwind, loaded
    at run time, comes from the prefix); `flopcount report` reads the report."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import fcgpu  # noqa: E402

SHAPES = ((2, 3, 4), (5, 6, 7), (16, 16, 16))
EXPECTED_FLOPS = sum(2 * m * n * k for m, n, k in SHAPES)  # 8660
H200_BF16 = 989.4e12


def version_tuple(v):
    return tuple(int(x) for x in v.split(".") if x.isdigit())


def check_prefix(c, problems):
    manifest = fcgpu.load_json(
        os.path.join(c.prefix, "share", "flopcount-gpu", "manifest.json"), "the prefix manifest"
    )
    c.figures["manifest"] = manifest
    here = None
    if os.path.isdir(os.path.join(fcgpu.REPO, "shim")):
        here = fcgpu.source_hash(fcgpu.REPO)
        if here != manifest.get("source_hash"):
            problems.append(
                "stale prefix: built from other sources (commit %s) than this tree; rerun --prepare"
                % manifest.get("commit", "?")[:12]
            )
    glibc = os.confstr("CS_GNU_LIBC_VERSION") if hasattr(os, "confstr") else ""
    c.figures["glibc"] = glibc
    need = manifest.get("glibc_required", "0")
    have = glibc.split()[-1] if glibc else "0"
    if version_tuple(have) < version_tuple(need):
        problems.append("glibc %s here, the prefix needs %s (prepare it on an older system)" % (have, need))
    if shutil.which("ldd") is None:
        c.figures["ldd"] = "no ldd on this machine: library resolution not listed"
        return manifest, here is not None
    for f in (c.flopcount, c.shim):
        env = dict(os.environ, LD_LIBRARY_PATH="")
        r = subprocess.run(["ldd", f], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=30)
        text = r.stdout.decode(errors="replace")
        missing = [ln.split()[0] for ln in text.splitlines() if "not found" in ln]
        outside = [
            ln.split()[0]
            for ln in text.splitlines()
            if any(ln.strip().startswith(x + " ") for x in manifest.get("libs_copied", []))
            and c.prefix + "/" not in ln
        ]
        if missing or outside:
            problems.append(
                "%s: libraries not found %s, copied ones resolved outside the prefix %s"
                % (os.path.basename(f), missing, outside)
            )
    return manifest, here is not None


def run(c):
    c.need_prefix()
    problems = []
    manifest, hashed = check_prefix(c, problems)
    c.run_ok([c.flopcount, "--help"], "help", 30)
    pr = subprocess.run(
        [c.flopcount, "peak", "--gpu", "H200", "--dtype", "bf16", "--json"],
        stdout=subprocess.PIPE,
        timeout=30,
    )
    try:
        peak = json.loads(pr.stdout.decode())["peak_flops"]
    except (ValueError, KeyError):
        peak = None
    c.figures["peak_h200_bf16"] = peak
    if peak is None or fcgpu.rel_diff(peak, H200_BF16) > 1e-9:
        problems.append("flopcount peak --gpu H200 --dtype bf16: %s, expected %g" % (peak, H200_BF16))
    prog = os.path.join(c.prefix, "libexec", "flopcount-gpu", "fcgpu_bringup")
    c.run_ok([prog], "plain", 30)
    c.run_ok([prog], "shim", 30, under=[])
    outs = []
    for name in ("plain", "shim"):
        with open(os.path.join(c.out, name + ".log")) as f:
            outs.append([ln for ln in f if ln.startswith("bringup checksum")])
    if len(outs[0]) != 1 or outs[0] != outs[1]:
        problems.append("program output changed under the shim: %s vs %s" % (outs[0], outs[1]))
    reports = [f for f in os.listdir(c.out) if f.startswith("shim.") and f.endswith(".json")]
    if len(reports) != 1:
        raise fcgpu.Fail("expected one report from the bring-up program, found %s" % reports)
    rep = fcgpu.load_json(os.path.join(c.out, reports[0]), "the bring-up report")
    tot = rep.get("totals", {})
    c.figures["totals"] = tot
    if (
        tot.get("gemm_calls") != 3
        or tot.get("gemm_flops") != EXPECTED_FLOPS
        or list(rep.get("by_api", {})) != ["sgemm_"]
    ):
        problems.append(
            "counted %s calls, %s FLOPs via %s; expected 3 calls, %d FLOPs via sgemm_"
            % (tot.get("gemm_calls"), tot.get("gemm_flops"), list(rep.get("by_api", {})), EXPECTED_FLOPS)
        )
    # libunwind comes with the prefix (dlopen'ed at the first unwind, found
    # through the shim's RUNPATH): the call sites must have frames.
    top = (rep.get("callsites") or {}).get("top") or []
    if not top or not top[0].get("frames"):
        problems.append("no call-site frames in the report (libunwind from the prefix not loaded?): %s"
                        % json.dumps(rep.get("callsites"))[:200])
    c.run_ok([c.flopcount, "report", os.path.join(c.out, reports[0])], "report", 30)
    if problems:
        raise fcgpu.Fail("; ".join(problems))
    c.finish(
        "PASS",
        "prefix %s (%s; libs %s; needs glibc >= %s, have %s), CLI and shim load; sgemm_ x3 = %d FLOPs "
        "counted, output unchanged; report read back"
        % (
            "matches this tree" if hashed else "from commit %s" % manifest.get("commit", "?")[:12],
            manifest.get("commit", "?")[:12],
            " ".join(manifest.get("libs_copied", [])) or "none",
            manifest.get("glibc_required"),
            c.figures["glibc"].split()[-1],
            EXPECTED_FLOPS,
        ),
    )


def self_test():
    assert EXPECTED_FLOPS == 8660
    assert version_tuple("2.34") > version_tuple("2.28") and version_tuple("2.35") >= version_tuple("2.34")
    return 2


def main():
    c = fcgpu.Check("00_bringup", __doc__)
    if c.args.self_test:
        print("00_bringup self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
