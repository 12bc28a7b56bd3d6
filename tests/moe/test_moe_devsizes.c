/* SPDX-License-Identifier: Apache-2.0 */
/* test_moe_devsizes.c - the opt-in read of grouped GEMMs' device size
 * arrays (FLOPCOUNT_READ_DEVICE_SIZES=1; shim/probe/devsizes.c): cuBLASLt
 * grouped calls over the emulation, the "device" a fake driver whose GPU
 * lags (tests/moe/fake_libcuda_copy.c: copies land only when the test says
 * the GPU caught up, and there is nothing to wait on).
 *
 * usage: test_moe_devsizes RUN on|off   (under the shim; FLOPCOUNT_LIBCUDA
 *                                        names the fake driver)
 *        test_moe_devsizes --check REPORT on|off
 *
 * The calls (bf16, NN, one uncounted entry "cublasLtMatmul grouped bf16"):
 *   G1, G2  3 experts, m = {2, 1, 3}, n = 2, k = 4 on stream 0x51; then the
 *           GPU catches up. Each: 2*(2+1+3)*2*4 = 96 FLOPs; group work
 *           m*n*k = {16, 8, 24}, mean 16, max 24: imbalance 1.5.
 *   G3      the same on stream 0x99, which is capturing: not read.
 *   G4      1025 groups of 1x1x1: more than a slot holds, not read.
 *   G5      5 experts, m = {8, 0, 16, 4, 4}, n = 32, k = 64 on 0x51, whose
 *           copy has not landed when the report is written: pending.
 * on:  read_from_device: calls 2, FLOPs 192, groups 6, rows 1..3,
 *      imbalance mean = max = 1.5, pending 1, not read: capturing 1,
 *      too_many_groups 1; 5 calls; 3 x 3 copies were queued (G1, G2, G5),
 *      one pinned allocation.
 * off: no read_from_device object, no copy, no pinned memory. */
#include <cublasLt.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#if CUBLAS_VERSION < 130200
cublasStatus_t cublasLtGroupedMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout,
                                                 cudaDataType type, int groupCount,
                                                 const void *rows_array, const void *cols_array,
                                                 const void *ld_array);
#endif

#define BF16_ONE 0x3f80u
#define S_PLAIN ((cudaStream_t)0x51)
#define S_CAPTURING ((cudaStream_t)0x99)

static void (*gpu_run)(void);
static int (*gpu_copies)(void);
static int (*gpu_allocs)(void);

/* One grouped bf16 NN call of `groups` experts with rows m[g], columns n,
 * inner k, all ones; 0 when it succeeded and every D_g is k. */
static int grouped(cublasLtHandle_t h, int groups, const int32_t *m, int32_t n, int32_t k,
                   cudaStream_t stream)
{
    int32_t *nn = malloc(sizeof(int32_t) * (size_t)groups), *kk = malloc(sizeof(int32_t) * (size_t)groups);
    int32_t *ld = malloc(sizeof(int32_t) * (size_t)groups);
    const void **A = malloc(sizeof(void *) * (size_t)groups), **B = malloc(sizeof(void *) * (size_t)groups);
    void **D = malloc(sizeof(void *) * (size_t)groups);
    int bad = 0;
    for (int g = 0; g < groups; g++) {
        nn[g] = n, kk[g] = k, ld[g] = m[g] > 0 ? m[g] : 1;
        uint16_t *a = malloc(sizeof(uint16_t) * (size_t)(ld[g] * k)),
                 *b = malloc(sizeof(uint16_t) * (size_t)(k * n));
        for (int i = 0; i < ld[g] * k; i++)
            a[i] = BF16_ONE;
        for (int i = 0; i < k * n; i++)
            b[i] = BF16_ONE;
        A[g] = a, B[g] = b;
        D[g] = calloc((size_t)(ld[g] * n), sizeof(uint16_t));
    }
    cublasLtMatrixLayout_t al, bl, dl;
    cublasLtMatmulDesc_t op;
    float one = 1, zero = 0;
    bad |= cublasLtGroupedMatrixLayoutCreate(&al, CUDA_R_16BF, groups, m, kk, ld) != 0;
    bad |= cublasLtGroupedMatrixLayoutCreate(&bl, CUDA_R_16BF, groups, kk, nn, kk) != 0;
    bad |= cublasLtGroupedMatrixLayoutCreate(&dl, CUDA_R_16BF, groups, m, nn, ld) != 0;
    bad |= cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F) != 0;
    if (!bad)
        bad |= cublasLtMatmul(h, op, &one, A, al, B, bl, &zero, D, dl, D, dl, NULL, NULL, 0,
                              stream) != CUBLAS_STATUS_SUCCESS;
    for (int g = 0; g < groups && !bad; g++)
        for (int i = 0; i < m[g] * n; i++)
            bad |= ((uint16_t *)D[g])[i] != (k == 4 ? 0x4080 : k == 64 ? 0x4280 : 0x3f80);
    /* the arrays stay alive (the fake GPU reads them when it catches up) */
    return bad;
}

static int run(const char *mode)
{
    const char *drv = getenv("FLOPCOUNT_LIBCUDA");
    void *lib = drv != NULL ? dlopen(drv, RTLD_NOW | RTLD_GLOBAL) : NULL;
    if (lib == NULL) {
        fprintf(stderr, "test_moe_devsizes: no fake driver (FLOPCOUNT_LIBCUDA)\n");
        return 1;
    }
    gpu_run = (void (*)(void))dlsym(lib, "fake_cuda_run");
    gpu_copies = (int (*)(void))dlsym(lib, "fake_cuda_copies");
    gpu_allocs = (int (*)(void))dlsym(lib, "fake_cuda_host_allocs");
    cublasLtHandle_t h;
    if (gpu_run == NULL || gpu_copies == NULL || gpu_allocs == NULL || cublasLtCreate(&h) != 0)
        return 1;
    static const int32_t m3[3] = {2, 1, 3}, m5[5] = {8, 0, 16, 4, 4};
    static int32_t ones[1025];
    for (int i = 0; i < 1025; i++)
        ones[i] = 1;
    int bad = grouped(h, 3, m3, 2, 4, S_PLAIN) | grouped(h, 3, m3, 2, 4, S_PLAIN);
    gpu_run();
    bad |= grouped(h, 3, m3, 2, 4, S_CAPTURING);
    bad |= grouped(h, 1025, ones, 1, 1, S_PLAIN);
    bad |= grouped(h, 5, m5, 32, 64, S_PLAIN); /* its copy never lands */
    int on = strcmp(mode, "on") == 0;
    int want_copies = on ? 9 : 0, want_allocs = on ? 1 : 0;
    if (bad || gpu_copies() != want_copies || gpu_allocs() != want_allocs) {
        fprintf(stderr, "test_moe_devsizes: calls %s, %d copies (want %d), %d pinned (want %d)\n",
                bad ? "failed" : "ok", gpu_copies(), want_copies, gpu_allocs(), want_allocs);
        return 1;
    }
    return 0;
}

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    return o != NULL && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static int64_t num(json_object *o, const char *key)
{
    json_object *v = get(o, key);
    return v != NULL ? json_object_get_int64(v) : -1;
}

static double dbl(json_object *o, const char *key)
{
    json_object *v = get(o, key);
    return v != NULL ? json_object_get_double(v) : -1;
}

static int check(const char *path, const char *mode)
{
    json_object *root = json_object_from_file(path), *entry = NULL, *unc = get(root, "uncounted");
    for (size_t i = 0; unc != NULL && i < json_object_array_length(unc); i++) {
        json_object *e = json_object_array_get_idx(unc, i);
        if (strcmp(json_object_get_string(get(e, "name")), "cublasLtMatmul grouped bf16") == 0)
            entry = e;
    }
    if (entry == NULL || num(entry, "calls") != 5 || num(entry, "failed_calls") != 0) {
        fprintf(stderr, "test_moe_devsizes: no entry with 5 calls in %s\n", path);
        json_object_put(root);
        return 1;
    }
    json_object *r = get(entry, "read_from_device"), *nr = get(r, "not_read");
    if (strcmp(mode, "off") == 0) {
        if (r != NULL) {
            fprintf(stderr, "test_moe_devsizes: read_from_device without the option\n");
            json_object_put(root);
            return 1;
        }
        json_object_put(root);
        return 0;
    }
    int bad = num(r, "calls") != 2 || num(r, "flops") != 192 || num(r, "groups") != 6 ||
              num(r, "group_rows_min") != 1 || num(r, "group_rows_max") != 3 ||
              dbl(r, "imbalance_mean") != 1.5 || dbl(r, "imbalance_max") != 1.5 ||
              num(r, "pending_calls") != 1 || num(nr, "capturing") != 1 ||
              num(nr, "too_many_groups") != 1 || num(nr, "busy") != 0 ||
              num(nr, "no_driver") != 0 || num(nr, "copy_failed") != 0 ||
              num(nr, "no_arrays") != 0;
    if (bad)
        fprintf(stderr, "test_moe_devsizes: read_from_device %s\n",
                r != NULL ? json_object_to_json_string(r) : "missing");
    /* nothing of it in the counted totals */
    if (num(get(root, "totals"), "gemm_flops") != 0) {
        fprintf(stderr, "test_moe_devsizes: counted FLOPs %lld, want 0\n",
                (long long)num(get(root, "totals"), "gemm_flops"));
        bad = 1;
    }
    json_object_put(root);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "RUN") == 0)
        return run(argv[2]);
    if (argc == 4 && strcmp(argv[1], "--check") == 0)
        return check(argv[2], argv[3]);
    fprintf(stderr, "usage: test_moe_devsizes RUN on|off | --check REPORT on|off\n");
    return 2;
}
