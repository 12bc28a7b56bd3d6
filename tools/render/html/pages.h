/* SPDX-License-Identifier: Apache-2.0 */
/* pages.h - the HTML pages of 'flopcount report --html' (report_page.c)
 * and 'flopcount merge --html' (merge_page.c), drawn from the views those
 * verbs already computed, and the sections both pages share: iterations
 * and their phase split (iter_chart.c), the top shapes (shapes_table.c). */
#ifndef FC_HTML_PAGES_H
#define FC_HTML_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "html.h"
#include "merge.h"
#include "render_run.h"
#include "report_view.h"
#include "u128.h"

/* Write the whole page; -1 when out of memory (h->err says write errors). */

/* One bar of the iteration chart: an iteration of a report, or a step of
 * a merge. */
typedef struct fc_html_iter {
    uint64_t index;
    double seconds;     /* NaN when not known */
    double pause_after; /* time after it outside any iteration, before the next; NaN: unknown */
    fc_u128 flops, fwd, bwd, rc;
    int warmup, open_end; /* left out of the medians (fc_report_steady) */
    long slowest_rank;    /* a merge step's slowest rank; -1 otherwise */
    int ambiguous;        /* its forward/backward/recompute split is a guess */
} fc_html_iter;

typedef struct fc_html_iters {
    const fc_html_iter *it;
    size_t n;
    uint64_t count;        /* iterations counted (the list may hold fewer) */
    double median_seconds; /* the verb's median, drawn as a line; NaN: none */
    int merged;            /* a merge's steps: the slowest rank is shown */
    const char *about;     /* one sentence on what the bars are (escaped) */
    /* evaluation passes the report counts (not where they ran) */
    uint64_t eval_count;
    fc_u128 eval_flops;
    double eval_seconds; /* NaN when not known */
} fc_html_iters;

/* Above this many iterations the charts draw bins of consecutive ones (a
 * bar: their mean, a whisker: min to max) and the table lists the bins
 * with exact sums, so the page stays small whatever the run's length. */
#define FC_HTML_MAX_BARS 120

/* Sections "iterations" and "phases". -1 when out of memory. */
int fci_html_iterations(fc_html *h, const fc_html_iters *s);
int fci_html_phases(fc_html *h, const fc_html_iters *s);

/* Section "shapes": the largest shapes (sorted, largest first) with a bar
 * each, against total FLOPs. */
void fci_html_shapes(fc_html *h, const fc_report_shape *shapes, size_t n, fc_u128 total);

/* HFU at the dtype mix (mix_table.c): the headline card (key: the JSON
 * field of the figure, used only when it is known) and the table of its
 * dtypes (seconds: the measured time the mix is against). */
void fci_html_mix_card(fc_html *h, const char *key, const fc_mix *m);
void fci_html_mix_table(fc_html *h, const fc_mix *m, double seconds);
/* Section "attention" (attention_table.c): counted fused attention beside
 * the GEMMs (chart and table by source), its shapes, what is not counted
 * and why. Shown when the report has attention calls or uncounted kernels. */
typedef struct fc_html_attn {
    const fc_report_attention *a;
    uint64_t gemm_calls;
    fc_u128 gemm_flops, counted_flops; /* the totals */
    int have_xs;                       /* xs is known: iterations */
    fc_u128 xs;                        /* per iteration, beyond the model convention */
    const char *comparison;            /* with the formula, in words; NULL: none */
    const char *whose;                 /* "" or " on all ranks" */
} fc_html_attn;
void fci_html_attention(fc_html *h, const fc_html_attn *s);

/* The sections both pages show, from the run view (run_sections.c): the
 * "GEMM totals" row of a figure table; the cards of HFU at the dtype mix
 * and of the peak; the dtype mix table (with iterations, when the mix
 * says anything); section "attention" (comparison: with the formula, in
 * words, or NULL); section "shapes". */
void fci_html_run_gemm_row(fc_html *h, const fci_run *r);
void fci_html_run_mix_card(fc_html *h, const fci_run *r);
void fci_html_run_peak_card(fc_html *h, const fci_run *r);
void fci_html_run_mix_table(fc_html *h, const fci_run *r);
void fci_html_run_attention(fc_html *h, const fci_run *r, const char *comparison);
void fci_html_run_shapes(fc_html *h, const fci_run *r);

/* Short SI label ("2.94 GFLOP") of a FLOP count that fits a double. */
char *fci_html_si(double flops, char *buf, size_t size);

#endif
