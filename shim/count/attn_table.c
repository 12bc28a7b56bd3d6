/* SPDX-License-Identifier: Apache-2.0 */
/* attn_table.c - the table of counted fused-attention shapes (attn_table.h).
 *
 * Entries are claimed in first-seen order through an open-addressing
 * index, as the GEMM shape table does (counters.c): a slot is claimed with
 * one compare-and-swap, its key and per-call figures are written once,
 * then it only gains counts. The table is mapped at the first attention
 * call (core/lazymem.h). 128-bit sums are two relaxed 64-bit atomics with
 * a carry, exact once writers are quiet. */
#include "attn_table.h"

#include <stdatomic.h>
#include <string.h>

#include "core/base.h"
#include "acc128.h"
#include "core/lazymem.h"

#define PROBE_LIMIT 64
#define INDEX_BUSY 1u
#define INDEX_OF(hash, entry) ((uint64_t)(hash) << 32 | (uint64_t)((entry) + 2))

typedef struct entry {
    _Atomic uint32_t ready;
    fc_attn key;
    fc_attn_flops per_call;
    _Atomic uint64_t calls, failed;
    fc_acc128 executed, model, tiles;
} entry;

typedef struct table {
    _Atomic uint64_t index[FC_ATTN_CAPACITY * 2];
    entry ents[FC_ATTN_CAPACITY];
} table;

typedef struct bucket {
    _Atomic uint64_t calls, failed;
    fc_acc128 executed, model;
} bucket;

static table *_Atomic tab;
static _Atomic uint32_t n_ents;
/* shapes beyond the table, per source, direction and bound: a call whose
 * lengths are maxima stays an upper bound in the lump */
static bucket overflow[FC_ATTN_SRC_COUNT][2][2];
static atomic_int overflow_used;

static int same_key(const fc_attn *x, const fc_attn *y)
{
    return x->source == y->source && x->dir == y->dir && x->align == y->align &&
           x->dtype == y->dtype && x->flags == y->flags && x->variant == y->variant &&
           x->b == y->b && x->h == y->h &&
           x->h_k == y->h_k && x->s_q == y->s_q && x->s_k == y->s_k && x->d == y->d &&
           x->d_v == y->d_v && x->window_left == y->window_left &&
           x->window_right == y->window_right && x->block_m == y->block_m &&
           x->block_n == y->block_n && x->d_pad == y->d_pad && x->d_v_pad == y->d_v_pad;
}

static uint32_t key_hash(const fc_attn *a)
{
    uint64_t h = (uint64_t)a->source | (uint64_t)a->dir << 8 | (uint64_t)a->align << 16 |
                 (uint64_t)a->dtype << 24 | (uint64_t)a->flags << 32 | (uint64_t)a->variant << 40;
    const int64_t f[] = {a->b, a->h, a->h_k, a->s_q, a->s_k, a->d, a->d_v, a->window_left,
                         a->window_right, a->block_m, a->block_n, a->d_pad, a->d_v_pad};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        h = h * 0x9e3779b97f4a7c15ull ^ (uint64_t)f[i];
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (uint32_t)h | 1u; /* 0 means "empty" */
}

/* The entry of a's shape, claimed when new; NULL when the index is full
 * along the probe sequence or there is no table. */
static entry *find(const fc_attn *a, const fc_attn_flops *f, uint32_t *id)
{
    table *t = fc_mem_map_once((void *_Atomic *)&tab, sizeof(table));
    if (FC_UNLIKELY(t == NULL))
        return NULL;
    uint32_t h = key_hash(a);
    const uint32_t nidx = FC_ATTN_CAPACITY * 2;
    for (uint32_t i = 0; i < PROBE_LIMIT; i++) {
        _Atomic uint64_t *ix = &t->index[(h + i) & (nidx - 1)];
        uint64_t v = atomic_load_explicit(ix, memory_order_acquire);
        if (v == 0) {
            uint64_t expect = 0;
            if (atomic_compare_exchange_strong_explicit(ix, &expect, INDEX_BUSY,
                                                        memory_order_acq_rel,
                                                        memory_order_acquire)) {
                uint32_t e = atomic_fetch_add_explicit(&n_ents, 1, memory_order_acq_rel);
                if (e >= FC_ATTN_CAPACITY) { /* the array is full: the slot stays busy-free */
                    atomic_store_explicit(ix, 0, memory_order_release);
                    return NULL;
                }
                entry *en = &t->ents[e];
                en->key = *a;
                en->per_call = *f;
                atomic_store_explicit(&en->ready, 1, memory_order_release);
                atomic_store_explicit(ix, INDEX_OF(h, e), memory_order_release);
                *id = e;
                return en;
            }
            v = expect;
        }
        while (v == INDEX_BUSY)
            v = atomic_load_explicit(ix, memory_order_acquire);
        if (v == 0 || (uint32_t)(v >> 32) != h)
            continue;
        entry *en = &t->ents[(uint32_t)v - 2];
        if (same_key(&en->key, a)) {
            *id = (uint32_t)v - 2;
            return en;
        }
    }
    return NULL;
}

uint32_t fc_attn_table_add(const fc_attn *a, const fc_attn_flops *f, int ok)
{
    uint32_t id = FC_ATTN_ID_NONE;
    entry *en = find(a, f, &id);
    if (FC_LIKELY(en != NULL)) {
        if (ok) {
            atomic_fetch_add_explicit(&en->calls, 1, memory_order_relaxed);
            fc_acc128_add(&en->executed, f->executed);
            fc_acc128_add(&en->model, f->model);
            fc_acc128_add(&en->tiles, f->tiles);
        } else {
            atomic_fetch_add_explicit(&en->failed, 1, memory_order_relaxed);
        }
        return id;
    }
    bucket *b =
        &overflow[a->source % FC_ATTN_SRC_COUNT][a->dir & 1][(a->flags & FC_ATTN_BOUND) != 0];
    if (!atomic_load_explicit(&overflow_used, memory_order_relaxed))
        atomic_store_explicit(&overflow_used, 1, memory_order_relaxed);
    if (ok) {
        atomic_fetch_add_explicit(&b->calls, 1, memory_order_relaxed);
        fc_acc128_add(&b->executed, f->executed);
        fc_acc128_add(&b->model, f->model);
    } else {
        atomic_fetch_add_explicit(&b->failed, 1, memory_order_relaxed);
    }
    return FC_ATTN_ID_NONE;
}

int fc_attn_table_get(uint32_t id, fc_attn *key, fc_attn_flops *per_call)
{
    table *t = atomic_load_explicit(&tab, memory_order_acquire);
    if (t == NULL || id >= FC_ATTN_CAPACITY ||
        id >= atomic_load_explicit(&n_ents, memory_order_acquire) ||
        !atomic_load_explicit(&t->ents[id].ready, memory_order_acquire))
        return -1;
    if (key != NULL)
        *key = t->ents[id].key;
    if (per_call != NULL)
        *per_call = t->ents[id].per_call;
    return 0;
}

void fc_attn_table_foreach(void (*fn)(const fc_attn_view *, void *), void *ctx)
{
    table *t = atomic_load_explicit(&tab, memory_order_acquire);
    uint32_t n = t ? atomic_load_explicit(&n_ents, memory_order_acquire) : 0;
    for (uint32_t i = 0; i < n && i < FC_ATTN_CAPACITY; i++) {
        entry *en = &t->ents[i];
        if (!atomic_load_explicit(&en->ready, memory_order_acquire))
            continue;
        fc_attn_view v = {.key = en->key, .per_call = en->per_call,
                          .calls = atomic_load_explicit(&en->calls, memory_order_relaxed),
                          .failed_calls = atomic_load_explicit(&en->failed, memory_order_relaxed),
                          .executed = fc_acc128_get(&en->executed), .model = fc_acc128_get(&en->model),
                          .tiles = fc_acc128_get(&en->tiles)};
        fn(&v, ctx);
    }
    if (!atomic_load_explicit(&overflow_used, memory_order_relaxed))
        return;
    for (int s = 0; s < FC_ATTN_SRC_COUNT; s++)
        for (int d = 0; d < 4; d++) { /* direction d >> 1, bound d & 1 */
            bucket *b = &overflow[s][d >> 1][d & 1];
            fc_attn_view v;
            memset(&v, 0, sizeof v);
            v.calls = atomic_load_explicit(&b->calls, memory_order_relaxed);
            v.failed_calls = atomic_load_explicit(&b->failed, memory_order_relaxed);
            if (v.calls == 0 && v.failed_calls == 0)
                continue;
            v.key.source = (uint8_t)s;
            v.key.dir = (uint8_t)(d >> 1);
            v.key.flags = (d & 1) ? FC_ATTN_BOUND : 0;
            v.key.b = -1;
            v.executed = fc_acc128_get(&b->executed);
            v.model = fc_acc128_get(&b->model);
            fn(&v, ctx);
        }
}

static void add_view(const fc_attn_view *v, void *ctx)
{
    fc_attn_totals *t = ctx;
    t->calls += v->calls;
    t->failed_calls += v->failed_calls;
    t->executed = fc_u128_sat_add(t->executed, v->executed);
    t->model = fc_u128_sat_add(t->model, v->model);
    t->tiles = fc_u128_sat_add(t->tiles, v->tiles);
    if (v->per_call.tiles == 0)
        t->tile_unknown_calls += v->calls;
    if (v->key.b < 0)
        t->overflow_calls += v->calls + v->failed_calls;
    int s = v->key.source % FC_ATTN_SRC_COUNT;
    t->executed_by_source[s] = fc_u128_sat_add(t->executed_by_source[s], v->executed);
    t->calls_by_source[s] += v->calls;
}

void fc_attn_table_totals(fc_attn_totals *out)
{
    memset(out, 0, sizeof *out);
    fc_attn_table_foreach(add_view, out);
    uint32_t n = atomic_load_explicit(&n_ents, memory_order_relaxed);
    out->distinct_shapes = n < FC_ATTN_CAPACITY ? n : FC_ATTN_CAPACITY;
}

void fc_attn_table_reset(void)
{
    fc_mem_clear(atomic_load(&tab), sizeof(table));
    atomic_store(&n_ents, 0);
    if (atomic_load(&overflow_used))
        memset(overflow, 0, sizeof overflow);
    atomic_store(&overflow_used, 0);
}
