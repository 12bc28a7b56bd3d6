# SPDX-License-Identifier: Apache-2.0
"""10 gradient accumulation 4: iterations = optimizer steps (from the optimizer's kernels), 4 micro-batches each.

Runs programs/gpt.py (2 layers, hidden 512, 8 heads, vocabulary 4096,
sequence 512, batch 4; causal SDPA, AdamW; 8 optimizer steps of 4
micro-batches each, no markers) under `flopcount run`. Without markers an
iteration used to be a micro-batch; the launch layer sees AdamW's
multi_tensor_apply kernels (issue 25, item 5), so:
  * iterations = 8 = the optimizer steps, not 32;
  * each iteration has 4 micro-batches (the report's micro_batches);
  * each iteration's FLOPs = 4 x one micro-batch's forward and backward
    (GEMMs and the causal attention core, by hand: lib/expect.py), and
    less its attention excess = 4 x the model FLOPs, exactly.
SKIP: not built while the shim defines no __cudaLaunchKernel."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import expect  # noqa: E402
import fcgpu  # noqa: E402

CFG = {"layers": 2, "hidden": 512, "heads": 8, "vocab": 4096, "seq": 512, "batch": 4, "steps": 8,
       "accum": 4, "checkpoint": [], "attention": "sdpa", "attention_counted": True}


def micro_batches(it, x):
    for src in (x, it):
        v = expect.first_number(src, ("micro_batches", "micro_batches_per_iteration"))
        if v is not None:
            return v
    return None


def evaluate(report, cfg, figures):
    e = expect.gpt_expected(cfg)
    it = report.get("iterations") or {}
    problems = []
    figures.update(iterations=it.get("count"), detected_by=it.get("detected_by"))
    if it.get("count") != cfg["steps"]:
        problems.append("%s iterations, expected %d optimizer steps (%d would be micro-batches)"
                        % (it.get("count"), cfg["steps"], cfg["steps"] * cfg["accum"]))
    bad = []
    for x in it.get("list", []):
        mb = micro_batches(it, x)
        model = x["flops"] - x.get("recompute_flops", 0) - x.get("attention_excess_flops", 0)
        if mb != cfg["accum"] or x["flops"] != cfg["accum"] * e["iteration"] or model != cfg["accum"] * e["model"]:
            bad.append((x.get("index"), mb, x["flops"]))
    if bad:
        problems.append("%d iterations off, e.g. iteration %s: %s micro-batches, %s FLOPs (expected %d, %d)"
                        % (len(bad), bad[0][0], bad[0][1], bad[0][2], cfg["accum"], cfg["accum"] * e["iteration"]))
    if problems:
        return "FAIL", "; ".join(problems)
    return "PASS", "%d iterations = optimizer steps, %d micro-batches each, %s FLOPs each = 4 micro-batches exactly" % (
        cfg["steps"], cfg["accum"], fcgpu.si(cfg["accum"] * e["iteration"]))


def run(c):
    c.need_gpu()
    if not c.shim_defines("__cudaLaunchKernel"):
        raise fcgpu.Skip("not built (libflopcount.so defines no __cudaLaunchKernel)")
    args = []
    for k in ("layers", "hidden", "heads", "vocab", "seq", "batch", "steps", "accum"):
        args += ["--" + k, CFG[k]]
    meta = c.python_program("gpt.py", args + ["--dtype", "bf16", "--device", "cuda"], "accum", 120, under=[])
    c.figures["torch"] = meta.get("torch")
    c.finish(*evaluate(c.report("accum", meta["pid"]), CFG, c.figures))


def self_test():
    import copy

    e = expect.gpt_expected(CFG)
    lst = [{"index": i + 1, "flops": 4 * e["iteration"], "recompute_flops": 0,
            "attention_excess_flops": 4 * e["excess"], "micro_batches": 4} for i in range(8)]
    good = {"iterations": {"count": 8, "detected_by": "auto", "list": lst}}
    st, why = evaluate(good, CFG, {})
    assert st == "PASS", why
    r = copy.deepcopy(good)  # every micro-batch an iteration
    r["iterations"]["count"] = 32
    r["iterations"]["list"] = [dict(x, flops=e["iteration"], micro_batches=1,
                                    attention_excess_flops=e["excess"]) for x in lst * 4]
    st, why = evaluate(r, CFG, {})
    assert st == "FAIL" and "micro-batches" in why, why
    r = copy.deepcopy(good)
    del r["iterations"]["list"][3]["micro_batches"]
    assert evaluate(r, CFG, {})[0] == "FAIL"
    r = copy.deepcopy(good)
    r["iterations"]["list"][2]["attention_excess_flops"] = 0
    assert evaluate(r, CFG, {})[0] == "FAIL"
    return 4


def main():
    c = fcgpu.Check("10_grad_accum", __doc__)
    if c.args.self_test:
        print("10_grad_accum self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
