/* SPDX-License-Identifier: Apache-2.0 */
/* test_infer_units.c - analysis/infer*.c on forward profiles written by
 * hand: each profile is the GEMM list a framework would issue for a model
 * we know, so every inferred value is checked against that model, and the
 * formula's forward against the profile's FLOPs summed here GEMM by GEMM.
 *
 * Conventions of the builders: a Linear in -> out on T tokens is
 * m = out, n = T, k = in with A the weight (torch, cuBLAS callers), or
 * m = T, n = out, k = in with B the weight; QK^T is s x s by d, attention x V
 * is d x s by s, nb = B*a products of each, in one batched call or one
 * call per head. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "infer.h"

#include "infer_profile.h"

/* A GPT layer: fused QKV, core, out, plain MLP (REFERENCE.md's tiny model:
 * l=2 h=64 a=4 V=128 s=32 B=2; 44,040,192 model FLOPs per iteration). */
static void gpt(int layers, int64_t h, int64_t a, int64_t V_, int64_t s, int64_t B, int per_head)
{
    int64_t T = B * s, d = h / a;
    for (int l = 0; l < layers; l++) {
        lin(h, 3 * h, T);
        core(s, d, B * a, per_head);
        lin(h, h, T);
        lin(h, 4 * h, T);
        lin(4 * h, h, T);
    }
    lin(h, V_, T);
}

static void test_gpt_tiny(void **state)
{
    (void)state;
    static fc_inferred in;
    for (int per_head = 0; per_head < 2; per_head++) {
        reset();
        gpt(2, 64, 4, 128, 32, 2, per_head);
        infer(NULL, NULL, &in);
        assert_ok(&in);
        assert_int_equal(V(&in, FC_IK_LAYERS), 2);
        assert_int_equal(V(&in, FC_IK_HIDDEN), 64);
        assert_int_equal(V(&in, FC_IK_HEADS), 4);
        assert_int_equal(V(&in, FC_IK_KV_HEADS), 4);
        assert_int_equal(V(&in, FC_IK_HEAD_DIM), 16);
        assert_int_equal(V(&in, FC_IK_FFN), 256);
        assert_int_equal(V(&in, FC_IK_SWIGLU), 0);
        assert_int_equal(V(&in, FC_IK_VOCAB), 128);
        assert_int_equal(V(&in, FC_IK_SEQ), 32);
        assert_int_equal(V(&in, FC_IK_BATCH), 2);
        assert_int_equal(V(&in, FC_IK_EXPERTS), 0);
        assert_int_equal(in.v[FC_IK_TIED].status, FC_IS_UNKNOWN);
        assert_int_equal(in.v[FC_IK_CAUSAL].status, FC_IS_CONVENTION);
        assert_true(in.complete);
        assert_true(in.fits_forward);
        fc_flops fl;
        fc_formula(&in.model, &fl);
        assert_true(fl.model_flops_per_iteration == 44040192u); /* REFERENCE.md */
        assert_true(fl.forward_flops_per_iteration == P.flops);
    }
}

/* Llama-like: Q, K, V apart with GQA (a=8, g=2) and d=24 != h/a, SwiGLU
 * gate and up apart, B as the weight operand, 3 layers, untied logits. */
static void test_gqa_swiglu_b_weight(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    P.weight_b = 1;
    int64_t h = 96, a = 8, g = 2, d = 24, f = 200, s = 16, B = 3, T = B * s;
    for (int l = 0; l < 3; l++) {
        lin(h, a * d, T);
        lin(h, g * d, T);
        lin(h, g * d, T);
        core(s, d, B * a, 0);
        lin(a * d, h, T);
        lin(h, f, T);
        lin(h, f, T);
        lin(f, h, T);
    }
    lin(h, 1000, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_LAYERS), 3);
    assert_int_equal(V(&in, FC_IK_HIDDEN), h);
    assert_int_equal(V(&in, FC_IK_HEADS), a);
    assert_int_equal(V(&in, FC_IK_KV_HEADS), g);
    assert_int_equal(V(&in, FC_IK_HEAD_DIM), d);
    assert_int_equal(V(&in, FC_IK_FFN), f);
    assert_int_equal(V(&in, FC_IK_SWIGLU), 1);
    assert_int_equal(V(&in, FC_IK_VOCAB), 1000);
    assert_int_equal(V(&in, FC_IK_BATCH), B);
    assert_true(in.fits_forward);
}

/* Mixtral-like in Megatron's pattern (--moe-every 2): 4 layers, layers 0
 * and 2 MoE with 8 experts top-2, three of them without a token in layer 0
 * (so no GEMM), gated experts of 40, one shared expert of 24; layers 1 and
 * 3 dense, gated, of 120. */
static void test_moe(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    int64_t h = 64, a = 4, d = 16, s = 16, B = 4, T = B * s;
    static const int64_t routed[2][8] = {{30, 0, 20, 16, 0, 30, 0, 32},
                                         {10, 22, 16, 8, 40, 14, 10, 8}};
    for (int l = 0; l < 4; l++) {
        lin(h, 3 * h, T);
        core(s, d, B * a, 0);
        lin(h, h, T);
        if (l % 2 == 0) {
            lin(h, 8, T); /* router */
            for (int e = 0; e < 8; e++) {
                int64_t t = routed[l / 2][e];
                if (t == 0)
                    continue;
                lin(h, 40, t);
                lin(h, 40, t);
                lin(40, h, t);
            }
            lin(h, 24, T);
            lin(h, 24, T);
            lin(24, h, T);
        } else {
            lin(h, 120, T);
            lin(h, 120, T);
            lin(120, h, T);
        }
    }
    lin(h, 500, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_LAYERS), 4);
    assert_int_equal(V(&in, FC_IK_EXPERTS), 8);
    assert_int_equal(V(&in, FC_IK_TOPK), 2); /* 128 routed of 64 tokens, both MoE layers */
    assert_int_equal(V(&in, FC_IK_MOE_FFN), 40);
    assert_int_equal(V(&in, FC_IK_SHARED_EXPERTS), 1);
    assert_int_equal(V(&in, FC_IK_SHARED_FFN), 24);
    assert_int_equal(V(&in, FC_IK_MOE_EVERY), 2);
    assert_int_equal(V(&in, FC_IK_MOE_FIRST_DENSE), 0);
    assert_int_equal(V(&in, FC_IK_FFN), 120);
    assert_int_equal(V(&in, FC_IK_SWIGLU), 1);
    assert_true(in.complete);
    assert_true(in.fits_forward);
}

/* Experts batched over their stacked weights (one GEMM each for up and
 * down, batch = experts, equal tokens each) after the first dense layer. */
static void test_moe_batched_first_dense(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    int64_t h = 64, a = 4, d = 16, s = 16, B = 2, T = B * s, E = 4;
    for (int l = 0; l < 3; l++) {
        lin(h, 3 * h, T);
        core(s, d, B * a, 0);
        lin(h, h, T);
        if (l == 0) {
            lin(h, 256, T);
            lin(256, h, T);
        } else {
            lin(h, E, T);
            add(48, 16, h, E, 1, 1, 'T', 'N'); /* 4 experts x 16 tokens: top-2 of 32 */
            add(h, 16, 48, E, 1, 1, 'T', 'N');
        }
    }
    lin(h, 100, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_EXPERTS), E);
    assert_int_equal(V(&in, FC_IK_TOPK), 2);
    assert_int_equal(V(&in, FC_IK_MOE_FFN), 48);
    assert_int_equal(V(&in, FC_IK_MOE_EVERY), 1);
    assert_int_equal(V(&in, FC_IK_MOE_FIRST_DENSE), 1);
    assert_int_equal(V(&in, FC_IK_FFN), 256);
    assert_int_equal(V(&in, FC_IK_SWIGLU), 0);
    assert_true(in.fits_forward);
}

/* Dropped tokens: the routed count is not a multiple of the tokens. */
static void test_moe_dropped(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    int64_t h = 32, s = 8, B = 2, T = 16;
    for (int l = 0; l < 2; l++) {
        lin(h, 3 * h, T);
        core(s, 8, B * 4, 0);
        lin(h, h, T);
        lin(h, 4, T);
        lin(h, 64, 15);
        lin(64, h, 15);
        lin(h, 64, 14);
        lin(64, h, 14);
    }
    lin(h, 50, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(in.v[FC_IK_TOPK].status, FC_IS_UNKNOWN);
    assert_non_null(strstr(in.v[FC_IK_TOPK].note, "29"));
    assert_false(in.complete);
    assert_non_null(strstr(in.missing, "--topk"));
}

/* Fused attention: layers from the repeated block; the sequence, heads and
 * head dim are not in the stream. Given --seq, the model is complete and
 * fits with the core left out (a*d and g*d are all the FLOPs need). */
static void test_fused_attention(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    int64_t h = 64, T = 128;
    for (int l = 0; l < 4; l++) {
        lin(h, h + 2 * 32, T); /* GQA: q 64, k and v 32 each */
        lin(h, h, T);
        lin(h, 2 * 160, T); /* gate and up fused */
        lin(160, h, T);
    }
    lin(h, 77, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_LAYERS), 4);
    assert_int_equal(V(&in, FC_IK_FFN), 160);
    assert_int_equal(V(&in, FC_IK_SWIGLU), 1);
    assert_int_equal(in.v[FC_IK_SEQ].status, FC_IS_UNKNOWN);
    assert_non_null(strstr(in.v[FC_IK_SEQ].note, "--seq"));
    assert_int_equal(in.v[FC_IK_HEADS].status, FC_IS_UNKNOWN);
    assert_int_equal(in.v[FC_IK_BATCH].status, FC_IS_UNKNOWN);
    assert_false(in.complete);
    assert_non_null(strstr(in.missing, "--seq"));
    fc_infer_given g = {.given = 1u << FC_IK_SEQ};
    g.m.seq = 32;
    infer(&g, NULL, &in);
    assert_true(in.complete);
    assert_int_equal(V(&in, FC_IK_BATCH), 4);
    assert_false(in.heads_known);
    assert_int_equal(in.model.heads * in.model.head_dim, 64);
    assert_int_equal(in.model.kv_heads * in.model.head_dim, 32);
    assert_true(in.fits_forward);
    /* --heads given too: head_dim and kv_heads follow from the widths */
    g.given |= 1u << FC_IK_HEADS;
    g.m.heads = 4;
    infer(&g, NULL, &in);
    assert_int_equal(V(&in, FC_IK_HEAD_DIM), 16);
    assert_int_equal(V(&in, FC_IK_KV_HEADS), 2);
    assert_true(in.heads_known);
}

/* What cannot be inferred says so and guesses nothing. */
static void test_not_inferable(void **state)
{
    (void)state;
    static fc_inferred in;
    reset(); /* one layer, fused attention */
    lin(64, 192, 64), lin(64, 64, 64), lin(64, 256, 64), lin(256, 64, 64), lin(64, 90, 64);
    infer(NULL, NULL, &in);
    assert_false(in.f.ok);
    assert_non_null(strstr(in.f.why, "layers cannot be told apart"));
    assert_int_equal(in.v[FC_IK_LAYERS].status, FC_IS_UNKNOWN);
    assert_false(in.complete);
    reset(); /* an MLP: Linear blocks, no attention */
    for (int l = 0; l < 3; l++)
        lin(64, 256, 64), lin(256, 64, 64);
    lin(64, 10, 64);
    infer(NULL, NULL, &in);
    assert_false(in.f.ok);
    assert_int_equal(in.v[FC_IK_HIDDEN].status, FC_IS_UNKNOWN);
    reset(); /* an MLP whose width equals the tokens: fc2, fc1 alternating look like QK^T, AV */
    for (int l = 0; l < 3; l++)
        lin(64, 256, 256), lin(256, 64, 256);
    lin(64, 10, 256);
    infer(NULL, NULL, &in);
    assert_false(in.f.ok);
    assert_false(in.f.core);
    /* every value given on the command line: the formula's defaults fill
     * what the flags leave out (ffn 4h, plain MLP, dense), as 'formula' */
    fc_infer_given g = {.given = 1u << FC_IK_LAYERS | 1u << FC_IK_HIDDEN | 1u << FC_IK_HEADS |
                                 1u << FC_IK_VOCAB | 1u << FC_IK_SEQ | 1u << FC_IK_BATCH};
    g.m = (fc_model){.layers = 3, .hidden = 64, .heads = 4, .vocab = 10, .seq = 16, .batch = 4};
    infer(&g, NULL, &in);
    assert_true(in.complete);
    assert_int_equal(in.model.ffn, 256);
    assert_int_equal(in.model.head_dim, 16);
    assert_int_equal(in.v[FC_IK_FFN].status, FC_IS_CONVENTION);
    reset(); /* no weight at all */
    add(32, 32, 32, 1, 4, 0, 'N', 'N');
    infer(NULL, NULL, &in);
    assert_false(in.f.ok);
    assert_non_null(strstr(in.f.why, "weight"));
    reset(); /* a truncated profile */
    gpt(2, 64, 4, 128, 32, 2, 0);
    fc_fwd_profile p = profile();
    p.truncated = 1;
    static fc_infer_facts f;
    fc_infer_shapes(&p, W, &f);
    assert_false(f.ok);
}

/* CPU torch: a head's copy of K at the address of an earlier step's can be
 * taken for a weight, so some per-head QK^T calls carry a weight flag (and
 * the first QKV both): the core is still the core. d == s here, so QK^T
 * and attention x V differ only in their transposes. */
static void test_flagged_core(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    int64_t h = 64, s = 32, d = 32, nb = 4, T = 64;
    add(3 * h, T, h, 1, 1, 3, 'T', 'N'); /* QKV, both operands flagged */
    add(s, s, d, 1, 1, 0, 'T', 'N');
    for (int i = 0; i < 3; i++)
        add(s, s, d, 1, 1, 1, 'T', 'N');
    add(d, s, s, 1, (uint64_t)nb, 0, 'N', 'N');
    lin(d * 2, h, T), lin(h, 256, T), lin(256, h, T);
    lin(h, 3 * h, T);
    core(s, d, nb, 1);
    lin(d * 2, h, T), lin(h, 256, T), lin(256, h, T);
    lin(h, 99, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_HEADS), 2);
    assert_int_equal(V(&in, FC_IK_HEAD_DIM), 32);
    assert_int_equal(V(&in, FC_IK_SEQ), 32);
    assert_int_equal(V(&in, FC_IK_BATCH), 2);
    assert_true(in.fits_forward);
    /* more flagged heads (B) than Linears (A): the QKV flagged twice is
     * still read with A as its weight */
    reset();
    for (int l = 0; l < 2; l++) {
        add(3 * h, T, h, 1, 1, 3, 'T', 'N');
        add(32, 32, 16, 1, 1, 0, 'T', 'N');
        for (int i = 0; i < 7; i++)
            add(32, 32, 16, 1, 1, 2, 'T', 'N');
        add(16, 32, 32, 1, 8, 0, 'N', 'N');
        lin(h, h, T), lin(h, 256, T), lin(256, h, T);
    }
    add(99, T, h, 1, 1, 3, 'T', 'N');
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_HEADS), 4);
    assert_int_equal(V(&in, FC_IK_VOCAB), 99);
    /* a per-head loop: QK^T and attention x V alternating */
    reset();
    for (int l = 0; l < 2; l++) {
        lin(h, 3 * h, T);
        for (int i = 0; i < 16; i++) { /* B = 4 sequences of 16 x 4 heads of 16 */
            add(16, 16, 16, 1, 1, i == 3 ? 2 : 0, 'T', 'N');
            add(16, 16, 16, 1, 1, 0, 'N', 'N');
        }
        lin(h, h, T), lin(h, 256, T), lin(256, h, T);
    }
    lin(h, 99, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_HEADS), 4);
    assert_int_equal(V(&in, FC_IK_SEQ), 16);
    assert_int_equal(V(&in, FC_IK_BATCH), 4);
}

/* Query heads sharing a key head in one product: QK^T is (r*s) x s. */
static void test_grouped_core(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    int64_t h = 64, a = 8, g = 2, d = 8, s = 16, B = 2, T = B * s, r = a / g;
    for (int l = 0; l < 2; l++) {
        lin(h, (a + 2 * g) * d, T);
        add(r * s, s, d, B * g, 1, 0, 'T', 'N');
        add(r * s, d, s, B * g, 1, 0, 'N', 'N');
        lin(a * d, h, T), lin(h, 128, T), lin(128, h, T);
    }
    lin(h, 99, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_HEADS), a);
    assert_int_equal(V(&in, FC_IK_KV_HEADS), g);
    assert_int_equal(V(&in, FC_IK_SEQ), s);
    assert_true(in.fits_forward);
}

/* Iterations: forwards per iteration (accumulation), ranks, recompute;
 * the formula against an iteration's FLOPs. */
static void test_iterations(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    gpt(2, 64, 4, 128, 32, 2, 0);
    fc_model m = {.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 6};
    fc_flops fl;
    fc_formula(&m, &fl);
    fc_infer_iter it = {.have = 1, .forward_flops = 3 * P.flops, .ranks = 2};
    it.recompute_flops = fl.attention_core_forward; /* selective */
    it.flops = fl.model_flops_per_iteration + it.recompute_flops;
    infer(NULL, &it, &in);
    assert_int_equal(in.micro_batches, 3);
    assert_int_equal(V(&in, FC_IK_BATCH), 2 * 3 * 2);
    assert_int_equal(V(&in, FC_IK_RECOMPUTE), FC_RECOMPUTE_SELECTIVE);
    assert_true(in.fits_iteration);
    fc_u128 model;
    assert_int_equal(fc_infer_iteration_flops(&in, 3 * P.flops, &model), 0);
    assert_true(model == fl.model_flops_per_iteration);
    assert_int_equal(fc_infer_iteration_flops(&in, 3 * P.flops + 1, &model), -1);
    /* full: every layer's forward again */
    it.ranks = 1;
    it.recompute_flops = fl.hardware_by_recompute[FC_RECOMPUTE_FULL] - fl.model_flops_per_iteration;
    it.flops = fl.model_flops_per_iteration + it.recompute_flops;
    infer(NULL, &it, &in);
    assert_int_equal(V(&in, FC_IK_RECOMPUTE), FC_RECOMPUTE_FULL);
    /* one layer of two: none of the formula's modes */
    it.recompute_flops /= 2;
    it.flops = fl.model_flops_per_iteration + it.recompute_flops;
    infer(NULL, &it, &in);
    assert_int_equal(in.v[FC_IK_RECOMPUTE].status, FC_IS_UNKNOWN);
    assert_int_equal(in.model.recompute, FC_RECOMPUTE_NONE);
    /* not a whole number of forwards */
    it.forward_flops = P.flops + P.flops / 2;
    infer(NULL, &it, &in);
    assert_int_equal(in.v[FC_IK_BATCH].status, FC_IS_UNKNOWN);
}

/* A given value overrides; one the stream contradicts is flagged. */
static void test_given(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    gpt(2, 64, 4, 128, 32, 2, 0);
    fc_infer_given g = {.given = 1u << FC_IK_LAYERS | 1u << FC_IK_VOCAB};
    g.m.layers = 3;
    g.m.vocab = 128;
    infer(&g, NULL, &in);
    assert_int_equal(in.v[FC_IK_LAYERS].status, FC_IS_GIVEN);
    assert_int_equal(in.v[FC_IK_LAYERS].value, 3);
    assert_int_equal(in.disagree, 1u << FC_IK_LAYERS);
    assert_int_equal(in.stream_value[FC_IK_LAYERS], 2);
    assert_true(in.complete);
    assert_int_equal(in.model.layers, 3);
    assert_false(in.fits);
}

/* GEMMs the formula has no term for; the logits in chunks. */
static void test_extras_and_chunked_logits(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    int64_t T = 64;
    lin(32, 64, T); /* an input projection before the first layer */
    for (int l = 0; l < 2; l++) {
        lin(64, 192, T);
        core(32, 16, 8, 0);
        lin(64, 64, T), lin(64, 256, T), lin(256, 64, T);
    }
    lin(64, 300, 32), lin(64, 300, 32); /* logits in two chunks */
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_VOCAB), 300);
    assert_true(in.f.extra_flops == (fc_u128)2 * 32 * 64 * T);
    assert_non_null(strstr(in.f.extra, "before the first layer"));
    assert_true(in.complete);
    assert_false(in.fits_forward); /* the extra GEMM is not in the formula */
    /* backward GEMMs the detector labelled forward after the logits, two of
     * which pair up like QK^T and attention x V: extra, not a layer */
    reset();
    gpt(2, 64, 4, 128, 32, 2, 0);
    add(64, 64, 40, 1, 1, 1, 'N', 'N');
    add(64, 40, 64, 1, 1, 0, 'N', 'T');
    add(64, 128, 64, 1, 1, 0, 'N', 'T');
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_int_equal(V(&in, FC_IK_LAYERS), 2);
    assert_int_equal(V(&in, FC_IK_VOCAB), 128);
    assert_non_null(strstr(in.f.extra, "after the logits"));
}



int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt_tiny),      cmocka_unit_test(test_gqa_swiglu_b_weight),
        cmocka_unit_test(test_moe),           cmocka_unit_test(test_moe_batched_first_dense),
        cmocka_unit_test(test_moe_dropped),   cmocka_unit_test(test_fused_attention),
        cmocka_unit_test(test_not_inferable), cmocka_unit_test(test_flagged_core),
        cmocka_unit_test(test_grouped_core),  cmocka_unit_test(test_iterations),
        cmocka_unit_test(test_given),         cmocka_unit_test(test_extras_and_chunked_logits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
