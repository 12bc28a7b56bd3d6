# SPDX-License-Identifier: Apache-2.0
"""launch_check.py MODE REPORT TRUTH OUT_SHIM OUT_PLAIN [LOG_SHIM LOG_PLAIN]

Checks the report of the launch tests' program (prog.cu) against the shapes
it launched (TRUTH, one JSON object per case), with every FLOP figure worked
out here from first principles:

  visible pairs  query i sees key j when i + off - wl <= j <= i + off + wr
                 (off = s_k - s_q bottom-right, 0 top-left; a negative
                 window is unbounded), counted query by query;
  executed       forward 2 P (d + dv) per head (QK^T, PV); backward
                 2 P (3 d + 2 dv) (QK^T again, dP = dO V^T, dV, dQ, dK);
  model          forward as executed, backward twice the forward;
  tiles          FlashAttention-2's own loops (flash_fwd_kernel.h:
                 n_block_min/max per query block; flash_bwd_kernel.h:
                 m_block_min/max per key block) times the products of one
                 kBlockM x kBlockN tile at the padded head dim.

MODE real: the real CUDA 13 runtime without a GPU: every launch fails and
is kept with the FLOPs it would have run. fake: the tests' fake runtime:
every launch succeeds, parameter sizes come from cudaFuncGetParamInfo
(FAKE_PARAM_SIZES, one of them wrong on purpose), and the fake's log of
what each launch received must be the same with and without the shim.
nullgpu: the real CUDA 13 runtime on the null GPU (nullgpu/): every launch
succeeds, parameter sizes come from the kernels' cubins through the real
cudaFuncGetParamInfo, every attention call is counted. static: the program
built with -cudart static: nothing is seen, and the report's launch section
says why (on the null GPU too). In every mode the program's output (each
launch's status and errno) must be the same with and without the shim.
"""
import json
import sys


def fail(msg):
    print("launch_check: " + msg)
    sys.exit(1)


def pairs(s_q, s_k, align, wl, wr):
    off = s_k - s_q if align == "bottom_right" else 0
    total = 0
    for i in range(s_q):
        lo = 0 if wl < 0 else max(0, i + off - wl)
        hi = s_k - 1 if wr < 0 else min(s_k - 1, i + off + wr)
        if hi >= lo:
            total += hi - lo + 1
    return total


def cdiv(a, b):  # C's (a + b - 1) / b, truncating toward zero
    q = a + b - 1
    return q // b if q >= 0 else -((-q) // b)


def tdiv(a, b):
    return a // b if a >= 0 else -((-a) // b)


def fa2_tiles(t):
    s_q, s_k, bm, bn = t["s_q"], t["s_k"], t["bm"], t["bn"]
    causal = t["wl"] < 0 and t["wr"] == 0
    local = t["wl"] >= 0
    wl, wr = t["wl"], t["wr"]
    n = 0
    if t["dir"] == "forward":
        for m in range(cdiv(s_q, bm)):
            n_min = max(0, tdiv(m * bm + s_k - s_q - wl, bn)) if local else 0
            n_max = cdiv(s_k, bn)
            if causal or local:
                n_max = min(n_max, cdiv((m + 1) * bm + s_k - s_q + wr, bn))
            n += max(0, n_max - n_min)
        per = 2 * bm * bn * (t["dpad"] + t["dpad"])
    else:
        for nb in range(cdiv(s_k, bn)):
            m_max = cdiv(s_q, bm)
            if local:
                m_max = min(m_max, cdiv((nb + 1) * bn + s_q - s_k + wl, bm))
            m_min = max(0, tdiv(nb * bn + s_q - s_k - wr, bm)) if (causal or local) else 0
            n += max(0, m_max - m_min)
        per = 2 * bm * bn * (3 * t["dpad"] + 2 * t["dpad"])
    return n * per * t["b"] * t["h"]


def expected(t):
    p = pairs(t["s_q"], t["s_k"], t["align"], t["wl"], t["wr"]) * t["b"] * t["h"]
    d, dv = t["d"], t["dv"]
    fwd = 2 * p * (d + dv)
    if t["dir"] == "forward":
        return fwd, fwd, p
    return 2 * p * (3 * d + 2 * dv), 2 * fwd, p


def load_truth(path):
    cases = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                c = json.loads(line)
                cases[c["case"]] = c
    return cases


def find_shape(shapes, t):
    for s in shapes:
        if (s["source"] == t["source"] and s["direction"] == t["dir"] and s["batch"] == t["b"]
                and s["heads"] == t["h"] and s["kv_heads"] == t["h_k"] and s["seq_q"] == t["s_q"]
                and s["seq_k"] == t["s_k"] and s["head_dim"] == t["d"]
                and s["head_dim_v"] == t["dv"] and s["window_left"] == t["wl"]
                and s["window_right"] == t["wr"] and s["align"] == t["align"]):
            return s
    return None


def check_attention(name, t, s, mode):
    if s is None:
        fail(f"{name}: no attention shape matches {t}")
    exe, model, p = expected(t)
    pc = s["per_call"]
    if int(pc["flops"]) != exe or int(pc["model_flops"]) != model or int(pc["pairs"]) != p:
        fail(f"{name}: per call {pc} != executed {exe}, model {model}, pairs {p}")
    if t["dpad"] > 0:
        tiles = fa2_tiles(t)
        if pc["tile_flops"] is None or int(pc["tile_flops"]) != tiles:
            fail(f"{name}: tile FLOPs {pc['tile_flops']} != {tiles}")
        if s["block_m"] != t["bm"] or s["block_n"] != t["bn"] or s["head_dim_padded"] != t["dpad"]:
            fail(f"{name}: tiles {s['block_m']}x{s['block_n']} at {s['head_dim_padded']}")
    elif pc["tile_flops"] is not None:
        fail(f"{name}: a tile figure ({pc['tile_flops']}) where none is known")
    if s["bound"] != bool(t["bound"]):
        fail(f"{name}: bound {s['bound']}, expected {bool(t['bound'])}")
    for flag in ("dropout", "softcap", "bias"):
        if s[flag] != (flag in t["flags"]):
            fail(f"{name}: {flag} {s[flag]}")
    calls, failed = (1, 0) if mode in ("fake", "nullgpu") else (0, 1)
    if s["calls"] != calls or s["failed_calls"] != failed:
        fail(f"{name}: {s['calls']} calls, {s['failed_calls']} failed; expected {calls}, {failed}")
    if int(s["flops"]) != exe * calls:
        fail(f"{name}: counted {s['flops']}, expected {exe * calls}")
    return exe


def check_uncounted(name, t, unc, mode):
    for u in unc:
        if t["name_has"] in u["name"] and u["reason"] == t["reason"]:
            if "class" in t and u["class"] != t["class"]:
                fail(f"{name}: class {u['class']}, expected {t['class']}")
            if "detail_has" in t and t["detail_has"] not in u["detail"]:
                fail(f"{name}: detail {u['detail']!r} lacks {t['detail_has']!r}")
            calls, failed = (1, 0) if mode in ("fake", "nullgpu") else (0, 1)
            if u["calls"] != calls or u["failed_calls"] != failed:
                fail(f"{name}: {u['calls']} calls, {u['failed_calls']} failed")
            return
    fail(f"{name}: no uncounted entry {t['name_has']} ({t['reason']}) in {unc}")


def same_output(a, b):
    with open(a) as f:
        x = [l for l in f if l.startswith("case ")]
    with open(b) as f:
        y = [l for l in f if l.startswith("case ")]
    if not x or x != y:
        fail(f"the program's launches returned differently under the shim:\n{x}\nvs\n{y}")
    return len(x)


def main():
    mode, report, truth, out_shim, out_plain = sys.argv[1:6]
    n = same_output(out_shim, out_plain)
    with open(report) as f:
        r = json.load(f)
    cases = load_truth(truth)
    att, unc, launch = r["attention"], r.get("uncounted", []), r["launch"]
    if mode == "static":
        if launch["registrations"] != 0 or att["calls"] + att["failed_calls"] != 0:
            fail(f"the static program was seen: {launch}")
        objs = launch["runtime"]["static_runtime_objects"]
        if not objs or not objs[0].endswith("launch_prog_static"):
            fail(f"the static runtime object is not named: {objs}")
        if "statically linked CUDA runtime" not in (launch["note"] or ""):
            fail(f"the note does not say why: {launch['note']}")
        print(f"launch_check: static: {n} launches unchanged, not seen, and the report says so")
        return 0
    ok = mode in ("fake", "nullgpu")  # launches succeed
    if mode == "nullgpu" and launch["parameter_size"]["checked"] < 4:
        fail(f"parameter sizes were not checked: {launch['parameter_size']}")
    if mode == "fake":  # cudaFuncGetParamInfo said 448 bytes for this kernel
        cases["pt25_fwd_varlen"] = {
            "case": "pt25_fwd_varlen", "expect": "uncounted", "reason": "layout_mismatch",
            "detail_has": "param 0 is 448 bytes; FlashAttention-2 layouts known for this kernel: 456",
            "name_has": "ILi64ELi128ELi64ELi4E"}
        if launch["parameter_size"]["checked"] < 4:
            fail(f"parameter sizes were not checked: {launch['parameter_size']}")
        with open(sys.argv[6]) as f:
            la = f.read()
        with open(sys.argv[7]) as f:
            lb = f.read()
        if not la or la != lb:
            fail("the fake runtime received different launches under the shim")
    shapes = att["shapes"]
    total, n_attn = 0, 0
    for name, t in sorted(cases.items()):
        if t["expect"] == "attention":
            total += check_attention(name, t, find_shape(shapes, t), mode)
            n_attn += 1
        elif t["expect"] == "uncounted":
            check_uncounted(name, t, unc, mode)
        elif t["expect"] == "mark":
            if launch["hooks"]["optimizer"] != 1:
                fail(f"{name}: optimizer kernels {launch['hooks']['optimizer']}, expected 1")
    if len(shapes) != n_attn:  # the split-KV combine, the plain kernel: not counted
        fail(f"{len(shapes)} attention shapes, {n_attn} expected")
    n_unc = sum(1 for t in cases.values() if t["expect"] == "uncounted")
    if len(unc) != n_unc:  # the plain kernel, the _foreach_copy_: not listed
        fail(f"{len(unc)} uncounted entries, {n_unc} expected: {[u['name'][:60] for u in unc]}")
    calls = n_attn if ok else 0
    if att["calls"] != calls or att["failed_calls"] != n_attn - calls:
        fail(f"attention calls {att['calls']} / failed {att['failed_calls']}")
    if int(att["flops"]) != (total if ok else 0):
        fail(f"attention FLOPs {att['flops']}, expected {total if ok else 0}")
    if launch["hooks"]["launches"] != n_attn + n_unc + 1:
        fail(f"launch section: {launch}")
    print(f"launch_check: {mode}: {n} launches unchanged; {n_attn} attention calls "
          f"({total} FLOPs executed each once), {n_unc} named uncounted, 1 optimizer kernel")
    return 0


if __name__ == "__main__":
    sys.exit(main())
