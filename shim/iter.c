/* SPDX-License-Identifier: Apache-2.0 */
/* iter.c - from the rings (ring.h) to the counters and the detector.
 *
 * Hooks append 64-byte records to per-thread rings (claimed once from a
 * static pool; the fast path is in ring.h). A background thread
 * ("flopcount", started with the first claimed ring, again in a fork child)
 * takes a try-lock and feeds all rings, merged by time, to the shape table
 * (counters.c) and the detector (segment.c -> steps.c), so callers pay for
 * neither. It wakes every 0.5 ms while records come; idle, it sleeps up to
 * 20 ms on a futex that the next published record wakes, so a burst after
 * a pause never finds it asleep. Should it fall behind (or not run), a
 * caller that finds its ring 3/4 full (1/4 without the thread), or the last
 * drain long ago, drains itself under the same try-lock, with SIGINT and
 * SIGTERM blocked so a report written from their handler never finds its
 * own thread holding the lock. A full ring that cannot be drained takes the
 * record the slow way (counted by the caller; lost to the detector only). */
#include "iter.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../include/flopcount.h"
#include "callsite.h"
#include "clock.h"
#include "counters.h"
#include "gputime.h"
#include "irec.h"
#include "live.h"
#include "options.h"
#include "peak_choice.h"
#include "ring.h"
#include "segment.h"
#include "steps.h"

#define DRAIN_AT_INLINE (FC_RING_CAP / 4)    /* no drainer thread: callers drain */
#define DRAIN_AT_FALLBACK (FC_RING_CAP / 4 * 3) /* the drainer is late: help it */
#define FULL_WAIT_YIELDS 20000 /* a full ring waits this long for a drain */
#define NAP_BUSY_NS 500000L   /* drainer's sleep while records arrive */
#define NAP_IDLE_NS 20000000L /* ... and after a few empty wake-ups (or a record) */
#define NEVER (UINT64_MAX / 2) /* a tick difference never reached */

static fc_ring rings[FC_NRINGS] __attribute__((aligned(64)));
fc_ring_ctl fc_ring_ctl_ __attribute__((aligned(64))) = {
    .drain_at = 1, .help_at = DRAIN_AT_INLINE, .help_every_ticks = NEVER};
FC_TLS fc_ring *fc_my_ring;

static atomic_int drain_lock;
static FC_TLS int holding; /* this thread holds drain_lock */
static _Atomic uint64_t dropped, drain_every_ticks;
static pthread_key_t ring_key;
static int have_key, enabled;
static atomic_int finished; /* the detector's stream was ended for the final report */
/* 0 no drainer thread (yet, or in a fork child), 1 starting or running,
 * 2 could not start or gone: callers drain inline. */
static atomic_int drainer;
static atomic_int drainer_up; /* the drainer thread has begun running its own code */

#define CTL (&fc_ring_ctl_)

static void start_drainer(void);

/* Who drains: the drainer thread (callers help only when it is late), or
 * the callers themselves (no thread: every call looks at the clocks). */
static void callers_help_late(void)
{
    atomic_store(&CTL->help_at, DRAIN_AT_FALLBACK);
    atomic_store(&CTL->help_every_ticks, NEVER); /* the drainer keeps the clock */
    atomic_store(&CTL->drain_at, DRAIN_AT_FALLBACK);
}

static void callers_drain(void)
{
    atomic_store(&CTL->help_at, DRAIN_AT_INLINE);
    atomic_store(&CTL->help_every_ticks, atomic_load(&drain_every_ticks));
    atomic_store(&CTL->drain_at, 1);
}

static void ring_release(void *p)
{
    fc_ring *r = p;
    if (r != NULL)
        atomic_store_explicit(&r->state, 2, memory_order_release);
}

/* Claims a ring for this thread (once); NULL when all are taken. */
static fc_ring *claim_ring(void)
{
    for (int i = 0; i < FC_NRINGS; i++) {
        int expect = 0;
        if (atomic_compare_exchange_strong(&rings[i].state, &expect, 1)) {
            fc_ring *r = &rings[i];
            r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
            fc_my_ring = r;
            if (have_key)
                pthread_setspecific(ring_key, r);
            if (atomic_load_explicit(&drainer, memory_order_relaxed) == 0)
                start_drainer();
            return r;
        }
    }
    static int warned;
    fc_warn_once(&warned, "more than %d threads run GEMMs; iteration detection misses some calls",
                 FC_NRINGS);
    return NULL;
}

/* ---- consumer side (holds drain_lock) ---- */

/* One record to the counters (unless its caller counted it) and the
 * detector. */
static void feed(const fc_crec *c)
{
    fc_irec ir;
    if (c->kind == FC_IREC_GEMM) {
        fc_gemm g = {.api = c->api, .flags = c->flags, .dtype = c->dtype,
                     .out_dtype = c->out_dtype, .compute = c->compute, .transa = c->transa,
                     .transb = c->transb, .m = c->m, .n = c->n, .k = c->k, .batch = c->batch,
                     .a = c->a, .b = c->b, .c = c->c};
        int valid;
        fc_u128 f = fc_gemm_flops(&g, &valid);
        uint32_t sig = c->sig;
        if (!(c->status & FC_CREC_COUNTED)) {
            sig = fc_gemm_sig(&g);
            fc_counters_add(&g, f, sig, 1);
        }
        fc_irec_fill(&ir, &g, f > UINT64_MAX ? UINT64_MAX : (uint64_t)f, c->t, sig);
    } else {
        memset(&ir, 0, sizeof ir);
        ir.kind = c->kind;
        ir.t = c->t;
    }
    fc_seg_push(&ir);
}

/* Feeds every published record, oldest first across rings (records of
 * different threads interleave only when their calls ran concurrently). */
static void drain_locked(void)
{
    uint64_t end[FC_NRINGS], pos[FC_NRINGS];
    int act[FC_NRINGS], n_act = 0;
    for (int i = 0; i < FC_NRINGS; i++) {
        if (atomic_load_explicit(&rings[i].state, memory_order_acquire) == 0)
            continue;
        pos[i] = atomic_load_explicit(&rings[i].tail, memory_order_relaxed);
        end[i] = atomic_load_explicit(&rings[i].head, memory_order_acquire);
        if (pos[i] < end[i])
            act[n_act++] = i;
    }
    while (n_act > 0) {
        int best = 0;
        for (int j = 1; j < n_act; j++)
            if (rings[act[j]].rec[pos[act[j]] & FC_RING_MASK].t <
                rings[act[best]].rec[pos[act[best]] & FC_RING_MASK].t)
                best = j;
        fc_ring *r = &rings[act[best]];
        uint64_t *p = &pos[act[best]];
        /* with one ring left, take its records in a run */
        uint64_t stop = n_act == 1 ? end[act[best]] : *p + 1;
        for (; *p < stop; (*p)++)
            feed(&r->rec[*p & FC_RING_MASK]);
        atomic_store_explicit(&r->tail, *p, memory_order_release);
        if (*p == end[act[best]])
            act[best] = act[--n_act];
    }
    for (int i = 0; i < FC_NRINGS; i++) { /* rings of exited threads go back to the pool */
        fc_ring *r = &rings[i];
        if (atomic_load_explicit(&r->state, memory_order_acquire) == 2 &&
            atomic_load_explicit(&r->tail, memory_order_relaxed) ==
                atomic_load_explicit(&r->head, memory_order_acquire))
            atomic_store_explicit(&r->state, 0, memory_order_release);
    }
    fc_clock_recalibrate();
    atomic_store_explicit(&CTL->last_drain, fc_ticks(), memory_order_relaxed);
}

static int lock_try(void)
{
    if (atomic_exchange_explicit(&drain_lock, 1, memory_order_acquire))
        return 0;
    holding = 1;
    return 1;
}

static void lock_release(void)
{
    holding = 0;
    atomic_store_explicit(&drain_lock, 0, memory_order_release);
}

/* A caller drains: never waits for the lock; SIGINT and SIGTERM wait
 * until it is done (their handler writes a report, which drains). */
static int try_drain(void)
{
    if (!lock_try())
        return 0;
    int saved = errno;
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    drain_locked();
    lock_release();
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return 1;
}

/* Report time: wait for the lock a little (another thread may be draining)
 * rather than not at all. */
static int lock_for_report(void)
{
    for (int i = 0; i < 20000; i++) {
        if (lock_try())
            return 1;
        sched_yield();
    }
    return 0;
}

int fc_iter_sync(void)
{
    if (holding)
        return 0; /* our own drain (or report) is in progress: already drained */
    int saved = errno;
    int ok = lock_for_report();
    if (ok) {
        drain_locked();
        lock_release();
    }
    errno = saved;
    return ok ? 0 : -1;
}

/* ---- the drainer thread ---- */

static int rings_pending(void)
{
    for (int i = 0; i < FC_NRINGS; i++)
        if (atomic_load_explicit(&rings[i].state, memory_order_acquire) != 0 &&
            atomic_load_explicit(&rings[i].tail, memory_order_relaxed) !=
                atomic_load_explicit(&rings[i].head, memory_order_acquire))
            return 1;
    return 0;
}

/* Sleeps ns; a long (idle) sleep ends early when a record is published. */
static void nap(long ns, int wakeable)
{
    struct timespec ts = {0, ns};
    if (!wakeable) {
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
        return;
    }
    atomic_store(&CTL->asleep, 1);
    atomic_store(&CTL->drain_at, 1); /* the next record calls fc_ring_help, which wakes us */
    if (!rings_pending())
        syscall(SYS_futex, &CTL->asleep, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
    atomic_store(&CTL->asleep, 0);
    atomic_store(&CTL->drain_at, atomic_load(&CTL->help_at));
}

/* Drains every 0.5 ms while records come; when idle it sleeps 20 ms at a
 * time (woken by the next record) and drains every 100 ms (live line,
 * clock calibration). It makes no GEMM and is never counted; all signals
 * are blocked in it. */
static void *drainer_main(void *arg)
{
    (void)arg;
    fc_tls_depth++; /* nothing this thread does is the program's GEMM */
    atomic_store(&drainer_up, 1);
    int idle = 0;
    for (;;) {
        nap(idle < 8 ? NAP_BUSY_NS : NAP_IDLE_NS, idle >= 8);
        if (atomic_load(&finished))
            break;
        int work = rings_pending();
        idle = work ? 0 : idle + 1;
        if (!work && fc_ticks() - atomic_load_explicit(&CTL->last_drain, memory_order_relaxed) <=
                         atomic_load_explicit(&drain_every_ticks, memory_order_relaxed))
            continue;
        if (!lock_try())
            continue; /* a caller or the report is draining */
        int done = atomic_load(&finished); /* the final report drained it all */
        if (!done)
            drain_locked();
        lock_release();
        if (done)
            break;
    }
    callers_drain();
    atomic_store(&drainer, 2);
    return NULL;
}

/* Starts the drainer once per process (and once in each fork child); on
 * failure callers keep draining inline. Signals are blocked around
 * pthread_create so the thread is born with all of them blocked. */
static void start_drainer(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&drainer, &expect, 1))
        return;
    int saved = errno;
    sigset_t all, old;
    sigfillset(&all);
    pthread_attr_t attr;
    pthread_t tid;
    int rc = pthread_attr_init(&attr);
    if (rc == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 256u << 10);
        callers_help_late();
        pthread_sigmask(SIG_BLOCK, &all, &old);
        rc = pthread_create(&tid, &attr, drainer_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    if (rc == 0) {
        pthread_setname_np(tid, "flopcount");
    } else {
        callers_drain();
        atomic_store(&drainer, 2);
        fc_warn("cannot start the drainer thread (%s); iteration detection runs in the callers",
                strerror(rc));
    }
    errno = saved;
}

/* ---- producer side, out of line ---- */

static void wake_drainer(void)
{
    if (atomic_exchange_explicit(&CTL->asleep, 0, memory_order_relaxed)) {
        int saved = errno;
        syscall(SYS_futex, &CTL->asleep, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        errno = saved;
    }
}

void fc_ring_help(fc_ring *r, uint64_t h, uint64_t t)
{
    if (atomic_load_explicit(&CTL->asleep, memory_order_relaxed))
        wake_drainer();
    uint64_t at = atomic_load_explicit(&CTL->help_at, memory_order_relaxed);
    if (h - r->tail_seen >= at) {
        /* the drainer may have moved the tail since we last looked */
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->tail_seen < at || !try_drain())
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

void fc_ring_gpu_call(const fc_gemm *g, uint64_t t)
{
    if (!atomic_load_explicit(&fc_live_gpu_work, memory_order_relaxed))
        atomic_store_explicit(&fc_live_gpu_work, 1, memory_order_relaxed);
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

void fc_iter_on_call(const fc_gemm *g, uint32_t sig)
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

/* Markers go through the same rings, so they keep their place among the
 * calls of their thread. */
void fc_iter_mark(int kind)
{
    fc_init();
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
    e->t = fc_ticks();
    fc_gputime_on_mark(kind, e->t);
    fc_ring_publish(r, h, e->t);
}

/* ---- lifecycle ---- */

static void reset_all(void)
{
    for (int i = 0; i < FC_NRINGS; i++) {
        atomic_store(&rings[i].head, 0);
        atomic_store(&rings[i].tail, 0);
        atomic_store(&rings[i].state, 0);
    }
    /* run by the constructor, and in a fork child by its only thread: no
     * other thread holds a ring, this one claims one afresh */
    fc_my_ring = NULL;
    atomic_store(&finished, 0);
    /* threads do not survive fork: the child starts its own drainer with
     * its first claimed ring */
    atomic_store(&drainer, 0);
    atomic_store(&drainer_up, 0);
    callers_drain();
    atomic_store(&CTL->asleep, 0);
    atomic_store(&dropped, 0);
    atomic_store(&drain_lock, 0);
    holding = 0;
    fc_seg_reset();
    fc_steps_reset();
    fc_callsite_reset();
    fc_peak_choice_reset();
    fc_gputime_reset();
}

void fc_iter_init(void)
{
    fc_clock_init();
    have_key = pthread_key_create(&ring_key, ring_release) == 0;
    /* A drain at least every 100 ms keeps the live line current when calls
     * are few and slow. */
    atomic_store(&drain_every_ticks, (uint64_t)(fc_ticks_per_second() / 10));
    atomic_store(&CTL->last_drain, fc_ticks());
    reset_all();
    enabled = fc_is_enabled();
}

/* Before fork: a drainer thread still being created may hold locks of
 * the thread library or a sanitizer runtime (ASan allocates while a thread
 * starts), which the child would inherit held. Wait for it (briefly). */
void fc_iter_before_fork(void)
{
    for (int i = 0; i < 100000 && atomic_load(&drainer) == 1 && !atomic_load(&drainer_up); i++)
        sched_yield();
}

void fc_iter_reset_after_fork(void)
{
    reset_all();
#if defined(__SANITIZE_THREAD__)
    /* TSan kills a child of a multi-threaded process that starts a thread:
     * there, a fork child drains inline. */
    atomic_store(&drainer, 2);
#endif
}

uint64_t fc_iter_count(void)
{
    fc_steps_view v;
    fc_steps_get(fc_steps_mode(), &v);
    return v.count;
}

uint64_t fc_iter_dropped(void)
{
    return atomic_load_explicit(&dropped, memory_order_relaxed);
}

/* Drains everything; at the end of the run also labels what the detector
 * still holds (the last segments) - once. */
int fc_iter_collect(int final)
{
    if (!lock_for_report())
        return -1;
    drain_locked();
    if (final && !atomic_load(&finished)) {
        fc_seg_flush();
        atomic_store(&finished, 1); /* the drainer thread exits when it sees this */
        callers_drain();
    }
    return 0;
}

void fc_iter_release(void)
{
    lock_release();
}

static int report_final = 1, report_interrupted;

void fc_iter_report_status(const char *status)
{
    /* "running" snapshots must not end the detector's stream. */
    report_final = status == NULL || strcmp(status, "running") != 0;
    report_interrupted = status != NULL && strcmp(status, "interrupted") == 0;
}

int fc_iter_report_interrupted(void)
{
    return report_interrupted;
}

int fc_iter_report_is_final(void)
{
    return report_final;
}

FC_EXPORT void flopcount_step(void)
{
    int saved = errno;
    fc_iter_mark(FC_IREC_STEP);
    errno = saved;
}

FC_EXPORT void flopcount_eval_begin(void)
{
    int saved = errno;
    fc_iter_mark(FC_IREC_EVAL_BEGIN);
    errno = saved;
}

FC_EXPORT void flopcount_eval_end(void)
{
    int saved = errno;
    fc_iter_mark(FC_IREC_EVAL_END);
    errno = saved;
}
