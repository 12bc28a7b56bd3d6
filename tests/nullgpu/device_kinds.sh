#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# device_kinds.sh - each device kind of the null GPU as flopcount detects it
# (`flopcount peak --json`, local device through FLOPCOUNT_LIBCUDA): the
# driver's name for the part, its SM count and compute capability, and the
# peak-table entry with its dense bf16 figure (docs/peak.md; REFERENCE:
# H100/H200 SXM 989.4, B200 2250, A100 312, L40S 362.05 TFLOP/s).
# usage: device_kinds.sh FLOPCOUNT NULLGPU_LIBCUDA
set -u
FC=$1
export FLOPCOUNT_LIBCUDA=$2
PY=${PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
failures=0
check() { # kind name key sms cc peak
    out=$(FLOPCOUNT_NULLGPU_DEVICE=$1 "$FC" peak --json) || { echo "FAIL: $1: flopcount peak failed"; failures=$((failures + 1)); return; }
    if echo "$out" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)["local"]
want = (sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
got = (d["name"], d["device"], d["sm_count"], d["compute_capability"], d["table_peak_flops"])
sys.exit(0 if got == want else print("got", got, "want", want) or 1)' "$2" "$3" "$4" "$5" "$6"; then
        echo "$1: $2 -> $3 ok"
    else
        echo "FAIL: $1"; failures=$((failures + 1))
    fi
}
check h100 "NVIDIA H100 80GB HBM3" H100-SXM 132 9.0 989400000000000
check h200 "NVIDIA H200" H200-SXM 132 9.0 989400000000000
check b200 "NVIDIA B200" B200 148 10.0 2250000000000000
check a100 "NVIDIA A100-SXM4-80GB" A100-SXM 108 8.0 312000000000000
check l40s "NVIDIA L40S" L40S 142 8.9 362050000000000
# the default is the H100
out=$(env -u FLOPCOUNT_NULLGPU_DEVICE "$FC" peak --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["local"]["device"])')
[ "$out" = H100-SXM ] || { echo "FAIL: default kind is $out"; failures=$((failures + 1)); }
exit $failures
