/* SPDX-License-Identifier: Apache-2.0 */
/* test_hfconfig_kinds.c - the published configs of the 2025-26 families
 * through analysis/io/hfconfig*.c: DeepSeek-V3, Kimi K2 (multi-latent
 * attention, MoE, multi-token prediction), Qwen3-Next (gated delta-net
 * every 3 of 4 layers, gated attention), Nemotron-H and Nemotron-3-Nano
 * (Mamba-2 hybrids), Jamba 1.5 Mini (Mamba-1 + MoE), Llama 4 Scout
 * (chunked attention, shared expert), gpt-oss (sliding/full), Gemma 3.
 *
 * Each model's forward FLOPs at s = 4096, B = 1 are written out here from
 * the layers' matrix shapes (gemm(m, n, k) = 2*m*n*k); the parameter
 * counts against the publishers' rounded figures. Then the refusals: every
 * new field wrong-typed, negative or absent where required, an unknown
 * layer kind, and a field that changes the FLOPs left unread, each one
 * line naming the field. The fixtures in tests/data/configs are written
 * from the published config.json files (their fields and values, trimmed
 * of tokenizer and rope details). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../analysis/formula.h"
#include "../analysis/io/hfconfig.h"
#include "formula_test.h"

#ifndef FC_TEST_CONFIGS
#error "FC_TEST_CONFIGS must name tests/data/configs"
#endif

typedef fc_u128 u128;

static fc_model load(const char *name, int64_t seq, unsigned *found)
{
    char path[512], err[300] = "";
    snprintf(path, sizeof path, "%s/%s", FC_TEST_CONFIGS, name);
    fc_model m;
    memset(&m, 0, sizeof m);
    int rc = fc_hfconfig_read(path, &m, found, err, sizeof err);
    if (rc != 0)
        print_message("%s\n", err);
    assert_int_equal(rc, 0);
    m.seq = seq;
    m.batch = 1;
    rc = fc_model_check(&m, err, sizeof err);
    if (rc != 0)
        print_message("%s\n", err);
    assert_int_equal(rc, 0);
    return m;
}

static fc_flops flops(const fc_model *m)
{
    fc_flops f;
    fc_formula(m, &f);
    assert_int_equal(f.overflow, 0);
    return f;
}

/* within [lo, hi] billion, the publisher's rounding */
static void billions(u128 v, double lo, double hi)
{
    double b = (double)v / 1e9;
    if (b < lo || b > hi)
        print_message("%.3f B not in [%.2f, %.2f]\n", b, lo, hi);
    assert_true(b >= lo && b <= hi);
}

#define T 4096 /* tokens: s = 4096, B = 1 */

/* DeepSeek-V3: 61 layers, h 7168, 128 heads; MLA q_lora 1536, kv_lora
 * 512, nope 128 + rope 64, v 128; 3 dense layers of 18432, then 58 MoE
 * layers (256 experts of 2048, top-8, 1 shared of 2048); 1 MTP depth
 * (MLA + MoE block); V 129280, untied. */
static void test_deepseek_v3(void **state)
{
    (void)state;
    unsigned found;
    fc_model m = load("deepseek-v3.json", T, &found);
    assert_true(found & FC_HF_MLA), assert_true(found & FC_HF_MTP);
    assert_int_equal(m.kv_lora_rank, 512), assert_int_equal(m.q_lora_rank, 1536);
    assert_int_equal(m.qk_nope_dim, 128), assert_int_equal(m.qk_rope_dim, 64);
    assert_int_equal(m.v_head_dim, 128), assert_int_equal(m.kv_heads, 0);
    assert_int_equal(m.mtp_layers, 1), assert_int_equal(m.moe_first_dense, 3);
    u128 attn = gemm(T, 1536, 7168)         /* q_a */
                + gemm(T, 128 * 192, 1536)  /* q_b */
                + gemm(T, 512 + 64, 7168)   /* kv_a with the rope key */
                + gemm(T, 128 * 256, 512)   /* kv_b: K_nope and V */
                + gemm(T, 7168, 128 * 128); /* o */
    u128 core = 128 * (gemm(T, T, 192) + gemm(T, 128, T));
    u128 dense = 2 * gemm(T, 18432, 7168) + gemm(T, 7168, 18432);
    u128 expert = 2 * gemm(T, 2048, 7168) + gemm(T, 7168, 2048);
    u128 moe = 8 * expert + expert + gemm(T, 256, 7168); /* routed, shared, router */
    u128 mtp = gemm(T, 7168, 2 * 7168);
    u128 logits = gemm(T, 129280, 7168);
    fc_flops f = flops(&m);
    EQ(f.forward_flops_per_iteration, 62 * (attn + core) + 3 * dense + 59 * moe + mtp + 2 * logits);
    /* 671B total, 37B activated (DeepSeek-V3 technical report: the main
     * model; the MTP module's 14B beside it, its embedding and head shared) */
    m.mtp_layers = 0;
    f = flops(&m);
    billions(f.params, 670.5, 671.5);
    billions(f.params_active, 37.0, 38.0);
}

/* Kimi K2: DeepSeek-V3's shape with 64 heads, 384 experts, one dense
 * layer, no MTP, V 163840; "1T total, 32B activated". */
static void test_kimi_k2(void **state)
{
    (void)state;
    fc_model m = load("kimi-k2.json", T, NULL);
    assert_int_equal(m.heads, 64), assert_int_equal(m.experts, 384);
    assert_int_equal(m.moe_first_dense, 1), assert_int_equal(m.mtp_layers, 0);
    u128 attn = gemm(T, 1536, 7168) + gemm(T, 64 * 192, 1536) + gemm(T, 576, 7168) +
                gemm(T, 64 * 256, 512) + gemm(T, 7168, 64 * 128);
    u128 core = 64 * (gemm(T, T, 192) + gemm(T, 128, T));
    u128 expert = 2 * gemm(T, 2048, 7168) + gemm(T, 7168, 2048);
    u128 dense = 2 * gemm(T, 18432, 7168) + gemm(T, 7168, 18432);
    fc_flops f = flops(&m);
    EQ(f.forward_flops_per_iteration,
       61 * (attn + core) + dense + 60 * (9 * expert + gemm(T, 384, 7168)) + gemm(T, 163840, 7168));
    billions(f.params, 1000, 1050);
    billions(f.params_active, 32.0, 33.0);
}

/* Qwen3-Next-80B-A3B: 48 layers, full attention on layers 3, 7, 11 ...
 * (full_attention_interval 4), gated delta-net on the others; h 2048.
 * Attention: 16 heads of 256, 2 KV heads, Q projection twice as wide
 * (query and its sigmoid gate). Delta net: 16 key heads of 128, 32 value
 * heads of 128, chunk 64. MoE everywhere: 512 experts of 512, top-10, one
 * shared expert of 512. V 151936, untied. */
static void test_qwen3_next(void **state)
{
    (void)state;
    unsigned found;
    fc_model m = load("qwen3-next-80b-a3b.json", T, &found);
    assert_true(found & FC_HF_GDN), assert_true(found & FC_HF_GATE);
    assert_int_equal(m.attn_gate, 1);
    fc_layer_counts c;
    fc_model_layer_counts(&m, &c);
    assert_int_equal(c.attention, 12), assert_int_equal(c.gdn, 36), assert_int_equal(c.moe, 48);
    assert_int_equal(fc_model_layer_mixer(&m, 3), FC_MIX_ATTENTION);
    assert_int_equal(fc_model_layer_mixer(&m, 4), FC_MIX_GDN);
    u128 attn = gemm(T, 2 * 16 * 256, 2048) + 2 * gemm(T, 2 * 256, 2048) + gemm(T, 2048, 16 * 256);
    u128 core = 16 * (gemm(T, T, 256) + gemm(T, 256, T));
    /* in_proj_qkvz 2048 -> 2*16*128 + 2*32*128, in_proj_ba -> 2*32,
     * out_proj 32*128 -> 2048 */
    u128 gdn = gemm(T, 4096 + 8192, 2048) + gemm(T, 64, 2048) + gemm(T, 2048, 4096);
    /* 64 chunks of 64 per value head: five 64 x 64 products (K_beta K^T,
     * T V_beta, T K_beta, Q K^T, (Q K^T) U) and three against the 128 x
     * 128 state (W S, Q S, K^T U) */
    u128 chunk = gemm(64, 64, 128) + gemm(64, 128, 64) + gemm(64, 128, 64) + gemm(64, 64, 128) +
                 gemm(64, 128, 64) + 2 * gemm(64, 128, 128) + gemm(128, 128, 64);
    u128 scan = 32 * 64 * chunk;
    u128 expert = 2 * gemm(T, 512, 2048) + gemm(T, 2048, 512);
    u128 moe = 10 * expert + expert + gemm(T, 512, 2048);
    fc_flops f = flops(&m);
    EQ(f.attention_linear_forward, 12 * attn);
    EQ(f.scan_forward, 36 * scan);
    EQ(f.forward_flops_per_iteration,
       12 * (attn + core) + 36 * (gdn + scan) + 48 * moe + gemm(T, 151936, 2048));
    billions(f.params, 79, 81); /* "80B in total" */
}

/* Nemotron-H-8B: 52 sublayers, M-M-M-M*-...: 24 Mamba-2, 4 attention, 24
 * MLP (relu^2, 2 matrices of 21504). h 4096; attention 32 heads, 8 KV
 * heads of 128; Mamba-2 128 heads of 64 (d_inner 8192), state 128, 8
 * groups, chunk 128 (32 chunks). V 131072. */
static void test_nemotron_h(void **state)
{
    (void)state;
    fc_model m = load("nemotron-h-8b.json", T, NULL);
    fc_layer_counts c;
    fc_model_layer_counts(&m, &c);
    assert_int_equal(c.mamba, 24), assert_int_equal(c.attention, 4);
    assert_int_equal(c.no_mixer, 24), assert_int_equal(c.dense, 24), assert_int_equal(c.no_mlp, 28);
    assert_int_equal(m.head_dim, 128), assert_int_equal(m.swiglu, 0);
    u128 attn = gemm(T, 4096, 4096) + 2 * gemm(T, 1024, 4096) + gemm(T, 4096, 4096) +
                32 * (gemm(T, T, 128) + gemm(T, 128, T));
    /* in_proj 4096 -> z, x (8192 each), B, C (8*128 each), dt (128) */
    u128 mamba = gemm(T, 2 * 8192 + 2 * 1024 + 128, 4096) + gemm(T, 4096, 8192);
    /* per chunk of 128: C B^T per group (8), (C B^T o L) X per head (128),
     * B^T X and C S per head against the 128 x 64 state */
    u128 chunk = 8 * gemm(128, 128, 128) + 128 * gemm(128, 64, 128) + 128 * gemm(128, 64, 128) +
                 128 * gemm(128, 64, 128);
    u128 scan = 32 * chunk;
    u128 mlp = gemm(T, 21504, 4096) + gemm(T, 4096, 21504);
    fc_flops f = flops(&m);
    EQ(f.scan_forward, 24 * scan);
    EQ(f.forward_flops_per_iteration,
       4 * attn + 24 * (mamba + scan) + 24 * mlp + gemm(T, 131072, 4096));
    billions(f.params, 8.0, 8.2);
}

/* Nemotron-3-Nano-30B-A3B: 52 sublayers MEMEM*E...: 23 Mamba-2, 23 MoE, 6
 * attention. h 2688; attention 32 heads, 2 KV heads of 128; Mamba-2 64
 * heads of 64 (d_inner 4096, not expand x h = 5376), state 128, 8 groups,
 * chunk 128; MoE 128 experts of 1856 (relu^2), top-6, one shared of 3712. */
static void test_nemotron_nano(void **state)
{
    (void)state;
    fc_model m = load("nemotron-3-nano-30b-a3b.json", T, NULL);
    assert_int_equal(fc_model_mamba_inner(&m), 4096);
    assert_int_equal(m.shared_experts, 1), assert_int_equal(m.shared_ffn, 3712);
    u128 attn = gemm(T, 4096, 2688) + 2 * gemm(T, 256, 2688) + gemm(T, 2688, 4096) +
                32 * (gemm(T, T, 128) + gemm(T, 128, T));
    u128 mamba = gemm(T, 2 * 4096 + 2 * 1024 + 64, 2688) + gemm(T, 2688, 4096);
    u128 chunk = 8 * gemm(128, 128, 128) + 3 * 64 * gemm(128, 64, 128);
    u128 moe = 6 * (gemm(T, 1856, 2688) + gemm(T, 2688, 1856)) + gemm(T, 3712, 2688) +
               gemm(T, 2688, 3712) + gemm(T, 128, 2688);
    fc_flops f = flops(&m);
    EQ(f.forward_flops_per_iteration,
       6 * attn + 23 * (mamba + 32 * chunk) + 23 * moe + gemm(T, 131072, 2688));
    billions(f.params, 31.0, 32.0);      /* 31.6B total */
    billions(f.params_active, 3.4, 3.8); /* 3.6B active, embeddings included */
}

/* Jamba 1.5 Mini: 32 layers, attention where i % 8 == 4 (4 layers),
 * Mamba-1 elsewhere: d_inner 2 x 4096, state 16, dt rank 256; MoE where
 * i % 2 == 1 (16 experts of 14336, top-2), dense 14336 elsewhere; gated. */
static void test_jamba(void **state)
{
    (void)state;
    fc_model m = load("jamba-1.5-mini.json", T, NULL);
    assert_int_equal(fc_model_mamba_version(&m), 1);
    assert_int_equal(fc_model_layer_mixer(&m, 4), FC_MIX_ATTENTION);
    assert_int_equal(fc_model_layer_mlp(&m, 1), FC_MLP_MOE);
    u128 attn = gemm(T, 4096, 4096) + 2 * gemm(T, 1024, 4096) + gemm(T, 4096, 4096) +
                32 * (gemm(T, T, 128) + gemm(T, 128, T));
    /* in_proj -> x, z; x_proj -> dt (256), B, C (16 each); dt_proj; out_proj */
    u128 mamba =
        gemm(T, 16384, 4096) + gemm(T, 256 + 32, 8192) + gemm(T, 8192, 256) + gemm(T, 4096, 8192);
    u128 mlp = 2 * gemm(T, 14336, 4096) + gemm(T, 4096, 14336);
    fc_flops f = flops(&m);
    EQ(f.scan_forward, 0);
    EQ(f.forward_flops_per_iteration, 4 * attn + 28 * mamba + 16 * mlp +
                                          16 * (2 * mlp + gemm(T, 16, 4096)) +
                                          gemm(T, 65536, 4096));
    billions(f.params, 51, 53);          /* 52B total */
    billions(f.params_active, 12, 12.5); /* 12B active */
}

/* Llama 4 Scout: 48 layers, RoPE layers (3 of 4) chunked to 8192 keys,
 * NoPE layers (3, 7, ...) global; MoE in every layer: 16 experts of 8192,
 * top-1, one shared expert of 8192; h 5120, 40 heads, 8 KV heads of 128.
 * At s = 16384 a chunked layer's core is two 8192 x 8192 blocks. */
static void test_llama4_scout(void **state)
{
    (void)state;
    const int64_t s = 16384;
    fc_model m = load("llama-4-scout.json", s, NULL);
    assert_int_equal(m.attn_chunk, 8192), assert_int_equal(m.shared_experts, 1);
    assert_int_equal(m.ffn, 16384), assert_int_equal(m.moe_ffn, 8192);
    fc_layer_counts c;
    fc_model_layer_counts(&m, &c);
    assert_int_equal(c.chunked, 36), assert_int_equal(c.attention, 12);
    u128 lin = gemm(s, 5120, 5120) + 2 * gemm(s, 1024, 5120) + gemm(s, 5120, 5120);
    u128 global = 40 * (gemm(s, s, 128) + gemm(s, 128, s));
    u128 chunked = 40 * 2 * (gemm(8192, 8192, 128) + gemm(8192, 128, 8192));
    u128 expert = 2 * gemm(s, 8192, 5120) + gemm(s, 5120, 8192);
    fc_flops f = flops(&m);
    EQ(f.attention_core_forward, 12 * global + 36 * chunked);
    EQ(f.forward_flops_per_iteration, 48 * lin + 12 * global + 36 * chunked +
                                          48 * (2 * expert + gemm(s, 16, 5120)) +
                                          gemm(s, 202048, 5120));
    billions(f.params, 107, 109);          /* 109B with the vision encoder */
    billions(f.params_active, 17.0, 17.5); /* 17B active */
}

/* gpt-oss-20b: sliding (128) and full layers alternating, 32 experts of
 * 2880, top-4 (experts_per_token); Gemma 3 27B: 1 global layer in 6. */
static void test_gpt_oss_gemma3(void **state)
{
    (void)state;
    fc_model m = load("gpt-oss-20b.json", T, NULL);
    assert_int_equal(m.window, 128), assert_int_equal(fc_model_window_layers(&m), 12);
    assert_int_equal(m.experts, 32), assert_int_equal(m.topk, 4);
    u128 core = 64 * (gemm(T, T, 64) + gemm(T, 64, T)), window = 64 * 2 * gemm(T, 128, 64);
    fc_flops f = flops(&m);
    EQ(f.attention_core_forward, 12 * core + 12 * window);
    billions(f.params, 20.5, 21.5); /* 21B */
    m = load("gemma-3-27b.json", T, NULL);
    assert_int_equal(m.window, 1024), assert_int_equal(fc_model_window_layers(&m), 52);
}

/* ---- refusals ---- */

#define MLA "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4"
#define NEMO                                                                                       \
    "\"model_type\": \"nemotron_h\", \"hidden_size\": 64, \"num_hidden_layers\": 3, "              \
    "\"num_attention_heads\": 4, \"hybrid_override_pattern\": \"M*-\", \"mamba_num_heads\": 4, "   \
    "\"mamba_head_dim\": 8, \"ssm_state_size\": 8, \"n_groups\": 2"
#define QNEXT                                                                                      \
    "\"model_type\": \"qwen3_next\", \"hidden_size\": 64, \"num_hidden_layers\": 4, "              \
    "\"num_attention_heads\": 4, \"linear_num_key_heads\": 2, \"linear_num_value_heads\": 4, "     \
    "\"linear_key_head_dim\": 8"
#define JAMBA                                                                                      \
    "\"model_type\": \"jamba\", \"hidden_size\": 64, \"num_hidden_layers\": 4, "                   \
    "\"num_attention_heads\": 4, \"attn_layer_period\": 2"
#define LLAMA4                                                                                     \
    "\"model_type\": \"llama4_text\", \"hidden_size\": 64, \"num_hidden_layers\": 4, "             \
    "\"num_attention_heads\": 4, \"intermediate_size\": 32, \"num_local_experts\": 4, "            \
    "\"num_experts_per_tok\": 1"

static void test_refused_mla_mtp(void **state)
{
    (void)state;
    expect_parse_error("{" MLA ", \"kv_lora_rank\": \"512\"}", "kv_lora_rank is not an integer");
    expect_parse_error("{" MLA ", \"kv_lora_rank\": -2}", "kv_lora_rank is out of range");
    expect_parse_error("{" MLA
                       ", \"kv_lora_rank\": 16, \"qk_rope_head_dim\": 4, \"v_head_dim\": 8}",
                       "kv_lora_rank (multi-latent attention) needs qk_nope_head_dim");
    expect_parse_error("{" MLA
                       ", \"kv_lora_rank\": 16, \"qk_nope_head_dim\": 4, \"v_head_dim\": 8}",
                       "needs qk_rope_head_dim");
    expect_parse_error("{" MLA
                       ", \"kv_lora_rank\": 16, \"qk_nope_head_dim\": 4, \"qk_rope_head_dim\": 4}",
                       "needs v_head_dim");
    expect_parse_error("{" MLA
                       ", \"kv_lora_rank\": 16, \"qk_nope_head_dim\": 4, \"qk_rope_head_dim\": 4,"
                       " \"v_head_dim\": 8, \"q_lora_rank\": 1.5}",
                       "q_lora_rank is not an integer");
    expect_parse_error("{" MLA
                       ", \"kv_lora_rank\": 16, \"qk_nope_head_dim\": 4, \"qk_rope_head_dim\": -4,"
                       " \"v_head_dim\": 8}",
                       "qk_rope_head_dim is out of range");
    expect_parse_error("{" MLA ", \"qk_nope_head_dim\": 4}",
                       "qk_nope_head_dim is not modelled for this config");
    expect_parse_error("{" MLA
                       ", \"kv_lora_rank\": 16, \"qk_nope_head_dim\": 4, \"qk_rope_head_dim\": 4,"
                       " \"v_head_dim\": 8, \"index_topk\": 2048}",
                       "index_topk is not modelled");
    expect_parse_error("{" MLA ", \"num_nextn_predict_layers\": \"1\"}",
                       "num_nextn_predict_layers is not an integer");
    expect_parse_error("{" MLA ", \"num_nextn_predict_layers\": -1}",
                       "num_nextn_predict_layers is out of range");
    expect_parse_error("{" MLA ", \"mtp_layers_block_type\": [\"attention\", \"moe\"]}",
                       "mtp_layers_block_type without num_nextn_predict_layers");
    expect_parse_error("{" MLA
                       ", \"num_nextn_predict_layers\": 1, \"mtp_layers_block_type\": [\"conv\"]}",
                       "mtp_layers_block_type is not [mixer] or [mixer, mlp]");
}

static void test_refused_hybrid(void **state)
{
    (void)state;
    expect_parse_error("{" NEMO ", \"chunk_size\": 8, \"hybrid_override_pattern\": 7}",
                       "hybrid_override_pattern is not a string");
    expect_parse_error("{" NEMO ", \"chunk_size\": 8, \"hybrid_override_pattern\": \"M*\"}",
                       "hybrid_override_pattern has 2 entries; num_hidden_layers is 3");
    expect_parse_error("{" NEMO ", \"chunk_size\": 8, \"hybrid_override_pattern\": \"M*X\"}",
                       "hybrid_override_pattern: 'X' (layer 3) is not a layer kind");
    /* no chunk_size: transformers' NemotronHConfig default (128), named;
     * a config naming its own class (auto_map), or another model type,
     * has no default known here */
    {
        const char *json = "{" NEMO "}";
        fc_model m;
        memset(&m, 0, sizeof m);
        char err[300], notes[300];
        unsigned found;
        assert_int_equal(fc_hfconfig_parse_noted(json, strlen(json), &m, &found, notes,
                                                 sizeof notes, err, sizeof err),
                         0);
        assert_int_equal(m.mamba_chunk, 128);
        assert_non_null(strstr(notes, "chunk_size 128: the configuration class's default, "
                                      "absent from the file (transformers NemotronHConfig"));
        json = "{" NEMO ", \"mamba_chunk_size\": 64}";
        memset(&m, 0, sizeof m);
        assert_int_equal(fc_hfconfig_parse_noted(json, strlen(json), &m, &found, notes,
                                                 sizeof notes, err, sizeof err),
                         0);
        assert_int_equal(m.mamba_chunk, 64);
        assert_string_equal(notes, "");
    }
    expect_parse_error("{" NEMO ", \"auto_map\": {\"AutoConfig\": \"c.NemotronHConfig\"}}",
                       "chunk_size is absent and auto_map names the model's own class");
    expect_parse_error("{\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4,"
                       " \"layers_block_type\": [\"mamba\", \"attention\"], \"mamba_num_heads\": 4,"
                       " \"mamba_head_dim\": 8, \"ssm_state_size\": 8, \"n_groups\": 2}",
                       "Mamba-2 layers needs chunk_size");
    expect_parse_error("{" NEMO ", \"chunk_size\": \"8\"}", "chunk_size is not an integer");
    expect_parse_error("{" NEMO ", \"chunk_size\": 8, \"n_groups\": 3}",
                       "n_groups does not divide");
    expect_parse_error("{" NEMO ", \"chunk_size\": 8, \"mamba_num_heads\": -4}",
                       "mamba_num_heads is out of range");
    expect_parse_error(
        "{\"model_type\": \"nemotron_h\", \"hidden_size\": 64, \"num_hidden_layers\": 1,"
        " \"num_attention_heads\": 4, \"hybrid_override_pattern\": \"M\", \"chunk_size\": 8,"
        " \"mamba_num_heads\": 4, \"mamba_head_dim\": 8, \"n_groups\": 2}",
        "needs ssm_state_size");
    expect_parse_error("{\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4,"
                       " \"layers_block_type\": [\"mamba\", \"conv\"]}",
                       "'conv' (layer 2) is not a layer kind");
    expect_parse_error(
        "{\"hidden_size\": 64, \"num_hidden_layers\": 2, \"hybrid_override_pattern\": \"M-\","
        " \"layers_block_type\": [\"mamba\", \"mlp\"]}",
        "both give the layers' kinds");
    expect_parse_error("{" QNEXT ", \"full_attention_interval\": 4}",
                       "linear_attention (gated delta-net) layers needs linear_value_head_dim");
    expect_parse_error("{" QNEXT ", \"linear_value_head_dim\": 8, \"full_attention_interval\": 0}",
                       "full_attention_interval is out of range");
    expect_parse_error("{" QNEXT
                       ", \"linear_value_head_dim\": 8, \"full_attention_interval\": \"4\"}",
                       "full_attention_interval is not an integer");
    expect_parse_error("{" QNEXT ", \"linear_value_head_dim\": 8}",
                       "linear_num_key_heads is not modelled for this config");
    expect_parse_error("{" QNEXT ", \"linear_value_head_dim\": 8, \"linear_num_key_heads\": 3,"
                       " \"full_attention_interval\": 2}",
                       "linear_num_key_heads does not divide");
    expect_parse_error("{" QNEXT ", \"linear_value_head_dim\": 8, \"layer_types\": \"linear\"}",
                       "layer_types is not a list");
    expect_parse_error("{" QNEXT
                       ", \"linear_value_head_dim\": 8, \"layer_types\": [\"linear_attention\","
                       " \"full_attention\"]}",
                       "layer_types has 2 entries; num_hidden_layers is 4");
    expect_parse_error("{" QNEXT
                       ", \"linear_value_head_dim\": 8, \"layer_types\": [\"linear_attention\","
                       " \"conv\", \"linear_attention\", \"full_attention\"]}",
                       "layer_types entry 'conv' is not modelled");
    expect_parse_error("{" QNEXT ", \"linear_value_head_dim\": 8, \"full_attention_interval\": 2,"
                       " \"attn_output_gate\": \"yes\"}",
                       "attn_output_gate is not true or false");
    expect_parse_error("{" JAMBA "}", "attn_layer_period (Jamba) needs attn_layer_offset");
    expect_parse_error("{" JAMBA ", \"attn_layer_offset\": 2}", "attn_layer_offset is not below");
    expect_parse_error("{" JAMBA ", \"attn_layer_offset\": 1}",
                       "Jamba's Mamba layers needs mamba_d_state");
    expect_parse_error("{" JAMBA ", \"attn_layer_offset\": 1, \"mamba_d_state\": 4}",
                       "needs mamba_expand");
    expect_parse_error("{" JAMBA
                       ", \"attn_layer_offset\": 1, \"mamba_d_state\": 4, \"mamba_expand\": 2,"
                       " \"mamba_dt_rank\": \"big\"}",
                       "mamba_dt_rank is not an integer");
    expect_parse_error("{" JAMBA
                       ", \"attn_layer_offset\": 1, \"mamba_d_state\": 4, \"mamba_expand\": 2,"
                       " \"mamba_dt_rank\": 4, \"num_experts\": 4, \"num_experts_per_tok\": 1}",
                       "num_experts > 1 needs expert_layer_period");
    expect_parse_error("{" JAMBA ", \"attn_layer_offset\": 1, \"expert_layer_period\": 2}",
                       "expert_layer_period needs expert_layer_offset");
    expect_parse_error("{" LLAMA4 ", \"attention_chunk_size\": \"8k\"}",
                       "attention_chunk_size is not an integer");
    expect_parse_error("{" LLAMA4
                       ", \"attention_chunk_size\": 8, \"no_rope_layers\": [1, 1, 2, 0]}",
                       "no_rope_layers: entry 3 is not");
    expect_parse_error("{" LLAMA4 ", \"attention_chunk_size\": 8, \"no_rope_layers\": [1, 0]}",
                       "no_rope_layers has 2 entries");
    expect_parse_error("{" LLAMA4 ", \"moe_layers\": [1, 9]}",
                       "moe_layers: entry 2 is not a layer index");
    expect_parse_error("{" LLAMA4 ", \"interleave_moe_layer_step\": 2}",
                       "llama4 dense layers needs intermediate_size_mlp");
    /* fields that change the count, in a family that does not read them */
    expect_parse_error(
        "{\"model_type\": \"llama\", \"hidden_size\": 64, \"attention_chunk_size\": 8}",
        "attention_chunk_size is not modelled for this config");
    expect_parse_error("{\"model_type\": \"llama\", \"hidden_size\": 64, \"mamba_d_state\": 16}",
                       "mamba_d_state is not modelled");
    expect_parse_error("{\"model_type\": \"llama\", \"hidden_size\": 64, \"ssm_state_size\": 16}",
                       "ssm_state_size is not modelled");
    expect_parse_error("{\"model_type\": \"llama\", \"hidden_size\": 64, \"moe_layers\": [0]}",
                       "moe_layers is not modelled");
    expect_parse_error("{\"model_type\": \"llama\", \"hidden_size\": 64, \"moe_latent_size\": 512}",
                       "moe_latent_size is not modelled");
    expect_parse_error("{\"model_type\": \"falcon_h1\", \"hidden_size\": 64}",
                       "model_type 'falcon_h1' is not modelled");
}

/* Read rather than refused: Qwen's dense-layer list and sparse step
 * (transformers: MoE when i is not listed and (i + 1) % step == 0). */
static void test_qwen_sparse(void **state)
{
    (void)state;
    const char *json =
        "{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 4,"
        " \"num_attention_heads\": 4, \"num_experts\": 4, \"num_experts_per_tok\": 1,"
        " \"decoder_sparse_step\": 2, \"mlp_only_layers\": [3]}";
    fc_model m = parse_ok(json, NULL);
    assert_string_equal(m.mlps, "DEDD");
    /* null and empty fields are absent; the uniform rule stays */
    json = "{\"model_type\": \"qwen3_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 4,"
           " \"num_experts\": 4, \"num_experts_per_tok\": 1, \"decoder_sparse_step\": 1,"
           " \"mlp_only_layers\": [], \"q_lora_rank\": null, \"no_rope_layers\": []}";
    m = parse_ok(json, NULL);
    assert_string_equal(m.mlps, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deepseek_v3),     cmocka_unit_test(test_kimi_k2),
        cmocka_unit_test(test_qwen3_next),      cmocka_unit_test(test_nemotron_h),
        cmocka_unit_test(test_nemotron_nano),   cmocka_unit_test(test_jamba),
        cmocka_unit_test(test_llama4_scout),    cmocka_unit_test(test_gpt_oss_gemma3),
        cmocka_unit_test(test_refused_mla_mtp), cmocka_unit_test(test_refused_hybrid),
        cmocka_unit_test(test_qwen_sparse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
