/* SPDX-License-Identifier: Apache-2.0 */
/* call_table.h - the table from a GEMM call's stamp to its shape key, by
 * which a kernel record (carrying the stamp as its external correlation id)
 * finds the call that launched it (activity.c). Open addressing over a
 * power-of-two table: a stamp hashes to a window of FC_CALL_PROBES slots;
 * a call takes the window's first empty slot, else the first whose kernel
 * was counted, else the oldest; a lookup looks through the window. About
 * 120 GEMM calls in 262,144 direct-mapped slots collided once in ~40 runs
 * (a kernel then read as "shape unknown"); with a window of 4 a stamp is
 * lost only when five live stamps share one window. Lock-free: writers
 * (calling threads) and the reader (the drainer) use __atomic_*; a slot
 * raced for by two writers keeps one of them, and the other's kernel is
 * then of unknown shape, as before. Pure functions: tests include it. */
#ifndef FC_CUPTI_CALL_TABLE_H
#define FC_CUPTI_CALL_TABLE_H

#include <stdint.h>

#define FC_CALL_PROBES 4u

typedef struct fc_call_slot {
    uint64_t t;    /* the stamp (atomic: written last); 0 = empty */
    uint32_t key;  /* fc_site_key of the call */
    uint32_t seen; /* a kernel of it was counted already */
} fc_call_slot;

/* The window's first slot of stamp t in a table of n slots (a power of 2). */
static inline uint32_t fc_call_hash(uint64_t t, uint32_t n)
{
    t ^= t >> 29;
    t *= 0xbf58476d1ce4e5b9ull;
    t ^= t >> 32;
    return (uint32_t)t & (n - 1);
}

static inline void fc_call_put(fc_call_slot *calls, uint32_t n, uint64_t t, uint32_t key)
{
    uint32_t h = fc_call_hash(t, n), oldest = h, take = n;
    uint64_t oldest_t = UINT64_MAX;
    for (uint32_t p = 0; p < FC_CALL_PROBES; p++) {
        uint32_t j = (h + p) & (n - 1);
        uint64_t tj = __atomic_load_n(&calls[j].t, __ATOMIC_ACQUIRE);
        if (tj == 0) {
            take = j;
            break;
        }
        if (take == n && __atomic_load_n(&calls[j].seen, __ATOMIC_RELAXED))
            take = j;
        if (tj < oldest_t) {
            oldest_t = tj;
            oldest = j;
        }
    }
    uint32_t i = take != n ? take : oldest;
    __atomic_store_n(&calls[i].key, key, __ATOMIC_RELAXED);
    __atomic_store_n(&calls[i].seen, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&calls[i].t, t, __ATOMIC_RELEASE);
}

/* The key of stamp t, *first = 1 for the first kernel that asks; 0 when
 * later calls took its place (shape unknown). */
static inline uint32_t fc_call_get(fc_call_slot *calls, uint32_t n, uint64_t t, int *first)
{
    uint32_t h = fc_call_hash(t, n);
    *first = 0;
    for (uint32_t p = 0; p < FC_CALL_PROBES; p++) {
        uint32_t i = (h + p) & (n - 1);
        if (__atomic_load_n(&calls[i].t, __ATOMIC_ACQUIRE) != t)
            continue;
        *first = !__atomic_exchange_n(&calls[i].seen, 1, __ATOMIC_RELAXED);
        return __atomic_load_n(&calls[i].key, __ATOMIC_RELAXED);
    }
    return 0;
}

#endif
