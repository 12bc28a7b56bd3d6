# SPDX-License-Identifier: Apache-2.0
"""04a CUDA graphs: 10 GEMMs captured with torch.cuda.CUDAGraph, replayed 100 times -> 100x their FLOPs, 0 at capture.

programs/graphs.py runs 10 bf16 GEMMs of distinct shapes 3 times eagerly,
captures them once, replays the graph 100 times, and records the shim's
counters (flopcount_snapshot_get) around the capture and the replays.
F = sum of 2*M*N*K over the 10 shapes, by hand. Asserts (issue 16's
interface: a `graphs` section in the report):
  * capture adds 0 FLOPs; the 100 replays add 100*F and 1000 calls;
  * the run's total is (3 + 100)*F in 1030 calls;
  * the `graphs` section counts 100 launches (when it has such a number).
Without CUDA-graph support (no `graphs` in the report): SKIP: not built,
with what the shim counted instead (today: the capture as if it ran, no
replay)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import expect  # noqa: E402
import fcgpu  # noqa: E402


def evaluate(report, meta, figures):
    F = sum(expect.gemm_flops(M, N, K) for M, N, K in meta["shapes"])
    n, W, R = len(meta["shapes"]), meta["warmup"], meta["replays"]
    b, c, e = meta["snap_before_capture"], meta["snap_after_capture"], meta["snap_end"]
    capture, replays = c["flops"] - b["flops"], e["flops"] - c["flops"]
    tot = report.get("totals", {})
    figures.update(
        flops_per_graph=F,
        capture_flops=capture,
        replay_flops=replays,
        replay_calls=e["calls"] - c["calls"],
        totals=tot,
        graphs=report.get("graphs"),
    )
    if "graphs" not in report:
        return "SKIP", (
            "not built (the report has no 'graphs'): the capture counted %.3gx the graph's FLOPs as if it "
            "ran, the 100 replays %.3gx" % (capture / F, replays / F)
        )
    p = []
    if capture != 0:
        p.append("capture counted %d FLOPs (%.3gx the graph), expected 0" % (capture, capture / F))
    if replays != R * F or e["calls"] - c["calls"] != R * n:
        p.append(
            "replays counted %d FLOPs in %d calls, expected %d in %d"
            % (replays, e["calls"] - c["calls"], R * F, R * n)
        )
    if tot.get("gemm_flops") != (W + R) * F or tot.get("gemm_calls") != (W + R) * n:
        p.append(
            "run total %s FLOPs in %s calls, expected %d in %d"
            % (tot.get("gemm_flops"), tot.get("gemm_calls"), (W + R) * F, (W + R) * n)
        )
    g = report["graphs"]
    if isinstance(g, dict) and g.get("replays_visible") is False:
        p.append("the shim could not see graph launches: %s" % g.get("reason"))
    launches = expect.first_number(g, ("launches", "graph_launches"))
    if launches is not None and launches != R:
        p.append("graphs.launches %s, expected %d" % (launches, R))
    if p:
        return "FAIL", "; ".join(p)
    return "PASS", (
        "capture 0 FLOPs; %d replays = %dx %s exactly; total (%d eager + %d) x the graph%s"
        % (R, R, fcgpu.si(F), W, R, "; %d launches in 'graphs'" % launches if launches is not None else "")
    )


def run(c):
    c.need_gpu()
    meta = c.python_program("graphs.py", [], "graphs", 120, under=[])
    c.finish(*evaluate(c.report("graphs", meta["pid"]), meta, c.figures))


def self_test():
    shapes = [(512 + 64 * i, 768 + 32 * i, 256 + 128 * i) for i in range(10)]
    F = sum(2 * M * N * K for M, N, K in shapes)

    def meta(capture_f, capture_c):
        b = {"flops": 3 * F, "calls": 30}
        c = {"flops": b["flops"] + capture_f, "calls": 30 + capture_c}
        return {
            "shapes": shapes,
            "warmup": 3,
            "replays": 100,
            "snap_before_capture": b,
            "snap_after_capture": c,
            "snap_end": {"flops": c["flops"] + 100 * F, "calls": c["calls"] + 1000},
        }

    good = {"totals": {"gemm_flops": 103 * F, "gemm_calls": 1030}, "graphs": {"launches": 100}}
    assert evaluate(good, meta(0, 0), {})[0] == "PASS"
    today = {"totals": {"gemm_flops": 4 * F, "gemm_calls": 40}}
    m = meta(F, 10)
    m["snap_end"] = dict(m["snap_after_capture"])
    st, why = evaluate(today, m, {})
    assert st == "SKIP" and why.startswith("not built") and "capture counted 1x" in why, why
    assert evaluate(good, meta(F, 10), {})[0] == "FAIL"
    assert evaluate(dict(good, graphs={"launches": 99}), meta(0, 0), {})[0] == "FAIL"
    blind = dict(good, graphs={"launches": 0, "replays_visible": False, "reason": "FLOPCOUNT_CUPTI=0"})
    st, why = evaluate(blind, meta(0, 0), {})
    assert st == "FAIL" and "FLOPCOUNT_CUPTI=0" in why, why
    return 5


def main():
    c = fcgpu.Check("04a_cuda_graphs", __doc__)
    if c.args.self_test:
        print("04a_cuda_graphs self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
