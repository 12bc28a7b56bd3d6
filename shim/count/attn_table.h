/* SPDX-License-Identifier: Apache-2.0 */
/* attn_table.h - the process-wide table of counted fused-attention calls:
 * each distinct problem shape (fc_attn: source, direction, b, h, h_k,
 * s_q, s_k, d, d_v, band, tiles) with its successful and failed calls and
 * the three FLOP figures of analysis/attention.h. Bounded (shapes beyond
 * the capacity go to one bucket per source and direction, totals still
 * exact), lock-free, never allocating; mapped at the first attention call.
 * Knows nothing of rings, iterations or reports. */
#ifndef FC_ATTN_TABLE_H
#define FC_ATTN_TABLE_H

#include <stdint.h>

#include "attention.h"

#define FC_ATTN_CAPACITY 1024

/* The id of an overflow bucket's calls (fc_attn_table_add). */
#define FC_ATTN_ID_NONE UINT32_MAX

typedef struct fc_attn_view {
    fc_attn key;           /* overflow buckets: only source, dir and FC_ATTN_BOUND set, b = -1 */
    fc_attn_flops per_call;
    uint64_t calls, failed_calls;
    fc_u128 executed, model, tiles; /* over the successful calls */
} fc_attn_view;

typedef struct fc_attn_totals {
    uint64_t calls, failed_calls;
    uint64_t tile_unknown_calls; /* successful calls whose tiles are not known */
    uint64_t distinct_shapes, overflow_calls;
    fc_u128 executed, model, tiles;
    fc_u128 executed_by_source[FC_ATTN_SRC_COUNT];
    uint64_t calls_by_source[FC_ATTN_SRC_COUNT];
} fc_attn_totals;

/* Adds one call of shape a (f = its figures, fc_attn_flops_of); ok 0
 * counts a failed call (no FLOPs; the shape keeps what it would have
 * run). Returns the shape's id (stable for the process's life, for
 * fc_attn_table_get) or FC_ATTN_ID_NONE when it went to an overflow
 * bucket. From any thread. */
uint32_t fc_attn_table_add(const fc_attn *a, const fc_attn_flops *f, int ok);
/* The shape and per-call figures of id: 0, or -1 when there is none. */
int fc_attn_table_get(uint32_t id, fc_attn *key, fc_attn_flops *per_call);
void fc_attn_table_foreach(void (*fn)(const fc_attn_view *, void *), void *ctx);
void fc_attn_table_totals(fc_attn_totals *out);
/* Clears everything (the child side of fork). */
void fc_attn_table_reset(void);

#endif
