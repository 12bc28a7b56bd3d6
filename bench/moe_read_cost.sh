#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# moe_read_cost.sh - the host cost of the opt-in read of grouped sizes
# (--read-device-sizes): bench/moe_read_cost (cuBLASLt grouped calls over
# the emulation and the lagging fake driver) and bench/moe_read_cutlass
# (CUTLASS 3 grouped launches on the null GPU) under the shim, the read on
# and off alternated, RUNS runs each, pinned to one CPU (no drainer thread:
# the snapshot drains, so the drain is timed on the calling thread). Prints
# each run's line; docs in bench/README.md.
#   sh bench/moe_read_cost.sh [BUILD=build] [RUNS=5] [ROUNDS=300]
set -e
B=${1:-build}
RUNS=${2:-5}
ROUNDS=${3:-300}
CPU=${CPU:-0}
CUDA_LIB=${CUDA_LIB:-/usr/local/cuda/lib64}
OUT=${TMPDIR:-/tmp}/moe_read_cost.$$
i=0
while [ "$i" -lt "$RUNS" ]; do
  for on in 1 0; do
    LD_PRELOAD="$B/lib/libflopcount.so" LD_LIBRARY_PATH="$B/emu-lt" \
      FLOPCOUNT_LIBCUDA="$B/fake-cuda-copy/libcuda.so.1" FLOPCOUNT_READ_DEVICE_SIZES=$on \
      FLOPCOUNT_CUPTI=0 FLOPCOUNT_QUIET=1 FLOPCOUNT_OUTPUT="$OUT.lt$i$on.json" \
      taskset -c "$CPU" "$B/bench/moe_read_cost" --rounds "$ROUNDS"
    if [ -x "$B/bench/moe_read_cutlass" ]; then
      LD_PRELOAD="$B/lib/libflopcount.so" LD_LIBRARY_PATH="$CUDA_LIB:$B/nullgpu" \
        FLOPCOUNT_LIBCUDA="$B/nullgpu/libcuda.so.1" FLOPCOUNT_READ_DEVICE_SIZES=$on \
        FLOPCOUNT_CUPTI=0 FLOPCOUNT_QUIET=1 FLOPCOUNT_OUTPUT="$OUT.cg$i$on.json" \
        taskset -c "$CPU" "$B/bench/moe_read_cutlass" --rounds "$ROUNDS"
    fi
  done
  rm -f "$OUT".*.json
  i=$((i + 1))
done
