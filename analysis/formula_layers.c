/* SPDX-License-Identifier: Apache-2.0 */
/* formula_layers.c - the cost of one layer of each kind: the weights a
 * token meets (2 FLOPs per weight per token, forward) and the products of
 * activations with each other (the attention core, the chunked scans), for
 * a whole iteration of B sequences of s tokens. docs/formula.md derives
 * every term from the matrix shapes.
 *
 *   attention   Q, K, V, O: h*(a*d*(1 + gate) + 2*g*d) + a*d*h
 *   MLA         (h*r_q + r_q*a*d_qk | h*a*d_qk) + h*(r_kv + d_rope)
 *               + r_kv*a*(d_nope + d_v) + a*d_v*h          (d_qk = nope + rope)
 *   core        pairs2 * B * a*(d_qk + d_v), pairs2 = twice the query-key
 *               pairs of one head and sequence: 2s^2 (full) or s^2 (half);
 *               sliding 2*s*w or w*(2s - w); chunked 2*sum(q^2) or sum(q^2)
 *   GDN         h*(2*Hk*dk + 2*Hv*dv + 2*Hv) + Hv*dv*h; scan per value head
 *               and sequence 2*sum(q^2)*(3dk + 2dv) (full; half: halved)
 *               + 6*s*dk*dv, q the chunks
 *   Mamba-2     h*(2*H*P + 2*G*N + H) + H*P*h; scan per sequence
 *               2*sum(q^2)*(G*N + H*P) (full; half: halved) + 4*s*H*N*P
 *   Mamba-1     h*2*di + di*(R + 2N) + R*di + di*h; its scan is elementwise
 *   MLP         (2 | 3)*h*f; MoE: top-k experts + shared experts + router h*E
 * Elementwise work (norms, activations, rotary embeddings, softmax, masks,
 * gates, the scans' decays and the Mamba-1 recurrence, depthwise
 * convolutions, the GDN chunk's triangular solve) is not counted. */
#include "formula_internal.h"

fc_u128 fc_formula_chunk_squares(int64_t s, int64_t c)
{
    fc_acc a = {0};
    if (s <= 0)
        return 0;
    if (c <= 0 || c >= s)
        return fc_acc_mul(&a, fc_acc_u(s), fc_acc_u(s));
    fc_u128 n = (fc_u128)(s / c), r = (fc_u128)(s % c);
    return n * (fc_u128)c * (fc_u128)c + r * r; /* s < 2^50: no overflow */
}

/* Twice the query-key pairs of one head and one sequence, for the causal
 * convention: the whole square counts s^2 pairs (full), half of it s^2/2. */
static fc_u128 pairs2(fc_acc *c, const fc_model *m, char kind)
{
    int half = m->causal == FC_CAUSAL_HALF;
    fc_u128 s = fc_acc_u(m->seq);
    if (kind == FC_MIX_SLIDING) {
        fc_u128 w = fc_acc_u(fc_model_window_keys(m));
        /* each query meets w keys (full); causal: the area under
         * min(i, w) for i in [0, s], s*w - w^2/2 */
        return half ? fc_acc_mul(c, w, 2 * s - w) : fc_acc_mul3(c, 2, s, w);
    }
    fc_u128 sq = kind == FC_MIX_CHUNKED ? fc_formula_chunk_squares(m->seq, m->attn_chunk)
                                        : fc_acc_mul(c, s, s);
    return half ? sq : fc_acc_mul(c, 2, sq);
}

fc_u128 fc_attention_qkv_width(fc_acc *c, const fc_model *m)
{
    if (fc_model_mla(m))
        return fc_acc_mul(c, fc_acc_u(m->heads),
                          fc_acc_u(m->qk_nope_dim + m->qk_rope_dim + m->v_head_dim));
    return fc_acc_mul3(c, 2, fc_acc_u(m->heads), fc_acc_u(fc_model_head_dim(m)));
}

static void attention(fc_acc *c, const fc_model *m, char kind, fc_kind_cost *o)
{
    fc_u128 h = fc_acc_u(m->hidden), a = fc_acc_u(m->heads);
    if (fc_model_mla(m)) {
        fc_u128 rq = fc_acc_u(m->q_lora_rank), rkv = fc_acc_u(m->kv_lora_rank);
        fc_u128 dqk = fc_acc_u(m->qk_nope_dim + m->qk_rope_dim), dv = fc_acc_u(m->v_head_dim);
        fc_u128 q = rq ? fc_acc_add(c, fc_acc_mul(c, h, rq), fc_acc_mul3(c, rq, a, dqk))
                       : fc_acc_mul3(c, h, a, dqk);
        fc_u128 kv_down = fc_acc_mul(c, h, rkv + fc_acc_u(m->qk_rope_dim));
        fc_u128 kv_up = fc_acc_mul3(c, rkv, a, fc_acc_u(m->qk_nope_dim + m->v_head_dim));
        fc_u128 out = fc_acc_mul3(c, a, dv, h);
        o->weights = fc_acc_add(c, fc_acc_add(c, q, kv_down), fc_acc_add(c, kv_up, out));
        o->norms = fc_acc_add(c, rq, rkv); /* the latents' RMSNorms */
    } else {
        fc_u128 ad = fc_acc_mul(c, a, fc_acc_u(fc_model_head_dim(m)));
        fc_u128 gd = fc_acc_mul(c, fc_acc_u(fc_model_kv_heads(m)), fc_acc_u(fc_model_head_dim(m)));
        fc_u128 q = m->attn_gate ? fc_acc_mul(c, 2, ad) : ad;
        /* Q (with its gate), K and V h x (g*d) each, O (a*d) x h */
        o->weights = fc_acc_mul(c, h, fc_acc_add(c, fc_acc_add(c, q, ad), fc_acc_mul(c, 2, gd)));
    }
    o->activations =
        fc_acc_mul3(c, pairs2(c, m, kind), fc_acc_u(m->batch), fc_attention_qkv_width(c, m));
}

/* Gated delta-net (Qwen3-Next): in_proj_qkvz h -> 2*Hk*dk + 2*Hv*dv,
 * in_proj_ba h -> 2*Hv, out_proj Hv*dv -> h; q and k are repeated to the
 * Hv value heads, and per value head and chunk of q tokens the chunked
 * delta rule runs K_beta K^T, T V_beta, T K_beta (the WY form), Q K^T and
 * (Q K^T) U (q x q products: q^2 * (3dk + 2dv) multiply-adds) and W S,
 * Q S, K^T U against the dk x dv state (3 * q*dk*dv). */
static void gdn(fc_acc *c, const fc_model *m, fc_kind_cost *o)
{
    fc_u128 h = fc_acc_u(m->hidden), hk = fc_acc_u(m->gdn_k_heads), hv = fc_acc_u(m->gdn_v_heads);
    fc_u128 dk = fc_acc_u(m->gdn_k_dim), dv = fc_acc_u(m->gdn_v_dim);
    fc_u128 in = fc_acc_add(c, fc_acc_mul3(c, 2, hk, dk), fc_acc_mul3(c, 2, hv, dv));
    in = fc_acc_add(c, in, fc_acc_mul(c, 2, hv));
    o->weights = fc_acc_add(c, fc_acc_mul(c, h, in), fc_acc_mul3(c, hv, dv, h));
    fc_u128 sq = fc_formula_chunk_squares(m->seq, fc_model_gdn_chunk(m));
    if (m->causal != FC_CAUSAL_HALF)
        sq = fc_acc_mul(c, 2, sq);
    fc_u128 intra = fc_acc_mul(c, sq, fc_acc_add(c, fc_acc_mul(c, 3, dk), fc_acc_mul(c, 2, dv)));
    fc_u128 state = fc_acc_mul(c, fc_acc_mul3(c, 6, fc_acc_u(m->seq), dk), dv);
    o->activations = fc_acc_mul3(c, fc_acc_add(c, intra, state), hv, fc_acc_u(m->batch));
}

/* Mamba-2 (SSD, Nemotron-H): in_proj h -> z, x (d_inner each), B, C (G*N
 * each), dt (H); out_proj d_inner -> h. The chunked scan per chunk of q
 * tokens: C B^T per group (q x q by N) and (C B^T o L) X per head (q x q
 * by P), the chunk's state B^T X and the output from the previous state
 * C S per head (q x N by N x P each). Mamba-1 (Jamba): in_proj h -> 2*di,
 * x_proj di -> R + 2N, dt_proj R -> di, out_proj di -> h; its selective
 * scan is an elementwise recurrence. */
static void mamba(fc_acc *c, const fc_model *m, fc_kind_cost *o)
{
    fc_u128 h = fc_acc_u(m->hidden), n = fc_acc_u(m->mamba_state);
    fc_u128 di = fc_acc_u(fc_model_mamba_inner(m));
    if (fc_model_mamba_version(m) == 1) {
        fc_u128 r = fc_acc_u(m->mamba_dt_rank);
        fc_u128 w = fc_acc_add(c, fc_acc_mul3(c, 2, h, di), fc_acc_mul(c, di, r + 2 * n));
        o->weights = fc_acc_add(c, w, fc_acc_add(c, fc_acc_mul(c, r, di), fc_acc_mul(c, di, h)));
        return;
    }
    fc_u128 H = fc_acc_u(m->mamba_heads), g = fc_acc_u(fc_model_mamba_groups(m));
    fc_u128 in = fc_acc_add(c, fc_acc_mul(c, 2, di), fc_acc_add(c, fc_acc_mul3(c, 2, g, n), H));
    o->weights = fc_acc_add(c, fc_acc_mul(c, h, in), fc_acc_mul(c, di, h));
    fc_u128 sq = fc_formula_chunk_squares(m->seq, m->mamba_chunk);
    if (m->causal != FC_CAUSAL_HALF)
        sq = fc_acc_mul(c, 2, sq);
    fc_u128 intra = fc_acc_mul(c, sq, fc_acc_add(c, fc_acc_mul(c, g, n), di));
    fc_u128 state = fc_acc_mul(c, fc_acc_mul3(c, 4, fc_acc_u(m->seq), di), n);
    o->activations = fc_acc_mul(c, fc_acc_add(c, intra, state), fc_acc_u(m->batch));
}

void fc_mixer_cost(fc_acc *c, const fc_model *m, char kind, fc_kind_cost *out)
{
    fc_kind_cost o = {0};
    switch (kind) {
    case FC_MIX_ATTENTION:
    case FC_MIX_SLIDING:
    case FC_MIX_CHUNKED:
        attention(c, m, kind, &o);
        break;
    case FC_MIX_GDN:
        gdn(c, m, &o);
        break;
    case FC_MIX_MAMBA:
        mamba(c, m, &o);
        break;
    default:
        *out = o;
        return; /* no mixer: no weights, no norm */
    }
    o.weights_all = o.weights;
    o.norms = fc_acc_add(c, o.norms, fc_acc_u(m->hidden)); /* the pre-mixer norm */
    *out = o;
}

/* Weights of one MLP of width f: up (and gate) plus down, h*f each. */
static fc_u128 mlp_weights(fc_acc *c, const fc_model *m, int64_t f)
{
    return fc_acc_mul3(c, m->swiglu ? 3 : 2, fc_acc_u(m->hidden), fc_acc_u(f));
}

void fc_mlp_cost(fc_acc *c, const fc_model *m, char kind, fc_kind_cost *out)
{
    fc_kind_cost o = {0};
    if (kind == FC_MLP_DENSE) {
        o.weights = o.weights_all = mlp_weights(c, m, fc_model_ffn(m));
    } else if (kind == FC_MLP_MOE) {
        fc_u128 expert = mlp_weights(c, m, fc_model_moe_ffn(m));
        fc_u128 shared =
            fc_acc_mul(c, fc_acc_u(m->shared_experts), mlp_weights(c, m, fc_model_shared_ffn(m)));
        o.router = fc_acc_mul(c, fc_acc_u(m->hidden), fc_acc_u(m->experts));
        o.weights = fc_acc_add(c, fc_acc_mul(c, fc_acc_u(m->topk), expert), shared);
        o.weights_all = fc_acc_add(c, fc_acc_mul(c, fc_acc_u(m->experts), expert), shared);
    } else {
        *out = o;
        return;
    }
    o.norms = fc_acc_u(m->hidden);
    *out = o;
}
