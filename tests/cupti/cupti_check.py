# SPDX-License-Identifier: Apache-2.0
"""cupti_check.py REPORT CASE - checks one test_cupti run (cupti.cmake).

Expected figures are worked out here from the shapes of test_cupti.c, by
hand: a GEMM m x n x k is 2*m*n*k FLOPs; a captured GEMM counts nothing; a
launch counts its graph's GEMMs. Kernel figures come from the fake
driver's own kernel log (REPORT.klog: name stream start end node), from
which this script computes busy time, classes, per-shape time and the
per-iteration split itself, with the rule docs/cupti.md states: iteration
i runs on the GPU from the first kernel a call of the iteration issued
(here: step i's eager G1) to that of iteration i+1; the last one to the end
of the last kernel."""
import json
import sys

path, case = sys.argv[1], sys.argv[2]
rep = json.load(open(path))
err = open(path + ".err").read()
fails = []

G = {1: (64, 32, 16), 2: (32, 48, 64), 3: (16, 16, 128), 4: (24, 40, 8), 5: (8, 8, 8),
     6: (40, 8, 24), 7: (128, 8, 8)}
F = {i: 2 * m * n * k for i, (m, n, k) in G.items()}


def check(cond, what):
    if not cond:
        fails.append(what)


def eq(got, want, what):
    check(got == want, "%s: got %r, want %r" % (what, got, want))


def close(got, want, what, rel=1e-9):
    ok = isinstance(got, (int, float)) and abs(got - want) <= rel * max(abs(want), 1e-30)
    check(ok, "%s: got %r, want %r" % (what, got, want))


def shape_calls():
    out = {}
    for s in rep["shapes"]:
        for i, g in G.items():
            if (s["m"], s["n"], s["k"]) == g:
                out[i] = out.get(i, 0) + s["calls"]
    return out


def totals(calls, flops):
    eq(rep["totals"]["gemm_calls"], calls, "totals.gemm_calls")
    eq(int(rep["totals"]["gemm_flops"]), flops, "totals.gemm_flops")


def graphs(**want):
    g = rep["graphs"]
    for k, v in want.items():
        got = g[k]
        if k.endswith("flops"):
            got = int(got)
        eq(got, v, "graphs." + k)


def cupti_lines():
    """The warnings about CUPTI (not the summary lines)."""
    return [l for l in err.splitlines() if l.startswith(("flopcount: CUPTI", "flopcount: FLOPCOUNT_CUPTI",
                                                        "flopcount: hardware FLOPs:"))]


# ---- graph scenarios ----

def case_basic():
    g1 = F[1] + F[2] + F[3] + F[4]       # G1 G2 G3 G4
    g3 = 2 * F[5] + 2 * F[6]             # G5 G6 G5 G6, after the update
    totals(5 * 4 + 2 * 4 + 3 * 4 + 1, 7 * g1 + 3 * g3 + F[1])
    eq(shape_calls(), {1: 8, 2: 7, 3: 7, 4: 7, 5: 6, 6: 6}, "calls by shape")
    graphs(replays_visible=True, captures=3, captured_calls=9, captured_flops=g1 + g3 + F[7],
           instantiations=2, clones=1, exec_updates=1, launches=10, launched_calls=40,
           launched_flops=7 * g1 + 3 * g3, unknown_launches=0, never_launched_calls=1,
           never_launched_flops=F[7], invalidated_calls=0, dropped_calls=0)
    rows = sorted((e["launches"], e["gemms_per_launch"], int(e["flops_per_launch"]))
                  for e in rep["graphs"]["execs"])
    eq(rows, [(2, 4, g1), (8, 4, g3)], "graphs.execs (launches, gemms, flops per launch)")
    eq(rep["cupti"]["status"], "on", "cupti.status")


def case_interleaved():
    totals(9, 2 * (F[1] + F[3] + F[5]) + 3 * F[2])
    eq(shape_calls(), {1: 2, 3: 2, 5: 2, 2: 3}, "calls by shape")
    graphs(captures=2, captured_calls=4, instantiations=2, launches=5, launched_calls=9,
           never_launched_calls=0)


def case_threads():
    totals(200, 100 * (F[1] + F[2]))
    eq(shape_calls(), {1: 100, 2: 100}, "calls by shape")
    graphs(captures=1, captured_calls=2, launches=100, launched_calls=200)


def case_forked():
    totals(3, F[1] + F[2] + F[3])
    eq(shape_calls(), {1: 1, 2: 1, 3: 1}, "calls by shape")
    graphs(captures=1, captured_calls=2, captured_flops=F[1] + F[2], launches=1, launched_calls=2)


def case_mixed():
    step = json.load(open(path + ".truth"))["step_flops"]
    per_step = rep["graphs"]["captured_calls"]
    totals(4 * (1 + per_step), 4 * (F[1] + step))
    it = rep["iterations"]
    eq(it["detected_by"], "marker", "iterations.detected_by")
    eq(it["count"], 4, "iterations.count")
    eq([int(e["flops"]) for e in it["list"]], [F[1] + step] * 4, "flops per iteration")
    graphs(captures=1, launches=4, launched_calls=4 * per_step, captured_flops=step)


def case_train():
    step = json.load(open(path + ".truth"))["step_flops"]
    g = rep["graphs"]
    per_step = g["captured_calls"]
    check(per_step > 0, "nothing captured")
    totals(8 * per_step, 8 * step)
    it = rep["iterations"]
    eq(it["detected_by"], "auto", "iterations.detected_by")
    eq(it["count"], 8, "iterations.count (2 eager + 6 graph launches)")
    eq([int(e["flops"]) for e in it["list"]], [step] * 8, "flops per iteration")
    eq(g["launches"], 6, "graphs.launches")
    eq(int(g["captured_flops"]), step, "graphs.captured_flops (one step)")


# ---- kernel timing ----

def kernel_log():
    """The fake driver's kernels, split at the program's step marks."""
    steps = []
    for line in open(path + ".klog"):
        if line.startswith("# step"):
            steps.append([])
            continue
        name, stream, start, end, node = line.split()
        steps[-1].append({"name": name, "stream": int(stream), "start": int(start), "end": int(end),
                          "node": int(node)})
    return steps


def klass(name):
    if name.startswith("emu_"):
        return "gemm"
    if "flash" in name:
        return "attention"
    if "nccl" in name:
        return "communication"
    if "triton_tem" in name:
        return "gemm_like_uncounted"
    return "other"


def stamped(k):
    """Issued by a counted call or a graph launch (the shim knows its host stamp)."""
    return k["name"].startswith("emu_") or k["node"] != 0


def union(spans):
    total, cur = 0, None
    for s, e in sorted(spans):
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
            continue
        if cur:
            total += cur[1] - cur[0]
        cur = [s, e]
    return total + (cur[1] - cur[0] if cur else 0)


def spans_of(steps):
    """Iteration i: from its first stamped kernel to the next iteration's
    first; the last one to the end of the last kernel."""
    g = [min(k["start"] for k in s if stamped(k)) for s in steps]
    end = max(k["end"] for s in steps for k in s)
    return [(g[i], g[i + 1] if i + 1 < len(steps) else end) for i in range(len(steps))]


def case_kernels():
    steps = kernel_log()
    ks = [k for s in steps for k in s]
    eq(len(steps), 3, "steps in the kernel log")
    k = rep["kernels"]
    check(k is not None, "kernels section missing: %r" % rep.get("kernels_reason"))
    if k is None:
        return None
    eq(k["kernels"], len(ks), "kernels.kernels")
    for c in ("gemm", "attention", "communication", "gemm_like_uncounted", "other"):
        want = [x for x in ks if klass(x["name"]) == c]
        eq(k["by_class"][c]["kernels"], len(want), "kernels " + c)
        close(k["by_class"][c]["seconds"], sum(x["end"] - x["start"] for x in want) / 1e9,
              "seconds " + c)
    close(k["gpu_busy_seconds"], union([(x["start"], x["end"]) for x in ks]) / 1e9, "gpu busy")
    span = max(x["end"] for x in ks) - min(x["start"] for x in ks)
    close(k["gpu_span_seconds"], span / 1e9, "gpu span")
    # by hand, at 1024 FLOP per ns: G1 and G3 take 64 ns, G2 192 ns
    for s in steps:
        eq([x["end"] - x["start"] for x in s if x["name"].startswith("emu_")][:3], [64, 192, 64],
           "G1, G2, G3 kernel ns of a step")
    rows = {(s["m"], s["n"], s["k"], s["batch"]): s for s in k["shapes"]}
    for i, ns in ((1, 64), (2, 192), (3, 64)):
        r = rows.get(G[i] + (1,))
        check(r is not None, "no kernel row for G%d" % i)
        if r is None:
            continue
        eq(r["calls_timed"], 3, "G%d calls_timed" % i)
        close(r["kernel_seconds"], 3 * ns / 1e9, "G%d kernel seconds" % i)
        close(r["achieved_flops_per_second"], 1.024e12, "G%d achieved FLOP/s" % i)
        close(r["peak_fraction"], 0.5, "G%d fraction of the 2.048 TFLOP/s peak" % i)
        close(r["lost_seconds"], 3 * ns / 2e9, "G%d lost seconds" % i)
    eq(k["gemm_unknown_shape"]["kernels"], 0, "GEMM kernels of unknown shape")
    close(sum(r["kernel_seconds"] for r in k["shapes"]) + k["gemm_unknown_shape"]["seconds"],
          k["by_class"]["gemm"]["seconds"], "per-shape kernel time adds up to GEMM time")
    names = k["top_names"]
    eq([n["name"] for n in names["attention"]], ["flash_fwd_kernel"], "attention names")
    eq([n["name"] for n in names["communication"]], ["ncclDevKernel_AllReduce_Sum_f32_RING_LL"],
       "communication names")
    eq([n["name"] for n in names["gemm_like_uncounted"]], ["triton_tem_fused_mm_0"], "GEMM-like names")
    spans = spans_of(steps)
    its = k["iterations"]["list"]
    eq(len(its), 3, "kernel iterations")
    inside = 0
    for i, (a, b) in enumerate(spans):
        mine = [x for x in ks if a <= x["start"] < b]
        inside += sum(x["end"] - x["start"] for x in mine)
        e = its[i] if i < len(its) else {}
        close(e.get("gpu_span_seconds"), (b - a) / 1e9, "iteration %d span" % (i + 1))
        close(e.get("gpu_busy_seconds"),
              union([(x["start"], min(x["end"], b)) for x in mine]) / 1e9,
              "iteration %d busy" % (i + 1))
        eq(e.get("kernels"), len(mine), "iteration %d kernels" % (i + 1))
        for c in ("gemm", "attention", "communication", "gemm_like_uncounted", "other"):
            close(e.get("seconds_by_class", {}).get(c),
                  sum(x["end"] - x["start"] for x in mine if klass(x["name"]) == c) / 1e9,
                  "iteration %d %s seconds" % (i + 1, c))
    total = sum(x["end"] - x["start"] for x in ks)
    close(k["outside_iterations_seconds"], (total - inside) / 1e9, "kernel time outside iterations")
    return spans


def case_hwflops():
    spans = case_kernels()
    if spans is None:
        return
    t = json.load(open(path + ".truth"))
    base, end = t["sample_base"], t["sample_end"]
    samples, k = [], 0
    while base + k * 500 < end:
        if k != 5:
            samples.append((base + k * 500, base + k * 500 + 500, (k + 1) * 1000.0, 20.0))
        k += 1
    h = rep["hw_flops"]
    eq(h["status"], "on", "hw_flops.status (%s)" % h.get("reason"))
    if h["status"] != "on":
        return
    eq(h["mode"], "pm_sampling", "hw_flops.mode")
    eq(h["chip"], "GH100", "hw_flops.chip")
    eq(h["trigger"], "gpu_time", "hw_flops.trigger")
    cov = h["coverage"]
    for t_ in ("bf16", "fp8", "fp32_cuda_core", "fp64_cuda_core"):
        eq(cov[t_], "full", "coverage " + t_)
    check(cov["fp16_cuda_core"].startswith("partial"), "coverage fp16_cuda_core %r" % cov["fp16_cuda_core"])
    for t_ in ("tf32", "fp16", "fp64_tensor", "int8"):
        eq(cov[t_], "left out: it would need a second pass", "coverage " + t_)
    eq(cov["fp4"], "left out: no counter for it on this chip", "coverage fp4")
    close(h["totals"]["bf16"], sum(s[2] for s in samples), "total bf16")
    close(h["totals"]["fp32_cuda_core"], sum(s[3] for s in samples), "total fp32 (2 per FFMA)")
    eq(h["samples"], len(samples), "samples")
    its = h["iterations"]["list"]
    rits = rep["iterations"]["list"]
    counted = F[1] + F[2] + F[3] + t["step_flops"]
    for i, (a, b) in enumerate(spans):
        want = sum((s[2] + s[3]) * max(0, min(b, s[1]) - max(a, s[0])) / 500.0 for s in samples)
        split = any(0 < max(0, min(b, s[1]) - max(a, s[0])) < 500 for s in samples)
        covered = sum(max(0, min(b, s[1]) - max(a, s[0])) for s in samples)
        e = its[i]
        close(e["flops"], want, "iteration %d hardware FLOPs" % (i + 1), rel=1e-12)
        eq(e["apportioned"], split, "iteration %d apportioned" % (i + 1))
        close(e["sampling_gap_seconds"], (b - a - covered) / 1e9, "iteration %d sampling gap" % (i + 1))
        close(e["hardware_minus_counted"], want - counted, "iteration %d hardware - counted" % (i + 1),
              rel=1e-12)
        close(e["hfu"], want / (2.048e12 * rits[i]["seconds"]), "iteration %d hfu" % (i + 1), rel=1e-9)
    gaps = [e["sampling_gap_seconds"] for e in its]
    check(any(g > 0 for g in gaps), "the missing sample shows as a gap nowhere: %r" % gaps)
    live = [l for l in err.splitlines() if l.startswith("flopcount: step")]
    check(live and all("hwHFU" in l for l in live), "live lines without hwHFU: %r" % live[:2])


def case_hw_privileges():
    h = rep["hw_flops"]
    eq(h["status"], "off", "hw_flops.status")
    check("NVreg_RestrictProfilingToAdminUsers" in (h.get("reason") or ""), "reason %r" % h.get("reason"))
    check(rep["kernels"] is not None, "kernel timing should go on")
    g = rep["graphs"]
    eq(rep["iterations"]["count"], 3, "iterations (the markers)")
    eq(g["launches"], 3, "graphs.launches")
    eq(len([l for l in cupti_lines() if "hardware FLOPs" in l]), 1, "hardware FLOPs lines")


# ---- the capture through the runtime ----

def runtime_common():
    totals(3 if not rep["graphs"]["replays_visible"] else 5,
           3 * F[1] if not rep["graphs"]["replays_visible"] else 3 * F[1] + 2 * F[2])
    eq(rep["graphs"]["captured_calls"], 1, "graphs.captured_calls")
    eq(int(rep["graphs"]["captured_flops"]), F[2], "graphs.captured_flops")


def case_runtime_cupti():
    runtime_common()
    graphs(replays_visible=True, launches=2, launched_calls=2, captures=1)
    eq(cupti_lines(), [], "flopcount: lines about CUPTI")


def off_case(reason_has, lines):
    runtime_common()
    g = rep["graphs"]
    eq(g["replays_visible"], False, "graphs.replays_visible")
    eq(g["launches"], 0, "graphs.launches (cannot be seen)")
    c = rep["cupti"]
    eq(c["status"], "off", "cupti.status")
    check(reason_has in (c["reason"] or ""), "cupti.reason %r lacks %r" % (c["reason"], reason_has))
    check(reason_has in (g["reason"] or ""), "graphs.reason %r" % g["reason"])
    eq(len(cupti_lines()), lines, "flopcount: lines about CUPTI: %r" % cupti_lines())


def case_runtime_off():
    off_case("FLOPCOUNT_CUPTI=0", 1)
    check(rep["kernels"] is None and "FLOPCOUNT_CUPTI=0" in rep["kernels_reason"],
          "kernels_reason %r" % rep.get("kernels_reason"))


def case_runtime_missing():
    off_case("no CUPTI library found", 1)


def case_runtime_busy():
    off_case("another CUPTI client", 1)
    check(rep["kernels"] is None, "kernels collected without CUPTI")


def case_runtime_real():
    off_case("CUPTI_ERROR_UNKNOWN", 1)
    check(rep["cupti"]["library"].endswith("libcupti.so.13"), "library %r" % rep["cupti"]["library"])
    check(rep["kernels"] is None, "kernels without CUPTI")
    eq(rep["hw_flops"]["status"], "off", "hw_flops.status")


# ---- graphs through the runtime's graph calls (rtgraphs) ----

def rtgraphs_common(seen_by):
    launched = 3 * (F[2] + F[3]) + 6 * F[5] + F[6]     # x0 2x, clone 1x, x0 updated 3x, x3 1x
    totals(3 + 13, 3 * F[1] + launched)
    graphs(replays_visible=True, captures=4, captured_calls=6,
           captured_flops=F[2] + F[3] + 2 * F[5] + F[7] + F[6], instantiations=4, clones=1,
           exec_updates=1, launches=7, launched_calls=13, launched_flops=launched,
           unknown_launches=0, never_launched_calls=1, never_launched_flops=F[7],
           invalidated_calls=0, dropped_calls=0)
    eq(rep["graphs"].get("seen_by"), seen_by, "graphs.seen_by")
    rows = sorted((e["launches"], e["gemms_per_launch"], int(e["flops_per_launch"]))
                  for e in rep["graphs"]["execs"])
    eq(rows, sorted([(5, 2, 2 * F[5]), (1, 2, F[2] + F[3]), (0, 1, F[7]), (1, 1, F[6])]),
       "exec rows (launches, GEMMs and FLOPs per launch)")


def case_rtgraphs_cupti():
    rtgraphs_common("CUPTI")
    eq(cupti_lines(), [], "flopcount: lines about CUPTI")


def case_rtgraphs_busy():
    """Another subscriber holds CUPTI: the runtime's graph calls count the replays."""
    rtgraphs_common("CUDA runtime")
    eq(rep["cupti"]["status"], "off", "cupti.status")
    check("another CUPTI client" in (rep["cupti"]["reason"] or ""), "cupti.reason %r" % rep["cupti"]["reason"])


def case_rtgraphs_off():
    rtgraphs_common("CUDA runtime")
    eq(rep["cupti"]["status"], "off", "cupti.status")


def case_signal():
    eq(rep["status"], "interrupted", "status")
    k = rep["kernels"]
    check(k is not None, "kernels missing from the interrupted report")
    if k is None:
        return
    ks = [x for s in kernel_log() for x in s]
    eq(k["kernels"], len(ks), "kernels flushed for the signal's report (the drainer's flush)")


CASES = {"signal": case_signal, "graphs_basic": case_basic, "graphs_interleaved": case_interleaved,
         "graphs_threads": case_threads, "graphs_forked": case_forked, "graphs_mixed": case_mixed,
         "graphs_train": case_train, "kernels": case_kernels, "hwflops": case_hwflops,
         "hw_privileges": case_hw_privileges, "runtime_cupti": case_runtime_cupti,
         "runtime_off": case_runtime_off, "runtime_missing": case_runtime_missing,
         "runtime_busy": case_runtime_busy, "runtime_real": case_runtime_real,
         "rtgraphs_cupti": case_rtgraphs_cupti, "rtgraphs_busy": case_rtgraphs_busy,
         "rtgraphs_off": case_rtgraphs_off}
CASES[case]()
for f in fails:
    print("cupti_check %s: %s" % (case, f))
sys.exit(1 if fails else 0)
