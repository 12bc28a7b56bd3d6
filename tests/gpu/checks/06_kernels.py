# SPDX-License-Identifier: Apache-2.0
"""06 --kernels: busy %, per-shape TFLOP/s of an 8192^3 bf16 GEMM = torch's timing within 5%, attention classed as attention.

programs/kernels_load.py under `flopcount run --kernels` (issue 16): 23
bf16 8192^3 GEMMs (20 timed by torch.cuda.Event back to back; TFLOP/s =
2*8192^3 / seconds per call, by hand) and 5 causal flash SDPA calls.
Asserts on the report's `kernels` section:
  * GPU busy % is given and within (0, 100];
  * the 8192x8192x8192 bf16 shape's achieved TFLOP/s (given, or its FLOPs
    over its kernel seconds) within 5% of torch's;
  * attention kernel time > 0, with an attention kernel (flash/fmha/sdpa/
    attention in the name) among the class's top names when listed.
Field names are looked up loosely (any key holding "busy", a per-shape
list with m/n/k, a class keyed "attention"); the self-test includes the
shim's own layout (docs/cupti.md: busy_fraction, shapes[] with
achieved_flops_per_second, by_class and top_names).
SKIP: not built while `flopcount run --help` has no --kernels."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import expect  # noqa: E402
import fcgpu  # noqa: E402

TOLERANCE = 0.05
ATTENTION_WORDS = ("flash", "fmha", "sdpa", "attention", "attn")


def busy_percent(k):
    """GPU busy % from a key holding "busy": a percent, or a fraction (x100)."""
    for path, v in expect.find_values(k, lambda key: "busy" in key.lower()):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            continue
        key = path.rsplit(".", 1)[-1].lower()
        if "percent" in key or "pct" in key:
            return v
        if "fraction" in key or "ratio" in key:
            return v * 100
    return None


def shape_tflops(k, n):
    """Achieved TFLOP/s of the n^3 bf16 shape in the kernel report, or None."""
    for _, lst in expect.find_values(k, lambda key: "shape" in key.lower()):
        if not isinstance(lst, list):
            continue
        for e in lst:
            if not isinstance(e, dict) or (e.get("m"), e.get("n"), e.get("k")) != (n, n, n):
                continue
            t = expect.first_number(e, ("tflops", "achieved_tflops", "tflop_per_second", "tflops_per_second"))
            if t is not None:
                return t
            fps = expect.first_number(e, ("flops_per_second", "achieved_flops_per_second"))
            if fps is not None:
                return fps / 1e12
            f = expect.first_number(e, ("flops",))
            s = expect.first_number(e, ("kernel_seconds", "gpu_seconds", "seconds", "time_seconds"))
            if f and s:
                return f / s / 1e12
    return None


def attention(k):
    """(seconds, top kernel names) of the attention class, or (None, [])."""
    for _, v in expect.find_values(k, lambda key: key.lower() == "attention"):
        secs = (
            v
            if isinstance(v, (int, float)) and not isinstance(v, bool)
            else expect.first_number(v, ("seconds", "kernel_seconds", "time_seconds"))
        )
        names = []
        if isinstance(v, dict):
            for _, lst in expect.find_values(v, lambda key: key.lower() in ("top", "kernels", "top_kernels")):
                for x in lst if isinstance(lst, list) else []:
                    names.append(x.get("name", "") if isinstance(x, dict) else str(x))
        if secs is not None:
            return secs, names
    return None, []


def evaluate(report, meta, figures):
    k = report.get("kernels")
    if not isinstance(k, dict):
        return "FAIL", "flopcount run --kernels wrote no 'kernels' section"
    busy, tf = busy_percent(k), shape_tflops(k, meta["n"])
    att, names = attention(k)
    figures.update(
        busy_percent=busy,
        report_tflops=tf,
        torch_tflops=meta["gemm_tflops"],
        attention_seconds=att,
        attention_top=names[:5],
    )
    p = []
    if busy is None or not 0 < busy <= 100:
        p.append("GPU busy %% %s, expected in (0, 100]" % busy)
    if tf is None:
        p.append("no TFLOP/s for the %d^3 bf16 shape" % meta["n"])
    elif fcgpu.rel_diff(tf, meta["gemm_tflops"]) > TOLERANCE:
        p.append(
            "%d^3 bf16: %.1f TFLOP/s, torch's timing %.1f (%+.1f%%, limit 5%%)"
            % (meta["n"], tf, meta["gemm_tflops"], (tf / meta["gemm_tflops"] - 1) * 100)
        )
    if not att:
        p.append("no attention kernel time")
    elif names and not any(w in n.lower() for n in names for w in ATTENTION_WORDS):
        p.append("attention class top kernels %s look like no attention kernel" % names[:3])
    if p:
        return "FAIL", "; ".join(p)
    return "PASS", (
        "busy %.1f%%; %d^3 bf16 %.1f TFLOP/s vs torch %.1f (%+.1f%%); attention %.2f ms%s"
        % (
            busy,
            meta["n"],
            tf,
            meta["gemm_tflops"],
            (tf / meta["gemm_tflops"] - 1) * 100,
            att * 1e3,
            " (%s)" % names[0][:40] if names else "",
        )
    )


def run(c):
    if not c.has_run_option("--kernels"):
        raise fcgpu.Skip("not built (flopcount run has no --kernels)")
    c.need_gpu()
    c.need_real_gpu('CUPTI kernel times')
    meta = c.python_program("kernels_load.py", [], "kernels", 120, under=["--kernels"])
    c.finish(*evaluate(c.report("kernels", meta["pid"]), meta, c.figures))


def self_test():
    meta = {"n": 8192, "gemm_tflops": 700.0}
    f = 23 * 2 * 8192**3
    good = {
        "kernels": {
            "busy_fraction": 0.93,
            "shapes": [
                {"m": 8192, "n": 8192, "k": 8192, "dtype": "bf16", "flops": f, "kernel_seconds": f / 705e12}
            ],
            "classes": {"attention": {"seconds": 0.012, "top": [{"name": "flash_fwd_kernel"}]}},
        }
    }
    st, why = evaluate(good, meta, {})
    assert st == "PASS" and "busy 93.0%" in why, why
    slow = {"kernels": dict(good["kernels"], shapes=[{"m": 8192, "n": 8192, "k": 8192, "tflops": 600.0}])}
    assert evaluate(slow, meta, {})[0] == "FAIL"
    noatt = {"kernels": dict(good["kernels"], classes={"attention": {"seconds": 0.0}})}
    assert evaluate(noatt, meta, {})[0] == "FAIL"
    pct = {"kernels": dict(good["kernels"], busy_percent=93.0)}
    del pct["kernels"]["busy_fraction"]
    assert evaluate(pct, meta, {})[0] == "PASS"
    assert evaluate({}, meta, {})[0] == "FAIL"
    shim = {  # the shim's own layout (shim/report/kernels_json.c)
        "kernels": {
            "gpu_busy_seconds": 0.93,
            "gpu_span_seconds": 1.0,
            "busy_fraction": 0.93,
            "by_class": {"gemm": {"seconds": 0.5, "kernels": 23}, "attention": {"seconds": 0.012, "kernels": 5}},
            "top_names": {"attention": [{"name": "flash_fwd_kernel", "seconds": 0.012, "kernels": 5}]},
            "shapes": [
                {"m": 8192, "n": 8192, "k": 8192, "batch": 1, "dtype": "bf16", "kernel_seconds": f / 705e12,
                 "flops_timed": f, "achieved_flops_per_second": 705e12}
            ],
            "iterations": {"list": [{"busy_fraction": 0.5, "seconds_by_class": {"attention": 0.0}}]},
        }
    }
    st, why = evaluate(shim, meta, {})
    assert st == "PASS" and "busy 93.0%" in why, why
    return 6


def main():
    c = fcgpu.Check("06_kernels", __doc__)
    if c.args.self_test:
        print("06_kernels self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
