/* SPDX-License-Identifier: Apache-2.0 */
/* merge_steps.c - what 'flopcount merge' concludes across ranks: the
 * iterations every rank listed, aligned by index (a step lasts as long as
 * its slowest rank); the straggler; whether the ranks ran the same FLOPs;
 * cluster HFU/MFU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "run_figures.h"
#include "stats.h"

/* Step st (fresh from step_init) with rank r's iteration it added: the
 * FLOPs summed, the time of the slowest rank (the first, in rank order,
 * of those tied). */
static void step_add(fc_merge_step *st, const fc_merge_iter *it, long rank)
{
    if (!isnan(it->seconds) && (isnan(st->seconds) || it->seconds > st->seconds)) {
        st->seconds = it->seconds;
        st->slowest_rank = rank;
    }
    st->flops = fc_u128_sat_add(st->flops, it->flops);
    st->forward = fc_u128_sat_add(st->forward, it->forward);
    st->backward = fc_u128_sat_add(st->backward, it->backward);
    st->recompute = fc_u128_sat_add(st->recompute, it->recompute);
    st->xs = fc_u128_sat_add(st->xs, it->xs);
    st->ambiguous |= it->ambiguous;
    st->ambiguous_recompute |= it->ambiguous_recompute;
}

static void step_init(fc_merge_step *st, uint64_t index)
{
    memset(st, 0, sizeof *st);
    st->index = index;
    st->seconds = NAN;
    st->slowest_rank = -1;
}

/* The steps: the indices of the first rank's list that every merged rank
 * lists, each summed over the ranks in rank order. Rank by rank, each list
 * walked once beside the steps (both sorted by index, one entry an index):
 * 10,240 ranks are read in memory order, not looked up step by step. */
static void build_steps(fc_merge *m, unsigned char *keep)
{
    const fc_merge_rank *first = &m->ranks[0];
    size_t n = first->n_list;
    for (size_t i = 0; i < n; i++) {
        step_init(&m->steps[i], first->list[i].index);
        keep[i] = 1;
    }
    for (size_t r = 0; r < m->n_used; r++) {
        const fc_merge_rank *s = &m->ranks[r];
        size_t j = 0;
        for (size_t i = 0; i < n; i++) {
            if (!keep[i])
                continue;
            uint64_t index = m->steps[i].index;
            while (j < s->n_list && s->list[j].index < index)
                j++;
            if (j < s->n_list && s->list[j].index == index)
                step_add(&m->steps[i], &s->list[j], s->rank);
            else
                keep[i] = 0; /* some rank lacks it: no step */
        }
    }
    for (size_t i = 0; i < n; i++)
        if (keep[i])
            m->steps[m->n_steps++] = m->steps[i];
}

/* Step i of the merge (ctx) as the run's figures see it. */
static void step_iter(const void *ctx, size_t i, fc_fig_iter *out)
{
    const fc_merge_step *st = &((const fc_merge *)ctx)->steps[i];
    *out = (fc_fig_iter){.flops = st->flops,
                         .forward = st->forward,
                         .recompute = st->recompute,
                         .xs = st->xs,
                         .seconds = st->seconds,
                         .unsure = st->ambiguous,
                         .unsure_recompute = st->ambiguous_recompute};
}

/* The medians over the aligned steps (every one steady: the ranks' lists
 * were), by the run's figures (run_figures.h), as one rank's report has
 * them: one rank merged gives its own figures. */
static int step_medians(fc_merge *m)
{
    size_t n = m->n_steps ? m->n_steps : 1;
    double *t = malloc(n * sizeof *t);
    fc_u128 *u = malloc(n * sizeof *u);
    if (t == NULL || u == NULL) {
        free(t);
        free(u);
        return -1;
    }
    fc_fig_medians fm;
    fc_fig_medians_of(step_iter, m, 0, m->n_steps, u, t, &fm);
    free(t);
    free(u);
    m->median_step_seconds = fm.seconds;
    m->flops_per_iteration = fm.flops;
    m->recompute_per_iteration = fm.recompute;
    m->recompute_guessed = fm.recompute_guessed;
    m->xs_per_iteration = fm.xs;
    m->n_ambiguous_steps = fm.n_unsure;
    m->ambiguous_reasons = m->advice = "";
    for (size_t r = 0; r < m->n_used; r++)
        if (m->ranks[r].ambiguous_reasons[0]) {
            m->ambiguous_reasons = m->ranks[r].ambiguous_reasons;
            m->advice = m->ranks[r].advice;
            break;
        }
    return 0;
}

int fc_merge_align(fc_merge *m)
{
    m->median_step_seconds = NAN;
    m->n_with_iterations = 0;
    uint64_t fewest = UINT64_MAX;
    for (size_t r = 0; r < m->n_used; r++)
        if (m->ranks[r].has_iterations) {
            m->n_with_iterations++;
            if (m->ranks[r].iter_count < fewest)
                fewest = m->ranks[r].iter_count;
        }
    if (m->n_used == 0 || m->n_with_iterations < m->n_used)
        return 0; /* alignment needs every rank; the text says which lack them */
    m->iter_count = fewest;
    const fc_merge_rank *first = &m->ranks[0];
    size_t n = first->n_list ? first->n_list : 1;
    unsigned char *keep = malloc(n);
    m->steps = malloc(n * sizeof *m->steps);
    if (m->steps == NULL || keep == NULL) {
        free(keep);
        return -1;
    }
    build_steps(m, keep);
    free(keep);
    return step_medians(m);
}

/* The slowest rank by median step time, against the median of the others;
 * by wall time when the ranks have no iterations. */
void fc_merge_straggler(fc_merge *m)
{
    m->straggler = -1;
    m->straggler_seconds = m->others_seconds = NAN;
    if (m->n_used < 2)
        return;
    int by_wall = m->n_with_iterations < m->n_used;
    double *v = malloc(m->n_used * sizeof *v);
    if (v == NULL)
        return;
    size_t worst = 0, nv = 0;
    for (size_t r = 0; r < m->n_used; r++) {
        const fc_merge_rank *s = &m->ranks[r];
        double x = by_wall ? s->wall_seconds : s->median_seconds;
        if (isnan(x)) {
            free(v);
            return; /* some rank has no time at all: no fair comparison */
        }
        if (x > (by_wall ? m->ranks[worst].wall_seconds : m->ranks[worst].median_seconds))
            worst = r;
    }
    for (size_t r = 0; r < m->n_used; r++)
        if (r != worst)
            v[nv++] = by_wall ? m->ranks[r].wall_seconds : m->ranks[r].median_seconds;
    m->straggler = m->ranks[worst].rank;
    m->straggler_by_wall = by_wall;
    m->straggler_seconds = by_wall ? m->ranks[worst].wall_seconds : m->ranks[worst].median_seconds;
    m->others_seconds = fc_median_double(v, nv);
    m->straggler_slowest_steps = 0;
    for (size_t i = 0; i < m->n_steps; i++)
        if (m->steps[i].slowest_rank == m->straggler)
            m->straggler_slowest_steps++;
    free(v);
}

typedef struct pair {
    fc_u128 flops;
    long rank;
} pair;

static int by_flops(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->flops != y->flops)
        return x->flops < y->flops ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int bigger_group(const void *a, const void *b)
{
    const fc_merge_fgroup *x = a, *y = b;
    if (x->n_ranks != y->n_ranks)
        return x->n_ranks < y->n_ranks ? 1 : -1;
    return (x->first_rank > y->first_rank) - (x->first_rank < y->first_rank);
}

/* Ranks grouped by equal FLOPs (per iteration when every rank has
 * iterations, else the counted totals: GEMMs and fused attention, as the
 * iterations count them), largest group first. */
static int group_ranks(fc_merge *m)
{
    m->flops_basis_iteration = m->n_used > 0 && m->n_with_iterations == m->n_used;
    pair *p = malloc((m->n_used ? m->n_used : 1) * sizeof *p);
    m->fgroups = calloc(m->n_used ? m->n_used : 1, sizeof *m->fgroups);
    if (p == NULL || m->fgroups == NULL) {
        free(p);
        return -1;
    }
    for (size_t r = 0; r < m->n_used; r++) {
        p[r].flops = m->flops_basis_iteration ? m->ranks[r].flops_per_iteration
                                              : m->ranks[r].counted_flops;
        p[r].rank = m->ranks[r].rank;
    }
    qsort(p, m->n_used, sizeof *p, by_flops);
    for (size_t i = 0, j; i < m->n_used; i = j) {
        for (j = i; j < m->n_used && p[j].flops == p[i].flops; j++)
            ;
        fc_merge_fgroup *g = &m->fgroups[m->n_fgroups++];
        g->flops = p[i].flops;
        g->n_ranks = j - i;
        g->first_rank = p[i].rank;
        if ((g->ranks = malloc(g->n_ranks * sizeof *g->ranks)) == NULL) {
            free(p);
            return -1;
        }
        for (size_t k = i; k < j; k++)
            g->ranks[k - i] = p[k].rank;
    }
    free(p);
    qsort(m->fgroups, m->n_fgroups, sizeof *m->fgroups, bigger_group);
    return 0;
}

/* Data-parallel replicas (and tensor-parallel shards) run equal FLOPs;
 * pipeline stages legitimately differ, in groups of equal replicas. */
int fc_merge_consistency(fc_merge *m)
{
    if (group_ranks(m) != 0)
        return -1;
    if (m->n_fgroups <= 1) {
        m->verdict = FC_FLOPS_SAME;
        return 0;
    }
    size_t smallest = m->fgroups[m->n_fgroups - 1].n_ranks;
    int stages = smallest >= 2;
    for (size_t g = 0; g < m->n_fgroups && stages; g++)
        stages = m->fgroups[g].n_ranks % smallest == 0;
    if (stages) {
        m->verdict = FC_FLOPS_STAGES;
        m->stages_contiguous = 1;
        for (size_t g = 0; g < m->n_fgroups; g++)
            for (size_t k = 1; k < m->fgroups[g].n_ranks; k++)
                if (m->fgroups[g].ranks[k] != m->fgroups[g].ranks[k - 1] + 1)
                    m->stages_contiguous = 0;
    } else if (m->fgroups[0].n_ranks * 2 > m->n_used) {
        m->verdict = FC_FLOPS_OUTLIERS;
    } else {
        m->verdict = FC_FLOPS_MIXED;
    }
    return 0;
}

/* HFU at the dtype mix of the cluster: the median step's FLOPs (all ranks)
 * shared out as the ranks' training FLOPs by dtype are, each dtype at its
 * own peak, over ranks x the step's time. */
static void cluster_mix(fc_merge *m)
{
    memset(&m->mix, 0, sizeof m->mix);
    m->mix.hfu = m->mix.ideal_seconds = NAN;
    if (m->n_steps == 0 || !(m->median_step_seconds > 0)) {
        snprintf(m->mix.reason, sizeof m->mix.reason, "needs aligned iterations with times");
        return;
    }
    if (m->n_without_mix > 0) {
        snprintf(m->mix.reason, sizeof m->mix.reason,
                 "%zu rank%s report%s no FLOPs by dtype (written before the dtype mix was)",
                 m->n_without_mix, m->n_without_mix == 1 ? "'s" : "s'",
                 m->n_without_mix == 1 ? " has" : "s have");
        return;
    }
    fc_mix_peaks p = fc_mix_source_peaks(&m->mix_src);
    fc_mix_compute(m->mix_flops, m->flops_per_iteration, m->median_step_seconds,
                   (int64_t)m->n_used, &p, &m->mix);
}

/* Cluster HFU = FLOPs of a step on all merged ranks / (ranks x peak x the
 * step's time); MFU leaves recomputed FLOPs out, and the attention beyond
 * the model convention, as each rank's report does (measured, not formula). */
void fc_merge_utilization(fc_merge *m)
{
    m->hfu = m->mfu = NAN;
    cluster_mix(m);
    if (m->peak_flops <= 0 || m->n_steps == 0 || !(m->median_step_seconds > 0))
        return;
    /* fc_utilization's expression, as the mix's terms (one dtype: the same) */
    fc_fig_utilization(m->flops_per_iteration, m->recompute_per_iteration, m->xs_per_iteration,
                       m->median_step_seconds, (int64_t)m->n_used, m->peak_flops, &m->hfu,
                       &m->mfu);
}

double fc_merge_rank_hfu(const fc_merge *m, const fc_merge_rank *s)
{
    if (m->peak_flops > 0 && s->median_seconds > 0)
        return fc_u128_to_double(s->flops_per_iteration) / (m->peak_flops * s->median_seconds);
    return NAN;
}

int fc_merge_is_straggler(const fc_merge *m)
{
    if (m->straggler < 0)
        return 0;
    double behind = m->straggler_seconds - m->others_seconds;
    double pct = m->others_seconds > 0 ? behind / m->others_seconds * 100.0 : NAN;
    return !(pct < FC_STRAGGLER_PCT); /* others at 0 s: any time is behind */
}
