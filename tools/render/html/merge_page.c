/* SPDX-License-Identifier: Apache-2.0 */
/* merge_page.c - 'flopcount merge --html': the merged job of the text
 * output (same fc_merge, same phrases and number formats) as one page:
 * headline figures and problems, aligned steps, phase split, a chart of
 * the ranks with the straggler, FLOP groups, every rank's row, top
 * shapes. data-k attributes name the field of 'flopcount merge --json'
 * that holds each headline figure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages.h"
#include "render_fmt.h"
#include "render_forms.h"
#include "svg.h"

/* Up to this world size the rank chart has a place for every rank, a
 * missing one shown as a gap; above it only the merged ranks. */
#define CHART_WORLD_MAX 4096

static void cards(fc_html *h, const fc_merge *m, const fci_run *run)
{
    char a[64], b[200], e[FC_U128_DIGITS];
    int peak = m->peak_flops > 0, steps = m->n_steps > 0;
    const char *nopeak = run->no_peak;
    fci_html_cards_begin(h);
    fci_html_card(h, peak ? "utilization.hfu" : NULL, "cluster HFU",
                  fci_fmt_pct(m->hfu, a, sizeof a),
                  peak ? "median step's FLOPs on all ranks / (ranks x peak x time)" : nopeak);
    if (peak || m->mix.ok || m->mix.n > 0) /* an unknown mix: its reason */
        fci_html_run_mix_card(h, run);
    snprintf(b, sizeof b, "measured: counted FLOPs less recompute%s%s",
             m->xs_per_iteration ? " and the attention excess" : "",
             m->n_ambiguous_steps ? "; an estimate, the split is a guess" : "");
    fci_html_card(h, peak ? "utilization.mfu" : NULL, "cluster MFU",
                  fci_fmt_pct(m->mfu, a, sizeof a), b);
    fci_html_card(h, steps ? "iterations.median_seconds" : NULL, "median step",
                  fci_fmt_seconds(m->median_step_seconds, a, sizeof a), "slowest rank per step");
    snprintf(b, sizeof b, "%s FLOPs on all ranks",
             steps ? fc_u128_to_str(m->flops_per_iteration, e) : "n/a");
    fci_html_card(h, steps ? "iterations.flops_per_iteration~si" : NULL, "FLOPs per iteration",
                  steps ? fci_fmt_flop(m->flops_per_iteration, a, sizeof a) : "n/a", b);
    snprintf(a, sizeof a, "%zu", m->n_used);
    snprintf(b, sizeof b, "of world size %ld, on %zu host%s", m->world_size, m->n_hosts,
             m->n_hosts == 1 ? "" : "s");
    fci_html_card(h, "merge.ranks_merged", "ranks merged", a, b);
    if (m->attn.calls > 0) { /* counted fused attention, all ranks */
        double all = fc_u128_to_double(m->sum.totals.counted_flops);
        char p[16];
        snprintf(b, sizeof b, "%s of the counted FLOPs, in %llu fused-attention calls",
                 fci_fmt_pct(all > 0 ? fc_u128_to_double(m->attn.flops) / all : NAN, p, sizeof p),
                 (unsigned long long)m->attn.calls);
        fci_html_card(h, "attention.flops~si", "attention",
                      fci_fmt_flop(m->attn.flops, a, sizeof a), b);
    }
    if (fc_merge_is_straggler(m)) {
        snprintf(a, sizeof a, "rank %ld", m->straggler);
        if (m->others_seconds > 0)
            snprintf(b, sizeof b, "+%.1f%% behind the others' median",
                     (m->straggler_seconds - m->others_seconds) / m->others_seconds * 100.0);
        else
            snprintf(b, sizeof b, "behind the others' median");
    } else {
        snprintf(a, sizeof a, "none");
        if (m->straggler < 0)
            snprintf(b, sizeof b, "n/a");
        else
            snprintf(b, sizeof b, "the slowest rank is within %.0f%% of the others",
                     FC_STRAGGLER_PCT);
    }
    fci_html_card(h, NULL, "straggler", a, b);
    fci_html_run_peak_card(h, run);
    fci_html_cards_end(h);
}

static void problems(fc_html *h, const fc_merge *m)
{
    char ranks[256], line[512];
    if (m->n_missing) {
        fc_rank_ranges(m->missing, m->n_missing, ranks, sizeof ranks);
        snprintf(line, sizeof line, "MISSING ranks: %s (%zu of %ld)", ranks, m->n_missing,
                 m->world_size);
        fci_html_para(h, "warn", line);
    }
    for (size_t i = m->n_used; i < m->n_ranks; i++) {
        snprintf(line, sizeof line, "DUPLICATE rank %ld: %s ignored", m->ranks[i].rank,
                 m->ranks[i].path);
        fci_html_para(h, "warn", line);
    }
    if (m->world_disagrees)
        fci_html_para(h, "warn",
                      "WARNING: the reports name different world sizes; the largest is used");
    if (m->n_rankless)
        fci_html_para(h, "note", "note: the reports name no rank; numbered in the order given");
    if (m->n_not_complete) {
        snprintf(line, sizeof line,
                 "note: %zu report%s not complete (a snapshot, or the rank was killed)",
                 m->n_not_complete, m->n_not_complete == 1 ? " is" : "s are");
        fci_html_para(h, "note", line);
    }
}

static void summary(fc_html *h, const fc_merge *m, const fci_run *run)
{
    static const char *const head[] = {"", "#figure", "what"};
    char e[FC_U128_DIGITS], e2[FC_U128_DIGITS], s[48], t[32], u[16], line[512];
    fci_html_table_begin(h, "summary", "the job");
    fci_html_head_row(h, head, 3);
    fci_html_run_gemm_row(h, run);
    if (m->n_with_iterations == 0) {
        fci_html_fig_row(h, "iterations", NULL, "n/a", "no iterations found");
    } else if (m->n_with_iterations < m->n_used) {
        snprintf(line, sizeof line, "found on %zu of %zu ranks only; not aligned",
                 m->n_with_iterations, m->n_used);
        fci_html_fig_row(h, "iterations", NULL, "n/a", line);
    } else {
        snprintf(s, sizeof s, "%zu", m->n_steps);
        snprintf(line, sizeof line,
                 "aligned across %zu ranks (fewest counted by a rank: %llu); median step %s "
                 "(slowest rank per step)",
                 m->n_used, (unsigned long long)m->iter_count,
                 fci_fmt_seconds(m->median_step_seconds, t, sizeof t));
        fci_html_fig_row(h, "iterations", "iterations.count", s, line);
        if (m->n_steps) {
            snprintf(line, sizeof line, "(%s) on all ranks; recompute %s%s",
                     fci_fmt_flop(m->flops_per_iteration, s, sizeof s),
                     fc_u128_to_str(m->recompute_per_iteration, e2),
                     m->n_ambiguous_steps ? " (the split is a guess in some steps)" : "");
            fci_html_fig_row(h, "per iteration", "iterations.flops_per_iteration",
                             fc_u128_to_str(m->flops_per_iteration, e), line);
        }
    }
    if (m->peak_flops <= 0) {
        fci_html_fig_row(h, "utilization", NULL, "n/a", run->no_peak);
    } else if (isnan(m->hfu)) {
        snprintf(line, sizeof line, "needs aligned iterations with times (peak %s)", m->peak_desc);
        fci_html_fig_row(h, "utilization", NULL, "n/a", line);
    } else {
        snprintf(line, sizeof line,
                 "cluster HFU; MFU %s (measured: counted FLOPs less recompute%s%s) on %zu ranks; "
                 "peak %s",
                 fci_fmt_pct(m->mfu, u, sizeof u),
                 m->xs_per_iteration ? " and the attention excess" : "",
                 m->n_ambiguous_steps ? "; an estimate" : "", m->n_used, m->peak_desc);
        fci_html_fig_row(h, "utilization", "utilization.hfu", fci_fmt_pct(m->hfu, s, sizeof s),
                         line);
    }
    fci_html_table_end(h);
}

static int steps_sections(fc_html *h, const fc_merge *m)
{
    fc_html_iter *it = calloc(m->n_steps ? m->n_steps : 1, sizeof *it);
    if (it == NULL)
        return -1;
    for (size_t i = 0; i < m->n_steps; i++) {
        const fc_merge_step *st = &m->steps[i];
        it[i] = (fc_html_iter){st->index,   st->seconds,      NAN,           st->flops,
                               st->forward, st->backward,     st->recompute, 0,
                               0,           st->slowest_rank, st->ambiguous};
    }
    char about[256];
    if (m->n_with_iterations < m->n_used)
        snprintf(about, sizeof about,
                 "Iterations found on %zu of %zu ranks only: steps are not aligned.",
                 m->n_with_iterations, m->n_used);
    else
        snprintf(about, sizeof about,
                 "Iterations every merged rank listed (each rank's steady ones: no warm-up, no "
                 "open end), aligned by index: a step's time is its slowest rank's, its FLOPs "
                 "the sum over ranks.");
    fc_html_iters s = {it, m->n_steps, m->n_steps, m->median_step_seconds, 1, about, 0, 0, NAN};
    int rc = fci_html_iterations(h, &s);
    if (rc == 0)
        rc = fci_html_phases(h, &s);
    free(it);
    return rc;
}

/* The time the straggler is judged by: median step, or wall time. */
static double rank_seconds(const fc_merge *m, const fc_merge_rank *s)
{
    return m->straggler_by_wall || m->n_with_iterations < m->n_used ? s->wall_seconds
                                                                    : s->median_seconds;
}

static fc_u128 rank_flops(const fc_merge *m, const fc_merge_rank *s)
{
    return m->flops_basis_iteration ? s->flops_per_iteration : s->counted_flops;
}

typedef struct rank_axis {
    const fc_merge *m;
    int by_world; /* band = rank number; else band = index among merged ranks */
} rank_axis;

static void rank_label(void *ctx, size_t i, char *buf, size_t size)
{
    const rank_axis *ra = ctx;
    snprintf(buf, size, "%ld", ra->by_world ? (long)i : ra->m->ranks[i].rank);
}

static void rank_legend(fc_html *h, const fc_merge *m, int by_world, int wall, int named)
{
    char t[32];
    const char *cls[6], *lbl[6];
    char others[64];
    size_t n = 0;
    cls[n] = "s-time";
    lbl[n++] = wall ? "wall time" : "median step";
    if (named) {
        cls[n] = "s-hi";
        lbl[n++] = "straggler";
    }
    if (m->n_fgroups > 1) {
        cls[n] = "s-odd";
        lbl[n++] = "FLOPs differ from the largest group";
    }
    if (by_world && m->n_missing) {
        cls[n] = "s-warm";
        lbl[n++] = "missing rank (no report)";
    }
    cls[n] = "s-flop";
    lbl[n++] =
        m->flops_basis_iteration ? "FLOPs per iteration (right axis)" : "GEMM FLOPs (right axis)";
    if (m->straggler >= 0 && !isnan(m->others_seconds)) {
        snprintf(others, sizeof others, "the others' median %s",
                 fci_fmt_seconds(m->others_seconds, t, sizeof t));
        cls[n] = "s-med";
        lbl[n++] = others;
    }
    fci_html_legend(h, cls, lbl, n);
}

static void rank_chart(fc_html *h, const fc_merge *m)
{
    rank_axis ra = {m, m->world_size <= CHART_WORLD_MAX};
    size_t bands = ra.by_world ? (size_t)m->world_size : m->n_used;
    double tmax = 0, fmax_ = 0;
    for (size_t i = 0; i < m->n_used; i++) {
        double t = rank_seconds(m, &m->ranks[i]);
        if (!isnan(t))
            tmax = fmax(tmax, t);
        fmax_ = fmax(fmax_, fc_u128_to_double(rank_flops(m, &m->ranks[i])));
    }
    fc_svg s;
    fci_svg_axis_fit(&s.left, tmax * 1.08, FC_UNIT_SECONDS);
    fci_svg_axis_fit(&s.right, fmax_ * 1.08, FC_UNIT_FLOP);
    fci_svg_begin(&s, h, "time and FLOPs per rank", bands, 320, 1);
    int wall = m->straggler_by_wall || m->n_with_iterations < m->n_used;
    fci_svg_axes(&s, wall ? "wall seconds" : "median step (s)",
                 m->flops_basis_iteration ? "FLOPs per iteration" : "GEMM FLOPs");
    double *line = malloc((bands ? bands : 1) * sizeof *line);
    for (size_t b = 0; line && b < bands; b++)
        line[b] = NAN;
    char tip[256], t[32], e[FC_U128_DIGITS];
    int named = fc_merge_is_straggler(m);
    for (size_t i = 0; i < m->n_used; i++) {
        const fc_merge_rank *r = &m->ranks[i];
        size_t b = ra.by_world ? (size_t)r->rank : i;
        double sec = rank_seconds(m, r);
        int differs = m->n_fgroups > 1 && !fci_in_largest_group(m, r->rank);
        const char *cls = named && r->rank == m->straggler ? "s-hi" : differs ? "s-odd" : "s-time";
        snprintf(tip, sizeof tip, "rank %ld (%.64s): %s, %s FLOPs%s", r->rank, r->host,
                 fci_fmt_seconds(sec, t, sizeof t), fc_u128_to_str(rank_flops(m, r), e),
                 differs ? ", differs from the largest group" : "");
        if (!isnan(sec))
            fci_svg_bar(&s, b, 0, sec, 0, cls, tip);
        if (line)
            line[b] = fc_u128_to_double(rank_flops(m, r));
    }
    if (line)
        fci_svg_line(&s, line, bands, 1, "s-flop",
                     m->flops_basis_iteration ? "FLOPs per iteration" : "GEMM FLOPs");
    free(line);
    if (m->straggler >= 0 && !isnan(m->others_seconds)) {
        char lbl[64];
        snprintf(lbl, sizeof lbl, "the others' median %s",
                 fci_fmt_seconds(m->others_seconds, t, sizeof t));
        fci_svg_hline(&s, m->others_seconds, 0, "med", lbl);
    }
    if (named)
        for (size_t i = 0; i < m->n_used; i++)
            if (m->ranks[i].rank == m->straggler) {
                snprintf(tip, sizeof tip, "straggler: rank %ld", m->straggler);
                fci_svg_mark(&s, ra.by_world ? (size_t)m->straggler : i, 0, "s-hi", tip);
            }
    for (size_t j = 0; ra.by_world && j < m->n_missing; j++) {
        snprintf(tip, sizeof tip, "rank %ld: no report", m->missing[j]);
        fci_svg_bar(&s, (size_t)m->missing[j], 0, s.left.max, 0, "s-warm", tip);
    }
    fci_svg_xlabels(&s, rank_label, &ra, "rank");
    fci_svg_end(&s);
    rank_legend(h, m, ra.by_world, wall, named);
}

static void rank_row(fc_html *h, const fc_merge *m, const fc_merge_rank *s)
{
    char b[32], t[32], p[16], e[FC_U128_DIGITS];
    fci_html_row_begin(h, fc_merge_is_straggler(m) && s->rank == m->straggler ? "hi" : NULL);
    snprintf(b, sizeof b, "%ld", s->rank);
    fci_html_td(h, b, 1);
    fci_html_td(h, s->host, 0);
    fci_html_td(h, s->status, 0);
    fci_html_td(h, fc_u128_to_str(s->gemm_flops, e), 1);
    snprintf(b, sizeof b, "%llu", (unsigned long long)s->iter_count);
    fci_html_td(h, b, 1);
    fci_html_td(h, fci_fmt_seconds(s->median_seconds, t, sizeof t), 1);
    fci_html_td(h, s->has_iterations ? fc_u128_to_str(s->flops_per_iteration, e) : "-", 1);
    fci_html_td(h, fci_fmt_pct(fc_merge_rank_hfu(m, s), p, sizeof p), 1);
    fci_html_row_end(h);
}

static void ranks_section(fc_html *h, const fc_merge *m)
{
    static const char *const head[] = {"#rank",  "host",         "status",           "#GEMM FLOPs",
                                       "#iters", "#median step", "#FLOPs/iteration", "#HFU"};
    char words[256], line[300];
    fci_html_section_begin(h, "ranks", "Ranks and the straggler");
    snprintf(line, sizeof line, "straggler: %s", fci_merge_straggler_words(m, words, sizeof words));
    fci_html_para(h, fc_merge_is_straggler(m) ? "warn" : NULL, line);
    if (m->n_used > 0)
        rank_chart(h, m);
    fci_html_table_begin(h, "rank-table", "every merged rank");
    fci_html_head_row(h, head, sizeof head / sizeof head[0]);
    for (size_t i = 0; i < m->n_used; i++)
        rank_row(h, m, &m->ranks[i]);
    fci_html_table_end(h);
    fci_html_section_end(h);
}

/* Groups shown in the table (the text prints 12). */
#define GROUP_ROWS 64

static void consistency(fc_html *h, const fc_merge *m)
{
    static const char *const head[] = {"#FLOPs", "#ranks", "which", "#vs the largest group"};
    char line[300], e[FC_U128_DIGITS], n[32], ranks[200], d[32];
    fci_html_section_begin(h, "consistency", "FLOPs per rank");
    snprintf(line, sizeof line, "%s (compared %s)", fci_merge_verdict_words(m),
             m->flops_basis_iteration ? "per iteration" : "totals: no iterations");
    fci_html_para(
        h, m->verdict == FC_FLOPS_OUTLIERS || m->verdict == FC_FLOPS_MIXED ? "warn" : NULL, line);
    fci_html_table_begin(h, "group-table", "ranks grouped by equal FLOPs, largest group first");
    fci_html_head_row(h, head, 4);
    double ref = m->n_fgroups ? fc_u128_to_double(m->fgroups[0].flops) : 0;
    for (size_t g = 0; g < m->n_fgroups && g < GROUP_ROWS; g++) {
        const fc_merge_fgroup *fg = &m->fgroups[g];
        fc_rank_ranges(fg->ranks, fg->n_ranks, ranks, sizeof ranks);
        fci_html_row_begin(h, NULL);
        fci_html_td(h, fc_u128_to_str(fg->flops, e), 1);
        snprintf(n, sizeof n, "%zu", fg->n_ranks);
        fci_html_td(h, n, 1);
        fci_html_td(h, ranks, 0);
        if (g > 0)
            snprintf(d, sizeof d, "%+.2f%%",
                     ref > 0 ? (fc_u128_to_double(fg->flops) - ref) / ref * 100.0 : NAN);
        fci_html_td(h, g > 0 ? d : "", 1);
        fci_html_row_end(h);
    }
    fci_html_table_end(h);
    if (m->n_fgroups > GROUP_ROWS) {
        snprintf(line, sizeof line, "... %zu groups in all", m->n_fgroups);
        fci_html_para(h, "note", line);
    }
    fci_html_section_end(h);
}

int fci_html_merge_page(fc_html *h, const fc_merge *m)
{
    char sub[300];
    fci_run run;
    fci_run_of_merge(m, &run);
    fci_html_page_begin(h, "flopcount merge", fci_merge_header_words(m, sub, sizeof sub));
    fci_html_section_begin(h, "headline", "Headline figures");
    problems(h, m);
    cards(h, m, &run);
    summary(h, m, &run);
    fci_html_run_mix_table(h, &run);
    fci_html_section_end(h);
    if (steps_sections(h, m) != 0)
        return -1;
    ranks_section(h, m);
    if (m->n_used > 1)
        consistency(h, m);
    fci_html_run_attention(h, &run, NULL);
    fci_html_run_shapes(h, &run);
    fci_html_page_end(h);
    return 0;
}
