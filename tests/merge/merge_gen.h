/* SPDX-License-Identifier: Apache-2.0 */
/* merge_gen.h - synthetic per-rank reports for the merge tests and the merge
 * benchmark: every number follows from the options, so tests derive the
 * merged figures by hand.
 *
 * Rank r's report: `shapes` GEMM shapes m = n = k = 8192 with batch `batch`,
 * each called once per iteration, so one call is 2 * 8192^3 * batch =
 * 2^40 * batch FLOPs and one iteration F = shapes * 2^40 * batch. The
 * outlier rank (and, with stages, each later pipeline stage) runs one more
 * shape with k = 4096 (2^39 * batch more per iteration). Iteration i (index
 * i) lasts step_seconds (slow_seconds on the straggler), the last one is
 * marked open_end like the shim's, so a merge keeps iterations 1 .. n-2
 * (no warm-up, no open end) as the steady ones; totals are the
 * iterations' sums (one iteration's worth when iterations = 0, which leaves
 * the "iterations" section out). */
#ifndef FC_MERGE_GEN_H
#define FC_MERGE_GEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct fc_gen_opts {
    int ranks;          /* world size every report names */
    int missing;        /* rank with no report; -1: none */
    int straggler;      /* rank whose steps take slow_seconds; -1: none */
    int outlier;        /* rank with the extra shape; -1: none */
    int duplicate;      /* rank written a second time (rankN-again.json); -1: none */
    int stages;         /* > 1: contiguous blocks of ranks; stage s runs s extra shapes */
    int iterations;     /* listed per rank; 0: no "iterations" section */
    int shapes;
    int filler;         /* more shape entries, m = j + 1, n = k = 64, one call each,
                           outside the iterations (in the totals): a realistic
                           table size for the benchmark; 0 in the tests */
    uint64_t batch;
    double step_seconds, slow_seconds;
} fc_gen_opts;

void fc_gen_defaults(fc_gen_opts *o);
/* Writes the reports into dir (which must exist). 0, or -1 with errno. */
int fc_gen_reports(const char *dir, const fc_gen_opts *o);

#endif
