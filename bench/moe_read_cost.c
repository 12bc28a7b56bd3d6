/* SPDX-License-Identifier: Apache-2.0 */
/* moe_read_cost.c - what the opt-in read of grouped GEMMs' device size
 * arrays (--read-device-sizes, docs/moe.md) costs on the host: the calling
 * thread per grouped cublasLtMatmul, and whoever drains the rings per read
 * that landed. Run under the shim twice, FLOPCOUNT_READ_DEVICE_SIZES=1 and
 * =0 (bench/moe_read_cost.sh does both, several runs each); the difference
 * is the read's cost. The library is the cuBLASLt emulation
 * (tests/emu/cublaslt_emu.c, a real grouped layout over host arrays), the
 * driver the lagging fake (tests/moe/fake_libcuda_copy.c: copies and
 * events only queue until fake_cuda_run()), so no GPU time is in it.
 *
 *   LD_PRELOAD=libflopcount.so FLOPCOUNT_LIBCUDA=.../libcuda.so.1 \
 *   FLOPCOUNT_READ_DEVICE_SIZES=1 moe_read_cost [--rounds 300] [--batch 32]
 *
 * A round: `batch` grouped calls (3 experts, m = {2, 1, 3}, n = 2, k = 4,
 * bf16) timed on the calling thread; the fake GPU catches up (untimed); then
 * flopcount_snapshot_get timed, which drains the rings on this thread and
 * so feeds every landed read (on) or the plain uncounted records (off).
 * batch is at most 32, the shim's slots in flight, so every call is read.
 * Prints one line: medians over rounds of ns per call and ns of the drain
 * per call, with their 10th and 90th percentiles. */
#include <cublasLt.h>
#include <dlfcn.h>
#include <flopcount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if CUBLAS_VERSION < 130200
cublasStatus_t cublasLtGroupedMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout,
                                                 cudaDataType type, int groupCount,
                                                 const void *rows_array, const void *cols_array,
                                                 const void *ld_array);
#endif

#define GROUPS 3
#define BF16_ONE 0x3f80u

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

/* The p-quantile (lower one; the median is the lower middle, as in
 * analysis/stats.h). Sorts v. */
static double pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[(int)(p * (n - 1))];
}

int main(int argc, char **argv)
{
    int rounds = 300, batch = 32;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rounds") == 0)
            rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--batch") == 0)
            batch = atoi(argv[i + 1]);
    }
    if (rounds < 1 || batch < 1 || batch > 32) {
        fprintf(stderr, "usage: moe_read_cost [--rounds N] [--batch 1..32]\n");
        return 2;
    }
    const char *drv = getenv("FLOPCOUNT_LIBCUDA");
    void *lib = drv != NULL ? dlopen(drv, RTLD_NOW | RTLD_GLOBAL) : NULL;
    void (*gpu_run)(void) = lib != NULL ? (void (*)(void))dlsym(lib, "fake_cuda_run") : NULL;
    int (*gpu_copies)(void) = lib != NULL ? (int (*)(void))dlsym(lib, "fake_cuda_copies") : NULL;
    int (*snap)(flopcount_snapshot *) =
        (int (*)(flopcount_snapshot *))dlsym(RTLD_DEFAULT, "flopcount_snapshot_get");
    if (gpu_run == NULL || gpu_copies == NULL || snap == NULL) {
        fprintf(stderr, "moe_read_cost: run under the shim with FLOPCOUNT_LIBCUDA naming "
                        "the fake driver (tests/moe/fake_libcuda_copy.c)\n");
        return 1;
    }
    static const int32_t m[GROUPS] = {2, 1, 3}, n[GROUPS] = {2, 2, 2}, k[GROUPS] = {4, 4, 4};
    static uint16_t a[GROUPS][3 * 4], b[GROUPS][4 * 2], d[GROUPS][3 * 2];
    const void *A[GROUPS], *B[GROUPS];
    void *D[GROUPS];
    for (int g = 0; g < GROUPS; g++) {
        for (int i = 0; i < 12; i++)
            a[g][i] = BF16_ONE;
        for (int i = 0; i < 8; i++)
            b[g][i] = BF16_ONE;
        A[g] = a[g], B[g] = b[g], D[g] = d[g];
    }
    cublasLtHandle_t h;
    cublasLtMatrixLayout_t al, bl, dl;
    cublasLtMatmulDesc_t op;
    float one = 1, zero = 0;
    if (cublasLtCreate(&h) != 0 ||
        cublasLtGroupedMatrixLayoutCreate(&al, CUDA_R_16BF, GROUPS, m, k, m) != 0 ||
        cublasLtGroupedMatrixLayoutCreate(&bl, CUDA_R_16BF, GROUPS, k, n, k) != 0 ||
        cublasLtGroupedMatrixLayoutCreate(&dl, CUDA_R_16BF, GROUPS, m, n, m) != 0 ||
        cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) != 0) {
        fprintf(stderr, "moe_read_cost: the grouped layouts could not be made\n");
        return 1;
    }
    double *call = malloc(sizeof(double) * (size_t)rounds);
    double *drain = malloc(sizeof(double) * (size_t)rounds);
    if (call == NULL || drain == NULL)
        return 1;
    flopcount_snapshot s;
    int failed = 0;
    for (int r = -10; r < rounds; r++) { /* 10 rounds of warm-up */
        double t0 = now_ns();
        for (int i = 0; i < batch; i++)
            failed |= cublasLtMatmul(h, op, &one, A, al, B, bl, &zero, D, dl, D, dl, NULL, NULL, 0,
                                     (cudaStream_t)0x51) != CUBLAS_STATUS_SUCCESS;
        double t1 = now_ns();
        gpu_run();
        memset(&s, 0, sizeof s);
        s.size = sizeof s;
        double t2 = now_ns();
        failed |= snap(&s) != 0;
        double t3 = now_ns();
        if (r >= 0) {
            call[r] = (t1 - t0) / batch;
            drain[r] = (t3 - t2) / batch;
        }
    }
    /* 2*(2+1+3)*2*4 = 96 FLOPs a call, counted only when read */
    unsigned long long want = 96ull * (unsigned long long)(rounds + 10) * (unsigned long long)batch;
    const char *rd = getenv("FLOPCOUNT_READ_DEVICE_SIZES");
    int on = rd != NULL && strcmp(rd, "1") == 0;
    if (failed || s.gemm_flops_lo != (on ? want : 0)) {
        fprintf(stderr, "moe_read_cost: calls %s, %llu FLOPs counted (want %llu)\n",
                failed ? "failed" : "ok", (unsigned long long)s.gemm_flops_lo, on ? want : 0);
        return 1;
    }
    printf("read %s: call median %.0f ns (p10 %.0f, p90 %.0f); drain per call median %.0f ns "
           "(p10 %.0f, p90 %.0f); %d copies\n",
           on ? "on " : "off", pct(call, rounds, 0.5), pct(call, rounds, 0.1),
           pct(call, rounds, 0.9), pct(drain, rounds, 0.5), pct(drain, rounds, 0.1),
           pct(drain, rounds, 0.9), gpu_copies());
    free(call), free(drain);
    return 0;
}
