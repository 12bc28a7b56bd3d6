#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""lt_capture_check.py - checks the report of test_moe_lt_capture.c (a
cuBLASLt grouped matmul eager, then captured and replayed 3 times) against
the figures worked out by hand in that program's header.

usage: lt_capture_check.py REPORT"""
import json
import sys

FLOPS = 2 * (32 + 16 + 48) * 64 * 64  # 786,432: the eager call


def main():
    r = json.load(open(sys.argv[1]))
    bad = []
    e = [u for u in r.get("uncounted", []) if u["name"] == "cublasLtMatmul grouped bf16"]
    if len(e) != 1 or e[0]["calls"] != 4 or e[0]["failed_calls"] != 0:
        bad.append("entry: want 4 calls (1 eager + 3 replays): %s" % e)
    rd = e[0].get("read_from_device", {}) if e else {}
    want = {"calls": 1, "counted_calls": 1, "flops": FLOPS, "groups": 3, "pending_calls": 0}
    for k, v in want.items():
        if rd.get(k) != v:
            bad.append("read_from_device.%s = %s, want %s" % (k, rd.get(k), v))
    nr = rd.get("not_read", {})
    if nr.get("capturing") != 1 or sum(nr.values()) != 1:
        bad.append("not_read: %s, want capturing 1" % nr)
    t = r["totals"]
    if t["gemm_flops"] != FLOPS or t["gemm_calls"] != 3:
        bad.append("totals: %s, want %d FLOPs in 3 group calls" % (t, FLOPS))
    for b in bad:
        print("lt_capture_check: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
