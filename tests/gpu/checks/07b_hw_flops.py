# SPDX-License-Identifier: Apache-2.0
"""07b --hw-flops: a 4096^3 bf16 GEMM measured = 2*4096^3 within 1% and = ncu's; attention tiles = tensor counters.

programs/hw_load.py --mode hw under `flopcount run --hw-flops` (issue 17):
flopcount_step() markers make 4 iterations (warm-up; 10 GEMMs 4096^3;
a 64^3 GEMM + 5 non-causal SDPA; a 64^3 GEMM + 5 causal SDPA). Asserts on
the per-iteration hardware FLOPs:
  * iteration 2 = 10 * 2*4096^3 within 1% (by hand), and per GEMM within 1%
    of what ncu counted for the same GEMM in check 07a (when 07a ran);
  * hardware of iteration 4 over that of iteration 3 (the attention
    kernels, causal over non-causal) within [0.45, 0.60];
  * with the attention counted from its launches (issue 25): each flash
    forward's FLOPs executed = by hand (4 b h s^2 d full, 4 b h d
    s(s+1)/2 causal, exactly); the tiles the kernel runs (the report's
    tile_flops per call) = the tensor counters: iteration 3's hardware FLOPs
    and iteration 4's (less its 64^3 GEMM) within 2% of the calls' tile
    FLOPs, and of what ncu counted per call in check 07a (when it ran).
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


def ncu_attention(out_dir):
    """ops ncu counted for one non-causal and one causal flash forward in 07a, or (None, None)."""
    for path in glob.glob(os.path.join(os.path.dirname(out_dir), "07a_ncu_reference", "result.json")):
        try:
            with open(path) as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue
        fig = r.get("figures", {})
        return fig.get("attention_full_ops"), fig.get("attention_causal_ops")
    return None, None


def attention_checks(report, meta, per, ncu_att, figures, p):
    """The counted flash forwards against the hand count and the counters."""
    b, h, s, d, reps = meta["b"], meta["heads"], meta["s"], meta["d"], meta["sdpa_reps"]
    want = {"none": 4 * b * h * s * s * d, "causal": 4 * b * h * d * s * (s + 1) // 2}
    shapes = [x for x in (report.get("attention") or {}).get("shapes", [])
              if x.get("seq_q") == s and x.get("head_dim") == d and x.get("direction") == "forward"]
    tiles = {}
    for mask in ("none", "causal"):
        x = next((x for x in shapes if x.get("mask") == mask), None)
        if x is None:
            p.append("no counted %s flash forward (s %d, d %d)" % (mask, s, d))
            continue
        pc = x.get("per_call") or {}
        if pc.get("flops") != want[mask]:
            p.append("%s forward: %s FLOPs per call, by hand %d" % (mask, pc.get("flops"), want[mask]))
        if not pc.get("tile_flops"):
            p.append("%s forward: no tile FLOPs" % mask)
            continue
        tiles[mask] = pc["tile_flops"]
    figures.update(attention_tiles_per_call=tiles, attention_ncu_per_call=ncu_att)
    tiny = 2 * meta["tiny"] ** 3
    for it, mask in ((2, "none"), (3, "causal")):
        if mask not in tiles:
            continue
        hw = per[it][1] - tiny
        if fcgpu.rel_diff(hw, reps * tiles[mask]) > 0.02:
            p.append("%s attention: tensor counters %.6g, tiles %.6g (%+.2f%%)"
                     % (mask, hw, reps * tiles[mask], (hw / (reps * tiles[mask]) - 1) * 100))
    for mask, ops in zip(("none", "causal"), ncu_att):
        if ops and mask in tiles and fcgpu.rel_diff(tiles[mask], ops) > 0.02:
            p.append("%s attention: tiles %.6g per call, ncu %.6g" % (mask, tiles[mask], ops))


def evaluate(report, meta, ncu_ops, figures, ncu_att=(None, None)):
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
    full, causal = per[2][1], per[3][1]
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
    attention_checks(report, meta, per, ncu_att, figures, p)
    if p:
        return "FAIL", "; ".join(p)
    return "PASS", (
        "GEMM %.0f = 2*4096^3 %+.3f%%%s; causal/non-causal attention %.3f; attention counted exactly, "
        "its tiles = the tensor counters within 2%%"
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
    c.need_real_gpu('hardware FLOP counters')
    meta = c.python_program("hw_load.py", ["--mode", "hw"], "hw", 120, under=["--hw-flops"])
    c.finish(*evaluate(c.report("hw", meta["pid"]), meta, ncu_gemm(c.out), c.figures, ncu_attention(c.out)))


def self_test():
    meta = {"n": 4096, "gemm_reps": 10, "b": 4, "heads": 16, "s": 4096, "d": 128, "sdpa_reps": 5, "tiny": 64}
    one, tiny = 2 * 4096**3, 2 * 64**3
    per_full = 4 * 4 * 4096**2 * 16 * 128
    per_causal = 4 * 4 * 16 * 128 * 4096 * 4097 // 2
    tile_causal = per_causal * 1.02  # the diagonal tiles computed whole
    full = 5 * per_full

    def att(tc=tile_causal):
        return {"shapes": [
            {"direction": "forward", "seq_q": 4096, "head_dim": 128, "mask": "none",
             "per_call": {"flops": per_full, "tile_flops": per_full}},
            {"direction": "forward", "seq_q": 4096, "head_dim": 128, "mask": "causal",
             "per_call": {"flops": per_causal, "tile_flops": tc}}]}

    def rep(g=1.0, r=tile_causal / per_full):
        lst = [
            {"flops": one + 10, "hw_flops": {"bf16": one * 1.001}},
            {"flops": 10 * one, "hw_flops": {"bf16": 10 * one * g}},
            {"flops": tiny + full, "hw_flops": tiny + full},
            {"flops": tiny + 5 * per_causal, "hardware_flops": tiny + full * r},
        ]
        return {"iterations": {"list": lst}, "hw_flops": {"status": "ok"}, "attention": att()}

    st, why = evaluate(rep(), meta, one * 1.002, {}, (per_full * 1.001, tile_causal * 0.999))
    assert st == "PASS", why
    r = rep()
    r["attention"] = att(tc=per_causal * 1.2)  # tiles the counters do not see
    assert evaluate(r, meta, None, {})[0] == "FAIL"
    r = rep()
    r["attention"] = {"shapes": []}  # attention not counted
    st, why = evaluate(r, meta, None, {})
    assert st == "FAIL" and "no counted" in why, why
    assert evaluate(rep(), meta, None, {}, (per_full * 1.05, None))[0] == "FAIL"
    shim = {  # the shim's own layout (shim/report/hwflops_json.c)
        "iterations": {"list": [{"flops": one + 10}] * 4},
        "attention": att(),
        "hw_flops": {
            "status": "on",
            "iterations": {
                "list": [
                    {"flops": one * 1.001, "counted_flops": one + 10},
                    {"flops": 10 * one, "counted_flops": 10 * one},
                    {"flops": tiny + full, "counted_flops": tiny + full},
                    {"flops": tiny + 5 * tile_causal, "counted_flops": tiny + 5 * per_causal},
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
    return 11


def main():
    c = fcgpu.Check("07b_hw_flops", __doc__)
    if c.args.self_test:
        print("07b_hw_flops self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
