/* SPDX-License-Identifier: Apache-2.0 */
/* hotpath.h - the hot path, inline in every hook: a successful outer call
 * becomes one 64-byte record in a ring owned by the calling thread.
 *
 * What a call costs here: the record's fields and a cycle-counter stamp
 * written into the next slot, one release store publishing it, and one test
 * of how far the ring is filled against a shared threshold (drain_at). Also,
 * on every call: a probe of the call-site table by a two-multiply key
 * (fc_site_key), which unwinds the stack (libunwind) the first time a shape
 * is seen; and, for cuBLAS/cuBLASLt calls, the GPU bookkeeping of
 * fc_ring_gpu_call (a flag, and a CUDA event when the call can be an
 * iteration boundary). No lock, no atomic read-modify-write, no allocation,
 * no shared hash table. The drainer thread (drainer.c) later counts the
 * record in the shape table (count/counters.c) and feeds it to the
 * iteration detector (detect/). Anything the fast path cannot take - a
 * thread without a ring yet, a full ring, a dimension beyond 32 bits, a
 * failed call - goes the slow way (fc_record: counted at once by the
 * caller, then queued marked as counted), so totals stay exact whichever
 * way a call went. Readers of the counters drain the rings first
 * (fc_ring_sync). */
#ifndef FC_RING_HOTPATH_H
#define FC_RING_HOTPATH_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/api.h"
#include "core/base.h"
#include "core/clock.h"
#include "core/gemm.h"
#include "detect/irec.h"
#include "probe/callsite.h"

#define FC_NRINGS 128 /* threads with a ring at once (more: their calls miss the detector) */
#define FC_RING_CAP 4096u /* records per thread ring, a power of two */
#define FC_RING_MASK (FC_RING_CAP - 1)

/* fc_crec.status */
#define FC_CREC_COUNTED 0x1u /* the caller counted it already (slow path) */

/* One event as the hook left it: a call (kind FC_IREC_GEMM) or a marker. */
typedef struct fc_crec {
    uint64_t t; /* fc_ticks() when the call returned */
    union {
        struct {
            const void *a, *b, *c; /* GEMM operand addresses, never dereferenced */
        };
        struct {
            uint64_t executed, model; /* FC_IREC_ATTN: FLOPs (saturated at 2^64 - 1) */
            uint32_t id;              /* its shape in count/attn_table.h */
            uint32_t pad;
        } attn;
    };
    int32_t m, n, k, batch; /* saturated at INT32_MAX in counted records */
    uint32_t sig;          /* counted records: fc_gemm_sig (else the drainer's job) */
    uint8_t api, flags, dtype, out_dtype;
    int16_t compute;
    char transa, transb;
    uint8_t kind;   /* enum fc_irec_kind */
    uint8_t status; /* FC_CREC_COUNTED */
    uint8_t phase;  /* markers: enum fc_phase */
    uint8_t pad;
} fc_crec;
_Static_assert(sizeof(fc_crec) == 64, "one record, one cache line");

/* A thread's ring. The records are mapped when a thread first claims the
 * ring (core/lazymem.h), and kept for the next thread that claims it. */
typedef struct fc_ring {
    _Atomic uint64_t head; /* written by the owner thread only */
    uint64_t tail_seen;    /* owner's last look at tail */
    fc_crec *rec;          /* FC_RING_CAP records; set before the ring's first record */
    char pad0[40];
    _Atomic uint64_t tail; /* written by whoever holds the drain lock */
    _Atomic int state;     /* 0 free, 1 owned, 2 owner gone (drain then free) */
    char pad1[52];
} fc_ring;

/* What the hot path reads on every call (its own line, written rarely),
 * then what the out-of-line help reads and the drainer writes. */
typedef struct fc_ring_ctl {
    /* a caller calls fc_ring_help once this many of its records are
     * pending: half a ring while a drainer thread runs (the caller rings
     * its bell if it sleeps: a wake-up by fill level, never per record);
     * 1 (every call) when there is no drainer thread, so the time rule is
     * checked */
    _Atomic uint64_t drain_at;
    char pad[56];
    _Atomic uint64_t help_at;          /* pending records that make a caller drain */
    _Atomic uint64_t help_every_ticks; /* ... or the last drain this old (no drainer) */
    _Atomic uint64_t last_drain;
    atomic_int asleep; /* the drainer sleeps on it (futex) */
    char pad2[36];
} fc_ring_ctl;

extern fc_ring_ctl fc_ring_ctl_;
extern FC_TLS fc_ring *fc_my_ring; /* NULL until the thread claims one; reset in a fork child */

/* Out of line, rarely: drain_at was reached (h is the new head): wake a
 * sleeping drainer (half a ring pending), or drain when the ring is
 * filling up (the drainer is late; or, without a drainer, when the last
 * drain is old). */
void fc_ring_help(fc_ring *r, uint64_t h, uint64_t t);
/* The slow path (ring.c): counts one finished call at once - invalid when a
 * dimension is negative, failed when status_ok is 0 - and queues a
 * successful one for the detector marked as counted. Keeps errno. No lock
 * and no allocation, but it may claim the thread's ring, start the drainer
 * thread (first ring of the process) and, when the ring is full, drain it
 * or wait a bounded time for the drainer. */
void fc_record(const fc_gemm *g, int status_ok);
/* A GPU call's extras (GPU work seen, CUDA-event timing); out of line. */
void fc_ring_gpu_call(const fc_gemm *g, uint64_t t);

/* What every counted call also does on its own thread: GPU bookkeeping for
 * cuBLAS calls, and the call-site probe (unwinds on a shape's first call). */
static inline void fc_call_noted(const fc_gemm *g, uint64_t t)
{
    if (fc_api_is_gpu(g->api))
        fc_ring_gpu_call(g, t);
    uint32_t key = fc_site_key(g);
    if (FC_UNLIKELY(atomic_load_explicit(&fc_callsite_sigs[key & (FC_CALLSITE_SIG_SLOTS - 1)],
                                         memory_order_relaxed) != key))
        fc_callsite_note(key);
}

static inline int32_t fc_sat32(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

/* Publishes slot h of r (the owner's); one test decides whether this
 * caller has anything else to do. */
static inline void fc_ring_publish(fc_ring *r, uint64_t h, uint64_t t)
{
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    if (FC_UNLIKELY(h + 1 - r->tail_seen >=
                    atomic_load_explicit(&fc_ring_ctl_.drain_at, memory_order_relaxed)))
        fc_ring_help(r, h + 1, t);
}

/* Writes g into slot h of r (the owner's) and publishes it. status 0: the
 * drainer counts it (dimensions fit 32 bits, sig is the drainer's to
 * compute); FC_CREC_COUNTED: the caller did (sig given, dimensions beyond
 * 32 bits clamped - the detector does not need them exact). */
static inline void fc_ring_put(fc_ring *r, uint64_t h, const fc_gemm *g, uint32_t sig,
                               uint8_t status)
{
    fc_crec *e = &r->rec[h & FC_RING_MASK];
    uint64_t t = FC_LIKELY(g->t == 0) ? fc_ticks() : g->t;
    int sat = status & FC_CREC_COUNTED;
    e->t = t;
    e->a = g->a;
    e->b = g->b;
    e->c = g->c;
    e->m = sat ? fc_sat32(g->m) : (int32_t)g->m;
    e->n = sat ? fc_sat32(g->n) : (int32_t)g->n;
    e->k = sat ? fc_sat32(g->k) : (int32_t)g->k;
    e->batch = sat ? fc_sat32(g->batch) : (int32_t)g->batch;
    e->sig = sig;
    e->api = g->api;
    e->flags = g->flags;
    e->dtype = g->dtype;
    e->out_dtype = g->out_dtype;
    e->compute = g->compute;
    e->transa = g->transa;
    e->transb = g->transb;
    e->kind = FC_IREC_GEMM;
    e->status = status;
    e->phase = e->pad = 0;
    fc_call_noted(g, t);
    fc_ring_publish(r, h, t);
}

/* The fast path of a successful outer call: 1 when g is queued (to be
 * counted by the drainer), 0 when the caller must take the slow path. */
static inline int fc_ring_call(const fc_gemm *g)
{
    fc_ring *r = fc_my_ring;
    if (FC_UNLIKELY(r == NULL))
        return 0;
    /* negative dimensions (invalid) are huge as unsigned: slow path too */
    if (FC_UNLIKELY(((uint64_t)g->m | (uint64_t)g->n | (uint64_t)g->k | (uint64_t)g->batch) >
                    (uint64_t)INT32_MAX))
        return 0;
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (FC_UNLIKELY(h - r->tail_seen >= FC_RING_CAP))
        return 0;
    fc_ring_put(r, h, g, 0, 0);
    return 1;
}

/* Counts one finished outer call: queued when it can be, else at once. */
static inline void fc_ring_count(const fc_gemm *g, int ok)
{
    if (!(ok && fc_ring_call(g)))
        fc_record(g, ok);
}

#endif
