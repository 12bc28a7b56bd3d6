/* SPDX-License-Identifier: Apache-2.0 */
/* test_infer_attn.c - the model read off forward profiles whose attention
 * core is one fused-attention call per layer (analysis/infer_attn.c): the
 * "kind": "attention" entries the shim writes for FlashAttention, memory-
 * efficient attention and cuDNN SDPA, between the GEMMs of the layer.
 * Heads, kv heads, head dim, sequence and batch come exact from the call;
 * the formula's forward, its core taken at the band that ran, equals the
 * counted forward; a call that contradicts the GEMMs (or another layer's
 * QK^T GEMMs) stops the inference with the contradiction named.
 *
 * Builders: a Linear in -> out on T tokens is m = out, n = T, k = in with A
 * the weight; an attention call's FLOPs are worked out here by hand:
 * forward QK^T and PV over the visible pairs P of each of b x h heads,
 * 2 P (d + d) per head; P = s^2 unmasked, s(s+1)/2 causal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "infer.h"

#define MAXE 256

static fc_fwd_gemm E[MAXE];
static size_t n_e;
static fc_u128 total;
static fc_infer_work *W;

static void clear(void)
{
    memset(E, 0, sizeof E);
    n_e = 0;
    total = 0;
}

static void lin(int64_t in, int64_t out, int64_t tok)
{
    assert_true(n_e < MAXE);
    fc_fwd_gemm *x = &E[n_e++];
    x->m = out, x->n = tok, x->k = in, x->batch = 1, x->count = 1, x->weight = 1;
    x->transa = 'T', x->transb = 'N';
    x->flops = (fc_u128)2 * (fc_u128)out * (fc_u128)tok * (fc_u128)in;
    total += x->flops;
}

enum { UNMASKED = 0, CAUSAL = 1, BOUND = 2, KEYS_DOUBLE = 4 };

/* One flash-attention forward call of b sequences x h heads (kv heads
 * hk), s queries (over 2s keys with KEYS_DOUBLE), head dim d. */
static void attn(int64_t b, int64_t h, int64_t hk, int64_t s, int64_t d, int how)
{
    assert_true(n_e < MAXE);
    fc_fwd_gemm *x = &E[n_e++];
    int64_t sk = how & KEYS_DOUBLE ? 2 * s : s;
    x->attention = 1;
    x->m = x->n = x->k = x->batch = -1;
    x->transa = x->transb = '?';
    x->count = 1;
    fc_attn *a = &x->attn;
    a->source = FC_ATTN_SRC_FLASH;
    a->align = FC_ATTN_BOTTOM_RIGHT;
    a->b = b, a->h = h, a->h_k = hk, a->s_q = s, a->s_k = sk, a->d = a->d_v = d;
    a->window_left = -1;
    a->window_right = how & CAUSAL ? 0 : -1;
    a->flags = how & BOUND ? FC_ATTN_BOUND : 0;
    fc_u128 pairs = how & CAUSAL ? (fc_u128)s * (s + 1) / 2 : (fc_u128)s * sk;
    x->flops = 2 * pairs * (fc_u128)(2 * d) * (fc_u128)(b * h);
    total += x->flops;
}

/* QK^T and attention x V as batched GEMMs (nb products each). */
static void gemm_core(int64_t s, int64_t d, int64_t nb)
{
    fc_fwd_gemm *x = &E[n_e++], *y = &E[n_e++];
    x->m = s, x->n = s, x->k = d, x->batch = nb, x->count = 1, x->transa = 'T', x->transb = 'N';
    y->m = d, y->n = s, y->k = s, y->batch = nb, y->count = 1, y->transa = 'N', y->transb = 'N';
    x->flops = y->flops = (fc_u128)2 * s * s * d * nb;
    total += 2 * x->flops;
}

static void infer(const fc_infer_given *g, const fc_infer_iter *it, fc_inferred *out)
{
    static fc_infer_facts f;
    fc_fwd_profile p = {E, n_e, 0, total};
    fc_infer_shapes(&p, W, &f);
    fc_infer_resolve(&f, g, it, out);
}

static int64_t V(const fc_inferred *in, int key)
{
    if (in->v[key].status == FC_IS_UNKNOWN)
        fail_msg("%s unknown: %s", fc_ik_name(key), in->v[key].note);
    return in->v[key].value;
}

static void assert_ok(const fc_inferred *in)
{
    if (!in->f.ok)
        fail_msg("not inferred: %s", in->f.why);
}

#define ALL_LAYERS (-2)

/* l=2 h=64 a=4 d=16 ffn=256 V=128 s=32 B=2 (64 tokens), one unmasked
 * flash call per layer; the call of layer `odd` (every layer's with
 * ALL_LAYERS; none with -1) is replaced by the one `odd_call` adds (or by
 * QK^T GEMMs when odd_call is NULL). */
static void tiny(int how, int odd, void (*odd_call)(void))
{
    clear();
    for (int l = 0; l < 2; l++) {
        lin(64, 192, 64);
        if (l != odd && odd != ALL_LAYERS)
            attn(2, 4, 4, 32, 16, how);
        else if (odd_call)
            odd_call();
        else
            gemm_core(32, 16, 8);
        lin(64, 64, 64);
        lin(64, 256, 64);
        lin(256, 64, 64);
    }
    lin(64, 128, 64);
}

/* Per layer: QKV 2*64*64*192 = 1,572,864, out 524,288, MLP 2 x 2,097,152,
 * the call 2*1024*32 per head x 8 heads = 524,288: 6,815,744; two layers
 * and the logits 2*64*64*128 = 1,048,576: 14,680,064 per forward, the
 * formula's 44,040,192 model FLOPs per iteration (REFERENCE.md). */
static void test_fused_gpt_exact(void **state)
{
    (void)state;
    static fc_inferred in;
    tiny(UNMASKED, -1, NULL);
    assert_true(total == 14680064u);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_LAYERS), 2);
    assert_int_equal(V(&in, FC_IK_HIDDEN), 64);
    assert_int_equal(V(&in, FC_IK_HEADS), 4);
    assert_int_equal(V(&in, FC_IK_KV_HEADS), 4);
    assert_int_equal(V(&in, FC_IK_HEAD_DIM), 16);
    assert_int_equal(V(&in, FC_IK_SEQ), 32);
    assert_int_equal(V(&in, FC_IK_BATCH), 2);
    assert_int_equal(V(&in, FC_IK_FFN), 256);
    assert_int_equal(V(&in, FC_IK_VOCAB), 128);
    assert_int_equal(in.v[FC_IK_SEQ].status, FC_IS_EXACT);
    /* the reason names the call */
    assert_string_equal(in.v[FC_IK_SEQ].note,
                        "flash attention forward: 2 sequences x 4 heads (kv 4), 32 x 32, head dim 16");
    assert_non_null(strstr(in.v[FC_IK_HEADS].note, "output projection reads 64 = heads x 16"));
    assert_non_null(strstr(in.v[FC_IK_CAUSAL].note, "unmasked"));
    assert_int_equal(in.f.attn_layers, 2);
    assert_true(in.heads_known);
    assert_true(in.complete);
    assert_true(in.fits_forward);
    assert_true(in.formula_forward == 14680064u);
    fc_flops fl;
    fc_formula(&in.model, &fl);
    assert_true(fl.model_flops_per_iteration == 44040192u);
    assert_true(fl.forward_flops_per_iteration == total);
}

/* l=3 h=128 a=8 kv=2 d=16 ffn=512 V=100 s=64 B=3 (192 tokens), causal.
 * Per layer: QKV 2*192*128*192 = 9,437,184, out 6,291,456, MLP
 * 2 x 25,165,824; the causal call 2*2080*32 = 133,120 per head (2080 =
 * 64*65/2 pairs) x 24 heads = 3,194,880: 69,255,168; three layers and the
 * logits 2*192*128*100 = 4,915,200: 212,680,704. The formula's core in its
 * 'full' convention is 4*B*s^2*a*d = 6,291,456 per layer, 9,289,728 more
 * over the 3 layers than the calls: its forward 221,970,432. */
static void causal_gqa(void)
{
    clear();
    for (int l = 0; l < 3; l++) {
        lin(128, 192, 192);
        attn(3, 8, 2, 64, 16, CAUSAL);
        lin(128, 128, 192);
        lin(128, 512, 192);
        lin(512, 128, 192);
    }
    lin(128, 100, 192);
}

static void test_causal_gqa(void **state)
{
    (void)state;
    static fc_inferred in;
    causal_gqa();
    assert_true(total == 212680704u);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_HEADS), 8);
    assert_int_equal(V(&in, FC_IK_KV_HEADS), 2);
    assert_int_equal(V(&in, FC_IK_HEAD_DIM), 16);
    assert_int_equal(V(&in, FC_IK_SEQ), 64);
    assert_int_equal(V(&in, FC_IK_BATCH), 3);
    /* the convention stays the formula's, the note says what ran */
    assert_int_equal(in.v[FC_IK_CAUSAL].status, FC_IS_CONVENTION);
    assert_int_equal(V(&in, FC_IK_CAUSAL), FC_CAUSAL_FULL);
    assert_non_null(strstr(in.v[FC_IK_CAUSAL].note, "causal"));
    assert_non_null(strstr(in.v[FC_IK_CAUSAL].note, "2080 pairs per head"));
    assert_true(in.complete);
    assert_true(in.fits_forward);
    assert_true(in.formula_forward == 212680704u);
    fc_flops fl;
    fc_formula(&in.model, &fl);
    assert_true(fl.forward_flops_per_iteration == 221970432u);
    assert_true(fc_infer_attn_core_exact(&in.model, &in.f.attn) == 9584640u);
    /* the 'half' convention: 2*B*s^2*a*d = 3,145,728 per layer, 49,152
     * (= 2*B*s*a*d) below each call */
    fc_model half = in.model;
    half.causal = FC_CAUSAL_HALF;
    fc_formula(&half, &fl);
    assert_true(fl.forward_flops_per_iteration == 212680704u - 3 * 49152u);
}

/* The same model's iteration: the GEMMs' backward 2x their forward
 * (2 x 203,096,064), the calls' backward 2.5x (3 x 7,987,200 =
 * 23,961,600), 4,792,320 of it beyond the model convention: 642,834,432.
 * Less that excess it is the formula's model FLOPs with the core at the
 * band: 665,911,296 - 3 x 18,874,368 + 3 x 9,584,640 = 638,042,112. */
static void test_causal_iteration(void **state)
{
    (void)state;
    static fc_inferred in;
    causal_gqa();
    fc_infer_iter it = {.have = 1,
                        .flops = 642834432u,
                        .forward_flops = 212680704u,
                        .attention_excess_flops = 4792320u,
                        .ranks = 1};
    infer(NULL, &it, &in);
    assert_true(in.fits_iteration);
    assert_int_equal(V(&in, FC_IK_RECOMPUTE), FC_RECOMPUTE_NONE);
    assert_int_equal(in.v[FC_IK_RECOMPUTE].status, FC_IS_EXACT);
    /* without the excess left out, the iteration would not fit */
    it.attention_excess_flops = 0;
    infer(NULL, &it, &in);
    assert_false(in.fits_iteration);
    /* selective recompute: the calls' forward again (9,584,640), read as
     * the formula's 'selective' with its core at the band */
    it.attention_excess_flops = 4792320u;
    it.flops = 642834432u + 9584640u;
    it.recompute_flops = 9584640u;
    infer(NULL, &it, &in);
    assert_int_equal(V(&in, FC_IK_RECOMPUTE), FC_RECOMPUTE_SELECTIVE);
    assert_true(in.fits_iteration);
}

/* Lengths that are maxima (varlen): no exact sequence, nor batch. */
static void test_bound(void **state)
{
    (void)state;
    static fc_inferred in;
    tiny(BOUND, -1, NULL);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_HEADS), 4);
    assert_int_equal(in.v[FC_IK_SEQ].status, FC_IS_UNKNOWN);
    assert_non_null(strstr(in.v[FC_IK_SEQ].note, "at most 32"));
    assert_int_equal(in.v[FC_IK_BATCH].status, FC_IS_UNKNOWN);
    assert_false(in.complete);
    assert_non_null(strstr(in.missing, "--seq"));
    fc_infer_given g = {.given = 1u << FC_IK_SEQ};
    g.m.seq = 32;
    infer(&g, NULL, &in);
    assert_true(in.complete);
    assert_int_equal(V(&in, FC_IK_BATCH), 2);
}

static void heads_8(void) { attn(2, 8, 8, 32, 16, UNMASKED); }
static void tokens_128(void) { attn(4, 4, 4, 32, 16, UNMASKED); }
static void kv_2(void) { attn(2, 4, 2, 32, 16, UNMASKED); }
static void shorter(void) { attn(4, 4, 4, 16, 16, UNMASKED); }
static void keys_double(void) { attn(2, 4, 4, 32, 16, KEYS_DOUBLE); }

static void expect_contradiction(int odd, void (*call)(void), const char *words)
{
    static fc_inferred in;
    tiny(UNMASKED, odd, call);
    infer(NULL, NULL, &in);
    if (in.f.ok)
        fail_msg("inferred, though the call contradicts the GEMMs (%s)", words);
    if (strstr(in.f.why, words) == NULL)
        fail_msg("the reason '%s' does not say '%s'", in.f.why, words);
    assert_int_equal(in.v[FC_IK_HEADS].status, FC_IS_UNKNOWN);
    assert_false(in.complete);
}

/* A call that disagrees with the GEMMs around it, or with another layer's
 * core, is reported with both sides, never picked over the other. */
static void test_contradictions(void **state)
{
    (void)state;
    /* 8 heads x 16 = 128, the output projection reads 64 */
    expect_contradiction(ALL_LAYERS, heads_8, "heads x head dim make 128, but the output projection reads 64");
    /* 4 sequences of 32 = 128 tokens, the Linears run on 64 */
    expect_contradiction(ALL_LAYERS, tokens_128, "128 tokens per layer, but the GEMMs run on 64");
    /* kv 2 x 16 = 32, K and V are 64 wide */
    expect_contradiction(ALL_LAYERS, kv_2, "kv heads x head dim make 32, but K and V are 64 wide");
    /* layer 2's call 4 x 16 (64 tokens too) against layer 1's */
    expect_contradiction(1, shorter, "layer 2's flash attention forward: 4 sequences x 4 heads "
                                     "(kv 4), 16 x 16, head dim 16 differs from layer 1's");
    expect_contradiction(ALL_LAYERS, keys_double, "queries and keys of different lengths");
}

/* QK^T GEMMs in one layer, a call in the other: they must agree. */
static void test_mixed_with_gemm_core(void **state)
{
    (void)state;
    static fc_inferred in;
    tiny(UNMASKED, 0, NULL); /* layer 1: QK^T and AV as GEMMs, the same 8 x 32 x 32 by 16 */
    assert_true(total == 14680064u);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(in.f.attn_layers, 1);
    assert_int_equal(V(&in, FC_IK_SEQ), 32);
    assert_int_equal(V(&in, FC_IK_HEADS), 4);
    assert_true(in.fits_forward);
    /* layer 1's GEMMs 32 x 32, layer 2's call 16 x 16 (as many tokens) */
    clear();
    for (int l = 0; l < 2; l++) {
        lin(64, 192, 64);
        if (l == 0)
            gemm_core(32, 16, 8);
        else
            attn(4, 4, 4, 16, 16, UNMASKED);
        lin(64, 64, 64), lin(64, 256, 64), lin(256, 64, 64);
    }
    lin(64, 128, 64);
    infer(NULL, NULL, &in);
    assert_false(in.f.ok);
    assert_non_null(strstr(in.f.why, "layer 1's QK^T GEMMs (8 products of 32 x 32 by 16) "
                                     "contradict layer 2's flash attention forward"));
}

static int setup(void **state)
{
    (void)state;
    W = malloc(fc_infer_work_size());
    return W == NULL;
}

static int teardown(void **state)
{
    (void)state;
    free(W);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fused_gpt_exact),     cmocka_unit_test(test_causal_gqa),
        cmocka_unit_test(test_causal_iteration),    cmocka_unit_test(test_bound),
        cmocka_unit_test(test_contradictions),      cmocka_unit_test(test_mixed_with_gemm_core),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
