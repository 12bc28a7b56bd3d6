/* SPDX-License-Identifier: Apache-2.0 */
/* run_sum.h - the sum of N runs: what 'flopcount merge' adds up over
 * ranks and the job report over the processes of one job (tools/merge,
 * tools/job both call it). It gives the rows one run's report gives
 * (run_rec.h, schema_totals.h): totals, by_api, by_dtype, shapes, so one
 * renderer takes a run or a sum.
 *
 * Counts add as they are; FLOPs saturate at 2^128 - 1. Shapes are summed
 * by their whole key (api, m, n, k, batch, transposes, dtypes, compute,
 * overflow) through an open-addressing index, so thousands of runs of
 * thousands of shapes stay linear; by_api / by_dtype rows by name, in the
 * order first seen. */
#ifndef FC_RUN_SUM_H
#define FC_RUN_SUM_H

#include <stddef.h>
#include <stdint.h>

#include "run_rec.h"
#include "schema_totals.h"
#include "u128.h"

/* What the sum reads of one run (a view: nothing is copied or kept). */
typedef struct fc_run_part {
    const fc_totals_rec *totals;
    const fc_report_group *by_api, *by_dtype;
    size_t n_by_api, n_by_dtype;
    const fc_report_shape *shapes;
    size_t n_shapes;
    int has_recompute;       /* the run has a "recompute" section ... */
    fc_u128 recompute_flops; /* ... with these FLOPs */
    double wall_seconds;     /* NaN when not known */
} fc_run_part;

typedef struct fc_run_sum {
    size_t n_runs;
    /* gemm_calls, gemm_flops, failed_calls, invalid_calls, unresolved_calls,
     * attention_calls, attention_flops, counted_flops summed;
     * distinct_shapes, overflow_calls, ranks, processes left 0 (how a
     * writer counts them is its own) */
    fc_totals_rec totals;
    fc_u128 recompute_flops; /* of the runs with a "recompute" section */
    double wall_seconds;     /* the longest; 0 when none is known */
    fc_report_group *by_api, *by_dtype;
    size_t n_by_api, n_by_dtype;
    fc_report_shape *shapes; /* largest FLOPs first after fc_run_sum_finish */
    size_t n_shapes;
    /* internal (run_sum.c): room and the index while adding */
    size_t fc_cap_shapes, fc_n_slots;
    size_t *fc_slots;
} fc_run_sum;

/* Adds one run; -1 when out of memory (the sum is left consistent). */
int fc_run_sum_add(fc_run_sum *s, const fc_run_part *run);
/* Puts the shapes in their final order (FLOPs, then calls, largest
 * first) and drops the index; adding after it starts a new index. */
void fc_run_sum_finish(fc_run_sum *s);
/* Frees everything and empties *s. */
void fc_run_sum_free(fc_run_sum *s);

#endif
