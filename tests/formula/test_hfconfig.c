/* SPDX-License-Identifier: Apache-2.0 */
/* test_hfconfig.c - Hugging Face config.json reading (analysis/io/hfconfig.c)
 * on the shipped configs in tests/data/configs, and the parameter counts
 * they give against the counts the model publishers state.
 *
 * Published totals (safetensors metadata on the model pages):
 * Llama-2-7B 6,738,415,616; Llama-3-8B 8,030,261,248; Mixtral-8x7B
 * 46,702,792,704. Our convention (GEMM weights + embeddings + RMSNorm
 * scales) matches these exactly since those models have no biases. */
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

static fc_model load(const char *name, unsigned *found)
{
    char path[512], err[300] = "";
    snprintf(path, sizeof path, "%s/%s", FC_TEST_CONFIGS, name);
    fc_model m;
    memset(&m, 0, sizeof m);
    int rc = fc_hfconfig_read(path, &m, found, err, sizeof err);
    if (rc != 0)
        print_message("%s\n", err);
    assert_int_equal(rc, 0);
    m.seq = 4096;
    m.batch = 1;
    assert_int_equal(fc_model_check(&m, err, sizeof err), 0);
    return m;
}

static uint64_t params(const fc_model *m)
{
    fc_flops f;
    fc_formula(m, &f);
    assert_true((f.params >> 64) == 0);
    return (uint64_t)f.params;
}

/* Llama-2-7B: per layer 4*4096^2 = 67,108,864 attention + 3*4096*11008 =
 * 135,266,304 MLP + 2*4096 norms = 202,383,360; x 32 = 6,476,267,520;
 * embeddings 2*32000*4096 = 262,144,000 (untied); final norm 4096. */
static void test_llama2_7b(void **state)
{
    (void)state;
    unsigned found;
    fc_model m = load("llama-2-7b.json", &found);
    assert_int_equal(m.layers, 32);
    assert_int_equal(m.hidden, 4096);
    assert_int_equal(m.heads, 32);
    assert_int_equal(m.kv_heads, 32);
    assert_int_equal(m.ffn, 11008);
    assert_int_equal(m.vocab, 32000);
    assert_int_equal(m.swiglu, 1);
    assert_int_equal(m.untied_embeddings, 1);
    assert_int_equal(m.experts, 0);
    assert_true(found & FC_HF_SWIGLU);
    assert_false(found & FC_HF_HEAD_DIM);
    assert_int_equal(params(&m), 6738415616ull);
}

/* Llama-3-8B, GQA 8 KV heads: attention 2*4096^2 + 2*4096*1024 =
 * 41,943,040; MLP 3*4096*14336 = 176,160,768; norms 8192: 218,112,000
 * x 32 = 6,979,584,000; embeddings 2*128256*4096 = 1,050,673,152; + 4096. */
static void test_llama3_8b(void **state)
{
    (void)state;
    fc_model m = load("llama-3-8b.json", NULL);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.vocab, 128256);
    assert_int_equal(params(&m), 8030261248ull);
}

/* Mixtral-8x7B: attention 41,943,040; 8 experts 8*3*4096*14336 =
 * 1,409,286,144; router 4096*8 = 32,768; norms 8192: 1,451,270,144 x 32 =
 * 46,440,644,608; embeddings 262,144,000; + 4096. Active per token: 2 of 8
 * experts: 46,702,792,704 - 32*6*176,160,768 = 12,879,925,248. */
static void test_mixtral(void **state)
{
    (void)state;
    fc_model m = load("mixtral-8x7b.json", NULL);
    assert_int_equal(m.experts, 8);
    assert_int_equal(m.topk, 2);
    assert_int_equal(m.moe_ffn, 0); /* experts use intermediate_size */
    assert_int_equal(fc_model_moe_ffn(&m), 14336);
    assert_int_equal(params(&m), 46702792704ull);
    fc_flops f;
    fc_formula(&m, &f);
    assert_int_equal(f.moe_layers, 32);
    assert_int_equal((uint64_t)f.params_active, 12879925248ull);
}

/* GPT-2 small (keys n_embd, n_layer, n_head; n_inner null = 4h; gelu_new =
 * plain MLP; tied by default). Weights 12*12*768^2 = 84,934,656, wte
 * 50257*768 = 38,597,376, LayerNorm scales 25*768 = 19,200: 123,551,232.
 * The published 124,439,808 adds wpe 1024*768 = 786,432 and the biases
 * (12*(2304+768+3072+768+2*768) + 768 = 102,144), which we do not count. */
static void test_gpt2(void **state)
{
    (void)state;
    fc_model m = load("gpt2.json", NULL);
    assert_int_equal(m.layers, 12);
    assert_int_equal(m.hidden, 768);
    assert_int_equal(m.heads, 12);
    assert_int_equal(m.ffn, 0);
    assert_int_equal(m.swiglu, 0);
    assert_int_equal(m.untied_embeddings, 0);
    assert_int_equal(params(&m), 123551232ull);
    assert_int_equal(params(&m) + 786432 + 102144, 124439808ull);
    /* REFERENCE.md §2 GPT-2 small at s=1024, B=8. */
    m.seq = 1024;
    m.batch = 8;
    fc_flops f;
    fc_formula(&m, &f);
    assert_int_equal((uint64_t)f.model_flops_per_iteration, 6999559372800ull);
}

/* Qwen1.5-MoE-A2.7B: one shared expert of 5632 (shared_expert_intermediate_
 * size), 60 experts of 1408, top-4. Per layer: attention 4*2048^2 =
 * 16,777,216; experts 60*3*2048*1408 = 519,045,120; shared 3*2048*5632 =
 * 34,603,008; router 2048*60 = 122,880; norms 4096: 570,552,320; x 24 =
 * 13,693,255,680; embeddings 2*151936*2048 = 622,329,856; + 2048:
 * 14,315,587,584 (QKV biases and the shared-expert gate not counted). */
static void test_qwen15_moe(void **state)
{
    (void)state;
    unsigned found;
    fc_model m = load("qwen1.5-moe-a2.7b.json", &found);
    assert_int_equal(m.experts, 60);
    assert_int_equal(m.topk, 4);
    assert_int_equal(m.moe_ffn, 1408);
    assert_int_equal(m.shared_experts, 1);
    assert_int_equal(m.shared_ffn, 5632);
    assert_true(found & FC_HF_SHARED_FFN);
    assert_int_equal(params(&m), 14315587584ull);
}

/* Qwen3-30B-A3B: head_dim 128 with 32 heads (a*d = 4096 != h = 2048), 4 KV
 * heads. Attention 2048*4096*2 + 2048*512*2 = 18,874,368; experts
 * 128*3*2048*768 = 603,979,776; router 262,144; norms 4096: 623,120,384
 * x 48 = 29,909,778,432; embeddings 2*151936*2048 = 622,329,856; + 2048:
 * 30,532,110,336. The published 30,532,122,624 adds the per-head Q/K norms
 * (48*2*128 = 12,288), which we do not count. */
static void test_qwen3_moe(void **state)
{
    (void)state;
    fc_model m = load("qwen3-30b-a3b.json", NULL);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.kv_heads, 4);
    assert_int_equal(m.experts, 128);
    assert_int_equal(m.topk, 8);
    assert_int_equal(m.moe_ffn, 768);
    assert_int_equal(m.shared_experts, 0);
    assert_int_equal(params(&m), 30532110336ull);
    assert_int_equal(params(&m) + 12288, 30532122624ull);
}


static void test_errors(void **state)
{
    (void)state;
    expect_parse_error("{\"hidden_size\": 4096,", "not valid JSON");
    expect_parse_error("{\"hidden_size\": 4096} x", "not valid JSON");
    expect_parse_error("[1, 2]", "not a JSON object");
    expect_parse_error("{\"num_hidden_layers\": 2, \"hidden_size\": \"4096\"}",
                       "hidden_size is not an integer");
    expect_parse_error("{\"hidden_size\": 40.5}", "hidden_size is not an integer");
    expect_parse_error("{\"hidden_size\": -4}", "hidden_size is out of range");
    expect_parse_error("{\"hidden_size\": 8, \"tie_word_embeddings\": 0}", "tie_word_embeddings");
    expect_parse_error("{\"hidden_size\": 2048, \"kv_lora_rank\": 512}", "multi-latent attention");
    /* Qwen's dense-layer list and sparse step are read since issue 27
     * (test_hfconfig_kinds.c); out of range, they are refused */
    expect_parse_error("{\"hidden_size\": 8, \"num_experts\": 4, \"mlp_only_layers\": [7]}",
                       "mlp_only_layers: entry 1 is not a layer index");
    expect_parse_error("{\"hidden_size\": 8, \"num_experts\": 4, \"decoder_sparse_step\": 0}",
                       "decoder_sparse_step is out of range");
    char err[300];
    fc_model m;
    memset(&m, 0, sizeof m);
    assert_int_equal(fc_hfconfig_read(FC_TEST_CONFIGS "/no-such.json", &m, NULL, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "cannot open"));
    assert_non_null(strstr(err, "no-such.json"));
}

/* sliding_window: which layers each family windows (read_window). */
static void test_sliding_window(void **state)
{
    (void)state;
    unsigned found;
    /* Mistral: every layer */
    fc_model m = parse_ok("{\"model_type\": \"mistral\", \"num_hidden_layers\": 32,"
                          " \"sliding_window\": 4096}", &found);
    assert_int_equal(m.window, 4096);
    assert_int_equal(m.window_layers, 32);
    assert_true(found & FC_HF_WINDOW);
    /* null: none */
    m = parse_ok("{\"model_type\": \"mistral\", \"num_hidden_layers\": 32, \"sliding_window\": null}",
                 &found);
    assert_int_equal(m.window, 0);
    assert_false(found & FC_HF_WINDOW);
    /* Gemma 2: layers 0, 2, 4 ... of 42: 21 */
    m = parse_ok("{\"model_type\": \"gemma2\", \"num_hidden_layers\": 42, \"sliding_window\": 4096}",
                 &found);
    assert_int_equal(m.window_layers, 21);
    /* Gemma 3: one global layer in 6 (layers 5, 11, ...): 26 layers, 4 global */
    m = parse_ok("{\"model_type\": \"gemma3_text\", \"num_hidden_layers\": 26,"
                 " \"sliding_window\": 512, \"sliding_window_pattern\": 6}", &found);
    assert_int_equal(m.window_layers, 22);
    /* layer_types wins */
    m = parse_ok("{\"model_type\": \"gemma3_text\", \"num_hidden_layers\": 3, \"sliding_window\": 512,"
                 " \"layer_types\": [\"sliding_attention\", \"full_attention\", \"sliding_attention\"]}",
                 &found);
    assert_int_equal(m.window_layers, 2);
    /* Qwen2: not used unless use_sliding_window; then from max_window_layers on */
    m = parse_ok("{\"model_type\": \"qwen2\", \"num_hidden_layers\": 28, \"sliding_window\": 4096,"
                 " \"use_sliding_window\": false, \"max_window_layers\": 21}", &found);
    assert_int_equal(m.window, 0);
    m = parse_ok("{\"model_type\": \"qwen2\", \"num_hidden_layers\": 28, \"sliding_window\": 4096,"
                 " \"use_sliding_window\": true, \"max_window_layers\": 21}", &found);
    assert_int_equal(m.window, 4096);
    assert_int_equal(m.window_layers, 7);
    /* Gemma 3 without a pattern or a list: transformers' Gemma3TextConfig
     * pattern 6, as for a config that says it (test_hfconfig_users.c) */
    m = parse_ok("{\"model_type\": \"gemma3_text\", \"num_hidden_layers\": 26, \"sliding_window\": 512}",
                 &found);
    assert_int_equal(m.window_layers, 22);
    /* another Gemma 3 type without either: refused rather than guessed */
    expect_parse_error("{\"model_type\": \"gemma3n_text\", \"num_hidden_layers\": 26, \"sliding_window\": 512}",
                       "which layers are windowed is not known");
    expect_parse_error("{\"num_hidden_layers\": 2, \"sliding_window\": 64,"
                       " \"layer_types\": [\"chunked_attention\", \"full_attention\"]}",
                       "chunked_attention layers needs attention_chunk_size");
    expect_parse_error("{\"num_hidden_layers\": 2, \"layer_types\": [\"sliding_attention\", \"full_attention\"]}",
                       "sliding_window is missing");
    expect_parse_error("{\"model_type\": \"qwen2\", \"num_hidden_layers\": 28, \"sliding_window\": 4096,"
                       " \"use_sliding_window\": true}", "max_window_layers");
    expect_parse_error("{\"num_hidden_layers\": 2, \"sliding_window\": \"4096\"}",
                       "sliding_window is not an integer");
}

/* Multimodal configs nest the language model; DeepSeek-style keys. */
static void test_nesting_and_deepseek_keys(void **state)
{
    (void)state;
    const char *json = "{\"model_type\": \"llava\", \"text_config\": {\"hidden_size\": 64,"
                       " \"num_hidden_layers\": 3, \"num_attention_heads\": 4,"
                       " \"vocab_size\": 99, \"hidden_act\": \"gelu\"}}";
    fc_model m;
    memset(&m, 0, sizeof m);
    char err[300];
    unsigned found;
    assert_int_equal(fc_hfconfig_parse(json, strlen(json), &m, &found, err, sizeof err), 0);
    assert_int_equal(m.hidden, 64);
    assert_int_equal(m.layers, 3);
    assert_int_equal(m.swiglu, 0);
    assert_true(found & FC_HF_SWIGLU);
    json = "{\"model_type\": \"deepseek\", \"hidden_size\": 64, \"n_routed_experts\": 16,"
           " \"num_experts_per_tok\": 3, \"n_shared_experts\": 2, \"moe_intermediate_size\": 32,"
           " \"first_k_dense_replace\": 1, \"moe_layer_freq\": 1, \"hidden_act\": \"silu\"}";
    memset(&m, 0, sizeof m);
    assert_int_equal(fc_hfconfig_parse(json, strlen(json), &m, &found, err, sizeof err), 0);
    assert_int_equal(m.experts, 16);
    assert_int_equal(m.topk, 3);
    assert_int_equal(m.shared_experts, 2);
    assert_int_equal(m.shared_ffn, 0); /* each shared expert = moe_ffn */
    assert_int_equal(m.moe_first_dense, 1);
    assert_int_equal(m.moe_every, 1);
    assert_int_equal(m.swiglu, 1);
    /* Expert fields of a dense config are ignored. */
    json = "{\"hidden_size\": 64, \"num_experts\": 0, \"num_experts_per_tok\": 2}";
    memset(&m, 0, sizeof m);
    assert_int_equal(fc_hfconfig_parse(json, strlen(json), &m, &found, err, sizeof err), 0);
    assert_int_equal(m.experts, 0);
    assert_int_equal(m.topk, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llama2_7b),    cmocka_unit_test(test_llama3_8b),
        cmocka_unit_test(test_mixtral),      cmocka_unit_test(test_gpt2),
        cmocka_unit_test(test_qwen15_moe),   cmocka_unit_test(test_qwen3_moe),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_nesting_and_deepseek_keys),
        cmocka_unit_test(test_sliding_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
