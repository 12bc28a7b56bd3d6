# SPDX-License-Identifier: Apache-2.0
"""07b --hw-flops: a 4096^3 bf16 GEMM measured = 2*4096^3 within 1% and = ncu's count; causal SDPA about half of non-causal.

programs/hw_load.py --mode hw under `flopcount run --hw-flops` (issue 17):
flopcount_step() markers make 4 iterations (warm-up; 10 GEMMs 4096^3;
a 64^3 GEMM + 5 non-causal SDPA; a 64^3 GEMM + 5 causal SDPA). Asserts on
the per-iteration hardware FLOPs:
  * iteration 2 = 10 * 2*4096^3 within 1% (by hand), and per GEMM within 1%
    of what ncu counted for the same GEMM in check 07a (when 07a ran);
  * hardware - counted of iteration 4 over that of iteration 3 (the
    attention kernels, causal over non-causal) within [0.45, 0.60].
The per-iteration figures are the report's hw_flops.iterations.list
(flops, counted_flops; docs/hw-flops.md), or, for reports of another
layout, a key hw_flops or hardware_flops in each iterations.list entry.
SKIP: not built while `flopcount run --help` has no --hw-flops."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import expect  # noqa: E402
import fcgpu  # noqa: E402

TOLERANCE = 0.01
HALF = (0.45, 0.60)
HW_KEYS = ("hw_flops", "hardware_flops", "measured_hw_flops")


def hw_per_iteration(report):
    """[(counted, hardware)] per iteration, or None when the report has no such figure: the
    shim's hw_flops.iterations.list (counted_flops, flops), else a hw key in iterations.list."""
    h = report.get("hw_flops")
    lst = h.get("iterations", {}).get("list") if isinstance(h, dict) else None
    if isinstance(lst, list) and lst:
        out = [(x.get("counted_flops", 0), x.get("flops")) for x in lst]
        return out if all(isinstance(hw, (int, float)) for _, hw in out) else None
    out = []
    for x in report.get("iterations", {}).get("list", []):
        hw = None
        for k in HW_KEYS:
            if k in x:
                hw = expect.number_or_sum(x[k])
                break
        if hw is None:
            return None
        out.append((x.get("flops", 0), hw))
    return out or None


def ncu_gemm(out_dir):
    """ops ncu counted for one 4096^3 GEMM in check 07a, or None."""
    for path in glob.glob(os.path.join(os.path.dirname(out_dir), "07a_ncu_reference", "result.json")):
        try:
            with open(path) as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue
        if r.get("status") == "PASS":
            return r.get("figures", {}).get("gemm_ops")
    return None


def evaluate(report, meta, ncu_ops, figures):
    per = hw_per_iteration(report)
    figures.update(
        hw_status=report.get("hw_flops", {}).get("status")
        if isinstance(report.get("hw_flops"), dict)
        else None,
        per_iteration=per,
        ncu_gemm_ops=ncu_ops,
    )
    if per is None:
        return "FAIL", "the report has no per-iteration hardware FLOPs (%s in iterations.list)" % "/".join(
            HW_KEYS
        )
    if len(per) != 4:
        return "FAIL", "%d iterations, expected 4 (warm-up, GEMMs, non-causal, causal)" % len(per)
    one = 2 * meta["n"] ** 3
    gemm_hw = per[1][1] / meta["gemm_reps"]
    full, causal = per[2][1] - per[2][0], per[3][1] - per[3][0]
    ratio = causal / full if full else float("inf")
    figures.update(gemm_hw_per_call=gemm_hw, attention_full=full, attention_causal=causal, causal_ratio=ratio)
    p = []
    if fcgpu.rel_diff(gemm_hw, one) > TOLERANCE:
        p.append(
            "GEMM measured %.6g, expected 2*4096^3 = %d (%+.2f%%)" % (gemm_hw, one, (gemm_hw / one - 1) * 100)
        )
    if ncu_ops and fcgpu.rel_diff(gemm_hw, ncu_ops) > TOLERANCE:
        p.append("GEMM measured %.6g, ncu %.6g (%+.2f%%)" % (gemm_hw, ncu_ops, (gemm_hw / ncu_ops - 1) * 100))
    if not HALF[0] <= ratio <= HALF[1]:
        p.append("causal/non-causal attention %.3f, expected %.2f-%.2f" % (ratio, HALF[0], HALF[1]))
    if p:
        return "FAIL", "; ".join(p)
    return "PASS", (
        "GEMM %.0f = 2*4096^3 %+.3f%%%s; causal/non-causal attention %.3f"
        % (
            gemm_hw,
            (gemm_hw / one - 1) * 100,
            ", ncu %+.3f%%" % ((gemm_hw / ncu_ops - 1) * 100) if ncu_ops else " (no ncu figure from 07a)",
            ratio,
        )
    )


def run(c):
    if not c.has_run_option("--hw-flops"):
        raise fcgpu.Skip("not built (flopcount run has no --hw-flops)")
    c.need_gpu()
    meta = c.python_program("hw_load.py", ["--mode", "hw"], "hw", 120, under=["--hw-flops"])
    c.finish(*evaluate(c.report("hw", meta["pid"]), meta, ncu_gemm(c.out), c.figures))


def self_test():
    meta = {"n": 4096, "gemm_reps": 10}
    one, tiny = 2 * 4096**3, 2 * 64**3
    full = 5 * 4 * 4 * 4096**2 * 16 * 128

    def rep(g=1.0, r=0.52):
        lst = [
            {"flops": one + 10, "hw_flops": {"bf16": one * 1.001}},
            {"flops": 10 * one, "hw_flops": {"bf16": 10 * one * g}},
            {"flops": tiny, "hw_flops": tiny + full},
            {"flops": tiny, "hardware_flops": tiny + full * r},
        ]
        return {"iterations": {"list": lst}, "hw_flops": {"status": "ok"}}

    assert evaluate(rep(), meta, one * 1.002, {})[0] == "PASS"
    shim = {  # the shim's own layout (shim/report/hwflops_json.c)
        "iterations": {"list": [{"flops": one + 10}] * 4},
        "hw_flops": {
            "status": "on",
            "iterations": {
                "list": [
                    {"flops": one * 1.001, "counted_flops": one + 10},
                    {"flops": 10 * one, "counted_flops": 10 * one},
                    {"flops": tiny + full, "counted_flops": tiny},
                    {"flops": tiny + full * 0.52, "counted_flops": tiny},
                ]
            },
        },
    }
    assert evaluate(shim, meta, one * 1.002, {})[0] == "PASS"
    shim["hw_flops"]["iterations"]["list"][3] = {"flops": None, "counted_flops": tiny}
    assert evaluate(shim, meta, None, {})[0] == "FAIL"
    assert evaluate(rep(g=1.02), meta, None, {})[0] == "FAIL"
    assert evaluate(rep(), meta, one * 1.03, {})[0] == "FAIL"
    assert evaluate(rep(r=1.0), meta, None, {})[0] == "FAIL"
    assert evaluate({"iterations": {"list": [{"flops": 1}]}}, meta, None, {})[0] == "FAIL"
    return 7


def main():
    c = fcgpu.Check("07b_hw_flops", __doc__)
    if c.args.self_test:
        print("07b_hw_flops self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
