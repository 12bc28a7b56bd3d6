# SPDX-License-Identifier: Apache-2.0
"""mpi_gemm.py - one rank's GEMMs under Open MPI's mpirun, no torch: rank r
(OMPI_COMM_WORLD_RANK) calls sgemm_ r + 1 times with m=32, n=48, k=64, so it
runs (r + 1) * 2*32*48*64 = (r + 1) * 196,608 FLOPs. Checks one result
element so a shim that changed the product would fail the run.

sgemm_ is looked up in the global scope (dlsym(RTLD_DEFAULT)) after loading
libblas RTLD_GLOBAL, as a program linked against BLAS would reach it: a
handle-local lookup would skip the preloaded shim.
"""
import ctypes
import os
import sys

M, N, K = 32, 48, 64


def main():
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    ctypes.CDLL("libblas.so.3", mode=ctypes.RTLD_GLOBAL)
    sgemm = ctypes.CDLL(None).sgemm_
    f, i, c = ctypes.c_float, ctypes.c_int, ctypes.c_char
    a = (f * (M * K))(*([1.0] * (M * K)))
    b = (f * (K * N))(*([2.0] * (K * N)))
    out = (f * (M * N))()
    ref = ctypes.byref
    for _ in range(rank + 1):
        sgemm(ref(c(b"N")), ref(c(b"N")), ref(i(M)), ref(i(N)), ref(i(K)), ref(f(1.0)), a,
              ref(i(M)), b, ref(i(K)), ref(f(0.0)), out, ref(i(M)), ctypes.c_size_t(1),
              ctypes.c_size_t(1))
    if out[0] != 2.0 * K:  # a row of ones times a column of twos
        sys.exit(f"rank {rank}: C[0] = {out[0]}, want {2.0 * K}")


if __name__ == "__main__":
    main()
