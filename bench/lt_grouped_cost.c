/* SPDX-License-Identifier: Apache-2.0 */
/* lt_grouped_cost.c - what the cublasLtMatmul hook's grouped-layout check
 * costs a call that is not grouped: one more cublasLtMatrixLayoutGetAttribute
 * (CUBLASLT_MATRIX_LAYOUT_BATCH_MODE of D), next to the ten getters the hook
 * already makes (compute type and transposes of the descriptor; rows, cols
 * and types of A, B and D, D's batch count). Timed against the REAL
 * libcublasLt this is linked with (descriptors need no GPU).
 *
 *   build/bench/lt_grouped_cost [--rounds 200] [--batch 20000]
 *
 * Each round times a batch of the one added getter and a batch of the
 * hook's ten, interleaved; prints the medians over rounds in ns per call,
 * the 10th and 90th percentiles, and the added share. */
#include <cublasLt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[(int)(p * (n - 1))];
}

static volatile uint64_t sink;

/* The added read: D's batch mode. */
static void added(cublasLtMatrixLayout_t d)
{
    uint32_t mode = 0;
    size_t w = 0;
    cublasLtMatrixLayoutGetAttribute(d, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, &mode, sizeof mode, &w);
    sink += mode;
}

/* The hook's existing reads (shim/hooks/cublaslt.c, lt_decode). */
static void existing(cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                     cublasLtMatrixLayout_t d)
{
    int32_t i32 = 0;
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    size_t w = 0;
    cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &i32, 4, &w);
    cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &i32, 4, &w);
    cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &i32, 4, &w);
    cublasLtMatrixLayout_t ls[3] = {a, b, d};
    for (int i = 0; i < 3; i++) {
        cublasLtMatrixLayoutGetAttribute(ls[i], CUBLASLT_MATRIX_LAYOUT_ROWS, &u64, 8, &w);
        cublasLtMatrixLayoutGetAttribute(ls[i], CUBLASLT_MATRIX_LAYOUT_COLS, &u64, 8, &w);
    }
    cublasLtMatrixLayoutGetAttribute(a, CUBLASLT_MATRIX_LAYOUT_TYPE, &u32, 4, &w);
    cublasLtMatrixLayoutGetAttribute(d, CUBLASLT_MATRIX_LAYOUT_TYPE, &u32, 4, &w);
    cublasLtMatrixLayoutGetAttribute(d, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &i32, 4, &w);
    sink += u64 + u32 + (uint64_t)i32;
}

int main(int argc, char **argv)
{
    int rounds = 200, batch = 20000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rounds") == 0)
            rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--batch") == 0)
            batch = atoi(argv[i + 1]);
    }
    if (rounds < 1 || batch < 1) {
        fprintf(stderr, "usage: lt_grouped_cost [--rounds N] [--batch N]\n");
        return 2;
    }
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, d;
    if (cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) ||
        cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, 4096, 4096, 4096) ||
        cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, 4096, 4096, 4096) ||
        cublasLtMatrixLayoutCreate(&d, CUDA_R_16BF, 4096, 4096, 4096)) {
        fprintf(stderr, "lt_grouped_cost: the descriptors could not be made\n");
        return 1;
    }
    double *add = malloc(sizeof(double) * (size_t)rounds);
    double *old = malloc(sizeof(double) * (size_t)rounds);
    double *share = malloc(sizeof(double) * (size_t)rounds);
    if (add == NULL || old == NULL || share == NULL)
        return 1;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_ns();
        for (int i = 0; i < batch; i++)
            added(d);
        double t1 = now_ns();
        for (int i = 0; i < batch; i++)
            existing(op, a, b, d);
        double t2 = now_ns();
        add[r] = (t1 - t0) / batch;
        old[r] = (t2 - t1) / batch;
        share[r] = add[r] / old[r];
    }
    printf("added getter   (BATCH_MODE): median %.1f ns, p10 %.1f, p90 %.1f\n",
           pct(add, rounds, 0.5), pct(add, rounds, 0.1), pct(add, rounds, 0.9));
    printf("existing 10 getters        : median %.1f ns, p10 %.1f, p90 %.1f\n",
           pct(old, rounds, 0.5), pct(old, rounds, 0.1), pct(old, rounds, 0.9));
    printf("added / existing           : median %.3f, p10 %.3f, p90 %.3f\n",
           pct(share, rounds, 0.5), pct(share, rounds, 0.1), pct(share, rounds, 0.9));
    free(add), free(old), free(share);
    return 0;
}
