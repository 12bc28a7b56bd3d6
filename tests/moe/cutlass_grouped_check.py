#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cutlass_grouped_check.py - checks the report of cutlass_grouped_prog.cu
(CUTLASS 3 grouped GEMM launches on the null GPU) against figures worked
out by hand in that program's header.

usage: cutlass_grouped_check.py REPORT on|off
  on:  FLOPCOUNT_READ_DEVICE_SIZES=1: G's two launches read and counted:
       6 groups, 2 x 1,572,864 = 3,145,728 FLOPs, bf16, api
       cutlass:grouped_read_from_device; rows 16..48, imbalance 1.5.
  off: G listed uncounted only, nothing counted.
Both: G's entry sizes_in_device_memory, "3 groups", 2 calls; D1..D6 each
layout_mismatch with its reason, 1 call, never read."""
import json
import sys

GROUP_FLOPS = 2 * (32 + 16 + 48) * 64 * 128  # 1,572,864 a launch
DEFENCE = [
    "mode 3, not kGrouped (4)",
    "0 groups, out of 1..65536",
    "70000 groups, out of 1..65536",
    "problem_shapes is NULL",
    "parameter 0 is 16 bytes, less than the 32",
    "not a GemmUniversal over GroupProblemShape<Shape<int, int, int>>",
]


def main():
    path, mode = sys.argv[1], sys.argv[2]
    r = json.load(open(path))
    bad = []
    unc = [u for u in r.get("uncounted", []) if "17GroupProblemShapeI" in u["name"]]
    good = [u for u in unc if u["reason"] == "sizes_in_device_memory"]
    if len(good) != 1 or good[0]["calls"] != 2 or not good[0]["detail"].startswith("3 groups;"):
        bad.append("G: want one sizes_in_device_memory entry, 2 calls, '3 groups': %s" % good)
    for why in DEFENCE:
        hit = [u for u in unc if u["reason"] == "layout_mismatch" and u["detail"].startswith(why)]
        if len(hit) != 1 or hit[0]["calls"] != 1 or "read_from_device" in hit[0]:
            bad.append("defence '%s': %s" % (why, hit))
    if len(unc) != 1 + len(DEFENCE):
        bad.append("%d grouped entries, want %d" % (len(unc), 1 + len(DEFENCE)))
    totals = r["totals"]
    if mode == "on":
        rd = good[0].get("read_from_device", {}) if good else {}
        want = {"calls": 2, "counted_calls": 2, "late_calls": 0, "flops": 2 * GROUP_FLOPS,
                "groups": 6, "group_rows_min": 16, "group_rows_max": 48,
                "imbalance_mean": 1.5, "imbalance_max": 1.5, "pending_calls": 0}
        for k, v in want.items():
            if rd.get(k) != v:
                bad.append("read_from_device.%s = %s, want %s" % (k, rd.get(k), v))
        if any(rd.get("not_read", {}).values()):
            bad.append("not_read: %s" % rd.get("not_read"))
        api = r.get("by_api", {}).get("cutlass:grouped_read_from_device", {})
        bf16 = r.get("by_dtype", {}).get("bf16", {})
        if (totals["gemm_flops"] != 2 * GROUP_FLOPS or totals["gemm_calls"] != 6 or
                api.get("calls") != 6 or api.get("flops") != 2 * GROUP_FLOPS or
                bf16.get("flops") != 2 * GROUP_FLOPS):
            bad.append("counted: totals %s, by_api %s, bf16 %s" % (totals, api, bf16))
    else:
        if good and "read_from_device" in good[0]:
            bad.append("read_from_device without the option")
        if totals["gemm_flops"] != 0:
            bad.append("counted %s FLOPs without the option" % totals["gemm_flops"])
    for b in bad:
        print("cutlass_grouped_check: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
