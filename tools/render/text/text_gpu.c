/* SPDX-License-Identifier: Apache-2.0 */
/* text_gpu.c - printing the CUPTI sections (render_gpu.h). The shapes are
 * listed as the report orders them: the most time lost against peak first. */
#include "render_gpu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernel_class.h"

#define SHAPE_ROWS 5

static const char *const class_words[FC_RGPU_CLASSES] = {"GEMM", "GEMM-like uncounted", "attention",
                                                         "communication", "other"};

static void text_graphs(const fc_report_gpu *g)
{
    char e[FC_U128_DIGITS];
    if (!g->has_graphs ||
        (g->graph.captures == 0 && g->graph.launches == 0 && g->graph.unknown_launches == 0)) {
        if (g->has_graphs && !g->replays_visible && g->graphs_reason[0])
            printf("  CUDA graphs    none captured; replays could not have been seen: %s\n",
                   g->graphs_reason);
        return;
    }
    printf(
        "  CUDA graphs    %llu captures, %llu GEMMs captured (%s FLOPs; not counted as executed)\n",
        (unsigned long long)g->graph.captures, (unsigned long long)g->graph.captured_calls,
        fc_u128_to_str(g->graph.captured_flops, e));
    if (!g->replays_visible) {
        printf("                 replays cannot be seen: %s\n", g->graphs_reason);
        return;
    }
    printf("                 %llu instantiated, %llu launches counted %llu GEMM calls (%s "
           "FLOPs)%s%s\n",
           (unsigned long long)g->graph.instantiations, (unsigned long long)g->graph.launches,
           (unsigned long long)g->graph.launched_calls, fc_u128_to_str(g->graph.launched_flops, e),
           g->graphs_seen_by[0] ? "; seen through " : "", g->graphs_seen_by);
    if (g->graph.never_launched_calls)
        printf("                 %llu captured GEMMs were never launched (%s FLOPs, not counted)\n",
               (unsigned long long)g->graph.never_launched_calls,
               fc_u128_to_str(g->graph.never_launched_flops, e));
    if (g->graph.unknown_launches)
        printf("                 %llu launches of graphs made before flopcount saw them (not "
               "counted)\n",
               (unsigned long long)g->graph.unknown_launches);
}

static void text_kernels(const fc_report_gpu *g)
{
    if (!g->has_kernels) {
        if (g->kernels_reason[0] && strncmp(g->kernels_reason, "not requested", 13) != 0)
            printf("  kernels        not measured: %s\n", g->kernels_reason);
        return;
    }
    double t = g->kernel_seconds > 0 ? g->kernel_seconds : 1;
    printf("  GPU busy       %.1f%% of %.4g s (union of kernel time; %d device%s)\n",
           g->gpu_span_seconds > 0 ? 100 * g->gpu_busy_seconds / g->gpu_span_seconds : 0.0,
           g->gpu_span_seconds, (int)g->devices, g->devices == 1 ? "" : "s, one timeline");
    printf("  kernel time    %.4g s:", g->kernel_seconds);
    for (int c = 0; c < FC_RGPU_CLASSES; c++)
        printf("%s %s %.1f%%", c ? "," : "", class_words[c], 100 * g->class_seconds[c] / t);
    printf("\n");
    if (!isnan(g->kiter.median_busy_fraction))
        printf("  per iteration  busy %.1f%%, GEMM kernels %.4g s (medians of steady iterations)\n",
               100 * g->kiter.median_busy_fraction, g->kiter.median_gemm_seconds);
    int shown = 0;
    for (int c = FC_K_GEMM_LIKE; c < FC_RGPU_CLASSES; c++)
        for (size_t i = 0; i < g->n_names[c] && i < 2; i++)
            printf("  %-14s %s: %.80s %.4g s (%llu kernels)\n", shown++ ? "" : "top kernels",
                   class_words[c], g->names[c][i].name, g->names[c][i].seconds,
                   (unsigned long long)g->names[c][i].kernels);
    if (g->n_shapes == 0)
        return;
    printf("  GEMM shapes by time lost against peak (kernel time, achieved, of peak)\n");
    for (size_t i = 0; i < g->n_shapes && i < SHAPE_ROWS; i++) {
        const fc_rgpu_shape *s = &g->shapes[i];
        char pct[48] = "peak unknown";
        if (!isnan(s->t.peak_fraction))
            snprintf(pct, sizeof pct, "%.1f%% of peak, %.4g s lost", 100 * s->t.peak_fraction,
                     s->t.lost_seconds);
        printf("    %-24s %c%c m=%lld n=%lld k=%lld batch=%lld %s: %.4g s, %.4g TFLOP/s, %s\n",
               s->api, s->transa, s->transb, (long long)s->m, (long long)s->n, (long long)s->k,
               (long long)s->batch, s->dtype, s->t.kernel_seconds,
               s->t.achieved_flops_per_second / 1e12, pct);
    }
}

static double total_of(const fc_report_gpu *g, const char *name)
{
    for (size_t i = 0; i < g->n_hw_totals; i++)
        if (strcmp(g->hw_totals[i].name, name) == 0)
            return g->hw_totals[i].value;
    return NAN;
}

static void text_hw(const fc_report_gpu *g)
{
    if (!g->has_hw)
        return;
    if (strcmp(g->hw_status, "on") != 0) {
        printf("  hardware FLOPs %s: %s\n", g->hw_status, g->hw_reason);
        return;
    }
    printf("  hardware FLOPs %s on %s (not yet validated on hardware); %.4g FLOPs in all\n",
           g->hw_mode, g->hw_chip, total_of(g, "flops"));
    if (!isnan(g->hw_iter.median_flops))
        printf("                 per iteration %.4g (median), hardware - counted %.4g%s\n",
               g->hw_iter.median_flops, g->hw_iter.median_hardware_minus_counted, "");
    if (!isnan(g->hw_iter.median_hfu))
        printf("  hardware HFU   %.1f%%   hardware FLOPs / (peak x time), median\n",
               100 * g->hw_iter.median_hfu);
    if (g->n_hw_left > 0) {
        printf("                 not measured (not in one pass or not on the chip):");
        for (size_t i = 0; i < g->n_hw_left; i++)
            printf(" %s", g->hw_coverage_left[i].name);
        printf("\n");
    }
}

void fci_gpu_print_text(const fc_report_gpu *g)
{
    if (!g->has_graphs && !g->has_kernels && !g->has_hw)
        return;
    int graphs =
        g->has_graphs && (g->graph.captures || g->graph.launches || g->graph.unknown_launches);
    if (!graphs && !g->has_kernels && !g->has_hw && !g->kernels_reason[0])
        return;
    printf("GPU (CUPTI%s%s)\n", g->has_cupti && strcmp(g->cupti_status, "on") != 0 ? ": " : "",
           g->has_cupti && strcmp(g->cupti_status, "on") != 0 ? g->cupti_reason : "");
    text_graphs(g);
    text_kernels(g);
    text_hw(g);
}
