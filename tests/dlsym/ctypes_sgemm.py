# SPDX-License-Identifier: Apache-2.0
"""ctypes_sgemm.py - Python's ctypes as a dlopen + dlsym client: CDLL loads a
library RTLD_LOCAL and every attribute access is a dlsym on its handle, the
way frameworks load cuBLAS by hand.

usage: ctypes_sgemm.py LIBCUBLAS         one 64x64x64 cublasSgemm_v2 (all ones)
       ctypes_sgemm.py --check REPORT    the report of that run under the shim
"""
import ctypes
import json
import sys

N = 64


def run(path):
    cublas = ctypes.CDLL(path)
    handle = ctypes.c_void_p()
    assert cublas.cublasCreate_v2(ctypes.byref(handle)) == 0
    ones = (ctypes.c_float * (N * N))(*([1.0] * (N * N)))
    c = (ctypes.c_float * (N * N))()
    one, zero = ctypes.c_float(1), ctypes.c_float(0)
    status = cublas.cublasSgemm_v2(handle, 0, 0, N, N, N, ctypes.byref(one), ones, N, ones, N,
                                   ctypes.byref(zero), c, N)
    assert status == 0, status
    assert all(v == N for v in c), c[0]  # each entry: a row of ones times a column of ones


def check(report):
    with open(report) as f:
        r = json.load(f)
    flops = 2 * N * N * N  # 524,288
    t = r["totals"]
    assert (t["gemm_calls"], t["gemm_flops"], t["failed_calls"]) == (1, flops, 0), t
    shapes = [(s["api"], s["m"], s["n"], s["k"], s["calls"], s["flops"]) for s in r["shapes"]]
    assert shapes == [("cublasSgemm_v2", N, N, N, 1, flops)], shapes


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check(sys.argv[2])
    elif len(sys.argv) == 2:
        run(sys.argv[1])
    else:
        sys.exit(__doc__)
