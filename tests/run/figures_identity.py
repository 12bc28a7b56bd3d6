# SPDX-License-Identifier: Apache-2.0
"""figures_identity.py SHIM FLOPCOUNT WORKDIR

One run, one set of figures (analysis/run/run_figures.h): HFU, MFU, the
recompute per iteration and HFU at the dtype mix are identical in the
shim's JSON report, its exit summary, its Prometheus textfile,
`flopcount report --json`, the `report --html` page, `flopcount merge
--json` of the one report and `report` of that merge - on a run with
flagged iterations, the case where the paths drifted apart.

The program (Python + ctypes, the reference BLAS, markers) runs 7
iterations of one attention-like block of n=64 square sgemm_ calls: 4
forward (Q, K, scores Q K^T, output), 8 backward, of which one is the
scores Q K^T again - a recompute or a backward product? The first two
iterations declare their phases (forward_begin, backward_begin,
recompute_begin/end around the repeated scores): their split is sure, the
repeat is recompute. The other five declare nothing: the detector cannot
tell and flags them (ambiguous_recompute) and takes the repeat for
backward (recompute 0). By hand:
  one product = 2 * 64^3 = 524,288 FLOPs; an iteration 12 = 6,291,456
  steady = iterations 2..7: one sure (recompute 524,288), five guessed (0)
  recompute = the median of the sure ones = 524,288 (of all six: 0)
  model FLOPs = 6,291,456 - 524,288 = 5,767,168
  peak 1 TFLOP/s (FLOPCOUNT_PEAK_TFLOPS=1), one device, one dtype (fp32):
  HFU = 6,291,456 / (t x 1e12), MFU = 5,767,168 / (t x 1e12), HFU at the
  mix = HFU, with t the lower median of the steady iterations' seconds.
"""
import json
import os
import re
import subprocess
import sys

PY = "/usr/bin/python3"
PRODUCT = 2 * 64 ** 3
PER_ITER = 12 * PRODUCT
DECLARED = "1100000"

PROGRAM = r"""
import ctypes, time, sys
ctypes.CDLL("libblas.so.3", mode=ctypes.RTLD_GLOBAL)
blas = ctypes.CDLL(None)  # the global scope: the preloaded hook first
n = 64
def mat():
    return (ctypes.c_float * (n * n))(*([0.5] * (n * n)))
Wq, Wk, Wo, X, Q, K, S, S2, O, dO, dS, dQ, dK, dX, dWq, dWk, dWo = (mat() for _ in range(17))
N = ctypes.c_int(n); one = ctypes.c_float(1.0); zero = ctypes.c_float(0.0)
def gemm(ta, tb, a, b, c):
    blas.sgemm_(ctypes.c_char_p(ta), ctypes.c_char_p(tb), ctypes.byref(N), ctypes.byref(N),
                ctypes.byref(N), ctypes.byref(one), a, ctypes.byref(N), b, ctypes.byref(N),
                ctypes.byref(zero), c, ctypes.byref(N))
for d in (int(c) for c in %r):
    if d: blas.flopcount_forward_begin()
    gemm(b"N", b"N", Wq, X, Q)
    gemm(b"N", b"N", Wk, X, K)
    gemm(b"N", b"T", Q, K, S)      # scores: no weight
    gemm(b"N", b"N", Wo, S, O)
    if d: blas.flopcount_backward_begin()
    gemm(b"T", b"N", Wo, dO, dS)
    gemm(b"N", b"T", dO, S, dWo)
    if d: blas.flopcount_recompute_begin()
    gemm(b"N", b"T", Q, K, S2)     # the scores again
    if d: blas.flopcount_recompute_end()
    gemm(b"N", b"N", dS, K, dQ)
    gemm(b"T", b"N", dS, Q, dK)
    gemm(b"N", b"T", dQ, X, dWq)
    gemm(b"N", b"T", dK, X, dWk)
    gemm(b"T", b"N", Wq, dQ, dX)
    time.sleep(0.01)
    blas.flopcount_step()
""" % DECLARED


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def cli(exe, args):
    r = subprocess.run([exe] + args, capture_output=True, text=True)
    if r.returncode:
        fail(f"{args[0]} exit {r.returncode}: {r.stderr}")
    return r.stdout


def pct(x):
    """fc_figures_pct: the shim's summary."""
    p = 100 * x
    return "%.1f%%" % p if p >= 0.1 or p <= 0 else "%.3g%%" % p


def fmt_pct(x):
    """fci_fmt_pct: the report's text and page."""
    return "%.2g%%" % (100 * x) if x != 0 and abs(x) < 0.001 else "%.1f%%" % (100 * x)


def same(path, got, want):
    if got != want:
        fail(f"{path}: {got!r}, want {want!r}")


def main():
    shim, exe, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "run.json")
    prom = os.path.join(work, "prom")
    os.makedirs(prom, exist_ok=True)
    for f in os.listdir(prom):
        os.unlink(os.path.join(prom, f))
    env = dict(os.environ, LD_PRELOAD=shim, FLOPCOUNT_OUTPUT=out, FLOPCOUNT_PEAK_TFLOPS="1",
               FLOPCOUNT_PROMETHEUS=prom)
    env.pop("FLOPCOUNT_QUIET", None)
    p = subprocess.run([PY, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=120)
    if p.returncode:
        fail(f"program: exit {p.returncode}: {p.stderr}")
    own = json.load(open(out))
    it = own["iterations"]
    lst = it["list"]
    # the precondition: the run is the one worked out above
    if [x["flops"] for x in lst] != [PER_ITER] * 7:
        fail(f"iterations {[x['flops'] for x in lst]}")
    steady = lst[1:]
    split = [(x["recompute_flops"], x.get("ambiguous_recompute", False)) for x in steady]
    if split != [(PRODUCT, False)] + [(0, True)] * 5:
        fail(f"steady (recompute, guessed): {split}; want one sure {PRODUCT} and five guessed 0")
    t = sorted(x["seconds"] for x in steady)[(len(steady) - 1) // 2]
    hfu = PER_ITER / (t * 1.0 * 1e12)
    mfu = (PER_ITER - PRODUCT) / (t * 1.0 * 1e12)
    u = own["utilization"]
    same("own median_seconds", it["median_seconds"], t)
    same("own hfu", u["hfu"], hfu)
    same("own mfu", u["mfu"], mfu)
    same("own hfu_mix", u["hfu_mix"], hfu)
    same("own recompute (hardware - model)",
         u["hardware_flops_per_iteration"] - u["model_flops_per_iteration"], PRODUCT)
    # the exit summary
    m = re.search(r"flopcount: HFU (\S+) MFU (\S+)", p.stderr)
    if m is None:
        fail(f"no HFU/MFU line in the summary: {p.stderr}")
    same("summary HFU", m.group(1), pct(hfu))
    same("summary MFU", m.group(2), pct(mfu))
    # the Prometheus textfile (the last one written, at exit)
    files = [f for f in os.listdir(prom) if f.endswith(".prom")]
    if len(files) != 1:
        fail(f"prometheus files {files}")
    text = open(os.path.join(prom, files[0])).read()
    vals = dict(re.findall(r"^(flopcount_(?:hfu|mfu|hfu_mix)_ratio)\{[^}]*\} (\S+)$", text, re.M))
    same("prometheus hfu", float(vals.get("flopcount_hfu_ratio", "nan")), hfu)
    same("prometheus mfu", float(vals.get("flopcount_mfu_ratio", "nan")), mfu)
    same("prometheus hfu_mix", float(vals.get("flopcount_hfu_mix_ratio", "nan")), hfu)
    # flopcount report --json, and its page
    page = os.path.join(work, "run.html")
    rep = json.loads(cli(exe, ["report", out, "--json", "--html", page]))["measured"]
    same("report hfu", rep["hfu"], hfu)
    same("report mfu", rep["mfu"], mfu)
    same("report hfu_mix", rep["hfu_mix"], hfu)
    same("report recompute", rep["recompute_flops_per_iteration"], PRODUCT)
    same("report recompute_guessed", rep["recompute_guessed"], False)
    html = open(page).read()
    cells = dict(re.findall(r'data-k="(measured\.[a-z_]+)">([^<]*)<', html))
    same("page hfu", cells.get("measured.hfu"), fmt_pct(hfu))
    same("page mfu", cells.get("measured.mfu"), fmt_pct(mfu))
    same("page hfu_mix", cells.get("measured.hfu_mix"), fmt_pct(hfu))
    same("page recompute", cells.get("measured.recompute_flops_per_iteration"), str(PRODUCT))
    # flopcount merge of the one report, and report of the merge
    merged = os.path.join(work, "merged.json")
    text = cli(exe, ["merge", out, "--json"])
    open(merged, "w").write(text)
    mer = json.loads(text)
    same("merge hfu", mer["utilization"]["hfu"], hfu)
    same("merge mfu", mer["utilization"]["mfu"], mfu)
    same("merge hfu_mix", mer["utilization"]["hfu_mix"], hfu)
    same("merge recompute", mer["iterations"]["recompute_flops_per_iteration"], PRODUCT)
    same("merge recompute_guessed", mer["iterations"]["recompute_guessed"], False)
    again = json.loads(cli(exe, ["report", merged, "--json"]))["measured"]
    same("report of the merge hfu", again["hfu"], hfu)
    same("report of the merge mfu", again["mfu"], mfu)
    same("report of the merge recompute", again["recompute_flops_per_iteration"], PRODUCT)
    print(f"run_figures_identity: HFU {hfu!r} MFU {mfu!r} recompute {PRODUCT} in all paths")


main()
