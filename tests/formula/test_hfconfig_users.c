/* SPDX-License-Identifier: Apache-2.0 */
/* test_hfconfig_users.c - configs a user brought that the shipped tests had
 * not seen, each once counted wrong without a word:
 *
 *   - Falcon-7B and StarCoder say "multi_query": true (one K and one V
 *     head); the reader took 71 (48) K/V heads.
 *   - Granite 4.0-H's always-on MLP is shared_intermediate_size wide; the
 *     reader dropped it from the MoE layers, and took the experts' width
 *     for the dense models' MLP.
 *   - MiniMax-M1's attn_type_list (0: lightning attention in 7 layers of
 *     8) was unread: every layer counted as softmax attention.
 *   - Expert fields of other spellings (ERNIE 4.5's moe_num_experts), MTP
 *     modules (MiniMax-M2's num_mtp_modules), nested configs (DBRX) and
 *     per-layer lists (GLM-5's mlp_layer_types) were ignored: dense, no
 *     MTP, uniform layers.
 *   - Two spellings of one field could disagree; the first one won.
 *   - Gemma 3's multimodal configs leave out what equals transformers'
 *     defaults; a head_dim left out was taken as h/a (240, not 256).
 *
 * Expected forwards are written from the layers' matrix shapes
 * (gemm(m, n, k) = 2*m*n*k), never taken from the tool. The fixtures
 * falcon-7b.json, granite-4.0-h-tiny.json and minimax-m1.json hold the
 * published config.json values (trimmed of tokenizer and rope fields);
 * gemma-3-4b-it.json is the published file's model fields as they are. */
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

/* A shipped config read, with sequence s and one sequence; rc and err. */
static int read_cfg(const char *name, int64_t s, fc_model *m, char *err, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FC_TEST_CONFIGS, name);
    memset(m, 0, sizeof *m);
    int rc = fc_hfconfig_read(path, m, NULL, err, n);
    m->seq = s, m->batch = 1;
    return rc;
}

static fc_model load(const char *name, int64_t s)
{
    fc_model m;
    char err[300] = "";
    int rc = read_cfg(name, s, &m, err, sizeof err);
    if (rc != 0)
        print_message("%s\n", err);
    assert_int_equal(rc, 0);
    return m;
}

static fc_model parsed(const char *json, int64_t s)
{
    fc_model m = parse_ok(json, NULL);
    m.seq = s, m.batch = 1;
    return m;
}

/* One attention layer's forward: QKV, output projection, QK^T and AV of
 * every query head over s x s (full causal convention), T = s tokens. */
static u128 attention(int64_t s, int64_t h, int64_t a, int64_t g, int64_t d)
{
    return gemm(s, (a + 2 * g) * d, h) + gemm(s, h, a * d) +
           (u128)a * (gemm(s, s, d) + gemm(s, d, s));
}

/* A gated MLP of width f on s tokens: gate, up, down. */
static u128 gated(int64_t s, int64_t h, int64_t f)
{
    return 2 * gemm(s, f, h) + gemm(s, h, f);
}

static void test_multi_query(void **state)
{
    (void)state;
    /* Falcon-7B, s = 2048: 71 query heads of 64, ONE K and V head; plain
     * MLP 4h = 18176 (GELU); logits 4544 -> 65024. */
    const int64_t s = 2048, h = 4544;
    fc_model m = load("falcon-7b.json", s);
    assert_int_equal(m.kv_heads, 1);
    u128 layer = attention(s, h, 71, 1, 64) + gemm(s, 18176, h) + gemm(s, h, 18176);
    EQ(run(&m).forward_flops_per_iteration, 32 * layer + gemm(s, 65024, h));

    /* StarCoder (GPT-BigCode): multi_query too. */
    fc_model sc = parse_ok("{\"model_type\": \"gpt_bigcode\", \"n_embd\": 6144, \"n_head\": 48, "
                           "\"n_layer\": 40, \"n_inner\": 24576, \"multi_query\": true, "
                           "\"vocab_size\": 49152}",
                           NULL);
    assert_int_equal(sc.kv_heads, 1);
    /* Falcon-40B's new decoder takes num_kv_heads whatever multi_query says
     * (transformers' FalconAttention); the old RW configs say n_head_kv. */
    fc_model f40 = parse_ok("{\"model_type\": \"falcon\", \"hidden_size\": 8192, "
                            "\"num_attention_heads\": 128, \"num_kv_heads\": 8, "
                            "\"multi_query\": true, \"new_decoder_architecture\": true}",
                            NULL);
    assert_int_equal(f40.kv_heads, 8);
    fc_model rw = parse_ok("{\"hidden_size\": 8192, \"n_head\": 128, \"n_head_kv\": 8}", NULL);
    assert_int_equal(rw.kv_heads, 8);
    fc_model mha = parse_ok("{\"hidden_size\": 64, \"n_head\": 4, \"multi_query\": false}", NULL);
    assert_int_equal(mha.kv_heads, 0); /* the default: as many as the query heads */
}

/* Granite 4.0-H-Tiny, s = 4096: 36 Mamba-2 and 4 attention layers (NoPE),
 * each with 64 experts of 512 (top 6), a router, and the shared MLP of
 * 1024; h = 1536. */
static void test_granite_shared_mlp(void **state)
{
    (void)state;
    const int64_t s = 4096, h = 1536, q = 256, H = 48, P = 64, N = 128, G = 1;
    const int64_t di = H * P, chunks = s / q;
    fc_model m = load("granite-4.0-h-tiny.json", s);
    assert_int_equal(m.shared_experts, 1);
    assert_int_equal(m.shared_ffn, 1024);
    assert_int_equal(m.ffn, 512); /* the experts' width (moe_ffn 0: the --ffn default) */
    /* Mamba-2: in_proj h -> z, x, B, C, dt; out_proj; per chunk C B^T per
     * group and (C B^T o L) X per head; per chunk and head B^T X and C S. */
    u128 mamba = gemm(s, 2 * di + 2 * G * N + H, h) + gemm(s, h, di) +
                 (u128)chunks * (G * gemm(q, q, N) + H * gemm(q, P, q)) +
                 (u128)chunks * H * (gemm(N, P, q) + gemm(q, P, N));
    u128 moe = gemm(s, 64, h) + 6 * gated(s, h, 512) + gated(s, h, 1024);
    u128 want = 36 * mamba + 4 * attention(s, h, 12, 4, 128) + 40 * moe + gemm(s, 100352, h);
    EQ(run(&m).forward_flops_per_iteration, want);
    EQ(want, (u128)12884096581632ull); /* the same sum, by an independent script */

    /* The dense models (num_local_experts 0): the one MLP is the shared
     * one; intermediate_size (here 512, the experts') describes nothing. */
    fc_model d = parsed("{\"model_type\": \"granitemoehybrid\", \"hidden_size\": 1536, "
                        "\"num_hidden_layers\": 2, \"num_attention_heads\": 12, "
                        "\"num_key_value_heads\": 4, \"vocab_size\": 100352, \"hidden_act\": "
                        "\"silu\", \"intermediate_size\": 512, \"shared_intermediate_size\": 4096, "
                        "\"num_local_experts\": 0, \"num_experts_per_tok\": 0}",
                        s);
    assert_int_equal(d.experts, 0);
    assert_int_equal(d.ffn, 4096);
    EQ(run(&d).forward_flops_per_iteration,
       2 * (attention(s, h, 12, 4, 128) + gated(s, h, 4096)) + gemm(s, 100352, h));
}

#define TINY                                                                                       \
    "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "                  \
    "\"vocab_size\": 128, \"intermediate_size\": 256, "

static void test_minimax_attn_type_list(void **state)
{
    (void)state;
    fc_model m;
    char err[300] = "";
    assert_int_equal(read_cfg("minimax-m1.json", 4096, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "attn_type_list: layer 1 is 0 (lightning attention"));
    assert_null(strchr(err, '\n'));
    /* All softmax (MiniMax-M2's list): the same model as without the list. */
    fc_model all = parsed("{" TINY "\"attn_type_list\": [1, 1]}", 32);
    fc_model none = parsed("{" TINY "\"model_type\": \"x\"}", 32);
    EQ(run(&all).forward_flops_per_iteration, run(&none).forward_flops_per_iteration);
    EQ(run(&all).forward_flops_per_iteration,
       2 * (attention(32, 64, 4, 4, 16) + gemm(32, 256, 64) + gemm(32, 64, 256)) +
           gemm(32, 128, 64));
    expect_parse_error("{" TINY "\"attn_type_list\": [1, 0]}", "layer 2 is 0");
    expect_parse_error("{" TINY "\"attn_type_list\": [1, 2]}", "attn_type_list: entry 2");
    expect_parse_error("{" TINY "\"attn_type_list\": [1]}", "attn_type_list has 1 entries");
    expect_parse_error("{" TINY "\"attn_type_list\": 1}", "attn_type_list is not a list");
}

static void test_unread_fields_refused(void **state)
{
    (void)state;
    /* ERNIE 4.5 MoE spells its experts moe_*: refused, not counted dense. */
    expect_parse_error("{" TINY "\"model_type\": \"ernie4_5_moe\", \"moe_num_experts\": 64, "
                       "\"moe_k\": 6}",
                       "moe_num_experts is not modelled");
    /* A top-k without an expert count; Hunyuan's per-layer shared count. */
    expect_parse_error("{" TINY "\"num_experts_per_tok\": 2}", "num_experts_per_tok is not");
    expect_parse_error("{" TINY "\"num_shared_expert\": [1, 1]}", "num_shared_expert is not");
    /* MiniMax-M2's MTP modules. */
    expect_parse_error("{" TINY "\"num_mtp_modules\": 3}", "num_mtp_modules is not modelled");
    expect_parse_error("{" TINY "\"mtp_transformer_layers\": 1}", "mtp_transformer_layers is not");
    /* DBRX keeps attention and experts in nested objects. */
    expect_parse_error("{" TINY "\"ffn_config\": {\"moe_num_experts\": 16}}", "ffn_config is not");
    expect_parse_error("{" TINY "\"attn_config\": {\"kv_n_heads\": 8}}", "attn_config is not");
    /* GLM-5's MLP kinds, and any list with one entry per layer. */
    expect_parse_error("{" TINY "\"mlp_layer_types\": [\"dense\", \"sparse\"]}",
                       "mlp_layer_types is not modelled");
    expect_parse_error("{" TINY "\"layer_widths\": [256, 512]}", "layer_widths is not modelled");
    expect_parse_error("{" TINY "\"shared_intermediate_size\": 64}",
                       "shared_intermediate_size is not modelled");
    /* Phi-3-small: its MLP width under another name, block-sparse layers. */
    expect_parse_error(
        "{\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
        "\"vocab_size\": 128, \"ff_intermediate_size\": 224}",
        "ff_intermediate_size is not modelled");
    expect_parse_error("{" TINY "\"dense_attention_every_n_layers\": 2}",
                       "dense_attention_every_n_layers is not");
    expect_parse_error("{" TINY "\"blocksparse_vert_stride\": 8}",
                       "blocksparse_vert_stride is not");
    /* OPT's ffn_dim is the MLP width; a switch named after the MLP is not a width. */
    fc_model opt = parse_ok("{\"hidden_size\": 64, \"num_hidden_layers\": 2, \"ffn_dim\": 100, "
                            "\"enable_ffn_bias\": true}",
                            NULL);
    assert_int_equal(opt.ffn, 100);
    /* GPT-Neo: local attention (window_size 256) on every other layer,
     * listed per layer under num_layers, and in a compact form too. */
    expect_parse_error(
        "{\"hidden_size\": 64, \"num_layers\": 2, \"num_heads\": 4, \"vocab_size\": 128, "
        "\"attention_layers\": [\"global\", \"local\"]}",
        "attention_layers is not modelled");
    expect_parse_error("{" TINY "\"attention_types\": [[[\"global\", \"local\"], 1]]}",
                       "attention_types is not modelled");
    expect_parse_error("{" TINY "\"window_size\": 256}", "window_size is not modelled");
    /* AFMoE (Arcee Trinity): global attention every 4th layer, dense
     * first layers, as counts */
    expect_parse_error("{" TINY "\"global_attn_every_n_layers\": 4}",
                       "global_attn_every_n_layers is not modelled");
    expect_parse_error("{" TINY "\"num_dense_layers\": 2}", "num_dense_layers is not modelled");
    expect_parse_error("{" TINY "\"local_attention_period\": 2}", "local_attention_period is not");
    /* a list of layer indices of any length (here one) */
    expect_parse_error("{" TINY "\"full_attn_layers\": [1]}", "full_attn_layers is not modelled");
    /* Lists of another length, and the architectures' names, are not. */
    parse_ok("{" TINY "\"eos_token_id\": [1, 2, 3], \"architectures\": [\"A\", \"B\"]}", NULL);
    /* An expert count of 0: its top-k describes nothing. */
    fc_model d = parse_ok("{" TINY "\"num_local_experts\": 0, \"num_experts_per_tok\": 0}", NULL);
    assert_int_equal(d.experts, 0);
}

static void test_spellings_agree(void **state)
{
    (void)state;
    expect_parse_error("{" TINY "\"num_local_experts\": 4, \"num_experts_per_tok\": 2, "
                       "\"experts_per_token\": 1}",
                       "num_experts_per_tok and experts_per_token disagree");
    expect_parse_error("{" TINY "\"n_layer\": 3}", "num_hidden_layers and n_layer disagree");
    /* a file contradicting itself is refused in its own terms, not a flag's */
    expect_parse_error("{" TINY "\"num_local_experts\": 4, \"num_experts_per_tok\": 8}",
                       "the config routes 8 experts per token of 4");
    expect_parse_error("{" TINY "\"num_key_value_heads\": 3}",
                       "the config has 3 K/V heads for 4 query heads");
    fc_model m = parse_ok("{" TINY "\"num_local_experts\": 4, \"num_experts_per_tok\": 2, "
                          "\"experts_per_token\": 2}",
                          NULL);
    assert_int_equal(m.topk, 2);
}

/* SmolLM3's no_rope_layers only says which layers skip RoPE (elementwise):
 * the count is the config's without it. Llama 4's, which chooses chunked
 * layers, is read as before (test_hfconfig_kinds.c). */
static void test_no_rope_outside_llama4(void **state)
{
    (void)state;
    fc_model a = parsed("{" TINY "\"model_type\": \"smollm3\", \"no_rope_layers\": [1, 0], "
                        "\"no_rope_layer_interval\": 4}",
                        32);
    fc_model b = parsed("{" TINY "\"model_type\": \"smollm3\"}", 32);
    EQ(run(&a).forward_flops_per_iteration, run(&b).forward_flops_per_iteration);
}

/* gemma-3-4b-it's config.json as published names no heads, head width,
 * vocabulary or window pattern: transformers' Gemma3TextConfig defaults
 * (8 heads, 4 K/V heads of 256, V = 262208, one global layer in 6) fill
 * them. s = 4096: layers 5, 11, 17, 23, 29 global, 29 windowed to 1024
 * keys; gated MLP 10240; h = 2560. */
static void test_nested_text_config(void **state)
{
    (void)state;
    const int64_t s = 4096, h = 2560, w = 1024;
    fc_model m = load("gemma-3-4b-it.json", s);
    assert_int_equal(m.head_dim, 256);
    assert_int_equal(m.window_layers, 29);
    unsigned found = 0;
    fc_model t = parse_ok("{\"text_config\": {\"hidden_size\": 64}}", &found);
    assert_true(found & FC_HF_TEXT_PART); /* the verb says the towers are not counted */
    t = parse_ok("{\"language_config\": {\"hidden_size\": 32}}", &found); /* DeepSeek-VL2 */
    assert_true(found & FC_HF_TEXT_PART);
    assert_int_equal(t.hidden, 32);
    t = parse_ok("{\"llm_config\": {\"hidden_size\": 16}}", &found); /* InternVL */
    assert_int_equal(t.hidden, 16);
    /* Llama 3.2 Vision: 8 of its 40 layers attend to the image tokens */
    expect_parse_error("{\"text_config\": {\"hidden_size\": 64, \"num_hidden_layers\": 40, "
                       "\"cross_attention_layers\": [3, 8, 13, 18, 23, 28, 33, 38]}}",
                       "cross_attention_layers is not modelled");
    /* a nested MoE or MLA family's part without its experts or latent:
     * the class's defaults, not a dense model */
    expect_parse_error("{\"text_config\": {\"model_type\": \"deepseek_v3\", \"hidden_size\": 64}}",
                       "text_config of model_type deepseek_v3 names no expert count");
    expect_parse_error("{\"text_config\": {\"model_type\": \"deepseek_v3\", \"hidden_size\": 64, "
                       "\"n_routed_experts\": 8, \"num_experts_per_tok\": 2}}",
                       "names no kv_lora_rank");
    expect_parse_error("{\"text_config\": {\"model_type\": \"mixtral\", \"hidden_size\": 64}}",
                       "model_type mixtral names no expert count");
    parse_ok("{\"model_type\": \"mixtral\", \"hidden_size\": 64}", NULL); /* flat: all written */
    t = parse_ok("{\"hidden_size\": 64, \"text_config\": {\"hidden_size\": 8}}", &found);
    assert_false(found & FC_HF_TEXT_PART);
    assert_false(found & FC_HF_TOWERS);
    /* Qwen2.5-VL: a flat language model beside its vision tower */
    t = parse_ok("{\"hidden_size\": 64, \"vision_config\": {\"depth\": 32}}", &found);
    assert_false(found & FC_HF_TEXT_PART);
    assert_true(found & FC_HF_TOWERS);
    assert_int_equal(t.hidden, 64);
    u128 proj = gemm(s, (8 + 2 * 4) * 256, h) + gemm(s, h, 8 * 256);
    u128 full = proj + 8 * (gemm(s, s, 256) + gemm(s, 256, s));
    u128 windowed = proj + 8 * (gemm(s, w, 256) + gemm(s, 256, w));
    u128 want = 5 * full + 29 * windowed + 34 * gated(s, h, 10240) + gemm(s, 262208, h);
    EQ(run(&m).forward_flops_per_iteration, want);
    EQ(want, (u128)33467727347712ull); /* by an independent script */
    /* gemma-3-12b-it leaves out head_dim only: 256, not 3840 / 16 = 240 */
    fc_model d = parse_ok("{\"model_type\": \"gemma3\", \"text_config\": {\"hidden_size\": 3840, "
                          "\"intermediate_size\": 15360, \"model_type\": \"gemma3_text\", "
                          "\"num_attention_heads\": 16, \"num_hidden_layers\": 48, "
                          "\"num_key_value_heads\": 8, \"sliding_window\": 1024}}",
                          NULL);
    assert_int_equal(d.head_dim, 256);
    assert_int_equal(d.vocab, 262208);
    assert_int_equal(d.window_layers, 40);
    /* a value the file gives is the file's, null included (no window) */
    fc_model n = parse_ok("{\"model_type\": \"gemma3_text\", \"hidden_size\": 64, "
                          "\"num_hidden_layers\": 2, \"head_dim\": 16, \"sliding_window\": null}",
                          NULL);
    assert_int_equal(n.head_dim, 16);
    assert_int_equal(n.window_layers, 0);
}

/* Qwen3.5 / 3.6 configs carry a Mamba state dtype without Mamba layers and
 * an MTP switch: neither is a product, neither refuses the config. A size
 * under those prefixes still does. */
static void test_switches_and_dtypes_pass(void **state)
{
    (void)state;
    fc_model a = parsed("{" TINY "\"mamba_ssm_dtype\": \"float32\", "
                        "\"mtp_use_dedicated_embeddings\": false, \"mrope_interleaved\": true}",
                        32);
    fc_model b = parsed("{" TINY "\"model_type\": \"x\"}", 32);
    EQ(run(&a).forward_flops_per_iteration, run(&b).forward_flops_per_iteration);
    expect_parse_error("{" TINY "\"mamba_d_state\": 16}", "mamba_d_state is not modelled");
    expect_parse_error("{" TINY "\"mtp_hidden_layers\": 1}", "mtp_hidden_layers is not modelled");
}

/* Families whose configs spell the shapes their own way:
 * GLM-4-9B (chatglm): multi_query_attention with multi_query_group_num = 2
 * K/V heads of kv_channels = 128, a gated MLP of ffn_hidden_size 13696,
 * padded_vocab_size 151552 logits; 40 layers of h = 4096, 32 heads.
 * Qwen-7B (v1, qwen): intermediate_size 22016 holds both gated halves:
 * w1, w2 h -> 11008, c_proj 11008 -> h.
 * T5: an encoder-decoder, refused. */
static void test_family_spellings(void **state)
{
    (void)state;
    const int64_t s = 128, h = 4096;
    fc_model g = parsed("{\"model_type\": \"chatglm\", \"ffn_hidden_size\": 13696, "
                        "\"hidden_size\": 4096, \"kv_channels\": 128, \"multi_query_attention\": "
                        "true, \"multi_query_group_num\": 2, \"num_attention_heads\": 32, "
                        "\"num_layers\": 40, \"padded_vocab_size\": 151552}",
                        s);
    EQ(run(&g).forward_flops_per_iteration,
       40 * (attention(s, h, 32, 2, 128) + gated(s, h, 13696)) + gemm(s, 151552, h));
    fc_model q = parsed("{\"model_type\": \"qwen\", \"hidden_size\": 4096, \"intermediate_size\": "
                        "22016, \"num_attention_heads\": 32, \"num_hidden_layers\": 32, "
                        "\"vocab_size\": 151936, \"kv_channels\": 128}",
                        s);
    EQ(run(&q).forward_flops_per_iteration,
       32 * (attention(s, h, 32, 32, 128) + gated(s, h, 11008)) + gemm(s, 151936, h));
    expect_parse_error(
        "{\"model_type\": \"qwen\", \"hidden_size\": 64, \"intermediate_size\": 257}",
        "intermediate_size of model_type qwen is not even");
    expect_parse_error("{" TINY "\"multi_query_attention\": true}",
                       "multi_query_attention needs multi_query_group_num");
    expect_parse_error("{" TINY "\"multi_query_group_num\": 2}", "multi_query_group_num is not");
    expect_parse_error("{\"model_type\": \"t5\", \"d_model\": 512, \"num_layers\": 6, "
                       "\"is_encoder_decoder\": true}",
                       "is_encoder_decoder is true");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multi_query),
        cmocka_unit_test(test_granite_shared_mlp),
        cmocka_unit_test(test_minimax_attn_type_list),
        cmocka_unit_test(test_unread_fields_refused),
        cmocka_unit_test(test_spellings_agree),
        cmocka_unit_test(test_no_rope_outside_llama4),
        cmocka_unit_test(test_nested_text_config),
        cmocka_unit_test(test_switches_and_dtypes_pass),
        cmocka_unit_test(test_family_spellings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
