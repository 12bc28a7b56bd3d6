/* counters.c - record one GEMM call: FLOPs, per-shape table, totals.
 *
 * The table is a static open-addressing hash of FC_SHAPE_CAPACITY slots. A
 * slot is claimed with one compare-and-swap and then only ever gains counts,
 * so readers and writers need no lock. 128-bit FLOP sums are kept as two
 * 64-bit atomics with an explicit carry, exact once writers are quiet.
 *
 * The hot path does not touch the table's counts: each thread (from a
 * static pool of TC_THREADS caches) keeps a direct-mapped cache of
 * TC_WAYS entries, one per recent shape, holding the slot and the calls
 * and FLOPs not yet added to it. Only the owner writes an entry (a plain
 * load and store, no lock prefix). Readers add every cache's entries to the
 * table's counts, so a count is always in exactly one place. Moving an
 * entry's counts to the table (when another shape needs the entry) happens
 * in a window marked by an odd seq; a reader announces itself first
 * (readers > 0) and waits for open windows to close, and an owner that sees
 * a reader counts straight into the table instead of opening a window.
 * A dead thread's cache keeps its counts; the next thread to claim it
 * carries on with them. */
#include "counters.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "irec.h"
#include "iter.h"

enum { SLOT_EMPTY = 0, SLOT_BUSY = 1, SLOT_READY = 2 };
#define PROBE_LIMIT 64

typedef struct acc128 {
    _Atomic uint64_t lo, hi;
} acc128;

typedef struct slot {
    _Atomic uint32_t state;
    uint32_t hash;
    fc_gemm key;
    _Atomic uint64_t calls, failed;
    acc128 flops;
} slot;

typedef struct bucket {
    _Atomic uint64_t calls, failed;
    acc128 flops;
} bucket;

#define TC_WAYS 256u   /* entries per thread cache, a power of two */
#define TC_THREADS 64  /* threads with a cache at once; more count directly */

typedef struct tc_entry {
    _Atomic(slot *) s; /* NULL: unused */
    _Atomic uint64_t calls, failed, flops; /* not yet in s; owner writes */
} tc_entry;

typedef struct tcache {
    _Atomic uint32_t seq; /* odd while the owner moves counts into the table */
    atomic_int state;     /* 0 free, 1 owned, 2 owner gone (counts kept) */
    tc_entry e[TC_WAYS];
} tcache;

static slot table[FC_SHAPE_CAPACITY];
static tcache tcs[TC_THREADS];
static atomic_int readers, tc_epoch = 1;
static pthread_key_t tc_key;
static pthread_once_t tc_key_once = PTHREAD_ONCE_INIT;
static int tc_have_key;
static FC_TLS tcache *my_tc;
static FC_TLS int my_tc_epoch, my_tc_off; /* off: thread is exiting, or no cache */
static bucket overflow[FC_API_COUNT][FC_DT_COUNT];
static _Atomic uint64_t n_invalid, n_unresolved, n_shapes;

static inline void acc_add(acc128 *a, fc_u128 v)
{
    uint64_t lo = (uint64_t)v, hi = (uint64_t)(v >> 64);
    uint64_t old = atomic_fetch_add_explicit(&a->lo, lo, memory_order_relaxed);
    if (old + lo < old)
        hi++;
    if (hi)
        atomic_fetch_add_explicit(&a->hi, hi, memory_order_relaxed);
}

static inline fc_u128 acc_get(acc128 *a)
{
    return ((fc_u128)atomic_load_explicit(&a->hi, memory_order_relaxed) << 64) |
           atomic_load_explicit(&a->lo, memory_order_relaxed);
}

fc_u128 fc_gemm_flops(const fc_gemm *g, int *valid)
{
    if (g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 0) {
        *valid = 0;
        return 0;
    }
    *valid = 1;
    /* Every real GEMM fits 64 bits: four checked multiplies, no call. */
    uint64_t f64 = fc_dtype_is_complex(g->dtype) ? 8 : 2;
    if (!__builtin_mul_overflow(f64, (uint64_t)g->m, &f64) &&
        !__builtin_mul_overflow(f64, (uint64_t)g->n, &f64) &&
        !__builtin_mul_overflow(f64, (uint64_t)g->k, &f64) &&
        !__builtin_mul_overflow(f64, (uint64_t)g->batch, &f64))
        return f64;
    fc_u128 per = fc_dtype_is_complex(g->dtype) ? 8 : 2;
    fc_u128 f = fc_u128_sat_mul(per, (fc_u128)(uint64_t)g->m);
    f = fc_u128_sat_mul(f, (fc_u128)(uint64_t)g->n);
    f = fc_u128_sat_mul(f, (fc_u128)(uint64_t)g->k);
    return fc_u128_sat_mul(f, (fc_u128)(uint64_t)g->batch);
}

static inline int same_key(const fc_gemm *x, const fc_gemm *y)
{
    return x->api == y->api && x->flags == y->flags && x->dtype == y->dtype &&
           x->out_dtype == y->out_dtype && x->compute == y->compute &&
           x->transa == y->transa && x->transb == y->transb && x->m == y->m &&
           x->n == y->n && x->k == y->k && x->batch == y->batch;
}

/* Finds or claims the slot of g's shape (h = fc_gemm_sig(g), which the
 * detector's record reuses); NULL when the table is full along this probe
 * sequence. */
static slot *find_slot(const fc_gemm *g, uint32_t h)
{
    for (uint32_t i = 0; i < PROBE_LIMIT; i++) {
        slot *s = &table[(h + i) & (FC_SHAPE_CAPACITY - 1)];
        uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
        if (st == SLOT_EMPTY) {
            uint32_t expect = SLOT_EMPTY;
            if (atomic_compare_exchange_strong_explicit(&s->state, &expect, SLOT_BUSY,
                                                        memory_order_acq_rel,
                                                        memory_order_acquire)) {
                s->hash = h;
                s->key = *g;
                s->key.a = s->key.b = s->key.c = NULL;
                atomic_store_explicit(&s->state, SLOT_READY, memory_order_release);
                atomic_fetch_add_explicit(&n_shapes, 1, memory_order_relaxed);
                return s;
            }
            st = expect;
        }
        while (st == SLOT_BUSY) /* another thread is writing the key: a few ns */
            st = atomic_load_explicit(&s->state, memory_order_acquire);
        if (s->hash == h && same_key(&s->key, g))
            return s;
    }
    return NULL;
}

/* ---- per-thread caches ---- */

static void tc_release(void *p)
{
    my_tc = NULL;
    my_tc_off = 1; /* GEMMs in later thread-exit destructors count directly */
    if (p != NULL)
        atomic_store_explicit(&((tcache *)p)->state, 2, memory_order_release);
}

static void tc_make_key(void)
{
    tc_have_key = pthread_key_create(&tc_key, tc_release) == 0;
}

/* A free cache, else one a dead thread left (its counts come along);
 * NULL when TC_THREADS threads hold one (this thread then counts directly). */
static tcache *tc_claim(void)
{
    int ep = atomic_load_explicit(&tc_epoch, memory_order_acquire);
    pthread_once(&tc_key_once, tc_make_key);
    if (!tc_have_key) {
        my_tc_off = 1;
        return NULL;
    }
    for (int want = 0; want <= 2; want += 2)
        for (int i = 0; i < TC_THREADS; i++) {
            int expect = want;
            if (atomic_compare_exchange_strong(&tcs[i].state, &expect, 1)) {
                my_tc = &tcs[i];
                my_tc_epoch = ep;
                pthread_setspecific(tc_key, my_tc);
                return my_tc;
            }
        }
    my_tc_off = 1; /* do not look again on every call */
    return NULL;
}

/* Adds one call to an entry of the owner's cache; 0 when its FLOPs would
 * not fit 64 bits (then the caller counts into the table). */
static inline int tc_add(tc_entry *e, fc_u128 flops, int ok)
{
    if (!ok) {
        atomic_store_explicit(&e->failed,
                              atomic_load_explicit(&e->failed, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        return 1;
    }
    uint64_t f = atomic_load_explicit(&e->flops, memory_order_relaxed);
    if (FC_UNLIKELY(flops > (fc_u128)(UINT64_MAX - f)))
        return 0;
    atomic_store_explicit(&e->flops, f + (uint64_t)flops, memory_order_relaxed);
    atomic_store_explicit(&e->calls, atomic_load_explicit(&e->calls, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    return 1;
}

static void table_add(_Atomic uint64_t *calls, _Atomic uint64_t *failed, acc128 *acc,
                      fc_u128 flops, int ok)
{
    if (ok) {
        atomic_fetch_add_explicit(calls, 1, memory_order_relaxed);
        acc_add(acc, flops);
    } else {
        atomic_fetch_add_explicit(failed, 1, memory_order_relaxed);
    }
}

/* Points e at slot s, first moving its counts into the slot it held, in a
 * window readers wait for. 0 when a reader is about (nothing changed). */
static int tc_rebind(tcache *tc, tc_entry *e, slot *s)
{
    uint32_t q = atomic_load_explicit(&tc->seq, memory_order_relaxed);
    atomic_store_explicit(&tc->seq, q + 1, memory_order_seq_cst);
    if (atomic_load_explicit(&readers, memory_order_seq_cst) != 0) {
        atomic_store_explicit(&tc->seq, q + 2, memory_order_release);
        return 0;
    }
    slot *old = atomic_load_explicit(&e->s, memory_order_relaxed);
    if (old != NULL) {
        uint64_t c = atomic_load_explicit(&e->calls, memory_order_relaxed);
        uint64_t fl = atomic_load_explicit(&e->failed, memory_order_relaxed);
        uint64_t f = atomic_load_explicit(&e->flops, memory_order_relaxed);
        if (c)
            atomic_fetch_add_explicit(&old->calls, c, memory_order_relaxed);
        if (fl)
            atomic_fetch_add_explicit(&old->failed, fl, memory_order_relaxed);
        if (f)
            acc_add(&old->flops, f);
    }
    atomic_store_explicit(&e->calls, 0, memory_order_relaxed);
    atomic_store_explicit(&e->failed, 0, memory_order_relaxed);
    atomic_store_explicit(&e->flops, 0, memory_order_relaxed);
    atomic_store_explicit(&e->s, s, memory_order_relaxed);
    atomic_store_explicit(&tc->seq, q + 2, memory_order_release);
    return 1;
}

/* Counts a call whose shape is not in its cache entry (or with no cache). */
static void record_slow(tcache *tc, const fc_gemm *g, uint32_t h, fc_u128 flops, int ok)
{
    slot *s = find_slot(g, h);
    if (FC_UNLIKELY(s == NULL)) {
        bucket *b = &overflow[g->api % FC_API_COUNT][g->dtype % FC_DT_COUNT];
        table_add(&b->calls, &b->failed, &b->flops, flops, ok);
        return;
    }
    if (tc != NULL) {
        tc_entry *e = &tc->e[h & (TC_WAYS - 1)];
        if (atomic_load_explicit(&e->s, memory_order_relaxed) == s || tc_rebind(tc, e, s))
            if (tc_add(e, flops, ok))
                return;
    }
    table_add(&s->calls, &s->failed, &s->flops, flops, ok);
}

void fc_record(const fc_gemm *g, int status_ok)
{
    int valid;
    fc_u128 flops = fc_gemm_flops(g, &valid);
    if (FC_UNLIKELY(!valid)) {
        atomic_fetch_add_explicit(&n_invalid, 1, memory_order_relaxed);
        return;
    }
    uint32_t h = fc_gemm_sig(g);
    tcache *tc = my_tc;
    if (FC_UNLIKELY(tc == NULL ||
                    my_tc_epoch != atomic_load_explicit(&tc_epoch, memory_order_relaxed)))
        tc = my_tc_off ? NULL : tc_claim();
    tc_entry *e = tc != NULL ? &tc->e[h & (TC_WAYS - 1)] : NULL;
    slot *s = e != NULL ? atomic_load_explicit(&e->s, memory_order_relaxed) : NULL;
    if (FC_UNLIKELY(s == NULL || s->hash != h || !same_key(&s->key, g) ||
                    !tc_add(e, flops, status_ok)))
        record_slow(tc, g, h, flops, status_ok);
    if (status_ok)
        fc_iter_on_call_sig(g, flops, h);
}

/* Readers: no entry changes slot from here until quiet_end. Waits for
 * owners in a window (a few stores); not for one this thread interrupted
 * (a report from a signal handler), nor forever. */
static void quiet_begin(void)
{
    atomic_fetch_add_explicit(&readers, 1, memory_order_seq_cst);
    for (int i = 0; i < TC_THREADS; i++) {
        tcache *tc = &tcs[i];
        for (int spins = 0; spins < 100000 && tc != my_tc &&
                            (atomic_load_explicit(&tc->seq, memory_order_seq_cst) & 1);
             spins++)
            sched_yield();
    }
}

static void quiet_end(void)
{
    atomic_fetch_sub_explicit(&readers, 1, memory_order_release);
}

/* Adds to v what the thread caches hold for slot s. */
static void add_cached(const slot *s, fc_shape_view *v)
{
    uint32_t w = s->hash & (TC_WAYS - 1);
    for (int i = 0; i < TC_THREADS; i++) {
        if (atomic_load_explicit(&tcs[i].state, memory_order_acquire) == 0)
            continue;
        tc_entry *e = &tcs[i].e[w];
        if (atomic_load_explicit(&e->s, memory_order_acquire) != s)
            continue;
        v->calls += atomic_load_explicit(&e->calls, memory_order_relaxed);
        v->failed_calls += atomic_load_explicit(&e->failed, memory_order_relaxed);
        v->flops += atomic_load_explicit(&e->flops, memory_order_relaxed);
    }
}

void fc_record_unresolved(int api)
{
    (void)api;
    atomic_fetch_add_explicit(&n_unresolved, 1, memory_order_relaxed);
}

void fc_counters_foreach(void (*fn)(const fc_shape_view *, void *), void *ctx)
{
    quiet_begin();
    for (uint32_t i = 0; i < FC_SHAPE_CAPACITY; i++) {
        slot *s = &table[i];
        if (atomic_load_explicit(&s->state, memory_order_acquire) != SLOT_READY)
            continue;
        fc_shape_view v = {.key = s->key,
                           .calls = atomic_load_explicit(&s->calls, memory_order_relaxed),
                           .failed_calls = atomic_load_explicit(&s->failed, memory_order_relaxed),
                           .flops = acc_get(&s->flops)};
        add_cached(s, &v);
        fn(&v, ctx);
    }
    quiet_end();
    for (int a = 0; a < FC_API_COUNT; a++)
        for (int d = 0; d < FC_DT_COUNT; d++) {
            bucket *b = &overflow[a][d];
            uint64_t calls = atomic_load_explicit(&b->calls, memory_order_relaxed);
            uint64_t failed = atomic_load_explicit(&b->failed, memory_order_relaxed);
            if (calls == 0 && failed == 0)
                continue;
            fc_shape_view v = {.calls = calls, .failed_calls = failed, .flops = acc_get(&b->flops)};
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
    memset(table, 0, sizeof table);
    memset(overflow, 0, sizeof overflow);
    memset(tcs, 0, sizeof tcs);
    atomic_store(&readers, 0);
    atomic_fetch_add(&tc_epoch, 1); /* the forking thread claims a cache afresh */
    atomic_store(&n_invalid, 0);
    atomic_store(&n_unresolved, 0);
    atomic_store(&n_shapes, 0);
}
