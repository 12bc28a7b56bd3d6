# SPDX-License-Identifier: Apache-2.0
"""test_infer_torch.py SHIM CLI WORKDIR CASE - the model read off real PyTorch
training runs (fixture_train.py under the shim, Debian's CPU torch).

For each case the test knows the model it trained; it runs
'flopcount report FILE --json' with no model flag and checks every value of
"inferred_model.model" against that model (worked out here from the
configuration, not from the tool), then runs the report again with the
model's flags and checks that the formula from the inferred model equals
the formula from the flags field for field, MFU included. Cases the stream
cannot settle (fused attention, one layer without an attention core, an MLP
without attention) must say what is unknown and compute no formula.
"""
import json
import os
import re
import subprocess
import sys

PY = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))

CASES = {
    # plain GPT: fused QKV, plain MLP, tied embeddings, evaluation passes
    "plain": dict(layers=3, eval_every=2, steps=5),
    # GQA + SwiGLU, separate Q, K, V, head_dim != hidden / heads, untied
    "gqa_swiglu": dict(qkv="separate", kv_heads=2, head_dim=32, mlp="gated", ffn=88, tied=False,
                       vocab=80, seq=24, batch=3),
    # GQA in one fused QKV, gate and up fused, 8 heads of 16 over a hidden of 64
    "gqa_fused": dict(heads=8, kv_heads=2, head_dim=16, mlp="gated_fused", ffn=96, vocab=72),
    # Q and a fused KV, untied embeddings, head_dim != hidden / heads
    "q_kv": dict(qkv="q_kv", hidden=48, heads=4, kv_heads=1, head_dim=24, tied=False, seq=20, batch=4),
    "ckpt_full": dict(ckpt="all"),
    "ckpt_some": dict(layers=3, ckpt=[1]),
    "selective": dict(selective=True),
    "accum_markers": dict(accum=2, markers=True),
    "accum_auto": dict(accum=3, steps=3),
    "per_head": dict(attention="loop", steps=8),
    "moe": dict(mlp="gated", moe=dict(experts=4, topk=2, ffn=48, shared=1, shared_ffn=40)),
    "moe_every": dict(layers=4, moe=dict(experts=6, topk=2, ffn=40, every=2)),
    "moe_first_dense": dict(layers=3, moe=dict(experts=4, topk=1, ffn=64, first_dense=1)),
    "one_layer": dict(layers=1),
    "fused_attention": dict(attention="fused", layers=3),
    "one_layer_fused": dict(attention="fused", layers=1),
    "mlp_only": dict(kind="mlp", layers=3),
}

DEFAULTS = dict(layers=2, hidden=64, heads=4, kv_heads=None, head_dim=None, ffn=None, vocab=96,
                seq=32, batch=2, steps=4, qkv="fused", mlp="plain", attention="bmm", tied=True,
                ckpt=[], selective=False, accum=1, markers=False, eval_every=0, moe=None,
                kind="transformer")


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def truth(case):
    """The trained model as 'formula --json' keys, worked out from its
    configuration: (configuration, the model, what the stream can show of
    it - None where it cannot)."""
    c = dict(DEFAULTS, **CASES[case])
    h, a = c["hidden"], c["heads"]
    g, d = c["kv_heads"] or a, c["head_dim"] or h // a
    t = dict(layers=c["layers"], hidden=h, heads=a, kv_heads=g, head_dim=d, ffn=c["ffn"] or 4 * h,
             swiglu=c["mlp"] != "plain", vocab=c["vocab"], seq=c["seq"],
             batch=c["batch"] * (c["accum"] if c["markers"] else 1), tied_embeddings=c["tied"],
             experts=0, causal_attention="full")
    m = c["moe"]
    if m:
        every, first = m.get("every", 1), m.get("first_dense", 0)
        moe_layers = [i for i in range(c["layers"]) if i >= first and i % every == 0]
        t.update(experts=m["experts"], topk=m["topk"], moe_ffn=m["ffn"], shared_experts=m.get("shared", 0),
                 shared_ffn=(m.get("shared_ffn") or m["ffn"]) if m.get("shared") else 0,
                 moe_every=every, moe_first_dense=moe_layers[0])
        if len(moe_layers) == c["layers"]:
            t["ffn"] = m["ffn"]  # no dense layer: the formula's ffn is the experts' (not used)
    ck = c["ckpt"]
    t["recompute"] = ("full" if ck == "all" else "selective" if c["selective"] else
                      "partial" if ck else "none")
    e = dict(t, tied_embeddings=None)  # the embedding lookup is no GEMM
    if t["recompute"] == "partial":
        e["recompute"] = None
    if c["attention"] == "fused":
        e.update(heads=None, kv_heads=None, head_dim=None, seq=None, batch=None)
        if t["recompute"] == "none":
            e["recompute"] = None  # no GEMM recomputed: none, or a fused kernel's selective
    return c, t, e


def flags(t):
    """The model as flags."""
    f = []
    for k in ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "seq", "batch"):
        f += ["--" + k.replace("_", "-"), str(t[k])]
    if t["swiglu"]:
        f.append("--swiglu")
    if t["experts"]:
        f += ["--experts", str(t["experts"]), "--topk", str(t["topk"]), "--moe-ffn", str(t["moe_ffn"]),
              "--shared-experts", str(t["shared_experts"]), "--moe-every", str(t["moe_every"]),
              "--moe-first-dense", str(t["moe_first_dense"])]
        if t["shared_experts"]:
            f += ["--shared-ffn", str(t["shared_ffn"])]
    f += ["--recompute", t["recompute"] if t["recompute"] != "partial" else "none"]
    if not t["tied_embeddings"]:
        f.append("--untied-embeddings")
    return f


def train(shim, work, case, extra_env=None):
    out = os.path.join(work, "infer_%s.json" % case)
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ, LD_PRELOAD=shim, FLOPCOUNT_OUTPUT=out, OMP_NUM_THREADS="1")
    env.pop("FLOPCOUNT_QUIET", None)
    env.update(extra_env or {})
    p = subprocess.run([PY, os.path.join(HERE, "fixture_train.py"), json.dumps(CASES[case])],
                       env=env, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        fail("training failed: %s" % p.stderr[-3000:])
    return out, p.stderr


def report(cli, path, extra=(), text=False):
    cmd = [cli, "report", path, "--peak-tflops", "1"] + list(extra) + ([] if text else ["--json"])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr))
    return r.stdout if text else json.loads(r.stdout)


def check_values(case, j, t):
    im = j["inferred_model"]
    got = im["model"]
    bad = {k: (got.get(k), v) for k, v in t.items() if got.get(k) != v}
    if bad:
        raise AssertionError("%s: inferred != trained (got, want): %s\n%s" %
                             (case, bad, json.dumps(im["how"], indent=1)))
    for k, v in t.items():
        status = im["how"][k]["status"]
        want = "unknown" if v is None else "convention" if k == "causal_attention" else None
        if want and status != want:
            raise AssertionError("%s: %s is %s, expected %s" % (case, k, status, want))
        if want is None and status not in ("exact", "convention"):
            raise AssertionError("%s: %s is %s" % (case, k, status))


def same_formula(case, a, b):
    fa, fb = dict(a["formula"]), dict(b["formula"])
    fa.pop("model_from"), fb.pop("model_from")
    if fa != fb:
        raise AssertionError("%s: formula from the stream %s != from flags %s" % (case, fa, fb))
    if a["difference"] != b["difference"]:
        raise AssertionError("%s: difference %s != %s" % (case, a["difference"], b["difference"]))


def live_and_summary(case, t, stderr, exact):
    """The shim's own lines: 'formula MFU' on the live lines once the model
    inferred from a steady profile fits the count (then equal to MFU, the
    count being the formula's), and the summary's inferred model."""
    lines = re.findall(r"^flopcount: step (\d+) [0-9.]+ s [0-9.]+ [kMGTPE]?FLOP/s HFU \S+ MFU (\S+) "
                       r"recompute \S+(?: \(split unsure\))?( formula MFU (\S+))?$", stderr, re.M)
    if len(lines) < 3:
        raise AssertionError("%s: live lines:\n%s" % (case, stderr))
    with_formula = [x for x in lines if x[2]]
    summary = re.search(r"^flopcount: HFU \S+ MFU (\S+)(?: \(split unsure\))? of .*\n(flopcount: .*)$",
                        stderr, re.M)
    if summary is None:
        raise AssertionError("%s: no summary in\n%s" % (case, stderr))
    if not exact:
        if with_formula or "inferred model not exact" not in summary.group(2):
            raise AssertionError("%s: formula MFU without a complete model:\n%s" % (case, stderr))
        return
    if not with_formula or any(x[1] != x[3] for x in with_formula) or with_formula[-1][0] != lines[-1][0]:
        raise AssertionError("%s: formula MFU on the live lines:\n%s" % (case, stderr))
    want = ("flopcount: inferred model l=%d h=%d a=%d kv=%d d=%d ffn=%d V=%d s=%d B=%d, exact from the "
            "GEMM shapes; formula MFU %s" % (t["layers"], t["hidden"], t["heads"], t["kv_heads"],
                                             t["head_dim"], t["ffn"], t["vocab"], t["seq"], t["batch"],
                                             summary.group(1)))
    if summary.group(2) != want:
        raise AssertionError("%s: summary %r, want %r" % (case, summary.group(2), want))


LIVE = {"plain": True, "fused_attention": False}


def run_inferable(shim, cli, work, case):
    c, t, e = truth(case)
    path, stderr = train(shim, work, case, {"FLOPCOUNT_LOG_EVERY": "1"} if case in LIVE else None)
    if case in LIVE:
        live_and_summary(case, t, stderr, LIVE[case])
    j = report(cli, path)
    check_values(case, j, e)
    im = j["inferred_model"]
    fused = c["attention"] == "fused"
    if fused:
        # seq is all the formula lacks; given, the model is complete
        if j["formula"] is not None or "--seq" not in j["formula_reason"]:
            raise AssertionError("%s: formula without --seq: %s" % (case, j.get("formula_reason")))
        j = report(cli, path, ["--seq", str(c["seq"])])
        im = j["inferred_model"]
        if im["model"]["batch"] != c["batch"] or im["how"]["seq"]["status"] != "given":
            raise AssertionError("%s: with --seq: %s" % (case, im["model"]))
    if not im["complete"] or not im["fits"] or j["formula"] is None:
        raise AssertionError("%s: complete %s fits %s: %s" % (case, im["complete"], im["fits"], im))
    if j["formula"]["model_from"] != ("the stream and flags" if fused else "the stream"):
        raise AssertionError("%s: model_from %s" % (case, j["formula"]["model_from"]))
    same_formula(case, j, report(cli, path, flags(t)))
    if t["recompute"] != "partial" and not fused:
        # formula MFU from the inferred model = measured MFU when the count equals the formula
        if j["difference"]["counted_is"] != "equal":
            raise AssertionError("%s: counted %s the formula" % (case, j["difference"]["counted_is"]))
    return path, j, stderr


def run_not_inferable(shim, cli, work, case):
    path, _ = train(shim, work, case)
    j = report(cli, path)
    im = j["inferred_model"]
    if im["structure_found"] or im["complete"] or j["formula"] is not None:
        raise AssertionError("%s: expected no model, got %s" % (case, im))
    for k in ("layers", "hidden", "vocab", "batch"):
        if im["model"][k] is not None or im["how"][k]["status"] != "unknown":
            raise AssertionError("%s: %s should be unknown: %s" % (case, k, im["how"][k]))
    why = im["reason"]
    if not why or "layers cannot be told apart" not in why and "do not read" not in why:
        raise AssertionError("%s: reason %r" % (case, why))
    if "--layers" not in j["formula_reason"]:
        raise AssertionError("%s: formula_reason %r" % (case, j["formula_reason"]))
    text = report(cli, path, text=True)
    if "inferred model" not in text or "not inferred" not in text or "MFU formula" in text:
        raise AssertionError("%s: text report:\n%s" % (case, text))


def disagreement(cli, path, t):
    j = report(cli, path, ["--layers", str(t["layers"] + 1)])
    d = j["inferred_model"]["disagreements"]
    if d != [{"key": "layers", "given": t["layers"] + 1, "stream": t["layers"]}]:
        raise AssertionError("disagreement: %s" % d)
    if j["formula"]["model_from"] != "the stream and flags" or j["difference"]["counted_is"] != "above" and \
            j["difference"]["counted_is"] != "below":
        raise AssertionError("a wrong --layers must show in the difference: %s" % j["difference"])
    text = report(cli, path, ["--layers", str(t["layers"] + 1)], text=True)
    if not re.search(r"disagreement +--layers %d given, the stream says %d" % (t["layers"] + 1, t["layers"]),
                     text):
        raise AssertionError("no disagreement line in:\n" + text)


def main():
    shim, cli, work, case = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    if case in ("one_layer_fused", "mlp_only"):
        run_not_inferable(shim, cli, work, case)
        print("ok: %s says what it cannot infer" % case)
        return
    try:
        path, j, _ = run_inferable(shim, cli, work, case)
    except AssertionError as first:
        # The phases come from the automatic detector, which reads roles off
        # operand addresses; on CPU torch glibc's allocator can, rarely, make
        # it misjudge an iteration (docs/iterations.md, limits). One rerun
        # keeps CI steady; a real regression fails both.
        sys.stderr.write("first run off, rerunning once: %s\n" % first)
        try:
            path, j, _ = run_inferable(shim, cli, work, case)
        except AssertionError as second:
            fail(str(second))
    if case == "plain":
        disagreement(cli, path, truth(case)[1])
    print("ok: %s inferred exactly; formula from the stream = formula from flags" % case)


if __name__ == "__main__":
    main()
