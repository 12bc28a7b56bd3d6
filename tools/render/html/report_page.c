/* SPDX-License-Identifier: Apache-2.0 */
/* report_page.c - 'flopcount report --html': the figures of the text
 * report (same view, same phrases and number formats) as one page:
 * headline figures, iterations, phase split, counted versus formula as a
 * waterfall, top shapes. data-k attributes name the field of
 * 'flopcount report --json' that holds each headline figure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages.h"
#include "render_fmt.h"
#include "render_forms.h"
#include "svg.h"

static double share(fc_u128 part, fc_u128 all)
{
    double a = fc_u128_to_double(all);
    return a > 0 ? fc_u128_to_double(part) / a : NAN;
}

static void cards(fc_html *h, const fc_report_view *v, const fci_run *run)
{
    char a[64], b[160], e[FC_U128_DIGITS];
    int it = v->has_iterations, peak = v->peak > 0;
    const char *nopeak = run->no_peak;
    fci_html_cards_begin(h);
    fci_html_card(h, "measured.hfu", "HFU", fci_fmt_pct(v->hfu, a, sizeof a),
                  !it    ? "no iterations found"
                  : peak ? "all counted FLOPs / (GPUs x peak x time)"
                         : nopeak);
    fci_html_run_mix_card(h, run);
    fci_html_card(h, "measured.mfu", "MFU measured", fci_fmt_pct(v->mfu, a, sizeof a),
                  v->recompute_guessed
                      ? "counted FLOPs less recompute; an estimate: the split is a guess"
                      : "counted FLOPs less recompute");
    fci_html_card(h, v->has_model ? "formula.mfu" : NULL, "MFU formula",
                  fci_fmt_pct(v->formula_mfu, a, sizeof a),
                  v->has_model ? "model FLOPs / (GPUs x peak x measured time)"
                               : "give the model (--layers ... or --config hf.json)");
    fci_html_card(h, it ? "recompute_share" : NULL, "recompute",
                  fci_fmt_pct(it ? share(v->job_recompute, v->job_flops) : NAN, a, sizeof a),
                  v->recompute_guessed
                      ? "of the counted FLOPs per iteration; a guess (see the split)"
                      : "of the counted FLOPs per iteration");
    if (it)
        snprintf(b, sizeof b, "median of %zu steady iteration%s", v->n_steady,
                 v->n_steady == 1 ? "" : "s");
    else
        snprintf(b, sizeof b, "no iterations found");
    fci_html_card(h, it ? "measured.seconds_per_iteration" : NULL, "time per iteration",
                  fci_fmt_seconds(it ? v->seconds : NAN, a, sizeof a), b);
    const char *whose = v->rep.is_merge ? " (all ranks)" : v->scale > 1 ? " (job)" : "";
    if (it)
        snprintf(b, sizeof b, "%s FLOPs%s", fc_u128_to_str(v->job_flops, e), whose);
    else
        snprintf(b, sizeof b, "no iterations found");
    fci_html_card(h, it ? "measured.flops_per_iteration~si" : NULL, "FLOPs per iteration",
                  it ? fci_fmt_flop(v->job_flops, a, sizeof a) : "n/a", b);
    snprintf(a, sizeof a, "%lld", (long long)v->gpus);
    fci_html_card(h, "measured.gpus", "GPUs", a, fci_report_gpus_from(v));
    const fc_report *r = &v->rep;
    if (r->attn.has && r->attn.calls > 0) { /* counted fused attention: its share */
        snprintf(b, sizeof b, "of the counted FLOPs: %s in %llu fused-attention calls",
                 fc_u128_to_str(r->totals.attention_flops, e), (unsigned long long)r->attn.calls);
        fci_html_card(
            h, "attention.share_of_counted", "attention",
            fci_fmt_pct(share(r->totals.attention_flops, r->totals.counted_flops), a, sizeof a), b);
    }
    fci_html_run_peak_card(h, run);
    fci_html_cards_end(h);
}

static void totals_table(fc_html *h, const fc_report_view *v, const fci_run *run)
{
    static const char *const head[] = {"", "#figure", "what"};
    const fc_report *r = &v->rep;
    char e[FC_U128_DIGITS], s[48], t[32], line[512];
    fci_html_table_begin(h, "totals", "the whole run");
    fci_html_head_row(h, head, 3);
    fci_html_run_gemm_row(h, run);
    if (r->attn.calls + r->attn.failed_calls > 0) {
        snprintf(line, sizeof line,
                 "%s in %llu fused-attention calls (%llu failed); the section "
                 "below has them by source and shape",
                 fci_fmt_flop(r->totals.attention_flops, s, sizeof s),
                 (unsigned long long)r->attn.calls, (unsigned long long)r->attn.failed_calls);
        fci_html_fig_row(h, "attention", "totals.attention_flops",
                         fc_u128_to_str(r->totals.attention_flops, e), line);
        fci_html_fig_row(h, "counted total", "totals.counted_flops",
                         fc_u128_to_str(r->totals.counted_flops, e), "GEMMs + attention");
    }
    if (v->has_iterations) {
        snprintf(s, sizeof s, "%llu", (unsigned long long)r->iterations.count);
        snprintf(line, sizeof line, "(%s), %zu %s; median %s",
                 r->iterations.detected_by[0] ? r->iterations.detected_by : "?", v->n_steady,
                 r->is_merge ? "aligned across ranks" : "steady (no warm-up, no open end)",
                 fci_fmt_seconds(v->seconds, t, sizeof t));
        fci_html_fig_row(h, "iterations", "iterations.count", s, line);
    } else {
        snprintf(line, sizeof line, "no iterations found%s%s", r->utilization_reason[0] ? ": " : "",
                 r->utilization_reason);
        fci_html_fig_row(h, "iterations", NULL, "n/a", line);
    }
    if (r->has_eval && r->eval_passes.count) {
        snprintf(s, sizeof s, "%llu", (unsigned long long)r->eval_passes.count);
        snprintf(line, sizeof line, "%s FLOPs (not in the iterations)",
                 fc_u128_to_str(r->eval_passes.flops, e));
        fci_html_fig_row(h, "eval passes", NULL, s, line);
    }
    fci_html_table_end(h);
}

static void measured_table(fc_html *h, const fc_report_view *v, const fci_run *run)
{
    static const char *const head[] = {"", "#figure", "what"};
    char e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], t[32], p[16], line[1024];
    fci_html_table_begin(h, "measured", "measured, per iteration");
    fci_html_head_row(h, head, 3);
    if (!v->has_iterations) {
        const char *by = v->rep.iterations.detected_by;
        fci_html_fig_row(
            h, "counted FLOPs", NULL, "n/a",
            strcmp(by, "marker") == 0 || strcmp(by, "nvtx") == 0
                ? "no iterations found, though the program marks its steps: every GEMM was "
                  "declared evaluation or outside the marked steps"
                : "no iterations found (mark them with flopcount_step() or an NVTX range)");
        fci_html_table_end(h);
        return;
    }
    if (v->scale > 1)
        snprintf(line, sizeof line,
                 "%s on this rank; for the job x %ld ranks, assuming data-parallel replicas "
                 "('flopcount merge' sums the ranks exactly)",
                 fc_u128_to_str(v->file_flops, e2), v->scale);
    else
        snprintf(line, sizeof line, "%s", v->rep.is_merge ? "all ranks" : "");
    fci_html_fig_row(h, "counted FLOPs", "measured.flops_per_iteration",
                     fc_u128_to_str(v->job_flops, e1), line);
    snprintf(line, sizeof line, "(%s of counted)%s",
             fci_fmt_pct(share(v->job_recompute, v->job_flops), p, sizeof p),
             v->recompute_guessed ? "; the split is a guess in some iterations"
             : v->n_ambiguous     ? "; of the iterations split for sure"
                                  : "");
    fci_html_fig_row(h, "recompute", "measured.recompute_flops_per_iteration",
                     fc_u128_to_str(v->job_recompute, e1), line);
    if (v->job_xs)
        fci_html_fig_row(h, "attention excess", "measured.attention_excess_flops_per_iteration",
                         fc_u128_to_str(v->job_xs, e1),
                         "attention's backward beyond 2x its forward (the kernels recompute "
                         "QK^T); left out of MFU");
    fci_html_fig_row(h, "time", "measured.seconds_per_iteration",
                     fci_fmt_seconds(v->seconds, t, sizeof t), "(median)");
    if (v->peak <= 0) {
        fci_html_fig_row(h, "HFU, MFU", NULL, "n/a", run->no_peak);
    } else {
        snprintf(line, sizeof line, "all counted FLOPs / (%lld GPU%s [%s] x peak x time); peak %s",
                 (long long)v->gpus, v->gpus == 1 ? "" : "s", fci_report_gpus_from(v),
                 v->peak_desc);
        fci_html_fig_row(h, "HFU", "measured.hfu", fci_fmt_pct(v->hfu, p, sizeof p), line);
        snprintf(line, sizeof line, "counted FLOPs less recompute%s%s",
                 v->job_xs ? " and the attention excess" : "",
                 v->recompute_guessed ? " (an estimate: the split is a guess)" : "");
        fci_html_fig_row(h, "MFU measured", "measured.mfu", fci_fmt_pct(v->mfu, p, sizeof p), line);
    }
    if (v->rep.iterations.ambiguous_iterations > 0 || v->n_ambiguous > 0) {
        snprintf(line, sizeof line, "a guess in %llu of %llu iterations: %.300s%s%.200s",
                 (unsigned long long)v->rep.iterations.ambiguous_iterations,
                 (unsigned long long)v->rep.iterations.count, v->rep.iterations.ambiguous_reasons,
                 v->rep.iterations.advice[0] ? ". To make it exact: " : "",
                 v->rep.iterations.advice);
        char cnt[24];
        snprintf(cnt, sizeof cnt, "%llu",
                 (unsigned long long)v->rep.iterations.ambiguous_iterations);
        fci_html_fig_row(h, "split unsure", "iterations.ambiguous_iterations", cnt, line);
    }
    fci_html_table_end(h);
}

static void formula_table(fc_html *h, const fc_report_view *v)
{
    static const char *const head[] = {"", "#figure", "what"};
    char e[FC_U128_DIGITS], p[16], d[256], cap[300], line[160];
    snprintf(cap, sizeof cap, "formula (%s)", fci_report_model_desc(v, d, sizeof d));
    fci_html_table_begin(h, "formula", cap);
    fci_html_head_row(h, head, 3);
    fci_html_fig_row(h, "model FLOPs", "formula.model_flops_per_iteration",
                     fc_u128_to_str(v->f.model_flops_per_iteration, e), "per iteration, all GPUs");
    fci_html_fig_row(h, "hardware FLOPs", "formula.hardware_flops_per_iteration",
                     fc_u128_to_str(v->f.hardware_flops_per_iteration, e),
                     "model FLOPs plus the formula's recompute");
    if (v->peak > 0 && !isnan(v->formula_mfu)) {
        snprintf(line, sizeof line, "model FLOPs / (%lld GPU%s x peak x measured time)",
                 (long long)v->gpus, v->gpus == 1 ? "" : "s");
        fci_html_fig_row(h, "MFU formula", "formula.mfu", fci_fmt_pct(v->formula_mfu, p, sizeof p),
                         line);
    }
    fci_html_table_end(h);
}

static void headline(fc_html *h, const fc_report_view *v, const fci_run *run)
{
    fci_html_section_begin(h, "headline", "Headline figures");
    cards(h, v, run);
    totals_table(h, v, run);
    measured_table(h, v, run);
    fci_html_run_mix_table(h, run);
    if (v->has_model)
        formula_table(h, v);
    fci_html_section_end(h);
}

/* The report's iterations as chart bars: all listed, warm-up and open end
 * marked as the steady rule (fc_report_steady) leaves them out. */
static int iterations(fc_html *h, const fc_report_view *v)
{
    const fc_report *r = &v->rep;
    size_t n = r->iterations.n_list, from = 0, to = n;
    fc_html_iter *it = calloc(n ? n : 1, sizeof *it);
    if (it == NULL)
        return -1;
    if (!r->is_merge)
        fc_report_steady(r->iterations.list, n, &from, &to);
    for (size_t i = 0; i < n; i++) {
        const fc_report_iter *ri = &r->iterations.list[i];
        it[i] = (fc_html_iter){
            ri->index,          ri->seconds,         NAN,      ri->flops, ri->forward_flops,
            ri->backward_flops, ri->recompute_flops, i < from, i >= to,   -1,
            ri->ambiguous};
        if (i + 1 < n)
            it[i].pause_after = r->iterations.list[i + 1].start_seconds - ri->start_seconds -
                                ri->seconds; /* NaN when a start is missing */
    }
    char about[256];
    if (r->is_merge)
        snprintf(about, sizeof about,
                 "Aligned steps of a merged report: each rank's steady iterations, a step's "
                 "time its slowest rank's, its FLOPs summed over ranks.");
    else
        snprintf(about, sizeof about,
                 "Every iteration the report lists (found by: %s). The first iteration (warm-up) "
                 "and an open-ended last one are left out of the median.",
                 r->iterations.detected_by[0] ? r->iterations.detected_by : "?");
    fc_html_iters s = {it,
                       n,
                       r->iterations.count,
                       v->has_iterations ? v->seconds : NAN,
                       r->is_merge,
                       about,
                       r->has_eval ? r->eval_passes.count : 0,
                       r->eval_passes.flops,
                       r->eval_passes.seconds};
    int rc = fci_html_iterations(h, &s);
    if (rc == 0)
        rc = fci_html_phases(h, &s);
    free(it);
    return rc;
}

/* The waterfall from the formula's model FLOPs to the counted FLOPs. */
typedef struct step {
    const char *label; /* under the chart's bar; may hold '\n' */
    const char *name;  /* in the table */
    fc_u128 from, to;
    const char *cls;
    const char *why; /* NULL: a total */
} step;

typedef struct steps {
    step s[FC_GAP_COUNT + 6];
    size_t n;
} steps;

static void add(steps *w, const char *label, const char *name, fc_u128 from, fc_u128 to,
                const char *cls, const char *why)
{
    w->s[w->n++] = (step){label, name, from, to, cls, why};
}

static void build_steps(const fc_report_view *v, steps *w)
{
    static const char *const term_label[FC_GAP_COUNT] = {
        "- attention\ncore", "- first-layer\ndgrad", "- logits", "attention\nband"};
    const fc_gap *g = &v->gap;
    fc_u128 model = v->f.model_flops_per_iteration, counted = fc_report_counted_model(v);
    w->n = 0;
    add(w, "formula\nmodel FLOPs", "formula's model FLOPs", 0, model, "s-formula", NULL);
    fc_u128 at = model;
    for (int t = 0; t < FC_GAP_COUNT; t++)
        if (g->explained & (1u << t)) { /* below the formula: taken away; above: added */
            fc_u128 next = g->sign < 0 ? (at > g->term[t] ? at - g->term[t] : 0)
                                       : fc_u128_sat_add(at, g->term[t]);
            add(w, term_label[t], fc_gap_term_name(t), at, next, g->sign < 0 ? "s-down" : "s-up",
                fc_gap_term_why(t));
            at = next;
        }
    if (at != counted)
        add(w, g->sign > 0 ? "+ not in\nthe formula" : "not\nexplained",
            g->sign > 0 ? "not in the formula" : "not explained", at, counted,
            counted > at ? "s-up" : "s-down",
            g->sign > 0 ? "GEMMs the formula does not model" : "no known term accounts for it");
    add(w, "counted less\nrecompute",
        v->job_xs ? "counted FLOPs less recompute and the attention excess"
                  : "counted FLOPs less recompute",
        0, counted, "s-total", NULL);
    if (v->job_recompute)
        add(w, "+ recompute", "recompute", counted, counted + v->job_recompute, "s-rc",
            "measured: forward GEMMs repeated in the backward");
    if (v->job_xs)
        add(w, "+ attention\nexcess", "attention excess", counted + v->job_recompute, v->job_flops,
            "s-odd",
            "measured: attention's backward beyond 2x its forward (the kernels recompute "
            "QK^T)");
    add(w, "counted\nFLOPs", "counted FLOPs", 0, v->job_flops, "s-total", NULL);
}

static void step_label(void *ctx, size_t i, char *buf, size_t size)
{
    snprintf(buf, size, "%s", ((const steps *)ctx)->s[i].label);
}

static void waterfall_chart(fc_html *h, const steps *w)
{
    fc_svg s;
    double top = 0;
    for (size_t i = 0; i < w->n; i++)
        top = fmax(top, fmax(fc_u128_to_double(w->s[i].from), fc_u128_to_double(w->s[i].to)));
    fci_svg_axis_fit(&s.left, top * 1.1, FC_UNIT_FLOP); /* room for the value labels */
    fci_svg_begin(&s, h, "from the formula's model FLOPs to the counted FLOPs, per iteration", w->n,
                  320, 0);
    fci_svg_axes(&s, "FLOPs per iteration", NULL);
    char tip[256], e[FC_U128_DIGITS], lbl[64], si[48];
    for (size_t i = 0; i < w->n; i++) {
        const step *st = &w->s[i];
        double a = fc_u128_to_double(st->from), b = fc_u128_to_double(st->to);
        fc_u128 d = st->to > st->from ? st->to - st->from : st->from - st->to;
        if (st->why)
            snprintf(lbl, sizeof lbl, "%s%s", st->to >= st->from ? "+" : "\xe2\x88\x92",
                     fci_fmt_flop(d, si, sizeof si));
        else
            fci_fmt_flop(st->to, lbl, sizeof lbl);
        snprintf(tip, sizeof tip, "%s: %s FLOPs", lbl, fc_u128_to_str(st->why ? d : st->to, e));
        fci_svg_bar(&s, i, a, b, 0, st->cls, tip);
        fci_svg_value(&s, i, fmax(a, b), lbl);
    }
    fci_svg_xlabels(&s, step_label, (void *)w, NULL);
    fci_svg_end(&s);
}

/* The legend of the classes the waterfall uses. */
static void legend(fc_html *h, const steps *w)
{
    static const char *const cls[] = {"s-formula", "s-total", "s-down", "s-up", "s-rc", "s-odd"};
    static const char *const lbl[] = {"formula", "counted",   "taken away",
                                      "added",   "recompute", "attention excess"};
    const char *c[6], *l[6];
    size_t n = 0;
    for (size_t k = 0; k < 6; k++)
        for (size_t i = 0; i < w->n; i++)
            if (strcmp(w->s[i].cls, cls[k]) == 0) {
                c[n] = cls[k];
                l[n++] = lbl[k];
                break;
            }
    fci_html_legend(h, c, l, n);
}

static void waterfall_table(fc_html *h, const fc_report_view *v, const steps *w)
{
    static const char *const head[] = {"step", "#FLOPs", "why"};
    char e[FC_U128_DIGITS];
    fci_html_table_begin(h, "difference-table", "per iteration, all GPUs");
    fci_html_head_row(h, head, 3);
    for (size_t i = 0; i < w->n; i++) {
        const step *st = &w->s[i];
        fc_u128 d = st->to > st->from ? st->to - st->from : st->from - st->to;
        const char *key = NULL;
        if (i == 0)
            key = "formula.model_flops_per_iteration";
        else if (i + 1 == w->n)
            key = "measured.flops_per_iteration";
        else if (st->why == NULL)
            key = "difference.counted_model_flops_per_iteration";
        fci_html_row_begin(h, st->why ? NULL : "total");
        fci_html_td(h, st->name, 0);
        fci_html_td_key(h, key, fc_u128_to_str(st->why ? d : st->to, e), 1);
        fci_html_raw(h, "<td class=\"w\">");
        fci_html_esc(h, st->why ? st->why : "");
        fci_html_raw(h, "</td>");
        fci_html_row_end(h);
    }
    const fc_gap *g = &v->gap;
    if (g->sign < 0)
        for (int t = 0; t < FC_GAP_COUNT; t++)
            if (!(g->explained & (1u << t)) && (g->offered & (1u << t))) {
                char name[160];
                snprintf(name, sizeof name, "(checked, not part of it: %s)", fc_gap_term_name(t));
                fci_html_row_begin(h, "muted");
                fci_html_td(h, name, 0);
                fci_html_td(h, fc_u128_to_str(g->term[t], e), 1);
                fci_html_td(h, "", 0);
                fci_html_row_end(h);
            }
    fci_html_table_end(h);
}

static void difference(fc_html *h, const fc_report_view *v)
{
    char line[512];
    fci_html_section_begin(h, "difference", "Counted versus formula");
    if (!v->has_model) {
        fci_html_para(h, "note",
                      "No model given: give the model flags (--layers --hidden --heads "
                      "--vocab --seq --batch, or --config hf.json) to compare the "
                      "counted FLOPs with the formula's.");
        fci_html_section_end(h);
        return;
    }
    if (!v->has_iterations) {
        fci_html_para(h, "note", "n/a: no iterations found to compare per iteration");
        fci_html_section_end(h);
        return;
    }
    fci_html_para(h, NULL, fci_report_gap_sentence(v, line, sizeof line));
    if (v->gap.sign != 0)
        fci_html_para(h, NULL, fci_report_gap_verdict(v, line, sizeof line));
    steps w;
    build_steps(v, &w);
    waterfall_chart(h, &w);
    legend(h, &w);
    waterfall_table(h, v, &w);
    snprintf(line, sizeof line, "recompute: ");
    fci_report_recompute_sentence(v, line + strlen(line), sizeof line - strlen(line));
    fci_html_para(h, NULL, line);
    fci_html_section_end(h);
}

int fci_html_report_page(fc_html *h, const fc_report_view *v)
{
    char sub[1024], src[512], cmp[700];
    fci_run run;
    fci_run_of_report(v, &run);
    snprintf(sub, sizeof sub, "%s: %s", v->path, fci_report_source_words(v, src, sizeof src));
    fci_html_page_begin(h, "flopcount report", sub);
    if (v->rep.command && v->rep.command[0]) {
        fci_html_raw(h, "<p class=\"note\">command: <code>");
        fci_html_esc(h, v->rep.command);
        fci_html_raw(h, "</code></p>\n");
    }
    headline(h, v, &run);
    if (iterations(h, v) != 0)
        return -1;
    difference(h, v);
    fci_html_run_attention(
        h, &run, v->attn_cmp.counted ? fc_report_attention_cmp_words(v, cmp, sizeof cmp) : NULL);
    fci_html_run_shapes(h, &run);
    fci_html_page_end(h);
    return 0;
}
