/* SPDX-License-Identifier: Apache-2.0 */
/* grouped_log.h - the load imbalance of every grouped GEMM call whose
 * group sizes are known (host arrays of cuBLAS's grouped calls, sizes read
 * from the device: probe/devsizes.h), kept with the call's time so the
 * report can give it per iteration (docs/moe.md). A call's imbalance is
 * its largest group's work (m*n*k times the group's problems) over the
 * mean group's: 1.0 is a perfectly balanced router. The first
 * FC_GROUPED_LOG_CAP calls are kept; lock-free, never allocating. */
#ifndef FC_GROUPED_LOG_H
#define FC_GROUPED_LOG_H

#include <stdint.h>

#define FC_GROUPED_LOG_CAP 16384u

/* Accumulates one call's groups, then adds it (t: its fc_ticks stamp). */
typedef struct fc_grouped_acc {
    double sum, max;
    int64_t groups;
} fc_grouped_acc;
void fc_grouped_acc_add(fc_grouped_acc *a, int64_t m, int64_t n, int64_t k, int64_t size);
void fc_grouped_log_add(uint64_t t, const fc_grouped_acc *a);

/* The calls made in [t0, t1] (ticks): how many, their largest imbalance
 * and the mean of theirs; 0 calls when none. */
typedef struct fc_grouped_span {
    uint64_t calls;
    double max, mean;
} fc_grouped_span;
void fc_grouped_log_span(uint64_t t0, uint64_t t1, fc_grouped_span *out);
/* Calls not kept (beyond the capacity). */
uint64_t fc_grouped_log_dropped(void);
void fc_grouped_log_reset(void);

#endif
