/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_stub_cublas.c - a libcublas.so.13 with no GEMM in it, for
 * test_cublas_missing.c: what the shim finds where it looks for cuBLAS. */
#include <cublas_api.h>

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    (void)handle;
    return CUBLAS_STATUS_NOT_INITIALIZED;
}
