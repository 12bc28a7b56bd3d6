/* SPDX-License-Identifier: Apache-2.0 */
/* test_moe_split.c - an MoE expert layer trained through cuBLAS's grouped
 * GEMM (cublasSgemmGroupedBatched over the CPU emulation): every expert
 * GEMM counted exactly, per group, and split into forward, backward and
 * recompute like any GEMM, the phases named by plain NVTX ranges
 * ("forward", "backward", a forward inside a backward = recompute).
 *
 * usage: test_moe_split RUN          (under the shim, NVTX_INJECTION64_PATH set)
 *        test_moe_split --check REPORT
 *
 * The layer: hidden H = 8, expert FFN width F = 12, E = 3 experts that
 * received t = {7, 5, 8} routed rows (T = 10 tokens, top-2: R = 20). One
 * grouped call per GEMM, one group per expert (group size 1):
 *   forward    up   h_e = W1_e x_e    F x t_e, k = H: 2*F*H*t_e
 *              down y_e = W2_e h_e    H x t_e, k = F: 2*H*F*t_e
 *   backward   down dh_e = W2_e^T dy_e (F x t_e, k = H), dW2_e = dy_e h_e^T
 *              (H x F, k = t_e); up: the up projection recomputed (a
 *              checkpoint: 2*F*H*t_e), dW1_e = dh_e x_e^T (F x H, k = t_e);
 *              the layer's input needs no gradient.
 * Each GEMM is 2*F*H*t_e, summed over experts 2*96*20 = 3,840 FLOPs.
 * Beside the experts, dense cublasSgemm calls on all T tokens: the router
 * (H -> E, 2*3*10*8 = 480) before them and one shared expert of width
 * FS = 16 after them (up H -> FS and down FS -> H, 2*16*10*8 = 2,560
 * each); their backward: the shared expert's dh, dW2, dW1 (3 x 2,560) and
 * the router's dW (480). Per step forward 7,680 + 5,600 = 13,280,
 * backward 11,520 + 8,160 = 19,680, recompute 3,840; 25 GEMM records
 * (18 groups + 7 dense); six steps (weights are confirmed after three),
 * flopcount_step() after each.
 *
 * The experts read off the grouped calls (forward_profile.grouped_experts,
 * by hand): 3 experts (the down projection's groups, and the router's
 * width), expert FFN width 12 (its input), not gated, tokens 10 (the
 * rows of the router and the shared up projection), top-k 20 / 10 = 2,
 * one shared expert of width 16; one MoE layer, group rows 5..8, load
 * imbalance max rows / mean rows = 8 / (20 / 3) = 1.2. Per iteration
 * (iterations.list[].grouped_imbalance): its 6 grouped calls, each one's
 * largest group work over the mean 1.2 (work is t_e times a constant). */
#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <nvtx3/nvToolsExt.h>

enum { H = 8, F = 12, E = 3, STEPS = 6, MAXT = 8, T = 10, FS = 16 };
static const int tokens[E] = {7, 5, 8};

/* Per expert: weights, activations, gradients (F*H >= H*MAXT, F*MAXT). */
#define BUF (F * MAXT)
static float *w1[E], *w2[E], *x[E], *h[E], *y[E], *dy[E], *dh[E], *dw1[E], *dw2[E], *hr[E];

/* On the null GPU (FLOPCOUNT_TEST_NULLGPU: the twin over the real cuBLAS)
 * the operands and the arrays of their pointers must be device memory:
 * the driver's, whose addresses are host addresses there. Elsewhere the
 * heap (the emulation). Zeroed, never freed. */
static void *dmem(size_t n)
{
    const char *v = getenv("FLOPCOUNT_TEST_NULLGPU");
    if (v == NULL || *v == '\0' || strcmp(v, "0") == 0)
        return calloc(1, n);
    static int (*alloc)(unsigned long long *, size_t);
    if (alloc == NULL) {
        void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        int (*init)(unsigned) = drv ? (int (*)(unsigned))dlsym(drv, "cuInit") : NULL;
        int (*get)(int *, int) = drv ? (int (*)(int *, int))dlsym(drv, "cuDeviceGet") : NULL;
        int (*retain)(void **, int) =
            drv ? (int (*)(void **, int))dlsym(drv, "cuDevicePrimaryCtxRetain") : NULL;
        int (*set)(void *) = drv ? (int (*)(void *))dlsym(drv, "cuCtxSetCurrent") : NULL;
        int dev = 0;
        void *ctx = NULL;
        if (!init || !get || !retain || !set || init(0) || get(&dev, 0) || retain(&ctx, dev) ||
            set(ctx))
            return NULL;
        alloc = (int (*)(unsigned long long *, size_t))dlsym(drv, "cuMemAlloc_v2");
        if (alloc == NULL)
            return NULL;
    }
    unsigned long long p = 0;
    if (alloc(&p, n) != 0)
        return NULL;
    memset((void *)(uintptr_t)p, 0, n);
    return (void *)(uintptr_t)p;
}

/* One grouped call: per expert, C = op(A) op(B) with m and k fixed and n
 * the expert's tokens (TOK_N), or m and n fixed and k its tokens (TOK_K). */
enum { TOK_N, TOK_K };
static int call(cublasHandle_t hd, char ta, char tb, int m, int n, int k, int which,
                const float *const A[E], const float *const B[E], float *const C[E])
{
    cublasOperation_t opa[E], opb[E];
    int mm[E], nn[E], kk[E], lda[E], ldb[E], ldc[E], size[E];
    float alpha[E], beta[E];
    for (int e = 0; e < E; e++) {
        opa[e] = ta == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N;
        opb[e] = tb == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N;
        mm[e] = m;
        nn[e] = which == TOK_N ? tokens[e] : n;
        kk[e] = which == TOK_K ? tokens[e] : k;
        lda[e] = ta == 'T' ? kk[e] : mm[e];
        ldb[e] = tb == 'T' ? nn[e] : kk[e];
        ldc[e] = mm[e];
        size[e] = 1;
        alpha[e] = 1, beta[e] = 0;
    }
    return cublasSgemmGroupedBatched(hd, opa, opb, mm, nn, kk, alpha, A, lda, B, ldb, beta, C, ldc,
                                     E, size) != CUBLAS_STATUS_SUCCESS;
}

/* The arrays of per-expert pointers cuBLAS reads (device memory). */
static float **W1, **W2, **X, **Hc, **Yo, **DY, **DH, **DW1, **DW2, **HR;

static int setup(void)
{
    float **bufs[] = {w1, w2, x, h, y, dy, dh, dw1, dw2, hr};
    float ***ptrs[] = {&W1, &W2, &X, &Hc, &Yo, &DY, &DH, &DW1, &DW2, &HR};
    for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++) {
        if ((*ptrs[b] = dmem(sizeof(float *) * E)) == NULL)
            return -1;
        for (int e = 0; e < E; e++)
            if ((bufs[b][e] = (*ptrs[b])[e] = dmem(sizeof(float) * BUF)) == NULL)
                return -1;
    }
    return 0;
}

/* The dense side: router and shared expert (DBUF floats each). */
#define DBUF (FS * T)
enum { D_WR, D_WS1, D_WS2, D_X, D_L, D_HS, D_YS, D_DYS, D_DHS, D_DL, D_DWR, D_DWS1, D_DWS2, D_N };
static float *dn[D_N];

static int dense_setup(void)
{
    for (int i = 0; i < D_N; i++)
        if ((dn[i] = dmem(sizeof(float) * DBUF)) == NULL)
            return -1;
    return 0;
}

/* C (m x n, ldc m) = op(A) op(B), k inner; lda/ldb as stored. */
static int dense(cublasHandle_t hd, char ta, char tb, int m, int n, int k, int a, int lda, int b,
                 int ldb, int c)
{
    const float one = 1, zero = 0;
    return cublasSgemm(hd, ta == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N,
                       tb == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &one, dn[a], lda, dn[b], ldb,
                       &zero, dn[c], m) != CUBLAS_STATUS_SUCCESS;
}

static int step(cublasHandle_t hd)
{
    const float *const *cW1 = (const float *const *)W1, *const *cW2 = (const float *const *)W2,
                       *const *cX = (const float *const *)X, *const *cH = (const float *const *)Hc,
                       *const *cDY = (const float *const *)DY,
                       *const *cDH = (const float *const *)DH;
    float *const *Ho = Hc, *const *DHo = DH;
    int bad = 0;
    nvtxRangePushA("forward");
    bad |= dense(hd, 'N', 'N', E, T, H, D_WR, E, D_X, H, D_L);      /* router logits */
    bad |= call(hd, 'N', 'N', F, 0, H, TOK_N, cW1, cX, Ho);         /* h = W1 x */
    bad |= call(hd, 'N', 'N', H, 0, F, TOK_N, cW2, cH, Yo);         /* y = W2 h */
    bad |= dense(hd, 'N', 'N', FS, T, H, D_WS1, FS, D_X, H, D_HS);  /* shared up */
    bad |= dense(hd, 'N', 'N', H, T, FS, D_WS2, H, D_HS, FS, D_YS); /* shared down */
    nvtxRangePop();
    nvtxRangePushA("backward");
    bad |= dense(hd, 'T', 'N', FS, T, H, D_WS2, H, D_DYS, H, D_DHS);  /* shared dh */
    bad |= dense(hd, 'N', 'T', H, FS, T, D_DYS, H, D_HS, FS, D_DWS2); /* shared dW2 */
    bad |= dense(hd, 'N', 'T', FS, H, T, D_DHS, FS, D_X, H, D_DWS1);  /* shared dW1 */
    bad |= call(hd, 'T', 'N', F, 0, H, TOK_N, cW2, cDY, DHo);         /* dh = W2^T dy */
    bad |= call(hd, 'N', 'T', H, F, 0, TOK_K, cDY, cH, DW2);          /* dW2 = dy h^T */
    nvtxRangePushA("forward"); /* the checkpointed up projection */
    bad |= call(hd, 'N', 'N', F, 0, H, TOK_N, cW1, cX, HR);
    nvtxRangePop();
    bad |= call(hd, 'N', 'T', F, H, 0, TOK_K, cDH, cX, DW1);     /* dW1 = dh x^T */
    bad |= dense(hd, 'N', 'T', E, H, T, D_DL, E, D_X, H, D_DWR); /* router dW */
    nvtxRangePop();
    return bad;
}

static int run(void)
{
    void (*mark)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "flopcount_step");
    cublasHandle_t hd;
    if (mark == NULL || cublasCreate(&hd) != CUBLAS_STATUS_SUCCESS || setup() != 0 ||
        dense_setup() != 0) {
        fprintf(stderr, "test_moe_split: no flopcount_step, cuBLAS handle or memory\n");
        return 1;
    }
    for (int e = 0; e < E; e++)
        for (int i = 0; i < F * H; i++)
            w1[e][i] = w2[e][i] = (float)((i + e) % 5) * 0.1f;
    for (int s = 0; s < STEPS; s++) {
        if (step(hd)) {
            fprintf(stderr, "test_moe_split: a grouped call failed\n");
            return 1;
        }
        mark();
    }
    cublasDestroy(hd);
    return 0;
}

static int64_t num(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : -1;
}

/* forward_profile.grouped_experts, worked out by hand (the header). */
static int check_val(json_object *ge, const char *key, int64_t want, const char *status)
{
    json_object *v, *st;
    if (!json_object_object_get_ex(ge, key, &v) || !json_object_object_get_ex(v, "status", &st) ||
        num(v, "value") != want || strcmp(json_object_get_string(st), status) != 0) {
        fprintf(stderr, "grouped_experts.%s: %s, want %lld %s\n", key,
                v ? json_object_to_json_string(v) : "absent", (long long)want, status);
        return 1;
    }
    return 0;
}

static int check_experts(json_object *root)
{
    json_object *fp, *ge, *imb, *v;
    if (!json_object_object_get_ex(root, "forward_profile", &fp) ||
        !json_object_object_get_ex(fp, "grouped_experts", &ge) ||
        !json_object_object_get_ex(ge, "imbalance", &imb)) {
        fprintf(stderr, "test_moe_split: no forward_profile.grouped_experts.imbalance\n");
        return 1;
    }
    int bad = check_val(ge, "experts", E, "exact") | check_val(ge, "moe_ffn", F, "exact") |
              check_val(ge, "tokens", T, "exact") | check_val(ge, "top_k", 2, "exact") |
              check_val(ge, "shared_experts", 1, "exact") |
              check_val(ge, "shared_ffn", FS, "exact");
    double ratio = json_object_object_get_ex(imb, "max", &v) ? json_object_get_double(v) : -1;
    if (num(ge, "moe_layers") != 1 || num(ge, "calls") != 2 || num(ge, "hidden") != H ||
        num(imb, "routed_rows") != 20 || num(imb, "group_rows_min") != 5 ||
        num(imb, "group_rows_max") != 8 || ratio < 1.2 - 1e-9 || ratio > 1.2 + 1e-9) {
        fprintf(stderr, "grouped_experts: %s\n", json_object_to_json_string(ge));
        bad = 1;
    }
    return bad;
}

static int check(const char *path)
{
    json_object *root = json_object_from_file(path), *it, *list, *totals;
    if (root == NULL || !json_object_object_get_ex(root, "iterations", &it) ||
        !json_object_object_get_ex(it, "list", &list) ||
        !json_object_object_get_ex(root, "totals", &totals)) {
        fprintf(stderr, "test_moe_split: %s: no iterations or totals\n", path);
        return 1;
    }
    int bad = 0;
    /* 6 grouped calls a step, one record per expert: 18 a step, and 7 dense */
    if (num(it, "count") != STEPS || num(totals, "gemm_flops") != STEPS * 36800 ||
        num(totals, "gemm_calls") != STEPS * (6 * E + 7)) {
        fprintf(stderr, "iterations %lld, FLOPs %lld, GEMMs %lld\n", (long long)num(it, "count"),
                (long long)num(totals, "gemm_flops"), (long long)num(totals, "gemm_calls"));
        bad = 1;
    }
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        json_object *e = json_object_array_get_idx(list, i);
        if (num(e, "forward_flops") != 13280 || num(e, "backward_flops") != 19680 ||
            num(e, "recompute_flops") != 3840) {
            fprintf(stderr, "iteration %zu: forward %lld backward %lld recompute %lld\n", i + 1,
                    (long long)num(e, "forward_flops"), (long long)num(e, "backward_flops"),
                    (long long)num(e, "recompute_flops"));
            bad = 1;
        }
        /* the experts' load: each of the step's 6 grouped calls has the
         * work of expert e proportional to t_e, so max / mean = 8 / (20 / 3)
         * = 1.2 for every call */
        json_object *g = NULL;
        json_object_object_get_ex(e, "grouped_imbalance", &g);
        double gmax = g != NULL ? json_object_get_double(json_object_object_get(g, "max")) : 0;
        double gmean = g != NULL ? json_object_get_double(json_object_object_get(g, "mean")) : 0;
        if (num(g, "calls") != 6 || gmax < 1.2 - 1e-9 || gmax > 1.2 + 1e-9 ||
            gmean < 1.2 - 1e-9 || gmean > 1.2 + 1e-9) {
            fprintf(stderr, "iteration %zu: grouped_imbalance %s\n", i + 1,
                    g != NULL ? json_object_to_json_string(g) : "missing");
            bad = 1;
        }
    }
    bad |= check_experts(root);
    json_object_put(root);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "RUN") == 0)
        return run();
    if (argc == 3 && strcmp(argv[1], "--check") == 0)
        return check(argv[2]);
    fprintf(stderr, "usage: test_moe_split RUN | --check REPORT\n");
    return 2;
}
