/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_local_lib.c - a stand-in for a Python extension module: a
 * shared object linked against libcublas.so.13 that the test program
 * dlopen()s RTLD_LOCAL, so libcublas lands outside the global scope and
 * dlsym(RTLD_NEXT) in the shim cannot see it. Built twice: against the
 * real library and against the emulation. */
#include <cublas_api.h>

/* With a working handle (the emulation), runs the hand-worked GEMM of
 * emu/cublas_emu_check.h into c (8 floats, column-major 2x4); without one
 * (the real library, no GPU), calls on a NULL handle with m=11 n=12 k=13.
 * Returns the GEMM's status; *create gets cublasCreate's. */
__attribute__((visibility("default"))) int cublas_local_run(int *create, float *c)
{
    static const float a_n[6] = {1, 4, 2, 5, 3, 6};
    static const float b_n[12] = {1, 0, 1, 0, 1, 1, 2, 1, 0, 1, 2, 3};
    static float scratch[13 * 13];
    const float alpha = 2, beta = 1;
    cublasHandle_t h = NULL;
    *create = cublasCreate_v2(&h);
    if (*create != CUBLAS_STATUS_SUCCESS)
        return cublasSgemm_v2(NULL, CUBLAS_OP_T, CUBLAS_OP_N, 11, 12, 13, &alpha, scratch, 13,
                              scratch, 13, &beta, scratch, 11);
    int st = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 4, 3, &alpha, a_n, 2, b_n, 3, &beta,
                            c, 2);
    cublasDestroy_v2(h);
    return st;
}
