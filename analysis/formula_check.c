/* SPDX-License-Identifier: Apache-2.0 */
/* formula_check.c - is a model complete and consistent enough to count?
 * (fc_model_check). Every refusal is one line that names the flag to give
 * or fix; a config's own field names are checked earlier, by hfconfig.c.
 * What a layer kind needs is required only when a layer of that kind (or
 * the MTP block) is in the model. */
#include <stdio.h>
#include <string.h>

#include "formula.h"

static int fail(char *err, size_t n, const char *msg)
{
    if (err != NULL && n > 0)
        snprintf(err, n, "%s", msg);
    return -1;
}

/* The model has a layer (or MTP block) whose mixer is kind. */
static int has_mixer(const fc_model *m, char kind)
{
    fc_layer_counts c;
    fc_model_layer_counts(m, &c);
    int64_t n = kind == FC_MIX_GDN     ? c.gdn
                : kind == FC_MIX_MAMBA ? c.mamba
                                       : c.attention + c.sliding + c.chunked;
    if (kind == FC_MIX_ATTENTION && m->mtp_layers > 0) {
        char k = fc_model_mtp_mixer(m);
        return n > 0 || k == FC_MIX_ATTENTION || k == FC_MIX_SLIDING || k == FC_MIX_CHUNKED;
    }
    return n > 0 || (m->mtp_layers > 0 && fc_model_mtp_mixer(m) == kind);
}

static int check_required(const fc_model *m, char *err, size_t n)
{
    static const struct {
        size_t off;
        const char *msg;
    } req[] = {
        {offsetof(fc_model, layers), "the number of layers is missing (--layers)"},
        {offsetof(fc_model, hidden), "the hidden size is missing (--hidden)"},
        {offsetof(fc_model, heads), "the number of attention heads is missing (--heads)"},
        {offsetof(fc_model, vocab), "the vocabulary size is missing (--vocab)"},
        {offsetof(fc_model, seq), "the sequence length is missing (--seq)"},
        {offsetof(fc_model, batch), "the batch (sequences per iteration) is missing (--batch)"},
    };
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
        int64_t v;
        memcpy(&v, (const char *)m + req[i].off, sizeof v);
        /* heads: only attention layers have them (a Mamba-only stack has none) */
        if (v <= 0 &&
            (req[i].off != offsetof(fc_model, heads) || v < 0 || has_mixer(m, FC_MIX_ATTENTION)))
            return fail(err, n, req[i].msg);
    }
    return 0;
}

static int check_attention(const fc_model *m, char *err, size_t n)
{
    char msg[200];
    if (m->kv_heads < 0 || m->head_dim < 0 || m->ffn < 0)
        return fail(err, n, "negative sizes are not allowed");
    if (m->recompute < 0 || m->recompute > 2 || m->causal < 0 || m->causal > 1)
        return fail(err, n, "unknown recompute or causal convention");
    if (!has_mixer(m, FC_MIX_ATTENTION) || fc_model_mla(m))
        return 0;
    if (m->kv_heads > m->heads || (m->kv_heads > 0 && m->heads % m->kv_heads != 0)) {
        snprintf(msg, sizeof msg, "--kv-heads %lld must divide --heads %lld",
                 (long long)m->kv_heads, (long long)m->heads);
        return fail(err, n, msg);
    }
    if (m->head_dim == 0 && m->hidden % m->heads != 0) {
        snprintf(msg, sizeof msg, "hidden %lld is not a multiple of heads %lld (give --head-dim)",
                 (long long)m->hidden, (long long)m->heads);
        return fail(err, n, msg);
    }
    return 0;
}

/* Multi-latent attention: the ranks and per-head widths instead of
 * kv_heads and head_dim. */
static int check_mla(const fc_model *m, char *err, size_t n)
{
    if (m->q_lora_rank < 0 || m->kv_lora_rank < 0 || m->qk_nope_dim < 0 || m->qk_rope_dim < 0 ||
        m->v_head_dim < 0)
        return fail(err, n, "negative multi-latent attention sizes are not allowed");
    if (!fc_model_mla(m)) {
        if (m->q_lora_rank || m->qk_nope_dim || m->qk_rope_dim || m->v_head_dim)
            return fail(err, n,
                        "--q-lora-rank, --qk-nope-dim, --qk-rope-dim and --v-head-dim "
                        "need --kv-lora-rank (multi-latent attention)");
        return 0;
    }
    if (m->qk_nope_dim == 0)
        return fail(err, n,
                    "multi-latent attention needs --qk-nope-dim (per-head query/key width "
                    "without rotary embedding)");
    if (m->qk_rope_dim == 0)
        return fail(err, n,
                    "multi-latent attention needs --qk-rope-dim (the rotary part, shared "
                    "by the heads' keys)");
    if (m->v_head_dim == 0)
        return fail(err, n, "multi-latent attention needs --v-head-dim");
    if (m->kv_heads || m->head_dim)
        return fail(err, n,
                    "--kv-heads and --head-dim do not apply to multi-latent attention "
                    "(its widths are --qk-nope-dim, --qk-rope-dim, --v-head-dim)");
    if (m->attn_gate)
        return fail(err, n, "--attn-output-gate is not modelled with multi-latent attention");
    return 0;
}

/* One pattern: kinds from `kinds`, as many characters as the layers or a
 * divisor of them (the pattern repeats). */
static int check_pattern(const fc_model *m, const char *p, const char *flag, const char *kinds,
                         char *err, size_t n)
{
    char msg[200];
    size_t len = strnlen(p, FC_MAX_LAYER_PATTERN + 1);
    if (len == 0)
        return 0;
    if (len > FC_MAX_LAYER_PATTERN) {
        snprintf(msg, sizeof msg, "%s is longer than %d layers", flag, FC_MAX_LAYER_PATTERN);
        return fail(err, n, msg);
    }
    for (size_t i = 0; i < len; i++)
        if (strchr(kinds, p[i]) == NULL) {
            snprintf(msg, sizeof msg, "%s: '%c' (layer %zu) is not a layer kind (%s)", flag, p[i],
                     i + 1, kinds);
            return fail(err, n, msg);
        }
    if (m->layers % (int64_t)len != 0) {
        snprintf(msg, sizeof msg, "%s has %zu layers: --layers %lld is not a multiple of it", flag,
                 len, (long long)m->layers);
        return fail(err, n, msg);
    }
    return 0;
}

static int check_layers(const fc_model *m, char *err, size_t n)
{
    if (check_pattern(m, m->mixers, "--layer-pattern", "ASCGM-", err, n) ||
        check_pattern(m, m->mlps, "--mlp-pattern", "DE-", err, n))
        return -1;
    if (m->window < 0 || m->window_layers < 0 || m->attn_chunk < 0)
        return fail(err, n, "negative sliding-window or chunk sizes are not allowed");
    if (m->window_layers > 0 && m->window == 0)
        return fail(err, n, "--window-layers needs --sliding-window");
    if (m->window_layers > m->layers)
        return fail(err, n, "--window-layers is larger than --layers");
    if (m->mixers[0] && m->window_layers > 0)
        return fail(err, n,
                    "--window-layers does not go with --layer-pattern (its S layers are "
                    "the windowed ones)");
    fc_layer_counts c;
    fc_model_layer_counts(m, &c);
    if (c.sliding > 0 && m->window == 0)
        return fail(err, n,
                    "--layer-pattern has sliding-window layers (S) but no --sliding-window");
    if (c.chunked > 0 && m->attn_chunk == 0)
        return fail(err, n, "--layer-pattern has chunked-attention layers (C) but no --attn-chunk");
    if (m->attn_chunk > 0 && c.chunked == 0)
        return fail(err, n, "--attn-chunk needs chunked-attention layers (C in --layer-pattern)");
    if (m->mlps[0] && (m->moe_every > 1 || m->moe_first_dense > 0))
        return fail(err, n,
                    "--moe-every and --moe-first-dense do not go with --mlp-pattern (its "
                    "E layers are the MoE ones)");
    if (c.moe > 0 && m->experts == 0)
        return fail(err, n, "--mlp-pattern has MoE layers (E) but no --experts");
    if (m->mlps[0] && m->experts > 0 && c.moe == 0)
        return fail(err, n, "--experts given but --mlp-pattern has no MoE layer (E)");
    /* a layer with neither: nothing to count, and surely a mistake (the
     * legacy rules always give both) */
    int64_t a = (int64_t)strnlen(m->mixers, FC_MAX_LAYER_PATTERN);
    int64_t b = (int64_t)strnlen(m->mlps, FC_MAX_LAYER_PATTERN);
    for (int64_t i = 0; a > 0 && b > 0 && i < a * b && i < m->layers; i++)
        if (m->mixers[i % a] == FC_MIX_NONE && m->mlps[i % b] == FC_MLP_NONE) {
            char msg[120];
            snprintf(msg, sizeof msg,
                     "layer %lld has neither a mixer nor an MLP (--layer-pattern "
                     "and --mlp-pattern both '-')",
                     (long long)i + 1);
            return fail(err, n, msg);
        }
    return 0;
}

static int check_moe(const fc_model *m, char *err, size_t n)
{
    if (m->experts < 0 || m->topk < 0 || m->moe_ffn < 0 || m->shared_experts < 0 ||
        m->moe_every < 0 || m->shared_ffn < 0 || m->moe_first_dense < 0)
        return fail(err, n, "negative MoE sizes are not allowed");
    if (m->experts == 0) {
        if (m->topk || m->moe_ffn || m->shared_experts || m->shared_ffn || m->moe_every > 1 ||
            m->moe_first_dense)
            return fail(err, n, "MoE options need --experts");
        return 0;
    }
    if (m->topk == 0)
        return fail(err, n, "a MoE model needs --topk (experts per token)");
    if (m->topk > m->experts)
        return fail(err, n, "--topk is larger than --experts");
    if (m->moe_first_dense > m->layers)
        return fail(err, n, "--moe-first-dense is larger than --layers");
    return 0;
}

static int check_gdn(const fc_model *m, char *err, size_t n)
{
    if (m->gdn_k_heads < 0 || m->gdn_v_heads < 0 || m->gdn_k_dim < 0 || m->gdn_v_dim < 0 ||
        m->gdn_chunk < 0)
        return fail(err, n, "negative gated delta-net sizes are not allowed");
    if (!has_mixer(m, FC_MIX_GDN))
        return 0;
    static const struct {
        size_t off;
        const char *flag;
    } req[] = {{offsetof(fc_model, gdn_k_heads), "--gdn-key-heads"},
               {offsetof(fc_model, gdn_v_heads), "--gdn-value-heads"},
               {offsetof(fc_model, gdn_k_dim), "--gdn-key-dim"},
               {offsetof(fc_model, gdn_v_dim), "--gdn-value-dim"}};
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
        int64_t v;
        memcpy(&v, (const char *)m + req[i].off, sizeof v);
        if (v == 0) {
            char msg[120];
            snprintf(msg, sizeof msg, "gated delta-net layers (G) need %s", req[i].flag);
            return fail(err, n, msg);
        }
    }
    if (m->gdn_v_heads % m->gdn_k_heads != 0)
        return fail(err, n,
                    "--gdn-key-heads must divide --gdn-value-heads (keys are repeated to "
                    "the value heads)");
    return 0;
}

static int check_mamba(const fc_model *m, char *err, size_t n)
{
    if (m->mamba_version < 0 || m->mamba_heads < 0 || m->mamba_head_dim < 0 || m->mamba_state < 0 ||
        m->mamba_groups < 0 || m->mamba_chunk < 0 || m->mamba_inner < 0 || m->mamba_dt_rank < 0)
        return fail(err, n, "negative Mamba sizes are not allowed");
    if (m->mamba_version > 2)
        return fail(err, n, "--mamba-version is 1 or 2");
    if (!has_mixer(m, FC_MIX_MAMBA))
        return 0;
    if (m->mamba_state == 0)
        return fail(err, n, "Mamba layers (M) need --mamba-state (the SSM state size N)");
    if (fc_model_mamba_version(m) == 1) {
        if (m->mamba_inner == 0)
            return fail(err, n, "Mamba-1 layers need --mamba-inner (d_inner = expand x hidden)");
        if (m->mamba_dt_rank == 0)
            return fail(err, n, "Mamba-1 layers need --mamba-dt-rank");
        return 0;
    }
    if (m->mamba_heads == 0 || m->mamba_head_dim == 0)
        return fail(err, n, "Mamba-2 layers need --mamba-heads and --mamba-head-dim");
    if (m->mamba_chunk == 0)
        return fail(err, n, "Mamba-2 layers need --mamba-chunk (the chunk of the SSD scan)");
    if (m->mamba_heads % fc_model_mamba_groups(m) != 0)
        return fail(err, n, "--mamba-groups must divide --mamba-heads");
    if (m->mamba_inner && m->mamba_inner != m->mamba_heads * m->mamba_head_dim)
        return fail(err, n, "--mamba-inner differs from --mamba-heads x --mamba-head-dim");
    return 0;
}

static int check_mtp(const fc_model *m, char *err, size_t n)
{
    if (m->mtp_layers < 0)
        return fail(err, n, "negative --mtp-layers is not allowed");
    if (m->mtp_block[0] && (strchr("ASCGM", m->mtp_block[0]) == NULL ||
                            (m->mtp_block[1] && strchr("DE", m->mtp_block[1]) == NULL)))
        return fail(err, n, "--mtp-block is a mixer (A, S, C, G or M) and an MLP (D or E)");
    if (m->mtp_layers > 0 && fc_model_mtp_mlp(m) == FC_MLP_MOE && m->experts == 0)
        return fail(err, n, "the MTP block is a MoE layer but there is no --experts");
    return 0;
}

int fc_model_check(const fc_model *m, char *err, size_t errlen)
{
    if (check_required(m, err, errlen) || check_attention(m, err, errlen) ||
        check_mla(m, err, errlen) || check_layers(m, err, errlen) || check_moe(m, err, errlen) ||
        check_gdn(m, err, errlen) || check_mamba(m, err, errlen) || check_mtp(m, err, errlen))
        return -1;
    fc_flops f;
    fc_formula(m, &f);
    if (f.overflow)
        return fail(err, errlen, "the model is too large: FLOPs pass 2^128");
    return 0;
}
