#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# cupti_ab.sh BUILD BASE_SHIM [RUNS] - interleaved A/B runs of shim_overhead
# --work-ns 3000 (bench/README.md, "CUPTI present but idle"): the shim of
# this build against BASE_SHIM (a build of the base branch), on the CPU BLAS
# path and on the cuBLAS path, and on the cuBLAS path with CUPTI absent (no
# driver) against CUPTI loaded and idle (the fake driver and fake CUPTI of
# tests/cupti: the probe succeeds, nothing is captured, no --kernels). One
# line per configuration: the median added ns per call over RUNS runs, and
# the range. Timings only; run it on a quiet machine.
set -e
build=$1 base=$2 runs=${3:-8}
bench="$build/bench/shim_overhead --rounds 60 --batch 2000 --shape-calls 100000 --work-ns 3000
  --blas $build/bench/libfc_noop_blas.so --cublas $build/bench/noop_cublas/libcublas.so.13"
this=$build/lib/libflopcount.so
driver=$build/tests/fake_gpu_driver/libcuda.so.1
cupti=$build/tests/fake_cupti/libcupti.so.13
out=$(mktemp -d)
added() { sed -n 's/.*"added_ns": \([-0-9.]*\).*/\1/p'; }
i=0
while [ $i -lt "$runs" ]; do
  $bench --api blas --shim "$base" | added >> "$out/blas_base"
  $bench --api blas --shim "$this" | added >> "$out/blas_this"
  $bench --api cublas --shim "$base" | added >> "$out/cublas_base"
  FLOPCOUNT_CUPTI=0 $bench --api cublas --shim "$this" | added >> "$out/cublas_absent"
  FLOPCOUNT_CUPTI=$cupti $bench --api cublas --shim "$this" --driver "$driver" | added >> "$out/cublas_idle"
  i=$((i + 1))
done
for c in blas_base blas_this cublas_base cublas_absent cublas_idle; do
  sort -n "$out/$c" | awk -v c="$c" '{v[NR]=$1} END {printf "%-14s median %.1f ns (%.1f-%.1f) over %d runs\n", c, v[int((NR+1)/2)], v[1], v[NR], NR}'
done
rm -rf "$out"
