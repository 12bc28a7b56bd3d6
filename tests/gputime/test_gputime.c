/* SPDX-License-Identifier: Apache-2.0 */
/* test_gputime.c - GPU time per iteration (shim/probe/gputime.c) against a fake
 * driver whose clock the program moves itself. A small GPT (fixture_gpt_stream.c)
 * trains STEPS steps through cublasGemmEx, cublasGemmStridedBatchedEx and
 * cublasLtMatmul of the CPU emulations, all on one stream (STREAM, set with
 * cublasSetStream_v2 and passed to cublasLtMatmul). In step i the "GPU"
 * does DUR_MS[i] ms of work: the program advances the fake clock by that
 * much at the step's second GEMM, after the first one, which is where an
 * automatic iteration starts (the event goes on after the anchor GEMM).
 *   test_gputime RUN MODE   MODE: auto | markers | nodriver | nocontext
 * auto and markers load the fake driver (FAKE_CUDA_EVENTS_LIB), as cuBLAS
 * loads the real one; nodriver does not; nocontext loads it but the fake
 * has no current context. markers calls flopcount_step() after each step.
 * tests/gputime/gputime_check.py then reads the report. */
#include <cublasLt.h>
#include <cublas_api.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_gpt_stream.h"

#define STEPS 5
#define STREAM ((cudaStream_t)(uintptr_t)0x5eed0001u) /* FAKE_CUDA_STREAM in gputime.cmake */

/* GPU work per step, ms: a slow first step, then a steady state. */
static const double DUR_MS[STEPS] = {10.0, 2.5, 4.0, 2.5, 7.0};

typedef struct ctx {
    cublasHandle_t h;
    cublasLtHandle_t lt;
    void (*advance)(double ms); /* NULL without the fake driver */
    int step, call;             /* current step, GEMMs issued in it */
} ctx;

static void die(const char *what, int status)
{
    fprintf(stderr, "test_gputime: %s failed with status %d\n", what, status);
    exit(1);
}

static cublasOperation_t op(char t)
{
    return t == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
}

static void lt_layout(cublasLtMatrixLayout_t *l, uint64_t rows, uint64_t cols)
{
    int st = cublasLtMatrixLayoutCreate(l, CUDA_R_32F, rows, cols, (int64_t)rows);
    if (st != 0)
        die("cublasLtMatrixLayoutCreate", st);
}

static void lt_gemm(ctx *c, char ta, char tb, int64_t m, int64_t n, int64_t k, const float *a,
                    const float *b, float *d)
{
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, ld;
    int st = cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (st != 0)
        die("cublasLtMatmulDescCreate", st);
    cublasOperation_t oa = op(ta), ob = op(tb);
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &oa, sizeof oa);
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &ob, sizeof ob);
    lt_layout(&la, (uint64_t)(ta == 'N' ? m : k), (uint64_t)(ta == 'N' ? k : m));
    lt_layout(&lb, (uint64_t)(tb == 'N' ? k : n), (uint64_t)(tb == 'N' ? n : k));
    lt_layout(&ld, (uint64_t)m, (uint64_t)n);
    float alpha = 1, beta = 0;
    st = cublasLtMatmul(c->lt, desc, &alpha, a, la, b, lb, &beta, d, ld, d, ld, NULL, NULL, 0, STREAM);
    if (st != 0)
        die("cublasLtMatmul", st);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulDescDestroy(desc);
}

static void gemm(void *vc, int api, char ta, char tb, int64_t m, int64_t n, int64_t k, int64_t batch,
                 const float *a, const float *b, float *d)
{
    ctx *c = vc;
    float alpha = 1, beta = 0;
    int64_t lda = ta == 'N' ? m : k, ldb = tb == 'N' ? k : n;
    int st = 0;
    if (api == GPT_LT)
        lt_gemm(c, ta, tb, m, n, k, a, b, d);
    else if (api == GPT_STRIDED)
        st = cublasGemmStridedBatchedEx(c->h, op(ta), op(tb), (int)m, (int)n, (int)k, &alpha, a, CUDA_R_32F,
                                        (int)lda, m * k, b, CUDA_R_32F, (int)ldb, k * n, &beta, d,
                                        CUDA_R_32F, (int)m, m * n, (int)batch, CUBLAS_COMPUTE_32F,
                                        CUBLAS_GEMM_DEFAULT);
    else
        st = cublasGemmEx(c->h, op(ta), op(tb), (int)m, (int)n, (int)k, &alpha, a, CUDA_R_32F, (int)lda, b,
                          CUDA_R_32F, (int)ldb, &beta, d, CUDA_R_32F, (int)m, CUBLAS_COMPUTE_32F,
                          CUBLAS_GEMM_DEFAULT);
    if (st != 0)
        die("cuBLAS GEMM", st);
    /* the step's work runs between its first GEMM and the next step's */
    if (++c->call == 2 && c->advance != NULL)
        c->advance(DUR_MS[c->step]);
}

static void load_driver(ctx *c)
{
    const char *path = getenv("FAKE_CUDA_EVENTS_LIB");
    void *h = path != NULL ? dlopen(path, RTLD_NOW | RTLD_GLOBAL) : NULL;
    if (h == NULL) {
        fprintf(stderr, "test_gputime: cannot load the fake driver (%s)\n", path ? dlerror() : "unset");
        exit(1);
    }
    c->advance = (void (*)(double))dlsym(h, "fake_cuda_advance_ms");
    if (c->advance == NULL)
        die("dlsym fake_cuda_advance_ms", -1);
}

int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "RUN") != 0) {
        fprintf(stderr, "usage: test_gputime RUN auto|markers|nodriver|nocontext\n");
        return 2;
    }
    const char *mode = argv[2];
    ctx c = {0};
    if (strcmp(mode, "nodriver") != 0)
        load_driver(&c);
    int st = cublasCreate_v2(&c.h);
    if (st != 0)
        die("cublasCreate_v2", st);
    if ((st = cublasSetStream_v2(c.h, STREAM)) != 0)
        die("cublasSetStream_v2", st);
    if ((st = cublasLtCreate(&c.lt)) != 0)
        die("cublasLtCreate", st);
    gpt_cfg cfg = {.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 2, .use_lt = 1};
    size_t n = gpt_arena_floats(&cfg);
    float *arena = calloc(n, sizeof *arena);
    gpt *g = arena ? gpt_new(&cfg, arena, n) : NULL;
    if (g == NULL)
        die("allocation", -1);
    void (*step)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "flopcount_step");
    int markers = strcmp(mode, "markers") == 0;
    if (markers && step == NULL)
        die("dlsym flopcount_step", -1);
    for (c.step = 0; c.step < STEPS; c.step++) {
        c.call = 0;
        gpt_train_step(g, gemm, &c);
        if (markers)
            step();
    }
    gpt_free(g);
    free(arena);
    cublasLtDestroy(c.lt);
    cublasDestroy_v2(c.h);
    return 0;
}
