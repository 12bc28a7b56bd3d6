# SPDX-License-Identifier: Apache-2.0
"""launch_cupti_check.py MODE REPORT TRUTH

The report of test_cupti_launch MODE against the shapes it launched (TRUTH),
the FLOPs worked out from first principles by tests/launch/launch_check.py's
functions (visible pairs query by query, the products per pair,
FlashAttention-2's own tile loops). Every launch here reaches the shim only
through CUPTI's launch callbacks - except in "dedup", where the shim's hook
sees it first and the callback inside it must not count it again.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "launch"))
import launch_check as lc  # noqa: E402


def fail(msg):
    print("launch_cupti_check: " + msg)
    sys.exit(1)


def main():
    mode, report, truth = sys.argv[1:4]
    with open(report) as f:
        r = json.load(f)
    att, unc, launch = r["attention"], r.get("uncounted", []), r["launch"]
    if mode == "noinjection":
        if att["calls"] + att["failed_calls"] != 0 or unc or launch["cupti"]["launches"] != 0:
            fail(f"launches were seen without CUPTI: {launch}")
        note = launch["note"] or ""
        if "no kernel was registered through the shared CUDA runtime" not in note or \
                "CUPTI is off" not in note:
            fail(f"the note does not say why nothing was seen: {note!r}")
        print("launch_cupti_check: noinjection: nothing seen, and the report says why")
        return 0
    cases = lc.load_truth(truth)
    n_attn = n_unc = marks = 0
    total = 0
    for name, t in sorted(cases.items()):
        if t["expect"] == "attention":
            s = lc.find_shape(att["shapes"], t)
            if s is None:
                fail(f"{name}: no shape matches {t}")
            exe, model, p = lc.expected(t)
            pc = s["per_call"]
            if int(pc["flops"]) != exe or int(pc["model_flops"]) != model or int(pc["pairs"]) != p:
                fail(f"{name}: per call {pc}, expected {exe} / {model} / {p}")
            if t["dpad"] and int(pc["tile_flops"]) != lc.fa2_tiles(t):
                fail(f"{name}: tiles {pc['tile_flops']} != {lc.fa2_tiles(t)}")
            if s["calls"] != t["calls"] or int(s["flops"]) != exe * t["calls"]:
                fail(f"{name}: {s['calls']} calls, {s['flops']} FLOPs; expected {t['calls']}")
            total += exe * t["calls"]
            n_attn += 1
        elif t["expect"] == "uncounted":
            hit = [u for u in unc if t["name_has"] in u["name"] and u["reason"] == t["reason"]]
            if len(hit) != 1 or hit[0]["class"] != t["class"] or hit[0]["calls"] != t["calls"]:
                fail(f"{name}: uncounted {hit}, expected {t}")
            n_unc += 1
        elif t["expect"] == "mark":
            marks += 1
    if len(att["shapes"]) != n_attn or len(unc) != n_unc:
        fail(f"{len(att['shapes'])} shapes, {len(unc)} uncounted; expected {n_attn}, {n_unc}")
    if int(att["flops"]) != total or att["failed_calls"] != 0:
        fail(f"attention {att['flops']} FLOPs, {att['failed_calls']} failed; expected {total}")
    path = launch["hooks"] if mode in ("dedup", "hookcapture") else launch["cupti"]
    if path["optimizer"] != marks:
        fail(f"optimizer kernels {path['optimizer']}, expected {marks}")
    if mode == "dedup" and (launch["cupti_duplicates"] != 1 or launch["cupti"]["launches"] != 0 or
                            launch["hooks"]["launches"] != 1):
        fail(f"the launch was not counted once: {launch}")
    if mode == "capture" and launch["cupti"]["captured"] != 2:
        fail(f"captured launches {launch['cupti']['captured']}, expected 2")
    if mode == "hookcapture" and (launch["hooks"]["captured"] != 1 or att["calls"] != 2):
        fail(f"the hook's captured launch: {launch['hooks']}, {att['calls']} calls")
    print(f"launch_cupti_check: {mode}: {n_attn} attention shapes ({total} FLOPs), "
          f"{n_unc} uncounted, {marks} optimizer kernels")
    return 0


sys.exit(main())
