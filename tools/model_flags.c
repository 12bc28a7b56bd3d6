/* SPDX-License-Identifier: Apache-2.0 */
/* model_flags.c - one table of model flags, parsed strictly, laid over an
 * optional Hugging Face config; and the utilization flags with the peak
 * table lookup. Shared by 'formula' and 'report'. */
#include "model_flags.h"

#include <stdio.h>
#include <string.h>

#include "../analysis/dtype.h"
#include "../analysis/infer.h"
#include "../analysis/io/hfconfig.h"
#include "../analysis/parse.h"
#include "../analysis/peak.h"

/* Sizes beyond this are typos; it also keeps products within 128 bits. */
#define FLAG_MAX 1000000000000000ull

enum kind { K_INT, K_ON, K_OFF, K_RECOMPUTE, K_CAUSAL, K_CONFIG, K_MIXERS, K_MLPS, K_MTP_BLOCK };

typedef struct flagdef {
    const char *name;
    enum kind kind;
    size_t off;   /* field in fc_model */
    int64_t min;  /* K_INT: smallest value accepted */
    int key;      /* enum fc_ik of the value it sets; -1: none (--config, the window flags;
                   * the layer patterns travel in the model itself) */
} flagdef;

#define F(field) offsetof(fc_model, field)
static const flagdef defs[] = {
    {"--layers", K_INT, F(layers), 1, FC_IK_LAYERS},
    {"--hidden", K_INT, F(hidden), 1, FC_IK_HIDDEN},
    {"--heads", K_INT, F(heads), 1, FC_IK_HEADS},
    {"--kv-heads", K_INT, F(kv_heads), 1, FC_IK_KV_HEADS},
    {"--ffn", K_INT, F(ffn), 1, FC_IK_FFN},
    {"--head-dim", K_INT, F(head_dim), 1, FC_IK_HEAD_DIM},
    {"--vocab", K_INT, F(vocab), 1, FC_IK_VOCAB},
    {"--seq", K_INT, F(seq), 1, FC_IK_SEQ},
    {"--batch", K_INT, F(batch), 1, FC_IK_BATCH},
    {"--swiglu", K_ON, F(swiglu), 0, FC_IK_SWIGLU},
    {"--no-swiglu", K_OFF, F(swiglu), 0, FC_IK_SWIGLU},
    {"--experts", K_INT, F(experts), 0, FC_IK_EXPERTS},
    {"--topk", K_INT, F(topk), 1, FC_IK_TOPK},
    {"--moe-ffn", K_INT, F(moe_ffn), 1, FC_IK_MOE_FFN},
    {"--shared-experts", K_INT, F(shared_experts), 0, FC_IK_SHARED_EXPERTS},
    {"--shared-ffn", K_INT, F(shared_ffn), 1, FC_IK_SHARED_FFN},
    {"--moe-every", K_INT, F(moe_every), 1, FC_IK_MOE_EVERY},
    {"--moe-first-dense", K_INT, F(moe_first_dense), 0, FC_IK_MOE_FIRST_DENSE},
    {"--untied-embeddings", K_ON, F(untied_embeddings), 0, FC_IK_TIED},
    {"--tied-embeddings", K_OFF, F(untied_embeddings), 0, FC_IK_TIED},
    {"--recompute", K_RECOMPUTE, F(recompute), 0, FC_IK_RECOMPUTE},
    {"--causal-attention", K_CAUSAL, F(causal), 0, FC_IK_CAUSAL},
    {"--sliding-window", K_INT, F(window), 0, -1},
    {"--window-layers", K_INT, F(window_layers), 1, -1},
    {"--config", K_CONFIG, 0, 0, -1},
    /* the 2025-26 layer kinds (docs/formula.md) */
    {"--q-lora-rank", K_INT, F(q_lora_rank), 0, FC_IK_Q_LORA_RANK},
    {"--kv-lora-rank", K_INT, F(kv_lora_rank), 0, FC_IK_KV_LORA_RANK},
    {"--qk-nope-dim", K_INT, F(qk_nope_dim), 1, FC_IK_QK_NOPE_DIM},
    {"--qk-rope-dim", K_INT, F(qk_rope_dim), 1, FC_IK_QK_ROPE_DIM},
    {"--v-head-dim", K_INT, F(v_head_dim), 1, FC_IK_V_HEAD_DIM},
    {"--attn-output-gate", K_ON, F(attn_gate), 0, FC_IK_ATTN_GATE},
    {"--no-attn-output-gate", K_OFF, F(attn_gate), 0, FC_IK_ATTN_GATE},
    {"--mtp-layers", K_INT, F(mtp_layers), 0, FC_IK_MTP_LAYERS},
    {"--mtp-block", K_MTP_BLOCK, F(mtp_block), 0, -1},
    {"--layer-pattern", K_MIXERS, F(mixers), 0, -1},
    {"--mlp-pattern", K_MLPS, F(mlps), 0, -1},
    {"--attn-chunk", K_INT, F(attn_chunk), 0, FC_IK_ATTN_CHUNK},
    {"--gdn-key-heads", K_INT, F(gdn_k_heads), 1, FC_IK_GDN_K_HEADS},
    {"--gdn-value-heads", K_INT, F(gdn_v_heads), 1, FC_IK_GDN_V_HEADS},
    {"--gdn-key-dim", K_INT, F(gdn_k_dim), 1, FC_IK_GDN_K_DIM},
    {"--gdn-value-dim", K_INT, F(gdn_v_dim), 1, FC_IK_GDN_V_DIM},
    {"--gdn-chunk", K_INT, F(gdn_chunk), 1, FC_IK_GDN_CHUNK},
    {"--mamba-version", K_INT, F(mamba_version), 1, FC_IK_MAMBA_VERSION},
    {"--mamba-heads", K_INT, F(mamba_heads), 1, FC_IK_MAMBA_HEADS},
    {"--mamba-head-dim", K_INT, F(mamba_head_dim), 1, FC_IK_MAMBA_HEAD_DIM},
    {"--mamba-state", K_INT, F(mamba_state), 1, FC_IK_MAMBA_STATE},
    {"--mamba-groups", K_INT, F(mamba_groups), 1, FC_IK_MAMBA_GROUPS},
    {"--mamba-chunk", K_INT, F(mamba_chunk), 1, FC_IK_MAMBA_CHUNK},
    {"--mamba-inner", K_INT, F(mamba_inner), 1, FC_IK_MAMBA_INNER},
    {"--mamba-dt-rank", K_INT, F(mamba_dt_rank), 1, FC_IK_MAMBA_DT_RANK},
};
#undef F
#define NDEFS (sizeof defs / sizeof defs[0])
_Static_assert(NDEFS <= 64, "fc_model_opts.set has one bit per flag");

void fc_model_opts_init(fc_model_opts *o) { memset(o, 0, sizeof *o); }

static size_t flag_index(const char *name)
{
    for (size_t i = 0; i < NDEFS; i++)
        if (strcmp(defs[i].name, name) == 0)
            return i;
    return 0;
}

int fc_model_opts_given(const fc_model_opts *o) { return o->set != 0 || o->config != NULL; }

/* Bytes of the fc_model field a flag writes. */
static size_t field_size(const flagdef *d)
{
    switch (d->kind) {
    case K_INT: return sizeof(int64_t);
    case K_MIXERS:
    case K_MLPS: return FC_MAX_LAYER_PATTERN + 1;
    case K_MTP_BLOCK: return sizeof ((fc_model *)0)->mtp_block;
    default: return sizeof(int);
    }
}

/* A pattern flag's value: one kind character per layer (the pattern
 * repeats over the layers), at most FC_MAX_LAYER_PATTERN of them. */
static int set_pattern(fc_model_opts *o, const flagdef *d, const char *v, char *err, size_t n)
{
    const char *kinds = d->kind == K_MIXERS ? "ASCGM-" : d->kind == K_MLPS ? "DE-" : "ASCGMDE";
    size_t len = strlen(v), cap = field_size(d) - 1;
    int ok = len > 0 && len <= cap && strspn(v, kinds) == len;
    if (ok && d->kind == K_MTP_BLOCK) /* a mixer, then optionally an MLP */
        ok = strchr("ASCGM", v[0]) != NULL && (len == 1 || strchr("DE", v[1]) != NULL);
    if (!ok) {
        snprintf(err, n, "bad value '%.40s%s' for %s (%s)", v, len > 40 ? "..." : "", d->name,
                 d->kind == K_MIXERS ? "one of A S C G M - per layer, at most 1024"
                 : d->kind == K_MLPS ? "one of D E - per layer, at most 1024"
                                     : "a mixer A S C G or M, then an MLP D or E");
        return -1;
    }
    char *dst = (char *)&o->flags + d->off;
    memset(dst, 0, cap + 1);
    memcpy(dst, v, len);
    return 0;
}

/* Finds the definition; *inline_value is the text after '=' if any. */
static const flagdef *find(const char *flag, const char **inline_value)
{
    const char *eq = strchr(flag, '=');
    size_t len = eq ? (size_t)(eq - flag) : strlen(flag);
    *inline_value = eq ? eq + 1 : NULL;
    for (size_t i = 0; i < NDEFS; i++)
        if (strlen(defs[i].name) == len && strncmp(defs[i].name, flag, len) == 0)
            return &defs[i];
    return NULL;
}

static int set_value(fc_model_opts *o, const flagdef *d, const char *v, char *err, size_t n)
{
    char *base = (char *)&o->flags;
    if (d->kind == K_MIXERS || d->kind == K_MLPS || d->kind == K_MTP_BLOCK)
        return set_pattern(o, d, v, err, n);
    if (d->kind == K_INT) {
        uint64_t x;
        if (fc_parse_u64(v, FLAG_MAX, &x) != 0 || (int64_t)x < d->min) {
            snprintf(err, n, "bad value '%s' for %s (%s)", v, d->name,
                     d->min > 0 ? "a positive integer" : "an integer >= 0");
            return -1;
        }
        int64_t y = (int64_t)x;
        memcpy(base + d->off, &y, sizeof y);
        return 0;
    }
    int e = d->kind == K_RECOMPUTE ? fc_recompute_from_name(v) : fc_causal_from_name(v);
    if (e < 0) {
        snprintf(err, n, "bad value '%s' for %s (%s)", v, d->name,
                 d->kind == K_RECOMPUTE ? "none, selective or full" : "full or half");
        return -1;
    }
    memcpy(base + d->off, &e, sizeof e);
    return 0;
}

int fc_model_flag(fc_model_opts *o, const char *flag, const char *value, char *err, size_t n)
{
    const char *inl;
    const flagdef *d = find(flag, &inl);
    if (d == NULL)
        return 0;
    uint64_t bit = 1ull << (d - defs);
    if (d->kind == K_ON || d->kind == K_OFF) {
        if (inl != NULL) {
            snprintf(err, n, "%s takes no value", d->name);
            return -1;
        }
        int v = d->kind == K_ON;
        memcpy((char *)&o->flags + d->off, &v, sizeof v);
        /* --swiglu and --no-swiglu write one field: the last one wins. */
        o->set |= bit;
        return 1;
    }
    const char *v = inl != NULL ? inl : value;
    if (v == NULL || *v == '\0') {
        snprintf(err, n, "%s needs a value", d->name);
        return -1;
    }
    if (d->kind == K_CONFIG)
        o->config = v;
    else if (set_value(o, d, v, err, n) != 0)
        return -1;
    o->set |= bit;
    return inl != NULL ? 1 : 2;
}

/* A config's MoE fields mean nothing once --experts 0 makes it dense. */
static void drop_moe_if_dense(fc_model *m)
{
    if (m->experts != 0)
        return;
    m->topk = m->moe_ffn = m->shared_experts = m->shared_ffn = 0;
    m->moe_every = m->moe_first_dense = 0;
}

/* --sliding-window 0 turns a config's window off (unless --window-layers
 * is given too); --kv-lora-rank 0 turns its multi-latent attention off,
 * and its ranks and widths with it. */
static void window_rule(const fc_model_opts *o, fc_model *m)
{
    if (m->window == 0 && !(o->set & (1ull << flag_index("--window-layers"))))
        m->window_layers = 0;
    if (m->kv_lora_rank == 0 && (o->set & (1ull << flag_index("--kv-lora-rank"))))
        m->q_lora_rank = m->qk_nope_dim = m->qk_rope_dim = m->v_head_dim = 0;
}

/* A config's windowed layers are counted for its own num_hidden_layers.
 * Under another --layers, "every layer" still holds; any other count
 * (gpt-oss's alternation, Gemma's 5 in 6) no longer says which layers are
 * windowed: refused unless --window-layers says it. */
static int layers_rule(const fc_model_opts *o, const fc_model *cfg, fc_model *m, char *err,
                       size_t n)
{
    if (!(o->set & (1ull << flag_index("--layers"))) || m->layers == cfg->layers ||
        cfg->window_layers == 0 || (o->set & (1ull << flag_index("--window-layers"))))
        return 0;
    if (cfg->window_layers == cfg->layers) {
        m->window_layers = m->layers;
        return 0;
    }
    snprintf(err, n,
             "--layers %lld differs from the config's %lld layers, %lld of them windowed: give "
             "--window-layers",
             (long long)m->layers, (long long)cfg->layers, (long long)cfg->window_layers);
    return -1;
}

/* A multimodal config writes its text_config as a diff against the
 * family's transformers config: a width it leaves out is that class's
 * default (LLaVA's llama part names no intermediate_size: 11008), which
 * the formula's own defaults (4h, as many K/V heads as heads, h/a) are
 * not. Each such gap needs its flag. */
static int text_part_gaps(const fc_model_opts *o, const fc_model *m, unsigned found, char *err,
                          size_t n)
{
    static const struct {
        unsigned bit;
        const char *key, *flag;
    } need[] = {{FC_HF_FFN, "intermediate_size", "--ffn"},
                {FC_HF_KV_HEADS, "num_key_value_heads", "--kv-heads"},
                {FC_HF_HEAD_DIM, "head_dim", "--head-dim"}};
    if (!(found & FC_HF_TEXT_PART))
        return 0;
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        if ((found & need[i].bit) || (o->set & (1ull << flag_index(need[i].flag))) ||
            (need[i].bit != FC_HF_FFN && m->kv_lora_rank > 0)) /* MLA has neither */
            continue;
        snprintf(err, n,
                 "the config's text_config leaves out %s (transformers then takes its model "
                 "class's default, not the formula's): give %s",
                 need[i].key, need[i].flag);
        return -1;
    }
    return 0;
}

int fc_model_opts_collect(const fc_model_opts *o, fc_model *out, uint64_t *given, char *err, size_t n)
{
    fc_model m, cfg;
    uint64_t keys = 0;
    memset(&m, 0, sizeof m);
    memset(&cfg, 0, sizeof cfg);
    if (o->config != NULL) {
        unsigned found = 0;
        if (fc_hfconfig_read(o->config, &m, &found, err, n) != 0 ||
            text_part_gaps(o, &m, found, err, n) != 0)
            return -1;
        /* a config gives the architecture; sequence, batch and the
         * conventions are training choices */
        cfg = m;
        for (int k = 0; k < FC_IK_COUNT; k++)
            if (k != FC_IK_SEQ && k != FC_IK_BATCH && k != FC_IK_RECOMPUTE && k != FC_IK_CAUSAL)
                keys |= FC_IK_BIT(k);
    }
    for (size_t i = 0; i < NDEFS; i++) {
        if (!(o->set & (1ull << i)) || defs[i].kind == K_CONFIG)
            continue;
        memcpy((char *)&m + defs[i].off, (const char *)&o->flags + defs[i].off,
               field_size(&defs[i]));
        if (defs[i].key >= 0) /* the window flags: nothing the stream could say */
            keys |= FC_IK_BIT(defs[i].key);
    }
    if (layers_rule(o, &cfg, &m, err, n) != 0)
        return -1;
    drop_moe_if_dense(&m);
    window_rule(o, &m);
    *out = m;
    if (given != NULL)
        *given = keys;
    return 0;
}

int fc_model_opts_overlay(const fc_model_opts *o, fc_model *base, char *err, size_t n)
{
    fc_model m = *base, cfg;
    memset(&cfg, 0, sizeof cfg);
    if (o->config != NULL) {
        fc_model c;
        memset(&c, 0, sizeof c);
        unsigned found = 0;
        if (fc_hfconfig_read(o->config, &c, &found, err, n) != 0 ||
            text_part_gaps(o, &c, found, err, n) != 0)
            return -1;
        c.seq = m.seq, c.batch = m.batch, c.recompute = m.recompute, c.causal = m.causal;
        m = c; /* the config's architecture, the base's training choices */
        cfg = c;
    }
    for (size_t i = 0; i < NDEFS; i++) {
        if (!(o->set & (1ull << i)) || defs[i].kind == K_CONFIG)
            continue;
        memcpy((char *)&m + defs[i].off, (const char *)&o->flags + defs[i].off,
               field_size(&defs[i]));
    }
    if (layers_rule(o, &cfg, &m, err, n) != 0)
        return -1;
    drop_moe_if_dense(&m);
    window_rule(o, &m);
    *base = m;
    return 0;
}

/* A size flag for a kind the model has none of (--shared-experts without
 * experts, --mamba-heads without M layers) would change nothing: refused
 * by name rather than dropped, since it says the user meant another model. */
static int unused_flags(const fc_model_opts *o, const fc_model *m, char *err, size_t n)
{
    static const struct {
        const char *flag;
        int kind; /* 0 MoE, 1 MTP, 2 gated delta-net, 3 Mamba */
    } deps[] = {{"--topk", 0},          {"--moe-ffn", 0},       {"--shared-experts", 0},
                {"--shared-ffn", 0},    {"--moe-every", 0},     {"--moe-first-dense", 0},
                {"--mtp-block", 1},     {"--gdn-key-heads", 2}, {"--gdn-value-heads", 2},
                {"--gdn-key-dim", 2},   {"--gdn-value-dim", 2}, {"--gdn-chunk", 2},
                {"--mamba-version", 3}, {"--mamba-heads", 3},   {"--mamba-head-dim", 3},
                {"--mamba-state", 3},   {"--mamba-groups", 3},  {"--mamba-chunk", 3},
                {"--mamba-inner", 3},   {"--mamba-dt-rank", 3}};
    static const char *const needs[] = {"--experts (a mixture of experts)", "--mtp-layers",
                                        "gated delta-net layers (G in --layer-pattern)",
                                        "Mamba layers (M in --layer-pattern)"};
    int has[] = {m->experts > 0, m->mtp_layers > 0, strchr(m->mixers, FC_MIX_GDN) != NULL,
                 strchr(m->mixers, FC_MIX_MAMBA) != NULL};
    for (size_t i = 0; i < sizeof deps / sizeof deps[0]; i++) {
        size_t k = flag_index(deps[i].flag);
        if (strcmp(defs[k].name, deps[i].flag) != 0 || !(o->set & (1ull << k)) || has[deps[i].kind])
            continue;
        snprintf(err, n, "%s needs %s: without it the flag changes nothing", deps[i].flag,
                 needs[deps[i].kind]);
        return -1;
    }
    return 0;
}

int fc_model_opts_finish(const fc_model_opts *o, fc_model *out, char *err, size_t n)
{
    fc_model m;
    if (fc_model_opts_collect(o, &m, NULL, err, n) != 0 || unused_flags(o, &m, err, n) != 0 ||
        fc_model_check(&m, err, n) != 0)
        return -1;
    *out = m;
    return 0;
}

const char *fc_model_flags_help(void)
{
    return "model (a --config file is the base; flags override it):\n"
           "  --config FILE          Hugging Face config.json (architecture only)\n"
           "  --layers L --hidden H --heads A --vocab V\n"
           "  --kv-heads G           key/value heads (GQA; default A)\n"
           "  --head-dim D           per-head width (default H/A)\n"
           "  --ffn F                MLP width (default 4H)\n"
           "  --swiglu | --no-swiglu gated MLP, 3 matrices (default plain, 2)\n"
           "  --tied-embeddings | --untied-embeddings  (parameter count only)\n"
           "  --experts E --topk K   mixture of experts\n"
           "  --moe-ffn F            width of one expert (default --ffn)\n"
           "  --shared-experts N --shared-ffn F  always-on experts (width default --moe-ffn)\n"
           "  --moe-every N          MoE on layers i % N == 0 (default every layer)\n"
           "  --moe-first-dense K    the first K layers stay dense\n"
           "training:\n"
           "  --seq S --batch B      sequence length; sequences per iteration, all GPUs\n"
           "  --recompute none|selective|full   (default none)\n"
           "  --causal-attention full|half      (default full: papers, Megatron-LM < 2025-03)\n"
           "  --sliding-window W     a query attends to at most W keys (0: none; config: sliding_window)\n"
           "  --window-layers N      ... on N layers (default all; config: the family's rule)\n"
           "layer kinds (docs/formula.md; a --config sets them from the family's fields):\n"
           "  --layer-pattern P      each layer's mixer, one letter per layer, repeated over\n"
           "                         --layers: A attention, S sliding window, C chunked,\n"
           "                         G gated delta-net, M Mamba, - none (MLP-only layer)\n"
           "  --mlp-pattern P        each layer's MLP: D dense, E mixture of experts, - none\n"
           "  --attn-chunk C         chunked attention (C layers): keys within the chunk of C\n"
           "  --kv-lora-rank R --qk-nope-dim D --qk-rope-dim D --v-head-dim D [--q-lora-rank R]\n"
           "                         multi-latent attention (0 for --q-lora-rank: Q direct;\n"
           "                         --kv-lora-rank 0: off)\n"
           "  --attn-output-gate | --no-attn-output-gate\n"
           "                         Q projection twice as wide: a sigmoid output gate\n"
           "  --mtp-layers N         multi-token prediction depths (projection 2H -> H,\n"
           "                         one block and the shared logits each)\n"
           "  --mtp-block XY         the MTP block's mixer and MLP letters (default A and the\n"
           "                         last layer's MLP)\n"
           "  --gdn-key-heads N --gdn-value-heads N --gdn-key-dim D --gdn-value-dim D\n"
           "  --gdn-chunk C          gated delta-net (G layers); chunk default 64\n"
           "  --mamba-version 1|2    M layers: Mamba-2 SSD (default) or Mamba-1\n"
           "  --mamba-heads N --mamba-head-dim P --mamba-state N --mamba-chunk Q\n"
           "  [--mamba-groups G]     Mamba-2 (d_inner = heads x head dim; groups default 1)\n"
           "  --mamba-inner D --mamba-state N --mamba-dt-rank R   Mamba-1\n";
}

/* ---- utilization flags ---- */

void fc_util_opts_init(fc_util_opts *u) { memset(u, 0, sizeof *u); }

int fc_util_flag(fc_util_opts *u, const char *flag, const char *value, char *err, size_t n)
{
    static const char *const names[] = {"--iter-time", "--gpus", "--gpu", "--dtype",
                                        "--peak-tflops"};
    const char *eq = strchr(flag, '=');
    size_t len = eq ? (size_t)(eq - flag) : strlen(flag);
    int which = -1;
    for (int i = 0; i < 5; i++)
        if (strlen(names[i]) == len && strncmp(names[i], flag, len) == 0)
            which = i;
    if (which < 0)
        return 0;
    const char *v = eq ? eq + 1 : value;
    if (v == NULL || *v == '\0') {
        snprintf(err, n, "%s needs a value", names[which]);
        return -1;
    }
    uint64_t g;
    int bad = 0;
    switch (which) {
    case 0: bad = fc_parse_double(v, 1e-9, 1e9, &u->iter_time); break;
    case 1:
        bad = fc_parse_u64(v, 100000000, &g) != 0 || g == 0;
        if (!bad)
            u->gpus = (int64_t)g;
        break;
    case 2: u->gpu = v; break;
    case 3: u->dtype = v; break;
    default: bad = fc_parse_double(v, 1e-6, 1e9, &u->peak_tflops); break;
    }
    if (bad) {
        snprintf(err, n, "bad value '%s' for %s (%s)", v, names[which],
                 which == 1 ? "a positive integer" : "a positive number");
        return -1;
    }
    return eq ? 1 : 2;
}

static int resolve_gpu(const fc_util_opts *u, double *peak, char *err, size_t n)
{
    const fc_peak_device *d = fc_peak_find(u->gpu);
    if (d == NULL) {
        snprintf(err, n, "unknown GPU '%s' (pass --peak-tflops X instead)", u->gpu);
        return -1;
    }
    int dt = fc_dtype_from_name(u->dtype);
    if (dt == FC_DT_UNKNOWN) {
        snprintf(err, n, "unknown --dtype '%s' (fp32, tf32, fp16, bf16, fp8, int8, ...)",
                 u->dtype);
        return -1;
    }
    *peak = fc_peak_flops(d, dt);
    if (!(*peak > 0)) {
        snprintf(err, n, "no dense %s peak for %s in the table (pass --peak-tflops X)",
                 fc_dtype_name(dt), d->display);
        return -1;
    }
    return 0;
}

int fc_util_opts_peak(const fc_util_opts *u, double *peak_flops, char *err, size_t n)
{
    *peak_flops = 0;
    int has_gpu = u->gpu != NULL, has_peak = u->peak_tflops > 0;
    if (u->iter_time <= 0) {
        if (u->gpus || has_gpu || has_peak || u->dtype != NULL) {
            snprintf(err, n, "--gpus, --gpu, --dtype and --peak-tflops need --iter-time");
            return -1;
        }
        return 0;
    }
    if (u->gpus <= 0) {
        snprintf(err, n, "--iter-time needs --gpus N (GPUs the batch runs on)");
        return -1;
    }
    if (has_gpu == has_peak) {
        snprintf(err, n, "--iter-time needs the peak: --gpu NAME --dtype DTYPE, or "
                         "--peak-tflops X (one of them)");
        return -1;
    }
    if (has_peak) {
        if (u->dtype != NULL) {
            snprintf(err, n, "--dtype goes with --gpu, not with --peak-tflops");
            return -1;
        }
        *peak_flops = u->peak_tflops * 1e12;
        return 0;
    }
    if (u->dtype == NULL) {
        snprintf(err, n, "--gpu needs --dtype (the precision the GEMMs run in, e.g. bf16)");
        return -1;
    }
    return resolve_gpu(u, peak_flops, err, n);
}

const char *fc_util_flags_help(void)
{
    return "utilization (all optional; together they give MFU and HFU):\n"
           "  --iter-time SECONDS    one iteration, wall clock\n"
           "  --gpus N               GPUs sharing the batch\n"
           "  --gpu NAME --dtype DT  peak from the table (e.g. --gpu h100-sxm --dtype bf16)\n"
           "  --peak-tflops X        or the dense peak per GPU, in TFLOP/s\n";
}
