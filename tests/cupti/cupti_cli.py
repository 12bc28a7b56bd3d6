# SPDX-License-Identifier: Apache-2.0
"""cupti_cli.py FLOPCOUNT REPORT WORKDIR - the CUPTI sections through the
command: `flopcount report` (text and --json) on the report of the hwflops
case (tests/cupti/cupti.cmake), `flopcount merge` of two ranks made from it
(every count doubles; rates and fractions stay; per-iteration hardware
FLOPs add up across ranks), the merged report read back, and `flopcount run
--kernels --hw-flops` setting its variables. By hand: the graph of that
case holds G2 (2*32*48*64 = 196608 FLOPs) and G3 (2*16*16*128 = 65536)."""
import json
import os
import subprocess
import sys

cli, src, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def run(*args):
    p = subprocess.run([cli] + list(args), capture_output=True, text=True)
    check(p.returncode == 0, "%s: exit %d: %s" % (args, p.returncode, p.stderr.strip()))
    return p.stdout


rep = json.load(open(src))
text = run("report", src)
check("CUDA graphs    1 captures, 2 GEMMs captured (262144 FLOPs; not counted as executed)" in text,
      "graph line missing:\n" + text)
check("3 launches counted 6 GEMM calls (786432 FLOPs)" in text, "launch line missing")
check("GPU busy" in text and "kernel time" in text, "kernel lines missing")
check("hardware FLOPs pm_sampling on GH100 (not yet validated on hardware)" in text, "hw line missing")
j = json.loads(run("report", "--json", src))
check(j["kernels"]["gpu_busy_seconds"] == rep["kernels"]["gpu_busy_seconds"], "report --json busy")
check(j["graphs"]["launched_calls"] == 6, "report --json graphs")
check(j["hw_flops"]["status"] == "on", "report --json hw_flops")

ranks = []
for r in (0, 1):
    x = json.loads(json.dumps(rep))
    x["process"].update(rank=r, local_rank=r, world_size=2)
    p = os.path.join(work, "rank%d.json" % r)
    json.dump(x, open(p, "w"))
    ranks.append(p)
merged = os.path.join(work, "merged.json")
open(merged, "w").write(run("merge", "--json", *ranks))
m = json.load(open(merged))
g, k, h = m["graphs"], m["kernels"], m["hw_flops"]
check(g["captures"] == 2 and g["launched_calls"] == 12 and int(g["captured_flops"]) == 2 * 262144,
      "merged graphs %r" % g)
rk = rep["kernels"]
check(k["kernels"] == 2 * rk["kernels"], "merged kernels")
check(abs(k["gpu_busy_seconds"] - 2 * rk["gpu_busy_seconds"]) < 1e-15, "merged busy seconds")
check(abs(k["busy_fraction"] - rk["busy_fraction"]) < 1e-12, "merged busy fraction")
for c in rk["by_class"]:
    check(k["by_class"][c]["kernels"] == 2 * rk["by_class"][c]["kernels"], "merged class " + c)
rows = {(s["m"], s["n"], s["k"], s["batch"], s["transa"], s["transb"]): s for s in k["shapes"]}
for s in rk["shapes"]:
    t = rows.get((s["m"], s["n"], s["k"], s["batch"], s["transa"], s["transb"]))
    check(t is not None and t["calls_timed"] == 2 * s["calls_timed"], "merged shape %r" % (s,))
    if t:
        check(abs(t["achieved_flops_per_second"] - 1.024e12) < 1, "merged achieved %r" % t)
        check(abs(t["peak_fraction"] - 0.5) < 1e-12, "merged peak fraction %r" % t)
rh = rep["hw_flops"]
check(h["status"] == "on", "merged hw status")
check(abs(h["totals"]["bf16"] - 2 * rh["totals"]["bf16"]) < 1e-6, "merged bf16 total")
check(abs(h["iterations"]["median_flops"] - 2 * rh["iterations"]["median_flops"]) < 1e-6,
      "merged median FLOPs per iteration (summed over ranks)")
back = run("report", merged)
check("CUDA graphs    2 captures" in back and "GPU busy" in back, "merged report text:\n" + back)

if not os.environ.get("FC_SANITIZER_RUNTIME"):  # run puts the shim before any sanitizer runtime
    out = run("run", "--quiet", "--kernels", "--hw-flops", "--output", os.path.join(work, "run.json"),
              "--", "/bin/sh", "-c", "echo $FLOPCOUNT_KERNELS$FLOPCOUNT_HW_FLOPS")
    check(out.strip() == "11", "flopcount run --kernels --hw-flops set %r" % out)

for f in fails:
    print("cupti_cli:", f)
sys.exit(1 if fails else 0)
