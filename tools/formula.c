/* SPDX-License-Identifier: Apache-2.0 */
/* formula.c - 'flopcount formula': analytic model and hardware FLOPs of a
 * decoder-only transformer, the 6N and PaLM forms beside them, parameter
 * counts, and MFU/HFU when an iteration time and a peak are given. The
 * arithmetic is analysis/formula.c; this file parses and prints. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/formula.h"
#include "../analysis/io/hfconfig.h"
#include "../analysis/jsonw.h"
#include "../analysis/peak.h"
#include "../analysis/utilization.h"
#include "model_flags.h"
#include "tools.h"

#define SCHEMA "flopcount.formula/1"

typedef struct job {
    fc_model m;
    fc_flops f;
    fc_util_opts uo;
    double peak;   /* FLOP/s per GPU; 0: no utilization */
    fc_util util;
    int json;
    int towers; /* --config has vision or audio towers: its language model only */
    char defaults[768]; /* --config: fields read at the class's default, a line each */
} job;

static void usage(FILE *out)
{
    fputs("usage: flopcount formula --layers L --hidden H --heads A --vocab V --seq S --batch B\n"
          "                         [options] [--json]\n"
          "Exact FLOPs per iteration of a decoder-only transformer (forward + backward).\n\n",
          out);
    fputs(fc_model_flags_help(), out);
    fputs(fc_util_flags_help(), out);
    fputs("output:\n  --json                 machine-readable, exact integers\n", out);
}

static int bad(const char *msg)
{
    fprintf(stderr, "flopcount formula: %s\n", msg);
    return 2;
}

/* 0 when parsed; 1 for --help (exit 0); 2 on a usage error (printed). */
static int parse(int argc, char **argv, job *j)
{
    char err[256];
    fc_model_opts mo;
    fc_model_opts_init(&mo);
    fc_util_opts_init(&j->uo);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        }
        if (strcmp(a, "--json") == 0) {
            j->json = 1;
            continue;
        }
        int used = fc_model_flag(&mo, a, next, err, sizeof err);
        if (used == 0)
            used = fc_util_flag(&j->uo, a, next, err, sizeof err);
        if (used < 0)
            return bad(err);
        if (used == 0) {
            snprintf(err, sizeof err, "unknown option '%s' (try --help)", a);
            return bad(err);
        }
        i += used - 1;
    }
    if (fc_model_opts_finish(&mo, &j->m, err, sizeof err) != 0)
        return bad(err);
    if (mo.config != NULL) { /* read once more for what the model does not hold */
        fc_model c;
        unsigned found = 0;
        memset(&c, 0, sizeof c);
        if (fc_hfconfig_read_noted(mo.config, &c, &found, j->defaults, sizeof j->defaults, err,
                                   sizeof err) != 0)
            return bad(err);
        j->towers = (found & FC_HF_TOWERS) != 0;
    }
    if (fc_util_opts_peak(&j->uo, &j->peak, err, sizeof err) != 0)
        return bad(err);
    return 0;
}

/* ---- JSON ---- */

/* The layer kinds beyond a plain transformer's, where the model has them. */
static void json_kinds(fc_jw *w, const fc_model *m)
{
    fc_layer_counts c;
    fc_model_layer_counts(m, &c);
    fc_jw_str(w, "layer_pattern", m->mixers[0] ? m->mixers : NULL);
    fc_jw_str(w, "mlp_pattern", m->mlps[0] ? m->mlps : NULL);
    fc_jw_obj_begin(w, "layers_by_kind");
    fc_jw_i64(w, "attention", c.attention);
    fc_jw_i64(w, "sliding", c.sliding);
    fc_jw_i64(w, "chunked", c.chunked);
    fc_jw_i64(w, "gated_delta_net", c.gdn);
    fc_jw_i64(w, "mamba", c.mamba);
    fc_jw_i64(w, "no_mixer", c.no_mixer);
    fc_jw_i64(w, "dense_mlp", c.dense);
    fc_jw_i64(w, "moe_mlp", c.moe);
    fc_jw_i64(w, "no_mlp", c.no_mlp);
    fc_jw_obj_end(w);
    fc_jw_bool(w, "attn_output_gate", m->attn_gate);
    fc_jw_i64(w, "attn_chunk", m->attn_chunk);
    if (fc_model_mla(m)) {
        fc_jw_obj_begin(w, "mla");
        fc_jw_i64(w, "q_lora_rank", m->q_lora_rank);
        fc_jw_i64(w, "kv_lora_rank", m->kv_lora_rank);
        fc_jw_i64(w, "qk_nope_dim", m->qk_nope_dim);
        fc_jw_i64(w, "qk_rope_dim", m->qk_rope_dim);
        fc_jw_i64(w, "v_head_dim", m->v_head_dim);
        fc_jw_obj_end(w);
    }
    if (c.gdn > 0 || (m->mtp_layers > 0 && fc_model_mtp_mixer(m) == FC_MIX_GDN)) {
        fc_jw_obj_begin(w, "gated_delta_net");
        fc_jw_i64(w, "key_heads", m->gdn_k_heads);
        fc_jw_i64(w, "value_heads", m->gdn_v_heads);
        fc_jw_i64(w, "key_dim", m->gdn_k_dim);
        fc_jw_i64(w, "value_dim", m->gdn_v_dim);
        fc_jw_i64(w, "chunk", fc_model_gdn_chunk(m));
        fc_jw_obj_end(w);
    }
    if (c.mamba > 0 || (m->mtp_layers > 0 && fc_model_mtp_mixer(m) == FC_MIX_MAMBA)) {
        int v1 = fc_model_mamba_version(m) == 1;
        fc_jw_obj_begin(w, "mamba");
        fc_jw_i64(w, "version", fc_model_mamba_version(m));
        fc_jw_i64(w, "inner", fc_model_mamba_inner(m));
        fc_jw_i64(w, "state", m->mamba_state);
        if (v1) {
            fc_jw_i64(w, "dt_rank", m->mamba_dt_rank);
        } else {
            fc_jw_i64(w, "heads", m->mamba_heads);
            fc_jw_i64(w, "head_dim", m->mamba_head_dim);
            fc_jw_i64(w, "groups", fc_model_mamba_groups(m));
            fc_jw_i64(w, "chunk", m->mamba_chunk);
        }
        fc_jw_obj_end(w);
    }
    fc_jw_i64(w, "mtp_layers", m->mtp_layers);
    if (m->mtp_layers > 0) {
        char b[3] = {fc_model_mtp_mixer(m), fc_model_mtp_mlp(m), 0};
        fc_jw_str(w, "mtp_block", b);
    }
}

static void json_model(fc_jw *w, const job *j)
{
    const fc_model *m = &j->m;
    fc_jw_obj_begin(w, "model");
    fc_jw_i64(w, "layers", m->layers);
    fc_jw_i64(w, "hidden", m->hidden);
    fc_jw_i64(w, "heads", m->heads);
    if (fc_model_mla(m)) { /* not used: the latent ranks and widths below */
        fc_jw_null(w, "kv_heads");
        fc_jw_null(w, "head_dim");
    } else {
        fc_jw_i64(w, "kv_heads", fc_model_kv_heads(m));
        fc_jw_i64(w, "head_dim", fc_model_head_dim(m));
    }
    fc_jw_i64(w, "ffn", fc_model_ffn(m));
    fc_jw_bool(w, "swiglu", m->swiglu);
    fc_jw_i64(w, "vocab", m->vocab);
    fc_jw_i64(w, "seq", m->seq);
    fc_jw_i64(w, "batch", m->batch);
    fc_jw_bool(w, "tied_embeddings", !m->untied_embeddings);
    fc_jw_i64(w, "sliding_window", m->window);
    fc_jw_i64(w, "window_layers", fc_model_window_layers(m));
    fc_jw_i64(w, "experts", m->experts);
    if (m->experts > 0) {
        fc_jw_i64(w, "topk", m->topk);
        fc_jw_i64(w, "moe_ffn", fc_model_moe_ffn(m));
        fc_jw_i64(w, "shared_experts", m->shared_experts);
        fc_jw_i64(w, "shared_ffn", m->shared_experts ? fc_model_shared_ffn(m) : 0);
        fc_jw_i64(w, "moe_every", m->moe_every > 1 ? m->moe_every : 1);
        fc_jw_i64(w, "moe_first_dense", m->moe_first_dense);
        fc_jw_i64(w, "moe_layers", j->f.moe_layers);
    }
    json_kinds(w, m);
    fc_jw_obj_end(w);
}

/* The fields a --config left out and the class's default gave, one
 * string each. */
static void json_defaults(fc_jw *w, const char *defaults)
{
    char line[256];
    fc_jw_arr_begin(w, "config_defaults");
    for (const char *p = defaults; *p;) {
        size_t n = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        fc_jw_str(w, NULL, line);
        p += n + (p[n] == '\n');
    }
    fc_jw_arr_end(w);
}

static void json_conventions(fc_jw *w, const fc_model *m, int towers)
{
    fc_jw_obj_begin(w, "conventions");
    fc_jw_str(w, "causal_attention", fc_causal_name(m->causal));
    fc_jw_str(w, "recompute", fc_recompute_name(m->recompute));
    fc_jw_str(w, "backward", "2x forward (data and weight gradients)");
    if (towers)
        fc_jw_str(w, "config",
                  "the language model of a multimodal config; its vision and audio towers are "
                  "not counted");
    fc_jw_str(w, "mlp", m->swiglu ? "gated, 3 matrices" : "plain, 2 matrices");
    fc_jw_str(w, "attention_core", m->window > 0
                                       ? "query heads; QK^T and attention*V; min(seq, window) keys per "
                                         "query on the windowed layers"
                                       : "query heads; QK^T and attention*V");
    fc_jw_str(w, "logits", "counted; not recomputed");
    fc_jw_str(w, "mla", "the training (non-absorbed) form: K and V up-projected from the latent, "
                        "QK^T of nope+rope, AV of v_head_dim");
    fc_jw_str(w, "scan", "the chunked scans' matrix products (q x q within a chunk, halved "
                         "under causal half; against the state); elementwise work not counted");
    fc_jw_str(w, "mtp", "per depth: projection 2h -> h, one block, the shared logits, on all "
                        "tokens; not recomputed but for the block under full recompute");
    fc_jw_str(w, "moe_router", "counted: 2*tokens*hidden*experts per MoE layer");
    fc_jw_str(w, "params", "GEMM weights, embeddings (output counted again only if untied), "
                           "norm scales (2 per layer + 1); no biases, no position embeddings");
    fc_jw_str(w, "six_n", "6 * active params * tokens");
    fc_jw_obj_end(w);
}

static void json_flops(fc_jw *w, const fc_flops *f)
{
    fc_jw_u128(w, "tokens_per_iteration", f->tokens_per_iteration);
    fc_jw_u128(w, "model_flops_per_iteration", f->model_flops_per_iteration);
    fc_jw_u128(w, "hardware_flops_per_iteration", f->hardware_flops_per_iteration);
    fc_jw_u128(w, "model_flops_per_token", f->model_flops_per_token);
    fc_jw_obj_begin(w, "hardware_flops_by_recompute");
    for (int r = 0; r < 3; r++)
        fc_jw_u128(w, fc_recompute_name(r), f->hardware_by_recompute[r]);
    fc_jw_obj_end(w);
    fc_jw_u128(w, "forward_flops_per_iteration", f->forward_flops_per_iteration);
    fc_jw_obj_begin(w, "forward_breakdown");
    fc_jw_u128(w, "attention_linear", f->attention_linear_forward);
    fc_jw_u128(w, "attention_core", f->attention_core_forward);
    fc_jw_u128(w, "mlp", f->mlp_forward);
    fc_jw_u128(w, "router", f->router_forward);
    fc_jw_u128(w, "logits", f->logits_forward);
    fc_jw_u128(w, "mixer_linear", f->mixer_linear_forward);
    fc_jw_u128(w, "scan", f->scan_forward);
    fc_jw_u128(w, "mtp_proj", f->mtp_proj_forward);
    fc_jw_u128(w, "mtp_logits", f->mtp_logits_forward);
    fc_jw_obj_end(w);
    fc_jw_u128(w, "params", f->params);
    fc_jw_u128(w, "params_no_embedding", f->params_no_embedding);
    fc_jw_u128(w, "params_active", f->params_active);
    fc_jw_u128(w, "params_active_no_embedding", f->params_active_no_embedding);
    fc_jw_u128(w, "six_n_flops_per_iteration", f->six_n_flops_per_iteration);
    fc_jw_u128(w, "six_n_no_embedding_flops_per_iteration", f->six_n_no_embedding_per_iteration);
    fc_jw_u128(w, "palm_flops_per_iteration", f->palm_flops_per_iteration);
}

/* The table entry --gpu matched ("h100" is the SXM part): shown so that a
 * wrong match is visible. */
static const char *matched_gpu(const job *j)
{
    const fc_peak_device *d = j->uo.gpu ? fc_peak_find(j->uo.gpu) : NULL;
    return d != NULL ? d->display : NULL;
}

static int print_json(const job *j)
{
    fc_jw w;
    fc_jw_init(&w, STDOUT_FILENO, 1);
    fc_jw_obj_begin(&w, NULL);
    fc_jw_str(&w, "schema", SCHEMA);
    json_model(&w, j);
    json_conventions(&w, &j->m, j->towers);
    json_defaults(&w, j->defaults);
    json_flops(&w, &j->f);
    if (j->peak > 0) {
        if (j->uo.gpu != NULL) {
            fc_jw_str(&w, "gpu", j->uo.gpu);
            fc_jw_str(&w, "gpu_matched", matched_gpu(j));
            fc_jw_str(&w, "dtype", j->uo.dtype);
        }
        fc_util_json(&w, &j->util);
    }
    fc_jw_obj_end(&w);
    if (fc_jw_finish(&w) != 0 || write(STDOUT_FILENO, "\n", 1) != 1) {
        perror("flopcount formula: writing the output");
        return 1;
    }
    return 0;
}

/* ---- text ---- */

/* "44040192  (4.4e+07)": exact, then a size the eye can take in. */
static void line(const char *label, fc_u128 v)
{
    char s[FC_U128_DIGITS];
    printf("  %-34s %26s", label, fc_u128_to_str(v, s));
    if (v >= 1000000)
        printf("  (%.3g)", fc_u128_to_double(v));
    printf("\n");
}

/* A comparison form, with its ratio to the model FLOPs. */
static void line_vs(const char *label, fc_u128 v, fc_u128 model)
{
    char s[FC_U128_DIGITS];
    printf("  %-34s %26s  (%.3g, %.4fx model)\n", label, fc_u128_to_str(v, s),
           fc_u128_to_double(v), fc_u128_to_double(v) / fc_u128_to_double(model));
}

/* "a=4 kv=4 d=16", or the multi-latent attention's ranks and widths. */
static void attention_words(const fc_model *m, char *out, size_t size)
{
    if (fc_model_mla(m))
        snprintf(out, size, "a=%lld MLA(q_lora=%lld kv_lora=%lld d_qk=%lld+%lld d_v=%lld)",
                 (long long)m->heads, (long long)m->q_lora_rank, (long long)m->kv_lora_rank,
                 (long long)m->qk_nope_dim, (long long)m->qk_rope_dim, (long long)m->v_head_dim);
    else
        snprintf(out, size, "a=%lld kv=%lld d=%lld%s", (long long)m->heads,
                 (long long)fc_model_kv_heads(m), (long long)fc_model_head_dim(m),
                 m->attn_gate ? " gated-output" : "");
}

/* "24 Mamba, 4 attention": the nonzero counts, in a fixed order. */
static void kinds_words(const int64_t *n, const char *const *names, int k, char *out, size_t size)
{
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < k && o < size; i++)
        if (n[i] > 0)
            o += (size_t)snprintf(out + o, size - o, "%s%lld %s", o ? ", " : "", (long long)n[i],
                                  names[i]);
}

static void text_kinds(const fc_model *m)
{
    fc_layer_counts c;
    fc_model_layer_counts(m, &c);
    static const char *const mix_names[] = {"attention", "sliding-window", "chunked",
                                            "gated delta-net", "Mamba", "none"};
    static const char *const mlp_names[] = {"dense", "MoE", "none"};
    int64_t mix[] = {c.attention, c.sliding, c.chunked, c.gdn, c.mamba, c.no_mixer};
    int64_t mlp[] = {c.dense, c.moe, c.no_mlp};
    char a[200], b[120];
    if (m->mixers[0] || m->mlps[0]) {
        kinds_words(mix, mix_names, 6, a, sizeof a);
        kinds_words(mlp, mlp_names, 3, b, sizeof b);
        printf("layers      mixers: %s; MLPs: %s\n", a, b);
        if (m->mixers[0])
            printf("            --layer-pattern %.72s%s\n", m->mixers,
                   strlen(m->mixers) > 72 ? "..." : "");
        if (m->mlps[0])
            printf("            --mlp-pattern %.72s%s\n", m->mlps, strlen(m->mlps) > 72 ? "..." : "");
    }
    if (m->kv_lora_rank > 0)
        printf("mla         counted in the training (non-absorbed) form: K and V up-projected from the "
               "latent;\n            the absorbed form of inference kernels is not this count\n");
    if (c.chunked > 0)
        printf("chunked     attention within chunks of %lld keys on %lld of %lld layers\n",
               (long long)m->attn_chunk, (long long)c.chunked, (long long)m->layers);
    if (c.gdn > 0)
        printf("gdn         gated delta-net: %lld key heads of %lld, %lld value heads of %lld, "
               "chunk %lld\n",
               (long long)m->gdn_k_heads, (long long)m->gdn_k_dim, (long long)m->gdn_v_heads,
               (long long)m->gdn_v_dim, (long long)fc_model_gdn_chunk(m));
    if (c.mamba > 0 && fc_model_mamba_version(m) == 1)
        printf("mamba       Mamba-1: d_inner %lld, state %lld, dt rank %lld (scan elementwise)\n",
               (long long)m->mamba_inner, (long long)m->mamba_state, (long long)m->mamba_dt_rank);
    else if (c.mamba > 0)
        printf("mamba       Mamba-2: %lld heads of %lld (d_inner %lld), state %lld, %lld groups, "
               "chunk %lld\n",
               (long long)m->mamba_heads, (long long)m->mamba_head_dim,
               (long long)fc_model_mamba_inner(m), (long long)m->mamba_state,
               (long long)fc_model_mamba_groups(m), (long long)m->mamba_chunk);
    if (m->mtp_layers > 0)
        printf("mtp         %lld multi-token prediction depth%s: projection 2h->h, a %c%c block, "
               "the shared logits\n",
               (long long)m->mtp_layers, m->mtp_layers == 1 ? "" : "s", fc_model_mtp_mixer(m),
               fc_model_mtp_mlp(m));
}

static void text_model(const job *j)
{
    const fc_model *m = &j->m;
    char attn[160];
    attention_words(m, attn, sizeof attn);
    printf("model       l=%lld h=%lld %s ffn=%lld %s V=%lld%s\n", (long long)m->layers,
           (long long)m->hidden, attn, (long long)fc_model_ffn(m),
           m->swiglu ? "gated-MLP" : "plain-MLP", (long long)m->vocab,
           m->untied_embeddings ? " untied" : " tied");
    if (m->experts > 0) {
        printf("MoE         %lld experts, top-%lld, expert ffn %lld", (long long)m->experts,
               (long long)m->topk, (long long)fc_model_moe_ffn(m));
        if (m->shared_experts > 0)
            printf(", %lld shared of ffn %lld", (long long)m->shared_experts,
                   (long long)fc_model_shared_ffn(m));
        printf("; MoE in %lld of %lld layers\n", (long long)j->f.moe_layers,
               (long long)m->layers);
    }
    text_kinds(m);
    if (j->towers)
        printf("config      the language model of a multimodal config: its vision and audio towers "
               "are\n            not counted\n");
    for (const char *p = j->defaults; *p;) { /* what the file left out, read at the default */
        size_t n = strcspn(p, "\n");
        printf("config      %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    printf("iteration   s=%lld B=%lld sequences (all GPUs)\n", (long long)m->seq,
           (long long)m->batch);
    if (m->window > 0)
        printf("window      sliding window of %lld keys on %lld of %lld layers: %lld keys per query there%s\n",
               (long long)m->window, (long long)fc_model_window_layers(m), (long long)m->layers,
               (long long)fc_model_window_keys(m),
               m->window >= m->seq ? " (no fewer than without: the window is not shorter than s)" : "");
    printf("conventions causal attention %s%s, recompute %s, backward = 2x forward,\n"
           "            router and logits counted, logits not recomputed\n",
           fc_causal_name(m->causal),
           m->causal == FC_CAUSAL_HALF ? " (QK^T and AV halved, Megatron-LM since 2025-03)"
                                       : " (not halved, as the papers)",
           fc_recompute_name(m->recompute));
}

static void print_text(const job *j)
{
    const fc_flops *f = &j->f;
    char hw[64];
    text_model(j);
    printf("\nFLOPs per iteration\n");
    line("model (forward + backward)", f->model_flops_per_iteration);
    snprintf(hw, sizeof hw, "hardware (recompute %s)", fc_recompute_name(j->m.recompute));
    line(hw, f->hardware_flops_per_iteration);
    line("forward", f->forward_flops_per_iteration);
    line("  attention QKV + output proj", f->attention_linear_forward);
    line("  attention core (QK^T, AV)", f->attention_core_forward);
    line("  MLP / experts", f->mlp_forward);
    if (j->m.experts > 0)
        line("  router", f->router_forward);
    if (f->mixer_linear_forward)
        line("  Mamba / gated delta-net proj", f->mixer_linear_forward);
    if (f->scan_forward)
        line("  scans (chunked, matrix part)", f->scan_forward);
    if (f->mtp_proj_forward)
        line("  MTP projections 2h -> h", f->mtp_proj_forward);
    line("  logits", f->logits_forward);
    if (f->mtp_logits_forward)
        line("    of which the MTP depths'", f->mtp_logits_forward);
    line("tokens", f->tokens_per_iteration);
    line("model FLOPs per token", f->model_flops_per_token);
    printf("\nparameters (GEMM weights + embeddings + norm scales)\n");
    line("total", f->params);
    line("without embeddings", f->params_no_embedding);
    if (j->m.experts > 0)
        line("active per token", f->params_active);
    printf("\nfor comparison, per iteration\n");
    line_vs("6N", f->six_n_flops_per_iteration, f->model_flops_per_iteration);
    line_vs("6N without embeddings", f->six_n_no_embedding_per_iteration,
            f->model_flops_per_iteration);
    line_vs("PaLM 6N + 12*l*(a*d)*s per token", f->palm_flops_per_iteration,
            f->model_flops_per_iteration);
    if (j->peak > 0) {
        char buf[512];
        fc_util_text(&j->util, buf, sizeof buf);
        printf("\nutilization");
        if (j->uo.gpu != NULL)
            printf(" (peak of %s = %s, %s)", j->uo.gpu, matched_gpu(j), j->uo.dtype);
        printf("\n%s", buf);
    }
}

int fc_cmd_formula(int argc, char **argv)
{
    job j;
    memset(&j, 0, sizeof j);
    int rc = parse(argc, argv, &j);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    fc_formula(&j.m, &j.f);
    if (j.peak > 0 &&
        fc_util_compute(j.f.model_flops_per_iteration, j.f.hardware_flops_per_iteration,
                        j.f.tokens_per_iteration, j.uo.iter_time, j.uo.gpus, j.peak,
                        &j.util) != 0)
        return bad("cannot compute utilization from these values");
    if (j.json)
        return print_json(&j);
    print_text(&j);
    return 0;
}
