/* SPDX-License-Identifier: Apache-2.0 */
/* hfconfig_kinds.c - the parts of a Hugging Face config that go beyond a
 * uniform transformer: multi-latent attention (DeepSeek-V2/V3, Kimi K2),
 * multi-token prediction, and which layer is which kind:
 *
 *   layer_types               Qwen3-Next / Qwen3.5 (linear_attention = gated
 *                             delta-net), Llama 4 (chunked_attention), any
 *                             list with mamba / attention entries
 *   full_attention_interval   Qwen3-Next without a list: full attention when
 *                             (i + 1) % N == 0, gated delta-net otherwise
 *   hybrid_override_pattern   Nemotron-H: one sublayer per character, M Mamba-2,
 *   / layers_block_type       * attention, - MLP, E MoE (or the names in a list)
 *   attn_layer_period/offset  Jamba: attention when i % period == offset, else
 *   expert_layer_period/...   Mamba-1; MoE when i % period == offset
 *   no_rope_layers, ...       Llama 4: RoPE layers are chunked (attention_chunk_size),
 *   moe_layers, ...           NoPE layers global; MoE layers listed or interleaved
 *   mlp_only_layers,          Qwen-MoE: dense where listed, MoE when
 *   decoder_sparse_step       (i + 1) % step == 0
 *
 * and the sizes of the kinds present (linear_*, mamba_* / ssm_state_size /
 * n_groups / chunk_size). fc_hf_watch then refuses, by name, every field
 * that changes the FLOPs and that no reader took: never counted as if the
 * layers were all attention + MLP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfconfig_internal.h"

typedef fc_hf_rd rd;
#define fail fc_hf_fail

static int starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static int ends(const char *s, const char *p)
{
    size_t n = strlen(s), k = strlen(p);
    return n >= k && strcmp(s + n - k, p) == 0;
}

/* ---- multi-latent attention ---- */

void fc_hf_read_mla(rd *r, fc_model *m, unsigned *found)
{
    int64_t rkv = 0, rq = 0, nope = 0, rope = 0, v = 0;
    if (fc_hf_int1(r, "kv_lora_rank", 1, &rkv) != 1)
        return;
    const char *why = "kv_lora_rank (multi-latent attention)";
    if (fc_hf_int1(r, "q_lora_rank", 1, &rq) < 0 || /* null or absent: Q is direct */
        fc_hf_need(r, "qk_nope_head_dim", 1, why, &nope) < 0 ||
        fc_hf_need(r, "qk_rope_head_dim", 1, why, &rope) < 0 ||
        fc_hf_need(r, "v_head_dim", 1, why, &v) < 0)
        return;
    m->kv_lora_rank = rkv, m->q_lora_rank = rq;
    m->qk_nope_dim = nope, m->qk_rope_dim = rope, m->v_head_dim = v;
    /* num_key_value_heads and head_dim describe no projection of MLA */
    m->kv_heads = m->head_dim = 0;
    *found &= ~(unsigned)(FC_HF_KV_HEADS | FC_HF_HEAD_DIM);
    *found |= FC_HF_MLA;
}

/* ---- multi-token prediction ---- */

static char block_kind(const char *name, int mlp)
{
    static const char *const names[] = {"attention", "mamba", "mlp", "moe"};
    static const char kinds[] = {FC_MIX_ATTENTION, FC_MIX_MAMBA, FC_MLP_DENSE, FC_MLP_MOE};
    for (int i = mlp ? 2 : 0; i < (mlp ? 4 : 2); i++)
        if (name != NULL && strcmp(name, names[i]) == 0)
            return kinds[i];
    return 0;
}

void fc_hf_read_mtp(rd *r, fc_model *m, unsigned *found)
{
    static const char *const keys[] = {"num_nextn_predict_layers", "mtp_num_hidden_layers", NULL};
    int64_t n = 0;
    int has = fc_hf_int(r, keys, 0, &n);
    if (has < 0)
        return;
    json_object *types = fc_hf_get(r, "mtp_layers_block_type");
    if (types != NULL) {
        size_t len =
            json_object_is_type(types, json_type_array) ? json_object_array_length(types) : 0;
        if (has != 1 || n == 0) {
            fail(r, "%s without num_nextn_predict_layers: %s", "mtp_layers_block_type",
                 "the number of MTP depths is not known");
            return;
        }
        const char *a =
            len >= 1 ? json_object_get_string(json_object_array_get_idx(types, 0)) : NULL;
        const char *b =
            len == 2 ? json_object_get_string(json_object_array_get_idx(types, 1)) : NULL;
        char mix = block_kind(a, 0), mlp = b ? block_kind(b, 1) : 0;
        if (len < 1 || len > 2 || mix == 0 || (b != NULL && mlp == 0)) {
            fail(r, "%s is not [mixer] or [mixer, mlp] of %s", "mtp_layers_block_type",
                 "attention, mamba / mlp, moe");
            return;
        }
        m->mtp_block[0] = mix, m->mtp_block[1] = mlp, m->mtp_block[2] = 0;
    }
    if (has == 1) {
        m->mtp_layers = n;
        *found |= FC_HF_MTP;
    }
}

/* ---- per-layer kinds ---- */

typedef struct pat {
    char mix[FC_MAX_LAYER_PATTERN + 1], mlp[FC_MAX_LAYER_PATTERN + 1];
    const char *mix_src, *mlp_src; /* the fields they came from */
    int mamba_version;             /* of the M layers: 1 (Jamba) or 2 */
} pat;

static int claim(rd *r, const char **src, const char *key)
{
    if (*src != NULL) {
        fail(r, "%s and %s both give the layers' kinds", *src, key);
        return -1;
    }
    *src = key;
    return 0;
}

/* The layer count a per-layer field needs. */
static int64_t layers_for(rd *r, const fc_model *m, const char *key)
{
    if (m->layers <= 0) {
        fail(r, "%s needs %s", key, "num_hidden_layers");
        return -1;
    }
    if (m->layers > FC_MAX_LAYER_PATTERN) {
        fail(r, "%s: more than %s layers are not read", key, "1024");
        return -1;
    }
    return m->layers;
}

static int length_is(rd *r, const char *key, size_t len, int64_t layers)
{
    if ((int64_t)len == layers)
        return 0;
    char a[64];
    snprintf(a, sizeof a, "%zu entries; num_hidden_layers is %lld", len, (long long)layers);
    fail(r, "%s has %s", key, a);
    return -1;
}

/* Nemotron-H: each layer is one sublayer, a mixer or an MLP. */
static void nemotron(rd *r, const fc_model *m, pat *p)
{
    json_object *s = fc_hf_get(r, "hybrid_override_pattern");
    json_object *list = fc_hf_get(r, "layers_block_type");
    const char *key = s ? "hybrid_override_pattern" : "layers_block_type";
    if ((s == NULL && list == NULL) || claim(r, &p->mix_src, key) != 0 ||
        (s && list && claim(r, &p->mix_src, "layers_block_type") != 0))
        return;
    int64_t L = layers_for(r, m, key);
    if (L < 0)
        return;
    if (s != NULL && !json_object_is_type(s, json_type_string)) {
        fail(r, "%s is not a string%s", key, "");
        return;
    }
    if (list != NULL && !json_object_is_type(list, json_type_array)) {
        fail(r, "%s is not a list%s", key, "");
        return;
    }
    size_t len = s ? strlen(json_object_get_string(s)) : json_object_array_length(list);
    if (length_is(r, key, len, L) != 0)
        return;
    static const char codes[] = "M*-E";
    static const char *const names[] = {"mamba", "attention", "mlp", "moe"};
    static const char mixes[] = {FC_MIX_MAMBA, FC_MIX_ATTENTION, FC_MIX_NONE, FC_MIX_NONE};
    static const char mlps[] = {FC_MLP_NONE, FC_MLP_NONE, FC_MLP_DENSE, FC_MLP_MOE};
    for (size_t i = 0; i < len; i++) {
        int k = -1;
        char what[96];
        if (s != NULL) {
            const char *c = strchr(codes, json_object_get_string(s)[i]);
            k = c && *c ? (int)(c - codes) : -1;
            snprintf(what, sizeof what, "'%c' (layer %zu)", json_object_get_string(s)[i], i + 1);
        } else {
            json_object *e = json_object_array_get_idx(list, i);
            const char *name = json_object_is_type(e, json_type_string) ? json_object_get_string(e)
                                                                        : "(not a string)";
            for (int j = 0; j < 4; j++)
                k = strcmp(name, names[j]) == 0 ? j : k;
            snprintf(what, sizeof what, "'%.40s' (layer %zu)", name, i + 1);
        }
        if (k < 0) {
            fail(r,
                 "%s: %s is not a layer kind the formula models (M * - E: mamba, attention, "
                 "mlp, moe)",
                 key, what);
            return;
        }
        p->mix[i] = mixes[k], p->mlp[i] = mlps[k];
    }
    p->mlp_src = key;
    p->mamba_version = 2;
}

/* Jamba: attention every attn_layer_period layers (from the offset),
 * Mamba-1 between; MoE every expert_layer_period layers. */
static void jamba(rd *r, fc_model *m, pat *p)
{
    int64_t ap, ao, ep = 0, eo = 0;
    int has = fc_hf_int1(r, "attn_layer_period", 1, &ap);
    if (has <= 0 || claim(r, &p->mix_src, "attn_layer_period") != 0)
        return;
    const char *why = "attn_layer_period (Jamba)";
    int64_t L = layers_for(r, m, "attn_layer_period");
    if (L < 0 || fc_hf_need(r, "attn_layer_offset", 0, why, &ao) < 0)
        return;
    if (ao >= ap) {
        fail(r, "%s is not below %s", "attn_layer_offset", "attn_layer_period");
        return;
    }
    for (int64_t i = 0; i < L; i++)
        p->mix[i] = i % ap == ao ? FC_MIX_ATTENTION : FC_MIX_MAMBA;
    p->mamba_version = 1;
    int eh = fc_hf_int1(r, "expert_layer_period", 1, &ep);
    if (eh < 0 ||
        (eh == 1 && fc_hf_need(r, "expert_layer_offset", 0, "expert_layer_period", &eo) < 0))
        return;
    if (m->experts <= 1) { /* Jamba's num_experts 1: a plain MLP in every layer */
        m->experts = m->topk = m->moe_ffn = m->shared_experts = m->shared_ffn = 0;
        fc_hf_use(r, "expert_layer_offset");
        return;
    }
    if (eh == 0) {
        fail(r, "num_experts > 1 needs %s (which layers are MoE)%s", "expert_layer_period", "");
        return;
    }
    if (eo >= ep) {
        fail(r, "%s is not below %s", "expert_layer_offset", "expert_layer_period");
        return;
    }
    if (claim(r, &p->mlp_src, "expert_layer_period") != 0)
        return;
    for (int64_t i = 0; i < L; i++)
        p->mlp[i] = i % ep == eo ? FC_MLP_MOE : FC_MLP_DENSE;
}

static char type_kind(const char *name)
{
    static const char *const names[] = {"full_attention",    "sliding_attention",
                                        "chunked_attention", "linear_attention",
                                        "attention",         "mamba"};
    static const char kinds[] = {FC_MIX_ATTENTION, FC_MIX_SLIDING,   FC_MIX_CHUNKED,
                                 FC_MIX_GDN,       FC_MIX_ATTENTION, FC_MIX_MAMBA};
    for (size_t i = 0; name != NULL && i < sizeof kinds; i++)
        if (strcmp(name, names[i]) == 0)
            return kinds[i];
    return 0;
}

/* layer_types when it lists more than full and sliding attention (those
 * alone are read_window's), else full_attention_interval. */
static void types(rd *r, const fc_model *m, pat *p)
{
    json_object *t = fc_hf_get(r, "layer_types");
    int64_t every = 0;
    int has_every = fc_hf_int1(r, "full_attention_interval", 1, &every);
    if (has_every < 0)
        return;
    if (t != NULL) {
        if (!json_object_is_type(t, json_type_array)) {
            fail(r, "%s is not a list%s", "layer_types", "");
            return;
        }
        int64_t L = layers_for(r, m, "layer_types");
        size_t len = json_object_array_length(t);
        if (L < 0 || length_is(r, "layer_types", len, L) != 0)
            return;
        int other = 0;
        for (size_t i = 0; i < len; i++) {
            json_object *e = json_object_array_get_idx(t, i);
            const char *name =
                json_object_is_type(e, json_type_string) ? json_object_get_string(e) : NULL;
            char k = type_kind(name);
            if (k == 0) {
                fail(r, "layer_types entry '%s' is not modelled by the formula%s",
                     name ? name : "(not a string)",
                     " (full, sliding, chunked and linear attention, mamba are)");
                return;
            }
            other |= k != FC_MIX_ATTENTION && k != FC_MIX_SLIDING;
            p->mix[i] = k;
        }
        if (!other) { /* full and sliding only: the window's rules */
            memset(p->mix, 0, sizeof p->mix);
            return;
        }
        claim(r, &p->mix_src, "layer_types");
        p->mamba_version = 2;
        return;
    }
    if (has_every == 1) {
        int64_t L = layers_for(r, m, "full_attention_interval");
        if (L < 0 || claim(r, &p->mix_src, "full_attention_interval") != 0)
            return;
        for (int64_t i = 0; i < L; i++)
            p->mix[i] = (i + 1) % every == 0 ? FC_MIX_ATTENTION : FC_MIX_GDN;
    }
}

/* An int list's entries, each in [0, below). */
static int int_entry(rd *r, json_object *list, size_t i, int64_t below, const char *key,
                     int64_t *out)
{
    json_object *e = json_object_array_get_idx(list, i);
    int64_t v = json_object_is_type(e, json_type_int) ? json_object_get_int64(e) : -1;
    if (v < 0 || v >= below) {
        char a[48];
        snprintf(a, sizeof a, "entry %zu", i + 1);
        fail(r, "%s: %s is not a layer index (or 0/1) it can be", key, a);
        return -1;
    }
    *out = v;
    return 0;
}

static json_object *list_or_fail(rd *r, const char *key)
{
    json_object *l = fc_hf_get(r, key);
    if (l != NULL && !json_object_is_type(l, json_type_array)) {
        fail(r, "%s is not a list%s", key, "");
        return NULL;
    }
    return l;
}

/* MiniMax: attn_type_list holds 1 for a softmax attention layer and 0 for
 * a lightning (linear) attention layer. All 1 (MiniMax-M2) is the default
 * stack; a 0 (MiniMax-01, M1: 7 layers in 8) is refused, not counted as
 * softmax attention. */
static void minimax(rd *r, const fc_model *m)
{
    json_object *t = list_or_fail(r, "attn_type_list");
    int64_t L, v;
    if (t == NULL || r->bad || (L = layers_for(r, m, "attn_type_list")) < 0 ||
        length_is(r, "attn_type_list", json_object_array_length(t), L) != 0)
        return;
    for (int64_t i = 0; i < L; i++) {
        if (int_entry(r, t, (size_t)i, 2, "attn_type_list", &v) != 0)
            return;
        if (v == 0) {
            char a[48];
            snprintf(a, sizeof a, "layer %lld is 0", (long long)(i + 1));
            fail(r, "attn_type_list: %s (lightning attention, %s)", a,
                 "a linear attention the formula does not model");
            return;
        }
    }
}

/* Llama 4: RoPE layers chunked, NoPE layers global; MoE layers listed
 * (moe_layers) or every interleave_moe_layer_step-th (from step - 1);
 * intermediate_size is the experts' and the shared expert's width,
 * intermediate_size_mlp the dense layers'. Empty lists and absent
 * intervals follow transformers' Llama4TextConfig (NoPE every 4th, MoE
 * in every layer). */
static void llama4(rd *r, fc_model *m, pat *p, unsigned *found)
{
    if (!starts(fc_hf_model_type(r), "llama4")) {
        /* SmolLM3: which layers skip RoPE, an elementwise rotation */
        fc_hf_get(r, "no_rope_layers");
        fc_hf_get(r, "no_rope_layer_interval");
        return;
    }
    int64_t chunk = 0, every = 4, step = 1, L = m->layers, v;
    json_object *nope = list_or_fail(r, "no_rope_layers");
    if (fc_hf_int1(r, "attention_chunk_size", 1, &chunk) < 0 ||
        fc_hf_int1(r, "no_rope_layer_interval", 1, &every) < 0 || r->bad)
        return;
    if (chunk > 0 && p->mix_src == NULL) {
        if ((L = layers_for(r, m, "attention_chunk_size")) < 0 ||
            claim(r, &p->mix_src, "no_rope_layers") != 0)
            return;
        size_t len = nope ? json_object_array_length(nope) : 0;
        if (len > 0 && (int64_t)len < L) {
            length_is(r, "no_rope_layers", len, L);
            return;
        }
        for (int64_t i = 0; i < L; i++) {
            int rope = (i + 1) % every != 0;
            if (len > 0) {
                if (int_entry(r, nope, (size_t)i, 2, "no_rope_layers", &v) != 0)
                    return;
                rope = (int)v;
            }
            p->mix[i] = rope ? FC_MIX_CHUNKED : FC_MIX_ATTENTION;
        }
    }
    if (chunk > 0)
        m->attn_chunk = chunk, *found |= FC_HF_CHUNK;
    if (m->experts <= 0)
        return;
    json_object *moe = list_or_fail(r, "moe_layers");
    if (fc_hf_int1(r, "interleave_moe_layer_step", 1, &step) < 0 || r->bad ||
        (L = layers_for(r, m, "moe_layers")) < 0 || claim(r, &p->mlp_src, "moe_layers") != 0)
        return;
    int dense = 0;
    for (int64_t i = 0; i < L; i++)
        p->mlp[i] = moe == NULL && i % step == step - 1 ? FC_MLP_MOE : FC_MLP_DENSE;
    for (size_t i = 0; moe != NULL && i < json_object_array_length(moe); i++) {
        if (int_entry(r, moe, i, L, "moe_layers", &v) != 0)
            return;
        p->mlp[v] = FC_MLP_MOE;
    }
    for (int64_t i = 0; i < L; i++)
        dense |= p->mlp[i] == FC_MLP_DENSE;
    int64_t mlp = 0;
    int has_mlp = fc_hf_int1(r, "intermediate_size_mlp", 1, &mlp);
    if (has_mlp < 0 || (dense && has_mlp == 0 &&
                        fc_hf_need(r, "intermediate_size_mlp", 1, "llama4 dense layers", &mlp) < 0))
        return;
    if (m->moe_ffn == 0)
        m->moe_ffn = m->ffn; /* intermediate_size: the experts' width */
    m->shared_experts = 1, m->shared_ffn = m->ffn;
    *found |= FC_HF_MOE_FFN | FC_HF_SHARED | FC_HF_SHARED_FFN;
    if (has_mlp)
        m->ffn = mlp, *found |= FC_HF_FFN;
}

/* Qwen-MoE: dense on mlp_only_layers, MoE on layers (i + 1) % step == 0. */
static void qwen_sparse(rd *r, fc_model *m, pat *p)
{
    json_object *only = list_or_fail(r, "mlp_only_layers");
    int64_t step = 1, L, v;
    if (fc_hf_int1(r, "decoder_sparse_step", 1, &step) < 0 || r->bad || m->experts <= 0)
        return; /* dense: the fields mean nothing */
    size_t len = only ? json_object_array_length(only) : 0;
    if (len == 0 && step == 1)
        return; /* every layer MoE: the uniform rule */
    const char *key = len ? "mlp_only_layers" : "decoder_sparse_step";
    if ((L = layers_for(r, m, key)) < 0 || claim(r, &p->mlp_src, key) != 0)
        return;
    if (m->moe_every > 1 || m->moe_first_dense > 0) {
        fail(r, "%s does not go with %s", key, "moe_layer_freq / first_k_dense_replace");
        return;
    }
    for (int64_t i = 0; i < L; i++)
        p->mlp[i] = (i + 1) % step == 0 ? FC_MLP_MOE : FC_MLP_DENSE;
    for (size_t i = 0; i < len; i++) {
        if (int_entry(r, only, i, L, "mlp_only_layers", &v) != 0)
            return;
        p->mlp[v] = FC_MLP_DENSE;
    }
}

/* ---- the sizes of the kinds present ---- */

static void gdn_sizes(rd *r, fc_model *m, unsigned *found)
{
    const char *why = "linear_attention (gated delta-net) layers";
    if (fc_hf_need(r, "linear_num_key_heads", 1, why, &m->gdn_k_heads) < 0 ||
        fc_hf_need(r, "linear_num_value_heads", 1, why, &m->gdn_v_heads) < 0 ||
        fc_hf_need(r, "linear_key_head_dim", 1, why, &m->gdn_k_dim) < 0 ||
        fc_hf_need(r, "linear_value_head_dim", 1, why, &m->gdn_v_dim) < 0)
        return;
    if (m->gdn_v_heads % m->gdn_k_heads != 0) {
        fail(r, "%s does not divide %s", "linear_num_key_heads", "linear_num_value_heads");
        return;
    }
    fc_hf_get(r, "linear_conv_kernel_dim"); /* a depthwise convolution: elementwise */
    *found |= FC_HF_GDN;
}

/* The first of keys, required. */
static int need_of(rd *r, const char *const *keys, const char *why, int64_t *out)
{
    int rc = fc_hf_int(r, keys, 1, out);
    if (rc == 0)
        fail(r, "%s needs %s (absent or null)", why, keys[0]);
    return rc == 1 ? 0 : -1;
}

/* The scan's chunk size. Nemotron-H's configs may leave it out: transformers'
 * NemotronHConfig (in transformers since 2026-03-02, v5) defaults chunk_size
 * to 128 and takes mamba_chunk_size as its old name. A config naming its
 * own class (auto_map: trust_remote_code) loads with that class's default,
 * which is not transformers' (NVIDIA's remote NemotronHConfig: 256): refused. */
static int mamba2_chunk(rd *r, fc_model *m, const char *const *keys)
{
    int rc = fc_hf_int(r, keys, 1, &m->mamba_chunk);
    if (rc != 0)
        return rc == 1 ? 0 : -1;
    if (strcmp(fc_hf_model_type(r), "nemotron_h") != 0)
        return need_of(r, keys, "Mamba-2 layers", &m->mamba_chunk);
    json_object *am, *ac;
    if (r->root != NULL && json_object_object_get_ex(r->root, "auto_map", &am) &&
        json_object_is_type(am, json_type_object) &&
        json_object_object_get_ex(am, "AutoConfig", &ac)) {
        fail(r, "chunk_size is absent and auto_map names the model's own class %s (default "
                "256 in NVIDIA's code, 128 in transformers'): give chunk_size%s",
             json_object_is_type(ac, json_type_string) ? json_object_get_string(ac) : "?", "");
        return -1;
    }
    m->mamba_chunk = 128;
    fc_hf_class_default(r, "chunk_size", 128,
                        "transformers NemotronHConfig, v5: in transformers since 2026-03-02");
    return 0;
}

static void mamba2_sizes(rd *r, fc_model *m, unsigned *found)
{
    static const char *const heads[] = {"mamba_num_heads", "mamba_n_heads", NULL};
    static const char *const hdim[] = {"mamba_head_dim", "mamba_d_head", NULL};
    static const char *const state[] = {"ssm_state_size", "mamba_d_state", "state_size", NULL};
    static const char *const groups[] = {"n_groups", "mamba_n_groups", NULL};
    static const char *const chunk[] = {"chunk_size", "mamba_chunk_size", NULL};
    const char *why = "Mamba-2 layers";
    if (need_of(r, heads, why, &m->mamba_heads) || need_of(r, hdim, why, &m->mamba_head_dim) ||
        need_of(r, state, why, &m->mamba_state) || need_of(r, groups, why, &m->mamba_groups) ||
        mamba2_chunk(r, m, chunk))
        return;
    if (m->mamba_heads % m->mamba_groups != 0) {
        fail(r, "%s does not divide %s", groups[0], heads[0]);
        return;
    }
    /* d_inner is heads x head dim (NemotronH's mixer); expand is not used.
     * The rest costs no matrix product: activations, biases, the
     * depthwise convolution, the state's dtype. */
    static const char *const free_keys[] = {"mamba_hidden_act",      "mamba_proj_bias",
                                            "mamba_conv_bias",       "mamba_d_conv",
                                            "mamba_expand",          "expand",
                                            "mamba_ssm_cache_dtype", "mamba_ssm_dtype",
                                            "conv_kernel",           NULL};
    for (const char *const *k = free_keys; *k; k++)
        fc_hf_get(r, *k);
    m->mamba_version = 2;
    *found |= FC_HF_MAMBA;
}

static void mamba1_sizes(rd *r, fc_model *m, unsigned *found)
{
    const char *why = "Jamba's Mamba layers";
    int64_t expand = 0;
    if (fc_hf_need(r, "mamba_d_state", 1, why, &m->mamba_state) < 0 ||
        fc_hf_need(r, "mamba_expand", 1, why, &expand) < 0)
        return;
    m->mamba_inner = expand * m->hidden;
    json_object *dt = fc_hf_get(r, "mamba_dt_rank");
    if (dt != NULL && json_object_is_type(dt, json_type_string) &&
        strcmp(json_object_get_string(dt), "auto") == 0) {
        m->mamba_dt_rank = (m->hidden + 15) / 16; /* transformers: ceil(hidden / 16) */
    } else if (fc_hf_need(r, "mamba_dt_rank", 1, why, &m->mamba_dt_rank) < 0) {
        return;
    }
    static const char *const free_keys[] = {"mamba_d_conv",      "mamba_conv_bias",
                                            "mamba_proj_bias",   "mamba_inner_layernorms",
                                            "use_mamba_kernels", NULL};
    for (const char *const *k = free_keys; *k; k++)
        fc_hf_get(r, *k);
    m->mamba_version = 1;
    *found |= FC_HF_MAMBA;
}

void fc_hf_read_kinds(rd *r, fc_model *m, unsigned *found)
{
    pat *p = calloc(1, sizeof *p);
    if (p == NULL) {
        fail(r, "out of memory%s%s", "", "");
        return;
    }
    nemotron(r, m, p);
    jamba(r, m, p);
    types(r, m, p);
    minimax(r, m);
    llama4(r, m, p, found);
    qwen_sparse(r, m, p);
    /* Qwen3-Next gates its attention output (Q projection 2x); Qwen3.5
     * says so in attn_output_gate */
    int gate = fc_hf_bool(r, "attn_output_gate");
    if (gate >= 0 || strcmp(fc_hf_model_type(r), "qwen3_next") == 0) {
        m->attn_gate = gate != 0;
        *found |= FC_HF_GATE;
    }
    if (!r->bad && p->mix[0]) {
        memcpy(m->mixers, p->mix, sizeof m->mixers);
        *found |= FC_HF_KINDS | FC_HF_MIXERS;
        if (strchr(p->mix, FC_MIX_GDN))
            gdn_sizes(r, m, found);
        if (strchr(p->mix, FC_MIX_MAMBA))
            (p->mamba_version == 1 ? mamba1_sizes : mamba2_sizes)(r, m, found);
        if (strchr(p->mix, FC_MIX_CHUNKED)) {
            if (m->attn_chunk == 0 && fc_hf_need(r, "attention_chunk_size", 1,
                                                 "chunked_attention layers", &m->attn_chunk) < 0) {
                free(p);
                return;
            }
            *found |= FC_HF_CHUNK;
        }
    }
    if (!r->bad && p->mlp[0]) {
        memcpy(m->mlps, p->mlp, sizeof m->mlps);
        *found |= FC_HF_KINDS;
    }
    free(p);
}

/* ---- nothing that changes the FLOPs left unread ---- */

/* A list that sets layers apart: one named *_layers or *_layer_ids (layer
 * indices: GPT-Neo's attention_layers, Zamba's hybrid_layer_ids), or one
 * with an entry per layer (two or more layers; the architectures' names
 * aside), which can change each layer's kind or width. */
static int per_layer_list(rd *r, const char *key, json_object *val)
{
    static const char *const layer_keys[] = {"num_hidden_layers", "n_layer", "num_layers", NULL};
    json_object *n = NULL;
    if (!json_object_is_type(val, json_type_array) || strcmp(key, "architectures") == 0)
        return 0;
    if (ends(key, "_layers") || ends(key, "_layer_ids"))
        return 1;
    for (const char *const *k = layer_keys; *k && n == NULL; k++)
        if (!json_object_object_get_ex(r->o, *k, &n) || !json_object_is_type(n, json_type_int))
            n = NULL;
    int64_t L = n ? json_object_get_int64(n) : 0;
    return L >= 2 && (int64_t)json_object_array_length(val) == L;
}

void fc_hf_watch(rd *r)
{
    static const char *const exact[] = {"layer_types",
                                        "full_attention_interval",
                                        "hybrid_override_pattern",
                                        "layers_block_type",
                                        "mtp_layers_block_type",
                                        "attn_layer_period",
                                        "attn_layer_offset",
                                        "expert_layer_period",
                                        "expert_layer_offset",
                                        "no_rope_layers",
                                        "no_rope_layer_interval",
                                        "attention_chunk_size",
                                        "moe_layers",
                                        "interleave_moe_layer_step",
                                        "intermediate_size_mlp",
                                        "q_lora_rank",
                                        "kv_lora_rank",
                                        "qk_nope_head_dim",
                                        "qk_rope_head_dim",
                                        "v_head_dim",
                                        "o_lora_rank",
                                        "num_nextn_predict_layers",
                                        "mtp_num_hidden_layers",
                                        "index_topk",
                                        "index_n_heads",
                                        "index_head_dim",
                                        "attn_output_gate",
                                        "moe_latent_size",
                                        "n_groups",
                                        "chunk_size",
                                        "mlp_only_layers",
                                        "decoder_sparse_step",
                                        "attn_type_list",
                                        "mlp_layer_types",
                                        "indexer_types",
                                        "ffn_config",
                                        "attn_config",
                                        "num_mtp_modules",
                                        "shared_intermediate_size",
                                        "dense_attention_every_n_layers",
                                        "multi_query_group_num",
                                        "num_decoder_layers",
                                        "cross_attention_layers",
                                        "window_size",
                                        "attention_window",
                                        "attention_types",
                                        "block_types",
                                        NULL};
    static const char *const prefixes[] = {"mamba_", "ssm_",   "linear_",      "moe_",
                                           "mtp_",   "index_", "blocksparse_", NULL};
    /* names that hold a width or an expert count, in any family's spelling
     * (ERNIE's moe_num_experts, Phi-3-small's ff_intermediate_size) */
    static const char *const parts[] = {"expert", "intermediate", "ffn", NULL};
    static const char *const schedule[] = {"interval", "period", "every_n", "dense", NULL};
    if (r->bad)
        return;
    json_object_object_foreach(r->o, key, val)
    {
        if (val == NULL ||
            (json_object_is_type(val, json_type_array) && json_object_array_length(val) == 0))
            continue;
        int watched = 0, used = 0;
        for (const char *const *k = exact; *k && !watched; k++)
            watched = strcmp(key, *k) == 0;
        /* by prefix or part of the name, sizes and kinds only: a switch
         * (Qwen3.5's mtp_use_dedicated_embeddings) or a state's dtype
         * (its mamba_ssm_dtype, with no Mamba layer) is no product */
        int by_name = !json_object_is_type(val, json_type_boolean) &&
                      !(json_object_is_type(val, json_type_string) && ends(key, "_dtype"));
        for (const char *const *k = prefixes; *k && !watched && by_name; k++)
            watched = starts(key, *k);
        for (const char *const *k = parts; *k && !watched && by_name; k++)
            watched = strstr(key, *k) != NULL;
        /* a count that schedules layers (AFMoE's global_attn_every_n_layers,
         * num_dense_layers; any *_interval, *_period) */
        for (const char *const *k = schedule; *k && !watched; k++)
            watched = strstr(key, *k) != NULL && json_object_is_type(val, json_type_int);
        /* a list of layers: one entry per layer, or layer indices */
        watched = watched || per_layer_list(r, key, val);
        for (size_t i = 0; watched && i < r->n_used && !used; i++)
            used = strcmp(r->used[i], key) == 0;
        if (watched && !used) {
            fail(r, "%s is not modelled for this config (%s)", key,
                 "it can change the FLOPs: refused rather than ignored; give the model as "
                 "flags, without --config");
            return;
        }
    }
}
