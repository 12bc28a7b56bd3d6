/* SPDX-License-Identifier: Apache-2.0 */
/* test_moe_devsizes.c - the opt-in read of grouped GEMMs' device size
 * arrays (FLOPCOUNT_READ_DEVICE_SIZES=1; shim/probe/devsizes.c,
 * shim/ring/devread.c): cuBLASLt grouped calls over the emulation, the
 * "device" a fake driver whose GPU lags (tests/moe/fake_libcuda_copy.c:
 * copies land only when the test says the GPU caught up, and there is
 * nothing to wait on).
 *
 * usage: test_moe_devsizes RUN on|off   (under the shim; FLOPCOUNT_LIBCUDA
 *                                        names the fake driver)
 *        test_moe_devsizes --check REPORT on|off
 *
 * The calls (bf16, NN, one uncounted entry "cublasLtMatmul grouped bf16"),
 * two steps marked with flopcount_step and phases declared by markers:
 *   step 1, forward:  G1  3 experts, m = {2, 1, 3}, n = 2, k = 4 on 0x51
 *           backward: G2  the same
 *           step; then a snapshot (it drains the rings on this thread)
 *           while the GPU still lags: the drain holds at G1's placeholder,
 *           so 0 FLOPs; the GPU catches up; a snapshot: 192 FLOPs. The
 *           step was fed to the detector only after the reads landed, so
 *           iteration 1 has them, split as made.
 *   step 2, forward:  G6  3 experts, m = {2, 2, 2} (balanced), n = 2, k = 4
 *                         on 0x51; the GPU catches up (G6 lands)
 *                     G3  as G1 on 0x99, which is capturing: not read
 *                     G4  1025 groups of 1x1x1: more than a slot holds
 *           backward: G5  5 experts, m = {8, 0, 16, 4, 4}, n = 32, k = 64
 *                         on 0x51, whose copy never lands
 *           step; the final report polls G5 a bounded time, gives it up.
 * Each of G1, G2, G6: 2*(2+1+3)*2*4 = 2*(2+2+2)*2*4 = 96 FLOPs, three
 * groups counted as three GEMMs (api cublasLtMatmul:grouped_read_from_
 * device); G1, G2: group work m*n*k = {16, 8, 24}, mean 16, max 24:
 * imbalance 1.5; G6: {16, 16, 16}: 1.0.
 * on:  totals 288 FLOPs in 9 calls; iteration 1 forward 96, backward 96,
 *      sure, grouped_imbalance calls 2, max = mean = 1.5; iteration 2
 *      forward 96, backward 0 (G5 missing), ambiguous for a read that did
 *      not land, grouped_imbalance calls 1, max = mean = 1.0 (G5, never
 *      read, has none); read_from_device: calls 3, counted 3, late 0,
 *      FLOPs 288, groups 9, rows 1..3, imbalance max 1.5, mean
 *      (1.5 + 1.5 + 1) / 3 = 4/3; forward_profile.grouped_experts has the
 *      profiled forward's (iteration 2's) one grouped call, G6,
 *      pending 1 (G5), not read: capturing 1, too_many_groups 1; 6 calls
 *      in the entry; 4 x 3 copies queued (G1, G2, G6, G5), one pinned
 *      allocation.
 * off: 0 FLOPs counted, no read_from_device object, no copy, no pinned
 *      memory. */
#include <cublasLt.h>
#include <dlfcn.h>
#include <flopcount.h>
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

typedef struct markers {
    void (*step)(void), (*fwd)(void), (*bwd)(void);
    int (*snap)(flopcount_snapshot *);
} markers;

/* The counted FLOPs now (the snapshot drains the rings first, on this
 * thread); 0 when they are as wanted. */
static int snapshot_is(const markers *mk, uint64_t flops, const char *when)
{
    flopcount_snapshot s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    if (mk->snap(&s) != 0 || s.gemm_flops_lo != flops || s.gemm_flops_hi != 0) {
        fprintf(stderr, "test_moe_devsizes: %s: %llu FLOPs (want %llu)\n", when,
                (unsigned long long)s.gemm_flops_lo, (unsigned long long)flops);
        return 1;
    }
    return 0;
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
    /* the shim's markers through the global namespace, as ctypes finds them */
    markers mk = {(void (*)(void))dlsym(RTLD_DEFAULT, "flopcount_step"),
                  (void (*)(void))dlsym(RTLD_DEFAULT, "flopcount_forward_begin"),
                  (void (*)(void))dlsym(RTLD_DEFAULT, "flopcount_backward_begin"),
                  (int (*)(flopcount_snapshot *))dlsym(RTLD_DEFAULT, "flopcount_snapshot_get")};
    cublasLtHandle_t h;
    if (gpu_run == NULL || gpu_copies == NULL || gpu_allocs == NULL || mk.step == NULL ||
        mk.fwd == NULL || mk.bwd == NULL || mk.snap == NULL || cublasLtCreate(&h) != 0)
        return 1;
    int on = strcmp(mode, "on") == 0;
    static const int32_t m3[3] = {2, 1, 3}, m5[5] = {8, 0, 16, 4, 4}, even[3] = {2, 2, 2};
    static int32_t ones[1025];
    for (int i = 0; i < 1025; i++)
        ones[i] = 1;
    mk.fwd();
    int bad = grouped(h, 3, m3, 2, 4, S_PLAIN);
    mk.bwd();
    bad |= grouped(h, 3, m3, 2, 4, S_PLAIN);
    mk.step();
    bad |= snapshot_is(&mk, 0, "before the GPU caught up");
    gpu_run();
    bad |= snapshot_is(&mk, on ? 192 : 0, "after the GPU caught up");
    mk.fwd();
    bad |= grouped(h, 3, even, 2, 4, S_PLAIN);
    gpu_run();
    bad |= grouped(h, 3, m3, 2, 4, S_CAPTURING);
    bad |= grouped(h, 1025, ones, 1, 1, S_PLAIN);
    mk.bwd();
    bad |= grouped(h, 5, m5, 32, 64, S_PLAIN); /* its copy never lands */
    mk.step();
    int want_copies = on ? 12 : 0, want_allocs = on ? 1 : 0;
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

static int near(double a, double b)
{
    return a > b - 1e-9 && a < b + 1e-9;
}

/* An iteration's grouped_imbalance: calls, max, mean. */
static int load_is(json_object *it, int64_t calls, double max, double mean)
{
    json_object *g = get(it, "grouped_imbalance");
    return num(g, "calls") == calls && near(dbl(g, "max"), max) && near(dbl(g, "mean"), mean);
}

static int check(const char *path, const char *mode)
{
    json_object *root = json_object_from_file(path), *entry = NULL, *unc = get(root, "uncounted");
    for (size_t i = 0; unc != NULL && i < json_object_array_length(unc); i++) {
        json_object *e = json_object_array_get_idx(unc, i);
        if (strcmp(json_object_get_string(get(e, "name")), "cublasLtMatmul grouped bf16") == 0)
            entry = e;
    }
    if (entry == NULL || num(entry, "calls") != 6 || num(entry, "failed_calls") != 0) {
        fprintf(stderr, "test_moe_devsizes: no entry with 6 calls in %s\n", path);
        json_object_put(root);
        return 1;
    }
    json_object *r = get(entry, "read_from_device"), *nr = get(r, "not_read");
    json_object *totals = get(root, "totals");
    if (strcmp(mode, "off") == 0) {
        int bad = r != NULL || num(totals, "gemm_flops") != 0;
        if (bad)
            fprintf(stderr, "test_moe_devsizes: read_from_device or FLOPs without the option\n");
        json_object_put(root);
        return bad;
    }
    int bad = num(r, "calls") != 3 || num(r, "counted_calls") != 3 || num(r, "late_calls") != 0 ||
              num(r, "flops") != 288 || num(r, "groups") != 9 ||
              num(r, "group_rows_min") != 1 || num(r, "group_rows_max") != 3 ||
              !near(dbl(r, "imbalance_mean"), 4.0 / 3.0) || dbl(r, "imbalance_max") != 1.5 ||
              num(r, "pending_calls") != 1 || num(nr, "capturing") != 1 ||
              num(nr, "too_many_groups") != 1 || num(nr, "busy") != 0 ||
              num(nr, "no_driver") != 0 || num(nr, "copy_failed") != 0 ||
              num(nr, "no_arrays") != 0;
    if (bad)
        fprintf(stderr, "test_moe_devsizes: read_from_device %s\n",
                r != NULL ? json_object_to_json_string(r) : "missing");
    /* the read calls counted: in the totals, by their own api name */
    json_object *api = get(get(root, "by_api"), "cublasLtMatmul:grouped_read_from_device");
    if (num(totals, "gemm_flops") != 288 || num(totals, "gemm_calls") != 9 ||
        num(api, "flops") != 288 || num(api, "calls") != 9) {
        fprintf(stderr, "test_moe_devsizes: totals %s\n", json_object_to_json_string(totals));
        bad = 1;
    }
    /* ... and in the iterations and phases they were made in */
    json_object *it = get(root, "iterations"), *list = get(it, "list");
    json_object *i1 = list != NULL ? json_object_array_get_idx(list, 0) : NULL;
    json_object *i2 = list != NULL ? json_object_array_get_idx(list, 1) : NULL;
    json_object *why = get(i2, "ambiguous_reason");
    if (num(it, "count") != 2 || strcmp(json_object_get_string(get(it, "detected_by")), "marker") ||
        num(i1, "forward_flops") != 96 || num(i1, "backward_flops") != 96 ||
        json_object_get_boolean(get(i1, "ambiguous")) || num(i2, "forward_flops") != 96 ||
        num(i2, "backward_flops") != 0 || !json_object_get_boolean(get(i2, "ambiguous")) ||
        why == NULL || strstr(json_object_get_string(why), "did not land in time") == NULL ||
        !load_is(i1, 2, 1.5, 1.5) || !load_is(i2, 1, 1.0, 1.0)) {
        fprintf(stderr, "test_moe_devsizes: iterations %s\n", json_object_to_json_string(it));
        bad = 1;
    }
    /* the read groups reach the experts' reader: the profiled forward
     * (iteration 2's) holds G6, one grouped call of one shape */
    json_object *ge = get(get(root, "forward_profile"), "grouped_experts");
    if (num(ge, "calls") != 1) {
        fprintf(stderr, "test_moe_devsizes: grouped_experts %s\n",
                ge != NULL ? json_object_to_json_string(ge) : "missing");
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
