/* SPDX-License-Identifier: Apache-2.0 */
/* spans.h - time intervals [start, end) in nanoseconds: the length of their
 * union (GPU busy time from overlapping kernels) and how a counter sample
 * spread over an interval is shared among the iterations it overlaps
 * (hardware FLOPs per iteration). Pure, no allocation. */
#ifndef FC_SPANS_H
#define FC_SPANS_H

#include <stddef.h>
#include <stdint.h>

typedef struct fc_span {
    uint64_t start, end; /* end < start counts as empty */
} fc_span;

/* Sorts v by start (in place) and returns the length of the union of the
 * spans. */
uint64_t fc_spans_union(fc_span *v, size_t n);
/* Length of [a0, a1) intersected with [b0, b1). */
uint64_t fc_span_overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1);

/* A sample's value v, counted over [s, e), shared among the n iterations
 * it[0..n) (sorted by start, not overlapping) in proportion to the time it
 * overlaps each: out[i] += v * overlap_i / (e - s). A sample of zero length
 * goes whole to the iteration containing s. Returns the part of v that fell
 * in no iteration; *touched gets the number of iterations that received a
 * share and *whole 1 when one iteration received all of v. */
double fc_spans_apportion(const fc_span *it, size_t n, uint64_t s, uint64_t e, double v,
                          double *out, int *touched, int *whole);

#endif
