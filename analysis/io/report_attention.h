/* SPDX-License-Identifier: Apache-2.0 */
/* report_attention.h - the counted fused-attention calls of a report, read
 * back exactly: the "attention" section (totals, by source, one entry per
 * problem shape with its three FLOP figures: executed, model, tiles; see
 * analysis/attention.h), the "uncounted" list (kernels and calls seen
 * doing matrix work whose FLOPs are not counted, with the reason), and the
 * attention entries of the forward profile. Both sections are optional
 * (reports before them have neither); a known field of the wrong type is
 * an error naming the field, as everywhere in report_read.c. */
#ifndef FC_REPORT_ATTENTION_H
#define FC_REPORT_ATTENTION_H

#include <stddef.h>
#include <stdint.h>

#include "infer.h"
#include "u128.h"

#define FC_REPORT_ATTN_SOURCES 8 /* names kept in by_source (flash, efficient, cudnn, ...) */

typedef struct fc_report_attn_shape {
    char source[16];    /* "flash", "efficient", "cudnn" (as written) */
    int backward;       /* "direction": "backward" (else "forward") */
    int overflow;       /* shapes beyond the shim's table, lumped: no shape fields */
    char dtype[24], mask[16], align[16]; /* mask "none", "causal", "window" */
    int64_t batch, heads, kv_heads, seq_q, seq_k, head_dim, head_dim_v;
    int64_t window_left, window_right;   /* -1: unbounded on that side */
    int bound;          /* lengths are maxima (varlen, padding): FLOPs are an upper bound */
    int dropout, softcap, bias;
    /* the form that ran: cuDNN's "path" (unified SDPA node / composite
     * graph), FlashAttention's parameter "layout"; "" when absent */
    char path[48], layout[64];
    int64_t block_m, block_n, head_dim_padded, head_dim_v_padded; /* -1: not known (null) */
    fc_u128 per_call_flops, per_call_model_flops, per_call_tile_flops, per_call_pairs;
    uint64_t calls, failed_calls;
    fc_u128 flops, model_flops, tile_flops; /* over the successful calls */
    int tiles_known;    /* tile_flops given (not null) */
} fc_report_attn_shape;

typedef struct fc_report_uncounted {
    char name[128];   /* a mangled kernel name, a cuDNN plan's label */
    char kclass[32];  /* "attention", "gemm_like_uncounted", ... */
    char reason[32];  /* "opaque_parameters", "layout_mismatch", ... */
    char detail[160];
    uint64_t calls, failed_calls;
} fc_report_uncounted;

typedef struct fc_report_attn_source { /* one member of "by_source" */
    char name[16];
    uint64_t calls;
    fc_u128 flops;
} fc_report_attn_source;

typedef struct fc_report_attention {
    int has;              /* the "attention" section was there */
    uint64_t calls, failed_calls, tile_unknown_calls, distinct_shapes, overflow_calls;
    fc_u128 flops, model_flops, tile_flops;
    fc_report_attn_source by_source[FC_REPORT_ATTN_SOURCES];
    size_t n_by_source;
    fc_report_attn_shape *shapes; /* malloc'd, as written (first seen first) */
    size_t n_shapes;
    int has_uncounted;    /* the "uncounted" list was there */
    fc_report_uncounted *uncounted; /* malloc'd */
    size_t n_uncounted;
    /* "launch"."note": what the launch hooks could not see (a program
     * linked with the static CUDA runtime, CUPTI off); "" when null or
     * absent */
    char launch_note[1100];
} fc_report_attention;

struct fc_jctx;
struct json_object;

/* Reads "attention" and "uncounted" of root into a (zeroed by the caller). */
void fc_report_read_attention(struct fc_jctx *c, struct json_object *root,
                              fc_report_attention *a);
/* One forward-profile entry of "kind": "attention" into g: g->attention
 * set, the shape in g->attn (b = -1 when "unresolved"), m = n = k = -1. */
void fc_report_read_profile_attention(struct fc_jctx *c, struct json_object *o, fc_fwd_gemm *g);
void fc_report_attention_free(fc_report_attention *a);

/* 1 when the report saw any attention call (counted or failed) or any
 * uncounted kernel: it has something to say about attention. */
int fc_report_attention_any(const fc_report_attention *a);
/* The by_source entry of name, NULL when none. */
const fc_report_attn_source *fc_report_attn_source_of(const fc_report_attention *a,
                                                      const char *name);

#endif
