/* SPDX-License-Identifier: Apache-2.0 */
/* test_infer_kinds_units.c - the layer-kinds reader (analysis/infer_kinds.c,
 * infer_mixers.c, infer_values.c) on forward profiles written by hand, the
 * streams a GPU run shows (no attention core: fused kernels; no scan GEMM:
 * Triton kernels) and what the CPU runs of test_infer_kinds.py do not
 * cover: multi-latent attention read off its projections alone, a Jamba
 * stack (Mamba-1, attention, MoE), a gated delta-net without its scan (what
 * is unknown, and why; given, the model fits), multi-token prediction on
 * a plain GPT, and a Mamba-2 layer without its scan (refused by name).
 * Each complete model's formula forward is checked against the profile's
 * FLOPs summed here GEMM by GEMM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "infer.h"

#include "infer_profile.h"

static void expect(const fc_inferred *in, int key, int status, int64_t value)
{
    const fc_infer_val *v = &in->v[key];
    if (v->status != status || (status != FC_IS_UNKNOWN && v->value != value))
        print_message("%s: %s %lld (%s), want %s %lld\n", fc_ik_name(key), fc_is_name(v->status),
                      (long long)v->value, v->note, fc_is_name(status), (long long)value);
    assert_int_equal(v->status, status);
    if (status != FC_IS_UNKNOWN)
        assert_int_equal(v->value, value);
}

static void fits(const fc_inferred *in)
{
    if (!in->complete)
        fail_msg("not complete: %s", in->missing);
    fc_flops fl;
    fc_formula(&in->model, &fl);
    fc_u128 fwd = fl.forward_flops_per_iteration - (in->f.core ? 0 : fl.attention_core_forward);
    assert_true(fwd == P.flops);
    assert_true(in->fits_forward);
}

/* MLA with fused attention (no QK^T in the stream): l=2, h=64, a=4, q_lora
 * 32, kv_lora 16, nope 8, rope 4, v 8: Q 4*12 = 48, kv_b 4*16 = 64, o
 * reads 4*8 = 32, so a = (48 - 64 + 32) / 4 = 4. The sequence is not in
 * the stream: --seq makes it complete. */
static void test_mla_fused(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    const int64_t T = 64;
    for (int l = 0; l < 2; l++) {
        lin(64, 32, T), lin(32, 48, T), lin(64, 20, T), lin(16, 64, T), lin(32, 64, T);
        lin(64, 256, T), lin(256, 64, T);
    }
    lin(64, 100, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_true(in.f.kinds && in.f.mla && !in.f.core);
    expect(&in, FC_IK_HEADS, FC_IS_EXACT, 4);
    expect(&in, FC_IK_KV_LORA_RANK, FC_IS_EXACT, 16);
    expect(&in, FC_IK_Q_LORA_RANK, FC_IS_EXACT, 32);
    expect(&in, FC_IK_QK_NOPE_DIM, FC_IS_EXACT, 8);
    expect(&in, FC_IK_QK_ROPE_DIM, FC_IS_EXACT, 4);
    expect(&in, FC_IK_V_HEAD_DIM, FC_IS_EXACT, 8);
    expect(&in, FC_IK_SEQ, FC_IS_UNKNOWN, 0);
    assert_false(in.complete);
    fc_infer_given g = {.given = FC_IK_BIT(FC_IK_SEQ)};
    g.m.seq = 32;
    infer(&g, NULL, &in);
    expect(&in, FC_IK_BATCH, FC_IS_EXACT, 2);
    fits(&in);
}

/* Jamba-like: 4 layers "MMAM" x "DEDE"; h 32; Mamba-1 d_inner 64, state 4,
 * dt rank 3 (in 32 -> 128, x_proj 64 -> 11, dt_proj 3 -> 64, out 64 ->
 * 32); attention a=4, g=2, d=8 with its core (s=16, B=2); gated MLP 48;
 * MoE 4 experts of 24 top-1 (router 32 -> 4, each expert on its tokens). */
static void test_jamba_like(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    const int64_t T = 32, routed[4] = {10, 6, 9, 7};
    for (int l = 0; l < 4; l++) {
        if (l == 2) {
            lin(32, 32, T), lin(32, 16, T), lin(32, 16, T);
            core(16, 8, 2 * 4, 0);
            lin(32, 32, T);
        } else {
            lin(32, 128, T), lin(64, 11, T), lin(3, 64, T), lin(64, 32, T);
        }
        if (l % 2 == 0) {
            lin(32, 48, T), lin(32, 48, T), lin(48, 32, T);
        } else {
            lin(32, 4, T);
            for (int e = 0; e < 4; e++)
                lin(32, 24, routed[e]), lin(32, 24, routed[e]), lin(24, 32, routed[e]);
        }
    }
    lin(32, 50, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_string_equal(in.f.mixers, "MMAM");
    expect(&in, FC_IK_LAYERS, FC_IS_EXACT, 4);
    expect(&in, FC_IK_MAMBA_VERSION, FC_IS_EXACT, 1);
    expect(&in, FC_IK_MAMBA_INNER, FC_IS_EXACT, 64);
    expect(&in, FC_IK_MAMBA_STATE, FC_IS_EXACT, 4);
    expect(&in, FC_IK_MAMBA_DT_RANK, FC_IS_EXACT, 3);
    expect(&in, FC_IK_EXPERTS, FC_IS_EXACT, 4);
    expect(&in, FC_IK_TOPK, FC_IS_EXACT, 1);
    /* MoE on layers 1 and 3: not Megatron's every-N rule (from layer 1 that
     * is every layer), so the MLP pattern lists them */
    assert_string_equal(in.f.mlps, "DEDE");
    expect(&in, FC_IK_MOE_EVERY, FC_IS_EXACT, 1);
    expect(&in, FC_IK_MOE_FIRST_DENSE, FC_IS_EXACT, 0);
    expect(&in, FC_IK_HEADS, FC_IS_EXACT, 4);
    expect(&in, FC_IK_KV_HEADS, FC_IS_EXACT, 2);
    expect(&in, FC_IK_SEQ, FC_IS_EXACT, 16);
    fits(&in);
}

/* Qwen3-Next-like on a GPU: "GGA" x MoE... here dense MLPs of 40; the
 * delta net's rule runs no GEMM: in_proj_qkvz 32 -> 2*2*8 + 2*4*6 = 80,
 * in_proj_ba 32 -> 8, out_proj 24 -> 32 give the value heads (4) and width
 * (6) and the keys' total 2*8 = 16, not dk or the chunk. */
static void test_gdn_without_scan(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    const int64_t T = 40;
    for (int l = 0; l < 3; l++) {
        if (l == 2) {
            lin(32, 32, T), lin(32, 16, T), lin(32, 16, T);
            core(20, 8, 2 * 4, 0);
            lin(32, 32, T);
        } else {
            lin(32, 80, T), lin(32, 8, T), lin(24, 32, T);
        }
        lin(32, 40, T), lin(32, 40, T), lin(40, 32, T);
    }
    lin(32, 50, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    assert_string_equal(in.f.mixers, "GGA");
    expect(&in, FC_IK_GDN_V_HEADS, FC_IS_EXACT, 4);
    expect(&in, FC_IK_GDN_V_DIM, FC_IS_EXACT, 6);
    expect(&in, FC_IK_GDN_K_DIM, FC_IS_UNKNOWN, 0);
    expect(&in, FC_IK_GDN_K_HEADS, FC_IS_UNKNOWN, 0);
    expect(&in, FC_IK_GDN_CHUNK, FC_IS_UNKNOWN, 0);
    assert_non_null(strstr(in.v[FC_IK_GDN_K_DIM].note, "ran no GEMM"));
    assert_false(in.complete);
    assert_non_null(strstr(in.missing, "--gdn-key-heads"));
    /* given the key heads and the chunk: complete; the scan's FLOPs are not
     * in the stream (no GEMM), so the formula's forward is above the count
     * by exactly the scan term */
    fc_infer_given g = {.given = FC_IK_BIT(FC_IK_GDN_K_HEADS) | FC_IK_BIT(FC_IK_GDN_K_DIM) |
                                 FC_IK_BIT(FC_IK_GDN_CHUNK)};
    g.m.gdn_k_heads = 2, g.m.gdn_k_dim = 8, g.m.gdn_chunk = 10;
    infer(&g, NULL, &in);
    assert_true(in.complete);
    fc_flops fl;
    fc_formula(&in.model, &fl);
    assert_true(fl.forward_flops_per_iteration - fl.scan_forward == P.flops);
}

/* A plain GPT (l=2, h=64, a=4, s=32, B=2, V=128) with one MTP depth: after
 * the logits, 128 -> 64 (2h -> h), one layer like the others, its logits. */
static void test_mtp_gpt(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    const int64_t T = 64;
    for (int l = 0; l < 3; l++) {
        if (l == 2)
            lin(64, 128, T), lin(128, 64, T); /* the logits, then the projection */
        lin(64, 192, T);
        core(32, 16, 8, 0);
        lin(64, 64, T), lin(64, 256, T), lin(256, 64, T);
    }
    lin(64, 128, T);
    infer(NULL, NULL, &in);
    assert_ok(&in);
    expect(&in, FC_IK_LAYERS, FC_IS_EXACT, 2);
    expect(&in, FC_IK_MTP_LAYERS, FC_IS_EXACT, 1);
    expect(&in, FC_IK_VOCAB, FC_IS_EXACT, 128);
    assert_string_equal(in.f.mtp_block, "AD");
    fits(&in);
}

/* A Mamba-2 layer on a GPU (its scan in Triton kernels) next to fused
 * attention: in_proj h -> X and out_proj D -> h alone could be either:
 * refused with the reason, nothing guessed. */
static void test_mamba2_without_scan(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    const int64_t T = 64;
    lin(64, 2 * 128 + 2 * 16 + 8, T), lin(128, 64, T); /* Mamba-2 */
    lin(64, 128, T), lin(128, 64, T);                  /* MLP */
    lin(64, 192, T), lin(64, 64, T);                   /* fused attention */
    lin(64, 128, T), lin(128, 64, T);
    lin(64, 100, T);
    infer(NULL, NULL, &in);
    assert_false(in.f.ok);
    if (strstr(in.f.why, "cannot be told apart") == NULL)
        print_message("why: %s\n", in.f.why);
    assert_non_null(strstr(in.f.why, "cannot be told apart"));
    assert_false(in.complete);
}

/* The same unreadable stream with the whole model given as flags, MoE
 * layers by an MLP pattern ("DE": layer 2's MLP is the experts): complete
 * without --moe-every / --moe-first-dense, which only say where MoE layers
 * are when no pattern lists them ('flopcount report' asked for both). */
static void test_flags_with_mlp_pattern(void **state)
{
    (void)state;
    static fc_inferred in;
    reset();
    const int64_t T = 64;
    lin(64, 2 * 128 + 2 * 16 + 8, T), lin(128, 64, T);
    lin(64, 128, T), lin(128, 64, T);
    lin(64, 192, T), lin(64, 64, T);
    lin(64, 128, T), lin(128, 64, T);
    lin(64, 100, T);
    fc_infer_given g = {0};
    const int keys[] = {FC_IK_LAYERS,         FC_IK_HIDDEN,         FC_IK_HEADS,
                        FC_IK_KV_HEADS,       FC_IK_HEAD_DIM,       FC_IK_FFN,
                        FC_IK_SWIGLU,         FC_IK_VOCAB,          FC_IK_SEQ,
                        FC_IK_BATCH,          FC_IK_EXPERTS,        FC_IK_TOPK,
                        FC_IK_MOE_FFN,        FC_IK_SHARED_EXPERTS, FC_IK_SHARED_FFN,
                        FC_IK_MAMBA_VERSION,  FC_IK_MAMBA_HEADS,    FC_IK_MAMBA_HEAD_DIM,
                        FC_IK_MAMBA_STATE,    FC_IK_MAMBA_GROUPS,   FC_IK_MAMBA_CHUNK};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        g.given |= FC_IK_BIT(keys[i]);
    g.m.layers = 2, g.m.hidden = 64, g.m.heads = 4, g.m.kv_heads = 4, g.m.head_dim = 16;
    g.m.ffn = 128, g.m.swiglu = 0, g.m.vocab = 100, g.m.seq = 32, g.m.batch = 2;
    g.m.experts = 4, g.m.topk = 1, g.m.moe_ffn = 32, g.m.shared_experts = 0, g.m.shared_ffn = 0;
    g.m.mamba_version = 2, g.m.mamba_heads = 8, g.m.mamba_head_dim = 16, g.m.mamba_state = 16;
    g.m.mamba_groups = 1, g.m.mamba_chunk = 16;
    strcpy(g.m.mixers, "MA");
    strcpy(g.m.mlps, "DE");
    infer(&g, NULL, &in);
    if (!in.complete)
        fail_msg("not complete: %s", in.missing);
    assert_string_equal(in.model.mlps, "DE");
    assert_int_equal(fc_formula_moe_layers(&in.model), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mla_fused),           cmocka_unit_test(test_jamba_like),
        cmocka_unit_test(test_gdn_without_scan),    cmocka_unit_test(test_mtp_gpt),
        cmocka_unit_test(test_mamba2_without_scan), cmocka_unit_test(test_flags_with_mlp_pattern),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
