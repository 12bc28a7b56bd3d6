#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cutlass_grouped_check.py - checks the report of cutlass_grouped_prog.cu
(CUTLASS 3 grouped GEMM launches) or cutlass2_grouped_prog.cu (CUTLASS 2
GemmGrouped launches) on the null GPU against figures worked out by hand
in those programs' headers.

usage: cutlass_grouped_check.py REPORT on|off [3|2]   (CUTLASS 3 by default)
  on:  FLOPCOUNT_READ_DEVICE_SIZES=1: G's two launches read and counted:
       3: 6 groups, 2 x 1,572,864 = 3,145,728 FLOPs, bf16; rows 16..48
       2: 4 groups, 2 x 131,072 = 262,144 FLOPs, fp16; rows 8..24
       api cutlass:grouped_read_from_device, imbalance 1.5.
  off: G listed uncounted only, nothing counted.
Both: G's entry sizes_in_device_memory with its group count, 2 calls; each
defence launch layout_mismatch with its reason, 1 call, never read."""
import json
import sys

CASES = {
    "3": {
        "name": "17GroupProblemShapeI",
        "group_flops": 2 * (32 + 16 + 48) * 64 * 128,  # 1,572,864 a launch
        "groups": 3, "rows": (16, 48), "dtype": "bf16",
        "defence": [
            "mode 3, not kGrouped (4)",
            "0 groups, out of 1..65536",
            "70000 groups, out of 1..65536",
            "problem_shapes is NULL",
            "parameter 0 is 16 bytes, less than the 32",
            "not a GemmUniversal over GroupProblemShape<Shape<int, int, int>>",
        ],
    },
    "2": {
        "name": "11GemmGroupedI",
        "group_flops": 2 * (8 + 24) * 64 * 32,  # 131,072 a launch
        "groups": 2, "rows": (8, 24), "dtype": "fp16",
        "defence": [
            "0 problems, out of 1..65536",
            "problem_sizes is NULL",
            "threadblock_count 108, not the grid's 54",
            "tile_count -1 is negative",
            "parameter 0 is 16 bytes, less than the 36",
        ],
    },
}


def check(r, mode, c):
    bad = []
    flops, groups = 2 * c["group_flops"], c["groups"]
    unc = [u for u in r.get("uncounted", []) if c["name"] in u["name"]]
    good = [u for u in unc if u["reason"] == "sizes_in_device_memory"]
    head = "%d groups;" % groups
    if len(good) != 1 or good[0]["calls"] != 2 or not good[0]["detail"].startswith(head):
        bad.append("G: want one sizes_in_device_memory entry, 2 calls, '%s': %s" % (head, good))
    for why in c["defence"]:
        hit = [u for u in unc if u["reason"] == "layout_mismatch" and u["detail"].startswith(why)]
        if len(hit) != 1 or hit[0]["calls"] != 1 or "read_from_device" in hit[0]:
            bad.append("defence '%s': %s" % (why, hit))
    if len(unc) != 1 + len(c["defence"]):
        bad.append("%d grouped entries, want %d" % (len(unc), 1 + len(c["defence"])))
    totals = r["totals"]
    if mode == "on":
        rd = good[0].get("read_from_device", {}) if good else {}
        want = {"calls": 2, "counted_calls": 2, "late_calls": 0, "flops": flops,
                "groups": 2 * groups, "group_rows_min": c["rows"][0],
                "group_rows_max": c["rows"][1], "imbalance_mean": 1.5, "imbalance_max": 1.5,
                "pending_calls": 0}
        for k, v in want.items():
            if rd.get(k) != v:
                bad.append("read_from_device.%s = %s, want %s" % (k, rd.get(k), v))
        if any(rd.get("not_read", {}).values()):
            bad.append("not_read: %s" % rd.get("not_read"))
        api = r.get("by_api", {}).get("cutlass:grouped_read_from_device", {})
        dt = r.get("by_dtype", {}).get(c["dtype"], {})
        if (totals["gemm_flops"] != flops or totals["gemm_calls"] != 2 * groups or
                api.get("calls") != 2 * groups or api.get("flops") != flops or
                dt.get("flops") != flops):
            bad.append("counted: totals %s, by_api %s, %s %s" % (totals, api, c["dtype"], dt))
    else:
        if good and "read_from_device" in good[0]:
            bad.append("read_from_device without the option")
        if totals["gemm_flops"] != 0:
            bad.append("counted %s FLOPs without the option" % totals["gemm_flops"])
    return bad


def main():
    path, mode = sys.argv[1], sys.argv[2]
    version = sys.argv[3] if len(sys.argv) > 3 else "3"
    bad = check(json.load(open(path)), mode, CASES[version])
    for b in bad:
        print("cutlass_grouped_check (CUTLASS %s): %s" % (version, b), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
