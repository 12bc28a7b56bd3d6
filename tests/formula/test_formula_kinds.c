/* SPDX-License-Identifier: Apache-2.0 */
/* test_formula_kinds.c - the 2025-26 layer kinds of analysis/formula*.c:
 * multi-latent attention, MLA + MoE + multi-token prediction, a hybrid
 * with a layer of every kind (attention, sliding, chunked, gated
 * delta-net, Mamba-2, MLP-only, mixer-only), Mamba-1, chunked attention,
 * both causal conventions, the recompute modes and the parameters.
 *
 * Every expected value is the sum of the model's matrix products written
 * out here one by one from their shapes (gemm(m, n, k) = 2*m*n*k), in the
 * order the layer runs them; none is copied from the tool's output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../analysis/formula.h"
#include "formula_test.h"

typedef fc_u128 u128;

static fc_model base(int64_t l, int64_t h, int64_t a, int64_t v, int64_t s, int64_t b)
{
    fc_model m;
    memset(&m, 0, sizeof m);
    m.layers = l, m.hidden = h, m.heads = a, m.vocab = v, m.seq = s, m.batch = b;
    return m;
}

/* ---- multi-latent attention ---- */

/* MLA, l=2 h=64 a=4, q_lora 32, kv_lora 16, nope 8, rope 4, v 8; gated
 * MLP f=128; V=100, s=16, B=2: T = 32 tokens. One layer, in order:
 *   q_a  (T x 64) . (64 x 32)           gemm(T, 32, 64)
 *   q_b  (T x 32) . (32 x 4*(8+4))      gemm(T, 48, 32)
 *   kv_a (T x 64) . (64 x 16+4)         gemm(T, 20, 64)   latent + the shared rope key
 *   kv_b (T x 16) . (16 x 4*(8+8))      gemm(T, 64, 16)   K_nope and V of every head
 *   QK^T B*a = 8 products (16 x 12) . (12 x 16)   8 * gemm(16, 16, 12)
 *   AV        8 products (16 x 16) . (16 x 8)     8 * gemm(16, 8, 16)
 *   o    (T x 32) . (32 x 64)           gemm(T, 64, 32)
 *   gate, up (T x 64) . (64 x 128), down (T x 128) . (128 x 64)
 * and the logits gemm(T, 100, 64) once. */
static fc_model mla_model(void)
{
    fc_model m = base(2, 64, 4, 100, 16, 2);
    m.q_lora_rank = 32, m.kv_lora_rank = 16, m.qk_nope_dim = 8, m.qk_rope_dim = 4;
    m.v_head_dim = 8, m.ffn = 128, m.swiglu = 1;
    return m;
}

static void test_mla(void **state)
{
    (void)state;
    fc_model m = mla_model();
    const int64_t T = 32;
    u128 lin =
        gemm(T, 32, 64) + gemm(T, 48, 32) + gemm(T, 20, 64) + gemm(T, 64, 16) + gemm(T, 64, 32);
    u128 core = 8 * gemm(16, 16, 12) + 8 * gemm(16, 8, 16);
    u128 mlp = 2 * gemm(T, 128, 64) + gemm(T, 64, 128);
    u128 logits = gemm(T, 100, 64);
    fc_flops f = run(&m);
    EQ(f.attention_linear_forward, 2 * lin);
    EQ(f.attention_core_forward, 2 * core);
    EQ(f.mlp_forward, 2 * mlp);
    EQ(f.logits_forward, logits);
    EQ(f.forward_flops_per_iteration, 2 * (lin + core + mlp) + logits);
    EQ(f.forward_flops_per_iteration, 4734976); /* the sum above, done once by hand */
    EQ(f.model_flops_per_iteration, 3 * f.forward_flops_per_iteration);
    EQ(f.hardware_by_recompute[FC_RECOMPUTE_SELECTIVE], f.model_flops_per_iteration + 2 * core);
    EQ(f.hardware_by_recompute[FC_RECOMPUTE_FULL],
       f.model_flops_per_iteration + 2 * (lin + core + mlp));
    /* parameters: weights 2048 + 1536 + 1280 + 1024 + 2048 = 7936 and
     * 3*64*128 = 24576 per layer, the latents' norms 32 + 16, two norms of
     * 64; the final norm, the tied embedding 100*64 */
    EQ(f.params, 2 * (7936 + 24576 + 48 + 128) + 64 + 6400);
    /* causal half: only the core halves */
    m.causal = FC_CAUSAL_HALF;
    fc_flops g = run(&m);
    EQ(g.attention_core_forward, core);
    EQ(g.forward_flops_per_iteration, f.forward_flops_per_iteration - core);
    /* direct Q (q_lora_rank 0): q (T x 64) . (64 x 48) replaces q_a and q_b */
    m = mla_model(), m.q_lora_rank = 0;
    g = run(&m);
    EQ(g.attention_linear_forward, 2 * (lin - gemm(T, 32, 64) - gemm(T, 48, 32) + gemm(T, 48, 64)));
}

/* MLA + MoE + MTP: l=3 h=32 a=2, direct Q, kv_lora 8, nope 4, rope 4, v 6;
 * dense ffn 40 in layer 0 (first_k_dense 1), then MoE: 4 experts of 24,
 * top-2, one shared expert of 16, gated; 2 MTP depths (their block: MLA
 * and the last layer's MoE); V=50, s=8, B=3: T = 24. */
static void test_mla_moe_mtp(void **state)
{
    (void)state;
    fc_model m = base(3, 32, 2, 50, 8, 3);
    m.kv_lora_rank = 8, m.qk_nope_dim = 4, m.qk_rope_dim = 4, m.v_head_dim = 6;
    m.ffn = 40, m.swiglu = 1;
    m.experts = 4, m.topk = 2, m.moe_ffn = 24, m.shared_experts = 1, m.shared_ffn = 16;
    m.moe_first_dense = 1, m.mtp_layers = 2;
    const int64_t T = 24;
    u128 attn = gemm(T, 2 * 8, 32)       /* q: h -> a*(nope+rope) */
                + gemm(T, 8 + 4, 32)     /* kv_a: h -> latent + rope */
                + gemm(T, 2 * 10, 8)     /* kv_b: latent -> a*(nope+v) */
                + gemm(T, 32, 2 * 6);    /* o: a*v -> h */
    u128 core = 3 * 2 * gemm(8, 8, 8)    /* QK^T: B*a products, d_qk 8 */
                + 3 * 2 * gemm(8, 6, 8); /* AV: d_v 6 */
    u128 dense = 2 * gemm(T, 40, 32) + gemm(T, 32, 40);
    /* top-2 of 4: each token through 2 experts, T*2 rows in all */
    u128 experts = 2 * (2 * gemm(T, 24, 32) + gemm(T, 32, 24));
    u128 shared = 2 * gemm(T, 16, 32) + gemm(T, 32, 16);
    u128 router = gemm(T, 4, 32);
    u128 moe = experts + shared;
    /* per MTP depth: [norm(emb); norm(h)] (T x 64) . (64 x 32), a block,
     * the shared logits */
    u128 mtp_proj = gemm(T, 32, 64);
    u128 logits = gemm(T, 50, 32);
    fc_flops f = run(&m);
    EQ(f.moe_layers, 2);
    EQ(f.attention_linear_forward, (3 + 2) * attn);
    EQ(f.attention_core_forward, (3 + 2) * core);
    EQ(f.mlp_forward, dense + (2 + 2) * moe);
    EQ(f.router_forward, (2 + 2) * router);
    EQ(f.mtp_proj_forward, 2 * mtp_proj);
    EQ(f.mtp_logits_forward, 2 * logits);
    EQ(f.logits_forward, 3 * logits);
    u128 blocks = 5 * (attn + core) + dense + 4 * (moe + router);
    EQ(f.forward_flops_per_iteration, blocks + 2 * mtp_proj + 3 * logits);
    /* full recompute repeats every block, MTP blocks too; not the
     * projections 2h -> h or the logits */
    EQ(f.hardware_by_recompute[FC_RECOMPUTE_FULL], 3 * f.forward_flops_per_iteration + blocks);
    /* the MTP block can be given: attention + dense */
    m.mtp_block[0] = FC_MIX_ATTENTION, m.mtp_block[1] = FC_MLP_DENSE;
    fc_flops g = run(&m);
    EQ(g.mlp_forward, 3 * dense + 2 * moe);
    EQ(g.router_forward, 2 * router);
}

/* ---- a hybrid with a layer of every kind ---- */

/* l=6 h=32, attention a=4 g=2 d=8; gated MLP f=48; MoE 3 experts of 16,
 * top-1; V=40; s=20, B=2: T = 40. Chunks of 8 for the chunked attention,
 * the delta net and the Mamba-2 scan: 8, 8 and 4 tokens, sum of squares
 * 144 (the square is 400). Sliding window 6.
 *   layer 0: A + dense     layer 1: S + MoE     layer 2: C + dense
 *   layer 3: G + MoE       layer 4: M (no MLP)  layer 5: no mixer + dense
 * Gated delta-net: 2 key heads of 4, 4 value heads of 6 (keys repeated to
 * the value heads). Mamba-2: 4 heads of 8 (d_inner 32), state 5, 2 groups. */
static fc_model hybrid_model(void)
{
    fc_model m = base(6, 32, 4, 40, 20, 2);
    m.kv_heads = 2, m.head_dim = 8, m.ffn = 48, m.swiglu = 1;
    m.experts = 3, m.topk = 1, m.moe_ffn = 16;
    m.window = 6, m.attn_chunk = 8;
    m.gdn_k_heads = 2, m.gdn_v_heads = 4, m.gdn_k_dim = 4, m.gdn_v_dim = 6, m.gdn_chunk = 8;
    m.mamba_heads = 4, m.mamba_head_dim = 8, m.mamba_state = 5, m.mamba_groups = 2;
    m.mamba_chunk = 8;
    strcpy(m.mixers, "ASCGM-");
    strcpy(m.mlps, "DEDE-D");
    return m;
}

typedef struct hybrid_terms {
    u128 attn_lin, core_a, core_s, core_c, gdn_lin, gdn_scan, mamba_lin, mamba_scan;
    u128 dense, moe, router, logits;
} hybrid_terms;

/* half: the causal convention's halved q x q products */
static hybrid_terms hybrid_by_hand(int half)
{
    const int64_t T = 40, B = 2, s = 20, a = 4;
    hybrid_terms t;
    /* Q (32 -> 32), K and V (32 -> 16 each), O (32 -> 32) */
    t.attn_lin = gemm(T, 32, 32) + 2 * gemm(T, 16, 32) + gemm(T, 32, 32);
    /* full: B*a products of s x s by d, twice (QK^T, AV); half: halved */
    t.core_a = 2 * B * a * gemm(s, s, 8) / (half ? 2 : 1);
    /* a window of 6: each query meets 6 keys (full): s x 6 per head, or,
     * causally, sum over i of min(i, 6) in the continuum: s*w - w^2/2 =
     * 120 - 18 = 102 pairs */
    t.core_s = half ? (u128)(2 * B * a * 2 * 102 * 8) : 2 * B * a * gemm(s, 6, 8);
    /* chunked: three chunks, 8 x 8, 8 x 8, 4 x 4 (144 pairs; 72 half) */
    t.core_c = 2 * B * a * (gemm(8, 8, 8) * 2 + gemm(4, 4, 8)) / (half ? 2 : 1);
    /* gated delta-net: in_proj_qkvz 32 -> 2*2*4 + 2*4*6 = 64, in_proj_ba
     * 32 -> 2*4, out_proj 4*6 -> 32 */
    t.gdn_lin = gemm(T, 64, 32) + gemm(T, 8, 32) + gemm(T, 32, 24);
    /* per value head and chunk of q: K_beta K^T q x q by 4, T V_beta q x 6
     * by q, T K_beta q x 4 by q, Q K^T q x q by 4, (Q K^T) U q x 6 by q;
     * W S, Q S q x 6 by 4; K^T U 4 x 6 by q */
    u128 gdn = 0;
    const int64_t q[3] = {8, 8, 4};
    for (int c = 0; c < 3; c++) {
        u128 sq = gemm(q[c], q[c], 4) + gemm(q[c], 6, q[c]) + gemm(q[c], 4, q[c]) +
                  gemm(q[c], q[c], 4) + gemm(q[c], 6, q[c]);
        gdn += (half ? sq / 2 : sq) + 2 * gemm(q[c], 6, 4) + gemm(4, 6, q[c]);
    }
    t.gdn_scan = B * 4 * gdn;
    /* Mamba-2: in_proj 32 -> z, x (32 each), B, C (2*5 each), dt (4) = 88;
     * out_proj 32 -> 32 */
    t.mamba_lin = gemm(T, 88, 32) + gemm(T, 32, 32);
    /* per chunk: C B^T per group q x q by 5, (C B^T o L) X per head q x 8
     * by q, states B^T X per head 5 x 8 by q, C S per head q x 8 by 5 */
    u128 mamba = 0;
    for (int c = 0; c < 3; c++) {
        u128 sq = 2 * gemm(q[c], q[c], 5) + 4 * gemm(q[c], 8, q[c]);
        mamba += (half ? sq / 2 : sq) + 4 * gemm(5, 8, q[c]) + 4 * gemm(q[c], 8, 5);
    }
    t.mamba_scan = B * mamba;
    t.dense = 2 * gemm(T, 48, 32) + gemm(T, 32, 48);
    t.moe = 2 * gemm(T, 16, 32) + gemm(T, 32, 16); /* top-1 */
    t.router = gemm(T, 3, 32);
    t.logits = gemm(T, 40, 32);
    return t;
}

static void test_hybrid_every_kind(void **state)
{
    (void)state;
    for (int half = 0; half <= 1; half++) {
        fc_model m = hybrid_model();
        m.causal = half ? FC_CAUSAL_HALF : FC_CAUSAL_FULL;
        hybrid_terms t = hybrid_by_hand(half);
        fc_flops f = run(&m);
        fc_layer_counts c;
        fc_model_layer_counts(&m, &c);
        assert_int_equal(c.attention, 1), assert_int_equal(c.sliding, 1);
        assert_int_equal(c.chunked, 1), assert_int_equal(c.gdn, 1);
        assert_int_equal(c.mamba, 1), assert_int_equal(c.no_mixer, 1);
        assert_int_equal(c.dense, 3), assert_int_equal(c.moe, 2), assert_int_equal(c.no_mlp, 1);
        EQ(f.attention_linear_forward, 3 * t.attn_lin);
        EQ(f.attention_core_forward, t.core_a + t.core_s + t.core_c);
        EQ(f.mixer_linear_forward, t.gdn_lin + t.mamba_lin);
        EQ(f.scan_forward, t.gdn_scan + t.mamba_scan);
        EQ(f.mlp_forward, 3 * t.dense + 2 * t.moe);
        EQ(f.router_forward, 2 * t.router);
        EQ(f.logits_forward, t.logits);
        u128 layers = 3 * t.attn_lin + t.core_a + t.core_s + t.core_c + t.gdn_lin + t.gdn_scan +
                      t.mamba_lin + t.mamba_scan + 3 * t.dense + 2 * t.moe + 2 * t.router;
        EQ(f.forward_flops_per_iteration, layers + t.logits);
        /* selective repeats the attention cores only (not the scans) */
        EQ(f.hardware_by_recompute[FC_RECOMPUTE_SELECTIVE],
           3 * (layers + t.logits) + t.core_a + t.core_s + t.core_c);
        EQ(f.hardware_by_recompute[FC_RECOMPUTE_FULL], 3 * (layers + t.logits) + layers);
    }
    /* the worked integers (full), each term by hand from the shapes above:
     * attention linear 245760 per layer, cores 102400 (A) + 30720 (S) +
     * 36864 (C), delta net 245760 + 78336, Mamba-2 307200 + 49792, dense
     * MLP 368640, expert 122880, router 7680, logits 102400:
     * 3*245760 + 169984 + 324096 + 356992 + 3*368640 + 2*(122880 + 7680)
     * + 102400 = 3,057,792 */
    fc_model m = hybrid_model();
    fc_flops f = run(&m);
    EQ(f.forward_flops_per_iteration, 3057792);
}

/* Parameters of the hybrid: the GEMM weights of each layer, a norm per
 * sublayer, the final norm, the tied embedding. */
static void test_hybrid_params(void **state)
{
    (void)state;
    fc_model m = hybrid_model();
    fc_flops f = run(&m);
    const int64_t h = 32;
    u128 attn = 32 * 32 + 2 * 32 * 16 + 32 * 32; /* 3072 */
    u128 gdn = 32 * 64 + 32 * 8 + 24 * 32;       /* 3072 */
    u128 mamba = 32 * 88 + 32 * 32;              /* 3840 */
    u128 dense = 3 * 32 * 48, expert = 3 * 32 * 16, router = 32 * 3;
    u128 norms = (5 + 5) * h + h; /* 5 mixers, 5 MLPs, final */
    u128 all = 3 * attn + gdn + mamba + 3 * dense + 2 * (3 * expert + router) + norms;
    u128 active = 3 * attn + gdn + mamba + 3 * dense + 2 * (expert + router) + norms;
    EQ(f.params_no_embedding, all);
    EQ(f.params, all + 40 * 32);
    EQ(f.params_active, active + 40 * 32);
}

/* Mamba-1 (Jamba): in_proj h -> 2*di, x_proj di -> R + 2N, dt_proj R ->
 * di, out_proj di -> h; the selective scan is elementwise: no term.
 * l=2 "MA", h=16, a=2, di=32, N=4, R=3, f=32 plain, V=24, s=10, B=1. */
static void test_mamba1(void **state)
{
    (void)state;
    fc_model m = base(2, 16, 2, 24, 10, 1);
    m.ffn = 32, m.mamba_version = 1, m.mamba_inner = 32, m.mamba_state = 4, m.mamba_dt_rank = 3;
    strcpy(m.mixers, "MA");
    const int64_t T = 10;
    u128 mamba = gemm(T, 64, 16) + gemm(T, 3 + 8, 32) + gemm(T, 32, 3) + gemm(T, 16, 32);
    u128 attn = 4 * gemm(T, 16, 16) + 2 * 2 * gemm(10, 10, 8);
    u128 mlp = gemm(T, 32, 16) + gemm(T, 16, 32);
    fc_flops f = run(&m);
    EQ(f.mixer_linear_forward, mamba);
    EQ(f.scan_forward, 0);
    EQ(f.forward_flops_per_iteration, mamba + attn + 2 * mlp + gemm(T, 24, 16));
}

/* Chunked attention (Llama 4: keys within the query's chunk, global
 * layers every 4th): l=4 "CCCA", h=32 a=4 d=8, s=20, chunk 8, B=1. A
 * chunked layer's QK^T and AV run per chunk: 8 x 8, 8 x 8, 4 x 4. */
static void test_chunked(void **state)
{
    (void)state;
    fc_model m = base(4, 32, 4, 16, 20, 1);
    m.attn_chunk = 8;
    strcpy(m.mixers, "CCCA");
    u128 chunked = 2 * 4 * (2 * gemm(8, 8, 8) + gemm(4, 4, 8));
    u128 global = 2 * 4 * gemm(20, 20, 8);
    fc_flops f = run(&m);
    EQ(f.attention_core_forward, 3 * chunked + global);
    EQ(fc_formula_chunk_squares(20, 8), 144);
    EQ(fc_formula_chunk_squares(20, 20), 400);
    EQ(fc_formula_chunk_squares(20, 64), 400); /* a chunk longer than s: no effect */
    m.causal = FC_CAUSAL_HALF;
    f = run(&m);
    EQ(f.attention_core_forward, (3 * chunked + global) / 2);
    /* a chunk not shorter than s is full attention */
    m.causal = FC_CAUSAL_FULL, m.attn_chunk = 20;
    f = run(&m);
    EQ(f.attention_core_forward, 4 * global);
}

/* The pattern repeats over the layers; the legacy fields still count. */
static void test_pattern_repeat_and_legacy(void **state)
{
    (void)state;
    fc_model a = hybrid_model(), b = hybrid_model();
    a.layers = 12;
    strcpy(b.mixers, "ASCGM-ASCGM-");
    strcpy(b.mlps, "DEDE-DDEDE-D");
    b.layers = 12;
    fc_flops fa = run(&a), fb = run(&b);
    EQ(fa.forward_flops_per_iteration, fb.forward_flops_per_iteration);
    EQ(fa.params, fb.params);
    /* "SASA" = --sliding-window with --window-layers 2; "DEDE" with MoE
     * every other layer from 1 = moe_every 2 shifted: the same counts */
    fc_model p = base(4, 32, 4, 40, 20, 2), q = base(4, 32, 4, 40, 20, 2);
    p.window = q.window = 6;
    strcpy(p.mixers, "SASA");
    q.window_layers = 2;
    EQ(run(&p).forward_flops_per_iteration, run(&q).forward_flops_per_iteration);
    assert_int_equal(fc_model_window_layers(&p), 2);
}

static void expect_refused(const fc_model *m, const char *needle)
{
    char err[200] = "";
    assert_int_equal(fc_model_check(m, err, sizeof err), -1);
    if (strstr(err, needle) == NULL)
        print_message("error was: %s\n", err);
    assert_non_null(strstr(err, needle));
}

static void test_refusals(void **state)
{
    (void)state;
    fc_model m = hybrid_model();
    strcpy(m.mixers, "ASCGMX");
    expect_refused(&m, "'X' (layer 6) is not a layer kind");
    m = hybrid_model(), m.layers = 7;
    expect_refused(&m, "--layer-pattern has 6 layers: --layers 7 is not a multiple");
    m = hybrid_model(), m.window = 0;
    expect_refused(&m, "sliding-window layers (S) but no --sliding-window");
    m = hybrid_model(), m.attn_chunk = 0;
    expect_refused(&m, "chunked-attention layers (C) but no --attn-chunk");
    m = hybrid_model(), m.gdn_v_dim = 0;
    expect_refused(&m, "need --gdn-value-dim");
    m = hybrid_model(), m.gdn_k_heads = 3;
    expect_refused(&m, "--gdn-key-heads must divide --gdn-value-heads");
    m = hybrid_model(), m.mamba_chunk = 0;
    expect_refused(&m, "--mamba-chunk");
    m = hybrid_model(), m.mamba_state = 0;
    expect_refused(&m, "--mamba-state");
    m = hybrid_model(), m.mamba_groups = 3;
    expect_refused(&m, "--mamba-groups must divide --mamba-heads");
    m = hybrid_model(), m.mamba_version = 3;
    expect_refused(&m, "--mamba-version is 1 or 2");
    m = hybrid_model(), m.experts = 0, m.topk = 0, m.moe_ffn = 0;
    expect_refused(&m, "MoE layers (E) but no --experts");
    m = hybrid_model(), strcpy(m.mlps, "DEDE--");
    expect_refused(&m, "layer 6 has neither a mixer nor an MLP");
    m = hybrid_model(), m.window_layers = 1;
    expect_refused(&m, "--window-layers does not go with --layer-pattern");
    m = hybrid_model(), m.moe_every = 2;
    expect_refused(&m, "--moe-every and --moe-first-dense do not go with --mlp-pattern");
    m = hybrid_model(), m.mamba_heads = -1;
    expect_refused(&m, "negative Mamba sizes");
    m = hybrid_model(), m.gdn_chunk = -4;
    expect_refused(&m, "negative gated delta-net sizes");
    m = mla_model(), m.qk_rope_dim = 0;
    expect_refused(&m, "--qk-rope-dim");
    m = mla_model(), m.v_head_dim = 0;
    expect_refused(&m, "--v-head-dim");
    m = mla_model(), m.qk_nope_dim = 0;
    expect_refused(&m, "--qk-nope-dim");
    m = mla_model(), m.kv_lora_rank = 0;
    expect_refused(&m, "need --kv-lora-rank");
    m = mla_model(), m.head_dim = 16;
    expect_refused(&m, "do not apply to multi-latent attention");
    m = mla_model(), m.q_lora_rank = -1;
    expect_refused(&m, "negative multi-latent attention sizes");
    m = mla_model(), m.mtp_layers = -1;
    expect_refused(&m, "negative --mtp-layers");
    m = mla_model(), m.mtp_layers = 1, m.mtp_block[0] = 'X';
    expect_refused(&m, "--mtp-block");
    m = base(2, 32, 4, 40, 20, 2), m.attn_chunk = 8;
    expect_refused(&m, "--attn-chunk needs chunked-attention layers");
    /* a Mamba-only stack needs no heads */
    m = hybrid_model(), strcpy(m.mixers, "M"), strcpy(m.mlps, "D"), m.heads = 0;
    m.experts = m.topk = m.moe_ffn = 0, m.window = m.attn_chunk = 0;
    char err[200];
    assert_int_equal(fc_model_check(&m, err, sizeof err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mla),
        cmocka_unit_test(test_mla_moe_mtp),
        cmocka_unit_test(test_hybrid_every_kind),
        cmocka_unit_test(test_hybrid_params),
        cmocka_unit_test(test_mamba1),
        cmocka_unit_test(test_chunked),
        cmocka_unit_test(test_pattern_repeat_and_legacy),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
