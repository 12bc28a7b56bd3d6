/* SPDX-License-Identifier: Apache-2.0 */
/* mix_emu.c - a training loop of FP8 and BF16 GEMMs in known proportions
 * on the cuBLASLt emulation (tests/emu/cublaslt_emu.c), for HFU at the
 * dtype mix (tests/mix/mix_check.py works the figures out by hand).
 *
 *   mix_emu N_E4M3 N_E5M2 N_BF16 STEPS
 *
 * Each of STEPS iterations runs, through cublasLtMatmul, N_E4M3 GEMMs of
 * FP8 E4M3 x E4M3, N_E5M2 of E5M2 x E4M3 (a gradient in E5M2) and N_BF16
 * of BF16 x BF16, all TN 64 x 64 x 64 into a BF16 D: 2 x 64^3 = 524,288
 * FLOPs each, the dtype the A operand's; the phases declared (the E4M3
 * GEMMs and the first BF16 one forward, the rest backward), as a training
 * loop with markers does. Then flopcount_step(). The third
 * iteration is followed by an evaluation pass of one FP32 GEMM 8 x 8 x 8
 * (1,024 FLOPs) between flopcount_eval_begin/end: counted, never in the
 * mix. The program loads the driver named by FLOPCOUNT_LIBCUDA itself (a
 * fake one saying which GPU this is), as a CUDA program would, so the
 * shim may ask it for the device. At the end it writes the shim's
 * flopcount_snapshot_get, as JSON, to the file MIX_SNAPSHOT names.
 *
 * Results are checked: A = 1, B = 0.5 in every format, so each element of
 * D is 64 x 0.5 = 32 exactly. Exit 0, or 1 with a line saying what failed. */
#include <cublasLt.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flopcount.h"

#define N 64 /* m = n = k */

static cublasLtHandle_t handle;

static int die(const char *what)
{
    fprintf(stderr, "mix_emu: %s\n", what);
    exit(1);
}

static cublasLtMatrixLayout_t layout(cudaDataType t)
{
    cublasLtMatrixLayout_t l = NULL;
    if (cublasLtMatrixLayoutCreate(&l, t, N, N, N) != CUBLAS_STATUS_SUCCESS)
        die("cublasLtMatrixLayoutCreate failed");
    return l;
}

/* D = A^T B for A, B of types at, bt (TN, as FP8 GEMMs must be). */
static void gemm(cudaDataType at, const void *A, cudaDataType bt, const void *B, uint16_t *D)
{
    cublasLtMatmulDesc_t op = NULL;
    int32_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    if (cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS ||
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta) != 0 ||
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb) != 0)
        die("cublasLtMatmulDesc setup failed");
    cublasLtMatrixLayout_t a = layout(at), b = layout(bt), d = layout(CUDA_R_16BF);
    float one = 1, zero = 0;
    memset(D, 0, N * N * sizeof *D);
    if (cublasLtMatmul(handle, op, &one, A, a, B, b, &zero, D, d, D, d, NULL, NULL, 0, 0) !=
        CUBLAS_STATUS_SUCCESS)
        die("cublasLtMatmul failed");
    for (int i = 0; i < N * N; i++)
        if (D[i] != 0x4200) /* bf16 32.0 */
            die("wrong result: D is not 32 everywhere");
    cublasLtMatmulDescDestroy(op);
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(d);
}

/* The evaluation pass: one fp32 GEMM 8 x 8 x 8, C = A B with A = B = 1. */
static void eval_gemm(void)
{
    float A[64], C[64], one = 1, zero = 0;
    for (int i = 0; i < 64; i++)
        A[i] = 1;
    cublasLtMatmulDesc_t op = NULL;
    cublasLtMatrixLayout_t l = NULL;
    if (cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) != 0 ||
        cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 8, 8, 8) != 0 ||
        cublasLtMatmul(handle, op, &one, A, l, A, l, &zero, C, l, C, l, NULL, NULL, 0, 0) != 0 ||
        C[0] != 8)
        die("the evaluation GEMM failed");
    cublasLtMatmulDescDestroy(op);
    cublasLtMatrixLayoutDestroy(l);
}

typedef void (*mark_fn)(void);

static mark_fn marker(const char *name)
{
    mark_fn f = (mark_fn)dlsym(RTLD_DEFAULT, name);
    if (f == NULL)
        die("run it under the shim (LD_PRELOAD=libflopcount.so): no flopcount markers");
    return f;
}

/* The snapshot's fields the checker needs, as one JSON object. */
static void write_snapshot(const char *path)
{
    typedef int (*get_fn)(flopcount_snapshot *);
    get_fn get = (get_fn)dlsym(RTLD_DEFAULT, "flopcount_snapshot_get");
    flopcount_snapshot s = {.size = sizeof s};
    if (get == NULL || get(&s) != 0)
        die("flopcount_snapshot_get failed");
    FILE *f = fopen(path, "w");
    if (f == NULL)
        die("cannot write MIX_SNAPSHOT");
    fprintf(f,
            "{\"version\": %u, \"flags\": %u, \"median_iteration_seconds\": %.17g, "
            "\"iteration_flops\": %llu, \"hfu\": %.17g, \"peak_flops\": %.17g, "
            "\"peak_dtype\": \"%s\", \"hfu_mix\": %.17g, \"mix_reason\": \"%s\", \"mix\": [",
            s.version, s.flags, s.median_iteration_seconds,
            (unsigned long long)s.iteration_flops_lo, s.hfu, s.peak_flops, s.peak_dtype,
            s.hfu_mix, s.mix_reason);
    for (uint32_t i = 0; i < s.mix_count && i < FLOPCOUNT_SNAPSHOT_MIX_MAX; i++)
        fprintf(f, "%s{\"dtype\": \"%s\", \"share\": %.17g, \"peak_flops\": %.17g}", i ? ", " : "",
                s.mix[i].dtype, s.mix[i].share, s.mix[i].peak_flops);
    fprintf(f, "], \"mix_count\": %u}\n", s.mix_count);
    if (fclose(f) != 0)
        die("cannot write MIX_SNAPSHOT");
}

int main(int argc, char **argv)
{
    if (argc != 5)
        die("usage: mix_emu N_E4M3 N_E5M2 N_BF16 STEPS");
    int n_e4m3 = atoi(argv[1]), n_e5m2 = atoi(argv[2]), n_bf16 = atoi(argv[3]);
    int steps = atoi(argv[4]);
    const char *driver = getenv("FLOPCOUNT_LIBCUDA"), *snap = getenv("MIX_SNAPSHOT");
    if (driver == NULL || dlopen(driver, RTLD_NOW | RTLD_GLOBAL) == NULL)
        die("FLOPCOUNT_LIBCUDA must name the fake driver (tests/fake_cuda)");
    if (cublasLtCreate(&handle) != CUBLAS_STATUS_SUCCESS)
        die("cublasLtCreate failed");
    /* 1.0 and 0.5: E4M3 0x38 / 0x30, E5M2 0x3c, BF16 0x3f80 / 0x3f00 */
    static uint8_t a8[N * N], b8[N * N], a5[N * N];
    static uint16_t a16[N * N], b16[N * N], d[N * N];
    memset(a8, 0x38, sizeof a8);
    memset(b8, 0x30, sizeof b8);
    memset(a5, 0x3c, sizeof a5);
    for (int i = 0; i < N * N; i++) {
        a16[i] = 0x3f80;
        b16[i] = 0x3f00;
    }
    mark_fn step = marker("flopcount_step"), eval_begin = marker("flopcount_eval_begin"),
            eval_end = marker("flopcount_eval_end"), fwd = marker("flopcount_forward_begin"),
            bwd = marker("flopcount_backward_begin");
    for (int s = 0; s < steps; s++) {
        fwd(); /* the E4M3 GEMMs and one BF16 forward, the rest backward */
        for (int i = 0; i < n_e4m3; i++)
            gemm(CUDA_R_8F_E4M3, a8, CUDA_R_8F_E4M3, b8, d);
        for (int i = 0; i < n_bf16; i++) {
            if (i == 1)
                bwd();
            gemm(CUDA_R_16BF, a16, CUDA_R_16BF, b16, d);
        }
        if (n_bf16 < 2)
            bwd();
        for (int i = 0; i < n_e5m2; i++)
            gemm(CUDA_R_8F_E5M2, a5, CUDA_R_8F_E4M3, b8, d);
        step();
        if (s == 2) {
            eval_begin();
            eval_gemm();
            eval_end();
        }
    }
    if (snap != NULL)
        write_snapshot(snap);
    cublasLtDestroy(handle);
    return 0;
}
