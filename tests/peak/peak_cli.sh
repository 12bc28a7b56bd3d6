#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# peak_cli.sh - `flopcount peak` end to end: one figure (text and JSON), the
# table with a fake local GPU and without a driver, the CPU estimate and its
# overrides, and every usage error (one line on stderr, exit 2).
# usage: peak_cli.sh FLOPCOUNT FAKE_LIBCUDA WORKDIR
set -u
FC=$1
FAKE=$2
WORK=$3
# /usr/bin/python3 first: a version-manager shim on PATH can take a second to start.
PY=${PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
mkdir -p "$WORK" || exit 2
OUT=$WORK/out
ERR=$WORK/err
failures=0
unset FLOPCOUNT_CPU_GHZ FLOPCOUNT_CPU_CORES FAKE_CUDA_NAME FAKE_CUDA_SMS FAKE_CUDA_CLOCK_KHZ \
      FAKE_CUDA_CC FAKE_CUDA_COUNT FAKE_CUDA_INIT_ERROR FAKE_CUDA_NO_CLOCK
# Never the machine's own driver: detection results must not depend on it.
export FLOPCOUNT_LIBCUDA=/nonexistent/flopcount-peak-cli/libcuda.so.1

bad() { echo "FAIL: $*"; failures=$((failures + 1)); }
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { echo "$flags" | grep -qw "$1"; }

# run WANT_STATUS ARGS...: runs flopcount peak, checks the exit status.
run() {
    rwant=$1
    shift
    "$FC" peak "$@" >"$OUT" 2>"$ERR"
    got=$?
    if [ "$got" -ne "$rwant" ]; then
        bad "flopcount peak $* exited $got, wanted $rwant"
        sed 's/^/  stderr: /' "$ERR"
        return 1
    fi
    return 0
}

# usage_error PATTERN ARGS...: exit 2, exactly one stderr line matching PATTERN.
usage_error() {
    pat=$1
    shift
    run 2 "$@" || return
    lines=$(wc -l <"$ERR")
    [ "$lines" -eq 1 ] || bad "flopcount peak $*: $lines stderr lines, wanted 1"
    grep -q "^flopcount peak: $pat" "$ERR" || { bad "flopcount peak $*: stderr lacks '$pat'"; cat "$ERR"; }
    [ -s "$OUT" ] && bad "flopcount peak $*: wrote to stdout on error"
}

# json PYTHON-EXPR: the expression over d (the parsed stdout) must be true.
json() {
    "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2])
sys.exit(0 if ok else 1)' "$OUT" "$1" || { bad "JSON check failed: $1"; head -c 2000 "$OUT"; }
}

# Blackwell's FP4 and FP6, from NVIDIA's sheets (sparse figures halved by hand):
# HGX B200 per GPU FP4 18P* -> 9e15, FP8/FP6 9P* -> 4.5e15; GB200 NVL72 per GPU
# FP4 20P* -> 1e16, FP8/FP6 10P* -> 5e15; HGX B300 FP4 108P dense / 8 -> 13.5e15.
run 0 --gpu "NVIDIA B200" --dtype fp4 --json &&
    json 'd["device"] == "B200" and d["dtype"] == "fp4_e2m1" and d["peak_flops"] == 9000000000000000'
run 0 --gpu b200 --dtype fp4 &&
    { grep -q "^B200 (NVIDIA B200 (HGX)), fp4_e2m1 dense: 9000 TFLOP/s = 9000000000000000 FLOP/s$" "$OUT" ||
        { bad "B200 fp4 text line"; cat "$OUT"; }; }
run 0 --gpu b200 --dtype fp6 --json && json 'd["dtype"] == "fp6_e2m3" and d["peak_flops"] == 4500000000000000'
run 0 --gpu b200 --dtype fp6_e3m2 --json && json 'd["peak_flops"] == 4500000000000000'
run 0 --gpu gb200 --dtype fp4 --json && json 'd["device"] == "GB200" and d["peak_flops"] == 10000000000000000'
run 0 --gpu gb200 --dtype fp6 --json && json 'd["peak_flops"] == 5000000000000000'
run 0 --gpu b300 --dtype fp4 --json && json 'd["peak_flops"] == 13500000000000000'
# Both FP8 formats run at one rate: H100 SXM 3958* / 2 = 1978.9e12.
run 0 --gpu h100 --dtype fp8_e5m2 --json && json 'd["dtype"] == "fp8_e5m2" and d["peak_flops"] == 1978900000000000'

# One figure. H100 SXM bf16: 132 SMs x 4096 x 1.83 GHz = 989.4e12 (data sheet 1979 sparse).
run 0 --gpu "NVIDIA H100 80GB HBM3" --dtype bf16 --json &&
    json 'd["device"] == "H100-SXM" and d["dtype"] == "bf16" and d["peak_flops"] == 989400000000000 and "H100" in d["source"]'
run 0 --gpu=h100 --json && json 'd["peak_flops"] == 989400000000000 and d["dtype"] == "bf16"'
# L40S FP8: data sheet 1,466 sparse -> 733 dense.
run 0 --gpu "NVIDIA L40S" --dtype fp8 &&
    { grep -q "^L40S (NVIDIA L40S), fp8_e4m3 dense: 733 TFLOP/s = 733000000000000 FLOP/s$" "$OUT" ||
        { bad "L40S fp8 text line"; cat "$OUT"; }; }
grep -q "^source: NVIDIA L40S data sheet" "$OUT" || bad "L40S source line"
# L40 is not L40S: 181.05 dense bf16.
run 0 --gpu "NVIDIA L40" --dtype bf16 --json && json 'd["device"] == "L40" and d["peak_flops"] == 181050000000000'
# A100 tf32: 312 sparse -> 156 dense.
run 0 --gpu "NVIDIA A100-PCIE-40GB" --dtype tf32 --json && json 'd["device"] == "A100-PCIe" and d["peak_flops"] == 156000000000000'

# Errors: unknown GPU, unknown dtype, dtype the device lacks, bad flags.
usage_error "unknown GPU 'NVIDIA Foo 9000'; pass --peak-tflops" --gpu "NVIDIA Foo 9000"
usage_error "unknown GPU 'NVIDIA GeForce RTX 3080 Ti'" --gpu "NVIDIA GeForce RTX 3080 Ti" --json
usage_error "unknown dtype 'fp7'" --gpu h100 --dtype fp7
usage_error "unknown dtype 'fp7'" --dtype fp7
usage_error "no published fp8_e4m3 peak for A100-SXM (NVIDIA A100 SXM4: it has " --gpu a100 --dtype fp8
usage_error "no published bf16 peak for V100-SXM2" --gpu "Tesla V100-SXM2-16GB"
# FP4 and FP6 exist on Blackwell only; Hopper has neither (never FP8's figure instead).
usage_error "no published fp4_e2m1 peak for H100-SXM" --gpu "NVIDIA H100 80GB HBM3" --dtype fp4
usage_error "no published fp4_e2m1 peak for H100-SXM" --gpu h100 --dtype fp4 --json
usage_error "no published fp6_e3m2 peak for H200-SXM" --gpu h200 --dtype fp6_e3m2
usage_error "no published int8 peak for B300" --gpu b300 --dtype int8
usage_error "--gpu needs a value" --gpu
usage_error "--gpu needs a non-empty value" --gpu=
usage_error "unknown option '--bogus'" --bogus
usage_error "--cpu-ghz and --cpu-cores set the CPU estimate" --gpu h100 --cpu-ghz 3
usage_error "--cpu-ghz wants a clock in GHz" --gpu cpu --cpu-ghz fast
usage_error "--cpu-cores wants a core count" --gpu cpu --cpu-cores 0
# bf16 on the CPU needs avx512_bf16 or amx_bf16; fp8 has no CPU figure at all.
if ! has avx512_bf16 && ! has amx_bf16; then
    usage_error "no CPU estimate for bf16 on .*: no bf16 instructions" --gpu cpu --dtype bf16 --cpu-ghz 2
fi
usage_error "no CPU estimate for fp8_e4m3 on " --gpu cpu --dtype fp8 --cpu-ghz 2
export FLOPCOUNT_CPU_GHZ=warp
usage_error "FLOPCOUNT_CPU_GHZ='warp' is not a clock" --gpu cpu
unset FLOPCOUNT_CPU_GHZ
run 0 --help && grep -q "^usage: flopcount peak" "$OUT" || bad "--help"

# CPU estimate: FLOP/cycle from this machine's flags, worked out here
# independently: AVX-512 64, AVX2+FMA 32, AVX 16, SSE 8 (fp32).
if has avx512f; then per=64; elif has fma && has avx2; then per=32; elif has avx; then per=16; else per=8; fi
# 4 cores x per x 2.5 GHz.
want=$((4 * per * 2500000000))
run 0 --gpu cpu --cpu-ghz 2.5 --cpu-cores 4 --json &&
    json "d['device'] == 'cpu' and d['dtype'] == 'fp32' and d['peak_flops'] == $want and d['estimate'] is True and d['source'].startswith('estimate: 4 --cpu-cores x $per FLOP/cycle')"
# fp64 is half, and the environment works as the flags do.
want64=$((4 * per / 2 * 2500000000))
export FLOPCOUNT_CPU_GHZ=2.5 FLOPCOUNT_CPU_CORES=4
run 0 --gpu CPU --dtype fp64 --json && json "d['peak_flops'] == $want64 and 'FLOPCOUNT_CPU_GHZ' in d['source']"
# Flags beat the environment.
export FLOPCOUNT_CPU_GHZ=9
run 0 --gpu cpu --cpu-ghz 2.5 --cpu-cores 4 --json && json "d['peak_flops'] == $want"
unset FLOPCOUNT_CPU_GHZ FLOPCOUNT_CPU_CORES
run 0 --gpu cpu --cpu-ghz 2.5 --cpu-cores 4 && grep -q "ESTIMATE" "$OUT" || bad "CPU text not labelled an estimate"

# Table without a driver: says so plainly, still lists every device.
run 0 && grep -q "^Local GPU: none detected (no CUDA driver (FLOPCOUNT_LIBCUDA=" "$OUT" || bad "no-driver text"
for k in V100-SXM2 A100-SXM A100-PCIe A10 A10G L4 L40 L40S RTX-3090 RTX-4090 H100-SXM H100-PCIe H100-NVL \
    H200-SXM H200-NVL GH200 B200 GB200 MI300X; do
    grep -q "^$k " "$OUT" || bad "table lacks $k"
done
run 0 --json &&
    json 'd["local"] is None and "no CUDA driver" in d["local_error"] and len({p["device"] for p in d["peaks"]}) == 35 and all(p["peak_flops"] > 0 and p["source"] for p in d["peaks"])'
run 0 --json --dtype fp8 && json 'all(p["dtype"] == "fp8_e4m3" for p in d["peaks"]) and "A100-SXM" not in {p["device"] for p in d["peaks"]}'
# Every device lists every dtype: a figure, or null and the dtype named "not published".
run 0 --json &&
    json 'len(d["devices"]) == 35 and all(set(x["peak_flops"]) == {"fp64", "fp64_tensor", "fp32", "tf32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "fp6_e2m3", "fp6_e3m2", "fp4_e2m1", "int8"} and sorted(x["not_published"]) == sorted(k for k, v in x["peak_flops"].items() if v is None) for x in d["devices"])'
run 0 --json &&
    json '[x for x in d["devices"] if x["device"] == "H100-SXM"][0]["peak_flops"]["fp4_e2m1"] is None and "fp4_e2m1" in [x for x in d["devices"] if x["device"] == "H100-SXM"][0]["not_published"] and [x for x in d["devices"] if x["device"] == "B200"][0]["peak_flops"]["fp4_e2m1"] == 9000000000000000 and {x["device"] for x in d["devices"] if x["peak_flops"]["fp6_e2m3"]} == {"B100", "B200", "GB200", "B300", "GB300"}'
# The CPU estimate per dtype, null where this CPU has no instruction for it.
run 0 --json --cpu-ghz 2.5 --cpu-cores 4 &&
    json "d['cpu']['peak_flops']['fp32'] == 4 * $per * 2500000000 and d['cpu']['peak_flops']['fp64'] == 2 * $per * 2500000000 and all(d['cpu']['assumes'][k] for k in ('fp32', 'fp64', 'bf16', 'fp16', 'int8'))"

# Table with the fake H100 at 1.83 GHz: clock-derived = 132 x 4096 x 1.83e9
# = 989,429,760,000,000 beside the table's 989.4e12.
export FLOPCOUNT_LIBCUDA="$FAKE" FAKE_CUDA_CLOCK_KHZ=1830000
run 0 --json &&
    json 'd["local"]["name"] == "NVIDIA H100 80GB HBM3" and d["local"]["sm_count"] == 132 and d["local"]["compute_capability"] == "9.0" and d["local"]["clock_mhz"] == 1830 and d["local"]["device"] == "H100-SXM" and d["local"]["table_peak_flops"] == 989400000000000 and d["local"]["clock_derived_peak_flops"] == 989429760000000'
unset FAKE_CUDA_CLOCK_KHZ
run 0 &&
    grep -q "^Local GPU 0 of 1: NVIDIA H100 80GB HBM3 -> H100-SXM; 132 SMs, compute capability 9.0, clock 1980 MHz$" "$OUT" ||
    { bad "local GPU text"; cat "$OUT"; }
# 132 x 4096 x 1.98e9 = 1070.5e12.
grep -q "fp16 dense, from clock:    1070.5 TFLOP/s" "$OUT" || bad "clock-derived text"
# An unknown local GPU: named, with the advice, never a borrowed figure.
export FAKE_CUDA_NAME="NVIDIA A40"
run 0 --json &&
    json 'd["local"]["device"] is None and d["local"]["table_peak_flops"] is None and d["local"]["clock_derived_peak_flops"] is None'
# cuInit failing is reported as such.
unset FAKE_CUDA_NAME
export FAKE_CUDA_INIT_ERROR=100
run 0 --json &&
    json 'd["local"] is None and d["local_error"] == "CUDA driver failed to initialise: no CUDA device (cuInit error 100)"'

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "peak_cli: all checks passed"
