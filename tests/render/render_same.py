# SPDX-License-Identifier: Apache-2.0
"""render_same.py FLOPCOUNT WORKDIR

'flopcount report' of one run and 'flopcount merge' of that one report
render the sections they share the same way (tools/render/render_run.h:
one function per section per form). A report is written here by hand:
one rank of a world of one, three GEMM shapes, two attention sources (one
shape an upper bound), two uncounted kernels, six iterations of which two
are split by a guess, FLOPs by dtype; run with one peak (--gpu h100-sxm
--dtype bf16). Every figure is worked out below from the shapes, not
read off either output, and the two outputs are compared section by
section, in text and in HTML.

The differences the two verbs have on purpose (render_run.h: fields of
fci_run, not copies) are the only ones taken out before comparing: the
label column (14 characters against 16) and " on all ranks"; and the
report's own lines (its comparison with the formula).
"""
import json
import os
import re
import subprocess
import sys

# GEMM shapes: (m, n, k, calls), largest FLOPs first as the shim writes
# them; FLOPs 2*m*n*k a call: 50,331,648, 12,582,912, 6,291,456
SHAPES = [(256, 64, 64, 24), (64, 256, 64, 6), (64, 64, 64, 12)]


def gemm(m, n, k, calls):
    f = 2 * m * n * k * calls
    return {"api": "cublasGemmEx", "m": m, "n": n, "k": k, "batch": 1, "transa": "T",
            "transb": "N", "dtype": "bf16", "out_dtype": "bf16", "compute": None,
            "calls": calls, "flops": f, "failed_calls": 0}


GEMM_FLOPS = sum(2 * m * n * k * c for m, n, k, c in SHAPES)  # 69,206,016
GEMM_CALLS = sum(c for *_, c in SHAPES)  # 42
# attention: per call forward 2*pairs*(d+d)*heads; flash causal 32x32 d 16, 8 heads
FLASH_CALL = 2 * 528 * 32 * 8  # 270,336
CUDNN_CALL = 2 * 1024 * 32 * 8  # 524,288 (unmasked, lengths maxima: an upper bound)
ATTN = [("flash", FLASH_CALL, 6, False), ("cudnn", CUDNN_CALL, 4, True)]
ATTN_FLOPS = sum(per * calls for _, per, calls, _ in ATTN)  # 1,622,016 + 2,097,152
ATTN_CALLS = sum(calls for _, _, calls, _ in ATTN)  # 10
ITERS = 6
IT_FLOPS = (GEMM_FLOPS + ATTN_FLOPS) // ITERS  # every iteration alike


def attn_shape(source, per, calls, bound):
    mask = "none" if bound else "causal"
    return {"source": source, "direction": "forward", "dtype": "bf16", "batch": 2, "heads": 4,
            "kv_heads": 4, "seq_q": 32, "seq_k": 32, "head_dim": 16, "head_dim_v": 16,
            "mask": mask, "align": "bottom_right", "window_left": -1,
            "window_right": 0 if mask == "causal" else -1, "bound": bound, "dropout": False,
            "softcap": False, "bias": False, "block_m": None, "block_n": None,
            "head_dim_padded": None, "head_dim_v_padded": None,
            "per_call": {"flops": per, "model_flops": per, "tile_flops": None,
                         "pairs": (1024 if bound else 528) * 8},
            "calls": calls, "failed_calls": 0, "flops": per * calls, "model_flops": per * calls,
            "tile_flops": None}


def uncounted(name, calls):
    return {"name": name, "class": "attention", "reason": "opaque_parameters",
            "detail": "a kernel made up here", "calls": calls, "failed_calls": 0}


def report():
    its = []
    for i in range(ITERS):
        its.append({"index": i + 1, "start_seconds": 0.5 * i, "seconds": 0.5,
                    "flops": IT_FLOPS, "forward_flops": IT_FLOPS // 3,
                    "backward_flops": IT_FLOPS - IT_FLOPS // 3, "recompute_flops": 0,
                    "attention_excess_flops": 0, "ambiguous": i in (2, 3), "calls": 9})
    return {
        "schema": 1, "tool": {"name": "flopcount", "version": "0.1.0"},
        "process": {"pid": 10, "ppid": 1, "command": "python train.py", "hostname": "h",
                    "rank": 0, "local_rank": 0, "world_size": 1, "launcher": "torchrun",
                    "fork_child": False, "started_unix_ns": 1010},
        "run": {"id": "r1", "start_unix_ns": 1000}, "status": "complete", "wall_seconds": 4.0,
        "totals": {"gemm_calls": GEMM_CALLS, "gemm_flops": GEMM_FLOPS, "failed_calls": 0,
                   "invalid_calls": 0, "unresolved_calls": 0, "distinct_shapes": len(SHAPES),
                   "overflow_calls": 0, "attention_calls": ATTN_CALLS,
                   "attention_flops": ATTN_FLOPS, "counted_flops": GEMM_FLOPS + ATTN_FLOPS},
        "by_api": {"cublasGemmEx": {"calls": GEMM_CALLS, "flops": GEMM_FLOPS}},
        "by_dtype": {"bf16": {"calls": GEMM_CALLS, "flops": GEMM_FLOPS}},
        "shapes": [gemm(*s) for s in SHAPES],
        "attention": {"calls": ATTN_CALLS, "failed_calls": 0, "flops": ATTN_FLOPS,
                      "model_flops": ATTN_FLOPS, "tile_flops": 0,
                      "tile_unknown_calls": ATTN_CALLS, "distinct_shapes": 2,
                      "overflow_calls": 0,
                      "by_source": {s: {"calls": c, "flops": p * c} for s, p, c, _ in ATTN},
                      "shapes": [attn_shape(*a) for a in ATTN]},
        "uncounted": [uncounted("_ZN5flash3fa3kernelE", 40), uncounted("_Z9my_kernelv", 3)],
        "iterations": {"count": ITERS, "detected_by": "marker", "median_seconds": 0.5,
                       "flops": IT_FLOPS * ITERS, "forward_flops": 0, "backward_flops": 0,
                       "recompute_flops": 0, "attention_excess_flops": 0,
                       "flops_by_dtype": {"bf16": IT_FLOPS * ITERS},
                       "ambiguous_iterations": 2, "ambiguous_recompute_iterations": 0,
                       "ambiguous_reasons": ["two forwards met in one step"],
                       "advice": "mark the phases with flopcount_phase()", "list": its},
        "recompute": {"flops": 0, "fraction": 0.0},
        "utilization": None, "utilization_reason": "no peak",
    }


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{cmd}: exit {r.returncode}: {r.stdout[-2000:]} {r.stderr[-2000:]}")
    return r.stdout


def norm(line):
    """One line without its label's padding and " on all ranks"."""
    return re.sub(r" +", " ", line.strip()).replace(" on all ranks", "")


def lines_of(out, label):
    """The lines of a labelled block: the label's line and the lines under
    it with an empty label (deeper indented), normalised."""
    got, on = [], False
    for ln in out.splitlines():
        if re.match(r"^  " + re.escape(label) + r"( |$)", ln):
            on = True
            got.append(norm(ln))
        elif on and re.match(r"^ {15,}\S", ln):
            got.append(norm(ln))
        else:
            on = False
    return got


def one_line(out, label, who):
    got = lines_of(out, label)
    if not got:
        fail(f"{who}: no '{label}' line in:\n{out}")
    return got


def same(label, rep, mrg):
    if rep != mrg:
        fail(f"'{label}' differs:\n  report: {rep}\n  merge:  {mrg}")


def si(v):
    return "%.2f MFLOP" % (v / 1e6)


def check_text(flopcount, path, peak):
    rep = run([flopcount, "report", path] + peak)
    mrg = run([flopcount, "merge", path] + peak)
    # GEMM totals: the figures from the shapes
    want = (f"GEMM totals {GEMM_FLOPS} ({si(GEMM_FLOPS)}) in {GEMM_CALLS} calls; "
            f"0 failed, 0 invalid, 0 unresolved; wall 4.000 s")
    r, m = one_line(rep, "GEMM totals", "report"), one_line(mrg, "GEMM totals", "merge")
    same("GEMM totals", [want], r)
    same("GEMM totals", r, m)
    # the top shapes, largest first, each its share of the GEMM FLOPs
    r, m = one_line(rep, "top shapes", "report"), one_line(mrg, "top shapes", "merge")
    want = ["m=%d n=%d k=%d batch=1 bf16 %d calls %s (%.1f%%)" %
            (a, b, c, n, si(2 * a * b * c * n), 100.0 * 2 * a * b * c * n / GEMM_FLOPS)
            for a, b, c, n in SHAPES]
    if len(r) != 3 or not all(ln.endswith(w) for ln, w in zip(r, want)):
        fail(f"top shapes: {r} want {want}")
    same("top shapes", r, m)
    # attention: the calls line, the sources, the counted total, the bound
    want = (f"attention {ATTN_FLOPS} ({si(ATTN_FLOPS)}) executed in {ATTN_CALLS} fused-attention "
            f"calls; 0 failed; {ATTN_FLOPS} at the model convention")
    r, m = one_line(rep, "attention", "report"), one_line(mrg, "attention", "merge")
    same("attention", want, r[0])
    same("attention", r[0], m[0])
    src = ", ".join(f"{s} {c} calls {p * c}" + (" (some an upper bound)" if b else "")
                    for s, p, c, b in ATTN)
    r, m = one_line(rep, "by source", "report"), one_line(mrg, "by source", "merge")
    same("by source", ["by source " + src], r)
    same("by source", r, m)
    total = GEMM_FLOPS + ATTN_FLOPS
    want = (f"counted total {total} = GEMMs {GEMM_FLOPS} + attention {ATTN_FLOPS} "
            "(%.1f%% attention)" % (100.0 * ATTN_FLOPS / total))
    r, m = one_line(rep, "counted total", "report"), one_line(mrg, "counted total", "merge")
    same("counted total", [want], r)
    same("counted total", r, m)
    # the top attention shapes: the bound first (most FLOPs), then flash
    r, m = one_line(rep, "attn shapes", "report"), one_line(mrg, "attn shapes", "merge")
    if len(r) != 2 or f"4 calls, executed <= {4 * CUDNN_CALL}," not in r[0] or \
       f"6 calls, executed {6 * FLASH_CALL}," not in r[1]:
        fail(f"attn shapes: {r}")
    same("attn shapes", r, m)
    r, m = one_line(rep, "upper bound", "report"), one_line(mrg, "upper bound", "merge")
    if f"4 calls of shapes whose lengths are maxima" not in r[0] or f" {4 * CUDNN_CALL} " not in r[0]:
        fail(f"upper bound: {r[0]}")
    same("upper bound", r, m)
    r, m = one_line(rep, "not counted", "report"), one_line(mrg, "not counted", "merge")
    if len(r) != 2 or "40 calls" not in r[0] or "3 calls" not in r[1]:
        fail(f"not counted: {r}")
    same("not counted", r, m)
    # HFU at the dtype mix: every FLOP bf16, at the bf16 peak: HFU
    r, m = one_line(rep, "HFU at mix", "report"), one_line(mrg, "HFU at mix", "merge")
    if "bf16 100.0%" not in r[0]:
        fail(f"HFU at mix: {r[0]}")
    same("HFU at mix", r, m)
    # the split: its reasons and advice the same; its counts in each verb's words
    r, m = one_line(rep, "split", "report"), one_line(mrg, "split", "merge")
    if not r[0].startswith("split a guess in 2 of 6 iterations") or \
       not m[0].startswith("split a guess in 2 of 5 steps"):
        fail(f"split: {r} {m}")
    same("split", [ln.split(": ", 1)[1] for ln in r], [ln.split(": ", 1)[1] for ln in m])


def section(page, sid):
    mt = re.search(r'<section id="%s">.*?</section>' % re.escape(sid), page, re.S)
    if mt is None:
        fail(f"no section {sid}")
    return mt.group(0).replace(" on all ranks", "")


def check_html(flopcount, path, work, peak):
    rp, mp = os.path.join(work, "report.html"), os.path.join(work, "merge.html")
    run([flopcount, "report", "--html", rp, path] + peak)
    run([flopcount, "merge", "--html", mp, path] + peak)
    rep, mrg = open(rp).read(), open(mp).read()
    same("section shapes", section(rep, "shapes"), section(mrg, "shapes"))
    # attention: a run's section adds the comparison with the formula (one
    # paragraph after the table by source); the rest is the same
    ra, n = re.subn(r'(id="attn-sources">.*?</table></div>\n)<p>[^<]*</p>\n', r"\1",
                    section(rep, "attention"), flags=re.S)
    if n != 1:
        fail("the report's attention section has no comparison with the formula")
    same("section attention", ra, section(mrg, "attention"))
    # the shapes, largest first, each with its exact FLOPs
    shapes = section(rep, "shapes")
    at = [shapes.find(">%d<" % (2 * m * n * k * c)) for m, n, k, c in SHAPES]
    if min(at) < 0 or not at[0] < at[1] < at[2]:
        fail(f"shapes: {at}")
    for tag in ('id="mix-table"',):
        r = re.search(r"<table %s>.*?</table>" % tag, rep, re.S)
        m = re.search(r"<table %s>.*?</table>" % tag, mrg, re.S)
        if r is None or m is None:
            fail(f"no {tag}")
        same(tag, r.group(0), m.group(0))
    # the GEMM totals row
    row = (r'<tr><td>GEMM totals</td><td class="n" data-k="totals.gemm_flops">%d</td>'
           r'<td class="w">%s in %d calls; 0 failed, 0 invalid, 0 unresolved; wall 4.000 s'
           r'</td></tr>' % (GEMM_FLOPS, si(GEMM_FLOPS), GEMM_CALLS))
    if row not in rep:
        fail("the report's GEMM totals row")
    if row not in mrg.replace(" on all ranks", ""):
        fail("the merge's GEMM totals row")


def main():
    flopcount, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "rank0.json")
    with open(path, "w") as f:
        json.dump(report(), f, indent=1)
    peak = ["--gpu", "h100-sxm", "--dtype", "bf16"]
    check_text(flopcount, path, peak)
    check_html(flopcount, path, work, peak)
    print("ok: report and merge of one report render the shared sections alike")


if __name__ == "__main__":
    main()
