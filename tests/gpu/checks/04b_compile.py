# SPDX-License-Identifier: Apache-2.0
"""04b torch.compile(mode="reduce-overhead") on the small GPT: iterations and FLOPs equal the eager run's.

Runs programs/gpt.py as check 03 does but compiled with
mode="reduce-overhead" (CUDA graphs via cudagraph trees), without
checkpointing or evaluation, 12 steps. Asserts: 12 iterations found
automatically, each with the eager model's FLOPs: its GEMMs 72Bslh^2 +
6BshV and its causal attention counted from the kernels (launched inside
the captured graphs, counted at each replay: issue 25), 6Bs(s+1)lh at the
model convention and 7Bs(s+1)lh executed (check 03 shows the eager run
counts exactly that); no recompute; the run total = 12 iterations.
Needs CUDA-graph counting (issue 16): SKIP: not built when check 04a's
report (or a report of the bring-up program) has no `graphs` section."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import expect  # noqa: E402
import fcgpu  # noqa: E402

CFG = {
    "layers": 4,
    "hidden": 1024,
    "heads": 16,
    "vocab": 8192,
    "seq": 1024,
    "batch": 8,
    "steps": 12,
    "checkpoint": [],
    "eval_every": 0,
    "attention": "sdpa",
    "attention_counted": True,
    "dtype": "bf16",
    "device": "cuda",
}


def graphs_built(c):
    """(built, how we know): 04a's report if this run made one, else a report of the bring-up program."""
    if fcgpu.assume_built():
        return True, "FC_ASSUME_BUILT"
    for path in glob.glob(os.path.join(os.path.dirname(c.out), "04a_cuda_graphs", "graphs.*.json")):
        if path.endswith(".meta.json"):
            continue
        try:
            with open(path) as f:
                return "graphs" in json.load(f), "check 04a's report"
        except (OSError, ValueError):
            continue
    prog = os.path.join(c.prefix, "libexec", "flopcount-gpu", "fcgpu_bringup")
    c.run_ok([prog], "probe", 30, under=[])
    reports = [p for p in glob.glob(os.path.join(c.out, "probe.*.json"))]
    rep = fcgpu.load_json(reports[0], "the probe report") if reports else {}
    return ("graphs" in rep or "cupti" in rep), "the bring-up program's report"


def evaluate(report, figures):
    e = expect.gpt_expected(CFG)
    it = report["iterations"]
    figures.update(
        expected=e,
        iterations=it.get("count"),
        detected_by=it.get("detected_by"),
        per_iteration=[x.get("flops") for x in it.get("list", [])],
        totals=report.get("totals"),
        graphs=report.get("graphs"),
    )
    p = []
    by = it.get("detected_by")  # "optimizer" where the launch layer sees AdamW's kernels
    one_micro = all(x.get("micro_batches", 1) == 1 for x in it.get("list", []))
    if it.get("count") != CFG["steps"] or by not in ("auto", "optimizer") or not one_micro:
        p.append(
            "%s iterations (%s), expected %d (auto or optimizer, one micro-batch each)"
            % (it.get("count"), by, CFG["steps"])
        )
    bad = [
        (x.get("index"), x.get("flops"), x.get("recompute_flops"))
        for x in it.get("list", [])
        if x.get("flops") != e["iteration"] or x.get("recompute_flops")
    ]
    if bad:
        p.append("%d iterations differ from the eager %d FLOPs: %s" % (len(bad), e["iteration"], bad[:4]))
    tot = report.get("totals", {})
    counted = tot.get("counted_flops", tot.get("gemm_flops"))
    if counted != CFG["steps"] * e["iteration"]:
        p.append("run total %s, expected %d" % (counted, CFG["steps"] * e["iteration"]))
    if p:
        return "FAIL", "; ".join(p)
    return "PASS", "%d iterations (auto) of %d FLOPs each, as eager, under cudagraph trees" % (
        CFG["steps"],
        e["iteration"],
    )


def run(c):
    built, how = graphs_built(c)
    if not built:
        raise fcgpu.Skip("not built (no 'graphs' in %s)" % how)
    c.need_gpu()
    args = []
    for k in ("layers", "hidden", "heads", "vocab", "seq", "batch", "steps"):
        args += ["--" + k, CFG[k]]
    meta = c.python_program("gpt.py", args + ["--compile", "reduce-overhead"], "compiled", 220, under=[])
    c.finish(*evaluate(c.report("compiled", meta["pid"]), c.figures))


def self_test():
    e = expect.gpt_expected(CFG)
    lst = [{"index": i + 1, "flops": e["iteration"], "recompute_flops": 0} for i in range(12)]
    good = {
        "iterations": {"count": 12, "detected_by": "auto", "list": lst},
        "totals": {"counted_flops": 12 * e["iteration"]},
        "graphs": {},
    }
    assert evaluate(good, {})[0] == "PASS"
    bad = json.loads(json.dumps(good))
    bad["iterations"]["list"][2]["flops"] = 0  # a replayed step not counted
    assert evaluate(bad, {})[0] == "FAIL"
    bad = json.loads(json.dumps(good))
    bad["iterations"]["count"] = 11
    assert evaluate(bad, {})[0] == "FAIL"
    return 3


def main():
    c = fcgpu.Check("04b_compile", __doc__)
    if c.args.self_test:
        print("04b_compile self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
