/* SPDX-License-Identifier: Apache-2.0 */
/* counters.c - the per-shape table of counted GEMM calls and the totals.
 *
 * Shapes are kept in the order they were first seen, in an array found
 * through an open-addressing index of FC_SHAPE_CAPACITY slots, so reading
 * the table (a report) costs what it holds, not its capacity. An index
 * slot is claimed with one compare-and-swap, then the shape gets the next
 * array entry, which only ever gains counts afterwards, so readers and
 * writers need no lock. Both live in memory mapped at the process's first
 * GEMM (fc_counters_init; core/lazymem.h): a process that runs none pays
 * nothing for them, and its pages grow with the shapes seen. 128-bit FLOP
 * sums are kept as two 64-bit atomics with an explicit carry, exact once
 * writers are quiet. The table is keyed by fc_gemm_sig, the same signature
 * the iteration detector's record carries, so a call is hashed once.
 * Writers are the ring layer (ring/ring.c): the drainer for calls queued
 * by the hot path, the caller itself for calls the hot path could not
 * queue. Readers that want every finished call drain the rings first
 * (fc_ring_sync). */
#include "counters.h"

#include <stdatomic.h>
#include <string.h>

#include "core/base.h"
#include "acc128.h"
#include "core/lazymem.h"

#define PROBE_LIMIT 64
#define INDEX_BUSY 1u /* index slot claimed, its shape's entry not written yet */
/* An index slot: the shape's hash in the high half (probes compare it
 * without touching the array), its entry + 2 in the low half. */
#define INDEX_OF(hash, entry) ((uint64_t)(hash) << 32 | (uint64_t)((entry) + 2))

typedef struct slot {
    _Atomic uint32_t ready; /* key and hash written */
    uint32_t hash;
    fc_gemm key;
    _Atomic uint64_t calls, failed;
    fc_acc128 flops;
} slot;

typedef struct table {
    _Atomic uint64_t index[FC_SHAPE_CAPACITY]; /* 0 empty, INDEX_BUSY, else INDEX_OF */
    slot shapes[FC_SHAPE_CAPACITY];            /* in the order first seen */
} table;

typedef struct bucket {
    _Atomic uint64_t calls, failed;
    fc_acc128 flops;
} bucket;

static table *_Atomic tab; /* NULL until the first GEMM (or when it could not be mapped) */
static _Atomic uint32_t n_shapes;
static bucket overflow[FC_API_COUNT][FC_DT_COUNT];
static atomic_int overflow_used;
static _Atomic uint64_t n_invalid, n_unresolved;

int fc_counters_init(void)
{
    return fc_mem_map_once((void *_Atomic *)&tab, sizeof(table)) != NULL ? 0 : -1;
}

static inline int same_key(const fc_gemm *x, const fc_gemm *y)
{
    return x->api == y->api && x->flags == y->flags && x->dtype == y->dtype &&
           x->out_dtype == y->out_dtype && x->compute == y->compute &&
           x->transa == y->transa && x->transb == y->transb && x->m == y->m &&
           x->n == y->n && x->k == y->k && x->batch == y->batch;
}

/* Finds or claims the entry of g's shape (h = fc_gemm_sig(g), which the
 * detector's record reuses); NULL when the index is full along this probe
 * sequence (or there is no table). */
static slot *find_slot(const fc_gemm *g, uint32_t h)
{
    table *t = atomic_load_explicit(&tab, memory_order_acquire);
    if (FC_UNLIKELY(t == NULL))
        return NULL;
    for (uint32_t i = 0; i < PROBE_LIMIT; i++) {
        _Atomic uint64_t *ix = &t->index[(h + i) & (FC_SHAPE_CAPACITY - 1)];
        uint64_t v = atomic_load_explicit(ix, memory_order_acquire);
        if (v == 0) {
            uint64_t expect = 0;
            if (atomic_compare_exchange_strong_explicit(ix, &expect, INDEX_BUSY,
                                                        memory_order_acq_rel,
                                                        memory_order_acquire)) {
                /* one entry per claimed index slot: never past the array */
                uint32_t e = atomic_fetch_add_explicit(&n_shapes, 1, memory_order_acq_rel);
                slot *s = &t->shapes[e];
                s->hash = h;
                s->key = *g;
                s->key.a = s->key.b = s->key.c = NULL;
                atomic_store_explicit(&s->ready, 1, memory_order_release);
                atomic_store_explicit(ix, INDEX_OF(h, e), memory_order_release);
                return s;
            }
            v = expect;
        }
        while (v == INDEX_BUSY) /* another thread is writing the key: a few ns */
            v = atomic_load_explicit(ix, memory_order_acquire);
        if ((uint32_t)(v >> 32) != h)
            continue;
        slot *s = &t->shapes[(uint32_t)v - 2];
        if (same_key(&s->key, g))
            return s;
    }
    return NULL;
}

static void table_add(_Atomic uint64_t *calls, _Atomic uint64_t *failed, fc_acc128 *acc,
                      fc_u128 flops, int ok)
{
    if (ok) {
        atomic_fetch_add_explicit(calls, 1, memory_order_relaxed);
        fc_acc128_add(acc, flops);
    } else {
        atomic_fetch_add_explicit(failed, 1, memory_order_relaxed);
    }
}

void fc_counters_add(const fc_gemm *g, fc_u128 flops, uint32_t sig, int ok)
{
    slot *s = find_slot(g, sig);
    if (FC_LIKELY(s != NULL)) {
        table_add(&s->calls, &s->failed, &s->flops, flops, ok);
    } else {
        bucket *b = &overflow[g->api % FC_API_COUNT][g->dtype % FC_DT_COUNT];
        if (!atomic_load_explicit(&overflow_used, memory_order_relaxed))
            atomic_store_explicit(&overflow_used, 1, memory_order_relaxed);
        table_add(&b->calls, &b->failed, &b->flops, flops, ok);
    }
}

void fc_counters_add_calls(const fc_gemm *g, fc_u128 flops, uint32_t sig, uint64_t n)
{
    slot *s = find_slot(g, sig);
    _Atomic uint64_t *calls;
    fc_acc128 *acc;
    if (FC_LIKELY(s != NULL)) {
        calls = &s->calls;
        acc = &s->flops;
    } else {
        bucket *b = &overflow[g->api % FC_API_COUNT][g->dtype % FC_DT_COUNT];
        if (!atomic_load_explicit(&overflow_used, memory_order_relaxed))
            atomic_store_explicit(&overflow_used, 1, memory_order_relaxed);
        calls = &b->calls;
        acc = &b->flops;
    }
    atomic_fetch_add_explicit(calls, n, memory_order_relaxed);
    fc_acc128_add(acc, flops * n);
}

void fc_counters_add_invalid(void)
{
    atomic_fetch_add_explicit(&n_invalid, 1, memory_order_relaxed);
}

void fc_counters_add_unresolved(void)
{
    atomic_fetch_add_explicit(&n_unresolved, 1, memory_order_relaxed);
}

void fc_counters_foreach(void (*fn)(const fc_shape_view *, void *), void *ctx)
{
    table *t = atomic_load_explicit(&tab, memory_order_acquire);
    uint32_t n = t ? atomic_load_explicit(&n_shapes, memory_order_acquire) : 0;
    for (uint32_t i = 0; i < n && i < FC_SHAPE_CAPACITY; i++) {
        slot *s = &t->shapes[i];
        if (!atomic_load_explicit(&s->ready, memory_order_acquire))
            continue; /* being claimed right now */
        fc_shape_view v = {.key = s->key,
                           .calls = atomic_load_explicit(&s->calls, memory_order_relaxed),
                           .failed_calls = atomic_load_explicit(&s->failed, memory_order_relaxed),
                           .flops = fc_acc128_get(&s->flops)};
        fn(&v, ctx);
    }
    if (!atomic_load_explicit(&overflow_used, memory_order_relaxed))
        return;
    for (int a = 0; a < FC_API_COUNT; a++)
        for (int d = 0; d < FC_DT_COUNT; d++) {
            bucket *b = &overflow[a][d];
            uint64_t calls = atomic_load_explicit(&b->calls, memory_order_relaxed);
            uint64_t failed = atomic_load_explicit(&b->failed, memory_order_relaxed);
            if (calls == 0 && failed == 0)
                continue;
            fc_shape_view v = {.calls = calls, .failed_calls = failed, .flops = fc_acc128_get(&b->flops)};
            v.key.api = (uint8_t)a;
            v.key.dtype = v.key.out_dtype = (uint8_t)d;
            v.key.compute = -1;
            v.key.transa = v.key.transb = '?';
            v.key.m = v.key.n = v.key.k = v.key.batch = -1;
            fn(&v, ctx);
        }
}

static void add_view(const fc_shape_view *v, void *ctx)
{
    fc_totals *t = ctx;
    t->calls += v->calls;
    t->failed_calls += v->failed_calls;
    t->flops = fc_u128_sat_add(t->flops, v->flops);
    if (v->key.m < 0)
        t->overflow_calls += v->calls + v->failed_calls;
}

void fc_counters_totals(fc_totals *out)
{
    memset(out, 0, sizeof *out);
    fc_counters_foreach(add_view, out);
    out->invalid_calls = atomic_load_explicit(&n_invalid, memory_order_relaxed);
    out->unresolved_calls = atomic_load_explicit(&n_unresolved, memory_order_relaxed);
    out->distinct_shapes = atomic_load_explicit(&n_shapes, memory_order_relaxed);
}

void fc_counters_reset(void)
{
    fc_mem_clear(atomic_load(&tab), sizeof(table));
    atomic_store(&n_shapes, 0);
    if (atomic_load(&overflow_used))
        memset(overflow, 0, sizeof overflow);
    atomic_store(&overflow_used, 0);
    atomic_store(&n_invalid, 0);
    atomic_store(&n_unresolved, 0);
}

int fc_counters_shape_of(uint32_t sig, fc_gemm *out)
{
    table *t = atomic_load_explicit(&tab, memory_order_acquire);
    int found = 0;
    for (uint32_t i = 0; t != NULL && i < PROBE_LIMIT; i++) {
        uint64_t v = atomic_load_explicit(&t->index[(sig + i) & (FC_SHAPE_CAPACITY - 1)],
                                          memory_order_acquire);
        if (v == 0)
            break;
        if (v == INDEX_BUSY || (uint32_t)(v >> 32) != sig)
            continue;
        const slot *s = &t->shapes[(uint32_t)v - 2];
        if (!atomic_load_explicit(&s->ready, memory_order_acquire))
            continue;
        if (found++)
            return -1; /* two shapes with one signature: which one is not known */
        *out = s->key;
    }
    return found ? 0 : -1;
}
