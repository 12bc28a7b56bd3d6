/* SPDX-License-Identifier: Apache-2.0 */
/* acc128.h - an exact 128-bit sum that any thread adds to without a lock:
 * two relaxed 64-bit atomics with an explicit carry, exact once the
 * writers are quiet (a reader racing a carry may see the low half wrapped
 * before the high half grows: the counters are read after draining). */
#ifndef FC_ACC128_H
#define FC_ACC128_H

#include <stdatomic.h>
#include <stdint.h>

#include "u128.h"

typedef struct fc_acc128 {
    _Atomic uint64_t lo, hi;
} fc_acc128;

static inline void fc_acc128_add(fc_acc128 *a, fc_u128 v)
{
    uint64_t lo = (uint64_t)v, hi = (uint64_t)(v >> 64);
    uint64_t old = atomic_fetch_add_explicit(&a->lo, lo, memory_order_relaxed);
    if (old + lo < old)
        hi++;
    if (hi)
        atomic_fetch_add_explicit(&a->hi, hi, memory_order_relaxed);
}

static inline fc_u128 fc_acc128_get(fc_acc128 *a)
{
    return ((fc_u128)atomic_load_explicit(&a->hi, memory_order_relaxed) << 64) |
           atomic_load_explicit(&a->lo, memory_order_relaxed);
}

#endif
