/* SPDX-License-Identifier: Apache-2.0 */
/* infer_model.c - formula values from the stream's facts, the values given
 * on the command line and the iterations (infer.h): each value exact (read
 * off the shapes), given, a convention, or unknown with the reason; given
 * values override, and one that the stream contradicts is flagged. When
 * every value the FLOPs need is known the model is built and checked: the
 * formula's forward must equal the counted forward, GEMM for GEMM. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "infer_internal.h"

static const struct {
    const char *name, *flag;
} keys[FC_IK_COUNT] = {
    [FC_IK_LAYERS] = {"layers", "--layers"},
    [FC_IK_HIDDEN] = {"hidden", "--hidden"},
    [FC_IK_HEADS] = {"heads", "--heads"},
    [FC_IK_KV_HEADS] = {"kv_heads", "--kv-heads"},
    [FC_IK_HEAD_DIM] = {"head_dim", "--head-dim"},
    [FC_IK_FFN] = {"ffn", "--ffn"},
    [FC_IK_SWIGLU] = {"swiglu", "--swiglu"},
    [FC_IK_VOCAB] = {"vocab", "--vocab"},
    [FC_IK_SEQ] = {"seq", "--seq"},
    [FC_IK_BATCH] = {"batch", "--batch"},
    [FC_IK_TIED] = {"tied_embeddings", "--tied-embeddings"},
    [FC_IK_EXPERTS] = {"experts", "--experts"},
    [FC_IK_TOPK] = {"topk", "--topk"},
    [FC_IK_MOE_FFN] = {"moe_ffn", "--moe-ffn"},
    [FC_IK_SHARED_EXPERTS] = {"shared_experts", "--shared-experts"},
    [FC_IK_SHARED_FFN] = {"shared_ffn", "--shared-ffn"},
    [FC_IK_MOE_EVERY] = {"moe_every", "--moe-every"},
    [FC_IK_MOE_FIRST_DENSE] = {"moe_first_dense", "--moe-first-dense"},
    [FC_IK_RECOMPUTE] = {"recompute", "--recompute"},
    [FC_IK_CAUSAL] = {"causal_attention", "--causal-attention"},
    [FC_IK_KV_LORA_RANK] = {"kv_lora_rank", "--kv-lora-rank"},
    [FC_IK_Q_LORA_RANK] = {"q_lora_rank", "--q-lora-rank"},
    [FC_IK_QK_NOPE_DIM] = {"qk_nope_dim", "--qk-nope-dim"},
    [FC_IK_QK_ROPE_DIM] = {"qk_rope_dim", "--qk-rope-dim"},
    [FC_IK_V_HEAD_DIM] = {"v_head_dim", "--v-head-dim"},
    [FC_IK_ATTN_GATE] = {"attn_output_gate", "--attn-output-gate"},
    [FC_IK_MTP_LAYERS] = {"mtp_layers", "--mtp-layers"},
    [FC_IK_ATTN_CHUNK] = {"attn_chunk", "--attn-chunk"},
    [FC_IK_GDN_K_HEADS] = {"gdn_key_heads", "--gdn-key-heads"},
    [FC_IK_GDN_V_HEADS] = {"gdn_value_heads", "--gdn-value-heads"},
    [FC_IK_GDN_K_DIM] = {"gdn_key_dim", "--gdn-key-dim"},
    [FC_IK_GDN_V_DIM] = {"gdn_value_dim", "--gdn-value-dim"},
    [FC_IK_GDN_CHUNK] = {"gdn_chunk", "--gdn-chunk"},
    [FC_IK_MAMBA_VERSION] = {"mamba_version", "--mamba-version"},
    [FC_IK_MAMBA_HEADS] = {"mamba_heads", "--mamba-heads"},
    [FC_IK_MAMBA_HEAD_DIM] = {"mamba_head_dim", "--mamba-head-dim"},
    [FC_IK_MAMBA_STATE] = {"mamba_state", "--mamba-state"},
    [FC_IK_MAMBA_GROUPS] = {"mamba_groups", "--mamba-groups"},
    [FC_IK_MAMBA_CHUNK] = {"mamba_chunk", "--mamba-chunk"},
    [FC_IK_MAMBA_INNER] = {"mamba_inner", "--mamba-inner"},
    [FC_IK_MAMBA_DT_RANK] = {"mamba_dt_rank", "--mamba-dt-rank"},
};

const char *fc_ik_name(int key)
{
    return key >= 0 && key < FC_IK_COUNT ? keys[key].name : "?";
}
const char *fc_ik_flag(int key)
{
    return key >= 0 && key < FC_IK_COUNT ? keys[key].flag : "?";
}

const char *fc_is_name(int status)
{
    static const char *const names[] = {"unknown", "exact", "given", "convention"};
    return status >= 0 && status <= FC_IS_CONVENTION ? names[status] : "?";
}

#define set fc_infer_set
void fc_infer_set(fc_inferred *in, int key, int status, int64_t value, const char *fmt, ...)
{
    fc_infer_val *v = &in->v[key];
    v->status = status;
    v->value = value;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->note, sizeof v->note, fmt, ap);
    va_end(ap);
}

#define known fc_infer_known
#define val fc_infer_val_of

/* The value of key among the given ones (fc_model fields). */
static int64_t given_value(const fc_model *m, int key)
{
    switch (key) {
    case FC_IK_LAYERS:
        return m->layers;
    case FC_IK_HIDDEN:
        return m->hidden;
    case FC_IK_HEADS:
        return m->heads;
    case FC_IK_KV_HEADS:
        return fc_model_kv_heads(m);
    case FC_IK_HEAD_DIM:
        return fc_model_head_dim(m);
    case FC_IK_FFN:
        return fc_model_ffn(m);
    case FC_IK_SWIGLU:
        return m->swiglu;
    case FC_IK_VOCAB:
        return m->vocab;
    case FC_IK_SEQ:
        return m->seq;
    case FC_IK_BATCH:
        return m->batch;
    case FC_IK_TIED:
        return !m->untied_embeddings;
    case FC_IK_EXPERTS:
        return m->experts;
    case FC_IK_TOPK:
        return m->topk;
    case FC_IK_MOE_FFN:
        return m->experts ? fc_model_moe_ffn(m) : 0;
    case FC_IK_SHARED_EXPERTS:
        return m->shared_experts;
    case FC_IK_SHARED_FFN:
        return m->shared_experts ? fc_model_shared_ffn(m) : 0;
    case FC_IK_MOE_EVERY:
        return m->experts ? (m->moe_every > 1 ? m->moe_every : 1) : 0;
    case FC_IK_MOE_FIRST_DENSE:
        return m->moe_first_dense;
    case FC_IK_RECOMPUTE:
        return m->recompute;
    case FC_IK_CAUSAL:
        return m->causal;
    default:
        return fc_infer_kind_given(m, key);
    }
}

/* ---- what the stream says ---- */

static void attention_values(fc_inferred *in, const fc_infer_facts *f)
{
    if (!f->core) {
        const char *why = "fused attention (no QK^T GEMM in the stream)";
        set(in, FC_IK_HEAD_DIM, FC_IS_UNKNOWN, 0,
            "%s; the FLOPs need only a*d = %lld and g*d = %lld", why, (long long)f->q_width,
            (long long)f->kv_width);
        set(in, FC_IK_HEADS, FC_IS_UNKNOWN, 0, "%s", why);
        set(in, FC_IK_KV_HEADS, FC_IS_UNKNOWN, 0, "%s", why);
        set(in, FC_IK_SEQ, FC_IS_UNKNOWN, 0, "%s hides the sequence length: give --seq", why);
        return;
    }
    if (f->attn_layers > 0) { /* the core is fused-attention calls: their shape */
        fc_infer_attn_values(in, f);
        return;
    }
    int64_t d = f->head_dim, B = f->tokens / f->seq;
    set(in, FC_IK_HEAD_DIM, FC_IS_EXACT, d, "inner dimension of QK^T");
    set(in, FC_IK_HEADS, FC_IS_EXACT, f->q_width / d,
        "output projection reads %lld = heads x %lld; %lld attention products per layer = %lld "
        "sequences x heads",
        (long long)f->q_width, (long long)d, (long long)f->core_count, (long long)B);
    set(in, FC_IK_KV_HEADS, FC_IS_EXACT, f->kv_width / d,
        "K and V are %lld wide each = kv_heads x %lld", (long long)f->kv_width, (long long)d);
    set(in, FC_IK_SEQ, FC_IS_EXACT, f->seq, "QK^T is %lld x %lld per sequence and head",
        (long long)f->seq, (long long)f->seq);
}

static void mlp_values(fc_inferred *in, const fc_infer_facts *f)
{
    const char *kind = f->swiglu ? "gated (3 matrices)" : "plain (2 matrices)";
    if (f->ffn > 0)
        set(in, FC_IK_FFN, FC_IS_EXACT, f->ffn, "MLP %lld -> %lld -> %lld, %s",
            (long long)f->hidden, (long long)f->ffn, (long long)f->hidden, kind);
    else
        set(in, FC_IK_FFN, FC_IS_CONVENTION, f->moe_ffn,
            "every layer is a mixture of experts: not used");
    set(in, FC_IK_SWIGLU, FC_IS_EXACT, f->swiglu, "%s", kind);
    if (!f->moe) {
        const char *dense = "no expert GEMMs: every weight GEMM runs on all tokens";
        set(in, FC_IK_EXPERTS, FC_IS_EXACT, 0, "%s", dense);
        for (int k = FC_IK_TOPK; k <= FC_IK_MOE_FIRST_DENSE; k++)
            set(in, k, FC_IS_EXACT, 0, "dense");
        return;
    }
    if (f->experts_from_router)
        set(in, FC_IK_EXPERTS, FC_IS_EXACT, f->experts, "router %lld -> %lld (%lld experts ran)",
            (long long)f->hidden, (long long)f->experts, (long long)f->experts_seen);
    else
        set(in, FC_IK_EXPERTS, FC_IS_UNKNOWN, 0,
            "no router GEMM before the experts; %lld experts ran", (long long)f->experts_seen);
    if (f->routed_even && f->routed % f->tokens == 0)
        set(in, FC_IK_TOPK, FC_IS_EXACT, f->routed / f->tokens,
            "%lld tokens routed to experts per layer = top-k x %lld tokens", (long long)f->routed,
            (long long)f->tokens);
    else
        set(in, FC_IK_TOPK, FC_IS_UNKNOWN, 0,
            "routed tokens per layer (%lld in the first MoE layer, %lld tokens) %s",
            (long long)f->routed, (long long)f->tokens,
            f->routed_even ? "are not a whole multiple of the tokens (dropped or padded)"
                           : "differ between layers (dropped tokens?)");
    set(in, FC_IK_MOE_FFN, FC_IS_EXACT, f->moe_ffn, "experts %lld -> %lld -> %lld",
        (long long)f->hidden, (long long)f->moe_ffn, (long long)f->hidden);
    set(in, FC_IK_SHARED_EXPERTS, FC_IS_EXACT, f->shared_experts,
        "MLPs on all tokens beside the experts");
    set(in, FC_IK_SHARED_FFN, FC_IS_EXACT, f->shared_experts ? f->shared_ffn : 0, "%s",
        f->shared_experts ? "width of the shared experts" : "no shared expert");
    if (f->moe_every > 0) {
        set(in, FC_IK_MOE_EVERY, FC_IS_EXACT, f->moe_every, "%lld of %lld layers have experts",
            (long long)f->moe_layers, (long long)f->layers);
        set(in, FC_IK_MOE_FIRST_DENSE, FC_IS_EXACT, f->moe_first_dense,
            "the first MoE layer is layer %lld", (long long)f->moe_first_dense + 1);
    } else {
        set(in, FC_IK_MOE_EVERY, FC_IS_UNKNOWN, 0,
            "the MoE layers are not every N-th from some layer");
        set(in, FC_IK_MOE_FIRST_DENSE, FC_IS_UNKNOWN, 0,
            "the MoE layers are not every N-th from some layer");
    }
}

/* Forwards per iteration: the iterations' forward FLOPs over one forward's. */
static int64_t micro_batches(const fc_infer_facts *f, const fc_infer_iter *it)
{
    if (!it->have)
        return 1;
    if (f->forward_flops == 0 || it->forward_flops % f->forward_flops != 0)
        return 0;
    fc_u128 k = it->forward_flops / f->forward_flops;
    return k > 0 && k < (1u << 30) ? (int64_t)k : 0;
}

static void batch_value(fc_inferred *in, const fc_infer_facts *f, const fc_infer_iter *it,
                        int64_t seq, int seq_status)
{
    char b1[FC_U128_DIGITS], b2[FC_U128_DIGITS], ranks[96] = "";
    int64_t k = micro_batches(f, it), r = it->ranks > 1 ? it->ranks : 1;
    in->micro_batches = k;
    if (seq <= 0 || f->tokens % seq != 0) {
        set(in, FC_IK_BATCH, FC_IS_UNKNOWN, 0, "%lld tokens per forward; the sequence length is %s",
            (long long)f->tokens, seq > 0 ? "not a divisor" : "not known");
        return;
    }
    in->batch_per_forward = f->tokens / seq;
    if (k == 0) {
        set(in, FC_IK_BATCH, FC_IS_UNKNOWN, 0,
            "the iterations' forward FLOPs (%s) are not a whole number "
            "of forwards of %s",
            fc_u128_to_str(it->forward_flops, b1), fc_u128_to_str(f->forward_flops, b2));
        return;
    }
    if (r > 1)
        snprintf(ranks, sizeof ranks, " x %lld ranks (taken as data-parallel replicas)",
                 (long long)r);
    set(in, FC_IK_BATCH, seq_status, fc_infer_mul(fc_infer_mul(in->batch_per_forward, k), r),
        "%lld tokens per forward / s %lld = %lld sequences, x %lld forward%s per iteration%s%s",
        (long long)f->tokens, (long long)seq, (long long)in->batch_per_forward, (long long)k,
        k == 1 ? "" : "s", ranks, it->have ? "" : " (no iterations: one forward)");
}

/* The causal line speaks of what ran: QK^T GEMMs, fused-attention calls
 * (FlashAttention, memory-efficient kernels, cuDNN plans: counted pair by
 * pair as their masks show), or no attention core at all; 'full' is the
 * formula's convention either way. */
static void causal_value(fc_inferred *in, const fc_infer_facts *f)
{
    if (f->ok && f->attn_layers > 0)
        set(in, FC_IK_CAUSAL, FC_IS_CONVENTION, FC_CAUSAL_FULL,
            "the formula's convention ('half' the other); what ran: %s attention calls, "
            "counted pair by pair as their mask shows (%s)",
            f->attn.source == FC_ATTN_SRC_CUDNN ? "cuDNN plans'" : "fused kernels'",
            fc_attn_mask_name(&f->attn));
    else if (f->ok && f->core)
        set(in, FC_IK_CAUSAL, FC_IS_CONVENTION, FC_CAUSAL_FULL,
            "the GEMMs compute the whole QK^T; 'half' is the other counting convention");
    else
        set(in, FC_IK_CAUSAL, FC_IS_CONVENTION, FC_CAUSAL_FULL,
            "the formula's convention ('half' the other); %s",
            f->ok ? "no attention core ran in the forward's GEMMs or fused calls"
                  : "no training forward to read the attention of");
}

static void stream_values(fc_inferred *in, const fc_infer_facts *f, const fc_infer_iter *it)
{
    causal_value(in, f);
    set(in, FC_IK_TIED, FC_IS_UNKNOWN, 0,
        "the embedding lookup runs no GEMM (changes the parameter count, not the FLOPs)");
    set(in, FC_IK_RECOMPUTE, FC_IS_UNKNOWN, 0, "%s",
        it->have ? "worked out with the model" : "no iterations");
    if (!f->ok) {
        for (int k = 0; k < FC_IK_COUNT; k++)
            if (k != FC_IK_CAUSAL && k != FC_IK_TIED && k != FC_IK_RECOMPUTE)
                set(in, k, FC_IS_UNKNOWN, 0, "%s", f->why);
        return;
    }
    set(in, FC_IK_LAYERS, FC_IS_EXACT, f->layers,
        f->attn_layers ? "%lld attention cores (fused-attention calls), each between the same GEMMs"
        : f->core ? "%lld attention cores, each between the same GEMMs"
                : "%lld repetitions of one block of GEMMs (no attention core in the stream)",
        (long long)f->layers);
    set(in, FC_IK_HIDDEN, FC_IS_EXACT, f->hidden,
        "width the output projection and the MLP write back");
    attention_values(in, f);
    mlp_values(in, f);
    if (f->vocab)
        set(in, FC_IK_VOCAB, FC_IS_EXACT, f->vocab, "logits GEMM %lld -> %lld after the last layer",
            (long long)f->hidden, (long long)f->vocab);
    else
        set(in, FC_IK_VOCAB, FC_IS_UNKNOWN, 0,
            "no logits GEMM after the last layer (a fused "
            "cross-entropy kernel outside BLAS?)");
    batch_value(in, f, it, fc_infer_attn_seq(f), FC_IS_EXACT);
    fc_infer_kind_values(in, f);
}

/* ---- given values, and what follows from them ---- */

static void overlay(fc_inferred *in, const fc_infer_given *g)
{
    for (int k = 0; k < FC_IK_COUNT; k++) {
        in->stream_value[k] = in->v[k].status == FC_IS_EXACT ? in->v[k].value : -1;
        if (!(g->given & FC_IK_BIT(k)))
            continue;
        int64_t x = given_value(&g->m, k);
        if (in->v[k].status == FC_IS_EXACT && in->v[k].value != x) {
            in->disagree |= FC_IK_BIT(k);
            set(in, k, FC_IS_GIVEN, x, "given; the stream says %lld",
                (long long)in->stream_value[k]);
        } else {
            set(in, k, FC_IS_GIVEN, x, "given");
        }
    }
}

/* Fills what the given values and the stream's widths settle together. */
static void derive(fc_inferred *in, const fc_infer_facts *f, const fc_infer_iter *it)
{
    if (!f->ok)
        return;
    int64_t q = f->q_width, kv = f->kv_width;
    /* multi-latent attention, or none: the heads were read off the projections */
    int widths = !f->mla && q > 0;
    if (widths && known(in, FC_IK_HEAD_DIM) && !known(in, FC_IK_HEADS) &&
        val(in, FC_IK_HEAD_DIM) > 0 && q % val(in, FC_IK_HEAD_DIM) == 0)
        set(in, FC_IK_HEADS, FC_IS_EXACT, q / val(in, FC_IK_HEAD_DIM),
            "width %lld / the head_dim given", (long long)q);
    if (widths && known(in, FC_IK_HEADS) && !known(in, FC_IK_HEAD_DIM) &&
        val(in, FC_IK_HEADS) > 0 && q % val(in, FC_IK_HEADS) == 0)
        set(in, FC_IK_HEAD_DIM, FC_IS_EXACT, q / val(in, FC_IK_HEADS),
            "width %lld / the heads given", (long long)q);
    if (widths && known(in, FC_IK_HEAD_DIM) && !known(in, FC_IK_KV_HEADS) &&
        val(in, FC_IK_HEAD_DIM) > 0 && kv % val(in, FC_IK_HEAD_DIM) == 0)
        set(in, FC_IK_KV_HEADS, FC_IS_EXACT, kv / val(in, FC_IK_HEAD_DIM),
            "K, V width %lld / head_dim", (long long)kv);
    if (!known(in, FC_IK_BATCH) && known(in, FC_IK_SEQ))
        batch_value(in, f, it, val(in, FC_IK_SEQ), FC_IS_EXACT);
}

/* With flags given, what neither the stream nor the flags say takes the
 * formula's default, as 'flopcount formula' does (without flags nothing is
 * assumed: an unknown value stays unknown). */
static void defaults(fc_inferred *in)
{
    const char *why = "not in the stream and not given: the formula's default";
    if (!known(in, FC_IK_SWIGLU))
        set(in, FC_IK_SWIGLU, FC_IS_CONVENTION, 0, "%s", why);
    if (!known(in, FC_IK_EXPERTS))
        set(in, FC_IK_EXPERTS, FC_IS_CONVENTION, 0, "%s", why);
    for (int k = FC_IK_TOPK; k <= FC_IK_MOE_FIRST_DENSE && val(in, FC_IK_EXPERTS) == 0; k++)
        if (!known(in, k))
            set(in, k, FC_IS_CONVENTION, 0, "%s", why);
    if (!known(in, FC_IK_FFN) && known(in, FC_IK_HIDDEN))
        set(in, FC_IK_FFN, FC_IS_CONVENTION, fc_infer_mul(4, val(in, FC_IK_HIDDEN)), "%s (4 x hidden)", why);
    if (!known(in, FC_IK_HEAD_DIM) && known(in, FC_IK_HEADS) && known(in, FC_IK_HIDDEN) &&
        val(in, FC_IK_HEADS) > 0 && val(in, FC_IK_HIDDEN) % val(in, FC_IK_HEADS) == 0)
        set(in, FC_IK_HEAD_DIM, FC_IS_CONVENTION, val(in, FC_IK_HIDDEN) / val(in, FC_IK_HEADS),
            "%s (hidden / heads)", why);
    if (!known(in, FC_IK_KV_HEADS) && known(in, FC_IK_HEADS))
        set(in, FC_IK_KV_HEADS, FC_IS_CONVENTION, val(in, FC_IK_HEADS), "%s (= heads)", why);
    fc_infer_kind_defaults(in);
}

/* ---- the model ---- */

static int64_t gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

#define add_missing fc_infer_add_missing
void fc_infer_add_missing(fc_inferred *in, int key)
{
    size_t o = strlen(in->missing);
    if (o + 32 < sizeof in->missing)
        snprintf(in->missing + o, sizeof in->missing - o, "%s%s", o ? " " : "", fc_ik_flag(key));
}

/* The attention widths: heads, kv_heads, head_dim when known, else a
 * factorization with the stream's a*d and g*d (all the FLOPs need). */
static int attention(fc_inferred *in, fc_model *m)
{
    if (known(in, FC_IK_HEADS) && known(in, FC_IK_HEAD_DIM) && known(in, FC_IK_KV_HEADS)) {
        m->heads = val(in, FC_IK_HEADS);
        m->head_dim = val(in, FC_IK_HEAD_DIM);
        m->kv_heads = val(in, FC_IK_KV_HEADS);
        in->heads_known = 1;
        return 0;
    }
    const fc_infer_facts *f = &in->f;
    if (!f->ok || f->q_width <= 0 || f->kv_width <= 0)
        return -1;
    int64_t d = f->q_width % f->kv_width == 0 ? f->kv_width : gcd(f->q_width, f->kv_width);
    m->head_dim = d;
    m->heads = f->q_width / d;
    m->kv_heads = f->kv_width / d;
    return 0;
}

static const int required[] = {FC_IK_LAYERS,    FC_IK_HIDDEN,         FC_IK_FFN,
                               FC_IK_SWIGLU,    FC_IK_VOCAB,          FC_IK_SEQ,
                               FC_IK_BATCH,     FC_IK_EXPERTS,        FC_IK_TOPK,
                               FC_IK_MOE_FFN,   FC_IK_SHARED_EXPERTS, FC_IK_SHARED_FFN,
                               FC_IK_MOE_EVERY, FC_IK_MOE_FIRST_DENSE};

static void build(fc_inferred *in, const fc_infer_given *g)
{
    fc_model m;
    memset(&m, 0, sizeof m);
    fc_infer_kind_build(in, g, &m); /* the layer kinds' fields, or what they miss */
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        int k = required[i];
        if (known(in, k) || (k == FC_IK_BATCH && !known(in, FC_IK_SEQ)))
            continue; /* the batch follows from the tokens and --seq */
        if ((k == FC_IK_MOE_EVERY || k == FC_IK_MOE_FIRST_DENSE) && m.mlps[0])
            continue; /* an MLP pattern (given or the stream's) says which layers are MoE */
        add_missing(in, k);
    }
    if (attention(in, &m) != 0) {
        if (!known(in, FC_IK_HEADS))
            add_missing(in, FC_IK_HEADS);
        else if (!known(in, FC_IK_HEAD_DIM))
            add_missing(in, FC_IK_HEAD_DIM);
        else
            add_missing(in, FC_IK_KV_HEADS);
    }
    if (in->missing[0])
        return;
    m.layers = val(in, FC_IK_LAYERS), m.hidden = val(in, FC_IK_HIDDEN);
    m.ffn = val(in, FC_IK_FFN), m.swiglu = (int)val(in, FC_IK_SWIGLU);
    m.vocab = val(in, FC_IK_VOCAB), m.seq = val(in, FC_IK_SEQ), m.batch = val(in, FC_IK_BATCH);
    m.experts = val(in, FC_IK_EXPERTS);
    if (m.experts > 0) {
        m.topk = val(in, FC_IK_TOPK), m.moe_ffn = val(in, FC_IK_MOE_FFN);
        m.shared_experts = val(in, FC_IK_SHARED_EXPERTS), m.shared_ffn = val(in, FC_IK_SHARED_FFN);
        m.moe_every = val(in, FC_IK_MOE_EVERY), m.moe_first_dense = val(in, FC_IK_MOE_FIRST_DENSE);
        if (m.mlps[0]) /* a layer pattern lists the MoE layers (given or the stream's) */
            m.moe_every = 1, m.moe_first_dense = 0;
    }
    m.untied_embeddings = known(in, FC_IK_TIED) && !val(in, FC_IK_TIED);
    m.recompute = known(in, FC_IK_RECOMPUTE) ? (int)val(in, FC_IK_RECOMPUTE) : FC_RECOMPUTE_NONE;
    m.causal = (int)val(in, FC_IK_CAUSAL);
    char err[200];
    if (fc_model_check(&m, err, sizeof err) != 0) {
        snprintf(in->missing, sizeof in->missing, "%s", err);
        return;
    }
    in->model = m;
    in->complete = 1;
}

/* The recompute of an iteration against the formula's modes. When the
 * formula's forward equals the counted forward, the model is right and the
 * recompute is what an iteration counted beyond its model FLOPs (whatever
 * the detector's backward/recompute labels); otherwise the detector's. */
static void recompute_value(fc_inferred *in, const fc_infer_iter *it)
{
    if (!in->complete || !it->have || in->micro_batches <= 0 ||
        in->v[FC_IK_RECOMPUTE].status == FC_IS_GIVEN)
        return;
    const fc_infer_facts *f = &in->f;
    fc_model m = in->model;
    fc_flops fl;
    m.batch = in->batch_per_forward;
    fc_formula(&m, &fl);
    fc_u128 fwd = fl.forward_flops_per_iteration - fl.attention_core_forward +
                  fc_infer_core_counted(f, &m, &fl);
    m.batch = fc_infer_mul(in->batch_per_forward, in->micro_batches);
    fc_formula(&m, &fl);
    /* The formula's core, and the core as the stream counts it (none
     * without it in the stream: a kernel outside BLAS; the exact band of
     * fused-attention calls) */
    fc_u128 core = fl.attention_core_forward, seen = fc_infer_core_counted(f, &m, &fl);
    fc_u128 base = fl.model_flops_per_iteration - fc_u128_sat_mul(3, core) +
                   fc_u128_sat_mul(3, seen);
    fc_u128 r = it->recompute_flops;
    const char *how = "the detector's recompute";
    fc_u128 model_part = it->flops - (it->attention_excess_flops < it->flops
                                          ? it->attention_excess_flops
                                          : it->flops); /* attention's backward at 2x */
    if (fwd == f->forward_flops && model_part >= base) {
        r = model_part - base;
        how = "an iteration's FLOPs beyond the formula's model FLOPs";
    }
    char b[FC_U128_DIGITS];
    if (!f->core && r == 0) {
        set(in, FC_IK_RECOMPUTE, FC_IS_UNKNOWN, 0,
            "no GEMM recomputed; selective recompute of a fused "
            "attention kernel would not show: hardware FLOPs below take none");
        return;
    }
    for (int mode = FC_RECOMPUTE_NONE; mode <= FC_RECOMPUTE_FULL; mode++) {
        fc_u128 extra = fl.hardware_by_recompute[mode] - fl.model_flops_per_iteration;
        if (mode != FC_RECOMPUTE_NONE) /* the recomputed core as the stream counts it */
            extra = extra - core + seen;
        if (extra == r) {
            set(in, FC_IK_RECOMPUTE, FC_IS_EXACT, mode, "%s, %s, is the formula's '%s'", how,
                fc_u128_to_str(r, b), fc_recompute_name(mode));
            in->model.recompute = mode;
            return;
        }
    }
    fc_u128 layer =
        (fl.hardware_by_recompute[FC_RECOMPUTE_FULL] - fl.model_flops_per_iteration - core +
         seen) /
        (fc_u128)in->model.layers;
    if (layer > 0 && r % layer == 0 && r / layer < (fc_u128)in->model.layers)
        set(in, FC_IK_RECOMPUTE, FC_IS_UNKNOWN, 0,
            "%s, %s, is the forward of %lld of the %lld layers "
            "(some checkpointed): none of the formula's modes; hardware FLOPs below take none",
            how, fc_u128_to_str(r, b), (long long)(r / layer), (long long)in->model.layers);
    else
        set(in, FC_IK_RECOMPUTE, FC_IS_UNKNOWN, 0,
            "%s, %s, is none of the formula's modes: hardware "
            "FLOPs below take none",
            how, fc_u128_to_str(r, b));
}

/* The formula against the count, two ways: one forward (needs the
 * detector's forward/backward split right), and one iteration less its
 * recompute (needs its recompute right). The formula's core terms are
 * taken as the stream counts the core: left out without it, the exact
 * band of its mask with fused-attention calls (fc_infer_core_counted); an
 * iteration's attention beyond the model convention is left out of it. */
static void check_fit(fc_inferred *in, const fc_infer_iter *it)
{
    const fc_infer_facts *f = &in->f;
    if (!in->complete || !f->ok || in->batch_per_forward <= 0)
        return;
    fc_model m = in->model;
    m.batch = in->batch_per_forward;
    fc_flops fl;
    fc_formula(&m, &fl);
    in->forward_model_flops = fl.model_flops_per_iteration;
    in->formula_forward = fl.forward_flops_per_iteration - fl.attention_core_forward +
                          fc_infer_core_counted(f, &m, &fl);
    in->fits_forward = in->formula_forward == f->forward_flops;
    fc_u128 less = fc_u128_sat_add(it->recompute_flops, it->attention_excess_flops);
    if (it->have && in->micro_batches > 0 && it->flops >= less) {
        m.batch = fc_infer_mul(in->batch_per_forward, in->micro_batches);
        fc_formula(&m, &fl);
        fc_u128 expect = fl.model_flops_per_iteration -
                         fc_u128_sat_mul(3, fl.attention_core_forward) +
                         fc_u128_sat_mul(3, fc_infer_core_counted(f, &m, &fl));
        in->fits_iteration = expect == it->flops - less;
    }
    in->fits = in->fits_forward || in->fits_iteration;
}

void fc_infer_resolve(const fc_infer_facts *f, const fc_infer_given *g, const fc_infer_iter *it,
                      fc_inferred *out)
{
    static const fc_infer_given none;
    static const fc_infer_iter no_iter;
    memset(out, 0, sizeof *out);
    out->f = *f;
    g = g ? g : &none;
    it = it ? it : &no_iter;
    stream_values(out, f, it);
    overlay(out, g);
    derive(out, f, it);
    if (g->given)
        defaults(out);
    build(out, g);
    recompute_value(out, it);
    check_fit(out, it);
}

char *fc_infer_value_text(const fc_inferred *in, int key, char *buf, size_t size)
{
    const fc_infer_val *v = &in->v[key];
    if (v->status == FC_IS_UNKNOWN)
        snprintf(buf, size, "?");
    else if (key == FC_IK_SWIGLU || key == FC_IK_TIED || key == FC_IK_ATTN_GATE)
        snprintf(buf, size, "%s", v->value ? "yes" : "no");
    else if (key == FC_IK_RECOMPUTE)
        snprintf(buf, size, "%s", fc_recompute_name((int)v->value));
    else if (key == FC_IK_CAUSAL)
        snprintf(buf, size, "%s", fc_causal_name((int)v->value));
    else
        snprintf(buf, size, "%lld", (long long)v->value);
    return buf;
}

int fc_infer_iteration_flops(const fc_inferred *in, fc_u128 iter_forward, fc_u128 *out)
{
    fc_u128 one = in->f.forward_flops;
    if (!in->fits || one == 0 || iter_forward == 0 || iter_forward % one != 0)
        return -1;
    *out = fc_u128_sat_mul(iter_forward / one, in->forward_model_flops);
    return 0;
}
