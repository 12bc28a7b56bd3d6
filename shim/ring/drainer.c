/* SPDX-License-Identifier: Apache-2.0 */
/* drainer.c - the background thread ("flopcount") that drains the rings,
 * so callers pay neither for counting nor for iteration detection.
 *
 * Started with the first ring a thread claims (again in a fork child). It
 * drains every 0.5 ms while records come; after 8 wake-ups without any it
 * sleeps up to 20 ms on a futex, with drain_at lowered to 1 so that the
 * next published record wakes it (ring.c, fc_ring_help). While records are
 * few it still drains every 0.1 s. After each of its drains it runs the
 * tick functions (fc_ring_add_tick): the live line under the drain lock,
 * the CUPTI flush just after releasing it. It makes no GEMM,
 * blocks every signal, and exits once the final report ended the stream. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/guard.h"
#include "ring_internal.h"

#define NAP_BUSY_NS 500000L   /* sleep while records arrive */
#define NAP_IDLE_NS 20000000L /* ... and after 8 empty wake-ups (woken by a record) */

#define CTL (&fc_ring_ctl_)

/* 0 no drainer thread (yet, or in a fork child), 1 starting or running,
 * 2 could not start or gone: callers drain inline. */
static atomic_int drainer;
static atomic_int drainer_up; /* the drainer thread has begun running its own code */

int fc_drainer_running(void)
{
    return atomic_load(&drainer) == 1;
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
    if (!fc_ring_pending())
        syscall(SYS_futex, &CTL->asleep, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
    atomic_store(&CTL->asleep, 0);
    atomic_store(&CTL->drain_at, atomic_load(&CTL->help_at));
}

static void *drainer_main(void *arg)
{
    (void)arg;
    fc_tls_depth++; /* nothing this thread does is the program's GEMM */
    atomic_store(&drainer_up, 1);
    int idle = 0;
    for (;;) {
        nap(idle < 8 ? NAP_BUSY_NS : NAP_IDLE_NS, idle >= 8);
        if (fc_ring_finished())
            break;
        int work = fc_ring_pending();
        idle = work ? 0 : idle + 1;
        if (!work && fc_ticks() - atomic_load_explicit(&CTL->last_drain, memory_order_relaxed) <=
                         fc_ring_drain_every_ticks())
            continue;
        if (!fc_ring_lock_try())
            continue; /* a caller or the report is draining */
        int done = fc_ring_finished(); /* the final report drained it all */
        if (!done) {
            fc_ring_drain_locked();
            fc_ring_run_tick(1);
        }
        fc_ring_lock_release();
        if (done)
            break;
        fc_ring_run_tick(0);
    }
    fc_ring_callers_drain();
    atomic_store(&drainer, 2);
    return NULL;
}

/* Signals are blocked around pthread_create so the thread is born with all
 * of them blocked. */
void fc_drainer_start(void)
{
    if (atomic_load_explicit(&drainer, memory_order_relaxed) != 0)
        return;
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
