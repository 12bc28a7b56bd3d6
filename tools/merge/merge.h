/* SPDX-License-Identifier: Apache-2.0 */
/* merge.h - what 'flopcount merge' keeps of each rank's report and what it
 * works out for the job: sums, iterations aligned across ranks, the
 * straggler, ranks whose FLOPs differ, missing and duplicate ranks.
 * Internal to the flopcount command (merge.c, merge_analyze.c, tools/render/text/text_merge.c). */
#ifndef FC_MERGE_H
#define FC_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "formula.h"
#include "infer.h"
#include "jsonw.h"
#include "report_gpu.h"
#include "report_peak.h"
#include "report_read.h"
#include "run_sum.h"
#include "schema_totals.h"
#include "stats.h"
#include "u128.h"
#include "utilization.h"

/* One iteration of a rank as the merge keeps it: what the steps sum and
 * the medians read (an fc_report_iter is 176 bytes, this 112: the lists of
 * 10,240 ranks of 100 iterations take 115 MB instead of 180, and the steps
 * are summed over them in one pass after the parse). */
typedef struct fc_merge_iter {
    uint64_t index;
    double seconds;
    fc_u128 flops, forward, backward, recompute, xs;
    int ambiguous, ambiguous_recompute;
} fc_merge_iter;

/* One rank's report, reduced to what the merge needs (the full report is
 * freed after reading, so 1,024 ranks cost little memory). */
typedef struct fc_merge_rank {
    const char *path;
    long rank;           /* -1: the report names none */
    long world_size;
    char host[256];
    char status[32];
    char launcher[32];
    double wall_seconds;
    uint64_t gemm_calls, failed_calls;
    fc_u128 gemm_flops, recompute_flops;
    fc_u128 counted_flops; /* GEMMs + counted fused attention: what ranks are compared on */
    int has_iterations;
    uint64_t iter_count;
    size_t n_list;       /* iterations listed (may be fewer than iter_count) */
    fc_merge_iter *list; /* sorted by index, one entry per index */
    double median_seconds;       /* of the listed iterations; NaN without */
    fc_u128 flops_per_iteration; /* median of the listed iterations */
    double peak_flops;           /* the rank's own utilization.peak_flops, or NaN */
    char peak_dtype[24];         /* ... and its dtype ("" when none) */
    char ambiguous_reasons[1024];/* the rank's, joined; "" when its split is sure */
    char advice[512];            /* what would make its split exact; "" when nothing */
    int duplicate;               /* a later report of a rank seen before */
    fc_infer_facts *facts;       /* its forward profile read (NULL: none) */
} fc_merge_rank;

enum { FC_MERGE_MODEL_NONE = 0, FC_MERGE_MODEL_PARTIAL, FC_MERGE_MODEL_COMPLETE };

typedef struct fc_merge_model { /* the job's model from the ranks' forwards */
    int state;            /* NONE (why), PARTIAL (values known so far), COMPLETE */
    char why[400];
    long data_parallel, stages;
    fc_inferred inf;
    fc_flops f;           /* COMPLETE: the formula for the job */
    double formula_mfu;   /* NaN without a peak or steps */
} fc_merge_model;

typedef fc_report_group fc_merge_group; /* a by_api / by_dtype row, summed */

typedef struct fc_merge_step { /* one iteration index present on every rank */
    uint64_t index;
    double seconds;      /* of the slowest rank */
    long slowest_rank;
    fc_u128 flops, forward, backward, recompute; /* summed over ranks */
    int ambiguous;       /* some rank's split of this step is a guess */
    int ambiguous_recompute; /* ... and some rank's guess can move recompute */
    fc_u128 xs;          /* attention beyond the model convention (of backward), summed */
} fc_merge_step;

enum fc_flops_verdict {
    FC_FLOPS_SAME = 0,   /* every rank equal */
    FC_FLOPS_STAGES,     /* k equal-sized groups: pipeline stages */
    FC_FLOPS_OUTLIERS,   /* a majority agrees, some ranks differ */
    FC_FLOPS_MIXED,      /* no majority */
};

typedef struct fc_merge_fgroup { /* ranks sharing one FLOP count */
    fc_u128 flops;
    size_t n_ranks;
    long first_rank;
    long *ranks; /* n_ranks, ascending */
} fc_merge_fgroup;

typedef struct fc_merge {
    fc_merge_rank *ranks; /* sorted by rank; duplicates and rankless last */
    size_t n_ranks;       /* reports read */
    size_t n_used;        /* ranks merged: unique ranks (first n_used entries) */
    long world_size;      /* largest world size the reports name, else n_used */
    int world_disagrees;  /* reports name different world sizes */
    long *missing;        /* ranks 0..world_size-1 with no report */
    size_t n_missing;
    size_t n_rankless;    /* reports naming no rank: numbered in file order */
    size_t n_skipped;     /* rankless reports without a GEMM (launchers): left out */
    size_t n_not_complete;/* reports whose status is not "complete" */
    size_t n_hosts;
    char launcher[32];
    /* the sum over the merged ranks (analysis/run/run_sum.h): totals
     * (GEMMs and counted fused attention), recompute, the longest wall
     * time, by_api, by_dtype, shapes (largest first after analysis) */
    fc_run_sum sum;
    /* iterations */
    size_t n_with_iterations;
    fc_merge_step *steps; /* aligned: indices every merged rank listed */
    size_t n_steps;
    uint64_t iter_count;  /* fewest iterations any rank counted */
    double median_step_seconds;      /* median over steps of the slowest rank */
    fc_u128 flops_per_iteration;     /* median over steps of the summed FLOPs */
    fc_u128 recompute_per_iteration; /* of the steps sure about recompute when any (run_figures.h) */
    int recompute_guessed;           /* ... none is: the median of guessed ones */
    fc_u128 xs_per_iteration;        /* ... of the summed attention excess (MFU leaves it out) */
    size_t n_ambiguous_steps;        /* steps whose split is a guess on some rank */
    const char *ambiguous_reasons;   /* the first such rank's reasons (points into ranks) */
    const char *advice;              /* ... and its advice */
    /* straggler (by median step time; by wall time without iterations) */
    long straggler;                  /* -1 when fewer than two ranks */
    int straggler_by_wall;
    double straggler_seconds, others_seconds; /* its median vs the median of the rest */
    size_t straggler_slowest_steps;  /* steps in which it was the slowest */
    /* FLOP consistency across ranks */
    int flops_basis_iteration;       /* 1: per-iteration FLOPs, 0: totals */
    int verdict;                     /* enum fc_flops_verdict */
    int stages_contiguous;           /* FC_FLOPS_STAGES: groups are blocks of ranks */
    fc_merge_fgroup *fgroups;        /* largest group first */
    size_t n_fgroups;
    /* utilization, when a peak is known */
    double peak_flops; /* per GPU, FLOP/s; 0 when unknown */
    char peak_desc[128];
    double hfu, mfu;   /* cluster; NaN when not computable */
    /* HFU at the dtype mix, cluster: the ranks' training FLOPs by dtype
     * summed give the shares of the median step's FLOPs, each dtype at its
     * own peak (the options', else the ranks' reports' when they agree) */
    fc_u128 mix_flops[FC_DT_COUNT];
    size_t n_without_mix;    /* merged ranks whose report has no FLOPs by dtype */
    fc_mix_source mix_src;
    fc_mix mix;
    fc_merge_model model;
    /* counted fused attention, summed over the merged ranks (merge_attention.c):
     * the "attention" section by shape, "uncounted" by (name, reason);
     * totals.attention_* are in sum */
    fc_report_attention attn;
    struct fc_merge_attn_index *attn_index; /* while summing */
} fc_merge;

/* Reads one report into a slot; -1 with a reason in err. */
int fc_merge_add(fc_merge_rank *slot, const char *path, const fc_report *r, char *err,
                 size_t errlen);
/* Works everything out from the n_ranks slots. Returns -1 on out of memory. */
int fc_merge_analyze(fc_merge *m);
/* Adds one report to the sums: the run sum (run_sum.h), the dtype mix,
 * attention and uncounted kernels; -1 on out of memory. */
int fc_merge_sum_report(fc_merge *m, const fc_report *r);
/* Attention and uncounted kernels (merge_attention.c): summed per report
 * (-1 on out of memory; the index is dropped by fc_merge_attention_done,
 * everything by fc_merge_attention_free); written in the shim's layout
 * (nothing when no report had them); the text lines. */
int fc_merge_sum_attention(fc_merge *m, const fc_report *r);
void fc_merge_attention_done(fc_merge *m);
void fc_merge_attention_free(fc_merge *m);
/* The members of "totals" of the sum m (tools/render/json/json_merge.c), by the section's
 * table (analysis/run/schema_totals.h): GEMM counts, distinct shapes,
 * overflow_calls, ranks and processes unless < 0, then the attention
 * counts. */
void fc_merge_json_totals(fc_jw *w, const fc_merge *m, uint64_t distinct, int64_t overflow,
                          int64_t rank_count, int64_t processes);
void fc_merge_json_attention(fc_jw *w, const fc_merge *m);
/* Steps, straggler, consistency, utilization (merge_steps.c); -1 on out of
 * memory. */
int fc_merge_align(fc_merge *m);
void fc_merge_straggler(fc_merge *m);
int fc_merge_consistency(fc_merge *m);
void fc_merge_utilization(fc_merge *m);
void fc_merge_free(fc_merge *m);
/* The job's model (merge_infer.c): each rank's structure as it is taken,
 * then combined; -1 on out of memory. */
int fc_merge_infer_rank(fc_merge_rank *s, const fc_report *r);
int fc_merge_infer(fc_merge *m);
/* How the ranks were combined, in words (a model was combined). */
const char *fc_merge_layout_words(const fc_merge *m, char *buf, size_t size);

/* One report as read: the report, and its CUPTI sections from the same
 * parse (gpu_rc -1: they could not be read, gpu_err says why). */
typedef struct fc_merge_loaded {
    fc_report report;
    fc_report_gpu gpu;
    int gpu_rc;
    char gpu_err[512];
} fc_merge_loaded;

/* Reads the reports (merge_load.c: several threads, a batch at a time) and
 * calls take for each in the order given, stopping at the first -1. A
 * report that cannot be read is one "flopcount merge: PATH: reason" line
 * and -1. take must not keep got (it is freed after the call). */
typedef int (*fc_merge_take_fn)(void *ctx, size_t i, const char *path, fc_merge_loaded *got);
int fc_merge_load_all(char *const *paths, size_t n, fc_merge_take_fn take, void *ctx);

/* A rank this much (in %) slower than the median of the others is named a
 * straggler; below it the difference is run-to-run noise. */
#define FC_STRAGGLER_PCT 5.0

/* A rank's own HFU: its median FLOPs per iteration / (peak x its median
 * step time); NaN without a peak or a time (merge_steps.c). */
double fc_merge_rank_hfu(const fc_merge *m, const fc_merge_rank *s);
/* 1 when the slowest rank is FC_STRAGGLER_PCT or more behind the others. */
int fc_merge_is_straggler(const fc_merge *m);

/* The report paths given to merge (merge_parts.c): show[i] is what to call
 * paths[i] in the output when it differs (NULL: paths[i]); temp[i] marks a
 * temporary file, removed by fc_merge_paths_free. */
typedef struct fc_merge_paths {
    char **paths, **show;
    unsigned char *temp;
    size_t n;
} fc_merge_paths;
/* A FILE with FILE.parts/ next to it: its parts join as ranks, or the job
 * assembled from them stands for FILE (said on stderr). -1 on failure. */
int fc_merge_expand_parts(fc_merge_paths *p);
void fc_merge_paths_free(fc_merge_paths *p);

/* Output: tools/render/ (render.h); the merged JSON, for the job report too: */
/* The merged JSON to fd (no trailing newline); -1 on a write error. */
int fc_merge_write_json(const fc_merge *m, int fd);
/* Pieces of it, for the job report (tools/job/). */
void fc_merge_json_groups(fc_jw *w, const char *key, const fc_merge_group *g, size_t n);
void fc_merge_json_shapes(fc_jw *w, const fc_merge *m);
/* No peak option: the peak every rank's report carries, when they agree. */
void fc_merge_peak_from_reports(fc_merge *m);

/* "0-3, 5, 7-9" for an ascending list (truncated with "..." to fit;
 * merge_analyze.c). */
void fc_rank_ranges(const long *ranks, size_t n, char *out, size_t size);

#endif
