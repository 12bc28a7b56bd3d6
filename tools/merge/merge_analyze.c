/* SPDX-License-Identifier: Apache-2.0 */
/* merge_analyze.c - the arithmetic of 'flopcount merge': per-rank summaries,
 * sums, iterations aligned across ranks, the straggler, FLOP consistency
 * and cluster utilization, and a rank list as ranges (fc_rank_ranges). No
 * printing here (tools/render/ does that). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "run_figures.h"
#include "stats.h"

static int by_index(const void *a, const void *b)
{
    const fc_report_iter *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

static void keep_iter(fc_merge_iter *o, const fc_report_iter *it)
{
    *o = (fc_merge_iter){.index = it->index,
                         .seconds = it->seconds,
                         .flops = it->flops,
                         .forward = it->forward_flops,
                         .backward = it->backward_flops,
                         .recompute = it->recompute_flops,
                         .xs = it->attention_excess_flops,
                         .ambiguous = it->ambiguous,
                         .ambiguous_recompute = it->ambiguous_recompute};
}

/* The rank's steady iterations (no warm-up, no open end: see
 * fc_report_steady) sorted by index (a repeated index keeps its first
 * entry), so steps can be found by walking the lists side by side. A list
 * out of order is sorted as whole entries, as before, so ties keep their
 * order; then each kept entry is reduced to what the merge reads. */
static int copy_list(fc_merge_rank *s, const fc_report *r)
{
    size_t from, to;
    fc_report_steady(r->iterations.list, r->iterations.n_list, &from, &to);
    size_t n = to - from;
    const fc_report_iter *in = r->iterations.list + from;
    fc_report_iter *sorted_copy = NULL;
    size_t sorted = 1; /* as the shim writes them: qsort (stable) would change nothing */
    while (sorted < n && in[sorted - 1].index <= in[sorted].index)
        sorted++;
    if (sorted < n) {
        if ((sorted_copy = malloc(n * sizeof *sorted_copy)) == NULL)
            return -1;
        memcpy(sorted_copy, in, n * sizeof *sorted_copy);
        qsort(sorted_copy, n, sizeof *sorted_copy, by_index);
        in = sorted_copy;
    }
    s->list = malloc((n ? n : 1) * sizeof *s->list);
    if (s->list == NULL) {
        free(sorted_copy);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || in[i].index != s->list[k - 1].index)
            keep_iter(&s->list[k++], &in[i]);
    s->n_list = k;
    free(sorted_copy);
    return 0;
}

/* Iteration i of a rank's kept list as the run's figures read it (what
 * fc_report_fig_iter gives of the full entry). */
static void merge_fig_iter(const void *ctx, size_t i, fc_fig_iter *out)
{
    const fc_merge_iter *it = &((const fc_merge_iter *)ctx)[i];
    *out = (fc_fig_iter){.flops = it->flops,
                         .forward = it->forward,
                         .recompute = it->recompute,
                         .xs = it->xs,
                         .seconds = it->seconds,
                         .unsure = it->ambiguous != 0,
                         .unsure_recompute = it->ambiguous_recompute != 0};
}

/* Median step time and FLOPs of the rank's own list (steps without a time
 * are left out of the time): the run's figures (run_figures.h). */
static int rank_medians(fc_merge_rank *s)
{
    double *t = malloc((s->n_list ? s->n_list : 1) * sizeof *t);
    fc_u128 *u = malloc((s->n_list ? s->n_list : 1) * sizeof *u);
    if (t == NULL || u == NULL) {
        free(t);
        free(u);
        return -1;
    }
    fc_fig_median_time_flops(merge_fig_iter, s->list, 0, s->n_list, u, t, &s->median_seconds,
                             &s->flops_per_iteration);
    free(t);
    free(u);
    return 0;
}

int fc_merge_add(fc_merge_rank *s, const char *path, const fc_report *r, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    s->rank = r->rank;
    s->world_size = r->world_size;
    snprintf(s->host, sizeof s->host, "%s", r->hostname);
    snprintf(s->status, sizeof s->status, "%s", r->status);
    snprintf(s->launcher, sizeof s->launcher, "%s", r->launcher);
    s->wall_seconds = r->wall_seconds;
    s->gemm_calls = r->totals.gemm_calls;
    s->failed_calls = r->totals.failed_calls;
    s->gemm_flops = r->totals.gemm_flops;
    s->counted_flops = r->totals.counted_flops;
    s->recompute_flops = r->has_recompute ? r->recompute.flops : 0;
    s->median_seconds = NAN;
    s->peak_flops = r->has_utilization ? r->utilization.peak_flops : NAN;
    snprintf(s->peak_dtype, sizeof s->peak_dtype, "%s",
             r->has_utilization ? r->utilization.dtype : "");
    snprintf(s->ambiguous_reasons, sizeof s->ambiguous_reasons, "%s", r->iterations.ambiguous_reasons);
    snprintf(s->advice, sizeof s->advice, "%s", r->iterations.advice);
    s->has_iterations = r->has_iterations && r->iterations.n_list > 0;
    s->iter_count = r->iterations.count;
    if (s->has_iterations && (copy_list(s, r) != 0 || rank_medians(s) != 0)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}


void fc_merge_free(fc_merge *m)
{
    for (size_t i = 0; i < m->n_ranks; i++) {
        free(m->ranks[i].list);
        free(m->ranks[i].facts);
    }
    for (size_t i = 0; i < m->n_fgroups; i++)
        free(m->fgroups[i].ranks);
    free(m->ranks);
    free(m->missing);
    fc_run_sum_free(&m->sum);
    free(m->steps);
    free(m->fgroups);
    fc_merge_attention_free(m);
    memset(m, 0, sizeof *m);
}

/* Duplicates and rankless reports go last; the rest by rank. */
static int cmp_rank(const void *a, const void *b)
{
    const fc_merge_rank *x = a, *y = b;
    int kx = x->duplicate || x->rank < 0, ky = y->duplicate || y->rank < 0;
    if (kx != ky)
        return kx - ky;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int count_hosts(fc_merge *m)
{
    const char **h = malloc((m->n_used ? m->n_used : 1) * sizeof *h);
    if (h == NULL)
        return -1;
    for (size_t i = 0; i < m->n_used; i++)
        h[i] = m->ranks[i].host;
    qsort(h, m->n_used, sizeof *h, cmp_str_ptr);
    m->n_hosts = 0;
    for (size_t i = 0; i < m->n_used; i++)
        if (i == 0 || strcmp(h[i], h[i - 1]) != 0)
            m->n_hosts++;
    free(h);
    return 0;
}

/* World size: the largest any report names (or implied by its ranks). */
static int find_missing(fc_merge *m)
{
    long world = -1, named = -1;
    for (size_t i = 0; i < m->n_used; i++) {
        const fc_merge_rank *s = &m->ranks[i];
        if (s->world_size > 0) {
            if (named > 0 && s->world_size != named)
                m->world_disagrees = 1;
            named = s->world_size > named ? s->world_size : named;
        }
        if (s->rank + 1 > world)
            world = s->rank + 1;
    }
    if (named > 0 && world > named)
        m->world_disagrees = 1; /* a rank beyond the world it names */
    m->world_size = named > world ? named : world;
    if (m->world_size < (long)m->n_used)
        m->world_size = (long)m->n_used;
    m->missing = malloc((size_t)(m->world_size > 0 ? m->world_size : 1) * sizeof *m->missing);
    if (m->missing == NULL)
        return -1;
    size_t j = 0;
    for (long r = 0; r < m->world_size; r++) {
        while (j < m->n_used && m->ranks[j].rank < r)
            j++;
        if (j >= m->n_used || m->ranks[j].rank != r)
            m->missing[m->n_missing++] = r;
    }
    return 0;
}

/* The rank's training FLOPs by dtype and its per-dtype peaks, for the mix. */
static void sum_mix(fc_merge *m, const fc_report *r)
{
    fc_u128 by[FC_DT_COUNT];
    if (!fc_mix_flops_of(r, by))
        m->n_without_mix++;
    for (int d = 0; d < FC_DT_COUNT; d++)
        m->mix_flops[d] = fc_u128_sat_add(m->mix_flops[d], by[d]);
    fc_mix_source_add(&m->mix_src, r);
}

int fc_merge_sum_report(fc_merge *m, const fc_report *r)
{
    fc_run_part part = fc_report_part(r);
    sum_mix(m, r);
    if (fc_run_sum_add(&m->sum, &part) != 0)
        return -1;
    return fc_merge_sum_attention(m, r);
}

int fc_merge_analyze(fc_merge *m)
{
    qsort(m->ranks, m->n_ranks, sizeof *m->ranks, cmp_rank);
    m->n_used = 0;
    m->n_not_complete = 0;
    for (size_t i = 0; i < m->n_ranks; i++)
        if (m->ranks[i].rank >= 0 && !m->ranks[i].duplicate)
            m->n_used++;
    for (size_t i = 0; i < m->n_used; i++)
        if (strcmp(m->ranks[i].status, "complete") != 0)
            m->n_not_complete++;
    if (m->n_used > 0) /* the lowest rank's launcher speaks for the job */
        memcpy(m->launcher, m->ranks[0].launcher, sizeof m->launcher);
    fc_run_sum_finish(&m->sum);
    fc_merge_attention_done(m);
    if (count_hosts(m) != 0 || find_missing(m) != 0 || fc_merge_align(m) != 0)
        return -1;
    fc_merge_straggler(m);
    if (fc_merge_consistency(m) != 0)
        return -1;
    fc_merge_utilization(m);
    return 0;
}

/* No option: the peak every rank's report already carries, if they agree
 * (here, with the sums, and not in the verb: tools/job sums ranks too). */
void fc_merge_peak_from_reports(fc_merge *m)
{
    double p = m->n_ranks ? m->ranks[0].peak_flops : 0;
    for (size_t i = 0; i < m->n_ranks; i++)
        if (!(m->ranks[i].peak_flops > 0) || m->ranks[i].peak_flops != p)
            return;
    m->peak_flops = p;
    const char *dt = m->ranks[0].peak_dtype; /* named when every rank names the same */
    for (size_t i = 1; i < m->n_ranks; i++)
        if (strcmp(m->ranks[i].peak_dtype, dt) != 0)
            dt = "";
    snprintf(m->peak_desc, sizeof m->peak_desc, "from the reports: %.1f TFLOP/s%s%s%s", p / 1e12,
             dt[0] ? " (" : "", dt, dt[0] ? ")" : "");
}

void fc_rank_ranges(const long *ranks, size_t n, char *out, size_t size)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        char piece[48];
        if (j == i)
            snprintf(piece, sizeof piece, "%s%ld", i ? ", " : "", ranks[i]);
        else
            snprintf(piece, sizeof piece, "%s%ld-%ld", i ? ", " : "", ranks[i], ranks[j]);
        size_t len = strlen(piece);
        if (o + len + 5 > size) {
            snprintf(out + o, size - o, ", ...");
            return;
        }
        memcpy(out + o, piece, len + 1);
        o += len;
        i = j + 1;
    }
}
