/* SPDX-License-Identifier: Apache-2.0 */
/* report_read.h - the JSON report (schema 1) read back into memory, exactly.
 *
 * Used by 'flopcount report' and 'flopcount merge'. FLOP counts pass 2^64 in
 * long runs, and json-c saturates integers there, so the reader quotes every
 * integer literal of 19 or more digits before json-c sees it and parses the
 * digits itself into fc_u128. Sections the shim adds over time (iterations,
 * recompute, utilization) are optional: has_* says whether they were there.
 * A missing or unknown "schema", or a known field of the wrong type, is an
 * error with a one-line reason; members the reader does not know are skipped
 * (later minor additions to schema 1). The output of 'flopcount merge' uses
 * the same layout plus "kind": "merge", so 'report' reads both. */
#ifndef FC_REPORT_READ_H
#define FC_REPORT_READ_H

#include <stddef.h>
#include <stdint.h>

#include "formula.h"
#include "infer.h"
#include "report_attention.h"
#include "run_figures.h"
#include "run_rec.h"
#include "run_sum.h"
#include "schema_iter.h"
#include "schema_totals.h"
#include "u128.h"

#define FC_REPORT_SCHEMA 1

/* fc_report_shape, fc_report_group: run_rec.h (the same rows in a sum). */

/* Most dtypes a report's mix lists (fc_dtype has fewer). */
#define FC_REPORT_MIX_MAX 32

typedef struct fc_report_mix_term { /* one entry of "utilization.mix" */
    char dtype[24];
    double share;      /* of the training FLOPs; NaN when absent */
    double peak_flops; /* dense FLOP/s per device; NaN when null (none published) */
} fc_report_mix_term;

/* fc_report_iter, one entry of "iterations.list": analysis/run/schema_iter.h
 * (start_seconds, seconds, gpu_seconds NaN when absent; slowest_rank -1;
 * ambiguous_recompute = ambiguous when absent; ambiguous_reason NULL: not
 * kept). */

/* One entry of a job report's "processes" (written by 'flopcount run' and
 * by the job assembly of 'report' and 'merge'; docs/report-schema.md). */
typedef struct fc_report_proc {
    long pid, ppid, rank; /* -1 when null or absent */
    char command[256];    /* truncated */
    char status[32];      /* the process's own report: "complete", "running", ...; "" none */
    char ended[64];       /* "exit 0", "signal 15 (SIGTERM)", "exec", ... */
    int fork_child, iterations_used, has_iterations;
    uint64_t gemm_calls, failed_calls, iterations;
    fc_u128 gemm_flops;
} fc_report_proc;

typedef struct fc_report {
    int schema;
    int is_merge;        /* "kind": "merge": written by 'flopcount merge' */
    char tool_version[32];
    /* process */
    long pid;            /* -1 when absent */
    char *command;       /* malloc'd; "" when absent */
    char hostname[256];
    long ppid;           /* -1 when absent */
    long rank, local_rank, world_size; /* -1 when null or absent */
    char launcher[32];
    int fork_child;
    int64_t started_unix_ns; /* when this image started (exec starts a new one); -1 absent */
    char run_id[64];     /* "run": the run this process belongs to ("" absent) */
    int64_t run_start_unix_ns; /* start of that run (its first process); -1 absent */
    char status[32];     /* "complete", "running", ... */
    double wall_seconds; /* NaN when absent */
    /* analysis/run/schema_totals.h; counted fused attention is 0 in reports
     * before it, counted_flops = gemm_flops + attention_flops when absent */
    fc_totals_rec totals;
    fc_report_group *by_api, *by_dtype;
    size_t n_by_api, n_by_dtype;
    fc_report_shape *shapes;
    size_t n_shapes;

    int has_iterations;
    struct {
        uint64_t count;        /* iterations finished (the list may hold fewer) */
        char detected_by[48];  /* "marker", "nvtx", "optimizer", "auto", "none" */
        char micro_batch[16];  /* "may be" (automatic: a micro-batch?), "no"; "" when absent */
        char kind[16];         /* "training", "forward-only", "mixed"; "" when absent or null */
        uint64_t forward_only; /* forward-only iterations (marked steps without a backward) */
        char method[256];
        double median_seconds; /* NaN when absent or null */
        fc_u128 flops, forward_flops, backward_flops, recompute_flops, other_flops;
        fc_u128 attention_excess_flops; /* of backward_flops (0 when absent) */
        int list_truncated;
        fc_report_iter *list;
        size_t n_list;
        /* how sure the split is (absent in reports before these fields: "",
         * 0) */
        char split[24];          /* "declared", "partly declared", "automatic" */
        char phase_markers[24];  /* "markers", "nvtx", "markers+nvtx", "none" */
        uint64_t ambiguous_iterations;
        size_t n_ambiguous_reasons;
        char ambiguous_reasons[1024]; /* the reasons, joined by "; " */
        char advice[512];        /* what would make it exact; "" when nothing */
        /* the training calls' FLOPs by dtype, for the dtype mix (absent
         * in reports before it: has_flops_by_dtype 0) */
        int has_flops_by_dtype;
        fc_report_group flops_by_dtype[FC_REPORT_MIX_MAX]; /* calls 0 */
        size_t n_flops_by_dtype;
    } iterations;
    int has_eval;
    struct {
        uint64_t count;
        fc_u128 flops;
        double seconds; /* NaN when absent */
        uint64_t ambiguous; /* passes found where the split is unsure */
    } eval_passes;
    int has_recompute;
    struct {
        fc_u128 flops;
        double fraction; /* NaN when absent */
        int ambiguous;   /* from an unsure split */
    } recompute;
    int has_utilization;
    struct {
        double peak_flops, hfu, mfu; /* NaN when absent or null */
        char device[128], dtype[24]; /* "" when absent */
        char peak_source[32];        /* "device", "FLOPCOUNT_PEAK_TFLOPS", ...; "" when absent */
        int split_ambiguous;         /* MFU rests on an unsure split */
        double hfu_mix;              /* HFU at the dtype mix; NaN when null or absent */
        char mix_reason[256];        /* why hfu_mix is null; "" when absent */
        fc_report_mix_term mix[FC_REPORT_MIX_MAX];
        size_t n_mix;
    } utilization;
    char utilization_reason[256]; /* why "utilization" is null, when it is */
    char null_gpu[32];            /* "null_gpu.device": the run was on the null GPU; "" not */
    char null_gpu_caveat[512];
    int has_profile;     /* "forward_profile" was there */
    struct {
        char state[16];  /* "steady", "unsteady", "none" */
        uint64_t training_forward, calls;
        fc_u128 flops;
        int truncated;
        fc_fwd_gemm *gemms; /* malloc'd */
        size_t n_gemms;
    } profile;
    /* "attention" and "uncounted" (report_attention.h) */
    fc_report_attention attn;
    size_t n_callsites; /* entries of "callsites" ("top", or the array) (not kept) */
    /* A merged report's "inferred_model" ('flopcount merge': the job's
     * model from the ranks' forward profiles), when complete. */
    int has_merged_model;
    fc_model merged_model;
    char merged_layout[32];
    /* why a merged report's inferred model was not taken ("" when it was,
     * or when there was none): a model with layer kinds, whose per-layer
     * patterns a merged report does not carry as model keys */
    char merged_model_reason[200];

    /* A job report (several processes): "processes" and "job". */
    fc_report_proc *procs;
    size_t n_procs;
    int has_job;
    struct {
        char command[512];     /* what 'flopcount run' ran; "" when assembled later */
        char ended[64];        /* how that command ended */
        char parts[512];       /* where the per-process reports were read from */
        long processes_with_gemms;
        long *iterations_from; /* pids */
        size_t n_iterations_from;
        size_t n_incomplete;   /* processes whose last report is a snapshot */
        size_t stale_ignored;  /* per-process reports of an earlier run left out */
    } job;
} fc_report;

/* Parses len bytes of text (need not be NUL-terminated; may hold any bytes).
 * Returns 0 with *out filled, or -1 with a one-line reason in err and *out
 * left empty (safe to pass to fc_report_free either way). */
int fc_report_parse(const char *text, size_t len, fc_report *out, char *err, size_t errlen);
/* fc_report_parse by json-c alone, without the fast path of the big
 * arrays (report_fast.h): the reference the fast path must equal. Exposed
 * for tests. */
int fc_report_parse_tree(const char *text, size_t len, fc_report *out, char *err, size_t errlen);
/* Reads and parses a file; the reason names the problem, not the path. */
int fc_report_load(const char *path, fc_report *out, char *err, size_t errlen);
/* fc_report_load, then also(tree, ctx) on the parsed tree (a json-c
 * json_object *) when the report was read, before the tree is freed: a
 * reader that wants other sections too (report_gpu.h) parses each file
 * once. */
typedef void (*fc_report_tree_fn)(void *tree, void *ctx);
int fc_report_load_with(const char *path, fc_report *out, char *err, size_t errlen,
                        fc_report_tree_fn also, void *ctx);
/* What the sum of runs (run_sum.h) reads of one report. */
static inline fc_run_part fc_report_part(const fc_report *r)
{
    return (fc_run_part){.totals = &r->totals,
                         .by_api = r->by_api,
                         .n_by_api = r->n_by_api,
                         .by_dtype = r->by_dtype,
                         .n_by_dtype = r->n_by_dtype,
                         .shapes = r->shapes,
                         .n_shapes = r->n_shapes,
                         .has_recompute = r->has_recompute,
                         .recompute_flops = r->recompute.flops,
                         .wall_seconds = r->wall_seconds};
}

/* Frees what a parse allocated and empties *r. */
void fc_report_free(fc_report *r);

/* The dtype mix's members of "iterations" and "utilization" (either may be
 * NULL) into r (report_mix.c; called by the parser). */
struct fc_jctx;
struct json_object;
void fc_report_read_mix(struct fc_jctx *c, struct json_object *iters, struct json_object *util,
                        fc_report *r);

/* The steady iterations of a list, as the shim's own utilization takes
 * them: all but the first (warm-up) when there are two or more, and
 * without a last open_end one while two or more remain. Sets [*from, *to). */
void fc_report_steady(const fc_report_iter *list, size_t n, size_t *from, size_t *to);

/* Iteration i of a list of fc_report_iter (ctx) as the run's figures see
 * it (run_figures.h: fc_fig_medians_of). */
void fc_report_fig_iter(const void *ctx, size_t i, fc_fig_iter *out);

/* Rewrites integer literals of 19+ digits outside strings as JSON strings
 * ("123..."), so json-c keeps them exact. Returns a malloc'd NUL-terminated
 * copy (length in *outlen), or NULL when out of memory. Exposed for tests. */
char *fc_report_quote_big_ints(const char *text, size_t len, size_t *outlen);

#endif
