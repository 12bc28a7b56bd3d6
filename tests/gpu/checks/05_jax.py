# SPDX-License-Identifier: Apache-2.0
"""05 JAX: a jitted matmul chain counted through the dlsym path, or its GEMMs listed as uncounted kernel time; says which.

JAX/XLA reaches cuBLAS through dlopen + dlsym(handle), which plain
LD_PRELOAD does not see (issue 15), and many XLA GEMMs are Triton kernels
that never call cuBLAS (issue 16's --kernels lists them). programs/
jax_chain.py calls a jitted chain of 4 bf16 4096^3 matmuls 10 times;
expected 10*4*2*4096^3 FLOPs, by hand, compared with the shim's counter
deltas around those calls (compilation and autotuning left out):
  * run A, XLA_FLAGS=--xla_gpu_enable_triton_gemm=false (all GEMMs on
    cuBLAS): with the dlsym hook built, counted = expected exactly;
  * run B, XLA's defaults: the share counted, and with --kernels the
    uncounted GEMM-like kernel time, which must be > 0 when the share is
    below 1 (otherwise GEMMs went unseen).
SKIP: not built while libflopcount.so defines no dlsym and `flopcount run`
has no --kernels."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import expect  # noqa: E402
import fcgpu  # noqa: E402


def uncounted_gemm_seconds(report):
    """Seconds of GEMM-like kernels flopcount did not count: the shim's
    kernels.by_class.gemm_like_uncounted (docs/cupti.md), else any key
    naming "uncounted" in report.kernels; None without."""
    k = report.get("kernels")
    by = k.get("by_class") if isinstance(k, dict) else None
    if isinstance(by, dict) and isinstance(by.get("gemm_like_uncounted"), dict):
        return expect.first_number(by["gemm_like_uncounted"], ("seconds",))
    total, seen = 0.0, False
    for _, v in expect.find_values(report.get("kernels") or {}, lambda k: "uncounted" in k.lower()):
        x = (
            v
            if isinstance(v, (int, float)) and not isinstance(v, bool)
            else expect.first_number(v, ("seconds", "time_seconds", "kernel_seconds"))
        )
        if x is not None:
            total, seen = total + x, True
    return total if seen else None


def counted(meta):
    return meta["after"]["flops"] - meta["before"]["flops"]


def evaluate(meta_a, meta_b, report_b, dlsym, kernels, figures):
    exp = meta_a["reps"] * meta_a["links"] * 2 * meta_a["n"] ** 3
    ca, cb = counted(meta_a), counted(meta_b)
    unc = uncounted_gemm_seconds(report_b) if kernels else None
    figures.update(
        expected=exp,
        counted_cublas_only=ca,
        counted_default=cb,
        uncounted_gemm_seconds=unc,
        dlsym_built=dlsym,
        kernels_built=kernels,
        jax=meta_a.get("jax"),
    )
    p, said = [], []
    if dlsym:
        if ca != exp:
            p.append("cuBLAS-only run: counted %d of %d FLOPs through dlsym" % (ca, exp))
        else:
            said.append("cuBLAS-only: %s counted through dlsym, exactly" % fcgpu.si(exp))
    share = cb / exp
    if share == 1:
        said.append("default XLA: all GEMMs counted (cuBLAS)")
    elif kernels:
        if not unc:
            p.append(
                "default XLA: %.0f%% counted and no uncounted GEMM-like kernel time listed" % (share * 100)
            )
        else:
            said.append(
                "default XLA: %.0f%% counted, the rest listed as %.3f ms of uncounted GEMM-like (Triton) "
                "kernels" % (share * 100, unc * 1e3)
            )
    else:
        said.append(
            "default XLA: %.0f%% counted; the rest (Triton GEMMs) unlisted: --kernels not built"
            % (share * 100)
        )
    if cb > exp or ca > exp:
        p.append("more counted than run (%d, %d > %d)" % (ca, cb, exp))
    if p:
        return "FAIL", "; ".join(p)
    return "PASS", "; ".join(said)


def run(c):
    dlsym, kernels = c.shim_defines("dlsym"), c.has_run_option("--kernels")
    if not dlsym and not kernels:
        raise fcgpu.Skip("not built (libflopcount.so defines no dlsym; flopcount run has no --kernels)")
    c.need_gpu()
    flags = ["--kernels"] if kernels else []
    env_a = {"XLA_FLAGS": (os.environ.get("XLA_FLAGS", "") + " --xla_gpu_enable_triton_gemm=false").strip()}
    meta_a = c.python_program("jax_chain.py", [], "cublas_only", 120, under=flags, env=env_a)
    meta_b = c.python_program("jax_chain.py", [], "default", 120, under=flags)
    if meta_a.get("platform") != "gpu" and meta_a.get("platform") != "cuda":
        raise fcgpu.Fail("JAX ran on %s, not the GPU" % meta_a.get("platform"))
    c.finish(*evaluate(meta_a, meta_b, c.report("default", meta_b["pid"]), dlsym, kernels, c.figures))


def self_test():
    n, links, reps = 4096, 4, 10
    exp = reps * links * 2 * n**3

    def meta(x):
        return {"n": n, "links": links, "reps": reps, "before": {"flops": 7}, "after": {"flops": 7 + x}}

    assert evaluate(meta(exp), meta(exp), {}, True, False, {})[0] == "PASS"
    assert evaluate(meta(exp - 2), meta(exp), {}, True, False, {})[0] == "FAIL"
    st, why = evaluate(
        meta(exp), meta(0), {"kernels": {"uncounted_gemm_like": {"seconds": 0.004}}}, True, True, {}
    )
    assert st == "PASS" and "4.000 ms" in why, why
    assert evaluate(meta(exp), meta(0), {"kernels": {}}, True, True, {})[0] == "FAIL"
    assert (
        evaluate(meta(0), meta(0), {"kernels": {"classes": {"uncounted_gemm": 0.01}}}, False, True, {})[0]
        == "PASS"
    )
    return 5


def main():
    c = fcgpu.Check("05_jax", __doc__)
    if c.args.self_test:
        print("05_jax self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
