/* SPDX-License-Identifier: Apache-2.0 */
/* merge_gpu.c - the CUPTI sections of the ranks summed for the job: graph
 * counts, kernel time by class and by shape (achieved FLOP/s and fraction
 * of peak recomputed from the sums), busy time over the summed GPU spans,
 * hardware FLOP totals; per-iteration medians: FLOPs summed over ranks,
 * fractions the (lower) median of the ranks'. Printed by tools/render/text/text_gpu.c
 * in the shim's layout, so a merged report reads back the same way. */
#include "merge_gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static fc_report_gpu sum;
static size_t cap_shapes, ranks, ranks_cupti_on, ranks_hw_on;
static double *busy_med, *gemm_med, *hfu_med;
static size_t n_busy, n_gemm, n_hfu;
static double *row_peak; /* per merged shape: the peak its fraction was taken against */

static int push(double **arr, size_t *n, double v)
{
    if (isnan(v))
        return 0;
    double *b = realloc(*arr, (*n + 1) * sizeof *b);
    if (b == NULL)
        return -1;
    b[(*n)++] = v;
    *arr = b;
    return 0;
}

static int same_shape(const fc_rgpu_shape *a, const fc_rgpu_shape *b)
{
    return a->m == b->m && a->n == b->n && a->k == b->k && a->batch == b->batch &&
           a->transa == b->transa && a->transb == b->transb && strcmp(a->api, b->api) == 0 &&
           strcmp(a->dtype, b->dtype) == 0;
}

static int add_shape(const fc_rgpu_shape *s)
{
    for (size_t i = 0; i < sum.n_shapes; i++) {
        fc_rgpu_shape *t = &sum.shapes[i];
        if (!same_shape(t, s))
            continue;
        /* the counted rows; the rates after them are worked out at the end */
        fc_schema_add(fc_kshape_fields, FC_KSHAPE_I_flops_timed + 1, &t->t, &s->t);
        if (!(row_peak[i] > 0) && s->t.peak_fraction > 0)
            row_peak[i] = s->t.achieved_flops_per_second / s->t.peak_fraction;
        return 0;
    }
    if (sum.n_shapes == cap_shapes) {
        size_t n = cap_shapes ? cap_shapes * 2 : 64;
        fc_rgpu_shape *b = realloc(sum.shapes, n * sizeof *b);
        double *p = b ? realloc(row_peak, n * sizeof *p) : NULL;
        if (b)
            sum.shapes = b;
        if (p == NULL)
            return -1;
        row_peak = p;
        cap_shapes = n;
    }
    row_peak[sum.n_shapes] =
        s->t.peak_fraction > 0 ? s->t.achieved_flops_per_second / s->t.peak_fraction : 0;
    sum.shapes[sum.n_shapes++] = *s;
    return 0;
}

static void add_name(int c, const fc_rgpu_name *x)
{
    for (size_t i = 0; i < sum.n_names[c]; i++)
        if (strcmp(sum.names[c][i].name, x->name) == 0) {
            sum.names[c][i].seconds += x->seconds;
            sum.names[c][i].kernels += x->kernels;
            return;
        }
    if (sum.n_names[c] < FC_RGPU_NAMES) {
        sum.names[c][sum.n_names[c]++] = *x;
        return;
    }
    size_t least = 0; /* the table keeps the names with the most time */
    for (size_t i = 1; i < sum.n_names[c]; i++)
        if (sum.names[c][i].seconds < sum.names[c][least].seconds)
            least = i;
    if (x->seconds > sum.names[c][least].seconds)
        sum.names[c][least] = *x;
}

static void add_values(fc_rgpu_value *to, size_t *n, const fc_rgpu_value *from, size_t m, int add)
{
    for (size_t j = 0; j < m; j++) {
        size_t i = 0;
        while (i < *n && strcmp(to[i].name, from[j].name) != 0)
            i++;
        if (i == *n) {
            if (*n == FC_RGPU_TYPES)
                continue;
            to[(*n)++] = from[j];
        } else if (add) {
            to[i].value += from[j].value;
        }
    }
}

static int add_kernels(const fc_report_gpu *g)
{
    sum.has_kernels = 1;
    fc_schema_add(fc_ktotals_fields, FC_KTOTALS_N, &sum.kt, &g->kt);
    sum.busy_fraction = sum.gpu_span_seconds > 0 ? sum.gpu_busy_seconds / sum.gpu_span_seconds
                                                 : NAN; /* not a sum */
    sum.kiter.count = g->kiter.count > sum.kiter.count ? g->kiter.count : sum.kiter.count;
    for (int c = 0; c < FC_RGPU_CLASSES; c++) {
        sum.class_seconds[c] += g->class_seconds[c];
        sum.class_kernels[c] += g->class_kernels[c];
        for (size_t i = 0; i < g->n_names[c]; i++)
            add_name(c, &g->names[c][i]);
    }
    for (size_t i = 0; i < g->n_shapes; i++)
        if (add_shape(&g->shapes[i]) != 0)
            return -1;
    if (push(&busy_med, &n_busy, g->kiter.median_busy_fraction) ||
        push(&gemm_med, &n_gemm, g->kiter.median_gemm_seconds))
        return -1;
    return 0;
}

static int add_hw(const fc_report_gpu *g)
{
    int on = strcmp(g->hw_status, "on") == 0;
    if (!sum.has_hw) {
        sum.has_hw = 1;
        memcpy(sum.hw_mode, g->hw_mode, sizeof sum.hw_mode);
        memcpy(sum.hw_chip, g->hw_chip, sizeof sum.hw_chip);
        sum.hw_iter.median_flops = sum.hw_iter.median_hardware_minus_counted = NAN;
    }
    if (!on) {
        if (sum.hw_reason[0] == '\0')
            snprintf(sum.hw_reason, sizeof sum.hw_reason, "%s", g->hw_reason);
        return 0;
    }
    ranks_hw_on++;
    add_values(sum.hw_totals, &sum.n_hw_totals, g->hw_totals, g->n_hw_totals, 1);
    add_values(sum.hw_coverage_left, &sum.n_hw_left, g->hw_coverage_left, g->n_hw_left, 0);
    /* the counts but the interval, which is not a sum */
    fc_schema_add(fc_hw_fields + FC_HW_I_samples, FC_HW_N - FC_HW_I_samples, &sum.hw, &g->hw);
    const fc_hwiter_rec *a = &g->hw_iter;
    fc_hwiter_rec *s = &sum.hw_iter;
    if (!isnan(a->median_flops)) {
        s->median_flops =
            isnan(s->median_flops) ? a->median_flops : s->median_flops + a->median_flops;
        s->median_hardware_minus_counted =
            isnan(s->median_hardware_minus_counted)
                ? a->median_hardware_minus_counted
                : s->median_hardware_minus_counted + a->median_hardware_minus_counted;
    }
    s->count = a->count > s->count ? a->count : s->count;
    return push(&hfu_med, &n_hfu, a->median_hfu);
}

int fc_merge_gpu_add(const fc_report_gpu *g, char *err, size_t errlen)
{
    if (ranks++ == 0) {
        sum.replays_visible = 1;
        sum.kiter.median_busy_fraction = sum.kiter.median_gemm_seconds = NAN;
        sum.hw_iter.median_flops = sum.hw_iter.median_hfu = NAN;
        sum.hw_iter.median_hardware_minus_counted = NAN;
    }
    int rc = 0;
    if (g->has_cupti) {
        sum.has_cupti = 1;
        ranks_cupti_on += strcmp(g->cupti_status, "on") == 0;
        if (strcmp(g->cupti_status, "on") != 0 && sum.cupti_reason[0] == '\0')
            snprintf(sum.cupti_reason, sizeof sum.cupti_reason, "%s", g->cupti_reason);
    }
    if (g->has_graphs) {
        sum.has_graphs = 1;
        sum.replays_visible &= g->replays_visible;
        if (!g->replays_visible && sum.graphs_reason[0] == '\0')
            memcpy(sum.graphs_reason, g->graphs_reason, sizeof sum.graphs_reason);
        fc_schema_add(fc_graphs_fields, FC_GRAPHS_N, &sum.graph, &g->graph);
    }
    if (g->has_kernels)
        rc = add_kernels(g);
    else if (sum.kernels_reason[0] == '\0')
        memcpy(sum.kernels_reason, g->kernels_reason, sizeof sum.kernels_reason);
    if (rc == 0 && g->has_hw)
        rc = add_hw(g);
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}

static double lost_of(size_t i)
{
    const fc_rgpu_shape *s = &sum.shapes[i];
    return isnan(s->t.lost_seconds) ? s->t.kernel_seconds : s->t.lost_seconds;
}

const fc_report_gpu *fc_merge_gpu_result(void)
{
    if (sum.has_cupti) {
        snprintf(sum.cupti_status, sizeof sum.cupti_status, "%s",
                 ranks_cupti_on == ranks ? "on" : "off");
    }
    if (sum.has_hw)
        snprintf(sum.hw_status, sizeof sum.hw_status, "%s", ranks_hw_on == ranks ? "on" : "off");
    for (size_t i = 0; i < sum.n_shapes; i++) {
        fc_rgpu_shape *s = &sum.shapes[i];
        fc_kshape_rec *k = &s->t;
        double f = fc_u128_to_double(k->flops_timed);
        k->achieved_flops_per_second = k->kernel_seconds > 0 ? f / k->kernel_seconds : NAN;
        k->peak_fraction = row_peak[i] > 0 ? k->achieved_flops_per_second / row_peak[i] : NAN;
        k->lost_seconds = row_peak[i] > 0 ? k->kernel_seconds - f / row_peak[i] : NAN;
    }
    for (size_t i = 1; i < sum.n_shapes; i++) /* the most time lost first */
        for (size_t j = i; j > 0 && lost_of(j) > lost_of(j - 1); j--) {
            fc_rgpu_shape t = sum.shapes[j];
            double p = row_peak[j];
            sum.shapes[j] = sum.shapes[j - 1];
            row_peak[j] = row_peak[j - 1];
            sum.shapes[j - 1] = t;
            row_peak[j - 1] = p;
        }
    if (n_busy)
        sum.kiter.median_busy_fraction = fc_median_double(busy_med, n_busy);
    if (n_gemm)
        sum.kiter.median_gemm_seconds = fc_median_double(gemm_med, n_gemm);
    if (n_hfu)
        sum.hw_iter.median_hfu = fc_median_double(hfu_med, n_hfu);
    return &sum;
}

void fc_merge_gpu_free(void)
{
    fc_report_gpu_free(&sum);
    free(row_peak);
    free(busy_med);
    free(gemm_med);
    free(hfu_med);
}
