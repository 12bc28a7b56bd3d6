/* SPDX-License-Identifier: Apache-2.0 */
/* attention_table.c - the "attention" section both HTML pages share:
 * counted fused attention beside the GEMMs (a chart of the counted FLOPs
 * by source, and the same figures in a table), the attention shapes with
 * their executed, model and tile FLOPs (bounds marked as bounds), and what
 * is not counted and why. Words and number formats of the text report
 * (tools/report/attention_view.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pages.h"
#include "render_fmt.h"
#include "svg.h"

#define ATTN_ROWS 10

typedef struct band {
    const char *name;
    uint64_t calls;
    fc_u128 flops;
} band;

static void band_label(void *ctx, size_t i, char *buf, size_t size)
{
    snprintf(buf, size, "%s", ((const band *)ctx)[i].name);
}

/* The counted FLOPs by who ran them: the GEMMs, then each source. */
static void sources(fc_html *h, const fc_html_attn *s)
{
    static const char *const head[] = {"", "#calls", "#FLOPs", "#exact", "#share of counted"};
    band b[1 + FC_REPORT_ATTN_SOURCES];
    size_t n = 0;
    b[n++] = (band){"GEMMs", s->gemm_calls, s->gemm_flops};
    for (size_t i = 0; i < s->a->n_by_source; i++)
        b[n++] =
            (band){s->a->by_source[i].name, s->a->by_source[i].calls, s->a->by_source[i].flops};
    double top = 0, all = fc_u128_to_double(s->counted_flops);
    for (size_t i = 0; i < n; i++)
        top = fmax(top, fc_u128_to_double(b[i].flops));
    fc_svg g;
    fci_svg_axis_fit(&g.left, top * 1.1, FC_UNIT_FLOP);
    fci_svg_begin(&g, h, "counted FLOPs by who ran them: GEMMs and each attention source", n, 220,
                  0);
    fci_svg_axes(&g, "FLOPs counted", NULL);
    char tip[160], e[FC_U128_DIGITS], si[48];
    for (size_t i = 0; i < n; i++) {
        snprintf(tip, sizeof tip, "%s: %s FLOPs in %llu calls", b[i].name,
                 fc_u128_to_str(b[i].flops, e), (unsigned long long)b[i].calls);
        fci_svg_bar(&g, i, 0, fc_u128_to_double(b[i].flops), 0, i ? "s-odd" : "s-total", tip);
        fci_svg_value(&g, i, fc_u128_to_double(b[i].flops),
                      fci_fmt_flop(b[i].flops, si, sizeof si));
    }
    fci_svg_xlabels(&g, band_label, b, NULL);
    fci_svg_end(&g);
    fci_html_table_begin(h, "attn-sources", "counted FLOPs by who ran them (the chart above)");
    fci_html_head_row(h, head, sizeof head / sizeof head[0]);
    for (size_t i = 0; i < n; i++) {
        char c[32], p[16];
        fci_html_row_begin(h, NULL);
        fci_html_td(h, b[i].name, 0);
        snprintf(c, sizeof c, "%llu", (unsigned long long)b[i].calls);
        fci_html_td(h, c, 1);
        fci_html_td(h, fci_fmt_flop(b[i].flops, si, sizeof si), 1);
        fci_html_td(h, fc_u128_to_str(b[i].flops, e), 1);
        fci_html_td(
            h, fci_fmt_pct(all > 0 ? fc_u128_to_double(b[i].flops) / all : NAN, p, sizeof p), 1);
        fci_html_row_end(h);
    }
    fci_html_table_end(h);
}

static void shape_row(fc_html *h, const fc_report_attn_shape *s, double top)
{
    char b[192], e[FC_U128_DIGITS];
    const char *le = s->bound ? "<= " : "";
    fci_html_row_begin(h, s->bound ? "muted" : NULL);
    fci_html_td(h, s->source, 0);
    fci_html_td(h, s->backward ? "backward" : "forward", 0);
    if (s->overflow) {
        fci_html_td(h, "(shapes beyond the table)", 0);
        fci_html_td(h, "", 0);
        fci_html_td(h, "", 0);
        fci_html_td(h, "", 0);
    } else {
        snprintf(b, sizeof b, "%lld x %lld (kv %lld)", (long long)s->batch, (long long)s->heads,
                 (long long)s->kv_heads);
        fci_html_td(h, b, 0);
        snprintf(b, sizeof b, "%s%lld x %s%lld", s->bound ? "<=" : "", (long long)s->seq_q,
                 s->bound ? "<=" : "", (long long)s->seq_k);
        fci_html_td(h, b, 0);
        if (s->head_dim_v != s->head_dim)
            snprintf(b, sizeof b, "%lld/%lld", (long long)s->head_dim, (long long)s->head_dim_v);
        else
            snprintf(b, sizeof b, "%lld", (long long)s->head_dim);
        fci_html_td(h, b, 0);
        char m[128];
        snprintf(b, sizeof b, "%s%s", fc_report_attn_mask_words(s, m, sizeof m),
                 s->bound ? " (a bound)" : "");
        fci_html_td(h, b, 0);
    }
    snprintf(b, sizeof b, "%llu", (unsigned long long)s->calls);
    fci_html_td(h, b, 1);
    snprintf(b, sizeof b, "%llu", (unsigned long long)s->failed_calls);
    fci_html_td(h, b, 1);
    snprintf(b, sizeof b, "%s%s", le, fc_u128_to_str(s->flops, e));
    fci_html_td(h, b, 1);
    snprintf(b, sizeof b, "%s%s", le, fc_u128_to_str(s->model_flops, e));
    fci_html_td(h, b, 1);
    fci_html_td(h, s->tiles_known ? fc_u128_to_str(s->tile_flops, e) : "not known", 1);
    fci_html_raw(h, "<td class=\"bar\">");
    fci_svg_rowbar(h, top > 0 ? fc_u128_to_double(s->flops) / top : 0, "s-odd");
    fci_html_raw(h, "</td>");
    fci_html_row_end(h);
}

static void shapes(fc_html *h, const fc_report_attention *a)
{
    static const char *const head[] = {"source",    "direction", "b x h (kv)", "s_q x s_k",
                                       "d",         "mask",      "#calls",     "#failed",
                                       "#executed", "#model",    "#tiles",     ""};
    size_t idx[ATTN_ROWS];
    size_t n = fc_report_attn_top(a, idx, ATTN_ROWS);
    if (n == 0)
        return;
    char cap[200];
    snprintf(cap, sizeof cap,
             "%zu of %zu attention shapes, most executed FLOPs first; executed (what HFU counts), "
             "model convention (what MFU counts), the kernel's tiles when known",
             n, a->n_shapes);
    fci_html_table_begin(h, "attn-table", cap);
    fci_html_head_row(h, head, sizeof head / sizeof head[0]);
    double top = fc_u128_to_double(a->shapes[idx[0]].flops);
    for (size_t i = 0; i < n; i++)
        shape_row(h, &a->shapes[idx[i]], top);
    fci_html_table_end(h);
    uint64_t bc;
    fc_u128 bf;
    fc_report_attn_bound(a, &bc, &bf);
    char e[FC_U128_DIGITS], e2[FC_U128_DIGITS], line[300];
    if (bc) {
        snprintf(line, sizeof line,
                 "Upper bounds: %llu calls of shapes whose lengths are maxima (varlen, padding); "
                 "their %s FLOPs are at most that.",
                 (unsigned long long)bc, fc_u128_to_str(bf, e));
        fci_html_para(h, "note", line);
    }
    uint64_t fcalls;
    fc_u128 fx, fm;
    fc_report_attn_failed(a, &fcalls, &fx, &fm);
    if (fcalls) {
        snprintf(line, sizeof line,
                 "Failed: %llu calls returned an error and are counted as nothing; they would have "
                 "executed %s FLOPs (%s at the model convention).",
                 (unsigned long long)fcalls, fc_u128_to_str(fx, e), fc_u128_to_str(fm, e2));
        fci_html_para(h, "note", line);
    }
}

static void uncounted(fc_html *h, const fc_report_attention *a)
{
    static const char *const head[] = {"kernel or call", "class",  "why not counted",
                                       "detail",         "#calls", "#failed"};
    if (a->n_uncounted == 0)
        return;
    fci_html_table_begin(h, "uncounted-table", "seen doing matrix work, not counted");
    fci_html_head_row(h, head, sizeof head / sizeof head[0]);
    for (size_t i = 0; i < a->n_uncounted; i++) {
        const fc_report_uncounted *u = &a->uncounted[i];
        char c[32];
        fci_html_row_begin(h, NULL);
        fci_html_td(h, u->name, 0);
        fci_html_td(h, u->kclass, 0);
        fci_html_td(h, fc_report_uncounted_why(u->reason), 0);
        fci_html_td(h, u->detail, 0);
        snprintf(c, sizeof c, "%llu", (unsigned long long)u->calls);
        fci_html_td(h, c, 1);
        snprintf(c, sizeof c, "%llu", (unsigned long long)u->failed_calls);
        fci_html_td(h, c, 1);
        fci_html_row_end(h);
    }
    fci_html_table_end(h);
    fci_html_para(h, "note",
                  "Their time is in the kernel split (--kernels), their FLOPs in the hardware "
                  "counters (--hw-flops); the counted FLOPs above leave them out.");
}

void fci_html_attention(fc_html *h, const fc_html_attn *s)
{
    const fc_report_attention *a = s->a;
    char e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], line[800];
    fci_html_section_begin(h, "attention", "Fused attention");
    if (a->calls + a->failed_calls > 0) {
        snprintf(line, sizeof line,
                 "%llu fused-attention calls%s counted from their parameters (%llu failed): %s "
                 "FLOPs executed, %s at the model convention (the backward at 2x its forward, "
                 "not the 2.5x the kernels run).",
                 (unsigned long long)a->calls, s->whose, (unsigned long long)a->failed_calls,
                 fc_u128_to_str(a->flops, e1), fc_u128_to_str(a->model_flops, e2));
        fci_html_para(h, NULL, line);
        sources(h, s);
        if (s->have_xs && s->xs) {
            snprintf(line, sizeof line,
                     "Per iteration, %s FLOPs of attention's backward are beyond the model "
                     "convention: HFU counts them, measured MFU leaves them out.",
                     fc_u128_to_str(s->xs, e1));
            fci_html_para(h, "note", line);
        }
        if (s->comparison)
            fci_html_para(h, NULL, s->comparison);
        shapes(h, a);
    } else {
        fci_html_para(h, "note", "No fused-attention call was counted.");
    }
    uncounted(h, a);
    /* kernels past the launch hooks (a static CUDA runtime): the report's
     * launch note, as the text report gives it */
    if (a->launch_note[0])
        fci_html_para(h, "warn", a->launch_note);
    fci_html_section_end(h);
}
