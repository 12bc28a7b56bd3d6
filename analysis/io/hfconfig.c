/* SPDX-License-Identifier: Apache-2.0 */
/* hfconfig.c - a Hugging Face config.json as an fc_model, through json-c.
 *
 * Key names differ by family (Llama "hidden_size", GPT-2 "n_embd", Mixtral
 * "num_local_experts", DeepSeek "n_routed_experts", Qwen-MoE
 * "shared_expert_intermediate_size"); each field lists its spellings and
 * the first present one wins. A field that is present but not a positive
 * integer is an error, never a silent default. Multi-latent attention,
 * multi-token prediction and the per-layer kinds of hybrid families are
 * read by hfconfig_kinds.c; a field that changes the FLOPs and that no
 * reader took is refused by name (fc_hf_watch). */
#include "hfconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "hfconfig_internal.h"

typedef fc_hf_rd rd;

void fc_hf_fail(rd *r, const char *fmt, const char *a, const char *b)
{
    if (!r->bad && r->err != NULL && r->n > 0)
        snprintf(r->err, r->n, fmt, a, b);
    r->bad = 1;
}

void fc_hf_class_default(rd *r, const char *key, long long value, const char *cls)
{
    if (r->notes == NULL || r->nn == 0)
        return;
    size_t used = strlen(r->notes);
    if (used + 1 < r->nn)
        snprintf(r->notes + used, r->nn - used,
                 "%s%s %lld: the configuration class's default, absent from the file (%s)",
                 used ? "\n" : "", key, value, cls);
}

void fc_hf_use(rd *r, const char *key)
{
    for (size_t i = 0; i < r->n_used; i++)
        if (strcmp(r->used[i], key) == 0)
            return;
    if (r->n_used < HF_MAX_USED)
        r->used[r->n_used++] = key;
}

json_object *fc_hf_get(rd *r, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(r->o, key, &v) || v == NULL)
        return NULL;
    fc_hf_use(r, key);
    return v;
}

json_object *fc_hf_lookup(rd *r, const char *const *keys, const char **which)
{
    for (; *keys != NULL; keys++) {
        json_object *v = fc_hf_get(r, *keys);
        if (v != NULL) {
            *which = *keys;
            return v;
        }
    }
    return NULL;
}

int fc_hf_int(rd *r, const char *const *keys, int64_t min, int64_t *out)
{
    const char *which = NULL;
    json_object *v = fc_hf_lookup(r, keys, &which);
    if (v == NULL)
        return 0;
    if (!json_object_is_type(v, json_type_int)) {
        fc_hf_fail(r, "%s is not an integer%s", which, "");
        return -1;
    }
    errno = 0;
    int64_t x = json_object_get_int64(v);
    if (errno != 0 || x < min || x > HF_MAX) {
        fc_hf_fail(r, "%s is out of range%s", which,
                   min > 0 ? " (must be positive)" : " (must not be negative)");
        return -1;
    }
    /* Every other spelling present must say the same (gpt-oss writes
     * num_experts_per_tok and experts_per_token): which one a reader
     * takes must not decide the count. */
    for (const char *const *k = keys; *k != NULL; k++) {
        json_object *o;
        if (*k == which || !json_object_object_get_ex(r->o, *k, &o) || o == NULL)
            continue;
        if (!json_object_is_type(o, json_type_int) || json_object_get_int64(o) != x) {
            fc_hf_fail(r, "%s and %s disagree", which, *k);
            return -1;
        }
        fc_hf_use(r, *k);
    }
    *out = x;
    return 1;
}

int fc_hf_int1(rd *r, const char *key, int64_t min, int64_t *out)
{
    const char *keys[] = {key, NULL};
    return fc_hf_int(r, keys, min, out);
}

int fc_hf_need(rd *r, const char *key, int64_t min, const char *why, int64_t *out)
{
    int rc = fc_hf_int1(r, key, min, out);
    if (rc == 0)
        fc_hf_fail(r, "%s needs %s (absent or null)", why, key);
    return rc == 1 ? 1 : -1;
}

const char *fc_hf_str(rd *r, const char *const *keys)
{
    const char *which = NULL;
    json_object *v = fc_hf_lookup(r, keys, &which);
    if (v == NULL)
        return NULL;
    if (!json_object_is_type(v, json_type_string)) {
        fc_hf_fail(r, "%s is not a string%s", which, "");
        return NULL;
    }
    return json_object_get_string(v);
}

int fc_hf_bool(rd *r, const char *key)
{
    json_object *v = fc_hf_get(r, key);
    if (v == NULL)
        return -1;
    if (!json_object_is_type(v, json_type_boolean)) {
        fc_hf_fail(r, "%s is not true or false%s", key, "");
        return -1;
    }
    return json_object_get_boolean(v);
}

const char *fc_hf_model_type(rd *r)
{
    static const char *const keys[] = {"model_type", NULL};
    const char *t = fc_hf_str(r, keys);
    return t ? t : "";
}

#define get_int fc_hf_int
#define get_str fc_hf_str
#define rd_fail fc_hf_fail

static void set_int(rd *r, const char *const *keys, int64_t min, int64_t *field, unsigned bit,
                    unsigned *found)
{
    int64_t v;
    if (get_int(r, keys, min, &v) == 1) {
        *field = v;
        *found |= bit;
    }
}

static int in_list(const char *s, const char *const *list)
{
    for (; s != NULL && *list != NULL; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

/* Gated MLP (3 matrices): SiLU/Swish activations are used gated in every
 * family that ships them; Gemma gates a GELU, so its model_type counts. */
static void read_activation(rd *r, fc_model *m, unsigned *found)
{
    static const char *const act_keys[] = {"mlp_hidden_act", "hidden_act", "activation_function",
                                           "hidden_activation", NULL};
    static const char *const type_keys[] = {"model_type", NULL};
    static const char *const gated_acts[] = {"silu", "swish", "swiglu", NULL};
    static const char *const gated_types[] = {
        "llama",     "mistral", "mixtral", "qwen2",  "qwen2_moe",   "qwen3",
        "qwen3_moe", "gemma",   "gemma2",  "gemma3", "gemma3_text", "deepseek",
        "phi3",      "olmo",    "olmo2",   "olmoe",  "chatglm",     NULL};
    const char *act = get_str(r, act_keys);
    const char *type = get_str(r, type_keys);
    if (act == NULL && !in_list(type, gated_types))
        return;
    m->swiglu = in_list(act, gated_acts) || in_list(type, gated_types);
    *found |= FC_HF_SWIGLU;
}

/* Multi-query attention, one K and one V head: GPT-BigCode (StarCoder) and
 * Falcon say "multi_query": true. Falcon's new decoder (40B, 180B) takes
 * num_kv_heads instead, as transformers' FalconAttention does. */
static void read_multi_query(rd *r, fc_model *m, unsigned *found)
{
    /* ChatGLM / GLM-4-9B (chatglm): multi_query_attention with
     * multi_query_group_num K/V heads */
    int groups = fc_hf_bool(r, "multi_query_attention");
    if (groups == 1) {
        if (fc_hf_need(r, "multi_query_group_num", 1, "multi_query_attention", &m->kv_heads) == 1)
            *found |= FC_HF_KV_HEADS;
        return;
    }
    if (groups == 0)
        fc_hf_get(r, "multi_query_group_num"); /* groups of nothing */
    int mq = fc_hf_bool(r, "multi_query");
    if (mq != 1 || fc_hf_bool(r, "new_decoder_architecture") == 1)
        return;
    m->kv_heads = 1;
    *found |= FC_HF_KV_HEADS;
}

/* Qwen (v1, model_type "qwen") writes intermediate_size as the two gated
 * halves together: w1 and w2 are h -> intermediate_size / 2 each, c_proj
 * back from intermediate_size / 2 (transformers-remote QWenMLP). */
static void qwen1_mlp(rd *r, fc_model *m, unsigned *found)
{
    if (strcmp(fc_hf_model_type(r), "qwen") != 0 || !(*found & FC_HF_FFN))
        return;
    if (m->ffn % 2 != 0) {
        rd_fail(r, "%s of model_type qwen is not even (%s)", "intermediate_size",
                "it holds the two gated halves");
        return;
    }
    m->ffn /= 2;
    m->swiglu = 1;
    *found |= FC_HF_SWIGLU;
}

static void read_dense(rd *r, fc_model *m, unsigned *found)
{
    static const char *const layers[] = {"num_hidden_layers", "n_layer", "num_layers", NULL};
    static const char *const hidden[] = {"hidden_size", "n_embd", "d_model", NULL};
    static const char *const heads[] = {"num_attention_heads", "n_head", NULL};
    static const char *const kv[] = {"num_key_value_heads", "num_kv_heads", "n_head_kv", NULL};
    static const char *const ffn[] = {"intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim",
                                      NULL};
    static const char *const head_dim[] = {"head_dim", "attention_head_dim", "kv_channels", NULL};
    static const char *const vocab[] = {"vocab_size", "padded_vocab_size", NULL};
    set_int(r, layers, 1, &m->layers, FC_HF_LAYERS, found);
    set_int(r, hidden, 1, &m->hidden, FC_HF_HIDDEN, found);
    set_int(r, heads, 1, &m->heads, FC_HF_HEADS, found);
    set_int(r, kv, 1, &m->kv_heads, FC_HF_KV_HEADS, found);
    set_int(r, ffn, 1, &m->ffn, FC_HF_FFN, found);
    set_int(r, head_dim, 1, &m->head_dim, FC_HF_HEAD_DIM, found);
    set_int(r, vocab, 1, &m->vocab, FC_HF_VOCAB, found);
    read_activation(r, m, found);
    read_multi_query(r, m, found);
    qwen1_mlp(r, m, found);

    int tie = fc_hf_bool(r, "tie_word_embeddings");
    if (tie >= 0) {
        m->untied_embeddings = !tie;
        *found |= FC_HF_UNTIED;
    }
}

/* Families whose layers are none of the formula's kinds: refused by name
 * rather than counted as attention + MLP. */
static void refuse_unmodelled(rd *r)
{
    static const char *const other[] = {
        "mamba",   "mamba2", "falcon_mamba", "falcon_h1",       "zamba", "zamba2",
        "rwkv",    "rwkv5",  "rwkv6",        "rwkv7",           "xlstm", "lfm2",
        "minimax", "bamba",  "jamba_mamba2", "recurrent_gemma", NULL};
    const char *type = fc_hf_model_type(r);
    if (in_list(type, other))
        rd_fail(r, "model_type '%s' is not modelled by the formula (%s)", type,
                "its layers are not attention, gated delta-net, Mamba-2 or Jamba's Mamba-1 as "
                "the formula counts them");
    /* T5, BART, Whisper: an encoder, and cross-attention in the decoder */
    if (fc_hf_bool(r, "is_encoder_decoder") == 1)
        rd_fail(r, "is_encoder_decoder is true: %s%s",
                "the formula counts decoder-only transformers, not an encoder and a decoder", "");
}

static void read_shared(rd *r, fc_model *m, unsigned *found)
{
    static const char *const count_keys[] = {"n_shared_experts", "num_shared_experts", NULL};
    static const char *const size_keys[] = {"shared_expert_intermediate_size",
                                            "moe_shared_expert_intermediate_size",
                                            "shared_intermediate_size", NULL};
    int64_t count = 0, size = 0;
    int has_count = get_int(r, count_keys, 0, &count) == 1;
    int has_size = get_int(r, size_keys, 0, &size) == 1;
    if (has_size && size > 0) {
        /* Qwen-MoE: one shared MLP of this width; with a count, the width
         * is their total (as Megatron's moe_shared_expert_intermediate_size). */
        if (has_count && count > 0 && size % count != 0) {
            rd_fail(r, "%s is not a multiple of %s", "shared_expert_intermediate_size",
                    "n_shared_experts");
            return;
        }
        m->shared_experts = has_count && count > 0 ? count : 1;
        m->shared_ffn = size / m->shared_experts;
        *found |= FC_HF_SHARED | FC_HF_SHARED_FFN;
    } else if (has_count || has_size) {
        m->shared_experts = has_size ? 0 : count;
        *found |= FC_HF_SHARED;
    }
}

/* An expert count of 0 (Granite 4.0's dense models): the top-k and the
 * experts' width describe no layer; Granite's one MLP is then its shared
 * MLP, shared_intermediate_size wide (intermediate_size is the experts'). */
static void read_no_experts(rd *r, fc_model *m, unsigned *found)
{
    static const char *const topk[] = {"num_experts_per_tok", "experts_per_token", NULL};
    static const char *const shared[] = {"shared_intermediate_size", NULL};
    int64_t k = 0, f = 0;
    if (get_int(r, topk, 0, &k) < 0 || get_int(r, shared, 0, &f) < 0)
        return;
    fc_hf_get(r, "moe_intermediate_size");
    if (f > 0) {
        m->ffn = f;
        *found |= FC_HF_FFN;
    }
}

/* first_k_dense_replace at or past the layer count: every layer dense (a
 * dense DeepSeek-V3-type model). Its expert fields, the file's or the
 * class's defaults, give no layer: taken as read. 1 when so. */
static int all_dense(rd *r, const fc_model *m)
{
    static const char *const first[] = {"first_k_dense_replace", NULL};
    int64_t k = 0;
    if (m->layers <= 0 || get_int(r, first, 0, &k) != 1 || k < m->layers)
        return 0;
    json_object_object_foreach(r->o, key, val)
    {
        (void)val;
        if (strncmp(key, "moe_", 4) == 0 || strstr(key, "expert") != NULL)
            fc_hf_use(r, key);
    }
    return 1;
}

static void read_moe(rd *r, fc_model *m, unsigned *found)
{
    static const char *const experts[] = {"num_local_experts", "num_experts", "n_routed_experts",
                                          NULL};
    static const char *const topk[] = {"num_experts_per_tok", "experts_per_token", NULL};
    static const char *const moe_ffn[] = {"moe_intermediate_size", NULL};
    static const char *const every[] = {"moe_layer_freq", NULL};
    static const char *const first[] = {"first_k_dense_replace", NULL};
    int64_t e = 0;
    if (all_dense(r, m))
        return;
    int has = get_int(r, experts, 0, &e);
    if (has == 1 && e == 0)
        read_no_experts(r, m, found);
    if (has != 1 || e == 0)
        return; /* dense (any other expert field is refused by fc_hf_watch) */
    m->experts = e;
    *found |= FC_HF_EXPERTS;
    set_int(r, topk, 1, &m->topk, FC_HF_TOPK, found);
    set_int(r, moe_ffn, 1, &m->moe_ffn, FC_HF_MOE_FFN, found);
    set_int(r, every, 1, &m->moe_every, FC_HF_MOE_EVERY, found);
    set_int(r, first, 0, &m->moe_first_dense, FC_HF_FIRST_DENSE, found);
    read_shared(r, m, found);
}

/* Counts the layers a "layer_types" list makes windowed; -1 on an entry
 * the formula does not model. */
static int64_t windowed_in_list(rd *r, json_object *types)
{
    int64_t n = 0;
    size_t len = json_object_array_length(types);
    for (size_t i = 0; i < len; i++) {
        json_object *t = json_object_array_get_idx(types, i);
        const char *name =
            t && json_object_is_type(t, json_type_string) ? json_object_get_string(t) : NULL;
        if (name != NULL && strcmp(name, "sliding_attention") == 0) {
            n++;
        } else if (name == NULL || strcmp(name, "full_attention") != 0) {
            rd_fail(r, "layer_types entry '%s' is not modelled by the formula%s",
                    name ? name : "(not a string)", " (full_attention and sliding_attention are)");
            return -1;
        }
    }
    return n;
}

/* Sliding-window attention: which layers attend to at most sliding_window
 * keys. From "layer_types" when listed; Qwen2/3 only with
 * use_sliding_window, on the layers from max_window_layers on; Gemma 3 and
 * Cohere2 one layer in sliding_window_pattern is global; Gemma 2
 * alternates (even layers windowed); any other family (Mistral, Mixtral,
 * Phi-3, Starcoder2 ...) windows every layer. */
static void read_window(rd *r, fc_model *m, unsigned *found)
{
    static const char *const window_keys[] = {"sliding_window", NULL};
    static const char *const type_keys[] = {"model_type", NULL};
    static const char *const qwen[] = {"qwen2", "qwen2_moe", "qwen3", "qwen3_moe", NULL};
    static const char *const pattern_keys[] = {"sliding_window_pattern", NULL};
    static const char *const max_keys[] = {"max_window_layers", NULL};
    int64_t w = 0, layers = m->layers, windowed = -1, p = 0;
    int has_w = get_int(r, window_keys, 1, &w) == 1;
    json_object *types = NULL, *use = NULL;
    if (*found & FC_HF_MIXERS) { /* the layer kinds are listed (hfconfig_kinds.c): S layers */
        if (strchr(m->mixers, FC_MIX_SLIDING) == NULL || r->bad)
            return;
        if (!has_w) {
            rd_fail(r, "the layer kinds have sliding-window layers but %s is missing%s",
                    "sliding_window", "");
            return;
        }
        m->window = w;
        *found |= FC_HF_WINDOW;
        return;
    }
    if ((types = fc_hf_get(r, "layer_types")) != NULL) {
        if (!json_object_is_type(types, json_type_array)) {
            rd_fail(r, "%s is not a list%s", "layer_types", "");
            return;
        }
        if ((windowed = windowed_in_list(r, types)) < 0)
            return;
        if (windowed > 0 && !has_w) {
            rd_fail(r, "layer_types has sliding_attention layers but %s is missing%s",
                    "sliding_window", "");
            return;
        }
    }
    if (!has_w || r->bad)
        return;
    const char *type = get_str(r, type_keys);
    if (windowed >= 0) {
        /* listed */
    } else if (json_object_object_get_ex(r->o, "use_sliding_window", &use) || in_list(type, qwen)) {
        int64_t first = 0;
        if (use == NULL || !json_object_is_type(use, json_type_boolean) ||
            !json_object_get_boolean(use))
            return; /* the window is not used (transformers' Qwen2/3 check this flag) */
        if (get_int(r, max_keys, 0, &first) != 1) {
            rd_fail(r, "use_sliding_window without %s: which layers are windowed is %s",
                    "max_window_layers", "not known");
            return;
        }
        windowed = layers > first ? layers - first : 0;
    } else if (get_int(r, pattern_keys, 1, &p) == 1) {
        windowed = layers - layers / p; /* layer i is global when (i + 1) % p == 0 */
    } else if (type != NULL && strcmp(type, "gemma2") == 0) {
        windowed = (layers + 1) / 2; /* layers 0, 2, 4 ... */
    } else if (type != NULL && strncmp(type, "gemma3", 6) == 0) {
        rd_fail(r, "%s without layer_types or sliding_window_pattern: %s", type,
                "which layers are windowed is not known");
        return;
    } else {
        windowed = layers;
    }
    if (r->bad || windowed <= 0)
        return;
    m->window = w;
    m->window_layers = windowed;
    *found |= FC_HF_WINDOW;
}

/* A nested text_config leaves out what equals its class's defaults; for
 * these families the defaults are experts (and DeepSeek's multi-latent
 * attention), so a part without them would be counted dense with plain
 * attention. Refused rather than guessed. */
static void nested_family_gaps(rd *r, unsigned found)
{
    static const char *const moe_types[] = {"deepseek_v2", "deepseek_v3", "kimi_k2",    "mixtral",
                                            "qwen2_moe",   "qwen3_moe",   "qwen3_next", "gpt_oss",
                                            "llama4_text", "olmoe",       "phimoe",     NULL};
    const char *type = fc_hf_model_type(r);
    if (r->bad || !in_list(type, moe_types))
        return;
    if (!(found & FC_HF_EXPERTS))
        rd_fail(r, "text_config of model_type %s names no expert count: %s", type,
                "transformers then takes its class's default; give the model as flags");
    else if (strncmp(type, "deepseek", 8) == 0 && !(found & FC_HF_MLA))
        rd_fail(r, "text_config of model_type %s names no kv_lora_rank: %s", type,
                "transformers then takes its class's default; give the model as flags");
}

/* Counts the file contradicts itself on, named as the file's (fc_model_check
 * would name the flags, which the user did not give). */
static void check_counts(rd *r, const fc_model *m)
{
    char a[96];
    if (r->bad)
        return;
    if (m->experts > 1 && m->topk > m->experts) {
        snprintf(a, sizeof a, "%lld experts per token of %lld", (long long)m->topk,
                 (long long)m->experts);
        rd_fail(r, "the config routes %s (num_experts_per_tok above the expert count)%s", a, "");
    } else if (m->kv_heads > 0 && m->heads > 0 && m->heads % m->kv_heads != 0) {
        snprintf(a, sizeof a, "%lld K/V heads for %lld query heads", (long long)m->kv_heads,
                 (long long)m->heads);
        rd_fail(r, "the config has %s (num_key_value_heads must divide num_attention_heads)%s", a,
                "");
    }
}

/* Multimodal configs keep the language model under "text_config"
 * (DeepSeek-VL2 "language_config", InternVL "llm_config"). */
static json_object *language_part(json_object *root)
{
    static const char *const parts[] = {"text_config", "language_config", "llm_config", NULL};
    json_object *v, *text;
    if (json_object_object_get_ex(root, "hidden_size", &v) ||
        json_object_object_get_ex(root, "n_embd", &v))
        return root;
    for (const char *const *k = parts; *k != NULL; k++)
        if (json_object_object_get_ex(root, *k, &text) &&
            json_object_is_type(text, json_type_object))
            return text;
    return root;
}

/* Gemma 3's multimodal configs keep only the fields that differ from
 * transformers' Gemma3TextConfig (gemma-3-4b-it names no heads, head
 * width, vocabulary or window pattern; gemma-3-12b-it no head_dim, which
 * is 256, not h/a = 240): those defaults fill what the file leaves out, as
 * transformers does. A key present, even null, is the file's. */
static void gemma3_defaults(rd *r, json_object *o)
{
    static const char cls[] = "transformers Gemma3TextConfig";
    static const struct {
        const char *key;
        int64_t v;
    } defs[] = {{"vocab_size", 262208},    {"hidden_size", 2304},      {"intermediate_size", 9216},
                {"num_hidden_layers", 26}, {"num_attention_heads", 8}, {"num_key_value_heads", 4},
                {"head_dim", 256},         {"sliding_window", 4096}};
    json_object *t, *v;
    if (!json_object_object_get_ex(o, "model_type", &t) ||
        !json_object_is_type(t, json_type_string) ||
        strcmp(json_object_get_string(t), "gemma3_text") != 0)
        return;
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        if (!json_object_object_get_ex(o, defs[i].key, &v)) {
            json_object_object_add(o, defs[i].key, json_object_new_int64(defs[i].v));
            fc_hf_class_default(r, defs[i].key, defs[i].v, cls);
        }
    /* every sixth layer global unless listed (Gemma3TextConfig's pattern 6) */
    if (!json_object_object_get_ex(o, "layer_types", &v) &&
        !json_object_object_get_ex(o, "sliding_window_pattern", &v)) {
        json_object_object_add(o, "sliding_window_pattern", json_object_new_int64(6));
        fc_hf_class_default(r, "sliding_window_pattern", 6, cls);
    }
    if (!json_object_object_get_ex(o, "hidden_activation", &v) &&
        !json_object_object_get_ex(o, "hidden_act", &v))
        json_object_object_add(o, "hidden_activation", json_object_new_string("gelu_pytorch_tanh"));
}

int fc_hfconfig_parse(const char *text, size_t len, fc_model *m, unsigned *found, char *err,
                      size_t errlen)
{
    return fc_hfconfig_parse_noted(text, len, m, found, NULL, 0, err, errlen);
}

int fc_hfconfig_parse_noted(const char *text, size_t len, fc_model *m, unsigned *found,
                            char *notes, size_t notes_len, char *err, size_t errlen)
{
    if (notes != NULL && notes_len > 0)
        notes[0] = '\0';
    unsigned dummy = 0;
    if (found == NULL)
        found = &dummy;
    *found = 0;
    struct json_tokener *tok = json_tokener_new();
    if (tok == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    while (root != NULL && end < len && strchr(" \t\r\n", text[end]) != NULL && text[end])
        end++;
    if (root != NULL && jerr == json_tokener_success && end < len) {
        snprintf(err, errlen, "not valid JSON (text after the object)");
        json_object_put(root);
        return -1;
    }
    if (root == NULL || jerr != json_tokener_success) {
        snprintf(err, errlen, "not valid JSON (%s)",
                 jerr == json_tokener_continue ? "unexpected end" : json_tokener_error_desc(jerr));
        json_object_put(root);
        return -1;
    }
    if (!json_object_is_type(root, json_type_object)) {
        snprintf(err, errlen, "not a JSON object");
        json_object_put(root);
        return -1;
    }
    rd r;
    memset(&r, 0, sizeof r);
    r.o = language_part(root), r.err = err, r.n = errlen;
    r.root = root, r.notes = notes, r.nn = notes_len;
    gemma3_defaults(&r, r.o);
    fc_model tmp = *m; /* all or nothing: m is untouched on error */
    refuse_unmodelled(&r);
    read_dense(&r, &tmp, found);
    fc_hf_read_mla(&r, &tmp, found);
    read_moe(&r, &tmp, found);
    fc_hf_read_mtp(&r, &tmp, found);
    fc_hf_read_kinds(&r, &tmp, found);
    read_window(&r, &tmp, found);
    check_counts(&r, &tmp);
    if (r.o != root)
        nested_family_gaps(&r, *found);
    fc_hf_watch(&r);
    int text_part = r.o != root, towers = text_part;
    static const char *const tower_keys[] = {"vision_config", "audio_config", "speech_config",
                                             NULL};
    for (const char *const *k = tower_keys; *k != NULL; k++) {
        json_object *t;
        towers |=
            json_object_object_get_ex(root, *k, &t) && json_object_is_type(t, json_type_object);
    }
    json_object_put(root);
    if (r.bad) {
        *found = 0;
        if (notes != NULL && notes_len > 0)
            notes[0] = '\0';
        return -1;
    }
    if (text_part)
        *found |= FC_HF_TEXT_PART;
    if (towers)
        *found |= FC_HF_TOWERS;
    *m = tmp;
    return 0;
}

int fc_hfconfig_read(const char *path, fc_model *m, unsigned *found, char *err, size_t errlen)
{
    return fc_hfconfig_read_noted(path, m, found, NULL, 0, err, errlen);
}

int fc_hfconfig_read_noted(const char *path, fc_model *m, unsigned *found, char *notes,
                           size_t notes_len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    /* config.json files are a few KiB; 4 MiB is far past any real one. */
    size_t cap = 4u << 20, len = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        fclose(f);
        snprintf(err, errlen, "out of memory reading %s", path);
        return -1;
    }
    len = fread(buf, 1, cap, f);
    int rerr = ferror(f), big = len == cap;
    fclose(f);
    if (rerr || big) {
        free(buf);
        snprintf(err, errlen, "%s: %s", path, rerr ? "read error" : "larger than 4 MiB");
        return -1;
    }
    char inner[200];
    int rc = fc_hfconfig_parse_noted(buf, len, m, found, notes, notes_len, inner, sizeof inner);
    free(buf);
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", path, inner);
    return rc;
}
