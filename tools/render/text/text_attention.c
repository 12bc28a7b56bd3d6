/* SPDX-License-Identifier: Apache-2.0 */
/* text_attention.c - counted fused attention as text, for one run
 * (attention_view.h: the block after the GEMM totals, the excess line of
 * "measured", the attention line of "difference") and for a sum of runs
 * (merge.h). The figures and phrases are attention_view.c's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "merge.h"
#include "render_fmt.h"
#include "render_forms.h"
#include "report_view.h"

#define TOP_ATTN_SHAPES 5
#define UNCOUNTED_LINES 10 /* of a sum: the uncounted kernels listed */

static void text_sources(const fc_report *r)
{
    char e[FC_U128_DIGITS], line[512];
    size_t o = 0;
    line[0] = '\0';
    for (size_t i = 0; i < r->attn.n_by_source && o < sizeof line; i++) {
        const fc_report_attn_source *s = &r->attn.by_source[i];
        fc_u128 bound = 0;
        for (size_t k = 0; k < r->attn.n_shapes; k++)
            if (r->attn.shapes[k].bound && strcmp(r->attn.shapes[k].source, s->name) == 0)
                bound = fc_u128_sat_add(bound, r->attn.shapes[k].flops);
        o += (size_t)snprintf(line + o, sizeof line - o, "%s%s %llu calls %s%s", i ? ", " : "",
                              s->name, (unsigned long long)s->calls, fc_u128_to_str(s->flops, e),
                              bound ? " (some an upper bound)" : "");
    }
    if (line[0])
        printf("  %-14s %s\n", "by source", line);
}

static void text_shapes(const fc_report *r)
{
    size_t idx[TOP_ATTN_SHAPES];
    size_t n = fc_report_attn_top(&r->attn, idx, TOP_ATTN_SHAPES);
    char w[200], e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], e3[FC_U128_DIGITS], tiles[64];
    char failed[96];
    for (size_t i = 0; i < n; i++) {
        const fc_report_attn_shape *s = &r->attn.shapes[idx[i]];
        failed[0] = '\0';
        if (s->failed_calls)
            snprintf(failed, sizeof failed, " (+ %llu failed, that would have executed %s)",
                     (unsigned long long)s->failed_calls,
                     fc_u128_to_str(fc_u128_sat_mul(s->failed_calls, s->per_call_flops), e3));
        if (s->tiles_known)
            snprintf(tiles, sizeof tiles, ", tiles %s", fc_u128_to_str(s->tile_flops, e3));
        else
            snprintf(tiles, sizeof tiles, ", tiles not known");
        const char *le = s->bound ? "<= " : "";
        printf("  %-14s %s: %llu calls%s, executed %s%s, model %s%s%s\n", i ? "" : "attn shapes",
               fc_report_attn_shape_words(s, w, sizeof w), (unsigned long long)s->calls, failed, le,
               fc_u128_to_str(s->flops, e1), le, fc_u128_to_str(s->model_flops, e2), tiles);
    }
    if (r->attn.n_shapes > n)
        printf("  %-14s (%zu more shapes in the report)\n", "", r->attn.n_shapes - n);
}

void fci_report_attention_text(const fc_report_view *v)
{
    const fc_report *r = &v->rep;
    const fc_report_attention *a = &r->attn;
    char e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], e3[FC_U128_DIGITS], h[48], p[16], line[600];
    if (a->calls + a->failed_calls > 0) {
        printf("  attention      %s (%s) executed in %llu fused-attention calls; %llu failed; %s "
               "at the model convention\n",
               fc_u128_to_str(a->flops, e1), fci_fmt_flop(a->flops, h, sizeof h),
               (unsigned long long)a->calls, (unsigned long long)a->failed_calls,
               fc_u128_to_str(a->model_flops, e2));
        text_sources(r);
        double all = fc_u128_to_double(r->totals.counted_flops);
        printf("  counted total  %s = GEMMs %s + attention %s (%s attention)\n",
               fc_u128_to_str(r->totals.counted_flops, e1),
               fc_u128_to_str(r->totals.gemm_flops, e2),
               fc_u128_to_str(r->totals.attention_flops, e3),
               fci_fmt_pct(all > 0 ? fc_u128_to_double(r->totals.attention_flops) / all : NAN, p,
                           sizeof p));
        uint64_t bc;
        fc_u128 bf;
        fc_report_attn_bound(&r->attn, &bc, &bf);
        if (bc)
            printf("  upper bound    %llu calls of shapes whose lengths are maxima (varlen, "
                   "padding): their %s FLOPs are at most that\n",
                   (unsigned long long)bc, fc_u128_to_str(bf, e1));
        uint64_t fcalls;
        fc_u128 fx, fm;
        fc_report_attn_failed(a, &fcalls, &fx, &fm);
        if (fcalls)
            printf("  failed         %llu calls returned an error, counted as nothing: they would "
                   "have executed %s FLOPs (%s at the model convention)\n",
                   (unsigned long long)fcalls, fc_u128_to_str(fx, e1), fc_u128_to_str(fm, e2));
        text_shapes(r);
    }
    for (size_t i = 0; i < a->n_uncounted; i++)
        printf("  %-14s %s\n", i ? "" : "not counted",
               fc_report_uncounted_words(&a->uncounted[i], line, sizeof line));
    /* kernels the launch hooks could not see (a static runtime): counted
     * only where CUPTI saw them, which the note says */
    if (a->launch_note[0])
        printf("  launches       %s\n", a->launch_note);
}

void fci_report_attention_text_measured(const fc_report_view *v)
{
    char e[FC_U128_DIGITS];
    if (v->job_xs == 0)
        return;
    printf("  attention xs   %s of them beyond the model convention (the fused backward "
           "recomputes QK^T: 2.5x its forward, the convention counts 2x); left out of MFU\n",
           fc_u128_to_str(v->job_xs, e));
}

void fci_report_attention_text_gap(const fc_report_view *v)
{
    char line[700];
    if (!v->attn_cmp.counted)
        return;
    printf("  attention      %s\n", fc_report_attention_cmp_words(v, line, sizeof line));
}

void fci_merge_attention_text(const fc_merge *m)
{
    const fc_report_attention *a = &m->attn;
    char e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], e3[FC_U128_DIGITS], h[48], line[600];
    if (a->calls + a->failed_calls > 0) {
        size_t o = (size_t)snprintf(line, sizeof line, "%s", "");
        for (size_t i = 0; i < a->n_by_source && o < sizeof line; i++)
            o += (size_t)snprintf(line + o, sizeof line - o, "%s%s %llu calls %s", i ? ", " : "",
                                  a->by_source[i].name, (unsigned long long)a->by_source[i].calls,
                                  fc_u128_to_str(a->by_source[i].flops, e1));
        printf("  attention        %s (%s) executed in %llu fused-attention calls on all ranks; "
               "%llu failed; %s at the model convention\n",
               fc_u128_to_str(a->flops, e1), fci_fmt_flop(a->flops, h, sizeof h),
               (unsigned long long)a->calls, (unsigned long long)a->failed_calls,
               fc_u128_to_str(a->model_flops, e2));
        if (line[0])
            printf("                   by source: %s\n", line);
        printf("  counted total    %s = GEMMs %s + attention %s\n",
               fc_u128_to_str(m->sum.totals.counted_flops, e1),
               fc_u128_to_str(m->sum.totals.gemm_flops, e2),
               fc_u128_to_str(m->sum.totals.attention_flops, e3));
        uint64_t bc;
        fc_u128 bf;
        fc_report_attn_bound(a, &bc, &bf);
        if (bc)
            printf("  upper bound      %llu calls of shapes whose lengths are maxima (varlen, "
                   "padding): their %s FLOPs are at most that\n",
                   (unsigned long long)bc, fc_u128_to_str(bf, e1));
    }
    for (size_t i = 0; i < a->n_uncounted && i < UNCOUNTED_LINES; i++)
        printf("  %-16s %s\n", i ? "" : "not counted",
               fc_report_uncounted_words(&a->uncounted[i], line, sizeof line));
    if (a->n_uncounted > UNCOUNTED_LINES)
        printf("  %-16s (%zu more names in --json)\n", "", a->n_uncounted - UNCOUNTED_LINES);
}
