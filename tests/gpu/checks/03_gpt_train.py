# SPDX-License-Identifier: Apache-2.0
"""03 small bf16 GPT trained 20 steps: iterations, recompute, eval, FLOPs = formula, GPU time.

Runs programs/gpt.py (4 layers, hidden 1024, 16 heads, vocabulary 8192,
sequence 1024, batch 8; SDPA causal attention, AdamW, block 1 checkpointed,
an evaluation forward after steps 10 and 20) under `flopcount run`, and
asserts:
  * iterations found automatically (detected_by auto, or optimizer where the
    launch layer sees the optimizer kernels, one micro-batch each) = 20 = the steps;
  * the causal SDPA attention (FlashAttention-2 or memory-efficient
    kernels: the program allows only those) is counted from its kernel
    launches (issue 25), so every iteration's FLOPs less its recompute and
    less its attention excess (the backward's recomputed QK^T, beyond the
    model convention) = the formula's model FLOPs with the causal core
    counted exactly: 72Bslh^2 + 6Bs(s+1)lh + 6BshV, exactly;
  * every iteration's recompute = the checkpointed block's forward: its
    GEMMs 24Bsh^2 and its attention forward 2Bs(s+1)h, exactly;
  * 2 evaluation passes of one forward each, and the run total (GEMMs and
    attention) = 20 iterations + 2 passes, exactly (no stray work);
  * the shim's per-iteration GPU time (CUDA events), median over iterations
    2..19, within 5% of the median torch.cuda.Event time of the same steps
    (start of step k to start of step k+1, as the automatic iteration spans).
Expected FLOPs: lib/expect.py, which enumerates the GEMMs from the shapes
and is tested there against the 72-form (REFERENCE.md section 2).
--rehearse-cpu runs the same logic on Debian's CPU torch (fp32, attention
as two bmm, counted through sgemm_; no GPU timing)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import expect  # noqa: E402
import fcgpu  # noqa: E402

GPU_CFG = {
    "layers": 4,
    "hidden": 1024,
    "heads": 16,
    "vocab": 8192,
    "seq": 1024,
    "batch": 8,
    "steps": 20,
    "checkpoint": [1],
    "eval_every": 10,
    "attention": "sdpa",
    "attention_counted": True,
    "dtype": "bf16",
    "device": "cuda",
}
CPU_CFG = {
    "layers": 3,
    "hidden": 64,
    "heads": 4,
    "vocab": 96,
    "seq": 32,
    "batch": 4,
    "steps": 8,
    "checkpoint": [1],
    "eval_every": 4,
    "attention": "manual",
    "dtype": "fp32",
    "device": "cpu",
}
GPU_TOLERANCE = 0.05


def gpt_args(cfg, extra=()):
    args = []
    for k in ("layers", "hidden", "heads", "vocab", "seq", "batch", "steps", "attention", "dtype", "device"):
        args += ["--" + k, cfg[k]]
    args += ["--checkpoint", ",".join(str(i) for i in cfg["checkpoint"]), "--eval-every", cfg["eval_every"]]
    return args + list(extra)


def gpu_time_check(it, event_steps, figures, problems):
    """Median shim GPU time vs median torch event time over iterations 2..N-1."""
    if it.get("gpu_timing") != "events":
        problems.append("no GPU timing: %s" % it.get("gpu_timing"))
        return ""
    shim, torch_t = [], []
    for e in it.get("list", []):
        i = e.get("index")
        if i is None or i < 2 or i > len(event_steps) or e.get("gpu_seconds") is None:
            continue
        shim.append(e["gpu_seconds"])
        torch_t.append(event_steps[i - 1])
    if len(shim) < 3:
        problems.append("only %d iterations with a GPU time" % len(shim))
        return ""
    ms, mt = fcgpu.median(shim), fcgpu.median(torch_t)
    d = (ms - mt) / mt
    figures.update(
        gpu_median_s=ms,
        torch_event_median_s=mt,
        gpu_time_diff=d,
        gpu_time_iterations=len(shim),
        report_gpu_median_s=it.get("gpu_median_seconds"),
    )
    if abs(d) > GPU_TOLERANCE:
        problems.append(
            "GPU time %.2f ms vs torch events %.2f ms (%+.1f%%, limit 5%%)" % (ms * 1e3, mt * 1e3, d * 100)
        )
    return "; GPU median %.2f ms vs torch events %.2f ms (%+.1f%%)" % (ms * 1e3, mt * 1e3, d * 100)


def evaluate(report, meta, cfg, gpu_timing, figures):
    """(status, reason) for one run's report; figures filled in."""
    e = expect.gpt_expected(cfg)
    l, h, s, B = cfg["layers"], cfg["hidden"], cfg["seq"], cfg["batch"]
    core = expect.attention_core(l, h, s, B)
    formula = expect.megatron72(l, h, cfg["vocab"], s, B)
    in_cublas = cfg["attention"] == "manual"  # the CPU rehearsal's bmm attention is counted
    counted_causal = 6 * B * s * (s + 1) * l * h  # the causal core, exact pairs, model convention
    want = formula if in_cublas else formula - core + counted_causal
    assert e["model"] == want, "GEMM enumeration disagrees with the formula"
    steps, evals = cfg["steps"], meta.get("evals", 0)
    it = report["iterations"]
    figures.update(
        expected=e,
        iterations=it.get("count"),
        detected_by=it.get("detected_by"),
        totals=report.get("totals"),
        eval_passes=report.get("eval_passes"),
        detector=it.get("detector"),  # repeated_segments: steps the caching allocator repeated
    )
    problems = []
    if (it.get("detector") or {}).get("repeat_mismatches"):
        problems.append(
            "%s repeats differed from labelling in full" % it["detector"]["repeat_mismatches"]
        )
    # auto, or on a GPU with the launch layer's optimizer kernels "optimizer"
    # (docs/iterations.md): one optimizer step of one micro-batch each
    by = it.get("detected_by")
    one_micro = all(x.get("micro_batches", 1) == 1 for x in it.get("list", []))
    if it.get("count") != steps or by not in ("auto", "optimizer") or not one_micro:
        problems.append(
            "%s iterations (%s), expected %d (auto or optimizer, one micro-batch each)"
            % (it.get("count"), by, steps)
        )
    att = report.get("attention") or {}
    figures.update(attention={k: att.get(k) for k in ("calls", "failed_calls", "flops", "by_source")},
                   uncounted=report.get("uncounted"))
    if not in_cublas and not att.get("calls"):
        unc = "; ".join("%s (%s)" % (u.get("name", "?")[:60], u.get("reason")) for u in report.get("uncounted") or [])
        problems.append("no attention call counted%s" % (": not counted: " + unc if unc else ""))
    bad_model, bad_rc = [], []
    for x in it.get("list", []):
        m = x["flops"] - x["recompute_flops"] - x.get("attention_excess_flops", 0)
        if m != e["model"]:
            bad_model.append((x.get("index"), m))
        if x["recompute_flops"] != e["recompute"]:
            bad_rc.append((x.get("index"), x["recompute_flops"]))
    figures.update(
        split=[
            (x.get("forward_flops"), x.get("backward_flops"), x.get("recompute_flops"))
            for x in it.get("list", [])[:3]
        ]
    )
    if bad_model:
        extra = bad_model[0][1] - e["model"]
        hint = ""
        if not in_cublas and extra == core - counted_causal:
            hint = " (= the attention core as GEMMs: SDPA fell back to the math backend?)"
        elif not in_cublas and extra == -counted_causal:
            hint = " (= the whole attention core: not counted)"
        problems.append(
            "%d iterations' model FLOPs != %d, e.g. iteration %s: %d (%+d)%s"
            % (len(bad_model), e["model"], bad_model[0][0], bad_model[0][1], extra, hint)
        )
    if bad_rc:
        problems.append(
            "%d iterations' recompute != %d, e.g. iteration %s: %d"
            % (len(bad_rc), e["recompute"], bad_rc[0][0], bad_rc[0][1])
        )
    ev = report.get("eval_passes", {})
    if ev.get("count") != evals or ev.get("flops") != evals * e["eval_pass"]:
        problems.append(
            "eval passes %s with %s FLOPs, expected %d with %d"
            % (ev.get("count"), ev.get("flops"), evals, evals * e["eval_pass"])
        )
    total = steps * e["iteration"] + evals * e["eval_pass"]
    tot = report.get("totals", {})
    counted = tot.get("counted_flops", tot.get("gemm_flops"))
    if counted != total or tot.get("failed_calls") or att.get("failed_calls"):
        problems.append(
            "run total %s FLOPs (%s failed calls, %s failed attention calls), expected %d"
            % (counted, tot.get("failed_calls"), att.get("failed_calls"), total)
        )
    timing = gpu_time_check(it, meta.get("event_step_seconds") or [], figures, problems) if gpu_timing else ""
    if problems:
        return "FAIL", "; ".join(problems)
    return "PASS", (
        "%d iterations (auto); model FLOPs/iteration %d = 72-form%s, exactly; "
        "recompute %d = block forward, exactly; %d eval passes exact; total %s%s"
        % (
            steps,
            e["model"],
            "" if in_cublas else " with the causal core counted from %s kernels" % ",".join(
                sorted((att.get("by_source") or {}).keys())),
            e["recompute"],
            evals,
            fcgpu.si(total),
            timing,
        )
    )


def run(c, cfg, gpu_timing, timeout):
    meta = c.python_program("gpt.py", gpt_args(cfg), "gpt", timeout, under=[])
    if meta["config"]["checkpoint"] != cfg["checkpoint"] or meta["config"]["steps"] != cfg["steps"]:
        raise fcgpu.Fail("gpt.py ran another configuration: %s" % meta["config"])
    report = c.report("gpt", meta["pid"])
    c.figures["torch"] = meta.get("torch")
    c.finish(*evaluate(report, meta, cfg, gpu_timing, c.figures))


def synthetic_report(cfg, evals, gpu_steps):
    """The report a correct flopcount would write for this run."""
    e = expect.gpt_expected(cfg)
    lst = []
    for i in range(1, cfg["steps"] + 1):
        lst.append(
            {
                "index": i,
                "flops": e["iteration"],
                "forward_flops": e["forward"],
                "backward_flops": e["backward"],
                "recompute_flops": e["recompute"],
                "attention_excess_flops": e["excess"],
                "gpu_seconds": gpu_steps[i - 1] * 1.01 if i < cfg["steps"] else None,
            }
        )
    return {
        "iterations": {"count": cfg["steps"], "detected_by": "auto", "gpu_timing": "events", "list": lst},
        "eval_passes": {"count": evals, "flops": evals * e["eval_pass"]},
        "totals": {"counted_flops": cfg["steps"] * e["iteration"] + evals * e["eval_pass"], "failed_calls": 0},
        "attention": {"calls": 1, "failed_calls": 0, "by_source": {"flash": {"calls": 1}}},
    }


def self_test():
    import copy

    cfg = GPU_CFG
    steps_t = [0.010 + 0.0001 * (i % 3) for i in range(cfg["steps"])]
    meta = {"evals": 2, "event_step_seconds": steps_t}
    good = synthetic_report(cfg, 2, steps_t)
    st, why = evaluate(good, meta, cfg, True, {})
    assert st == "PASS", why
    e = expect.gpt_expected(cfg)
    # recompute misread as backward in one iteration
    r = copy.deepcopy(good)
    r["iterations"]["list"][4]["recompute_flops"] -= 1000
    assert evaluate(r, meta, cfg, True, {})[0] == "FAIL"
    # attention not counted at all: the launch layer missed it
    r = copy.deepcopy(good)
    B, s, l, h = cfg["batch"], cfg["seq"], cfg["layers"], cfg["hidden"]
    for x in r["iterations"]["list"]:
        x["flops"] -= 6 * B * s * (s + 1) * l * h + x["attention_excess_flops"]
        x["attention_excess_flops"] = 0
    r["attention"] = {"calls": 0}
    r["uncounted"] = [{"name": "flash_fwd_kernel", "reason": "layout_mismatch"}]
    st, why = evaluate(r, meta, cfg, True, {})
    assert st == "FAIL" and "not counted" in why and "layout_mismatch" in why, why
    # the excess not taken out (MFU's model FLOPs would be high)
    r = copy.deepcopy(good)
    for x in r["iterations"]["list"]:
        x["attention_excess_flops"] = 0
    assert evaluate(r, meta, cfg, True, {})[0] == "FAIL"
    # one iteration missed; an eval pass taken for an iteration
    r = copy.deepcopy(good)
    r["iterations"]["count"] = 19
    assert evaluate(r, meta, cfg, True, {})[0] == "FAIL"
    r = copy.deepcopy(good)
    r["eval_passes"]["count"] = 1
    assert evaluate(r, meta, cfg, True, {})[0] == "FAIL"
    # GPU time 10% off; no GPU timing at all
    r = copy.deepcopy(good)
    for x in r["iterations"]["list"]:
        if x["gpu_seconds"]:
            x["gpu_seconds"] *= 1.10
    assert evaluate(r, meta, cfg, True, {})[0] == "FAIL"
    r = copy.deepcopy(good)
    r["iterations"]["gpu_timing"] = "unavailable: no driver"
    assert evaluate(r, meta, cfg, True, {})[0] == "FAIL"
    assert evaluate(r, meta, cfg, False, {})[0] == "PASS"
    # stray GEMM outside the iterations
    r = copy.deepcopy(good)
    r["totals"]["counted_flops"] += 2
    assert evaluate(r, meta, cfg, True, {})[0] == "FAIL"
    core = expect.attention_core(4, 1024, 1024, 8)
    assert e["model"] == expect.megatron72(4, 1024, 8192, 1024, 8) - core + 6 * 8 * 1024 * 1025 * 4 * 1024
    return 10


def main():
    c = fcgpu.Check("03_gpt_train", __doc__)
    if c.args.self_test:
        print("03_gpt_train self-test: ok (%d cases)" % self_test())
        return
    with c:
        if c.args.rehearse_cpu:
            c.figures["mode"] = "CPU rehearsal (fp32, attention as bmm, sgemm_)"
            run(c, CPU_CFG, False, 300)
        else:
            c.need_gpu()
            # on the null GPU (FC_NULLGPU=1) the counts are checked, the GPU
            # time is not: kernels do nothing and events read the host clock
            nullgpu = os.environ.get("FC_NULLGPU") == "1"
            if nullgpu:
                c.figures["mode"] = "null GPU: GPU time not checked"
            run(c, GPU_CFG, not nullgpu, 240)


if __name__ == "__main__":
    main()
