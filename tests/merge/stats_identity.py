# SPDX-License-Identifier: Apache-2.0
"""stats_identity.py SHIM FLOPCOUNT WORKDIR

One rank's figures are the same in its own report, in 'flopcount report'
and in 'flopcount merge' (analysis/stats.h: one median, one steady rule),
on an EVEN number of steady iterations, where a mean of the two middle
values and the lower middle value differ.

The program (Python + ctypes, the real reference BLAS, flopcount_step()
markers) runs 5 iterations; iteration i makes SIZES[i] training passes of
one 64x64 weight - forward Y = W X, backward dX = W^T dY and dW = dY X^T,
three square sgemm_ calls of n=64 - and sleeps SLEEP[i] seconds. By hand:
  FLOPs of iteration i = SIZES[i] * 3 * 2 * 64^3 = SIZES[i] * 1,572,864
  steady = iterations 2..5 (the first is warm-up): SIZES 3, 1, 4, 2
  sorted 1, 2, 3, 4 -> lower middle 2 -> 3,145,728 FLOPs (a mean of the
  middles would be 3,932,160); times sorted the same way by construction
  (sleep 0.06, 0.02, 0.08, 0.04 s), so the median time is the one of the
  iteration with 2 calls, ~0.04 s, never the mean ~0.05 s.
"""
import json
import os
import subprocess
import sys

PY = "/usr/bin/python3"
SIZES = [5, 3, 1, 4, 2]
SLEEP = [0.01, 0.06, 0.02, 0.08, 0.04]
PER_PASS = 3 * 2 * 64 ** 3

PROGRAM = r"""
import ctypes, ctypes.util, time, sys
ctypes.CDLL("libblas.so.3", mode=ctypes.RTLD_GLOBAL)
blas = ctypes.CDLL(None)  # the global scope: the preloaded hook first
fc = ctypes.CDLL(None)
n = 64
def mat():
    return (ctypes.c_float * (n * n))(*([0.5] * (n * n)))
W, X, Y, dY, dX, dW = (mat() for _ in range(6))
N = ctypes.c_int(n); one = ctypes.c_float(1.0); zero = ctypes.c_float(0.0)
def gemm(ta, tb, a, b, c):
    blas.sgemm_(ctypes.c_char_p(ta), ctypes.c_char_p(tb), ctypes.byref(N), ctypes.byref(N),
                ctypes.byref(N), ctypes.byref(one), a, ctypes.byref(N), b, ctypes.byref(N),
                ctypes.byref(zero), c, ctypes.byref(N))
for passes, pause in zip(%r, %r):
    for _ in range(passes):
        gemm(b"N", b"N", W, X, Y)    # forward
        gemm(b"T", b"N", W, dY, dX)  # data gradient
        gemm(b"N", b"T", dY, X, dW)  # weight gradient
    time.sleep(pause)
    fc.flopcount_step()
""" % (SIZES, SLEEP)


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def cli_json(cli, args):
    r = subprocess.run([cli] + args + ["--json"], capture_output=True, text=True)
    if r.returncode:
        fail(f"{args[0]} exit {r.returncode}: {r.stderr}")
    return json.loads(r.stdout)


def main():
    shim, cli, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "stats_identity.json")
    env = dict(os.environ, LD_PRELOAD=shim, FLOPCOUNT_OUTPUT=out, FLOPCOUNT_QUIET="1",
               FLOPCOUNT_PEAK_TFLOPS="1")
    if subprocess.run([PY, "-c", PROGRAM], env=env, timeout=120).returncode:
        fail("program failed")
    with open(out) as f:
        own = json.load(f)
    it = own["iterations"]
    if it["count"] != 5 or [x["flops"] for x in it["list"]] != [s * PER_PASS for s in SIZES]:
        fail(f"iterations {[(x['flops'], x['seconds']) for x in it['list']]}")
    steady = it["list"][1:]
    # the lower middle of the steady values, computed here from the list
    want_flops = sorted(x["flops"] for x in steady)[(len(steady) - 1) // 2]
    want_secs = sorted(x["seconds"] for x in steady)[(len(steady) - 1) // 2]
    if want_flops != 2 * PER_PASS:
        fail(f"steady FLOPs {[x['flops'] for x in steady]}")
    u = own["utilization"]
    if u["hardware_flops_per_iteration"] != want_flops or it["median_seconds"] != want_secs:
        fail(f"own report: {u['hardware_flops_per_iteration']} FLOPs, {it['median_seconds']} s; "
             f"want {want_flops}, {want_secs}")
    rep = cli_json(cli, ["report", out, "--peak-tflops", "1"])
    m = rep["measured"]
    if m["file_flops_per_iteration"] != want_flops or m["seconds_per_iteration"] != want_secs:
        fail(f"report: {m}")
    mer = cli_json(cli, ["merge", out, "--peak-tflops", "1"])
    r0 = mer["merge"]["ranks"][0]
    if r0["flops_per_iteration"] != want_flops or r0["median_seconds"] != want_secs:
        fail(f"merge rank: {r0}")
    mit = mer.get("iterations")
    if mit is None or mit["flops_per_iteration"] != want_flops or mit["median_seconds"] != want_secs:
        fail(f"merge iterations: {mit}")
    print(f"stats_identity: {want_flops} FLOPs and {want_secs:.6f} s per iteration in all three")


main()
