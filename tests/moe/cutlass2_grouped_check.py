#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cutlass2_grouped_check.py - checks the report of cutlass2_grouped_prog.cu
(CUTLASS 2 GemmGrouped launches on the null GPU) against figures worked out
by hand in that program's header.

usage: cutlass2_grouped_check.py REPORT on|off
  on:  FLOPCOUNT_READ_DEVICE_SIZES=1: G's two launches read and counted:
       4 groups, 2 x 131,072 = 262,144 FLOPs, fp16, api
       cutlass:grouped_read_from_device; rows 8..24, imbalance 1.5.
  off: G listed uncounted only, nothing counted.
Both: G's entry sizes_in_device_memory, "2 groups", 2 calls; D1..D5 each
layout_mismatch with its reason, 1 call, never read."""
import json
import sys

GROUP_FLOPS = 2 * (8 + 24) * 64 * 32  # 131,072 a launch
DEFENCE = [
    "0 problems, out of 1..65536",
    "problem_sizes is NULL",
    "threadblock_count 108, not the grid's 54",
    "tile_count -1 is negative",
    "parameter 0 is 16 bytes, less than the 36",
]


def main():
    path, mode = sys.argv[1], sys.argv[2]
    r = json.load(open(path))
    bad = []
    unc = [u for u in r.get("uncounted", []) if "11GemmGroupedI" in u["name"]]
    good = [u for u in unc if u["reason"] == "sizes_in_device_memory"]
    if len(good) != 1 or good[0]["calls"] != 2 or not good[0]["detail"].startswith("2 groups;"):
        bad.append("G: want one sizes_in_device_memory entry, 2 calls, '2 groups': %s" % good)
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
                "groups": 4, "group_rows_min": 8, "group_rows_max": 24,
                "imbalance_mean": 1.5, "imbalance_max": 1.5, "pending_calls": 0}
        for k, v in want.items():
            if rd.get(k) != v:
                bad.append("read_from_device.%s = %s, want %s" % (k, rd.get(k), v))
        if any(rd.get("not_read", {}).values()):
            bad.append("not_read: %s" % rd.get("not_read"))
        api = r.get("by_api", {}).get("cutlass:grouped_read_from_device", {})
        fp16 = r.get("by_dtype", {}).get("fp16", {})
        if (totals["gemm_flops"] != 2 * GROUP_FLOPS or totals["gemm_calls"] != 4 or
                api.get("calls") != 4 or api.get("flops") != 2 * GROUP_FLOPS or
                fp16.get("flops") != 2 * GROUP_FLOPS):
            bad.append("counted: totals %s, by_api %s, fp16 %s" % (totals, api, fp16))
    else:
        if good and "read_from_device" in good[0]:
            bad.append("read_from_device without the option")
        if totals["gemm_flops"] != 0:
            bad.append("counted %s FLOPs without the option" % totals["gemm_flops"])
    for b in bad:
        print("cutlass2_grouped_check: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
