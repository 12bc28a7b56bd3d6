# SPDX-License-Identifier: Apache-2.0
"""report_attention.py SCENARIO FLOPCOUNT WORKDIR

Counted fused attention in 'flopcount report', 'flopcount merge' and the job
report assembled from several processes' parts, on reports written here by
hand (no attention source runs on this machine: the launch decoders and the
cuDNN layer feed these same sections). Every figure below is worked out by
hand from the shapes.

The model: l=2 h=64 a=4 (kv 4) d=16 ffn=256 V=96 s=32 B=2, 64 tokens, its
attention core one causal flash call each way per layer.
  GEMMs per layer: QKV 2*64*64*192 = 1,572,864, out 524,288, MLP
    2 x 2,097,152: 6,291,456; two layers and the logits 2*64*64*96 =
    786,432: 13,369,344 forward, 2x that backward (26,738,688).
  The causal call: 32*33/2 = 528 pairs per head, forward 2*528*(16+16) =
    33,792 per head x 8 heads = 270,336; backward as executed
    2*528*(3*16+2*16) x 8 = 675,840, at the model convention 540,672;
    excess 135,168 per layer, 270,336 per iteration.
  Iteration: forward 13,369,344 + 540,672 = 13,910,016; backward
    26,738,688 + 1,351,680 = 28,090,368; 42,000,384 in all, 41,730,048 at
    the model convention.
  The formula (72*B*s*l*h^2*(1 + s/6h + V/12hl)) = 43,253,760 per iteration,
    its core 'full' 4*B*s^2*a*d = 524,288 per layer: 3 x 1,048,576 =
    3,145,728; the calls at the model convention 3 x 540,672 = 1,622,016:
    1,523,712 less, the whole gap. 'half': 2*B*s^2*a*d per layer, 3 x
    524,288 = 1,572,864, 49,152 (= 3 x 2 x 2*B*s*a*d) below the calls.
  Peak 0.1 TFLOP/s, 0.5 s: HFU 42,000,384 / 5e10, MFU 41,730,048 / 5e10.
  Unmasked instead: 32*32 pairs per head, forward 2*1024*32*8 = 524,288 per
    layer (the formula's 'full' core exactly), backward 1,310,720 executed,
    1,048,576 model; the iteration 43,778,048, less its excess 524,288 the
    formula's 43,253,760 exactly.

  report  one process: text and --json, 'full' and '--causal-attention half'
  merge   two ranks, rank 0 flash, rank 1 cuDNN (no tiles), uncounted kernels
          summed by (name, reason); the merged report read back by 'report'
  job     the job report from parts (LD_PRELOAD with one output file): a
          process that trained and one that ran cuDNN attention only; and two
          ranks
"""
import copy
import json
import os
import shutil
import subprocess
import sys

MODEL = ["--layers", "2", "--hidden", "64", "--heads", "4", "--vocab", "96", "--seq", "32",
         "--batch", "2"]
GEMM_FWD, GEMM_BWD = 13369344, 26738688
ATT_FWD, ATT_BWD, ATT_BWD_MODEL = 270336, 675840, 540672  # per call (one layer)
XS = 2 * (ATT_BWD - ATT_BWD_MODEL)  # 270,336 per iteration
IT_FWD = GEMM_FWD + 2 * ATT_FWD  # 13,910,016
IT_BWD = GEMM_BWD + 2 * ATT_BWD  # 28,090,368
IT = IT_FWD + IT_BWD  # 42,000,384
ITERS = 4
FA3 = {"name": "_ZN5flash3fa3kernelE", "class": "attention", "reason": "opaque_parameters",
       "detail": "FlashAttention-3 kernel", "calls": 40, "failed_calls": 0}


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def need(ok, msg):
    if not ok:
        fail(msg)


def run(cmd, want=0):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != want:
        fail(f"{cmd}: exit {r.returncode}: {r.stdout[-2000:]} {r.stderr[-2000:]}")
    return r


# per call: forward, backward executed, backward model, pairs per head, tiles of 2 x 2
CALL = {"causal": (ATT_FWD, ATT_BWD, ATT_BWD_MODEL, 528, 3),
        "none": (524288, 1310720, 1048576, 1024, 4)}


def shape(source, backward, tiles, mask="causal"):
    """One call shape of the model, 2 calls per iteration."""
    calls = 2 * ITERS
    fwd, bwd, bwd_model, pairs, blocks = CALL[mask]
    per = bwd if backward else fwd
    model = bwd_model if backward else fwd
    # tiles 16 x 16 at d 32: the blocks of the 2 x 2 grid that hold visible pairs
    per_tiles = blocks * 2 * 16 * 16 * ((3 * 32 + 2 * 32) if backward else 64) * 8
    s = {"source": source, "direction": "backward" if backward else "forward", "dtype": "bf16",
         "batch": 2, "heads": 4, "kv_heads": 4, "seq_q": 32, "seq_k": 32, "head_dim": 16,
         "head_dim_v": 16, "mask": mask, "align": "bottom_right", "window_left": -1,
         "window_right": 0 if mask == "causal" else -1, "bound": False, "dropout": False,
         "softcap": False, "bias": False,
         "block_m": 16 if tiles else None, "block_n": 16 if tiles else None,
         "head_dim_padded": 32 if tiles else None, "head_dim_v_padded": 32 if tiles else None,
         "per_call": {"flops": per, "model_flops": model,
                      "tile_flops": per_tiles if tiles else None, "pairs": pairs * 8},
         "calls": calls, "failed_calls": 0, "flops": per * calls, "model_flops": model * calls,
         "tile_flops": per_tiles * calls if tiles else None}
    return s


def attention(source, tiles, mask="causal"):
    shapes = [shape(source, False, tiles, mask), shape(source, True, tiles, mask)]
    flops = sum(s["flops"] for s in shapes)  # 8 x 270,336 + 8 x 675,840 = 7,569,408
    return {"calls": 16, "failed_calls": 0, "flops": flops,
            "model_flops": sum(s["model_flops"] for s in shapes),
            "tile_flops": sum(s["tile_flops"] or 0 for s in shapes),
            "tile_unknown_calls": 0 if tiles else 16, "distinct_shapes": 2, "overflow_calls": 0,
            "by_source": {source: {"calls": 16, "flops": flops}}, "shapes": shapes}


def lin(m, k, weight="A"):
    return {"api": "cublasGemmEx", "m": m, "n": 64, "k": k, "batch": 1, "transa": "T",
            "transb": "N", "dtype": "bf16", "count": 1, "flops": 2 * m * 64 * k,
            "weight": weight}


def profile(source, mask="causal"):
    fwd = CALL[mask][0]
    g = []
    for _ in range(2):
        g.append(lin(192, 64))
        g.append({"kind": "attention", "source": source, "batch": 2, "heads": 4, "kv_heads": 4,
                  "seq_q": 32, "seq_k": 32, "head_dim": 16, "head_dim_v": 16, "mask": mask,
                  "window_left": -1, "window_right": 0 if mask == "causal" else -1,
                  "bound": False, "dtype": "bf16", "count": 1, "flops": fwd})
        g += [lin(64, 64), lin(256, 64), lin(64, 256)]
    g.append(lin(96, 64))
    need(sum(x["flops"] for x in g) == GEMM_FWD + 2 * fwd, "profile FLOPs")
    return {"state": "steady", "training_forward": 2, "calls": len(g),
            "flops": GEMM_FWD + 2 * fwd, "truncated": False, "gemms": g}


def report(pid, source="flash", tiles=True, rank=None, world=None, uncounted=None, run_id="r1",
           mask="causal"):
    att = attention(source, tiles, mask)
    gemm = ITERS * (GEMM_FWD + GEMM_BWD)  # 160,432,128
    fwd, bwd, bwd_model = CALL[mask][:3]
    it_fwd, it_bwd, xs = GEMM_FWD + 2 * fwd, GEMM_BWD + 2 * bwd, 2 * (bwd - bwd_model)
    its = [{"index": i + 1, "start_seconds": 0.0 if i == 0 else 2.0 + 0.5 * (i - 1),
            "seconds": 2.0 if i == 0 else 0.5, "flops": it_fwd + it_bwd,
            "forward_flops": it_fwd, "backward_flops": it_bwd, "recompute_flops": 0,
            "attention_excess_flops": xs, "calls": 36} for i in range(ITERS)]
    return {"schema": 1, "tool": {"name": "flopcount", "version": "0.1.0"},
            "process": {"pid": pid, "ppid": 1, "command": "python train.py", "hostname": "h",
                        "rank": rank, "local_rank": rank, "world_size": world,
                        "launcher": "torchrun" if rank is not None else "none",
                        "fork_child": False, "started_unix_ns": 1000 + pid},
            "run": {"id": run_id, "start_unix_ns": 1000},
            "status": "complete", "wall_seconds": 4.0,
            "totals": {"gemm_calls": 80, "gemm_flops": gemm, "failed_calls": 0,
                       "invalid_calls": 0, "unresolved_calls": 0, "distinct_shapes": 5,
                       "overflow_calls": 0, "attention_calls": 16,
                       "attention_flops": att["flops"], "counted_flops": gemm + att["flops"]},
            "by_api": {"cublasGemmEx": {"calls": 80, "flops": gemm}},
            "by_dtype": {"bf16": {"calls": 80, "flops": gemm}},
            "shapes": [{"api": "cublasGemmEx", "m": 256, "n": 64, "k": 64, "batch": 1,
                        "transa": "T", "transb": "N", "dtype": "bf16", "out_dtype": "bf16",
                        "compute": None, "calls": 80, "flops": gemm, "failed_calls": 0}],
            "attention": att,
            "uncounted": uncounted if uncounted is not None else [dict(FA3)],
            "iterations": {"count": ITERS, "detected_by": "marker", "median_seconds": 0.5,
                           "flops": ITERS * (it_fwd + it_bwd), "forward_flops": ITERS * it_fwd,
                           "backward_flops": ITERS * it_bwd, "recompute_flops": 0,
                           "attention_excess_flops": ITERS * xs, "list": its},
            "recompute": {"flops": 0, "fraction": 0.0},
            "utilization": None, "utilization_reason": "no peak",
            "forward_profile": profile(source, mask)}


def write(path, rep):
    with open(path, "w") as f:
        json.dump(rep, f)


def report_json(cli, *args):
    return json.loads(run([cli, "report", *args, "--json"]).stdout)


def has(text, words):
    need(words in text, f"no '{words}' in:\n{text}")


def check_report(work, cli):
    path = os.path.join(work, "r.json")
    write(path, report(7))
    j = report_json(cli, path, "--peak-tflops", "0.1")
    t = j["totals"]
    need(t["attention_calls"] == 16 and t["attention_flops"] == 7569408, f"totals {t}")
    need(t["counted_flops"] == 160432128 + 7569408, f"counted {t}")
    m = j["measured"]
    need(m["flops_per_iteration"] == IT, f"per iteration {m}")
    need(m["attention_excess_flops_per_iteration"] == XS, f"excess {m}")
    need(abs(m["hfu"] - IT / 5e10) < 1e-15, f"HFU {m['hfu']}")
    need(abs(m["mfu"] - (IT - XS) / 5e10) < 1e-15, f"MFU {m['mfu']} != {(IT - XS) / 5e10}")
    a = j["attention"]
    need(a["calls"] == 16 and a["flops"] == 7569408 and a["model_flops"] == 6488064, f"{a}")
    need(abs(a["share_of_counted"] - 7569408 / 168001536) < 1e-12, "share")
    need(a["by_source"] == {"flash": {"calls": 16, "flops": 7569408}}, f"{a['by_source']}")
    need([(s["direction"], s["flops"]) for s in a["top_shapes"]] ==
         [("backward", 5406720), ("forward", 2162688)], f"{a['top_shapes']}")
    need(a["model_flops_per_iteration"] == 1622016, f"measured {a['model_flops_per_iteration']}")
    c = a["formula_comparison"]
    need(c == {"convention": "full", "mask": "causal", "bound": False,
               "formula_flops_per_iteration": 3145728, "exact_flops_per_iteration": 1622016,
               "formula_is": "above", "difference_flops": 1523712}, f"comparison {c}")
    u = j["uncounted"]
    need(len(u) == 1 and u[0]["reason"] == "opaque_parameters" and u[0]["calls"] == 40, f"{u}")
    need(u[0]["why"] == "parameters not readable on the host", f"{u}")
    im = j["inferred_model"]
    need(im["model"]["heads"] == 4 and im["model"]["kv_heads"] == 4 and
         im["model"]["head_dim"] == 16 and im["model"]["seq"] == 32 and im["model"]["batch"] == 2,
         f"inferred {im['model']}")
    need(im["how"]["seq"]["note"].startswith("flash attention forward: 2 sequences x 4 heads"),
         f"{im['how']['seq']}")
    need(im["fits_forward"] and im["formula_forward_flops"] == IT_FWD, f"fit {im}")
    need(im["model"]["causal_attention"] == "full", "convention")
    need(j["formula"]["model_flops_per_iteration"] == 43253760, "formula")
    d = j["difference"]
    need(d["counted_model_flops_per_iteration"] == IT - XS, f"counted model {d}")
    need(d["counted_is"] == "below" and d["gap_flops"] == 1523712, f"gap {d}")
    need([(e["term"], e["flops"]) for e in d["explained_by"]] == [("attention_band", 1523712)],
         f"explained {d['explained_by']}")
    need(d["exact"], "exact")
    # the text
    out = run([cli, "report", path, "--peak-tflops", "0.1"]).stdout
    has(out, "  attention      7569408 (7.57 MFLOP) executed in 16 fused-attention calls; 0 failed; "
             "6488064 at the model convention")
    has(out, "  by source      flash 16 calls 7569408")
    has(out, "  counted total  168001536 = GEMMs 160432128 + attention 7569408 (4.5% attention)")
    has(out, "  attn shapes    flash backward 2 x 4 (kv 4), 32 x 32, d 16, causal: 8 calls, "
             "executed 5406720, model 4325376, tiles 15728640")
    has(out, "                 flash forward 2 x 4 (kv 4), 32 x 32, d 16, causal: 8 calls, "
             "executed 2162688, model 2162688, tiles 6291456")
    has(out, "  not counted    _ZN5flash3fa3kernelE (attention) 40 calls: FlashAttention-3 kernel: "
             "parameters not readable on the host: its time is in --kernels, its FLOPs in "
             "--hw-flops")
    has(out, "  attention xs   270336 of them beyond the model convention")
    has(out, "MFU measured   0.083%   counted FLOPs less recompute and attention's backward beyond "
             "2x its forward")
    has(out, "counted FLOPs less recompute and the attention excess 41730048 are 1523712 below")
    has(out, "explained exactly by:")
    has(out, "- attention core, the formula's causal convention against the band the kernels "
             "ran, forward + backward: 1523712 FLOPs")
    has(out, "  attention      the formula's attention term in its 'full' convention (s^2 per "
             "head) is 3145728 per iteration; the kernels ran causal (s(s+1)/2 pairs per head), "
             "counted exactly: 1622016 for this model (counted per iteration: 1622016); the "
             "formula's is 1523712 more")
    need("attention core (QK^T and attention x V), forward + backward" not in out,
         "the core was estimated as missing though the calls counted it")
    has(out, "  seq               32        exact      flash attention forward: 2 sequences x 4 "
             "heads (kv 4), 32 x 32, head dim 16, causal")
    has(out, "the formula's forward equals the counted forward exactly (13910016 FLOPs; "
             "attention core at the band the calls ran)")
    # 'half': the calls are above the halved square by 49,152
    j = report_json(cli, path, "--causal-attention", "half")
    d = j["difference"]
    need(d["counted_is"] == "above" and d["gap_flops"] == 49152, f"half {d}")
    need([(e["term"], e["flops"]) for e in d["explained_by"]] == [("attention_band", 49152)],
         f"half explained {d['explained_by']}")
    need(j["attention"]["formula_comparison"]["formula_is"] == "below", "half: below")
    out = run([cli, "report", path, "--causal-attention", "half"]).stdout
    has(out, "+ attention core, the formula's causal convention against the band the kernels ran")
    # unmasked: the formula's 'full' convention is the count, exactly
    path = os.path.join(work, "none.json")
    write(path, report(8, mask="none"))
    j = report_json(cli, path)
    d = j["difference"]
    need(d["counted_is"] == "equal" and d["counted_model_flops_per_iteration"] == 43253760,
         f"unmasked {d}")
    need(j["measured"]["flops_per_iteration"] == 43778048, "unmasked iteration")
    need(j["attention"]["formula_comparison"]["formula_is"] == "equal", "unmasked comparison")
    need(j["inferred_model"]["fits_forward"] and j["inferred_model"]["fits_iteration"], "fits")
    out = run([cli, "report", path]).stdout
    has(out, "counted FLOPs less recompute and the attention excess (43253760) equal the "
             "formula's model FLOPs exactly")
    has(out, "flash attention ran unmasked: every query sees all 32 keys")
    # no usable GPU: every launch failed, counted as nothing, its shape kept; 2 forward and 2
    # backward calls would have executed 2 x 270,336 + 2 x 675,840 = 1,892,352 FLOPs, at the
    # model convention 2 x 270,336 + 2 x 540,672 = 1,622,016
    rep = report(15)
    for k in ("iterations", "forward_profile", "recompute"):
        del rep[k]
    rep["totals"].update(attention_calls=0, attention_flops=0, counted_flops=160432128)
    a = rep["attention"]
    a.update(calls=0, failed_calls=4, flops=0, model_flops=0, tile_flops=0, by_source={})
    for sh in a["shapes"]:
        sh.update(calls=0, failed_calls=2, flops=0, model_flops=0, tile_flops=0)
    path = os.path.join(work, "failed.json")
    write(path, rep)
    j = report_json(cli, path)
    ja = j["attention"]
    need(ja["failed_calls"] == 4 and ja["failed_would_execute_flops"] == 1892352 and
         ja["failed_would_model_flops"] == 1622016, f"failed {ja}")
    out = run([cli, "report", path]).stdout
    has(out, "  failed         4 calls returned an error, counted as nothing: they would have "
             "executed 1892352 FLOPs (1622016 at the model convention)")
    has(out, "flash backward 2 x 4 (kv 4), 32 x 32, d 16, causal: 0 calls (+ 2 failed, that would "
             "have executed 1351680), executed 0")
    # a program whose kernels register through a static CUDA runtime, CUPTI off: the launch
    # hooks saw nothing of it; the report's launch note says so, and the text must show it
    # (a reader of the text alone would otherwise take "no attention" for "none ran")
    rep = report(16)
    note = ("/w/train registers its kernels through a statically linked CUDA runtime (nvcc's "
            "default, -cudart static): the launch hooks do not see them; CUPTI is off "
            "(FLOPCOUNT_CUPTI=0): those launches are not seen")
    rep["launch"] = {"registrations": 0, "note": note}
    path = os.path.join(work, "static.json")
    write(path, rep)
    out = run([cli, "report", path]).stdout
    has(out, "  launches       " + note + "\n")
    rep["launch"]["note"] = None  # everything came through: no line
    write(path, rep)
    out = run([cli, "report", path]).stdout
    need("  launches " not in out, f"a launch line without a note:\n{out}")
    # a causal band with s_q != s_k: its alignment decides the count, so the shape says it.
    # 100 queries over 300 keys, bottom-right (FlashAttention's): query i sees keys up to
    # i + 200, i.e. 201 + i of them: 201 + ... + 300 = 25,050 pairs per head (top-left would
    # be 1 + ... + 100 = 5,050); 2 heads, d 128: 2 x 25,050 x (128 + 128) x 2 = 25,651,200
    rep = report(17)
    sh = shape("flash", False, False)
    sh.update(batch=1, heads=2, kv_heads=1, seq_q=100, seq_k=300, head_dim=128, head_dim_v=128,
              dropout=True, calls=1, flops=25651200, model_flops=25651200)
    sh["per_call"].update(flops=25651200, model_flops=25651200, pairs=50100)
    rep["attention"].update(calls=1, flops=25651200, model_flops=25651200, tile_flops=0,
                            tile_unknown_calls=1, distinct_shapes=1, shapes=[sh],
                            by_source={"flash": {"calls": 1, "flops": 25651200}})
    for k in ("iterations", "forward_profile", "recompute"):
        del rep[k]
    rep["totals"].update(attention_calls=1, attention_flops=25651200,
                         counted_flops=160432128 + 25651200)
    path = os.path.join(work, "cross.json")
    write(path, rep)
    out = run([cli, "report", path]).stdout
    has(out, "  attn shapes    flash forward 1 x 2 (kv 1), 100 x 300, d 128, causal bottom-right, "
             "dropout: 1 calls, executed 25651200")
    # shapes beyond the shim's table, lumped; a varlen call there stays a bound: 1,000 FLOPs
    # of it are at most that
    rep["attention"]["shapes"].append(
        {"source": "flash", "direction": "forward", "overflow": True, "bound": True, "calls": 1,
         "failed_calls": 0, "flops": 1000, "model_flops": 1000, "tile_flops": None})
    rep["attention"].update(calls=2, flops=25652200, model_flops=25652200, overflow_calls=1,
                            tile_unknown_calls=2,
                            by_source={"flash": {"calls": 2, "flops": 25652200}})
    rep["totals"].update(attention_calls=2, attention_flops=25652200,
                         counted_flops=160432128 + 25652200)
    write(path, rep)
    out = run([cli, "report", path]).stdout
    has(out, "  upper bound    1 calls of shapes whose lengths are maxima (varlen, padding): their "
             "1000 FLOPs are at most that")
    need(report_json(cli, path)["attention"]["bound_calls"] == 1, "overflow bound calls")
    print("ok: report")


def check_merge(work, cli):
    d = os.path.join(work, "ranks")
    os.makedirs(d)
    cudnn_unc = [dict(FA3, calls=10),
                 {"name": "cudnn plan 3", "class": "gemm_like_uncounted",
                  "reason": "unresolved_graph", "detail": "", "calls": 2, "failed_calls": 1}]
    write(os.path.join(d, "rank0.json"), report(10, "flash", True, 0, 2))
    write(os.path.join(d, "rank1.json"), report(11, "cudnn", False, 1, 2, cudnn_unc))
    j = json.loads(run([cli, "merge", d, "--peak-tflops", "0.1", "--json"]).stdout)
    t = j["totals"]
    need(t["attention_calls"] == 32 and t["attention_flops"] == 2 * 7569408, f"totals {t}")
    need(t["counted_flops"] == 2 * (160432128 + 7569408), f"counted {t}")
    a = j["attention"]
    need(a["calls"] == 32 and a["flops"] == 15138816 and a["model_flops"] == 2 * 6488064, f"{a}")
    need(a["by_source"] == {"flash": {"calls": 16, "flops": 7569408},
                            "cudnn": {"calls": 16, "flops": 7569408}}, f"{a['by_source']}")
    need(len(a["shapes"]) == 4 and a["distinct_shapes"] == 4, f"shapes {a['shapes']}")
    # tiles: rank 0's only (rank 1's cuDNN calls have none)
    need(a["tile_flops"] == 6291456 + 15728640 and a["tile_unknown_calls"] == 16, "tiles")
    cud = [s for s in a["shapes"] if s["source"] == "cudnn"]
    need(all(s["tile_flops"] is None for s in cud), "cuDNN tiles")
    u = {(x["name"], x["reason"]): x for x in j["uncounted"]}
    need(len(u) == 2 and u[(FA3["name"], "opaque_parameters")]["calls"] == 50, f"{u}")
    need(u[("cudnn plan 3", "unresolved_graph")]["failed_calls"] == 1, f"{u}")
    steps = j["iterations"]["list"]
    need(len(steps) == 3 and all(s["attention_excess_flops"] == 2 * XS for s in steps), "steps")
    # cluster MFU: (2 x 42,000,384 - 2 x 270,336) / (2 x 1e11 x 0.5)
    need(abs(j["utilization"]["mfu"] - (2 * IT - 2 * XS) / 1e11) < 1e-15,
         f"MFU {j['utilization']['mfu']}")
    need(j["inferred_model"]["state"] == "complete", f"{j['inferred_model']}")
    out = run([cli, "merge", d, "--peak-tflops", "0.1"]).stdout
    has(out, "  attention        15138816 (15.14 MFLOP) executed in 32 fused-attention calls on "
             "all ranks; 0 failed; 12976128 at the model convention")
    has(out, "  by source        flash 16 calls 7569408, cudnn 16 calls 7569408")
    has(out, "not counted      _ZN5flash3fa3kernelE (attention) 50 calls")
    has(out, "cudnn plan 3 (gemm_like_uncounted) 2 calls (and 1 failed): a cuDNN plan whose "
             "operation graph could not be resolved")
    has(out, "MFU 0.083% (measured: counted FLOPs less recompute and the attention excess)")
    # the formula is not the count: its core is the square, the calls' the causal band
    has(out, "formula model FLOPs 86507520 per iteration; the count fits it with its core at "
             "the band the calls ran")
    # the merged report, read by 'report': the same attention, the same gap, for B = 4
    mj = os.path.join(work, "merged.json")
    with open(mj, "w") as f:
        f.write(run([cli, "merge", d, "--json"]).stdout)
    r = report_json(cli, mj)
    need(r["attention"]["flops"] == 15138816, "read back")
    need(r["measured"]["attention_excess_flops_per_iteration"] == 2 * XS, "read back excess")
    need(r["difference"]["gap_flops"] == 2 * 1523712, f"merged gap {r['difference']}")
    need([e["term"] for e in r["difference"]["explained_by"]] == ["attention_band"], "merged")
    # two flash ranks: the same shapes, summed call for call
    d2 = os.path.join(work, "flash2")
    os.makedirs(d2)
    write(os.path.join(d2, "rank0.json"), report(12, "flash", True, 0, 2))
    write(os.path.join(d2, "rank1.json"), report(13, "flash", True, 1, 2, []))
    j = json.loads(run([cli, "merge", d2, "--json"]).stdout)
    sh = {s["direction"]: s for s in j["attention"]["shapes"]}
    need(len(j["attention"]["shapes"]) == 2, f"{j['attention']['shapes']}")
    need(sh["forward"]["calls"] == 16 and sh["forward"]["flops"] == 16 * ATT_FWD, f"{sh}")
    need(sh["backward"]["model_flops"] == 16 * ATT_BWD_MODEL, f"{sh}")
    need(sh["backward"]["tile_flops"] == 2 * 15728640, f"{sh}")  # 8 x 1,966,080 per rank
    need(sh["forward"]["per_call"]["flops"] == ATT_FWD, "per call kept")
    need(j["attention"]["by_source"] == {"flash": {"calls": 32, "flops": 15138816}}, "one source")
    need(j["uncounted"] == [dict(FA3)], f"one rank's uncounted {j['uncounted']}")
    # lengths that are maxima on one rank: said as upper bounds (its 16 calls, 7,569,408 FLOPs)
    d3 = os.path.join(work, "bound")
    os.makedirs(d3)
    b0 = report(16, "flash", True, 0, 2)
    for sh in b0["attention"]["shapes"]:
        sh["bound"] = True
    write(os.path.join(d3, "rank0.json"), b0)
    write(os.path.join(d3, "rank1.json"), report(17, "cudnn", False, 1, 2))
    out = run([cli, "merge", d3]).stdout
    has(out, "  upper bound      16 calls of shapes whose lengths are maxima (varlen, padding): "
             "their 7569408 FLOPs are at most that")
    # ranks without iterations are compared on their counted totals: the same GEMMs
    # (160,432,128) but rank 1 ran no attention: 168,001,536 against 160,432,128, not equal
    d4 = os.path.join(work, "noiter")
    os.makedirs(d4)
    for rank in (0, 1):
        rep = report(20 + rank, "flash", True, rank, 2)
        for k in ("iterations", "forward_profile", "recompute"):
            del rep[k]
        if rank == 1:
            rep["attention"].update(calls=0, flops=0, model_flops=0, tile_flops=0, shapes=[],
                                    by_source={}, distinct_shapes=0)
            rep["totals"].update(attention_calls=0, attention_flops=0, counted_flops=160432128)
        write(os.path.join(d4, f"rank{rank}.json"), rep)
    j = json.loads(run([cli, "merge", d4, "--json"]).stdout)
    c = j["merge"]["flops_consistency"]
    groups = sorted(g["flops"] for g in c["groups"])
    need(c["basis"] == "total" and c["verdict"] != "same" and groups == [160432128, 168001536],
         f"ranks with and without attention compared equal: {c}")
    print("ok: merge")


def check_job(work, cli):
    # LD_PRELOAD with one output file: the process that trained wrote the
    # file; another process of the run (rankless, no iterations) ran 2
    # cuDNN forward calls of 8,388,608 FLOPs (1 x 8 heads, 64 x 64, d 64,
    # unmasked, lengths a bound) and 10 GEMMs of 1,000, and met FA3 5 times.
    path = os.path.join(work, "job.json")
    write(path, report(20))
    os.makedirs(path + ".parts")
    other = report(21, uncounted=[dict(FA3, calls=5)])
    del other["iterations"], other["forward_profile"]
    other["totals"].update(gemm_calls=10, gemm_flops=10000, attention_calls=2,
                           attention_flops=2 * 8388608, counted_flops=10000 + 2 * 8388608)
    other["by_api"] = {"cublasGemmEx": {"calls": 10, "flops": 10000}}
    other["by_dtype"] = {"bf16": {"calls": 10, "flops": 10000}}
    other["shapes"] = []
    s = copy.deepcopy(shape("cudnn", False, False))
    s.update(batch=1, heads=8, kv_heads=2, seq_q=64, seq_k=64, head_dim=64, head_dim_v=64,
             mask="none", window_right=-1, bound=True, calls=2, flops=2 * 8388608,
             model_flops=2 * 8388608)
    s["per_call"] = {"flops": 8388608, "model_flops": 8388608, "tile_flops": None,
                     "pairs": 4096 * 8}
    other["attention"] = {"calls": 2, "failed_calls": 0, "flops": 2 * 8388608,
                          "model_flops": 2 * 8388608, "tile_flops": 0, "tile_unknown_calls": 2,
                          "distinct_shapes": 1, "overflow_calls": 0,
                          "by_source": {"cudnn": {"calls": 2, "flops": 2 * 8388608}},
                          "shapes": [s]}
    write(os.path.join(path + ".parts", "p21.json"), other)
    j = report_json(cli, path)
    t = j["totals"]
    need(t["attention_calls"] == 18 and t["attention_flops"] == 7569408 + 16777216, f"{t}")
    need(t["counted_flops"] == 160432128 + 10000 + 7569408 + 16777216, f"counted {t}")
    a = j["attention"]
    need(a["calls"] == 18 and a["flops"] == 7569408 + 16777216, f"{a}")
    need(a["by_source"] == {"flash": {"calls": 16, "flops": 7569408},
                            "cudnn": {"calls": 2, "flops": 16777216}}, f"{a['by_source']}")
    need(a["bound_calls"] == 2 and a["bound_flops"] == 16777216, "bound")
    need(j["uncounted"][0]["calls"] == 45 and len(j["uncounted"]) == 1, f"{j['uncounted']}")
    # the iterations are the trainer's: its excess, its MFU arithmetic
    need(j["measured"]["attention_excess_flops_per_iteration"] == XS, "job excess")
    out = run([cli, "report", path]).stdout
    has(out, "  upper bound    2 calls of shapes whose lengths are maxima (varlen, padding): "
             "their 16777216 FLOPs are at most that")
    has(out, "cudnn forward 1 x 8 (kv 2), <=64 x <=64, d 64, none (a bound): 2 calls, executed "
             "<= 16777216")
    # two ranks through the job assembly: the merge's sums
    p2 = os.path.join(work, "ranks.json")
    write(p2, report(30, "flash", True, 0, 2, run_id="r2"))
    os.makedirs(p2 + ".parts")
    write(os.path.join(p2 + ".parts", "rank1.json"),
          report(31, "cudnn", False, 1, 2, [], run_id="r2"))
    j = report_json(cli, p2)
    need(j["attention"]["flops"] == 15138816 and j["totals"]["attention_calls"] == 32, "ranks")
    need(j["uncounted"][0]["calls"] == 40, f"ranks uncounted {j['uncounted']}")
    print("ok: job")


def main():
    scenario, cli, work = sys.argv[1:4]
    work = os.path.join(work, scenario)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"report": check_report, "merge": check_merge, "job": check_job}[scenario](work, cli)


if __name__ == "__main__":
    main()
