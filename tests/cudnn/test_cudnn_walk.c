/* SPDX-License-Identifier: Apache-2.0 */
/* test_cudnn_walk.c - the cuDNN layer (shim/cudnn/) on its own: the call
 * sequences of sdpa_build.c replayed into it through a recorder (each
 * backend call tells the layer what the hooks would tell it after the
 * real call succeeded), then what an execute counts is compared with the
 * hand count of sdpa_build.c (pairs walked one by one) - composite
 * forward and backward, causal, bottom-right, sliding window, GQA,
 * d != d_v, padding (a bound), dropout, the unified SDPA node, a plain
 * matmul, cuDNN 9.20's band mask operation and 9.21's score modifier
 * graph of the unified node - and the defence cases: unknown types and attributes, a plan
 * whose graph was never seen, a deserialized plan, tensors destroyed
 * before the plan, 100,000 descriptors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "count/uncounted.h"
#include "cudnn/cudnn_layer.h"
#include "dtype.h"
#include "sdpa_build.h"

static fc_cudnn_exec last;
static int executes;

static cudnnStatus_t r_create(cudnnBackendDescriptorType_t t, cudnnBackendDescriptor_t *d)
{
    *d = calloc(1, 16);
    fc_cudnn_created(*d, (int)t);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t r_destroy(cudnnBackendDescriptor_t d)
{
    fc_cudnn_destroying(d);
    free(d);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t r_set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t a,
                           cudnnBackendAttributeType_t t, int64_t n, const void *el)
{
    fc_cudnn_set(d, (int)a, (int)t, n, el);
    return CUDNN_STATUS_SUCCESS;
}

/* Heuristics give one engine config (the one the caller made). */
static cudnnStatus_t r_get(cudnnBackendDescriptor_t const d, cudnnBackendAttributeName_t a,
                           cudnnBackendAttributeType_t t, int64_t req, int64_t *n, void *el)
{
    *n = a == CUDNN_ATTR_ENGINEHEUR_RESULTS ? 1 : 0;
    if (el != NULL)
        fc_cudnn_got(d, (int)a, (int)t, req, *n, el);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t r_finalize(cudnnBackendDescriptor_t d)
{
    fc_cudnn_finalized(d);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t r_execute(cudnnHandle_t h, cudnnBackendDescriptor_t p, cudnnBackendDescriptor_t v)
{
    (void)h;
    fc_cudnn_exec_of(p, v, &last);
    executes++;
    return CUDNN_STATUS_SUCCESS;
}

static const cb_api recorder = {.create = r_create,
                                .destroy = r_destroy,
                                .set = r_set,
                                .get = r_get,
                                .finalize = r_finalize,
                                .execute = r_execute};

static int setup(void **state)
{
    (void)state;
    fc_uncounted_reset();
    fc_cudnn_reset();
    return 0;
}

/* Builds s, plans and executes it once; last holds what it counts. */
static void run(const cb_sdpa *s, int keep_tensors)
{
    static cb_graph g;
    cb_init(&g, &recorder, NULL);
    g.keep_tensors = keep_tensors;
    cb_build_sdpa(&g, s);
    cb_plan(&g);
    assert_int_equal(cb_execute(&g), CUDNN_STATUS_SUCCESS);
    cb_destroy_all(&g);
}

/* What the last execute counts equals the hand count of s. */
static void expect_attention(const cb_sdpa *s, int bound)
{
    assert_int_equal(last.kind, FC_CUDNN_ATTENTION);
    const fc_attn *a = &last.attn;
    assert_int_equal(a->source, FC_ATTN_SRC_CUDNN);
    assert_int_equal(a->dir, s->bwd ? FC_ATTN_BWD : FC_ATTN_FWD);
    assert_int_equal(a->dtype, s->dt == CUDNN_DATA_BFLOAT16 ? FC_DT_BF16 : FC_DT_FP16);
    assert_int_equal(a->b, s->b);
    assert_int_equal(a->h, s->h);
    assert_int_equal(a->h_k, s->h_k);
    assert_int_equal(a->s_q, s->s_q);
    assert_int_equal(a->s_k, s->s_k);
    assert_int_equal(a->d, s->d);
    assert_int_equal(a->d_v, s->d_v);
    assert_int_equal((a->flags & FC_ATTN_BOUND) != 0, bound);
    assert_int_equal((a->flags & FC_ATTN_DROPOUT) != 0, s->dropout != 0);
    assert_int_equal((a->flags & FC_ATTN_BIAS) != 0, s->bias != 0);
    fc_attn_flops f;
    assert_int_equal(fc_attn_flops_of(a, &f), 0);
    cb_want w;
    cb_expect(s, &w);
    assert_true(f.pairs == w.pairs);
    assert_true(f.executed == w.flops);
    assert_true(f.model == w.model);
}

static void expect_uncounted(const char *name, int reason);

static const cb_sdpa base = {.b = 2, .h = 4, .h_k = 4, .s_q = 64, .s_k = 64, .d = 32, .d_v = 32,
                             .dt = CUDNN_DATA_HALF};

static void test_forward_plain(void **state)
{
    (void)state;
    cb_sdpa s = base;
    run(&s, 1);
    expect_attention(&s, 0);
    assert_int_equal(last.attn.window_left, -1);
    assert_int_equal(last.attn.window_right, -1);
}

static void test_forward_causal_gqa(void **state)
{
    (void)state;
    cb_sdpa s = {.b = 2, .h = 8, .h_k = 2, .s_q = 128, .s_k = 128, .d = 64, .d_v = 64,
                 .causal = 1, .dt = CUDNN_DATA_BFLOAT16};
    run(&s, 1);
    expect_attention(&s, 0);
    assert_int_equal(last.attn.align, FC_ATTN_TOP_LEFT);
    assert_int_equal(last.attn.window_left, -1);
    assert_int_equal(last.attn.window_right, 0);
}

static void test_backward_causal_gqa(void **state)
{
    (void)state;
    cb_sdpa s = {.b = 2, .h = 8, .h_k = 2, .s_q = 128, .s_k = 128, .d = 64, .d_v = 64,
                 .causal = 1, .bwd = 1, .dt = CUDNN_DATA_BFLOAT16};
    run(&s, 1);
    expect_attention(&s, 0);
    assert_int_equal(last.attn.window_right, 0);
}

static void test_backward_plain_mha(void **state)
{
    (void)state;
    cb_sdpa s = base;
    s.bwd = 1;
    s.d_v = 16; /* d != d_v: the five products are 3 of d and 2 of d_v */
    run(&s, 1);
    expect_attention(&s, 0);
}

static void test_bottom_right(void **state)
{
    (void)state;
    cb_sdpa s = base;
    s.s_q = 48, s.s_k = 160, s.causal = 2;
    run(&s, 1);
    expect_attention(&s, 0);
    assert_int_equal(last.attn.align, FC_ATTN_BOTTOM_RIGHT);
    assert_int_equal(last.attn.window_right, 0);
}

static void test_sliding_window(void **state)
{
    (void)state;
    cb_sdpa s = base;
    s.s_q = s.s_k = 100, s.causal = 1, s.left = 16, s.d_v = 48;
    run(&s, 1);
    expect_attention(&s, 0);
    assert_int_equal(last.attn.window_left, 15);
    assert_int_equal(last.attn.window_right, 0);
    s.causal = 2, s.s_q = 40, s.s_k = 90, s.right = 3; /* bottom-right, a right bound, a window */
    run(&s, 1);
    expect_attention(&s, 0);
    s.bwd = 1; /* the backward reads the same mask */
    run(&s, 1);
    expect_attention(&s, 0);
}

static void test_padding_is_a_bound(void **state)
{
    (void)state;
    cb_sdpa s = base;
    s.padding = 1, s.causal = 1;
    run(&s, 1);
    expect_attention(&s, 1); /* the counts at the maximum lengths, marked as a bound */
    s.causal = 2, s.s_q = 32; /* bottom-right aligned to lengths in device memory */
    run(&s, 1);
    expect_attention(&s, 1);
    assert_int_equal(last.attn.align, FC_ATTN_BOTTOM_RIGHT);
}

static void test_dropout(void **state)
{
    (void)state;
    cb_sdpa s = base;
    s.dropout = 1, s.causal = 1;
    run(&s, 1);
    expect_attention(&s, 0);
    s.bwd = 1;
    run(&s, 1);
    expect_attention(&s, 0);
}

/* A bias tensor and ALiBi on the scores: every pair still counted (with a
 * causal mask, the causal pairs), flagged as a bias. */
static void test_bias_and_alibi(void **state)
{
    (void)state;
    for (int bias = 1; bias <= 2; bias++) {
        cb_sdpa s = base;
        s.bias = bias, s.causal = 1;
        run(&s, 1);
        expect_attention(&s, 0);
        s.bwd = 1;
        run(&s, 1);
        expect_attention(&s, 0);
    }
}

static void test_unified_node(void **state)
{
    (void)state;
    cb_sdpa s = {.b = 2, .h = 8, .h_k = 2, .s_q = 100, .s_k = 300, .d = 128, .d_v = 64,
                 .unified = 1, .dt = CUDNN_DATA_BFLOAT16};
    run(&s, 1);
    expect_attention(&s, 0);
    s.padding = 1;
    run(&s, 1);
    expect_attention(&s, 1);
    s.padding = 0, s.bwd = 1; /* the backward node */
    run(&s, 1);
    expect_attention(&s, 0);
}

/* cuDNN >= 9.21 through cudnn-frontend: the causal, right-bound and
 * sliding-window masks as diagonal band mask operations (type 44, cuDNN
 * 9.20) in the composite forward and backward; the same pairs as the
 * pointwise masks, by hand. */
static void test_band_op_composite(void **state)
{
    (void)state;
    for (int bwd = 0; bwd <= 1; bwd++) {
        cb_sdpa s = {.b = 2, .h = 8, .h_k = 2, .s_q = 128, .s_k = 128, .d = 64, .d_v = 64,
                     .causal = 1, .band_op = 1, .bwd = bwd, .dt = CUDNN_DATA_BFLOAT16};
        run(&s, 1);
        expect_attention(&s, 0);
        assert_int_equal(last.attn.align, FC_ATTN_TOP_LEFT);
        assert_int_equal(last.attn.window_left, -1);
        assert_int_equal(last.attn.window_right, 0);
        s.s_q = 48, s.s_k = 160, s.causal = 2; /* bottom-right: the lengths as host scalars */
        run(&s, 1);
        expect_attention(&s, 0);
        assert_int_equal(last.attn.align, FC_ATTN_BOTTOM_RIGHT);
        assert_int_equal(last.attn.window_right, 0);
        s.s_q = s.s_k = 100, s.causal = 1, s.left = 16; /* a window of 16 keys */
        run(&s, 1);
        expect_attention(&s, 0);
        assert_int_equal(last.attn.window_left, 15);
        assert_int_equal(last.attn.window_right, 0);
        s.causal = 2, s.s_q = 40, s.s_k = 90, s.right = 3; /* bottom-right, right bound, window */
        run(&s, 1);
        expect_attention(&s, 0);
        s.padding = 1; /* lengths in device memory: the count at the maxima, a bound */
        run(&s, 1);
        expect_attention(&s, 1);
    }
}

/* cuDNN 9.21's unified SDPA forward node with its masks in a score
 * modifier graph (SDPA_FWD_SUBGRAPH: PyTorch 2.15's causal cuDNN SDPA). */
static void test_band_op_unified(void **state)
{
    (void)state;
    cb_sdpa s = {.b = 2, .h = 16, .h_k = 4, .s_q = 128, .s_k = 128, .d = 64, .d_v = 64,
                 .unified = 1, .band_op = 1, .causal = 1, .dt = CUDNN_DATA_BFLOAT16};
    run(&s, 1);
    expect_attention(&s, 0);
    assert_int_equal(last.attn.align, FC_ATTN_TOP_LEFT);
    assert_int_equal(last.attn.window_right, 0);
    assert_int_equal(last.attn.window_left, -1);
    cb_want full, causal; /* causal: 128 * 129 / 2 pairs of 128^2 per head */
    cb_expect(&s, &causal);
    assert_true(causal.pairs == 2u * 16u * (128u * 129u / 2u));
    s.causal = 0;
    cb_expect(&s, &full);
    assert_true(full.pairs == 2u * 16u * 128u * 128u);
    s.causal = 2, s.s_q = 100, s.s_k = 300, s.d = 128; /* bottom-right */
    run(&s, 1);
    expect_attention(&s, 0);
    assert_int_equal(last.attn.align, FC_ATTN_BOTTOM_RIGHT);
    s.causal = 1, s.s_q = s.s_k = 200, s.left = 32; /* sliding window */
    run(&s, 1);
    expect_attention(&s, 0);
    assert_int_equal(last.attn.window_left, 31);
    s.left = 0, s.bias = 1; /* a bias in the modifier too */
    run(&s, 1);
    expect_attention(&s, 0);
    s.bias = 0, s.causal = 2, s.padding = 1; /* lengths in device memory */
    run(&s, 1);
    expect_attention(&s, 1);
}

/* What the walk does not read is refused, with the reason. */
static void test_band_op_refused(void **state)
{
    (void)state;
    for (int unified = 0; unified <= 1; unified++) {
        cb_sdpa s = {.b = 2, .h = 4, .h_k = 4, .s_q = 64, .s_k = 64, .d = 32, .d_v = 32,
                     .causal = 1, .band_op = 1, .unified = unified, .band_bad = 1,
                     .dt = CUDNN_DATA_HALF};
        run(&s, 1); /* compared with ADD: not a comparison */
        expect_uncounted("cudnn graph: diagonal band mask not read", FC_UNC_GRAPH);
        s.band_bad = 2, s.left = 8; /* a left bound and a right shift on one operation */
        run(&s, 1);
        expect_uncounted("cudnn graph: diagonal band mask not read", FC_UNC_GRAPH);
    }
    /* the modifier's output is no tensor its operations write */
    static cb_graph g;
    cb_init(&g, &recorder, NULL);
    cb_sdpa s = {.b = 2, .h = 4, .h_k = 4, .s_q = 64, .s_k = 64, .d = 32, .d_v = 32,
                 .causal = 1, .band_op = 1, .unified = 1, .dt = CUDNN_DATA_HALF};
    cb_build_sdpa(&g, &s);
    int64_t bogus = 99999;
    recorder.set(g.ops[0], (cudnnBackendAttributeName_t)2813, CUDNN_TYPE_INT64, 1, &bogus);
    cb_plan(&g);
    cb_execute(&g);
    expect_uncounted("cudnn graph: SDPA score modifier not readable", FC_UNC_GRAPH);
    cb_destroy_all(&g);
    /* cumulative lengths on a band mask (3008, cuDNN 9.24): not known */
    cb_init(&g, &recorder, NULL);
    s.unified = 0;
    cb_build_sdpa(&g, &s);
    for (int i = 0; i < g.n_ops; i++) {
        int64_t x = 1;
        recorder.set(g.ops[i], (cudnnBackendAttributeName_t)3008, CUDNN_TYPE_INT64, 1, &x);
    }
    cb_plan(&g);
    cb_execute(&g);
    expect_uncounted("cudnn graph: attribute unknown to flopcount", FC_UNC_GRAPH);
    cb_destroy_all(&g);
}

/* Tensors and operations destroyed as soon as the graph is built (legal:
 * cuDNN keeps its own copies): the work was read when the graph was. */
static void test_destroyed_before_plan(void **state)
{
    (void)state;
    cb_sdpa s = base;
    s.causal = 1, s.bwd = 1, s.h_k = 2;
    run(&s, 0);
    expect_attention(&s, 0);
}

static void test_plain_matmul(void **state)
{
    (void)state;
    static cb_graph g;
    cb_init(&g, &recorder, NULL);
    int64_t da[] = {3, 64, 32}, db[] = {3, 32, 48}, dc[] = {3, 64, 48};
    cb_tensor A = cb_tensor_make(&g, 3, da, NULL, CUDNN_DATA_HALF, 0);
    cb_tensor B = cb_tensor_make(&g, 3, db, NULL, CUDNN_DATA_HALF, 0);
    cb_tensor C = cb_tensor_make(&g, 3, dc, NULL, CUDNN_DATA_FLOAT, 0);
    cb_matmul(&g, A, B, C, NULL, NULL, NULL);
    cb_plan(&g);
    cb_execute(&g);
    assert_int_equal(last.kind, FC_CUDNN_GEMMS);
    assert_int_equal(last.n_gemm, 1);
    const fc_gemm *m = &last.gemm[0];
    assert_int_equal(m->m, 64);
    assert_int_equal(m->n, 48);
    assert_int_equal(m->k, 32);
    assert_int_equal(m->batch, 3);
    assert_int_equal(m->dtype, FC_DT_FP16);
    assert_int_equal(m->out_dtype, FC_DT_FP32);
    assert_ptr_equal(m->a, (void *)(uintptr_t)(0x100000u * (uint64_t)A.uid)); /* from the pack */
    cb_destroy_all(&g);
}

/* The uncounted entry of the last execute: its name and reason. */
struct find {
    uint32_t want, i;
    const char *name;
    int reason, found;
};

static void visit(const fc_uncounted_view *v, void *p)
{
    struct find *c = p;
    if (c->i++ != c->want)
        return;
    if (strcmp(v->name, c->name) != 0 || v->reason != c->reason)
        fail_msg("uncounted: got \"%s\" (%d: %s), want \"%s\" (%d)", v->name, v->reason, v->detail,
                 c->name, c->reason);
    c->found = 1;
}

static void expect_uncounted(const char *name, int reason)
{
    assert_int_equal(last.kind, FC_CUDNN_UNCOUNTED);
    assert_true(last.unc_id != FC_UNCOUNTED_NONE);
    struct find c = {last.unc_id, 0, name, reason, 0};
    fc_uncounted_foreach(visit, &c);
    assert_true(c.found);
}

static const char *detail_of_last;
static void detail_visit(const fc_uncounted_view *v, void *p)
{
    uint32_t *i = p;
    if ((*i)++ == last.unc_id)
        detail_of_last = v->detail;
}

/* Lengths past 2^31 - 1 (cuDNN's dimensions are int64): named, not
 * counted, and the detail says why rather than that the tensors disagree */
static void test_unified_out_of_range(void **state)
{
    (void)state;
    cb_sdpa s = {.b = 1, .h = 1, .h_k = 1, .s_q = 3000000000LL, .s_k = 3000000000LL, .d = 128,
                 .d_v = 128, .unified = 1, .dt = CUDNN_DATA_BFLOAT16};
    run(&s, 1);
    expect_uncounted("cudnn graph: SDPA node not readable", FC_UNC_GRAPH);
    uint32_t i = 0;
    detail_of_last = NULL;
    fc_uncounted_foreach(detail_visit, &i);
    assert_non_null(detail_of_last);
    assert_non_null(strstr(detail_of_last, "out of range"));
}

/* Dynamic shapes: the plan built at one shape, each execute overriding
 * the shapes of Q, K and V (the first three tensors made: uids 1, 2, 3). */
static void test_dynamic_shapes(void **state)
{
    (void)state;
    static cb_graph g;
    cb_sdpa built = base, at = base;
    built.causal = at.causal = 1, built.h_k = at.h_k = 2;
    cb_init(&g, &recorder, NULL);
    g.dynamic = 1;
    cb_build_sdpa(&g, &built);
    cb_plan(&g);
    cb_execute(&g); /* no override: the shapes it was built with */
    expect_attention(&built, 0);
    at.b = 5, at.s_q = at.s_k = 40; /* Q [b, h, s_q, d], K^T [b, h_k, d, s_k], V [b, h_k, s_k, d_v] */
    int64_t q[4] = {at.b, at.h, at.s_q, at.d}, kt[4] = {at.b, at.h_k, at.d, at.s_k},
            v[4] = {at.b, at.h_k, at.s_k, at.d_v};
    g.n_over = 3;
    for (int i = 0; i < 3; i++)
        g.over_uid[i] = i + 1;
    memcpy(g.over_dims[0], q, sizeof q);
    memcpy(g.over_dims[1], kt, sizeof kt);
    memcpy(g.over_dims[2], v, sizeof v);
    cb_execute(&g);
    expect_attention(&at, 0);
    g.over_dims[2][1] = 0; /* a shape with a zero: not one cudnn-frontend passes */
    cb_execute(&g);
    expect_uncounted("cudnn execute: override shapes not readable", FC_UNC_GRAPH);
    cb_destroy_all(&g);
    /* a matmul: A [3, 64, 32] executed as [3, 80, 32] */
    cb_init(&g, &recorder, NULL);
    g.dynamic = 1;
    int64_t da[] = {3, 64, 32}, db[] = {3, 32, 48}, dc[] = {3, 64, 48};
    cb_tensor A = cb_tensor_make(&g, 3, da, NULL, CUDNN_DATA_HALF, 0);
    cb_tensor B = cb_tensor_make(&g, 3, db, NULL, CUDNN_DATA_HALF, 0);
    cb_tensor C = cb_tensor_make(&g, 3, dc, NULL, CUDNN_DATA_HALF, 0);
    cb_matmul(&g, A, B, C, NULL, NULL, NULL);
    cb_plan(&g);
    int64_t a2[4] = {1, 3, 80, 32};
    g.n_over = 1;
    g.over_uid[0] = A.uid;
    memcpy(g.over_dims[0], a2, sizeof a2);
    cb_execute(&g);
    assert_int_equal(last.kind, FC_CUDNN_GEMMS);
    assert_int_equal(last.gemm[0].m, 80);
    assert_int_equal(last.gemm[0].n, 48);
    assert_int_equal(last.gemm[0].k, 32);
    assert_int_equal(last.gemm[0].batch, 3);
    cb_destroy_all(&g);
}

static void test_convolution(void **state)
{
    (void)state;
    static cb_graph g;
    cb_init(&g, &recorder, NULL);
    cb_bare_op(&g, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    cb_plan(&g);
    cb_execute(&g);
    expect_uncounted("cudnn graph: convolution", FC_UNC_NOT_MATMUL);
    cb_destroy_all(&g);
}

static void test_unknown_attribute_and_type(void **state)
{
    (void)state;
    static cb_graph g;
    cb_init(&g, &recorder, NULL);
    int64_t dims[] = {2, 8};
    cb_tensor A = cb_tensor_make(&g, 2, dims, NULL, CUDNN_DATA_HALF, 0);
    int64_t x = 1;
    /* a newer cuDNN's tensor attribute (911 is not in the 9.19 header) */
    recorder.set(A.desc, (cudnnBackendAttributeName_t)911, CUDNN_TYPE_INT64, 1, &x);
    cb_matmul(&g, A, A, A, NULL, NULL, NULL);
    cb_plan(&g);
    cb_execute(&g);
    expect_uncounted("cudnn graph: attribute unknown to flopcount", FC_UNC_GRAPH);
    cb_destroy_all(&g);

    cb_init(&g, &recorder, NULL);
    cb_bare_op(&g, (cudnnBackendDescriptorType_t)57); /* a type after SDPA_BWD (43) */
    cb_plan(&g);
    cb_execute(&g);
    expect_uncounted("cudnn graph: operation type unknown to flopcount", FC_UNC_GRAPH);
    cb_destroy_all(&g);

    /* an attribute 9.19 does not have on an SDPA node, nor flopcount
     * (9.21's dropout seed) */
    cb_init(&g, &recorder, NULL);
    cb_sdpa s = base;
    s.unified = 1;
    cb_build_sdpa(&g, &s);
    recorder.set(g.ops[0], (cudnnBackendAttributeName_t)2815, CUDNN_TYPE_INT64, 1, &x);
    cb_plan(&g);
    cb_execute(&g);
    expect_uncounted("cudnn graph: attribute unknown to flopcount", FC_UNC_GRAPH);
    cb_destroy_all(&g);
}

static void test_graph_never_seen(void **state)
{
    (void)state;
    cudnnBackendDescriptor_t eng, cfg, plan, vp;
    int unseen_graph = 0;
    void *graph = &unseen_graph; /* an operation graph the table never saw */
    recorder.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng);
    recorder.set(eng, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    recorder.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg);
    recorder.set(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &eng);
    recorder.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
    recorder.set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
    recorder.finalize(plan);
    recorder.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
    recorder.execute(NULL, plan, vp);
    expect_uncounted("cudnn plan: operation graph unknown", FC_UNC_GRAPH);
    /* a pointwise operation whose pointwise descriptor was not seen */
    static cb_graph g;
    cb_init(&g, &recorder, NULL);
    int64_t dims[] = {2, 8};
    cb_tensor A = cb_tensor_make(&g, 2, dims, NULL, CUDNN_DATA_HALF, 0);
    cudnnBackendDescriptor_t op;
    recorder.create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op);
    recorder.set(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                 &graph);
    recorder.set(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &A.desc);
    g.ops[g.n_ops++] = op;
    cb_matmul(&g, A, A, A, NULL, NULL, NULL);
    cb_plan(&g);
    cb_execute(&g);
    expect_uncounted("cudnn graph: operation not seen created", FC_UNC_GRAPH);
    recorder.destroy(op);
    cb_destroy_all(&g);
    /* a plan the table never saw at all */
    recorder.execute(NULL, &unseen_graph, vp);
    expect_uncounted("cudnn plan: not seen created", FC_UNC_GRAPH);
    /* a plan built from JSON: whatever config it names, its graph is unknown */
    const char json[] = "{}";
    recorder.set(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 2, json);
    recorder.finalize(plan);
    recorder.execute(NULL, plan, vp);
    expect_uncounted("cudnn plan: deserialized", FC_UNC_GRAPH);
    recorder.destroy(vp);
    recorder.destroy(plan);
    recorder.destroy(cfg);
    recorder.destroy(eng);
    assert_int_equal(fc_cudnn_live(), 0);
}

/* 100,000 live descriptors: the table keeps what fits, counts the rest,
 * and a graph made while it is full is named unresolved with that reason;
 * once they are gone, graphs are counted again. */
static void test_hundred_thousand(void **state)
{
    (void)state;
    enum { N = 100000 };
    cudnnBackendDescriptor_t *d = calloc(N, sizeof *d);
    assert_non_null(d);
    for (int i = 0; i < N; i++)
        recorder.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d[i]);
    uint32_t live = fc_cudnn_live();
    assert_true(live > 0 && live < N);
    assert_int_equal(fc_cudnn_untracked(), N - live);
    cb_sdpa s = base;
    run(&s, 1); /* nothing of it fits: its plan is not known */
    expect_uncounted("cudnn plan: not seen created", FC_UNC_GRAPH);
    static cb_graph g;
    cb_init(&g, &recorder, NULL);
    cb_build_sdpa(&g, &s); /* its operations are made while the table is full ... */
    for (int i = 0; i < 40; i++) { /* the first ones are the tracked ones */
        recorder.destroy(d[i]);
        d[i] = NULL;
    }
    cb_plan(&g); /* ... its graph and plan once there is room again */
    cb_execute(&g);
    expect_uncounted("cudnn graph: operation not seen created", FC_UNC_GRAPH);
    cb_destroy_all(&g);
    for (int i = 0; i < N; i++)
        if (d[i] != NULL)
            recorder.destroy(d[i]);
    free(d);
    assert_int_equal(fc_cudnn_live(), 0);
    run(&s, 1);
    expect_attention(&s, 0);
    /* and 100,000 executes, each with its own variant pack: nothing grows */
    cb_init(&g, &recorder, NULL);
    cb_build_sdpa(&g, &s);
    cb_plan(&g);
    uint32_t before = fc_cudnn_live();
    for (int i = 0; i < N; i++)
        cb_execute(&g);
    assert_int_equal(fc_cudnn_live(), before);
    expect_attention(&s, 0);
    cb_destroy_all(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_forward_plain, setup),
        cmocka_unit_test_setup(test_forward_causal_gqa, setup),
        cmocka_unit_test_setup(test_backward_causal_gqa, setup),
        cmocka_unit_test_setup(test_backward_plain_mha, setup),
        cmocka_unit_test_setup(test_bottom_right, setup),
        cmocka_unit_test_setup(test_sliding_window, setup),
        cmocka_unit_test_setup(test_padding_is_a_bound, setup),
        cmocka_unit_test_setup(test_dropout, setup),
        cmocka_unit_test_setup(test_bias_and_alibi, setup),
        cmocka_unit_test_setup(test_unified_node, setup),
        cmocka_unit_test_setup(test_unified_out_of_range, setup),
        cmocka_unit_test_setup(test_band_op_composite, setup),
        cmocka_unit_test_setup(test_band_op_unified, setup),
        cmocka_unit_test_setup(test_band_op_refused, setup),
        cmocka_unit_test_setup(test_destroyed_before_plan, setup),
        cmocka_unit_test_setup(test_dynamic_shapes, setup),
        cmocka_unit_test_setup(test_plain_matmul, setup),
        cmocka_unit_test_setup(test_convolution, setup),
        cmocka_unit_test_setup(test_unknown_attribute_and_type, setup),
        cmocka_unit_test_setup(test_graph_never_seen, setup),
        cmocka_unit_test_setup(test_hundred_thousand, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
