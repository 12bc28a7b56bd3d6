/* iter.c - from counted calls to the detector, cheaply and from any thread.
 *
 * Hot path: each thread appends a fixed-size record to a ring of its own
 * (claimed once from a static pool): a few stores and one release store,
 * no lock, no allocation, no atomic read-modify-write. A background thread
 * ("flopcount", started with the first claimed ring, again in a fork child)
 * wakes every 0.5 ms while records come (20 ms when idle), takes a try-lock and feeds all rings, merged by time,
 * to the detector (segment.c -> steps.c), so the callers never pay for the
 * detector. Should it fall behind (or not run), a caller that finds its
 * ring 3/4 full (1/4 without the thread), or the last drain long ago,
 * drains itself under the same try-lock (never waits). A full ring that
 * cannot be drained drops the record and counts it; the FLOP totals
 * (counters.c) stay exact. */
#include "iter.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "../include/flopcount.h"
#include "callsite.h"
#include "clock.h"
#include "counters.h"
#include "gputime.h"
#include "irec.h"
#include "live.h"
#include "options.h"
#include "peak_choice.h"
#include "segment.h"
#include "steps.h"

#define NRINGS 32
#define RING_CAP 4096u /* records per thread ring, a power of two */
#define RING_MASK (RING_CAP - 1)
#define DRAIN_AT_INLINE (RING_CAP / 4)    /* no drainer thread: callers drain */
#define DRAIN_AT_FALLBACK (RING_CAP / 4 * 3) /* the drainer is late: help it */
#define FULL_WAIT_YIELDS 20000 /* a full ring waits this long for a drain */
#define NAP_BUSY_NS 500000L   /* drainer's sleep while records arrive */
#define NAP_IDLE_NS 20000000L /* ... and after a few empty wake-ups */

typedef struct ring {
    _Atomic uint64_t head; /* written by the owner thread only */
    _Atomic uint64_t tail; /* written by the drainer only */
    _Atomic int state;     /* 0 free, 1 owned, 2 owner gone (drain then free) */
    uint64_t tail_seen;    /* owner's last look at tail */
    fc_irec rec[RING_CAP];
} ring;

static ring rings[NRINGS];
static atomic_int drain_lock;
static _Atomic uint64_t dropped, drain_every_ticks, last_drain;
static atomic_int epoch = 1;
static pthread_key_t ring_key;
static int have_key, enabled;
static atomic_int finished; /* the detector's stream was ended for the final report */
/* 0 no drainer thread (yet, or in a fork child), 1 starting or running,
 * 2 could not start or gone: callers drain inline. */
static atomic_int drainer;
static _Atomic uint64_t drain_at = DRAIN_AT_INLINE;

static FC_TLS ring *my_ring;
static FC_TLS int my_epoch;

static void start_drainer(void);

static void ring_release(void *p)
{
    ring *r = p;
    if (r != NULL)
        atomic_store_explicit(&r->state, 2, memory_order_release);
}

/* Claims a ring for this thread (once); NULL when all are taken. */
static ring *claim_ring(void)
{
    int ep = atomic_load_explicit(&epoch, memory_order_acquire);
    for (int i = 0; i < NRINGS; i++) {
        int expect = 0;
        if (atomic_compare_exchange_strong(&rings[i].state, &expect, 1)) {
            ring *r = &rings[i];
            r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
            my_ring = r;
            my_epoch = ep;
            if (have_key)
                pthread_setspecific(ring_key, r);
            if (atomic_load_explicit(&drainer, memory_order_relaxed) == 0)
                start_drainer();
            return r;
        }
    }
    static int warned;
    fc_warn_once(&warned, "more than %d threads run GEMMs; iteration detection misses some calls",
                 NRINGS);
    return NULL;
}

/* ---- consumer side (holds drain_lock) ---- */

/* Feeds every published record, oldest first across rings (records of
 * different threads interleave only when their calls ran concurrently). */
static void drain_locked(void)
{
    uint64_t end[NRINGS], pos[NRINGS];
    int act[NRINGS], n_act = 0;
    for (int i = 0; i < NRINGS; i++) {
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
            if (rings[act[j]].rec[pos[act[j]] & RING_MASK].t < rings[act[best]].rec[pos[act[best]] & RING_MASK].t)
                best = j;
        ring *r = &rings[act[best]];
        uint64_t *p = &pos[act[best]];
        /* with one ring left, take its records in a run */
        uint64_t stop = n_act == 1 ? end[act[best]] : *p + 1;
        for (; *p < stop; (*p)++) {
            fc_irec rec = r->rec[*p & RING_MASK];
            fc_seg_push(&rec);
        }
        atomic_store_explicit(&r->tail, *p, memory_order_release);
        if (*p == end[act[best]])
            act[best] = act[--n_act];
    }
    for (int i = 0; i < NRINGS; i++) { /* rings of exited threads go back to the pool */
        ring *r = &rings[i];
        if (atomic_load_explicit(&r->state, memory_order_acquire) == 2 &&
            atomic_load_explicit(&r->tail, memory_order_relaxed) ==
                atomic_load_explicit(&r->head, memory_order_acquire))
            atomic_store_explicit(&r->state, 0, memory_order_release);
    }
    fc_clock_recalibrate();
    atomic_store_explicit(&last_drain, fc_ticks(), memory_order_relaxed);
}

static int try_drain(void)
{
    if (atomic_exchange_explicit(&drain_lock, 1, memory_order_acquire))
        return 0;
    int saved = errno;
    drain_locked();
    errno = saved;
    atomic_store_explicit(&drain_lock, 0, memory_order_release);
    return 1;
}

/* Report time: wait for the lock a little (another thread may be draining)
 * rather than not at all. */
static int lock_for_report(void)
{
    for (int i = 0; i < 20000; i++) {
        if (!atomic_exchange_explicit(&drain_lock, 1, memory_order_acquire))
            return 1;
        sched_yield();
    }
    return 0;
}

static void unlock_for_report(void)
{
    atomic_store_explicit(&drain_lock, 0, memory_order_release);
}

/* ---- the drainer thread ---- */

static int rings_pending(void)
{
    for (int i = 0; i < NRINGS; i++)
        if (atomic_load_explicit(&rings[i].state, memory_order_acquire) != 0 &&
            atomic_load_explicit(&rings[i].tail, memory_order_relaxed) !=
                atomic_load_explicit(&rings[i].head, memory_order_acquire))
            return 1;
    return 0;
}

/* Drains every 0.5 ms while records come; when idle it looks every 20 ms
 * and drains every 100 ms (live line, clock calibration). It
 * makes no GEMM and is never counted; all signals are blocked in it. */
static void *drainer_main(void *arg)
{
    (void)arg;
    fc_tls_depth++; /* nothing this thread does is the program's GEMM */
    int idle = 0;
    for (;;) {
        struct timespec nap = {0, idle < 8 ? NAP_BUSY_NS : NAP_IDLE_NS};
        while (nanosleep(&nap, &nap) != 0 && errno == EINTR)
            ;
        if (atomic_load(&finished))
            break;
        int work = rings_pending();
        idle = work ? 0 : idle + 1;
        if (!work && fc_ticks() - atomic_load_explicit(&last_drain, memory_order_relaxed) <=
                         atomic_load_explicit(&drain_every_ticks, memory_order_relaxed))
            continue;
        if (atomic_exchange_explicit(&drain_lock, 1, memory_order_acquire))
            continue; /* a caller or the report is draining */
        int done = atomic_load(&finished); /* the final report drained it all */
        if (!done)
            drain_locked();
        atomic_store_explicit(&drain_lock, 0, memory_order_release);
        if (done)
            break;
    }
    atomic_store(&drain_at, DRAIN_AT_INLINE);
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
        atomic_store(&drain_at, DRAIN_AT_FALLBACK);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        rc = pthread_create(&tid, &attr, drainer_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    if (rc == 0) {
        pthread_setname_np(tid, "flopcount");
    } else {
        atomic_store(&drain_at, DRAIN_AT_INLINE);
        atomic_store(&drainer, 2);
        fc_warn("cannot start the drainer thread (%s); iteration detection runs in the callers",
                strerror(rc));
    }
    errno = saved;
}

/* ---- producer side ---- */

/* The caller's ring is full: drain it, or, while the drainer (or another
 * thread) holds the lock and is moving the tail, wait for room - a bounded
 * wait, after which the record is dropped. Only a caller issuing GEMMs
 * faster than the detector digests them gets here. 1 when there is room. */
static int make_room(ring *r, uint64_t h)
{
    for (int i = 0; i < FULL_WAIT_YIELDS && !try_drain(); i++) {
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->tail_seen < RING_CAP)
            return 1;
        sched_yield();
    }
    r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
    return h - r->tail_seen < RING_CAP;
}

static inline fc_irec *slot_for_write(ring **out)
{
    ring *r = my_ring;
    if (FC_UNLIKELY(r == NULL || my_epoch != atomic_load_explicit(&epoch, memory_order_relaxed)))
        r = claim_ring();
    if (FC_UNLIKELY(r == NULL))
        return NULL;
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (FC_UNLIKELY(h - r->tail_seen >= RING_CAP)) {
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->tail_seen >= RING_CAP && !make_room(r, h))
            return NULL;
    }
    *out = r;
    return &r->rec[h & RING_MASK];
}

static inline void publish(ring *r, uint64_t t)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed) + 1;
    atomic_store_explicit(&r->head, h, memory_order_release);
    if (FC_UNLIKELY(h - r->tail_seen >= atomic_load_explicit(&drain_at, memory_order_relaxed))) {
        /* the drainer may have moved the tail since we last looked */
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->tail_seen >= atomic_load_explicit(&drain_at, memory_order_relaxed) &&
            try_drain())
            r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
    } else if (FC_UNLIKELY(t - atomic_load_explicit(&last_drain, memory_order_relaxed) >
                           atomic_load_explicit(&drain_every_ticks, memory_order_relaxed))) {
        if (try_drain())
            r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
    }
}

void fc_iter_on_call(const fc_gemm *g, fc_u128 flops, uint32_t sig)
{
    if (FC_UNLIKELY(!enabled))
        return;
    ring *r;
    fc_irec *e = slot_for_write(&r);
    if (FC_UNLIKELY(e == NULL)) {
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        return;
    }
    uint64_t t = fc_ticks();
    fc_irec_fill(e, g, flops > UINT64_MAX ? UINT64_MAX : (uint64_t)flops, t, sig);
    if (FC_UNLIKELY(g->api < FC_API_BLAS_SGEMM)) {
        if (!atomic_load_explicit(&fc_live_gpu_work, memory_order_relaxed))
            atomic_store_explicit(&fc_live_gpu_work, 1, memory_order_relaxed);
        /* GPU timing: one load and test unless the driver is in use */
        if (__atomic_load_n(&fc_gputime_state, __ATOMIC_RELAXED) != FC_GPUTIME_OFF)
            fc_gputime_on_call(g, t);
    }
    fc_callsite_note(e->sig);
    publish(r, t);
}

/* Markers go through the same rings, so they keep their place among the
 * calls of their thread. */
void fc_iter_mark(int kind)
{
    fc_init();
    if (!enabled)
        return;
    ring *r;
    fc_irec *e = slot_for_write(&r);
    if (e == NULL) {
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        return;
    }
    memset(e, 0, sizeof *e);
    e->kind = (uint8_t)kind;
    e->t = fc_ticks();
    fc_gputime_on_mark(kind, e->t);
    publish(r, e->t);
}

/* ---- lifecycle ---- */

static void reset_all(void)
{
    for (int i = 0; i < NRINGS; i++) {
        atomic_store(&rings[i].head, 0);
        atomic_store(&rings[i].tail, 0);
        atomic_store(&rings[i].state, 0);
    }
    atomic_fetch_add(&epoch, 1); /* every thread claims a ring afresh */
    atomic_store(&finished, 0);
    /* threads do not survive fork: the child starts its own drainer with
     * its first claimed ring */
    atomic_store(&drainer, 0);
    atomic_store(&drain_at, DRAIN_AT_INLINE);
    atomic_store(&dropped, 0);
    atomic_store(&drain_lock, 0);
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
    atomic_store(&last_drain, fc_ticks());
    reset_all();
    enabled = fc_is_enabled();
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
        atomic_store(&drain_at, DRAIN_AT_INLINE);
    }
    return 0;
}

void fc_iter_release(void)
{
    unlock_for_report();
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
