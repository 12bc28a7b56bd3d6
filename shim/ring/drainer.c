/* SPDX-License-Identifier: Apache-2.0 */
/* drainer.c - the background thread ("flopcount") that drains the rings,
 * so callers pay neither for counting nor for iteration detection.
 *
 * Started with the first ring a thread claims (again in a fork child).
 * What it costs the process is a wake-up, so it wakes seldom: every
 * NAP_NS (10 ms) while records come, every NAP_IDLE_NS (0.1 s) once ten
 * wake-ups in a row found none, and early only when a caller's ring is
 * half full (fill level, never per record: ring.c, fc_ring_help). Each
 * wake-up drains everything pending, in batches of BATCH records under the
 * drain lock (a reader waiting for the lock takes over after a batch),
 * then runs the tick functions (fc_ring_add_tick: the live line) under the
 * lock; every wake-up, drained or not, runs the unlocked ones after it
 * (fc_ring_add_tick_unlocked: the CUPTI flush). With no record pending it
 * still runs the locked ticks every 0.1 s. The thread
 * is SCHED_BATCH, so that its timed wake-up does not preempt the program's
 * threads on a busy core; when it is late anyway, a caller whose ring is
 * 3/4 full drains it (ring.c). Its sleeps may end up to a
 * quarter of the interval late (timer slack), so they coalesce with
 * other timers. It makes no GEMM, blocks every signal, and exits once the
 * final report ended the stream. A thread that may run on one CPU only
 * starts no drainer: it would share that CPU, so callers drain inline
 * (fc_drainer_start). */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/guard.h"
#include "ring_internal.h"

#define NAP_NS 10000000L       /* between drains while records come */
#define NAP_IDLE_NS 100000000L /* ... after IDLE_NAPS wake-ups found none */
#define IDLE_NAPS 10
#define BATCH 1024 /* records drained per hold of the drain lock */

#define CTL (&fc_ring_ctl_)

/* 0 no drainer thread (yet, or in a fork child), 1 starting or running,
 * 2 could not start or gone: callers drain inline. */
static atomic_int drainer;
static atomic_int drainer_up; /* the drainer thread has begun running its own code */

int fc_drainer_running(void)
{
    return atomic_load(&drainer) == 1;
}

/* Sleeps ns, or less when a caller's half-full ring rings (fc_drainer_wake). */
static void nap(long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    atomic_store(&CTL->asleep, 1);
    syscall(SYS_futex, &CTL->asleep, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
    atomic_store(&CTL->asleep, 0);
}

/* SCHED_BATCH (the normal share of the CPU, but a wake-up never preempts
 * a running thread: the scheduler's tick lets it in) and a timer slack of
 * a quarter of the interval, for this thread only. Not a lower priority:
 * a thread that holds the drain lock while readers and callers wait for it
 * must get its share. Failures change nothing but cost. */
static void stay_behind(void)
{
    struct sched_param none = {0};
    pthread_setschedparam(pthread_self(), SCHED_BATCH, &none);
    prctl(PR_SET_TIMERSLACK, (unsigned long)(NAP_NS / 4), 0, 0, 0);
}

static void *drainer_main(void *arg)
{
    (void)arg;
    fc_tls_depth++; /* nothing this thread does is the program's GEMM */
    atomic_store(&drainer_up, 1);
    stay_behind();
    int idle = 0;
    for (;;) {
        nap(idle < IDLE_NAPS ? NAP_NS : NAP_IDLE_NS);
        if (fc_ring_finished())
            break;
        int work = fc_ring_pending();
        idle = work ? 0 : idle + 1;
        /* with nothing pending, the locked ticks still run every 0.1 s */
        if (work || fc_ticks() - atomic_load_explicit(&CTL->last_drain, memory_order_relaxed) >
                        fc_ring_drain_every_ticks()) {
            /* in batches, so a reader waits for one batch at most */
            int more = 1, done = 0;
            while (more && !done && fc_ring_lock_try()) {
                done = fc_ring_finished(); /* the final report drained it all */
                more = !done && fc_ring_drain_some(BATCH);
                if (!done && !more)
                    fc_ring_run_tick(1);
                fc_ring_lock_release();
                if (fc_ring_readers_waiting())
                    break; /* the reader drains the rest */
            }
            if (done)
                break;
        }
        fc_ring_run_tick(0);
    }
    fc_ring_callers_drain();
    atomic_store(&drainer, 2);
    return NULL;
}

/* 1 when the calling thread may run on one CPU only (taskset -c 0, srun
 * --cpu-bind, an OpenMP-bound master thread): a thread it starts inherits
 * that mask, so a drainer would only ever run by taking that CPU from the
 * program - two context switches per wake-up for the work the caller can
 * do itself. */
static int one_cpu(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
}

/* Signals are blocked around pthread_create so the thread is born with all
 * of them blocked. On one CPU no thread starts: callers drain (ring.c). */
void fc_drainer_start(void)
{
    if (atomic_load_explicit(&drainer, memory_order_relaxed) != 0)
        return;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&drainer, &expect, 1))
        return;
    int saved = errno;
    if (one_cpu()) {
        fc_ring_callers_drain();
        atomic_store(&drainer, 2);
        errno = saved;
        return;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_attr_t attr;
    pthread_t tid;
    int rc = pthread_attr_init(&attr);
    if (rc == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 256u << 10);
        fc_ring_callers_help_late();
        pthread_sigmask(SIG_BLOCK, &all, &old);
        rc = pthread_create(&tid, &attr, drainer_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    if (rc == 0) {
        pthread_setname_np(tid, "flopcount");
    } else {
        fc_ring_callers_drain();
        atomic_store(&drainer, 2);
        fc_warn("cannot start the drainer thread (%s); iteration detection runs in the callers",
                strerror(rc));
    }
    errno = saved;
}

void fc_drainer_wake(void)
{
    if (atomic_exchange_explicit(&CTL->asleep, 0, memory_order_relaxed)) {
        int saved = errno;
        syscall(SYS_futex, &CTL->asleep, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        errno = saved;
    }
}

/* A drainer thread still being created may hold locks of the thread
 * library or a sanitizer runtime (ASan allocates while a thread starts),
 * which a fork child would inherit held. Wait for it (briefly). */
void fc_drainer_before_fork(void)
{
    for (int i = 0; i < 100000 && atomic_load(&drainer) == 1 && !atomic_load(&drainer_up); i++)
        sched_yield();
}

void fc_drainer_reset(void)
{
    /* threads do not survive fork: the child starts its own drainer with
     * its first claimed ring */
    atomic_store(&drainer, 0);
    atomic_store(&drainer_up, 0);
}

void fc_drainer_after_fork_child(void)
{
#if defined(__SANITIZE_THREAD__)
    /* TSan kills a child of a multi-threaded process that starts a thread:
     * there, a fork child drains inline. */
    atomic_store(&drainer, 2);
#endif
}
