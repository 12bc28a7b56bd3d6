# SPDX-License-Identifier: Apache-2.0
"""02 eager GEMMs through real torch CUDA: calls, FLOPs and dtype of each op = FlopCounterMode, counted once.

programs/gemm_cases.py runs 21 cases under `flopcount run`: matmul,
nn.Linear with bias (cuBLASLt epilogue path) and without, bmm, baddbmm, in
bf16, fp16, fp32 with TF32 on and off, and fp8 e4m3 via torch._scaled_mm;
each case has its own shape and runs 3 times inside
torch.utils.flop_counter.FlopCounterMode. For every case, matched to the
report's shapes by (min(m,n), max(m,n), k, batch) (cuBLAS is column major):
  * calls = 3: each op counted once (no cuBLAS -> cuBLASLt double count);
  * FLOPs = FlopCounterMode's count for the case, exactly (where it counts
    nothing, as for _scaled_mm in some torch versions, 2*M*N*K*batch*3 by
    hand, and the line says so);
  * dtype = bf16, fp16, tf32, fp32, fp8_e4m3 as the case says;
and the run has no GEMM outside the cases and no failed call."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import expect  # noqa: E402
import fcgpu  # noqa: E402


def evaluate(report, meta, figures):
    agg = expect.aggregate_shapes(report)
    problems, apis, by_hand, not_run = [], {}, [], []
    calls = flops = 0
    for case in meta["cases"]:
        label = "%s %s" % (case["op"], case["dtype"])
        if "error" in case:
            not_run.append("%s (%s)" % (label, case["error"][:80]))
            continue
        want = case.get("fcm_flops") or 0
        if want == 0:
            want = case["hand_flops"]
            by_hand.append(label)
        elif want != case["hand_flops"]:
            figures.setdefault("fcm_vs_hand", []).append((label, want, case["hand_flops"]))
        key = expect.shape_key(case["M"], case["N"], case["K"], case["batch"])
        got = agg.pop(key, None)
        calls += case["reps"]
        flops += want
        if got is None:
            problems.append("%s: not counted" % label)
            continue
        for api in got["apis"]:
            apis[api] = apis.get(api, 0) + 1
        figures.setdefault("cases", []).append(
            {
                "case": label,
                "calls": got["calls"],
                "flops": got["flops"],
                "expected_flops": want,
                "dtypes": sorted(got["dtypes"]),
                "apis": sorted(got["apis"]),
            }
        )
        if got["calls"] != case["reps"]:
            problems.append(
                "%s: %d calls, expected %d%s"
                % (
                    label,
                    got["calls"],
                    case["reps"],
                    " (double count?)" if got["calls"] > case["reps"] else "",
                )
            )
        if got["flops"] != want:
            problems.append("%s: %d FLOPs, expected %d" % (label, got["flops"], want))
        if got["dtypes"] != {case["expect_dtype"]}:
            problems.append(
                "%s: dtype %s, expected %s" % (label, sorted(got["dtypes"]), case["expect_dtype"])
            )
    if agg:
        problems.append(
            "GEMMs outside the cases: %s"
            % sorted((str(k), v["calls"], v["flops"]) for k, v in agg.items())[:5]
        )
    tot = report.get("totals", {})
    if tot.get("failed_calls") or tot.get("invalid_calls"):
        problems.append("%s failed, %s invalid calls" % (tot.get("failed_calls"), tot.get("invalid_calls")))
    if not_run:
        problems.append("cases that could not run: %s" % "; ".join(not_run))
    figures.update(apis=apis, totals=tot)
    if problems:
        return "FAIL", "; ".join(problems)
    n = len(meta["cases"])
    return "PASS", (
        "%d cases, %d calls, %s = FlopCounterMode exactly%s; dtypes bf16 fp16 tf32 fp32 fp8_e4m3 right; "
        "each op once; cases per API: %s"
        % (
            n,
            calls,
            fcgpu.si(flops),
            " (by hand for %s: FlopCounterMode counts 0)" % ", ".join(by_hand) if by_hand else "",
            ", ".join("%s x%d" % kv for kv in sorted(apis.items())),
        )
    )


def run(c):
    c.need_gpu()
    meta = c.python_program("gemm_cases.py", [], "gemms", 120, under=[])
    c.figures["torch"] = meta.get("torch")
    c.finish(*evaluate(c.report("gemms", meta["pid"]), meta, c.figures))


def synthetic(cases, double=None, dtype=None):
    """The report a correct flopcount writes: cuBLAS sees m=N, n=M, k=K."""
    shapes = []
    for cs in cases:
        f = 2 * cs["M"] * cs["N"] * cs["K"] * cs["batch"]
        n = cs["reps"] * (2 if cs["op"] == double else 1)
        shapes.append(
            {
                "api": "cublasGemmEx",
                "m": cs["N"],
                "n": cs["M"],
                "k": cs["K"],
                "batch": cs["batch"],
                "dtype": dtype if dtype and cs["op"] == "bmm" else cs["expect_dtype"],
                "calls": n,
                "flops": f * n,
            }
        )
    return {"shapes": shapes, "totals": {"failed_calls": 0, "invalid_calls": 0}}


def self_test():
    cases = []
    for i, (op, dt) in enumerate(
        (("matmul", "bf16"), ("bmm", "fp16"), ("linear_bias", "tf32"), ("scaled_mm", "fp8_e4m3"))
    ):
        M, N, K, b = 256 + 32 * i, 384 + 32 * i, 512 + 16 * i, 4 if op == "bmm" else 1
        h = 2 * M * N * K * b * 3
        cases.append(
            {
                "op": op,
                "dtype": dt,
                "expect_dtype": dt,
                "M": M,
                "N": N,
                "K": K,
                "batch": b,
                "reps": 3,
                "hand_flops": h,
                "fcm_flops": 0 if op == "scaled_mm" else h,
            }
        )
    meta = {"cases": cases}
    st, why = evaluate(synthetic(cases), meta, {})
    assert st == "PASS" and "by hand for scaled_mm" in why, why
    st, why = evaluate(synthetic(cases, double="linear_bias"), meta, {})
    assert st == "FAIL" and "double count" in why, why
    assert evaluate(synthetic(cases, dtype="fp32"), meta, {})[0] == "FAIL"
    r = synthetic(cases)
    r["shapes"].append(
        {
            "api": "cublasSgemm_v2",
            "m": 8,
            "n": 8,
            "k": 8,
            "batch": 1,
            "dtype": "fp32",
            "calls": 1,
            "flops": 1024,
        }
    )
    assert evaluate(r, meta, {})[0] == "FAIL"
    r = synthetic(cases)
    del r["shapes"][1]
    assert evaluate(r, meta, {})[0] == "FAIL"
    bad = dict(meta, cases=cases[:3] + [dict(cases[3], error="RuntimeError: no fp8")])
    assert evaluate(synthetic(cases[:3]), bad, {})[0] == "FAIL"
    return 6


def main():
    c = fcgpu.Check("02_eager_gemms", __doc__)
    if c.args.self_test:
        print("02_eager_gemms self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
