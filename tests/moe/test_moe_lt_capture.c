/* SPDX-License-Identifier: Apache-2.0 */
/* test_moe_lt_capture.c - a cuBLASLt grouped matmul captured into a CUDA
 * graph and replayed (the real CUDA runtime, the nvidia-cublas wheel's
 * libcublasLt 13.4 on the null GPU; tests/moe/moe.cmake).
 *
 * usage: test_moe_lt_capture RUN            (under the shim, with
 *                                            FLOPCOUNT_READ_DEVICE_SIZES=1)
 *
 * Grouped, bf16 NN, three experts: group g's D is m_g x 64, m = {32, 16,
 * 48}, k = 64, sizes and operands in device memory. E: once on stream s,
 * eager: read and counted, 2 * (32 + 16 + 48) * 64 * 64 = 786,432 FLOPs.
 * C: once on s while s captures into a graph, then the graph launched 3
 * times: never read (a copy would change the user's graph); each launch
 * lists one call. So the entry "cublasLtMatmul grouped bf16" has 1 + 3 = 4
 * calls, read_from_device calls 1 (counted 1), 786,432 FLOPs, not_read
 * capturing 1; the totals 786,432 FLOPs in 3 group calls. Checked by
 * tests/moe/lt_capture_check.py. */
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BF16_ONE 0x3f80u
#define GK 64

typedef cublasStatus_t (*grouped_create_fn)(cublasLtMatrixLayout_t *, cudaDataType, int,
                                            const void *, const void *, const void *);

static void *dmem(size_t n)
{
    void *p = NULL;
    if (cudaMalloc(&p, n) != cudaSuccess)
        return NULL;
    memset(p, 0, n); /* the null GPU's device memory is host memory */
    return p;
}

int main(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "RUN") != 0) {
        fprintf(stderr, "usage: test_moe_lt_capture RUN\n");
        return 2;
    }
    /* cuBLAS 13.2+ only (the wheel's library): looked up at run time */
    grouped_create_fn create =
        (grouped_create_fn)dlsym(RTLD_DEFAULT, "cublasLtGroupedMatrixLayoutCreate");
    if (create == NULL) {
        fprintf(stderr, "test_moe_lt_capture: no grouped layouts in this libcublasLt\n");
        return 1;
    }
    static const int32_t rows[3] = {32, 16, 48};
    int32_t *m = dmem(sizeof rows), *n = dmem(sizeof rows), *k = dmem(sizeof rows);
    const void **A = dmem(3 * sizeof(void *)), **B = dmem(3 * sizeof(void *));
    void **D = dmem(3 * sizeof(void *));
    void *work = dmem(32u << 20);
    if (m == NULL || n == NULL || k == NULL || A == NULL || B == NULL || D == NULL || work == NULL)
        return 1;
    for (int g = 0; g < 3; g++) {
        m[g] = rows[g], n[g] = GK, k[g] = GK;
        uint16_t *a = dmem((size_t)rows[g] * GK * 2), *b = dmem(GK * GK * 2);
        if (a == NULL || b == NULL)
            return 1;
        for (int i = 0; i < rows[g] * GK; i++)
            a[i] = BF16_ONE;
        for (int i = 0; i < GK * GK; i++)
            b[i] = BF16_ONE;
        A[g] = a, B[g] = b, D[g] = dmem((size_t)rows[g] * GK * 2);
    }
    cublasLtHandle_t h;
    cublasLtMatrixLayout_t al, bl, dl;
    cublasLtMatmulDesc_t op;
    cudaStream_t s;
    float one = 1, zero = 0;
    int bad = cudaStreamCreate(&s) != cudaSuccess || cublasLtCreate(&h) != 0 ||
              create(&al, CUDA_R_16BF, 3, m, k, m) != 0 ||
              create(&bl, CUDA_R_16BF, 3, k, n, k) != 0 ||
              create(&dl, CUDA_R_16BF, 3, m, n, m) != 0 ||
              cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) != 0;
    if (bad) {
        fprintf(stderr, "test_moe_lt_capture: set-up failed\n");
        return 1;
    }
#define MATMUL()                                                                                   \
    cublasLtMatmul(h, op, &one, A, al, B, bl, &zero, D, dl, D, dl, NULL, work, 32u << 20, s)
    bad |= MATMUL() != CUBLAS_STATUS_SUCCESS; /* E */
    bad |= cudaStreamSynchronize(s) != cudaSuccess;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    bad |= cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) != cudaSuccess;
    bad |= MATMUL() != CUBLAS_STATUS_SUCCESS; /* C */
    bad |= cudaStreamEndCapture(s, &graph) != cudaSuccess;
    bad |= cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess;
    for (int i = 0; i < 3 && !bad; i++)
        bad |= cudaGraphLaunch(exec, s) != cudaSuccess;
    bad |= cudaStreamSynchronize(s) != cudaSuccess;
    if (bad)
        fprintf(stderr, "test_moe_lt_capture: a call failed\n");
    return bad;
}
