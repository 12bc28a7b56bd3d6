/* SPDX-License-Identifier: Apache-2.0 */
/* iter_chart.c - the sections both HTML pages share about iterations:
 * time per iteration as bars with the FLOPs as a line (warm-up, open end
 * and pauses between iterations marked), and the forward / backward /
 * recompute split as stacked bars; each chart with its exact table. Past
 * FC_HTML_MAX_BARS iterations both charts draw bins of consecutive
 * iterations and the tables list the bins with exact sums. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages.h"
#include "render_fmt.h"
#include "stats.h"
#include "svg.h"

/* A gap between iterations is marked as a pause from this long (and this
 * fraction of the median iteration): shorter ones are timer noise. */
#define PAUSE_MIN_SECONDS 1e-3
#define PAUSE_MIN_FRACTION 0.05

typedef struct bin {
    size_t from, to; /* [from, to) of the series */
    size_t n_timed;
    double sum_s, min_s, max_s, median_s;
    fc_u128 flops, fwd, bwd, rc;
    int warm, open;
    size_t pauses;
    double pause_s;
} bin;

typedef struct binned {
    const fc_html_iters *s;
    bin *b;
    size_t n;
    size_t per; /* iterations per bin (the last may hold fewer) */
    double pause_min;
} binned;

char *fci_html_si(double flops, char *buf, size_t size)
{
    if (isnan(flops) || flops < 0)
        snprintf(buf, size, "n/a");
    else
        fci_fmt_flop((fc_u128)(flops + 0.5), buf, size);
    return buf;
}

static int is_pause(const binned *bs, double p)
{
    return !isnan(p) && p >= bs->pause_min;
}

static void fill_bin(binned *bs, bin *b, double *scratch)
{
    const fc_html_iter *it = bs->s->it;
    b->min_s = INFINITY;
    b->max_s = -INFINITY;
    for (size_t i = b->from; i < b->to; i++) {
        if (!isnan(it[i].seconds)) {
            scratch[b->n_timed++] = it[i].seconds;
            b->sum_s += it[i].seconds;
            b->min_s = fmin(b->min_s, it[i].seconds);
            b->max_s = fmax(b->max_s, it[i].seconds);
        }
        b->flops = fc_u128_sat_add(b->flops, it[i].flops);
        b->fwd = fc_u128_sat_add(b->fwd, it[i].fwd);
        b->bwd = fc_u128_sat_add(b->bwd, it[i].bwd);
        b->rc = fc_u128_sat_add(b->rc, it[i].rc);
        b->warm |= it[i].warmup;
        b->open |= it[i].open_end;
        if (is_pause(bs, it[i].pause_after)) {
            b->pauses++;
            b->pause_s += it[i].pause_after;
        }
    }
    if (b->n_timed == 0) {
        b->min_s = b->max_s = b->median_s = NAN;
        return;
    }
    b->median_s = fc_median_double(scratch, b->n_timed); /* the verbs' median (stats.h) */
}

static int bin_series(binned *bs, const fc_html_iters *s)
{
    memset(bs, 0, sizeof *bs);
    bs->s = s;
    bs->per = s->n <= FC_HTML_MAX_BARS ? 1 : (s->n + FC_HTML_MAX_BARS - 1) / FC_HTML_MAX_BARS;
    bs->n = s->n ? (s->n + bs->per - 1) / bs->per : 0;
    double med = isnan(s->median_seconds) ? 0 : s->median_seconds;
    bs->pause_min = fmax(PAUSE_MIN_SECONDS, PAUSE_MIN_FRACTION * med);
    bs->b = calloc(bs->n ? bs->n : 1, sizeof *bs->b);
    double *scratch = malloc(bs->per * sizeof *scratch);
    if (bs->b == NULL || scratch == NULL) {
        free(bs->b);
        free(scratch);
        return -1;
    }
    for (size_t k = 0; k < bs->n; k++) {
        bin *b = &bs->b[k];
        b->from = k * bs->per;
        b->to = b->from + bs->per < s->n ? b->from + bs->per : s->n;
        fill_bin(bs, b, scratch);
    }
    free(scratch);
    return 0;
}

static double bin_mean(const bin *b, fc_u128 v)
{
    return fc_u128_to_double(v) / (double)(b->to - b->from);
}

static void band_label(void *ctx, size_t k, char *buf, size_t size)
{
    const binned *bs = ctx;
    const bin *b = &bs->b[k];
    const fc_html_iter *it = bs->s->it;
    if (b->to - b->from == 1)
        snprintf(buf, size, "%llu", (unsigned long long)it[b->from].index);
    else
        snprintf(buf, size, "%llu-%llu", (unsigned long long)it[b->from].index,
                 (unsigned long long)it[b->to - 1].index);
}

static void bin_tip(const binned *bs, const bin *b, char *buf, size_t size)
{
    char t[32], lo[32], hi[32], f[48], range[64];
    band_label((void *)bs, (size_t)(b - bs->b), range, sizeof range);
    if (b->to - b->from == 1) {
        const fc_html_iter *it = &bs->s->it[b->from];
        char e[FC_U128_DIGITS];
        snprintf(buf, size, "%s %s: %s, %s FLOPs%s%s", bs->s->merged ? "step" : "iteration", range,
                 fci_fmt_seconds(it->seconds, t, sizeof t), fc_u128_to_str(it->flops, e),
                 it->warmup ? " (warm-up)" : "", it->open_end ? " (open end)" : "");
    } else {
        snprintf(buf, size, "%s %s: mean %s (min %s, max %s), mean %s each",
                 bs->s->merged ? "steps" : "iterations", range,
                 fci_fmt_seconds(b->n_timed ? b->sum_s / (double)b->n_timed : NAN, t, sizeof t),
                 fci_fmt_seconds(b->min_s, lo, sizeof lo), fci_fmt_seconds(b->max_s, hi, sizeof hi),
                 fci_html_si(bin_mean(b, b->flops), f, sizeof f));
    }
}

static void time_chart(fc_html *h, const binned *bs)
{
    fc_svg s;
    double tmax = 0, fmax_ = 0;
    for (size_t k = 0; k < bs->n; k++) {
        const bin *b = &bs->b[k];
        if (b->n_timed)
            tmax = fmax(tmax, bs->per > 1 ? b->max_s : b->sum_s);
        fmax_ = fmax(fmax_, bin_mean(b, b->flops));
    }
    fci_svg_axis_fit(&s.left, tmax * 1.08, FC_UNIT_SECONDS); /* headroom for the marks */
    fci_svg_axis_fit(&s.right, fmax_ * 1.08, FC_UNIT_FLOP);
    fci_svg_begin(&s, h,
                  bs->per > 1 ? "time and FLOPs per iteration, binned"
                              : "time and FLOPs per iteration",
                  bs->n, 320, 1);
    fci_svg_axes(&s, "seconds", "FLOPs per iteration");
    char tip[256];
    for (size_t k = 0; k < bs->n; k++) {
        const bin *b = &bs->b[k];
        if (b->n_timed == 0)
            continue;
        bin_tip(bs, b, tip, sizeof tip);
        int odd = bs->per == 1 && (b->warm || b->open);
        fci_svg_bar(&s, k, 0, b->sum_s / (double)b->n_timed, 0, odd ? "s-warm" : "s-time", tip);
        if (bs->per > 1)
            fci_svg_whisker(&s, k, b->min_s, b->max_s);
    }
    double *line = malloc((bs->n ? bs->n : 1) * sizeof *line);
    if (line != NULL) {
        for (size_t k = 0; k < bs->n; k++)
            line[k] = bin_mean(&bs->b[k], bs->b[k].flops);
        fci_svg_line(&s, line, bs->n, 1, "s-flop", "FLOPs per iteration");
        free(line);
    }
    if (!isnan(bs->s->median_seconds)) {
        char m[48], t[32];
        snprintf(m, sizeof m, "median %s", fci_fmt_seconds(bs->s->median_seconds, t, sizeof t));
        fci_svg_hline(&s, bs->s->median_seconds, 0, "med", m);
    }
    for (size_t k = 0; k < bs->n; k++)
        if (bs->b[k].pauses) {
            char t[32];
            snprintf(tip, sizeof tip, "%zu pause%s after the iteration%s here: %s in no iteration",
                     bs->b[k].pauses, bs->b[k].pauses == 1 ? "" : "s", bs->per > 1 ? "s" : "",
                     fci_fmt_seconds(bs->b[k].pause_s, t, sizeof t));
            fci_svg_mark(&s, k, 1, "s-eval", tip);
        }
    fci_svg_xlabels(&s, band_label, (void *)bs, bs->s->merged ? "step" : "iteration");
    fci_svg_end(&s);
}

static void time_legend(fc_html *h, const binned *bs)
{
    const char *cls[5], *lbl[5];
    char med[48], t[32];
    size_t n = 0, odd = 0, pauses = 0;
    for (size_t k = 0; k < bs->n; k++) {
        odd += bs->per == 1 && (bs->b[k].warm || bs->b[k].open);
        pauses += bs->b[k].pauses;
    }
    cls[n] = "s-time";
    lbl[n++] = bs->per > 1 ? "time: mean of the bin (whisker: min to max)" : "time";
    if (odd) {
        cls[n] = "s-warm";
        lbl[n++] = "warm-up / open end (not in the median)";
    }
    cls[n] = "s-flop";
    lbl[n++] = bs->per > 1 ? "FLOPs per iteration, mean of the bin (right axis)"
                           : "FLOPs per iteration (right axis)";
    if (pauses) {
        cls[n] = "s-eval";
        lbl[n++] = "pause: time between iterations in none of them";
    }
    if (!isnan(bs->s->median_seconds)) {
        snprintf(med, sizeof med, "median %s", fci_fmt_seconds(bs->s->median_seconds, t, sizeof t));
        cls[n] = "s-med";
        lbl[n++] = med;
    }
    fci_html_legend(h, cls, lbl, n);
}

static void iter_note(const fc_html_iter *it, const binned *bs, char *buf, size_t size)
{
    char t[32];
    size_t o = 0;
    buf[0] = '\0';
    if (it->warmup)
        o += (size_t)snprintf(buf + o, size - o, "warm-up (not in the median)");
    if (it->open_end && o < size)
        o += (size_t)snprintf(buf + o, size - o, "%sopen end (not in the median)", o ? "; " : "");
    if (it->ambiguous && o < size)
        o += (size_t)snprintf(buf + o, size - o, "%ssplit a guess", o ? "; " : "");
    if (is_pause(bs, it->pause_after) && o < size)
        snprintf(buf + o, size - o, "%sthen %s in no iteration", o ? "; " : "",
                 fci_fmt_seconds(it->pause_after, t, sizeof t));
}

static void exact_cell(fc_html *h, fc_u128 v)
{
    char e[FC_U128_DIGITS];
    fci_html_td(h, fc_u128_to_str(v, e), 1);
}

static void iter_table(fc_html *h, const binned *bs)
{
    static const char *const head[] = {"#iteration", "#time",      "#FLOPs",        "#forward",
                                       "#backward",  "#recompute", "#slowest rank", "note"};
    const fc_html_iters *s = bs->s;
    char t[32], note[160], r[32];
    fci_html_table_begin(h, "iter-table",
                         s->merged ? "every aligned step: time of the slowest rank, FLOPs summed "
                                     "over ranks"
                                   : "every iteration listed in the report");
    const char *cols[8];
    size_t nc = 0;
    for (size_t c = 0; c < 8; c++)
        if (c != 6 || s->merged)
            cols[nc++] = c == 0 && s->merged ? "#step" : head[c];
    fci_html_head_row(h, cols, nc);
    for (size_t i = 0; i < s->n; i++) {
        const fc_html_iter *it = &s->it[i];
        fci_html_row_begin(h, NULL);
        snprintf(r, sizeof r, "%llu", (unsigned long long)it->index);
        fci_html_td(h, r, 1);
        fci_html_td(h, fci_fmt_seconds(it->seconds, t, sizeof t), 1);
        exact_cell(h, it->flops);
        exact_cell(h, it->fwd);
        exact_cell(h, it->bwd);
        exact_cell(h, it->rc);
        if (s->merged) {
            snprintf(r, sizeof r, "%ld", it->slowest_rank);
            fci_html_td(h, it->slowest_rank >= 0 ? r : "-", 1);
        }
        iter_note(it, bs, note, sizeof note);
        fci_html_td(h, note, 0);
        fci_html_row_end(h);
    }
    fci_html_table_end(h);
}

static void bin_row(fc_html *h, const bin *b, const char *label, int total)
{
    char t[32], n[32], note[96], pt[32];
    fci_html_row_begin(h, total ? "total" : NULL);
    fci_html_td(h, label, 1);
    snprintf(n, sizeof n, "%zu", b->to - b->from);
    fci_html_td(h, n, 1);
    fci_html_td(h, fci_fmt_seconds(b->min_s, t, sizeof t), 1);
    fci_html_td(h, total ? "" : fci_fmt_seconds(b->median_s, t, sizeof t), 1);
    fci_html_td(h, fci_fmt_seconds(b->max_s, t, sizeof t), 1);
    exact_cell(h, b->flops);
    size_t o = 0;
    note[0] = '\0';
    if (b->warm)
        o += (size_t)snprintf(note + o, sizeof note - o, "has the warm-up");
    if (b->open)
        o += (size_t)snprintf(note + o, sizeof note - o, "%shas the open end", o ? "; " : "");
    if (b->pauses)
        snprintf(note + o, sizeof note - o, "%s%zu pause%s, %s", o ? "; " : "", b->pauses,
                 b->pauses == 1 ? "" : "s", fci_fmt_seconds(b->pause_s, pt, sizeof pt));
    fci_html_td(h, note, 0);
    fci_html_row_end(h);
}

/* All bins as one: exact sums, extreme times, every mark. */
static void sum_bins(const binned *bs, bin *all)
{
    memset(all, 0, sizeof *all);
    all->min_s = INFINITY;
    all->max_s = -INFINITY;
    all->to = bs->s->n;
    for (size_t k = 0; k < bs->n; k++) {
        const bin *b = &bs->b[k];
        if (b->n_timed) {
            all->min_s = fmin(all->min_s, b->min_s);
            all->max_s = fmax(all->max_s, b->max_s);
        }
        all->n_timed += b->n_timed;
        all->flops = fc_u128_sat_add(all->flops, b->flops);
        all->fwd = fc_u128_sat_add(all->fwd, b->fwd);
        all->bwd = fc_u128_sat_add(all->bwd, b->bwd);
        all->rc = fc_u128_sat_add(all->rc, b->rc);
        all->warm |= b->warm;
        all->open |= b->open;
        all->pauses += b->pauses;
        all->pause_s += b->pause_s;
    }
    if (all->n_timed == 0)
        all->min_s = all->max_s = NAN;
}

static void bin_table(fc_html *h, const binned *bs)
{
    static const char *const head[] = {"#iterations", "#count",       "#time min", "#median",
                                       "#max",        "#FLOPs (sum)", "note"};
    char caption[160], label[64];
    snprintf(caption, sizeof caption,
             "%zu iterations in bins of %zu: exact FLOP sums per bin, and over all of them "
             "(the phases of each bin: under the next chart)",
             bs->s->n, bs->per);
    fci_html_table_begin(h, "iter-table", caption);
    fci_html_head_row(h, head, sizeof head / sizeof head[0]);
    for (size_t k = 0; k < bs->n; k++) {
        band_label((void *)bs, k, label, sizeof label);
        bin_row(h, &bs->b[k], label, 0);
    }
    bin all;
    sum_bins(bs, &all);
    bin_row(h, &all, "all", 1);
    fci_html_table_end(h);
}

static void eval_para(fc_html *h, const fc_html_iters *s, const binned *bs)
{
    char e[FC_U128_DIGITS], t[32], line[512];
    size_t pauses = 0;
    double pause_s = 0;
    for (size_t k = 0; k < bs->n; k++) {
        pauses += bs->b[k].pauses;
        pause_s += bs->b[k].pause_s;
    }
    if (s->eval_count == 0 && pauses == 0)
        return;
    int o = 0;
    if (s->eval_count)
        o = snprintf(line, sizeof line,
                     "The report counts %llu evaluation pass%s (%s FLOPs%s%s, not in the "
                     "iterations) but not where they ran. ",
                     (unsigned long long)s->eval_count, s->eval_count == 1 ? "" : "es",
                     fc_u128_to_str(s->eval_flops, e), isnan(s->eval_seconds) ? "" : ", ",
                     isnan(s->eval_seconds) ? "" : fci_fmt_seconds(s->eval_seconds, t, sizeof t));
    char pt[32];
    if (o >= 0 && (size_t)o < sizeof line)
        snprintf(line + o, sizeof line - (size_t)o,
                 "Marked: %zu pause%s between iterations, %s in all, time in no iteration "
                 "(an evaluation pass, or work without GEMMs); one after the last iteration "
                 "cannot be seen.",
                 pauses, pauses == 1 ? "" : "s", fci_fmt_seconds(pause_s, pt, sizeof pt));
    fci_html_para(h, "note", line);
}

int fci_html_iterations(fc_html *h, const fc_html_iters *s)
{
    fci_html_section_begin(h, "iterations", s->merged ? "Steps" : "Iterations");
    if (s->about && (s->n > 0 || s->merged))
        fci_html_para(h, "note", s->about);
    if (s->n == 0) {
        fci_html_para(h, "warn", "No iterations listed: no per-iteration chart.");
        fci_html_section_end(h);
        return 0;
    }
    binned bs;
    if (bin_series(&bs, s) != 0)
        return -1;
    if (s->count > s->n) {
        char line[160];
        snprintf(line, sizeof line, "The report lists the first %zu of %llu iterations.", s->n,
                 (unsigned long long)s->count);
        fci_html_para(h, "note", line);
    }
    time_chart(h, &bs);
    time_legend(h, &bs);
    eval_para(h, s, &bs);
    if (bs.per == 1)
        iter_table(h, &bs);
    else
        bin_table(h, &bs);
    fci_html_section_end(h);
    free(bs.b);
    return 0;
}

/* Phase FLOPs of a bin that no phase holds (a report without the split). */
static fc_u128 unsplit(fc_u128 all, fc_u128 f, fc_u128 b, fc_u128 r)
{
    fc_u128 split = fc_u128_sat_add(f, fc_u128_sat_add(b, r));
    return all > split ? all - split : 0;
}

static void phase_chart(fc_html *h, const binned *bs)
{
    fc_svg s;
    double top = 0;
    for (size_t k = 0; k < bs->n; k++)
        top = fmax(top, bin_mean(&bs->b[k], bs->b[k].flops));
    fci_svg_axis_fit(&s.left, top, FC_UNIT_FLOP);
    fci_svg_begin(&s, h, "forward, backward and recompute FLOPs per iteration", bs->n, 280, 0);
    fci_svg_axes(&s, "FLOPs per iteration", NULL);
    static const char *const cls[] = {"s-fwd", "s-bwd", "s-rc", "s-other"};
    static const char *const name[] = {"forward", "backward", "recompute", "not split"};
    char tip[160], f[48], range[64];
    for (size_t k = 0; k < bs->n; k++) {
        const bin *b = &bs->b[k];
        fc_u128 part[4] = {b->fwd, b->bwd, b->rc, unsplit(b->flops, b->fwd, b->bwd, b->rc)};
        double y = 0;
        band_label((void *)bs, k, range, sizeof range);
        for (int p = 0; p < 4; p++) {
            double v = bin_mean(b, part[p]);
            if (v <= 0)
                continue;
            snprintf(tip, sizeof tip, "%s %s: %s %s%s", bs->per > 1 ? "iterations" : "iteration",
                     range, name[p], fci_html_si(v, f, sizeof f), bs->per > 1 ? " (mean)" : "");
            fci_svg_bar(&s, k, y, y + v, 0, cls[p], tip);
            y += v;
        }
    }
    fci_svg_xlabels(&s, band_label, (void *)bs, bs->s->merged ? "step" : "iteration");
    fci_svg_end(&s);
}

static void phase_bin_row(fc_html *h, const bin *b, const char *label, int total)
{
    fci_html_row_begin(h, total ? "total" : NULL);
    fci_html_td(h, label, 1);
    exact_cell(h, b->fwd);
    exact_cell(h, b->bwd);
    exact_cell(h, b->rc);
    exact_cell(h, unsplit(b->flops, b->fwd, b->bwd, b->rc));
    fci_html_row_end(h);
}

/* The binned phase chart's figures: exact sums per bin. */
static void phase_bin_table(fc_html *h, const binned *bs, const bin *tot)
{
    static const char *const head[] = {"#iterations", "#forward", "#backward", "#recompute",
                                       "#not split"};
    char label[64];
    fci_html_table_begin(h, "phase-bin-table", "each bin's phases, summed exactly");
    fci_html_head_row(h, head, 5);
    for (size_t k = 0; k < bs->n; k++) {
        band_label((void *)bs, k, label, sizeof label);
        phase_bin_row(h, &bs->b[k], label, 0);
    }
    phase_bin_row(h, tot, "all", 1);
    fci_html_table_end(h);
}

int fci_html_phases(fc_html *h, const fc_html_iters *s)
{
    fci_html_section_begin(h, "phases", "Forward, backward, recompute");
    if (s->n == 0) {
        fci_html_para(h, "warn", "No iterations listed: no phase split.");
        fci_html_section_end(h);
        return 0;
    }
    binned bs;
    if (bin_series(&bs, s) != 0)
        return -1;
    bin tot;
    sum_bins(&bs, &tot);
    fc_u128 sum[4] = {tot.fwd, tot.bwd, tot.rc, 0}, all = tot.flops;
    sum[3] = unsplit(all, sum[0], sum[1], sum[2]);
    phase_chart(h, &bs);
    static const char *const cls[] = {"s-fwd", "s-bwd", "s-rc", "s-other"};
    static const char *const name[] = {"forward", "backward", "recompute", "not split"};
    fci_html_legend(h, cls, name, sum[3] ? 4 : 3);
    if (sum[0] == 0 && sum[1] == 0 && sum[2] == 0)
        fci_html_para(h, "note", "The report gives no forward / backward / recompute split.");
    static const char *const head[] = {"phase", "#FLOPs", "#share"};
    char caption[96], e[FC_U128_DIGITS], pct[16];
    snprintf(caption, sizeof caption, "summed over the %zu %s listed", s->n,
             s->merged ? "steps" : "iterations");
    fci_html_table_begin(h, "phase-table", caption);
    fci_html_head_row(h, head, 3);
    double a = fc_u128_to_double(all);
    for (int p = 0; p < 4; p++) {
        if (p == 3 && sum[3] == 0)
            break;
        fci_html_row_begin(h, NULL);
        fci_html_td(h, name[p], 0);
        fci_html_td(h, fc_u128_to_str(sum[p], e), 1);
        fci_html_td(h, fci_fmt_pct(a > 0 ? fc_u128_to_double(sum[p]) / a : NAN, pct, sizeof pct),
                    1);
        fci_html_row_end(h);
    }
    fci_html_row_begin(h, "total");
    fci_html_td(h, "all", 0);
    fci_html_td(h, fc_u128_to_str(all, e), 1);
    fci_html_td(h, "", 1);
    fci_html_row_end(h);
    fci_html_table_end(h);
    if (bs.per > 1)
        phase_bin_table(h, &bs, &tot);
    fci_html_section_end(h);
    free(bs.b);
    return 0;
}
