/* SPDX-License-Identifier: Apache-2.0 */
/* render_run.h - the one input of the sections 'flopcount report' (one
 * run, fc_report_view) and 'flopcount merge' (a sum of runs, fc_merge)
 * both show: the totals, counted fused attention, the shapes, the
 * headline figures (HFU, MFU, recompute, HFU at the dtype mix), the split
 * and the CUPTI sections. Each verb fills one (render_run.c); each form
 * writes a section from it with one function (text/text_run.c,
 * html/run_sections.c), so a section is the same for a run and a sum;
 * merge adds only its per-rank tables.
 *
 * Where the two verbs word a section apart (the label column, "on all
 * ranks", the keys of their JSON layouts, why there is no peak), the
 * difference is a field here, named, not a second copy. */
#ifndef FC_RENDER_RUN_H
#define FC_RENDER_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "report_attention.h"
#include "report_gpu.h"
#include "report_read.h"
#include "schema_totals.h"
#include "u128.h"
#include "utilization.h"

struct fc_report_view;
struct fc_merge;

/* The JSON fields (of 'report --json' or 'merge --json') the HTML names
 * beside the headline figures (data-k). */
typedef struct fci_run_keys {
    const char *hfu_mix, *peak_source;
} fci_run_keys;

typedef struct fci_run {
    int label_w;        /* text: the width of the label column */
    const char *whose;  /* "" (one run) or " on all ranks" */
    const fci_run_keys *keys;
    /* the whole run (or the sum) */
    const fc_totals_rec *totals;
    double wall_seconds;            /* of a sum the longest; NaN when not known */
    const fc_report_attention *attn;
    const fc_report_shape *shapes;  /* largest first */
    size_t n_shapes;
    /* per iteration (the medians of the steady iterations, or of the
     * aligned steps) */
    int has_iterations;
    size_t n_iterations;            /* the medians are over these */
    fc_u128 flops, recompute, xs;
    double seconds;                 /* NaN when not known */
    int recompute_guessed;          /* the recompute is a guess (no sure iteration) */
    /* the split of some iterations is a guess */
    size_t n_unsure;
    const char *unsure_reasons, *advice; /* "" or NULL when none */
    /* utilization */
    double peak;                    /* per GPU, FLOP/s; <= 0 when unknown */
    const char *peak_desc;
    const char *no_peak;            /* why none, and how to give one */
    double hfu, mfu;                /* NaN when not computable */
    const fc_mix *mix;              /* HFU at the dtype mix, or why not */
    /* the CUPTI sections */
    const fc_report_gpu *gpu;
} fci_run;

/* The sections' input of one run ('report') and of a sum ('merge'). */
void fci_run_of_report(const struct fc_report_view *v, fci_run *out);
void fci_run_of_merge(const struct fc_merge *m, fci_run *out);

#endif
