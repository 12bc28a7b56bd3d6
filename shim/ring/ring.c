/* SPDX-License-Identifier: Apache-2.0 */
/* ring.c - the rings between the hooks and the counters and detector.
 *
 * Nothing here costs a process anything until its first GEMM or marker
 * (activate): then the clock is calibrated, the tables of the counters,
 * the detector and the call sites are mapped (core/lazymem.h) and the
 * drainer thread starts. Hooks append 64-byte records to per-thread rings
 * (claimed once from a pool of FC_NRINGS, their records mapped at the
 * first claim; the fast path is in hotpath.h). Whoever holds the drain
 * lock - the drainer thread (drainer.c) as a rule, a caller whose ring is
 * 3/4 full when the drainer is late (1/4, or the last drain 0.1 s old,
 * without a drainer thread), a reader of the counters - feeds all rings,
 * merged by time, to the shape table (count/counters.c) and the detector
 * (detect/segment.c -> detect/steps.c). A caller that drains does so with
 * SIGINT and SIGTERM blocked, so a report written from their handler never
 * finds its own thread holding the lock. A ring still full after a bounded
 * wait takes the record the slow way: counted by the caller, lost to the
 * detector only (fc_ring_dropped). */
#include "ring.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "core/diag.h"
#include "core/lazymem.h"
#include "core/options.h"
#include "count/attn_table.h"
#include "count/counters.h"
#include "count/uncounted.h"
#include "detect/segment.h"
#include "detect/steps.h"
#include "probe/callsite.h"
#include "probe/devsizes.h"
#include "probe/gputime.h"
#include "probe/grouped_log.h"
#include "probe/peak_choice.h"
#include "devread.h"
#include "ring_internal.h"

#define FULL_WAIT_YIELDS 20000 /* a full ring waits this long for a drain */
#define READER_YIELDS 2000     /* a reader waits for the drain lock: yields, */
#define READER_SLEEPS_MS 5000  /* then 1 ms sleeps */

static fc_ring rings[FC_NRINGS] __attribute__((aligned(64)));
fc_ring_ctl fc_ring_ctl_ __attribute__((aligned(64))) = {
    .drain_at = 1, .help_at = FC_DRAIN_AT_INLINE, .help_every_ticks = FC_TICKS_NEVER};
FC_TLS fc_ring *fc_my_ring;

static atomic_int drain_lock;
static atomic_int readers_waiting; /* threads in lock_for_reader */
static FC_TLS int holding; /* this thread holds drain_lock */
static _Atomic uint64_t dropped, drain_every_ticks;
static pthread_key_t ring_key;
static int have_key, enabled;
static atomic_int finished; /* the detector's stream was ended for the final report */
#define MAX_TICKS 8
static void (*_Atomic tick_fns[2][MAX_TICKS])(void); /* [with the drain lock] */
static void (*_Atomic first_use_fn)(void);
/* 0 nothing set up yet (no GEMM or marker so far), 1 being set up, 2 set
 * up, 3 could not be (calls are counted, nothing is queued) */
static atomic_int activation;

#define CTL (&fc_ring_ctl_)

void fc_ring_callers_help_late(void)
{
    atomic_store(&CTL->help_at, FC_DRAIN_AT_FALLBACK);
    atomic_store(&CTL->help_every_ticks, FC_TICKS_NEVER); /* the drainer keeps the clock */
    atomic_store(&CTL->drain_at, FC_WAKE_AT);
}

void fc_ring_callers_drain(void)
{
    atomic_store(&CTL->help_at, FC_DRAIN_AT_INLINE);
    atomic_store(&CTL->help_every_ticks, atomic_load(&drain_every_ticks));
    atomic_store(&CTL->drain_at, 1);
}

int fc_ring_finished(void)
{
    return atomic_load(&finished);
}

uint64_t fc_ring_drain_every_ticks(void)
{
    return atomic_load_explicit(&drain_every_ticks, memory_order_relaxed);
}

/* Adds fn to the ticks run with (with_lock 1) or just after (0) the lock. */
static int add_tick(void (*fn)(void), int with_lock)
{
    for (int i = 0; i < MAX_TICKS; i++) {
        void (*expect)(void) = NULL;
        if (atomic_load(&tick_fns[with_lock][i]) == fn ||
            atomic_compare_exchange_strong(&tick_fns[with_lock][i], &expect, fn))
            return 0;
    }
    return -1;
}

int fc_ring_add_tick(void (*fn)(void))
{
    return add_tick(fn, 1);
}

int fc_ring_add_tick_unlocked(void (*fn)(void))
{
    return add_tick(fn, 0);
}

void fc_ring_run_tick(int with_lock)
{
    for (int i = 0; i < MAX_TICKS; i++) {
        void (*fn)(void) = atomic_load(&tick_fns[!!with_lock][i]);
        if (fn != NULL)
            fn();
    }
}

void fc_ring_wake(void)
{
    fc_drainer_wake();
}

void fc_ring_set_first_use(void (*fn)(void))
{
    atomic_store(&first_use_fn, fn);
}

/* The process's first GEMM or marker, on whichever thread makes it: the
 * clock, then the tables of the counters, the detector and the call
 * sites. A thread that comes while another sets up waits for it (a few
 * system calls and the clock's 0.2 ms). 1 when rings may be used. */
static int activate(void)
{
    int st = atomic_load_explicit(&activation, memory_order_acquire);
    if (FC_LIKELY(st >= 2))
        return st == 2;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&activation, &expect, 1)) {
        while ((st = atomic_load_explicit(&activation, memory_order_acquire)) == 1)
            sched_yield();
        return st == 2;
    }
    int saved = errno;
    fc_clock_init();
    /* A drain at least every 100 ms keeps the live line current when calls
     * are few and slow and no drainer thread runs. */
    atomic_store(&drain_every_ticks, (uint64_t)(fc_ticks_per_second() / 10));
    atomic_store(&CTL->last_drain, fc_ticks());
    fc_ring_callers_drain();
    int ok = fc_counters_init() == 0 && fc_seg_init() == 0 && fc_callsite_init() == 0;
    fc_seg_set_repeat(fc_opt.detect_repeat);
    if (!ok)
        fc_warn("cannot map memory for the counters and the iteration detector; calls are counted, "
                "shapes may be lumped together and iterations are not detected");
    atomic_store_explicit(&activation, ok ? 2 : 3, memory_order_release);
    void (*fn)(void) = atomic_load(&first_use_fn);
    if (fn != NULL)
        fn();
    errno = saved;
    return ok;
}

int fc_ring_active(void)
{
    return atomic_load_explicit(&activation, memory_order_acquire) == 2;
}

static void ring_release(void *p)
{
    fc_ring *r = p;
    if (r != NULL)
        atomic_store_explicit(&r->state, 2, memory_order_release);
}

/* Claims a ring for this thread (once); NULL when all are taken or nothing
 * could be set up. The first claim of the process starts the drainer
 * thread. */
static fc_ring *claim_ring(void)
{
    if (!activate())
        return NULL;
    for (int i = 0; i < FC_NRINGS; i++) {
        int expect = 0;
        if (atomic_compare_exchange_strong(&rings[i].state, &expect, 1)) {
            fc_ring *r = &rings[i];
            if (r->rec == NULL && (r->rec = fc_mem_map(FC_RING_CAP * sizeof(fc_crec))) == NULL) {
                atomic_store(&r->state, 0);
                static int warned_map;
                fc_warn_once(&warned_map, "cannot map a ring; this thread's calls are counted but "
                                          "not seen by the iteration detector");
                return NULL;
            }
            r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
            fc_my_ring = r;
            if (have_key)
                pthread_setspecific(ring_key, r);
            fc_drainer_start();
            return r;
        }
    }
    static int warned;
    fc_warn_once(&warned, "more than %d threads run GEMMs; iteration detection misses some calls",
                 FC_NRINGS);
    return NULL;
}

/* ---- consumer side (holds drain_lock) ---- */

/* The shape of the GEMM record fed last and what was worked out from it,
 * so a run of records of one shape (a bmm issued as one sgemm per head,
 * identical layers in a row) skips the FLOPs, the signature, the role keys
 * and the shape table: the run's calls go into the table in one add when
 * the shape changes and at the end of every drain (flush_run), before the
 * drain lock is released - so whoever reads the table after draining sees
 * them all. */
static struct run {
    int valid;
    fc_gemm shape;    /* operand addresses NULL */
    fc_u128 flops;    /* of one call */
    uint64_t pending; /* calls of this shape not in the table yet */
    fc_irec rec;      /* the detector's record, but for t and the operands */
} run;

static int same_shape(const fc_crec *c, const fc_gemm *g)
{
    return c->m == g->m && c->n == g->n && c->k == g->k && c->batch == g->batch &&
           c->api == g->api && c->flags == g->flags && c->dtype == g->dtype &&
           c->out_dtype == g->out_dtype && c->compute == g->compute && c->transa == g->transa &&
           c->transb == g->transb;
}

static void flush_run(void)
{
    if (run.pending > 0)
        fc_counters_add_calls(&run.shape, run.flops, run.rec.sig, run.pending);
    run.pending = 0;
}

/* The detector's record of a counted attention call: its FLOPs (executed,
 * and how far they exceed the model convention's), direction and dtype;
 * no operand addresses (the weights' logic never reads attention). Its
 * signature is its shape's id in the attention table, with the top bit
 * set (profile entries of kind FC_IREC_ATTN resolve it there). */
static fc_irec *attn_irec(const fc_crec *c, fc_irec *ir)
{
    memset(ir, 0, sizeof *ir);
    ir->t = c->t;
    ir->kind = FC_IREC_ATTN;
    ir->flops = c->attn.executed;
    ir->xs = c->attn.executed > c->attn.model ? c->attn.executed - c->attn.model : 0;
    ir->sig = FC_ATTN_SIG(c->attn.id);
    ir->dtype = c->dtype;
    ir->flags = c->flags & FC_IREC_ATTN_BWD;
    return ir;
}
_Static_assert(FC_NRINGS <= FC_THREAD_NONE, "a ring's index fits fc_irec.thread");

/* How the drain treats a placeholder whose read has not landed
 * (devread.h): set per drain by fc_ring_drain_some, under the drain lock. */
static int devread_mode;
static int final_drain; /* fc_ring_collect(final) is draining */

/* One record to the counters (unless its caller counted it) and the
 * detector, from ring `ring`: the thread that wrote it, for the detector
 * (PyTorch's autograd runs a CUDA backward on a thread of its own). 0 when
 * the record must stay (a placeholder whose read has not landed): the
 * drain stops there and comes back. */
static int feed(const fc_crec *c, int ring)
{
    fc_irec ir;
    if (FC_UNLIKELY(c->kind == FC_IREC_DEVREAD)) {
        flush_run();
        return fc_devread_feed(c, ring, devread_mode);
    }
    if (c->kind == FC_IREC_GEMM && c->status == 0 && run.valid && same_shape(c, &run.shape)) {
        run.pending++;
        ir = run.rec;
    } else if (c->kind == FC_IREC_GEMM) {
        fc_gemm g = {.api = c->api, .flags = c->flags, .dtype = c->dtype,
                     .out_dtype = c->out_dtype, .compute = c->compute, .transa = c->transa,
                     .transb = c->transb, .m = c->m, .n = c->n, .k = c->k, .batch = c->batch};
        int valid;
        fc_u128 f = fc_gemm_flops(&g, &valid);
        uint32_t sig = c->sig;
        if (!(c->status & FC_CREC_COUNTED))
            sig = fc_gemm_sig(&g);
        fc_irec_fill(&ir, &g, f > UINT64_MAX ? UINT64_MAX : (uint64_t)f, c->t, sig);
        if (!(c->status & FC_CREC_COUNTED)) { /* a new run */
            flush_run();
            run.valid = 1;
            run.shape = g;
            run.flops = f;
            run.pending = 1;
            run.rec = ir;
        }
    } else if (c->kind == FC_IREC_ATTN) {
        attn_irec(c, &ir)->thread = (uint8_t)ring; /* GPU work: its thread may tell its phase */
        fc_seg_push(&ir);
        return 1;
    } else {
        memset(&ir, 0, sizeof ir);
        ir.kind = c->kind;
        ir.phase = c->phase;
    }
    ir.t = c->t;
    ir.a = c->a;
    ir.b = c->b;
    ir.c = c->c;
    ir.thread = (uint8_t)ring;
    fc_seg_push(&ir);
    return 1;
}

/* Tells the detector that records were lost since the last drain (a ring
 * stayed full, or a thread found no ring): the iteration in progress then
 * misses calls, which the counters have. */
static uint64_t dropped_told; /* under the drain lock */

static void tell_lost(void)
{
    uint64_t d = atomic_load_explicit(&dropped, memory_order_relaxed);
    if (d == dropped_told)
        return;
    dropped_told = d;
    fc_irec ir;
    memset(&ir, 0, sizeof ir);
    ir.kind = FC_IREC_LOST;
    ir.thread = FC_THREAD_NONE;
    ir.t = fc_ticks();
    fc_seg_push(&ir);
}

int fc_ring_drain_some(uint64_t budget)
{
    uint64_t end[FC_NRINGS], pos[FC_NRINGS], fill = 0;
    int act[FC_NRINGS], n_act = 0, held = 0;
    for (int i = 0; i < FC_NRINGS; i++) {
        if (atomic_load_explicit(&rings[i].state, memory_order_acquire) == 0)
            continue;
        pos[i] = atomic_load_explicit(&rings[i].tail, memory_order_relaxed);
        end[i] = atomic_load_explicit(&rings[i].head, memory_order_acquire);
        if (pos[i] < end[i])
            act[n_act++] = i;
        if (end[i] - pos[i] > fill)
            fill = end[i] - pos[i];
    }
    /* a placeholder holds the stream while its rings have room */
    devread_mode = final_drain ? FC_DEVREAD_WAIT
                   : fill >= FC_WAKE_AT ? FC_DEVREAD_GIVE_UP : FC_DEVREAD_HOLD;
    while (n_act > 0 && budget > 0 && !held) {
        int best = 0;
        for (int j = 1; j < n_act; j++)
            if (rings[act[j]].rec[pos[act[j]] & FC_RING_MASK].t <
                rings[act[best]].rec[pos[act[best]] & FC_RING_MASK].t)
                best = j;
        fc_ring *r = &rings[act[best]];
        uint64_t *p = &pos[act[best]];
        /* with one ring left, take its records in a run */
        uint64_t stop = n_act == 1 ? end[act[best]] : *p + 1;
        if (stop - *p > budget)
            stop = *p + budget;
        budget -= stop - *p;
        for (; *p < stop && !held; (*p)++)
            held = !feed(&r->rec[*p & FC_RING_MASK], act[best]);
        if (held)
            (*p)--; /* the placeholder stays: every later record waits for it */
        atomic_store_explicit(&r->tail, *p, memory_order_release);
        if (*p == end[act[best]])
            act[best] = act[--n_act];
    }
    flush_run();
    tell_lost();
    for (int i = 0; i < FC_NRINGS; i++) { /* rings of exited threads go back to the pool */
        fc_ring *r = &rings[i];
        if (atomic_load_explicit(&r->state, memory_order_acquire) == 2 &&
            atomic_load_explicit(&r->tail, memory_order_relaxed) ==
                atomic_load_explicit(&r->head, memory_order_acquire))
            atomic_store_explicit(&r->state, 0, memory_order_release);
    }
    fc_clock_recalibrate();
    atomic_store_explicit(&CTL->last_drain, fc_ticks(), memory_order_relaxed);
    return n_act > 0 && !held; /* held: the next drain comes back to it */
}

void fc_ring_drain_locked(void)
{
    fc_ring_drain_some(UINT64_MAX);
}

int fc_ring_readers_waiting(void)
{
    return atomic_load_explicit(&readers_waiting, memory_order_relaxed);
}

int fc_ring_pending(void)
{
    for (int i = 0; i < FC_NRINGS; i++)
        if (atomic_load_explicit(&rings[i].state, memory_order_acquire) != 0 &&
            atomic_load_explicit(&rings[i].tail, memory_order_relaxed) !=
                atomic_load_explicit(&rings[i].head, memory_order_acquire))
            return 1;
    return 0;
}

int fc_ring_lock_try(void)
{
    if (atomic_exchange_explicit(&drain_lock, 1, memory_order_acquire))
        return 0;
    holding = 1;
    return 1;
}

void fc_ring_lock_release(void)
{
    holding = 0;
    atomic_store_explicit(&drain_lock, 0, memory_order_release);
}

/* A caller drains: never waits for the lock; SIGINT and SIGTERM wait
 * until it is done (their handler writes a report, which drains). */
static int try_drain(void)
{
    if (!fc_ring_lock_try())
        return 0;
    int saved = errno;
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    fc_ring_drain_locked();
    fc_ring_lock_release();
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return 1;
}

/* Readers: wait for the lock a little (another thread may be draining)
 * rather than not at all. */
/* Readers: wait for the lock (another thread may be draining: the drainer
 * gives way between its batches, a caller finishes its drain) - yielding
 * at first, then sleeping 1 ms at a time, 5 s at most: a holder that never
 * lets go (a thread stopped by a debugger) must not hang the exit. */
static int lock_for_reader(void)
{
    int ok = 0;
    atomic_fetch_add_explicit(&readers_waiting, 1, memory_order_relaxed);
    for (int i = 0; i < READER_YIELDS + READER_SLEEPS_MS && !ok; i++) {
        if ((ok = fc_ring_lock_try()))
            break;
        if (i < READER_YIELDS) {
            sched_yield();
        } else {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
    }
    atomic_fetch_sub_explicit(&readers_waiting, 1, memory_order_relaxed);
    return ok;
}

int fc_ring_sync(void)
{
    if (holding)
        return 0; /* our own drain (or report) is in progress: already drained */
    int saved = errno;
    int ok = lock_for_reader();
    if (ok) {
        fc_ring_drain_locked();
        fc_ring_lock_release();
    }
    errno = saved;
    return ok ? 0 : -1;
}

/* ---- producer side, out of line ---- */

void fc_ring_help(fc_ring *r, uint64_t h, uint64_t t)
{
    /* the drainer may have moved the tail since we last looked */
    r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
    uint64_t pending = h - r->tail_seen;
    if (pending < atomic_load_explicit(&CTL->drain_at, memory_order_relaxed))
        return;
    if (atomic_load_explicit(&CTL->asleep, memory_order_relaxed))
        fc_drainer_wake();
    if (pending >= atomic_load_explicit(&CTL->help_at, memory_order_relaxed)) {
        if (!try_drain())
            return;
    } else if ((int64_t)(t - atomic_load_explicit(&CTL->last_drain, memory_order_relaxed)) >
               (int64_t)atomic_load_explicit(&CTL->help_every_ticks, memory_order_relaxed)) {
        /* signed: the drainer may have stamped its last drain after t */
        if (!try_drain())
            return;
    } else {
        return;
    }
    r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
}

/* An attention call's GPU bookkeeping: GPU work was seen. (CUDA-event
 * timing anchors on the first GEMM's weight, which an attention call has
 * not: it neither names nor moves the anchor.) */
static void fc_attn_gpu_call(const void *stream, uint64_t t)
{
    (void)stream;
    (void)t;
    if (!__atomic_load_n(&fc_gpu_work_seen, __ATOMIC_RELAXED))
        __atomic_store_n(&fc_gpu_work_seen, 1, __ATOMIC_RELAXED);
}

void fc_ring_gpu_call(const fc_gemm *g, uint64_t t)
{
    if (!__atomic_load_n(&fc_gpu_work_seen, __ATOMIC_RELAXED))
        __atomic_store_n(&fc_gpu_work_seen, 1, __ATOMIC_RELAXED);
    /* GPU timing: one load and test unless the driver is in use */
    if (__atomic_load_n(&fc_gputime_state, __ATOMIC_RELAXED) != FC_GPUTIME_OFF) {
        int saved = errno;
        fc_gputime_on_call(g, t);
        errno = saved;
    }
}

/* The caller's ring is full: drain it, or, while the drainer (or another
 * thread) holds the lock and is moving the tail, wait for room - a bounded
 * wait, after which the record is dropped. Only a caller issuing GEMMs
 * faster than the detector digests them gets here. 1 when there is room. */
static int make_room(fc_ring *r, uint64_t h)
{
    for (int i = 0; i < FULL_WAIT_YIELDS && !try_drain(); i++) {
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->tail_seen < FC_RING_CAP)
            return 1;
        sched_yield();
    }
    r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
    return h - r->tail_seen < FC_RING_CAP;
}

/* The slow path's slot: claims the thread's ring, makes room. */
static fc_crec *slot_for_write(fc_ring **out, uint64_t *head)
{
    fc_ring *r = fc_my_ring;
    if (r == NULL)
        r = claim_ring();
    if (r == NULL)
        return NULL;
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (h - r->tail_seen >= FC_RING_CAP) {
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->tail_seen >= FC_RING_CAP && !make_room(r, h))
            return NULL;
    }
    *out = r;
    *head = h;
    return &r->rec[h & FC_RING_MASK];
}

/* A successful call counted by its caller (sig = fc_gemm_sig(g)): queued
 * for the detector marked as counted. */
static void queue_counted(const fc_gemm *g, uint32_t sig)
{
    if (FC_UNLIKELY(!enabled))
        return;
    fc_ring *r;
    uint64_t h;
    if (FC_UNLIKELY(slot_for_write(&r, &h) == NULL)) {
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        return;
    }
    fc_ring_put(r, h, g, sig, FC_CREC_COUNTED);
}

void fc_record(const fc_gemm *g, int status_ok)
{
    int valid;
    fc_u128 flops = fc_gemm_flops(g, &valid);
    if (FC_UNLIKELY(!valid)) {
        fc_counters_add_invalid();
        return;
    }
    int saved = errno;
    activate(); /* the shape table exists from the first counted call on */
    uint32_t h = fc_gemm_sig(g);
    fc_counters_add(g, flops, h, status_ok);
    if (status_ok)
        queue_counted(g, h);
    errno = saved;
}

int fc_attn_record(const fc_attn *a, const void *stream, int ok)
{
    /* counted whenever it comes (a library constructor may launch before
     * ours has run, as fc_record counts a GEMM then); queued for the
     * detector only once the ring layer is set up and enabled */
    if (!fc_attn_valid(a))
        return -1;
    int saved = errno;
    activate();
    fc_attn_flops f;
    fc_attn_flops_of(a, &f);
    uint32_t id = fc_attn_table_add(a, &f, ok);
    if (ok && enabled) {
        fc_ring *r;
        uint64_t h;
        fc_crec *e = slot_for_write(&r, &h);
        if (e == NULL) {
            atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        } else {
            memset(e, 0, sizeof *e);
            e->t = fc_ticks();
            e->attn.executed = f.executed > UINT64_MAX ? UINT64_MAX : (uint64_t)f.executed;
            e->attn.model = f.model > UINT64_MAX ? UINT64_MAX : (uint64_t)f.model;
            e->attn.id = id;
            e->m = fc_sat32(a->s_q);
            e->n = fc_sat32(a->s_k);
            e->k = fc_sat32(a->d);
            e->batch = fc_sat32(a->b * a->h);
            e->dtype = a->dtype;
            e->flags = a->dir == FC_ATTN_BWD ? FC_IREC_ATTN_BWD : 0;
            e->kind = FC_IREC_ATTN;
            e->status = FC_CREC_COUNTED;
            fc_attn_gpu_call(stream, e->t);
            fc_ring_publish(r, h, e->t);
        }
    }
    errno = saved;
    return 0;
}

void fc_record_unresolved(int api)
{
    (void)api;
    fc_counters_add_unresolved();
}

int fc_ring_put_devread(const fc_gemm *g, int slot, int32_t groups)
{
    if (!enabled)
        return -1;
    activate();
    fc_ring *r;
    uint64_t h;
    fc_crec *e = slot_for_write(&r, &h);
    if (e == NULL)
        return -1;
    memset(e, 0, sizeof *e);
    e->t = fc_ticks();
    e->a = g->a;
    e->b = g->b;
    e->c = g->c;
    e->m = slot;
    e->k = groups;
    e->api = g->api;
    e->flags = g->flags;
    e->dtype = g->dtype;
    e->out_dtype = g->out_dtype;
    e->compute = g->compute;
    e->transa = g->transa;
    e->transb = g->transb;
    e->kind = FC_IREC_DEVREAD;
    fc_ring_publish(r, h, e->t);
    return 0;
}

void fc_ring_mark(int kind)
{
    fc_ring_mark_phase(kind, FC_PH_NONE);
}

void fc_ring_mark_phase(int kind, int phase)
{
    if (!enabled)
        return;
    fc_ring *r;
    uint64_t h;
    fc_crec *e = slot_for_write(&r, &h);
    if (e == NULL) {
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        return;
    }
    memset(e, 0, sizeof *e);
    e->kind = (uint8_t)kind;
    e->phase = (uint8_t)phase;
    e->t = fc_ticks();
    fc_gputime_on_mark(kind, e->t);
    fc_ring_publish(r, h, e->t);
}

/* ---- lifecycle ---- */

/* The child side of fork: the child's only thread starts with empty rings
 * and detector, the parent's pages given back rather than copied. */
static void reset_all(void)
{
    for (int i = 0; i < FC_NRINGS; i++) {
        atomic_store(&rings[i].head, 0);
        atomic_store(&rings[i].tail, 0);
        atomic_store(&rings[i].state, 0);
        fc_mem_clear(rings[i].rec, FC_RING_CAP * sizeof(fc_crec));
    }
    /* no other thread holds a ring, this one claims one afresh */
    fc_my_ring = NULL;
    /* a set-up in progress in a thread that did not survive fork: redo it
     * (each table is mapped once; what was mapped stays) */
    if (atomic_load(&activation) == 1)
        atomic_store(&activation, 0);
    atomic_store(&finished, 0);
    fc_drainer_reset();
    fc_ring_callers_drain();
    atomic_store(&CTL->asleep, 0);
    atomic_store(&dropped, 0);
    dropped_told = 0;
    atomic_store(&drain_lock, 0);
    holding = 0;
    memset(&run, 0, sizeof run); /* the table it was for was cleared */
    fc_seg_reset();
    fc_steps_reset();
    fc_callsite_reset();
    fc_peak_choice_reset();
    fc_gputime_reset();
}

/* The constructor's part: nothing is mapped, calibrated or started here. */
void fc_ring_init(void)
{
    have_key = pthread_key_create(&ring_key, ring_release) == 0;
    enabled = fc_is_enabled();
}

void fc_ring_before_fork(void)
{
    fc_drainer_before_fork();
}

void fc_ring_after_fork_child(void)
{
    fc_counters_reset();
    fc_attn_table_reset();
    fc_uncounted_reset();
    fc_devsizes_reset();
    fc_grouped_log_reset();
    reset_all();
    fc_drainer_after_fork_child();
}

uint64_t fc_ring_dropped(void)
{
    return atomic_load_explicit(&dropped, memory_order_relaxed);
}

int fc_ring_collect(int final)
{
    if (!lock_for_reader())
        return -1;
    final_drain = final && !atomic_load(&finished);
    fc_ring_drain_locked();
    final_drain = 0;
    if (final && !atomic_load(&finished)) {
        if (fc_ring_active()) /* else the detector never saw anything */
            fc_seg_flush();
        atomic_store(&finished, 1); /* the drainer thread exits when it sees this */
        fc_ring_callers_drain();
    }
    return 0;
}

void fc_ring_release(void)
{
    fc_ring_lock_release();
}
