# SPDX-License-Identifier: Apache-2.0
"""09 SDPA per backend (flash, efficient, cudnn), causal/GQA, fwd+bwd: attention FLOPs = hand count, FlopCounterMode.

programs/sdpa_cases.py runs torch's scaled_dot_product_attention with each
backend forced (FLASH_ATTENTION, EFFICIENT_ATTENTION, CUDNN_ATTENTION): not
causal, causal, causal GQA (16 query heads over 4 kv heads), causal d 128;
bf16, b 2, h 16, each case with its own sequence length, 3 times forward
and backward inside FlopCounterMode; then flash-attn's flash_attn_func and
TransformerEngine's DotProductAttention when installed; a flash and a
cuDNN case captured into a CUDA graph and replayed 4 times after one eager
call (5 calls each way: the capture counts nothing, each replay counts
its graph's attention, issues 25 and 26). For every case
that ran, the report's attention shapes (issue 25: launches decoded;
issue 26: cuDNN plans) of its sequence length must hold:
  * a forward and a backward shape of the backend's source (flash,
    efficient, cudnn; TransformerEngine: cudnn or flash), 3 calls each,
    kv heads and mask as the case, not a bound;
  * FLOPs executed = by hand (lib/expect.py attention_flops: the visible
    pairs exactly, forward 2P(d + d_v), backward 2P(3d + 2d_v)) and at the
    model convention (backward 2x the forward), exactly;
  * FlopCounterMode's count (forward + backward, never halved for causal)
    = the full-mask figure by hand (4 b h s^2 d + 10 b h s^2 d per call):
    noted, not failed, where it differs (its GQA and layout bugs);
and no attention kernel or cuDNN plan is listed as not counted, no
attention call failed, no GEMM counted (no cuBLASLt call inside cuDNN
counted again), the launch layer checked the FlashAttention-2 and
memory-efficient parameter sizes with the runtime (launch.parameter_size
.checked > 0) and nothing was counted twice (a CUPTI callback and a hook).
The figures record the torch and cuDNN versions, the launch section and
which cuDNN path ran (CUDNN_FRONTEND_LOG_INFO's log, in the check's folder).
A backend that refuses a case (a shape it does not support) is listed; a
backend that ran no case at all fails. SKIP: not built while the shim
defines no __cudaLaunchKernel (the launch layer); the cudnn cases while it
defines no cudnnBackendExecute."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import expect  # noqa: E402
import fcgpu  # noqa: E402

SOURCES = {"flash": ("flash",), "efficient": ("efficient",), "cudnn": ("cudnn",),
           "flash_attn_pkg": ("flash",), "te": ("cudnn", "flash")}


def expected(c):
    f = expect.attention_flops(c["b"], c["h"], c["s"], c["s"], c["d"], causal=c["causal"])
    b = expect.attention_flops(c["b"], c["h"], c["s"], c["s"], c["d"], causal=c["causal"], direction="backward")
    full = 14 * c["b"] * c["h"] * c["s"] * c["s"] * c["d"]  # FlopCounterMode: 4 + 10, no causal halving
    return f, b, full


def check_case(c, shapes, problems, notes):
    f, b, full = expected(c)
    label = "%s %s%s%s s=%d d=%d" % (c["backend"], "causal" if c["causal"] else "full",
                                     " gqa" if c["h_k"] != c["h"] else "", " graphed" if c.get("graphed") else "",
                                     c["s"], c["d"])
    mine = [x for x in shapes if x.get("seq_q") == c["s"] and x.get("head_dim") == c["d"]]
    for direction, want in (("forward", f), ("backward", b)):
        got = [x for x in mine if x.get("direction") == direction]
        if len(got) != 1:
            problems.append("%s: %d %s shapes counted, expected 1" % (label, len(got), direction))
            continue
        x = got[0]
        bad = []
        if x.get("source") not in SOURCES[c["backend"]]:
            bad.append("source %s" % x.get("source"))
        if x.get("calls") != c["reps"] or x.get("failed_calls"):
            bad.append("%s calls (%s failed)" % (x.get("calls"), x.get("failed_calls")))
        if (x.get("batch"), x.get("heads"), x.get("kv_heads")) != (c["b"], c["h"], c["h_k"]):
            bad.append("b/h/kv %s/%s/%s" % (x.get("batch"), x.get("heads"), x.get("kv_heads")))
        if x.get("mask") != ("causal" if c["causal"] else "none") or x.get("bound"):
            bad.append("mask %s%s" % (x.get("mask"), ", a bound" if x.get("bound") else ""))
        if x.get("flops") != c["reps"] * want["executed"]:
            bad.append("%s FLOPs executed, expected %d" % (x.get("flops"), c["reps"] * want["executed"]))
        if x.get("model_flops") != c["reps"] * want["model"]:
            bad.append("%s model FLOPs, expected %d" % (x.get("model_flops"), c["reps"] * want["model"]))
        if bad:
            problems.append("%s %s: %s" % (label, direction, ", ".join(bad)))
    fcm = c.get("fcm_flops")
    if fcm is not None and fcm != c["reps"] * full:
        notes.append("%s: FlopCounterMode %d, full-mask hand count %d" % (label, fcm, c["reps"] * full))
    return label


def evaluate(report, meta, have_cudnn, figures):
    att = report.get("attention") or {}
    shapes = att.get("shapes") or []
    problems, notes, refused, ran = [], [], [], {}
    for c in meta["cases"]:
        if c["backend"] == "cudnn" and not have_cudnn:
            notes.append("cudnn cases not checked: the shim has no cuDNN hooks")
            continue
        if "error" in c:
            refused.append("%s s=%d: %s" % (c["backend"], c["s"], c["error"][:80]))
            continue
        check_case(c, shapes, problems, notes)
        ran[c["backend"]] = ran.get(c["backend"], 0) + 1
    for bk in ("flash", "efficient") + (("cudnn",) if have_cudnn else ()):
        if not ran.get(bk):
            problems.append("backend %s ran no case" % bk)
    unc = [u for u in report.get("uncounted") or []
           if u.get("class") == "attention" or (u.get("name") or "").startswith("cudnn")]
    if unc:
        problems.append("attention kernels or cuDNN plans not counted: %s" % "; ".join(
            "%s (%s: %s)" % (u.get("name", "?")[:70], u.get("reason"), u.get("detail", "")[:80]) for u in unc[:4]))
    if att.get("failed_calls"):
        problems.append("%s attention calls failed" % att.get("failed_calls"))
    gemms = (report.get("totals") or {}).get("gemm_calls")
    if gemms:
        problems.append("%s GEMM calls counted in a program of attention alone" % gemms)
    launch = report.get("launch") or {}
    if (ran.get("flash") or ran.get("efficient")) and not (launch.get("parameter_size") or {}).get("checked"):
        problems.append("no launch's parameter size checked with the runtime (launch.parameter_size %s)"
                        % launch.get("parameter_size"))
    if launch.get("cupti_duplicates") is None and launch:
        notes.append("no cupti_duplicates figure in the launch section")
    figures["launch"] = launch
    figures.update(ran=ran, refused=refused, notes=notes + list(meta.get("notes", [])),
                   attention={k: att.get(k) for k in ("calls", "flops", "model_flops", "tile_flops", "by_source")})
    if problems:
        return "FAIL", "; ".join(problems[:8])
    return "PASS", "%d cases exact (%s)%s%s" % (
        sum(ran.values()), ", ".join("%s x%d" % kv for kv in sorted(ran.items())),
        "; refused: %s" % "; ".join(refused) if refused else "",
        "; notes: %s" % "; ".join((notes + list(meta.get("notes", [])))[:4]) if notes or meta.get("notes") else "")


def run(c):
    c.need_gpu()
    if not c.shim_defines("__cudaLaunchKernel"):
        raise fcgpu.Skip("not built (libflopcount.so defines no __cudaLaunchKernel)")
    have_cudnn = c.shim_defines("cudnnBackendExecute")
    env = {"CUDNN_FRONTEND_LOG_INFO": "1",  # which path cuDNN took: unified or composite
           "CUDNN_FRONTEND_LOG_FILE": os.path.join(c.out, "cudnn_frontend.log")}
    meta = c.python_program("sdpa_cases.py", [], "sdpa", 150, under=[], env=env)
    c.figures.update(torch=meta.get("torch"), cudnn=meta.get("cudnn"))
    c.finish(*evaluate(c.report("sdpa", meta["pid"]), meta, have_cudnn, c.figures))


def synthetic(cases, source_of=None):
    shapes = []
    for cs in cases:
        if "error" in cs:
            continue
        f, b, _ = expected(cs)
        src = (source_of or {}).get(cs["backend"], SOURCES[cs["backend"]][0])
        for direction, w in (("forward", f), ("backward", b)):
            shapes.append({"source": src, "direction": direction, "batch": cs["b"], "heads": cs["h"],
                           "kv_heads": cs["h_k"], "seq_q": cs["s"], "seq_k": cs["s"], "head_dim": cs["d"],
                           "mask": "causal" if cs["causal"] else "none", "bound": False,
                           "calls": cs["reps"], "failed_calls": 0, "flops": cs["reps"] * w["executed"],
                           "model_flops": cs["reps"] * w["model"]})
    return {"attention": {"calls": 2 * len(shapes), "failed_calls": 0, "shapes": shapes}, "uncounted": [],
            "totals": {"gemm_calls": 0}, "launch": {"parameter_size": {"checked": 12}, "cupti_duplicates": 0}}


def self_test():
    import copy

    cases = []
    for i, (bk, causal, hk, d) in enumerate((("flash", False, 16, 64), ("flash", True, 4, 64),
                                             ("efficient", True, 16, 128), ("cudnn", True, 16, 64))):
        s = 64 + 16 * i
        full = 14 * 2 * 16 * s * s * d * 3
        cases.append({"backend": bk, "b": 2, "h": 16, "h_k": hk, "s": s, "d": d, "causal": causal,
                      "reps": 3, "fcm_flops": full})
    meta = {"cases": cases}
    good = synthetic(cases)
    st, why = evaluate(good, meta, True, {})
    assert st == "PASS" and "4 cases" in why, why
    r = copy.deepcopy(good)  # causal counted as full
    r["attention"]["shapes"][2]["flops"] = r["attention"]["shapes"][2]["flops"] * 2
    assert evaluate(r, meta, True, {})[0] == "FAIL"
    r = copy.deepcopy(good)  # the backward at the model convention only
    r["attention"]["shapes"][1]["flops"] = r["attention"]["shapes"][1]["model_flops"]
    assert evaluate(r, meta, True, {})[0] == "FAIL"
    assert evaluate(synthetic(cases, {"efficient": "flash"}), meta, True, {})[0] == "FAIL"
    r = copy.deepcopy(good)
    r["uncounted"] = [{"name": "flash_fwd_kernel", "class": "attention", "reason": "layout_mismatch"}]
    st, why = evaluate(r, meta, True, {})
    assert st == "FAIL" and "layout_mismatch" in why, why
    r = copy.deepcopy(good)
    del r["attention"]["shapes"][0]
    assert evaluate(r, meta, True, {})[0] == "FAIL"
    bad = copy.deepcopy(meta)  # a refused case is listed, not failed; a backend with none fails
    bad["cases"][2]["error"] = "RuntimeError: no kernel"
    st, why = evaluate(synthetic(bad["cases"]), bad, True, {})
    assert st == "FAIL" and "efficient ran no case" in why, why
    st, why = evaluate(synthetic(cases[:3]), {"cases": cases[:3] + [cases[3]]}, False, {})
    assert st == "PASS" and "no cuDNN hooks" in why, why
    r = copy.deepcopy(good)  # a cuBLASLt GEMM inside cuDNN counted again
    r["totals"]["gemm_calls"] = 6
    assert evaluate(r, meta, True, {})[0] == "FAIL"
    r = copy.deepcopy(good)  # the parameter sizes never checked: a layout guessed from the name
    r["launch"]["parameter_size"]["checked"] = 0
    assert evaluate(r, meta, True, {})[0] == "FAIL"
    r = copy.deepcopy(good)
    r["uncounted"] = [{"name": "cudnn graph: several attention parts", "class": "other", "reason": "unresolved_graph"}]
    assert evaluate(r, meta, True, {})[0] == "FAIL"
    odd = copy.deepcopy(meta)  # FlopCounterMode off (its GQA bug): a note, not a failure
    odd["cases"][1]["fcm_flops"] //= 4
    st, why = evaluate(good, odd, True, {})
    assert st == "PASS" and "FlopCounterMode" in why, why
    return 12


def main():
    c = fcgpu.Check("09_sdpa", __doc__)
    if c.args.self_test:
        print("09_sdpa self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
