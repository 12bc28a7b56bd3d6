# SPDX-License-Identifier: Apache-2.0
"""11 FP8 + BF16 mix: HFU at the dtype mix = sum of FLOPs/peak per dtype over the measured time, by hand.

programs/mix_cases.py runs 12 steps of 12 fp8 (e4m3, torch._scaled_mm) and
4 bf16 4096^3 GEMMs, a flopcount_step() after each, under `flopcount run`
(issue 27, the dtype-mix peak). By hand: F_fp8 = 12 x 2 x 4096^3, F_bf16 =
4 x 2 x 4096^3 per iteration; the ideal time at each dtype's dense peak of
the H200 (REFERENCE.md section 3: bf16 989.4, fp8 1978.9 TFLOP/s, written
in lib/expect.py) is F_fp8/P_fp8 + F_bf16/P_bf16; over the report's own
median iteration seconds (measured: the one figure taken from the report)
it is HFU_mix. Asserts: 12 iterations (markers); per-iteration FLOPs by
dtype as above; the report's HFU at the mix (a "mix" field of
utilization) = the hand figure within 1e-6 relative;
and the single-peak HFU names its dtype. SKIP: not built while the report
has no mix figure; no GPU."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import expect  # noqa: E402
import fcgpu  # noqa: E402


def mix_figure(util):
    """HFU at the mix from the utilization section: the first number under a
    key naming the mix ("hfu_mix", "mix": {"hfu": ...})."""
    for path, v in expect.find_values(util, lambda k: "mix" in k.lower()):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and "hfu" in path.lower():
            return v
        if isinstance(v, dict):
            h = expect.first_number(v, ("hfu", "hfu_mix", "ratio"))
            if h is not None:
                return h
    return None


def evaluate(report, meta, figures):
    if meta.get("error"):
        return "FAIL", "the program could not run its GEMMs: %s" % meta["error"]
    g = 2 * meta["M"] * meta["N"] * meta["K"]
    f8, fb = meta["nf8"] * g, meta["nbf"] * g
    it = report.get("iterations") or {}
    util = report.get("utilization") or {}
    problems = []
    if it.get("count") != meta["steps"]:
        problems.append("%s iterations, expected %d" % (it.get("count"), meta["steps"]))
    t = it.get("median_seconds")
    if not t:
        return "FAIL", "no median iteration time"
    want = (f8 / expect.H200_PEAKS["fp8_e4m3"] + fb / expect.H200_PEAKS["bf16"]) / t
    got = mix_figure(util)
    figures.update(expected_hfu_mix=want, hfu_mix=got, median_seconds=t, utilization=util)
    if got is None:
        problems.append("no HFU at the dtype mix in the report's utilization")
    elif abs(got - want) > 1e-6 * want:
        problems.append("HFU at the mix %.6f, by hand %.6f" % (got, want))
    bad = [x.get("index") for x in it.get("list", []) if x.get("flops") != f8 + fb]
    if bad:
        problems.append("%d iterations' FLOPs != %d, e.g. iteration %s" % (len(bad), f8 + fb, bad[0]))
    if not util.get("dtype"):
        problems.append("the single-peak HFU names no dtype")
    if problems:
        return "FAIL", "; ".join(problems)
    return "PASS", "HFU at the mix %.2f%% = by hand (fp8 75%% at %.1f, bf16 25%% at %.1f TFLOP/s, %.3f ms); single peak %s %.2f%%" % (
        100 * got, expect.H200_PEAKS["fp8_e4m3"] / 1e12, expect.H200_PEAKS["bf16"] / 1e12, t * 1e3,
        util.get("dtype"), 100 * (util.get("hfu") or 0))


def run(c):
    c.need_gpu()
    meta = c.python_program("mix_cases.py", [], "mix", 90, under=[])
    rep = c.report("mix", meta["pid"])
    if mix_figure(rep.get("utilization") or {}) is None and not fcgpu.assume_built():
        raise fcgpu.Skip("not built (the report's utilization has no dtype-mix figure)")
    c.figures["torch"] = meta.get("torch")
    c.finish(*evaluate(rep, meta, c.figures))


def self_test():
    meta = {"M": 4096, "N": 4096, "K": 4096, "nf8": 12, "nbf": 4, "steps": 12, "error": None}
    g = 2 * 4096 ** 3
    t = 0.0031
    want = (12 * g / 1978.9e12 + 4 * g / 989.4e12) / t
    rep = {"iterations": {"count": 12, "median_seconds": t, "list": [{"index": i, "flops": 16 * g} for i in range(12)]},
           "utilization": {"hfu": 0.5, "dtype": "fp8_e4m3", "hfu_mix": want}}
    st, why = evaluate(rep, meta, {})
    assert st == "PASS", why
    rep["utilization"] = {"hfu": 0.5, "dtype": "fp8_e4m3", "mix": {"hfu": want * 1.01}}
    assert evaluate(rep, meta, {})[0] == "FAIL"
    rep["utilization"] = {"hfu": 0.5, "dtype": "fp8_e4m3"}
    st, why = evaluate(rep, meta, {})
    assert st == "FAIL" and "no HFU at the dtype mix" in why, why
    assert evaluate(rep, dict(meta, error="RuntimeError: no fp8"), {})[0] == "FAIL"
    return 4


def main():
    c = fcgpu.Check("11_dtype_mix", __doc__)
    if c.args.self_test:
        print("11_dtype_mix self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
