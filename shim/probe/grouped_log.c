/* SPDX-License-Identifier: Apache-2.0 */
/* grouped_log.c - grouped GEMM calls' load imbalance with their times
 * (grouped_log.h): a fixed array appended to with one atomic add; an
 * entry is read only once its writer marked it done. */
#include "grouped_log.h"

#include <string.h>

typedef struct entry {
    uint64_t t;
    double imbalance;
    int done; /* atomic: written */
} entry;

static entry log_[FC_GROUPED_LOG_CAP];
static uint64_t used; /* atomic: entries claimed (may pass the capacity) */

void fc_grouped_acc_add(fc_grouped_acc *a, int64_t m, int64_t n, int64_t k, int64_t size)
{
    if (m < 0 || n < 0 || k < 0 || size < 0)
        return;
    double w = (double)m * (double)n * (double)k * (double)size;
    a->sum += w;
    if (w > a->max)
        a->max = w;
    a->groups++;
}

void fc_grouped_log_add(uint64_t t, const fc_grouped_acc *a)
{
    if (a->groups <= 0)
        return;
    double mean = a->sum / (double)a->groups;
    uint64_t i = __atomic_fetch_add(&used, 1, __ATOMIC_RELAXED);
    if (i >= FC_GROUPED_LOG_CAP)
        return;
    log_[i].t = t;
    log_[i].imbalance = mean > 0 ? a->max / mean : 1.0;
    __atomic_store_n(&log_[i].done, 1, __ATOMIC_RELEASE);
}

void fc_grouped_log_span(uint64_t t0, uint64_t t1, fc_grouped_span *out)
{
    memset(out, 0, sizeof *out);
    uint64_t n = __atomic_load_n(&used, __ATOMIC_RELAXED);
    double sum = 0;
    for (uint64_t i = 0; i < n && i < FC_GROUPED_LOG_CAP; i++) {
        if (!__atomic_load_n(&log_[i].done, __ATOMIC_ACQUIRE) || log_[i].t < t0 || log_[i].t > t1)
            continue;
        double v = log_[i].imbalance;
        out->calls++;
        sum += v;
        if (v > out->max)
            out->max = v;
    }
    out->mean = out->calls ? sum / (double)out->calls : 0;
}

uint64_t fc_grouped_log_dropped(void)
{
    uint64_t n = __atomic_load_n(&used, __ATOMIC_RELAXED);
    return n > FC_GROUPED_LOG_CAP ? n - FC_GROUPED_LOG_CAP : 0;
}

void fc_grouped_log_reset(void)
{
    uint64_t n = __atomic_load_n(&used, __ATOMIC_RELAXED);
    for (uint64_t i = 0; i < n && i < FC_GROUPED_LOG_CAP; i++)
        __atomic_store_n(&log_[i].done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&used, 0, __ATOMIC_RELAXED);
}
