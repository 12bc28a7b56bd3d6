# SPDX-License-Identifier: Apache-2.0
"""expect.py - expected values worked out by hand, for the GPU checks.

Nothing here reads flopcount's output to decide what is right:
  * GEMM FLOPs are 2*m*n*k*batch (REFERENCE.md section 1);
  * the small GPT's GEMMs are enumerated from its shapes (gpt_gemms), and
    their sum is tested against the Megatron 72-form minus the attention
    core (REFERENCE.md section 2, docs/formula.md) by self_test();
  * report shapes are matched to the GEMMs a program issued by the
    orientation-free key (min(m,n), max(m,n), k, batch): cuBLAS is column
    major, so torch's C(MxN) = A(MxK) B(KxN) arrives as m=N, n=M, k=K.
Run `python3 expect.py` for the self-test."""


def gemm_flops(m, n, k, batch=1):
    return 2 * m * n * k * batch


def megatron72(l, h, V, s, B):
    """Korthikanti 2022 eq. 7: 72*B*s*l*h^2*(1 + s/(6h) + V/(12*h*l)), as
    the exact integer 72Bslh^2 + 12Bs^2lh + 6BshV."""
    return 72 * B * s * l * h * h + 12 * B * s * s * l * h + 6 * B * s * h * V


def attention_core(l, h, s, B):
    """QK^T and attention*V of every layer, forward and backward (3x the
    forward 4*B*s^2*h per layer): the part of the 72-form that SDPA/flash
    attention computes outside cuBLAS."""
    return 12 * B * s * s * l * h


# Dense peaks of the H100/H200 SXM by dtype, FLOP/s (REFERENCE.md section 3),
# for the dtype-mix check: written here, not read from flopcount's table.
H200_PEAKS = {"bf16": 989.4e12, "fp16": 989.4e12, "fp8_e4m3": 1978.9e12, "fp8_e5m2": 1978.9e12,
              "tf32": 494.7e12, "fp32": 67e12}


def visible_pairs(s_q, s_k, window_left=-1, window_right=-1, bottom_right=False):
    """(query, key) pairs one head sees, row by row: query i sees key j when
    i + off - left <= j <= i + off + right (a negative bound: none), off =
    s_k - s_q for bottom-right alignment (FlashAttention's causal), else 0."""
    off = s_k - s_q if bottom_right else 0
    n = 0
    for i in range(s_q):
        lo = 0 if window_left < 0 else max(0, i + off - window_left)
        hi = s_k - 1 if window_right < 0 else min(s_k - 1, i + off + window_right)
        if hi >= lo:
            n += hi - lo + 1
    return n


def attention_flops(b, h, s_q, s_k, d, d_v=None, causal=False, bottom_right=False, direction="forward"):
    """One fused-attention call's FLOPs, {executed, model}: forward QK^T and PV
    on the visible pairs, 2P(d + d_v); backward as FlashAttention and cuDNN
    run it, five products (QK^T again, dV, dP, dQ, dK): 2P(3d + 2d_v); the
    model convention counts the backward as twice the forward."""
    d_v = d if d_v is None else d_v
    p = visible_pairs(s_q, s_k, -1, 0 if causal else -1, bottom_right) * b * h
    if direction == "forward":
        return {"executed": 2 * p * (d + d_v), "model": 2 * p * (d + d_v)}
    return {"executed": 2 * p * (3 * d + 2 * d_v), "model": 4 * p * (d + d_v)}


def gpt_gemms(cfg, training=True):
    """The GEMMs programs/gpt.py issues per step, as (name, phase, m, n, k,
    batch, count) with torch's row-major M, N, K. phase: forward, backward,
    recompute. cfg: layers, hidden, heads, vocab, seq, batch, checkpoint
    (list of block indices), attention ('sdpa' or 'manual')."""
    l, h, a = cfg["layers"], cfg["hidden"], cfg["heads"]
    V, s, B = cfg["vocab"], cfg["seq"], cfg["batch"]
    d = h // a
    T = B * s
    layer = [("qkv", T, 3 * h, h, 1), ("proj", T, h, h, 1), ("fc1", T, 4 * h, h, 1), ("fc2", T, h, 4 * h, 1)]
    attn = [("qk", s, s, d, B * a), ("av", s, d, s, B * a)] if cfg["attention"] == "manual" else []
    out = []
    ckpt = set(cfg.get("checkpoint", [])) if training else set()
    for i in range(l):
        for name, M, N, K, bt in layer + attn:
            out.append(("%s%d" % (name, i), "forward", M, N, K, bt, 1))
            if training:
                # data gradient and weight gradient: each as large as the forward GEMM
                out.append(("%s%d" % (name, i), "backward", M, N, K, bt, 2))
                if i in ckpt:
                    out.append(("%s%d" % (name, i), "recompute", M, N, K, bt, 1))
    out.append(("logits", "forward", T, V, h, 1, 1))
    if training:
        out.append(("logits", "backward", T, V, h, 1, 2))
    return out


def gpt_expected(cfg):
    """Per-iteration and per-eval-pass FLOPs of programs/gpt.py, by phase."""
    e = {"forward": 0, "backward": 0, "recompute": 0}
    for _, phase, M, N, K, bt, count in gpt_gemms(cfg):
        e[phase] += count * gemm_flops(M, N, K, bt)
    e["eval_pass"] = sum(
        c * gemm_flops(M, N, K, bt) for _, _, M, N, K, bt, c in gpt_gemms(cfg, training=False)
    )
    e["excess"] = 0
    if cfg["attention"] == "sdpa" and cfg.get("attention_counted"):
        # the fused causal attention core, counted from its kernels: forward,
        # backward (2.5x, of which 0.5x beyond the model convention), the
        # checkpointed blocks' forward again, and in each evaluation pass
        l, h, s, B = cfg["layers"], cfg["hidden"], cfg["seq"], cfg["batch"]
        a = cfg["heads"]
        fw = attention_flops(B, a, s, s, h // a, causal=True)
        bw = attention_flops(B, a, s, s, h // a, causal=True, direction="backward")
        e["forward"] += l * fw["executed"]
        e["backward"] += l * bw["executed"]
        e["excess"] = l * (bw["executed"] - bw["model"])
        e["recompute"] += len(set(cfg.get("checkpoint", []))) * fw["executed"]
        e["eval_pass"] += l * fw["executed"]
        e["attention_per_layer"] = {"forward": fw, "backward": bw}
    e["iteration"] = e["forward"] + e["backward"] + e["recompute"]
    e["model"] = e["forward"] + e["backward"] - e["excess"]
    e["calls_per_iteration"] = sum(c for *_, c in gpt_gemms(cfg))
    return e


def shape_key(m, n, k, batch=1):
    """Orientation-free key of one GEMM shape (see the module comment)."""
    return (min(m, n), max(m, n), k, batch)


def aggregate_shapes(report):
    """report['shapes'] summed by shape_key: {key: {calls, flops, dtypes, apis}}."""
    agg = {}
    for sh in report.get("shapes", []):
        if sh.get("overflow"):
            key = ("overflow", sh.get("api"), sh.get("dtype"))
        else:
            key = shape_key(sh["m"], sh["n"], sh["k"], sh.get("batch", 1))
        e = agg.setdefault(key, {"calls": 0, "flops": 0, "dtypes": set(), "apis": set()})
        e["calls"] += sh.get("calls", 0)
        e["flops"] += sh.get("flops", 0)
        e["dtypes"].add(sh.get("dtype"))
        e["apis"].add(sh.get("api"))
    return agg


def find_values(obj, pred, path=""):
    """Every (path, value) under a JSON object whose key satisfies
    pred(key). For report sections whose field names are not fixed yet."""
    found = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = "%s.%s" % (path, k) if path else k
            if pred(k):
                found.append((p, v))
            found.extend(find_values(v, pred, p))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            found.extend(find_values(v, pred, "%s[%d]" % (path, i)))
    return found


def first_number(obj, names):
    """The first number among obj[name] for name in names, else None."""
    if not isinstance(obj, dict):
        return None
    for n in names:
        v = obj.get(n)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return v
    return None


def number_or_sum(v):
    """A number, or the sum of the numbers in a dict (FLOPs by type), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, dict):
        if isinstance(v.get("total"), (int, float)):
            return v["total"]
        nums = [x for x in v.values() if isinstance(x, (int, float)) and not isinstance(x, bool)]
        return sum(nums) if nums else None
    return None


def self_test():
    # REFERENCE.md section 2 test vectors.
    assert megatron72(2, 64, 128, 32, 2) == 44040192
    assert megatron72(12, 768, 50257, 1024, 8) == 6999559372800
    assert megatron72(12, 768, 50304, 1024, 8) == 7001333563392
    # The GEMM enumeration against the formula, term by term, over shapes.
    n = 0
    for l, h, a, V, s, B in ((2, 64, 4, 128, 32, 2), (4, 1024, 16, 8192, 1024, 8), (3, 96, 3, 50, 17, 5)):
        base = {"layers": l, "hidden": h, "heads": a, "vocab": V, "seq": s, "batch": B}
        manual = gpt_expected(dict(base, attention="manual", checkpoint=[]))
        assert manual["model"] == megatron72(l, h, V, s, B), (manual, megatron72(l, h, V, s, B))
        sdpa = gpt_expected(dict(base, attention="sdpa", checkpoint=[1]))
        assert sdpa["model"] == megatron72(l, h, V, s, B) - attention_core(l, h, s, B)
        assert sdpa["recompute"] == 24 * B * s * h * h  # one block's forward GEMMs
        assert sdpa["backward"] == 2 * sdpa["forward"]
        assert sdpa["eval_pass"] == sdpa["forward"]
        ck = gpt_expected(dict(base, attention="manual", checkpoint=list(range(l))))
        assert (
            ck["iteration"] == 96 * B * s * l * h * h + 16 * B * s * s * l * h + 6 * B * s * h * V
        )  # 96-form
        n += 1
    # Attention by hand: causal square s = 4 sees 1 + 2 + 3 + 4 pairs; the
    # counted SDPA GPT equals the 72-form with the core halved for causal
    # (Megatron's convention since 2025: 6Bs^2lh in place of 12Bs^2lh, the
    # diagonal included: s(s+1)/2 pairs, not s^2/2).
    assert visible_pairs(4, 4, -1, 0) == 10 and visible_pairs(3, 5, -1, 0, True) == 12
    assert visible_pairs(6, 6, 2, 0) == 15 and visible_pairs(5, 7) == 35
    f = attention_flops(2, 8, 128, 128, 64, causal=True)
    assert f["executed"] == 4 * 64 * 8256 * 16
    b = attention_flops(2, 8, 128, 128, 64, causal=True, direction="backward")
    assert b["executed"] == 10 * 64 * 8256 * 16 and b["model"] == 8 * 64 * 8256 * 16
    for l, h, a, V, s, B in ((2, 64, 4, 128, 32, 2), (4, 1024, 16, 8192, 1024, 8)):
        cnt = gpt_expected(dict(layers=l, hidden=h, heads=a, vocab=V, seq=s, batch=B, attention="sdpa",
                                checkpoint=[], attention_counted=True))
        assert cnt["model"] == megatron72(l, h, V, s, B) - attention_core(l, h, s, B) + 6 * B * s * (s + 1) * l * h
    assert shape_key(512, 256, 64, 4) == shape_key(256, 512, 64, 4) != shape_key(256, 512, 64, 1)
    assert number_or_sum({"bf16": 3, "fp8": 4}) == 7 and number_or_sum({"total": 5, "bf16": 5}) == 5
    assert find_values({"a": {"hw_flops": 1}, "b": [{"hw_flops": 2}]}, lambda k: k == "hw_flops") == [
        ("a.hw_flops", 1),
        ("b[0].hw_flops", 2),
    ]
    return n


if __name__ == "__main__":
    print("expect.py self-test: ok (%d model shapes)" % self_test())
