/* SPDX-License-Identifier: Apache-2.0 */
/* text_run.c - the text sections 'report' and 'merge' both show, each
 * written once from the run view (render_run.h): the GEMM totals, the top
 * shapes, counted fused attention, HFU at the dtype mix, how sure the
 * split is, the CUPTI sections. A verb's own lines (its source, its
 * iterations, the formula, merge's ranks) stay in its file. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render_fmt.h"
#include "render_forms.h"
#include "render_gpu.h"
#include "render_run.h"

#define TOP_SHAPES 5
#define TOP_ATTN_SHAPES 5
#define UNCOUNTED_LINES 10 /* the uncounted kernels listed; the rest in --json */

void fci_text_gemm_totals(const fci_run *r)
{
    const fc_totals_rec *t = r->totals;
    char e[FC_U128_DIGITS], h[48], s[32];
    printf("  %-*s %s (%s) in %llu calls%s; %llu failed, %llu invalid", r->label_w, "GEMM totals",
           fc_u128_to_str(t->gemm_flops, e), fci_fmt_flop(t->gemm_flops, h, sizeof h),
           (unsigned long long)t->gemm_calls, r->whose, (unsigned long long)t->failed_calls,
           (unsigned long long)t->invalid_calls);
    printf(", %llu unresolved; wall %s\n", (unsigned long long)t->unresolved_calls,
           fci_fmt_seconds(r->wall_seconds, s, sizeof s));
}

void fci_text_top_shapes(const fci_run *r)
{
    char h[48], pct[16];
    double all = fc_u128_to_double(r->totals->gemm_flops);
    for (size_t i = 0; i < r->n_shapes && i < TOP_SHAPES; i++) {
        const fc_report_shape *s = &r->shapes[i];
        const char *label = i ? "" : "top shapes";
        fci_fmt_pct(all > 0 ? fc_u128_to_double(s->flops) / all : NAN, pct, sizeof pct);
        if (s->overflow)
            printf("  %-*s %-26s (shapes beyond the table) %s %8llu calls %s (%s)\n", r->label_w,
                   label, s->api, s->dtype, (unsigned long long)s->calls,
                   fci_fmt_flop(s->flops, h, sizeof h), pct);
        else
            printf("  %-*s %-26s %c%c m=%lld n=%lld k=%lld batch=%lld %s %llu calls %s (%s)\n",
                   r->label_w, label, s->api, s->transa, s->transb, (long long)s->m,
                   (long long)s->n, (long long)s->k, (long long)s->batch, s->dtype,
                   (unsigned long long)s->calls, fci_fmt_flop(s->flops, h, sizeof h), pct);
    }
}

/* "flash 16 calls 7569408, ..." (a source some of whose shapes are an
 * upper bound says so). */
static void attn_sources(const fci_run *r)
{
    const fc_report_attention *a = r->attn;
    char e[FC_U128_DIGITS], line[512];
    size_t o = 0;
    line[0] = '\0';
    for (size_t i = 0; i < a->n_by_source && o < sizeof line; i++) {
        const fc_report_attn_source *s = &a->by_source[i];
        fc_u128 bound = 0;
        for (size_t k = 0; k < a->n_shapes; k++)
            if (a->shapes[k].bound && strcmp(a->shapes[k].source, s->name) == 0)
                bound = fc_u128_sat_add(bound, a->shapes[k].flops);
        o += (size_t)snprintf(line + o, sizeof line - o, "%s%s %llu calls %s%s", i ? ", " : "",
                              s->name, (unsigned long long)s->calls, fc_u128_to_str(s->flops, e),
                              bound ? " (some an upper bound)" : "");
    }
    if (line[0])
        printf("  %-*s %s\n", r->label_w, "by source", line);
}

static void attn_shapes(const fci_run *r)
{
    const fc_report_attention *a = r->attn;
    size_t idx[TOP_ATTN_SHAPES];
    size_t n = fc_report_attn_top(a, idx, TOP_ATTN_SHAPES);
    char w[200], e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], e3[FC_U128_DIGITS], tiles[64];
    char failed[96];
    for (size_t i = 0; i < n; i++) {
        const fc_report_attn_shape *s = &a->shapes[idx[i]];
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
        printf("  %-*s %s: %llu calls%s, executed %s%s, model %s%s%s\n", r->label_w,
               i ? "" : "attn shapes", fc_report_attn_shape_words(s, w, sizeof w),
               (unsigned long long)s->calls, failed, le, fc_u128_to_str(s->flops, e1), le,
               fc_u128_to_str(s->model_flops, e2), tiles);
    }
    if (a->n_shapes > n)
        printf("  %-*s (%zu more shapes in the report)\n", r->label_w, "", a->n_shapes - n);
}

/* The attention calls that failed: what they would have executed. */
static void attn_failed(const fci_run *r)
{
    char e1[FC_U128_DIGITS], e2[FC_U128_DIGITS];
    uint64_t fcalls;
    fc_u128 fx, fm;
    fc_report_attn_failed(r->attn, &fcalls, &fx, &fm);
    if (fcalls)
        printf("  %-*s %llu calls returned an error, counted as nothing: they would "
               "have executed %s FLOPs (%s at the model convention)\n",
               r->label_w, "failed", (unsigned long long)fcalls, fc_u128_to_str(fx, e1),
               fc_u128_to_str(fm, e2));
}

/* The counted fused attention, after the GEMM totals: the calls, by
 * source, the counted total, the upper bounds, failed calls and the top
 * shapes, what is not counted, the launches the hooks missed. Nothing
 * without attention. */
void fci_text_attention(const fci_run *r)
{
    const fc_report_attention *a = r->attn;
    const fc_totals_rec *t = r->totals;
    int w = r->label_w;
    char e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], e3[FC_U128_DIGITS], h[48], p[16], line[600];
    if (a->calls + a->failed_calls > 0) {
        printf("  %-*s %s (%s) executed in %llu fused-attention calls%s; %llu failed; %s at the "
               "model convention\n",
               w, "attention", fc_u128_to_str(a->flops, e1), fci_fmt_flop(a->flops, h, sizeof h),
               (unsigned long long)a->calls, r->whose, (unsigned long long)a->failed_calls,
               fc_u128_to_str(a->model_flops, e2));
        attn_sources(r);
        double all = fc_u128_to_double(t->counted_flops);
        printf("  %-*s %s = GEMMs %s + attention %s (%s attention)\n", w, "counted total",
               fc_u128_to_str(t->counted_flops, e1), fc_u128_to_str(t->gemm_flops, e2),
               fc_u128_to_str(t->attention_flops, e3),
               fci_fmt_pct(all > 0 ? fc_u128_to_double(t->attention_flops) / all : NAN, p,
                           sizeof p));
        uint64_t bc;
        fc_u128 bf;
        fc_report_attn_bound(a, &bc, &bf);
        if (bc)
            printf("  %-*s %llu calls of shapes whose lengths are maxima (varlen, "
                   "padding): their %s FLOPs are at most that\n",
                   w, "upper bound", (unsigned long long)bc, fc_u128_to_str(bf, e1));
        attn_failed(r);
        attn_shapes(r);
    }
    size_t most = UNCOUNTED_LINES;
    for (size_t i = 0; i < a->n_uncounted && i < most; i++)
        printf("  %-*s %s\n", w, i ? "" : "not counted",
               fc_report_uncounted_words(&a->uncounted[i], line, sizeof line));
    if (a->n_uncounted > most)
        printf("  %-*s (%zu more names in --json)\n", w, "", a->n_uncounted - most);
    /* kernels the launch hooks could not see (a static runtime): counted
     * only where CUPTI saw them, which the note says */
    if (a->launch_note[0])
        printf("  %-*s %s\n", w, "launches", a->launch_note);
}

void fci_text_mix(const fci_run *r)
{
    char mix[640];
    printf("  %-*s %s\n", r->label_w, "HFU at mix", fci_fmt_mix_line(r->mix, mix, sizeof mix));
}

void fci_text_split(const fci_run *r, const char *counts)
{
    printf("  %-*s a guess in %s: %s\n", r->label_w, "split", counts, r->unsure_reasons);
    if (r->advice && r->advice[0])
        printf("  %-*s to make it exact: %s\n", r->label_w, "", r->advice);
}

void fci_text_gpu(const fci_run *r)
{
    fci_gpu_print_text(r->gpu);
}
