# SPDX-License-Identifier: Apache-2.0
"""12 MoE: a torchtitan-style MoE layer's dense GEMMs counted exactly, its grouped expert GEMMs named, never guessed.

programs/moe_cases.py trains 6 steps of one MoE layer in bf16 (T = 2048
tokens, D = 1024, E = 8 SwiGLU experts of width F = 512 run with
torch._grouped_mm, top-2 routing decided on the host, a shared SwiGLU
expert of width FS = 1024, a router Linear D -> E), a flopcount_step()
after each, under `flopcount run`. By hand per step: the dense GEMMs are
the router's 3 (forward, dX, dW) of 2*T*D*E and the shared expert's 9
(3 forward, 6 backward: x needs its gradient) of 2*T*D*FS; the grouped ones
are 9 of 2*R*D*F with R = T*2 routed rows (3 forward, dX and dW of each).

torch._grouped_mm keeps its group sizes in device memory (offs), so its
kernels (CUTLASS GemmUniversal<GroupProblemShape>, or cuBLASLt grouped
layouts) cannot be counted from the host (docs/moe.md). Asserts: 6
iterations; either (a) every iteration's FLOPs = the dense FLOPs exactly
and the report's uncounted list has an entry with reason
sizes_in_device_memory, class gemm_like_uncounted, at least 3 calls a step
(the forward's); or (b) every iteration's FLOPs = dense + grouped exactly
(this PyTorch ran the experts as per-expert cuBLAS GEMMs). The figures say
which. SKIP: no GPU; not built (no sizes_in_device_memory in this
flopcount)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import fcgpu  # noqa: E402

REASON = "sizes_in_device_memory"


def by_hand(meta):
    T, D, F, FS, E = meta["T"], meta["D"], meta["F"], meta["FS"], meta["E"]
    R = T * meta["topk"]
    dense = 3 * 2 * T * D * E + 9 * 2 * T * D * FS
    grouped = 9 * 2 * R * D * F
    return dense, grouped


def evaluate(report, meta, figures):
    if meta.get("error"):
        return "FAIL", "the program could not train its MoE layer: %s" % meta["error"]
    dense, grouped = by_hand(meta)
    steps = meta["steps"]
    it = report.get("iterations") or {}
    flops = [x.get("flops") for x in it.get("list", [])]
    unc = [u for u in report.get("uncounted") or [] if u.get("reason") == REASON]
    unc_calls = sum(u.get("calls", 0) for u in unc)
    figures.update(dense_flops=dense, grouped_flops=grouped, iteration_flops=flops,
                   uncounted=unc, sizes=meta.get("sizes"))
    problems = []
    if it.get("count") != steps:
        problems.append("%s iterations, expected %d" % (it.get("count"), steps))
    if flops and all(f == dense for f in flops):
        figures["path"] = "grouped kernels uncounted"
        if not unc:
            problems.append("the grouped GEMMs are in no uncounted entry with reason " + REASON)
        elif any(u.get("class") != "gemm_like_uncounted" for u in unc):
            problems.append("an uncounted grouped entry is not classed gemm_like_uncounted")
        elif unc_calls < 3 * steps:
            problems.append("%d uncounted grouped calls, expected at least %d" % (unc_calls, 3 * steps))
    elif flops and all(f == dense + grouped for f in flops):
        figures["path"] = "experts as per-expert cuBLAS GEMMs"
    else:
        problems.append("iteration FLOPs %s: neither dense %d nor dense + grouped %d"
                        % (flops[:3], dense, dense + grouped))
    if problems:
        return "FAIL", "; ".join(problems)
    return "PASS", "%s; dense %.3g FLOPs a step exactly; %d uncounted grouped calls (%s); group sizes %s" % (
        figures["path"], dense, unc_calls, ", ".join(u.get("name", "?")[:60] for u in unc) or "none",
        meta.get("sizes"))


def run(c):
    c.need_gpu()
    meta = c.python_program("moe_cases.py", [], "moe", 120, under=[])
    rep = c.report("moe", meta["pid"])
    c.figures["torch"] = meta.get("torch")
    c.finish(*evaluate(rep, meta, c.figures))


def self_test():
    meta = {"T": 2048, "D": 1024, "F": 512, "FS": 1024, "E": 8, "topk": 2, "steps": 6,
            "sizes": [512] * 8, "error": None}
    dense, grouped = by_hand(meta)
    assert dense == 3 * 2 * 2048 * 1024 * 8 + 9 * 2 * 2048 * 1024 * 1024
    unc = [{"name": "cutlass grouped", "class": "gemm_like_uncounted", "reason": REASON, "calls": 54}]
    rep = {"iterations": {"count": 6, "list": [{"flops": dense}] * 6}, "uncounted": unc}
    st, why = evaluate(rep, meta, {})
    assert st == "PASS", why
    rep["uncounted"] = []
    assert evaluate(rep, meta, {})[0] == "FAIL"
    rep = {"iterations": {"count": 6, "list": [{"flops": dense + grouped}] * 6}}
    assert evaluate(rep, meta, {})[0] == "PASS"
    rep = {"iterations": {"count": 6, "list": [{"flops": dense + 1}] * 6}, "uncounted": unc}
    assert evaluate(rep, meta, {})[0] == "FAIL"
    assert evaluate(rep, dict(meta, error="RuntimeError: no grouped mm"), {})[0] == "FAIL"
    return 5


def main():
    c = fcgpu.Check("12_moe", __doc__)
    if c.args.self_test:
        print("12_moe self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
