/* SPDX-License-Identifier: Apache-2.0 */
/* counters.h - the process-wide GEMM counters: a bounded table of distinct
 * shapes, mapped at the first GEMM, updated with relaxed atomics, never
 * allocating. Knows nothing of rings, iterations or reports. */
#ifndef FC_COUNTERS_H
#define FC_COUNTERS_H

#include "core/api.h"
#include "core/gemm.h"
#include "dtype.h"

/* Distinct shapes kept exactly; calls beyond go to per-(api, dtype) overflow
 * buckets, so totals stay exact while the table stays bounded. */
#define FC_SHAPE_CAPACITY 16384

/* A shape as the report shows it, with its counts read at one moment. */
typedef struct fc_shape_view {
    fc_gemm key;      /* operand addresses are NULL */
    uint64_t calls;
    uint64_t failed_calls;
    fc_u128 flops;
} fc_shape_view;

typedef struct fc_totals {
    uint64_t calls;        /* successful calls */
    uint64_t failed_calls; /* real function returned an error */
    uint64_t invalid_calls; /* negative dimensions: forwarded, no FLOPs */
    uint64_t unresolved_calls; /* no real function to forward to */
    uint64_t distinct_shapes;
    uint64_t overflow_calls; /* calls whose shape did not fit the table */
    fc_u128 flops;
} fc_totals;

/* Maps the shape table (once; the ring layer calls it at the process's
 * first GEMM). 0, or -1 when it could not be mapped: then every call is
 * counted in the overflow buckets, totals still exact. */
int fc_counters_init(void);
/* Adds one call of g (flops = fc_gemm_flops, sig = fc_gemm_sig) to its
 * shape's counts; ok 0 counts a failed call. Lock-free, from any thread. */
void fc_counters_add(const fc_gemm *g, fc_u128 flops, uint32_t sig, int ok);
/* Adds n successful calls of g's shape at once (flops: of one call), for
 * a run of calls of one shape. */
void fc_counters_add_calls(const fc_gemm *g, fc_u128 flops, uint32_t sig, uint64_t n);
/* Calls fn for each shape (overflow buckets come with m = n = k = -1). What
 * is still queued in the rings is not in the table yet: drain first
 * (fc_ring_sync) for exact figures. */
void fc_counters_foreach(void (*fn)(const fc_shape_view *, void *), void *ctx);
void fc_counters_totals(fc_totals *out);
/* The shape whose signature (fc_gemm_sig) is sig, operand addresses NULL:
 * 0, or -1 when the table has no such shape (it was full) or two. */
int fc_counters_shape_of(uint32_t sig, fc_gemm *out);
/* A call forwarded with a negative dimension (no FLOPs), and one that could
 * not be forwarded at all (no real function found). */
void fc_counters_add_invalid(void);
void fc_counters_add_unresolved(void);
/* Clears everything (the child side of fork: it reports its own calls),
 * giving the table's pages back rather than writing them. */
void fc_counters_reset(void);

#endif
