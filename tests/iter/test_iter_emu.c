/* SPDX-License-Identifier: Apache-2.0 */
/* test_iter_emu.c - a small GPT trained through the real cuBLAS entry
 * points (cublasGemmEx, cublasGemmStridedBatchedEx, cublasLtMatmul) of the
 * CPU emulations, under the shim. Run twice by tests/iter/iter.cmake:
 *   test_iter_emu RUN MODE       the training loop (writes the report)
 *   test_iter_emu --check REPORT MODE
 * MODE: none | full | selective | markers | nvtx | nvtx-named | threads
 *   none/full/selective  recompute of both layers; an evaluation pass (one
 *                        sequence) after every other step
 *   threads              as none, each training step on a thread of its own
 *                        (its records go through another ring; calls stay
 *                        causally ordered, as with PyTorch's autograd thread)
 *   markers              flopcount_step() after every two micro-batches
 *   nvtx, nvtx-named     each step inside an NVTX range "step" (or
 *                        "train_step", with FLOPCOUNT_NVTX_STEP set so)
 * Per iteration the counts must equal Megatron's formulas for the tiny
 * configuration of REFERENCE.md (l=2 h=64 a=4 V=128 s=32 B=2): 44,040,192
 * FLOPs, 57,671,680 with full and 45,088,768 with selective recompute.
 * The model read off the report's forward profile (analysis/infer.h) must
 * be that configuration, and its formula those numbers. */
#include <cublasLt.h>
#include <cublas_api.h>
#include <dlfcn.h>
#include <json-c/json.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture_gpt_stream.h"
#include "infer.h"
#include "report_read.h"
#include "stats.h"

/* Steps a run makes: 4; 12 in the steady mode, where repeats start once
 * the first segments are learned. */
static int steps_of(const char *mode)
{
    return strncmp(mode, "steady", 6) == 0 ? 12 : 4;
}
#define STEPS ((size_t)steps_of(check_mode))

typedef struct ctx {
    cublasHandle_t h;
    cublasLtHandle_t lt;
} ctx;

static cublasOperation_t op(char t)
{
    return t == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
}

static void die(const char *what, int status)
{
    fprintf(stderr, "test_iter_emu: %s failed with status %d\n", what, status);
    exit(1);
}

/* Leading dimensions of column-major operands as stored. */
static void lds(char ta, char tb, int64_t m, int64_t n, int64_t k, int64_t *lda, int64_t *ldb)
{
    *lda = ta == 'N' ? m : k;
    *ldb = tb == 'N' ? k : n;
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
    st = cublasLtMatmul(c->lt, desc, &alpha, a, la, b, lb, &beta, d, ld, d, ld, NULL, NULL, 0, 0);
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
    int64_t lda, ldb;
    lds(ta, tb, m, n, k, &lda, &ldb);
    int st;
    if (api == GPT_LT) {
        lt_gemm(c, ta, tb, m, n, k, a, b, d);
        return;
    }
    if (api == GPT_STRIDED)
        st = cublasGemmStridedBatchedEx(c->h, op(ta), op(tb), (int)m, (int)n, (int)k, &alpha, a, CUDA_R_32F,
                                        (int)lda, m * k, b, CUDA_R_32F, (int)ldb, k * n, &beta, d,
                                        CUDA_R_32F, (int)m, m * n, (int)batch, CUBLAS_COMPUTE_32F,
                                        CUBLAS_GEMM_DEFAULT);
    else
        st = cublasGemmEx(c->h, op(ta), op(tb), (int)m, (int)n, (int)k, &alpha, a, CUDA_R_32F, (int)lda, b,
                          CUDA_R_32F, (int)ldb, &beta, d, CUDA_R_32F, (int)m, CUBLAS_COMPUTE_32F,
                          CUBLAS_GEMM_DEFAULT);
    if (st != 0)
        die(api == GPT_STRIDED ? "cublasGemmStridedBatchedEx" : "cublasGemmEx", st);
}

struct step_arg {
    gpt *g;
    ctx *c;
};

static void *step_thread(void *p)
{
    struct step_arg *a = p;
    gpt_train_step(a->g, gemm, a->c);
    return NULL;
}

static gpt_cfg config(const char *mode)
{
    gpt_cfg c = {.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 2, .use_lt = 1};
    if (strcmp(mode, "full") == 0 || strcmp(mode, "markers") == 0)
        c.recompute = GPT_FULL, c.ckpt_mask = 3;
    else if (strcmp(mode, "selective") == 0)
        c.recompute = GPT_SELECTIVE, c.ckpt_mask = 3;
    else if (strncmp(mode, "steady", 6) == 0) /* the same blocks every step */
        c.recompute = GPT_FULL, c.ckpt_mask = 3, c.lowest_block = 1;
    return c;
}

static int run(const char *mode)
{
    gpt_cfg cfg = config(mode);
    ctx c;
    int st = cublasCreate_v2(&c.h);
    if (st != 0)
        die("cublasCreate_v2", st);
    if ((st = cublasLtCreate(&c.lt)) != 0)
        die("cublasLtCreate", st);
    size_t n = gpt_arena_floats(&cfg);
    float *arena = calloc(n, sizeof *arena);
    gpt *g = arena ? gpt_new(&cfg, arena, n) : NULL;
    if (g == NULL)
        die("allocation", -1);
    /* The marker through the global namespace, as ctypes would find it. */
    void (*step)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "flopcount_step");
    int nvtx = strncmp(mode, "nvtx", 4) == 0;
    const char *range = strcmp(mode, "nvtx-named") == 0 ? "train_step" : "step";
    for (int i = 0; i < steps_of(mode); i++) {
        if (nvtx)
            nvtxRangePushA(range);
        nvtxRangePushA("forward"); /* other ranges mean nothing */
        nvtxRangePop();
        if (strcmp(mode, "threads") == 0) {
            pthread_t t;
            struct step_arg a = {g, &c};
            if (pthread_create(&t, NULL, step_thread, &a) != 0 || pthread_join(t, NULL) != 0)
                die("pthread", -1);
        } else {
            gpt_train_step(g, gemm, &c);
        }
        if (strcmp(mode, "markers") == 0) {
            gpt_train_step(g, gemm, &c); /* two micro-batches per optimizer step */
            if (step == NULL)
                die("dlsym flopcount_step", -1);
            step();
        }
        if (nvtx)
            nvtxRangePop();
        if (!nvtx && strcmp(mode, "markers") != 0 && i % 2 == 0)
            gpt_eval(g, gemm, &c, 1);
    }
    gpt_free(g);
    free(arena);
    cublasLtDestroy(c.lt);
    cublasDestroy_v2(c.h);
    return 0;
}

/* ---- --check ---- */

static const char *report_path, *check_mode;

static json_object *member(json_object *o, const char *key)
{
    json_object *v = NULL;
    assert_true(json_object_object_get_ex(o, key, &v));
    return v;
}

static uint64_t u64(json_object *o, const char *key)
{
    return (uint64_t)json_object_get_int64(member(o, key));
}

static void test_report(void **state)
{
    (void)state;
    json_object *root = json_object_from_file(report_path);
    assert_non_null(root);
    gpt_cfg cfg = config(check_mode);
    gpt_flops f;
    gpt_expected(&cfg, &f);
    int markers = strcmp(check_mode, "markers") == 0, nvtx = strncmp(check_mode, "nvtx", 4) == 0;
    uint64_t per = markers ? 2 : 1; /* micro-batches per iteration */
    /* REFERENCE.md test vectors, per micro-batch */
    uint64_t megatron = cfg.recompute == GPT_FULL ? 57671680u
                        : cfg.recompute == GPT_SELECTIVE ? 45088768u : 44040192u;
    assert_true(f.fwd + f.bwd + f.rec == megatron);
    json_object *it = member(root, "iterations");
    assert_int_equal(u64(it, "count"), STEPS);
    assert_string_equal(json_object_get_string(member(it, "detected_by")),
                        markers ? "marker" : nvtx ? "nvtx" : "auto");
    json_object *list = member(it, "list");
    assert_int_equal(json_object_array_length(list), STEPS);
    for (size_t i = 0; i < STEPS; i++) {
        json_object *e = json_object_array_get_idx(list, i);
        assert_int_equal(u64(e, "index"), i + 1);
        assert_int_equal(u64(e, "flops"), per * megatron);
        assert_int_equal(u64(e, "forward_flops"), per * f.fwd);
        assert_int_equal(u64(e, "backward_flops"), per * f.bwd);
        assert_int_equal(u64(e, "recompute_flops"), per * f.rec);
    }
    json_object *ev = member(root, "eval_passes");
    gpt_cfg one = cfg;
    one.batch = 1;
    gpt_flops fe;
    gpt_expected(&one, &fe);
    uint64_t passes = markers || nvtx ? 0 : (STEPS + 1) / 2;
    assert_int_equal(u64(ev, "count"), passes);
    assert_int_equal(u64(ev, "flops"), passes * fe.eval);
    json_object *rc = member(root, "recompute");
    assert_int_equal(u64(rc, "flops"), STEPS * per * f.rec);
    /* every step's segments repeat those of the step before, once the
     * first steps are learned: labelled as those were (the same figures) */
    json_object *det = member(it, "detector");
    uint64_t repeated = u64(det, "repeated_segments");
    if (strcmp(check_mode, "steady") == 0)
        assert_true(repeated >= STEPS / 2);
    else if (strcmp(check_mode, "steady-check") == 0) {
        /* FLOPCOUNT_DETECT_REPEAT=check: none taken, each compared, none differing */
        assert_int_equal(repeated, 0);
        assert_true(u64(det, "repeat_checks") >= STEPS / 2);
        assert_int_equal(u64(det, "repeat_mismatches"), 0);
    }
    else if (strcmp(check_mode, "threads") != 0)
        assert_true(repeated <= 1); /* each step's blocks are elsewhere */
    json_object_put(root);
}

/* The model from the report's forward profile, as 'flopcount report'
 * reads it: the steady iterations' medians give the forwards per
 * iteration and the recompute. */
static void test_inferred(void **state)
{
    (void)state;
    static fc_report r;
    char err[256];
    assert_int_equal(fc_report_load(report_path, &r, err, sizeof err), 0);
    assert_true(r.has_profile);
    assert_string_equal(r.profile.state, "steady");
    size_t from, to;
    fc_report_steady(r.iterations.list, r.iterations.n_list, &from, &to);
    assert_true(to > from && to - from <= 16);
    fc_u128 fw[16], all[16], rc[16];
    for (size_t i = from; i < to; i++) {
        fw[i - from] = r.iterations.list[i].forward_flops;
        all[i - from] = r.iterations.list[i].flops;
        rc[i - from] = r.iterations.list[i].recompute_flops;
    }
    fc_infer_iter it = {.have = 1, .ranks = 1};
    it.forward_flops = fc_median_u128(fw, to - from);
    it.flops = fc_median_u128(all, to - from);
    it.recompute_flops = fc_median_u128(rc, to - from);
    fc_fwd_profile p = {r.profile.gemms, r.profile.n_gemms, r.profile.truncated, r.profile.flops};
    fc_infer_work *w = malloc(fc_infer_work_size());
    static fc_infer_facts f;
    static fc_inferred in;
    assert_non_null(w);
    fc_infer_shapes(&p, w, &f);
    free(w);
    fc_infer_resolve(&f, NULL, &it, &in);
    if (!in.complete)
        fail_msg("not inferred: %s %s", f.why, in.missing);
    gpt_cfg cfg = config(check_mode);
    int per = strcmp(check_mode, "markers") == 0 ? 2 : 1;
    const fc_model *m = &in.model;
    assert_int_equal(m->layers, cfg.layers);
    assert_int_equal(m->hidden, cfg.hidden);
    assert_int_equal(m->heads, cfg.heads);
    assert_int_equal(fc_model_kv_heads(m), cfg.heads);
    assert_int_equal(m->head_dim, cfg.hidden / cfg.heads);
    assert_int_equal(fc_model_ffn(m), 4 * cfg.hidden);
    assert_int_equal(m->swiglu, 0);
    assert_int_equal(m->vocab, cfg.vocab);
    assert_int_equal(m->seq, cfg.seq);
    assert_int_equal(m->batch, per * cfg.batch);
    assert_int_equal(m->experts, 0);
    assert_int_equal(m->recompute, cfg.recompute == GPT_FULL        ? FC_RECOMPUTE_FULL
                                   : cfg.recompute == GPT_SELECTIVE ? FC_RECOMPUTE_SELECTIVE
                                                                    : FC_RECOMPUTE_NONE);
    assert_true(in.fits_forward && in.fits_iteration);
    fc_flops fl;
    fc_formula(m, &fl);
    uint64_t megatron = cfg.recompute == GPT_FULL ? 57671680u : cfg.recompute == GPT_SELECTIVE ? 45088768u : 44040192u;
    assert_true(fl.model_flops_per_iteration == (fc_u128)per * 44040192u);
    assert_true(fl.hardware_flops_per_iteration == (fc_u128)per * megatron);
    fc_report_free(&r);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "RUN") == 0)
        return run(argv[2]);
    if (argc != 4 || strcmp(argv[1], "--check") != 0) {
        fprintf(stderr, "usage: test_iter_emu RUN MODE | --check REPORT MODE\n");
        return 2;
    }
    report_path = argv[2];
    check_mode = argv[3];
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_report), cmocka_unit_test(test_inferred)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
