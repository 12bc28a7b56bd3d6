/* SPDX-License-Identifier: Apache-2.0 */
/* merge_infer.c - the job's model from the ranks' forward profiles
 * (analysis/infer.h): each rank's structure is read as its report is
 * taken; then the ranks are combined where the reports show the layout.
 *
 * Every rank must run layers of one shape. Ranks that ran the same forward
 * (same layers, logits, FLOPs) are one group. One group: the ranks are
 * taken as data-parallel replicas - the job runs each forward once per rank.
 * Several groups of equal size, one with the logits: pipeline stages, each
 * on as many data-parallel ranks - the job's layers are the stages' summed.
 * Tensor parallelism cannot be told from the shapes alone (each shard looks
 * like a narrower model), and the output says so. The combined model is
 * then one forward over the whole job (tokens of all replicas, layers of all
 * stages), resolved against the job's aligned steps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

static fc_infer_work *work; /* one at a time: reports are taken in order */

int fc_merge_infer_rank(fc_merge_rank *s, const fc_report *r)
{
    if (!r->has_profile || r->profile.n_gemms == 0)
        return 0;
    if (work == NULL && (work = malloc(fc_infer_work_size())) == NULL)
        return -1;
    if ((s->facts = calloc(1, sizeof *s->facts)) == NULL)
        return -1;
    fc_fwd_profile p = {r->profile.gemms, r->profile.n_gemms, r->profile.truncated,
                        r->profile.flops};
    fc_infer_shapes(&p, work, s->facts);
    return 0;
}

/* Layers of one shape (everything but how many, and the logits). */
/* The 2025-26 layer kinds (infer_kinds.c) read alike: multi-latent
 * attention, multi-token prediction, chunks, gated delta-net and Mamba
 * sizes, the per-layer patterns. */
static int same_kinds(const fc_infer_facts *a, const fc_infer_facts *b)
{
    return a->kinds == b->kinds && a->mla == b->mla && a->q_lora_rank == b->q_lora_rank &&
           a->kv_lora_rank == b->kv_lora_rank && a->qk_nope_dim == b->qk_nope_dim &&
           a->qk_rope_dim == b->qk_rope_dim && a->v_head_dim == b->v_head_dim &&
           a->attn_gate == b->attn_gate && a->mtp_layers == b->mtp_layers &&
           strcmp(a->mtp_block, b->mtp_block) == 0 && a->attn_chunk == b->attn_chunk &&
           a->gdn_k_heads == b->gdn_k_heads && a->gdn_v_heads == b->gdn_v_heads &&
           a->gdn_k_dim == b->gdn_k_dim && a->gdn_v_dim == b->gdn_v_dim &&
           a->gdn_chunk == b->gdn_chunk && a->mamba_version == b->mamba_version &&
           a->mamba_heads == b->mamba_heads && a->mamba_head_dim == b->mamba_head_dim &&
           a->mamba_state == b->mamba_state && a->mamba_groups == b->mamba_groups &&
           a->mamba_chunk == b->mamba_chunk && a->mamba_inner == b->mamba_inner &&
           a->mamba_dt_rank == b->mamba_dt_rank && strcmp(a->mixers, b->mixers) == 0 &&
           strcmp(a->mlps, b->mlps) == 0;
}

static int same_layers(const fc_infer_facts *a, const fc_infer_facts *b)
{
    return a->hidden == b->hidden && a->q_width == b->q_width && a->kv_width == b->kv_width &&
           a->core == b->core && a->seq == b->seq && a->head_dim == b->head_dim &&
           a->core_count == b->core_count && a->ffn == b->ffn && a->swiglu == b->swiglu &&
           a->tokens == b->tokens && a->moe == b->moe && a->experts == b->experts &&
           a->moe_ffn == b->moe_ffn && a->routed == b->routed &&
           a->shared_experts == b->shared_experts && a->shared_ffn == b->shared_ffn &&
           a->attn_layers * b->layers == b->attn_layers * a->layers && /* fused alike */
           same_kinds(a, b);
}

typedef struct group {
    const fc_infer_facts *f;
    size_t n;
} group;

static void refuse(fc_merge *m, const char *fmt, long rank, const char *why)
{
    m->model.state = FC_MERGE_MODEL_NONE;
    snprintf(m->model.why, sizeof m->model.why, fmt, rank, why);
}

/* The ranks in groups of one forward; 0, or -1 with the reason set. */
static int grouping(fc_merge *m, group *g, size_t *ng)
{
    *ng = 0;
    for (size_t i = 0; i < m->n_used; i++) {
        const fc_merge_rank *s = &m->ranks[i];
        if (s->facts == NULL) {
            refuse(m, "rank %ld has no forward profile%s", s->rank, "");
            return -1;
        }
        if (!s->facts->ok) {
            refuse(m, "rank %ld: %s", s->rank, s->facts->why);
            return -1;
        }
        if (!same_layers(s->facts, m->ranks[0].facts)) {
            refuse(m,
                   "rank %ld ran layers of another shape than rank 0%s (tensor-parallel shards "
                   "of different widths, or another model): no layout explains it",
                   s->rank, "");
            return -1;
        }
        size_t k = 0;
        while (k < *ng &&
               !(g[k].f->layers == s->facts->layers && g[k].f->vocab == s->facts->vocab &&
                 g[k].f->forward_flops == s->facts->forward_flops))
            k++;
        if (k == *ng)
            g[(*ng)++] = (group){s->facts, 0};
        g[k].n++;
    }
    return 0;
}

/* One forward of the whole job: every replica's tokens, every stage's
 * layers; 0, or -1 with the reason set. */
static int combine(fc_merge *m, const group *g, size_t ng, fc_infer_facts *job)
{
    size_t dp = g[0].n, with_logits = 0, logits = 0;
    for (size_t k = 0; k < ng; k++) {
        if (g[k].n != dp) {
            refuse(m, "the ranks run %ld different forwards on unequal numbers of ranks%s",
                   (long)ng, ": not pipeline stages over data-parallel replicas");
            return -1;
        }
        if (g[k].f->vocab > 0)
            with_logits++, logits = k;
    }
    if (ng > 1 && g[0].f->kinds) {
        refuse(m, "the ranks run %ld different forwards of a model with layer kinds%s", (long)ng,
               " (multi-latent attention, hybrid or MTP layers): pipeline stages of such a model "
               "are not joined; give the model flags");
        return -1;
    }
    if (ng > 1 && with_logits != 1) {
        refuse(m, "the ranks run %ld different forwards, %s", (long)ng,
               with_logits ? "several with logits: not one pipeline" : "none with logits");
        return -1;
    }
    *job = *g[logits].f;
    job->layers = 0;
    job->attn_layers = 0;
    job->forward_flops = 0;
    job->extra_flops = 0;
    for (size_t k = 0; k < ng; k++) {
        job->layers = fc_infer_add(job->layers, g[k].f->layers);
        job->attn_layers = fc_infer_add(job->attn_layers, g[k].f->attn_layers);
        job->forward_flops =
            fc_u128_sat_add(job->forward_flops, fc_u128_sat_mul(dp, g[k].f->forward_flops));
        job->extra_flops =
            fc_u128_sat_add(job->extra_flops, fc_u128_sat_mul(dp, g[k].f->extra_flops));
    }
    if (ng > 1 && job->moe && (job->moe_every != 1 || job->moe_first_dense != 0)) {
        job->moe_every = job->moe_first_dense = -1; /* each stage's pattern is its own */
    }
    job->tokens = fc_infer_mul(job->tokens, (int64_t)dp);
    job->core_count = fc_infer_mul(job->core_count, (int64_t)dp);
    job->routed = fc_infer_mul(job->routed, (int64_t)dp);
    m->model.data_parallel = (long)dp;
    m->model.stages = (long)ng;
    return 0;
}

static fc_u128 median_forward(const fc_merge *m)
{
    fc_u128 *f = malloc((m->n_steps ? m->n_steps : 1) * sizeof *f);
    if (f == NULL)
        return 0;
    for (size_t i = 0; i < m->n_steps; i++)
        f[i] = m->steps[i].forward;
    fc_u128 r = fc_median_u128(f, m->n_steps);
    free(f);
    return r;
}

int fc_merge_infer(fc_merge *m)
{
    fc_merge_model *mm = &m->model;
    free(work);
    work = NULL;
    if (m->n_used == 0)
        return 0;
    group *g = calloc(m->n_used, sizeof *g);
    fc_infer_facts *job = calloc(1, sizeof *job);
    size_t ng;
    int rc = g == NULL || job == NULL ? -1 : 0;
    if (rc == 0 && grouping(m, g, &ng) == 0 && combine(m, g, ng, job) == 0) {
        fc_infer_iter it = {.have = m->n_steps > 0,
                            .flops = m->flops_per_iteration,
                            .recompute_flops = m->recompute_per_iteration,
                            .attention_excess_flops = m->xs_per_iteration,
                            .ranks = 1};
        it.forward_flops = it.have ? median_forward(m) : 0;
        fc_infer_resolve(job, NULL, &it, &mm->inf);
        mm->state = mm->inf.complete ? FC_MERGE_MODEL_COMPLETE : FC_MERGE_MODEL_PARTIAL;
        if (mm->inf.complete) {
            fc_formula(&mm->inf.model, &mm->f);
            mm->formula_mfu = m->peak_flops > 0 && m->median_step_seconds > 0
                                  ? fc_u128_to_double(mm->f.model_flops_per_iteration) /
                                        (m->peak_flops * (double)m->n_used * m->median_step_seconds)
                                  : NAN;
        }
    }
    free(g);
    free(job);
    return rc;
}

const char *fc_merge_layout_words(const fc_merge *m, char *buf, size_t size)
{
    const fc_merge_model *mm = &m->model;
    if (mm->stages <= 1)
        snprintf(buf, size,
                 "every rank ran the same forward: taken as %ld data-parallel replicas "
                 "(tensor-parallel shards would look the same; give the model flags to "
                 "'flopcount report' then)",
                 mm->data_parallel);
    else
        snprintf(buf, size,
                 "%ld pipeline stages of one layer shape, each on %ld data-parallel "
                 "rank%s, the last with the logits: layers summed over the stages",
                 mm->stages, mm->data_parallel, mm->data_parallel == 1 ? "" : "s");
    return buf;
}
