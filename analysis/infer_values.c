/* SPDX-License-Identifier: Apache-2.0 */
/* infer_values.c - the values of the 2025-26 layer kinds (infer.h, the
 * keys from FC_IK_FIRST_KIND on) from the stream's facts, what those kinds
 * change in the values infer_model.c read (layers by convention when a
 * mixer and an MLP pair up, heads of multi-latent attention, the MoE
 * layers of a pattern, no attention at all), the formula's defaults when
 * flags are given, and the model's fields for them. Each value exact,
 * given, a convention, or unknown with the reason, as the others. */
#include <stdio.h>
#include <string.h>

#include "infer_internal.h"

#define set fc_infer_set
#define known fc_infer_known
#define val fc_infer_val_of

int64_t fc_infer_kind_given(const fc_model *m, int key)
{
    switch (key) {
    case FC_IK_KV_LORA_RANK:
        return m->kv_lora_rank;
    case FC_IK_Q_LORA_RANK:
        return m->q_lora_rank;
    case FC_IK_QK_NOPE_DIM:
        return m->qk_nope_dim;
    case FC_IK_QK_ROPE_DIM:
        return m->qk_rope_dim;
    case FC_IK_V_HEAD_DIM:
        return m->v_head_dim;
    case FC_IK_ATTN_GATE:
        return m->attn_gate;
    case FC_IK_MTP_LAYERS:
        return m->mtp_layers;
    case FC_IK_ATTN_CHUNK:
        return m->attn_chunk;
    case FC_IK_GDN_K_HEADS:
        return m->gdn_k_heads;
    case FC_IK_GDN_V_HEADS:
        return m->gdn_v_heads;
    case FC_IK_GDN_K_DIM:
        return m->gdn_k_dim;
    case FC_IK_GDN_V_DIM:
        return m->gdn_v_dim;
    case FC_IK_GDN_CHUNK:
        return fc_model_gdn_chunk(m);
    case FC_IK_MAMBA_VERSION:
        return fc_model_mamba_version(m);
    case FC_IK_MAMBA_HEADS:
        return m->mamba_heads;
    case FC_IK_MAMBA_HEAD_DIM:
        return m->mamba_head_dim;
    case FC_IK_MAMBA_STATE:
        return m->mamba_state;
    case FC_IK_MAMBA_GROUPS:
        return fc_model_mamba_groups(m);
    case FC_IK_MAMBA_CHUNK:
        return m->mamba_chunk;
    case FC_IK_MAMBA_INNER:
        return fc_model_mamba_inner(m);
    case FC_IK_MAMBA_DT_RANK:
        return m->mamba_dt_rank;
    default:
        return 0;
    }
}

static int has(const fc_infer_facts *f, char mix)
{
    return strchr(f->mixers, mix) != NULL || (f->mtp_layers && f->mtp_block[0] == mix);
}

static void none(fc_inferred *in, int first, int last, const char *why)
{
    for (int k = first; k <= last; k++)
        set(in, k, FC_IS_EXACT, 0, "%s", why);
}

/* Multi-latent attention: its ranks and widths; no KV heads, no head_dim. */
static void mla_values(fc_inferred *in, const fc_infer_facts *f)
{
    if (!f->mla) {
        none(in, FC_IK_KV_LORA_RANK, FC_IK_V_HEAD_DIM,
             f->q_width ? "no latent projections: Q, K and V from h" : "no attention layer");
        return;
    }
    int64_t a = f->v_head_dim ? f->q_width / f->v_head_dim : 0;
    set(in, FC_IK_KV_LORA_RANK, FC_IS_EXACT, f->kv_lora_rank,
        "K and V up-projected from a latent of %lld (kv_b reads it)", (long long)f->kv_lora_rank);
    if (f->q_lora_rank)
        set(in, FC_IK_Q_LORA_RANK, FC_IS_EXACT, f->q_lora_rank,
            "Q through a latent of %lld (q_a h -> %lld, q_b)", (long long)f->q_lora_rank,
            (long long)f->q_lora_rank);
    else
        set(in, FC_IK_Q_LORA_RANK, FC_IS_EXACT, 0, "Q projected from h directly");
    set(in, FC_IK_QK_ROPE_DIM, FC_IS_EXACT, f->qk_rope_dim,
        "kv_a writes the latent and a rotary key of %lld shared by the heads",
        (long long)f->qk_rope_dim);
    set(in, FC_IK_QK_NOPE_DIM, FC_IS_EXACT, f->qk_nope_dim,
        "kv_b writes %lld heads x (%lld + %lld)", (long long)a, (long long)f->qk_nope_dim,
        (long long)f->v_head_dim);
    set(in, FC_IK_V_HEAD_DIM, FC_IS_EXACT, f->v_head_dim,
        "the output projection reads %lld heads x %lld", (long long)a, (long long)f->v_head_dim);
    const char *how = f->core ? "and the core's products per sequence agree"
                              : "(no core in the stream: fused attention)";
    set(in, FC_IK_HEADS, FC_IS_EXACT, a,
        "(Q width - kv_b width + o width) / rope = (%lld - %lld + %lld) / %lld, %s",
        (long long)(a * (f->qk_nope_dim + f->qk_rope_dim)),
        (long long)(a * (f->qk_nope_dim + f->v_head_dim)), (long long)f->q_width,
        (long long)f->qk_rope_dim, how);
    set(in, FC_IK_KV_HEADS, FC_IS_EXACT, 0, "multi-latent attention: K and V from the latent");
    set(in, FC_IK_HEAD_DIM, FC_IS_EXACT, 0,
        "multi-latent attention: QK^T is %lld wide, attention x V %lld", (long long)f->head_dim,
        (long long)f->v_head_dim);
}

static void gdn_values(fc_inferred *in, const fc_infer_facts *f)
{
    if (!has(f, FC_MIX_GDN)) {
        none(in, FC_IK_GDN_K_HEADS, FC_IK_GDN_CHUNK, "no gated delta-net layer");
        return;
    }
    set(in, FC_IK_GDN_V_HEADS, FC_IS_EXACT, f->gdn_v_heads, "in_proj_ba writes 2 x %lld",
        (long long)f->gdn_v_heads);
    set(in, FC_IK_GDN_V_DIM, FC_IS_EXACT, f->gdn_v_dim, "out_proj reads %lld heads x %lld",
        (long long)f->gdn_v_heads, (long long)f->gdn_v_dim);
    if (f->gdn_k_dim) {
        set(in, FC_IK_GDN_K_DIM, FC_IS_EXACT, f->gdn_k_dim,
            "the delta rule's q x q products' "
            "inner dimension");
        set(in, FC_IK_GDN_K_HEADS, FC_IS_EXACT, f->gdn_k_heads,
            "in_proj_qkvz's key part 2 x %lld / %lld", (long long)(f->gdn_k_heads * f->gdn_k_dim),
            (long long)f->gdn_k_dim);
        set(in, FC_IK_GDN_CHUNK, FC_IS_EXACT, f->gdn_chunk, "the delta rule's q x q products");
    } else {
        for (int k = FC_IK_GDN_K_HEADS; k <= FC_IK_GDN_CHUNK; k++)
            if (k != FC_IK_GDN_V_HEADS && k != FC_IK_GDN_V_DIM)
                set(in, k, FC_IS_UNKNOWN, 0, "%s", f->gdn_why);
    }
}

static void mamba_values(fc_inferred *in, const fc_infer_facts *f)
{
    if (!has(f, FC_MIX_MAMBA)) {
        none(in, FC_IK_MAMBA_VERSION, FC_IK_MAMBA_DT_RANK, "no Mamba layer");
        return;
    }
    if (f->mamba_version == 1) {
        set(in, FC_IK_MAMBA_VERSION, FC_IS_EXACT, 1,
            "x_proj and dt_proj between in and out: "
            "Mamba-1's selective scan");
        set(in, FC_IK_MAMBA_INNER, FC_IS_EXACT, f->mamba_inner, "out_proj reads %lld",
            (long long)f->mamba_inner);
        set(in, FC_IK_MAMBA_DT_RANK, FC_IS_EXACT, f->mamba_dt_rank, "dt_proj reads %lld",
            (long long)f->mamba_dt_rank);
        set(in, FC_IK_MAMBA_STATE, FC_IS_EXACT, f->mamba_state, "x_proj writes %lld + 2 x %lld",
            (long long)f->mamba_dt_rank, (long long)f->mamba_state);
        none(in, FC_IK_MAMBA_HEADS, FC_IK_MAMBA_HEAD_DIM, "Mamba-1: no heads");
        none(in, FC_IK_MAMBA_GROUPS, FC_IK_MAMBA_CHUNK, "Mamba-1: no SSD chunks");
        return;
    }
    set(in, FC_IK_MAMBA_VERSION, FC_IS_EXACT, 2, "in_proj, the SSD scan's products, out_proj");
    set(in, FC_IK_MAMBA_INNER, FC_IS_EXACT, f->mamba_inner, "out_proj reads %lld",
        (long long)f->mamba_inner);
    set(in, FC_IK_MAMBA_CHUNK, FC_IS_EXACT, f->mamba_chunk, "C B^T is %lld x %lld",
        (long long)f->mamba_chunk, (long long)f->mamba_chunk);
    set(in, FC_IK_MAMBA_STATE, FC_IS_EXACT, f->mamba_state, "C B^T's inner dimension");
    set(in, FC_IK_MAMBA_HEAD_DIM, FC_IS_EXACT, f->mamba_head_dim, "(C B^T o L) X is %lld x %lld",
        (long long)f->mamba_chunk, (long long)f->mamba_head_dim);
    set(in, FC_IK_MAMBA_HEADS, FC_IS_EXACT, f->mamba_heads, "d_inner %lld / %lld",
        (long long)f->mamba_inner, (long long)f->mamba_head_dim);
    set(in, FC_IK_MAMBA_GROUPS, FC_IS_EXACT, f->mamba_groups,
        "in_proj's rest (2 x groups x %lld + %lld heads) = %lld", (long long)f->mamba_state,
        (long long)f->mamba_heads,
        (long long)(2 * f->mamba_groups * f->mamba_state + f->mamba_heads));
    set(in, FC_IK_MAMBA_DT_RANK, FC_IS_EXACT, 0, "Mamba-2: no dt projection");
}

void fc_infer_kind_values(fc_inferred *in, const fc_infer_facts *f)
{
    if (!f->ok)
        return;
    mla_values(in, f);
    if (f->kinds && f->q_width == 0) { /* no attention layer at all */
        none(in, FC_IK_HEADS, FC_IK_HEAD_DIM, "no attention layer");
        set(in, FC_IK_SEQ, FC_IS_UNKNOWN, 0,
            "no attention layer: the sequence length is in no GEMM (give --seq)");
    }
    set(in, FC_IK_ATTN_GATE, FC_IS_EXACT, f->attn_gate, "%s",
        f->attn_gate ? "Q is twice the output projection's input: a sigmoid output gate"
                     : "no output gate (Q as wide as the output projection's input)");
    set(in, FC_IK_MTP_LAYERS, FC_IS_EXACT, f->mtp_layers, "%s",
        f->mtp_layers ? "projections 2h -> h after the layers, each before a block and logits"
                      : "no projection 2h -> h after the layers");
    if (f->attn_chunk)
        set(in, FC_IK_ATTN_CHUNK, FC_IS_EXACT, f->attn_chunk,
            "chunked layers' cores are %lld x %lld, %lld per sequence and head",
            (long long)f->attn_chunk, (long long)f->attn_chunk,
            (long long)(f->seq / f->attn_chunk));
    else
        set(in, FC_IK_ATTN_CHUNK, FC_IS_EXACT, 0, "every attention core spans the sequence");
    gdn_values(in, f);
    mamba_values(in, f);
    if (!f->kinds)
        return;
    set(in, FC_IK_LAYERS, f->layers_paired ? FC_IS_CONVENTION : FC_IS_EXACT, f->layers, "%s",
        f->layers_paired ? "a mixer and the MLP right after it are one layer, a lone mixer or MLP "
                           "one too (Nemotron-H counts each: the FLOPs are the same)"
                         : "each a mixer and the MLP after it (the layers line below)");
    if (f->mlps[0] && f->moe) {
        set(in, FC_IK_MOE_EVERY, FC_IS_EXACT, 1, "the layer pattern says which layers are MoE");
        set(in, FC_IK_MOE_FIRST_DENSE, FC_IS_EXACT, 0,
            "the layer pattern says which layers are MoE");
    }
}

void fc_infer_kind_defaults(fc_inferred *in)
{
    const char *why = "not in the stream and not given: the formula's default";
    if (!known(in, FC_IK_GDN_CHUNK))
        set(in, FC_IK_GDN_CHUNK, FC_IS_CONVENTION, 64, "%s (fla's and transformers' chunk)", why);
    for (int k = FC_IK_FIRST_KIND; k < FC_IK_COUNT; k++)
        if (!known(in, k) && k != FC_IK_GDN_K_HEADS && k != FC_IK_GDN_K_DIM)
            set(in, k, FC_IS_CONVENTION, 0, "%s (none)", why);
}

/* The values a kind present needs, known; else their flags missing. */
static void need(fc_inferred *in, int first, int last)
{
    for (int k = first; k <= last; k++)
        if (!known(in, k))
            fc_infer_add_missing(in, k);
}

void fc_infer_kind_build(fc_inferred *in, const fc_infer_given *g, fc_model *m)
{
    const fc_infer_facts *f = &in->f;
    /* the patterns: given, or the stream's */
    const char *mix = g->m.mixers[0] ? g->m.mixers : f->mixers;
    const char *mlp = g->m.mlps[0] ? g->m.mlps : f->mlps;
    memcpy(m->mixers, mix, sizeof m->mixers);
    memcpy(m->mlps, mlp, sizeof m->mlps);
    memcpy(m->mtp_block, g->m.mtp_block[0] ? g->m.mtp_block : f->mtp_block, sizeof m->mtp_block);
    if (known(in, FC_IK_KV_LORA_RANK) && val(in, FC_IK_KV_LORA_RANK) > 0)
        need(in, FC_IK_KV_LORA_RANK, FC_IK_V_HEAD_DIM);
    if (strchr(mix, FC_MIX_GDN) || m->mtp_block[0] == FC_MIX_GDN)
        need(in, FC_IK_GDN_K_HEADS, FC_IK_GDN_CHUNK);
    if (strchr(mix, FC_MIX_MAMBA) || m->mtp_block[0] == FC_MIX_MAMBA)
        need(in, FC_IK_MAMBA_VERSION, FC_IK_MAMBA_DT_RANK);
    if (strchr(mix, FC_MIX_CHUNKED))
        need(in, FC_IK_ATTN_CHUNK, FC_IK_ATTN_CHUNK);
    need(in, FC_IK_MTP_LAYERS, FC_IK_MTP_LAYERS);
    if (in->missing[0])
        return;
    m->kv_lora_rank = val(in, FC_IK_KV_LORA_RANK);
    if (m->kv_lora_rank > 0) {
        m->q_lora_rank = val(in, FC_IK_Q_LORA_RANK), m->qk_nope_dim = val(in, FC_IK_QK_NOPE_DIM);
        m->qk_rope_dim = val(in, FC_IK_QK_ROPE_DIM), m->v_head_dim = val(in, FC_IK_V_HEAD_DIM);
    }
    m->attn_gate = known(in, FC_IK_ATTN_GATE) && val(in, FC_IK_ATTN_GATE);
    m->mtp_layers = val(in, FC_IK_MTP_LAYERS);
    m->attn_chunk = strchr(mix, FC_MIX_CHUNKED) ? val(in, FC_IK_ATTN_CHUNK) : 0;
    if (strchr(mix, FC_MIX_GDN)) {
        m->gdn_k_heads = val(in, FC_IK_GDN_K_HEADS), m->gdn_v_heads = val(in, FC_IK_GDN_V_HEADS);
        m->gdn_k_dim = val(in, FC_IK_GDN_K_DIM), m->gdn_v_dim = val(in, FC_IK_GDN_V_DIM);
        m->gdn_chunk = val(in, FC_IK_GDN_CHUNK);
    }
    if (strchr(mix, FC_MIX_MAMBA)) {
        m->mamba_version = val(in, FC_IK_MAMBA_VERSION);
        m->mamba_heads = val(in, FC_IK_MAMBA_HEADS);
        m->mamba_head_dim = val(in, FC_IK_MAMBA_HEAD_DIM);
        m->mamba_state = val(in, FC_IK_MAMBA_STATE), m->mamba_groups = val(in, FC_IK_MAMBA_GROUPS);
        m->mamba_chunk = val(in, FC_IK_MAMBA_CHUNK),
        m->mamba_dt_rank = val(in, FC_IK_MAMBA_DT_RANK);
        m->mamba_inner = m->mamba_version == 1 ? val(in, FC_IK_MAMBA_INNER) : 0;
    }
}
