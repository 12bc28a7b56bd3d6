/* SPDX-License-Identifier: Apache-2.0 */
/* signals.c - SIGINT and SIGTERM leave a complete report marked
 * "interrupted", and a timer thread rewrites the report periodically so that
 * SIGKILL leaves the last snapshot (never a partial file: report.c
 * writes a temporary file and renames it).
 *
 * Staying in front. Python installs its SIGINT handler after our constructor
 * has run, and so do many programs for SIGTERM. A handler installed once
 * would be replaced and never see the signal. So sigaction() and signal()
 * are interposed for these two signals: the program's disposition is kept
 * here (its "virtual" disposition, what it reads back), and the real one is
 * our handler, installed with the program's mask and flags so that system
 * calls restart (or not) exactly as the program asked. When the program
 * asks to ignore the signal, the real disposition is SIG_IGN, as it would be
 * without us (ignored signals also stay ignored across exec).
 *
 * On a signal: write the report, then do what the program's disposition
 * says: call its handler (honouring SA_SIGINFO and SA_RESETHAND), or restore
 * SIG_DFL and re-raise, so the process ends with the same status as without
 * the shim.
 *
 * Async-signal safety: the handler uses sigaction, raise, nanosleep and
 * atomics, and the report writer, which does not allocate, lock or use
 * stdio (open/write/fsync/rename and fixed buffers). Not strictly safe by
 * POSIX: snprintf of numbers in the writer and fc_warn, and strerror in a
 * warning when the write fails. Known gaps: bsd_signal(), sysv_signal(),
 * sigset() and raw rt_sigaction system calls bypass the interposition (the
 * program's handler then replaces ours: its behaviour is unchanged, only the
 * interrupted report is lost; snapshots still cover it).
 *
 * Snapshots come from a thread that sleeps, not from a clock check in the
 * hot path: the hook cost stays untouched, and an idle or stuck program
 * still gets its report rewritten. The thread starts with the process's
 * first GEMM or marker (fc_signals_start_snapshots), so a process that runs
 * none - a shell, a launcher - starts no thread. It blocks every signal, so
 * handlers never run on it and never wait for themselves. */
#include "signals.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "core/base.h"
#include "core/diag.h"
#include "core/guard.h"
#include "core/options.h"
#include "core/resolve.h"
#include "cupti/cupti_layer.h"
#include "report/report.h"
#include "report/tensorboard.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);

enum { W_INT, W_TERM, W_COUNT };
enum { WRITER_FREE, WRITER_BUSY, WRITER_EXITING };

#define MIN_SNAPSHOT_SECONDS 0.1 /* below this the writer would never rest */
#define WRITER_WAIT_MS 2000      /* a snapshot in progress finishes well within */

/* The program's disposition of one signal, double-buffered: writers fill
 * the spare copy and flip cur, so the handler always reads a whole one. */
typedef struct watch {
    struct sigaction prog[2];
    atomic_int cur;
} watch;

static watch watches[W_COUNT];
static int managing; /* 1 once our handlers are in front (__atomic) */
static atomic_flag table_lock = ATOMIC_FLAG_INIT;
static atomic_int received; /* last SIGINT/SIGTERM seen, 0 none */
static atomic_int writer;   /* WRITER_* */
static sigaction_fn real_sigaction_p;
static signal_fn real_signal_p;

static int watch_index(int sig)
{
    return sig == SIGINT ? W_INT : sig == SIGTERM ? W_TERM : -1;
}

/* The interposed entry points run before any constructor, even inside a
 * sanitizer runtime's own start-up (TSan installs its handlers through the
 * sigaction it finds next: ours). Their pass-through path must therefore
 * not be instrumented: no sanitizer hooks, only plain atomics and dlsym
 * (fc_resolve_next). */

FC_NO_TSAN static sigaction_fn real_sigaction(void)
{
    sigaction_fn fn = __atomic_load_n(&real_sigaction_p, __ATOMIC_ACQUIRE);
    if (FC_UNLIKELY(fn == NULL)) {
        fn = (sigaction_fn)fc_resolve_next("sigaction"); /* never ours: we are not next */
        __atomic_store_n(&real_sigaction_p, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

/* Writers of the table block our two signals while they hold the lock, so
 * the handler (which may take it for SA_RESETHAND) never waits on its own
 * thread. Not a hot path: programs set handlers a few times per run. */
static void table_acquire(sigset_t *saved)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, saved);
    while (atomic_flag_test_and_set_explicit(&table_lock, memory_order_acquire))
        sched_yield();
}

static void table_release(const sigset_t *saved)
{
    atomic_flag_clear_explicit(&table_lock, memory_order_release);
    pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static struct sigaction prog_get(int i)
{
    return watches[i].prog[atomic_load_explicit(&watches[i].cur, memory_order_acquire)];
}

static void prog_set(int i, const struct sigaction *act)
{
    int next = 1 - atomic_load_explicit(&watches[i].cur, memory_order_relaxed);
    watches[i].prog[next] = *act;
    atomic_store_explicit(&watches[i].cur, next, memory_order_release);
}

static void on_signal(int sig, siginfo_t *info, void *uc);

/* Makes the real disposition follow the program's: SIG_IGN as is, anything
 * else our handler under the program's mask and flags. Table lock held. */
static int apply(int i)
{
    int sig = i == W_INT ? SIGINT : SIGTERM;
    struct sigaction v = prog_get(i);
    if (v.sa_handler == SIG_IGN)
        return real_sigaction()(sig, &v, NULL);
    struct sigaction ours;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_signal;
    ours.sa_mask = v.sa_mask;
    ours.sa_flags = (v.sa_flags | SA_SIGINFO) & ~SA_RESETHAND; /* RESETHAND: emulated */
    return real_sigaction()(sig, &ours, NULL);
}

/* Takes the report writer, waiting up to wait_ms for a snapshot in
 * progress; never once the exit path owns the report. */
static int writer_take(int wait_ms)
{
    for (int waited = 0;; waited++) {
        int expect = WRITER_FREE;
        if (atomic_compare_exchange_strong(&writer, &expect, WRITER_BUSY))
            return 0;
        if (expect == WRITER_EXITING || waited >= wait_ms)
            return -1;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

/* Set once this image wrote its "exec" report: a "running" one (the
 * drainer's first part, a snapshot) that comes after it - in the moment
 * before exec replaces the image, or after an exec that failed - must not
 * replace it; the report at exit still does. */
static atomic_int exec_written;

int fc_signals_write_report(const char *status)
{
    if (writer_take(WRITER_WAIT_MS) != 0)
        return -1;
    int running = strcmp(status, "running") == 0;
    int rc = running && atomic_load(&exec_written) ? 0 : fc_report_write(status);
    if (rc == 0 && strcmp(status, "exec") == 0)
        atomic_store(&exec_written, 1);
    atomic_store(&writer, WRITER_FREE);
    return rc;
}

int fc_signals_received(void)
{
    return atomic_load(&received);
}

/* The program's SIG_DFL: die of the signal, as it would have. */
static void default_action(int sig, int saved_errno)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    real_sigaction()(sig, &dfl, NULL);
    errno = saved_errno;
    raise(sig); /* delivered when this handler returns and unblocks it */
}

/* This thread runs the program's handler from on_signal (which wrote the
 * report just before): a handler that ends with _exit leaves that report. */
static FC_TLS int in_program_handler;

static void on_signal(int sig, siginfo_t *info, void *uc)
{
    int saved = errno;
    int i = watch_index(sig);
    if (i < 0)
        return;
    struct sigaction v = prog_get(i);
    atomic_store(&received, sig);
    int depth = fc_tls_depth++; /* a GEMM made while writing is not the program's */
    fc_cupti_before_report(0, 1); /* the drainer flushes CUPTI: never from a handler */
    fc_signals_write_report("interrupted");
    fc_tb_flush(0); /* after the report, which ended the stream: the last iteration too */
    fc_tls_depth = depth;
    if (v.sa_handler == SIG_DFL) {
        default_action(sig, saved);
        return;
    }
    if (v.sa_handler == SIG_IGN) { /* set between delivery and now */
        errno = saved;
        return;
    }
    if (v.sa_flags & SA_RESETHAND) { /* one-shot handler: the next one is SIG_DFL */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigset_t mask;
        table_acquire(&mask);
        prog_set(i, &dfl);
        apply(i);
        table_release(&mask);
    }
    errno = saved; /* the program's handler sees the errno of the interrupted code */
    in_program_handler++;
    if (v.sa_flags & SA_SIGINFO)
        v.sa_sigaction(sig, info, uc);
    else
        v.sa_handler(sig);
    in_program_handler--;
}

int fc_signals_in_program_handler(void)
{
    return in_program_handler > 0;
}

/* ---- the interposed functions ---- */

static int managed_sigaction(int i, const struct sigaction *act, struct sigaction *old)
{
    sigset_t mask;
    table_acquire(&mask);
    struct sigaction prev = prog_get(i);
    int rc = 0;
    if (act != NULL) {
        prog_set(i, act);
        rc = apply(i);
        if (rc != 0) { /* refused: keep the table what the kernel has */
            int e = errno;
            prog_set(i, &prev);
            apply(i);
            errno = e;
        }
    }
    int saved = errno;
    table_release(&mask);
    if (rc == 0 && old != NULL)
        *old = prev;
    errno = saved;
    return rc;
}

FC_NO_TSAN FC_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    sigaction_fn real = real_sigaction();
    if (FC_UNLIKELY(real == NULL)) {
        errno = ENOSYS;
        return -1;
    }
    if ((sig != SIGINT && sig != SIGTERM) || !__atomic_load_n(&managing, __ATOMIC_ACQUIRE))
        return real(sig, act, old);
    return managed_sigaction(sig == SIGINT ? W_INT : W_TERM, act, old);
}

/* glibc's signal(): BSD semantics, the signal itself blocked in its handler
 * and interrupted system calls restarted. */
static sighandler_t managed_signal(int sig, sighandler_t handler)
{
    if (handler == SIG_ERR) {
        errno = EINVAL;
        return SIG_ERR;
    }
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    sigemptyset(&act.sa_mask);
    sigaddset(&act.sa_mask, sig);
    act.sa_flags = SA_RESTART;
    if (managed_sigaction(watch_index(sig), &act, &old) != 0)
        return SIG_ERR;
    return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction
                                       : old.sa_handler;
}

FC_NO_TSAN FC_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
    if ((sig == SIGINT || sig == SIGTERM) && __atomic_load_n(&managing, __ATOMIC_ACQUIRE))
        return managed_signal(sig, handler);
    signal_fn fn = __atomic_load_n(&real_signal_p, __ATOMIC_ACQUIRE);
    if (fn == NULL) {
        fn = (signal_fn)fc_resolve_next("signal");
        __atomic_store_n(&real_signal_p, fn, __ATOMIC_RELEASE);
    }
    if (fn == NULL) {
        errno = ENOSYS;
        return SIG_ERR;
    }
    return fn(sig, handler);
}

/* ---- snapshots ---- */

static void *snapshot_main(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    double s = fc_opt.snapshot_seconds < MIN_SNAPSHOT_SECONDS ? MIN_SNAPSHOT_SECONDS
                                                              : fc_opt.snapshot_seconds;
    struct timespec period = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    fc_tls_depth++; /* nothing this thread does is the program's GEMM */
    for (;;) {
        struct timespec left = period;
        while (nanosleep(&left, &left) != 0 && errno == EINTR)
            ;
        if (atomic_load(&writer) == WRITER_EXITING)
            return NULL;
        if (writer_take(0) == 0) {
            if (!atomic_load(&exec_written)) { /* see fc_signals_write_report */
                fc_cupti_before_report(0, 0);
                fc_report_write("running");
            }
            atomic_store(&writer, WRITER_FREE);
        }
    }
}

void fc_signals_start_snapshots(void)
{
    static atomic_int once;
    if (fc_opt.snapshot_seconds <= 0 || !__atomic_load_n(&managing, __ATOMIC_ACQUIRE) ||
        atomic_exchange(&once, 1))
        return;
    int saved = errno;
    pthread_attr_t attr;
    pthread_t tid;
    if (pthread_attr_init(&attr) != 0) {
        errno = saved;
        return;
    }
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 1u << 20);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* born with every signal blocked */
    int rc = pthread_create(&tid, &attr, snapshot_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        fc_warn("cannot start the snapshot thread (%s); FLOPCOUNT_SNAPSHOT_SECONDS ignored",
                strerror(rc));
    errno = saved;
}

/* ---- lifecycle ---- */

static void after_fork_child(void)
{
    /* The child has no snapshot thread (threads do not survive fork) and
     * starts with its own signal history; a writer or the disposition
     * table held by another thread of the parent at fork time would
     * otherwise stay held forever (the table's double buffer keeps a whole
     * copy current, whatever that thread was doing). */
    atomic_store(&writer, WRITER_FREE);
    atomic_store(&received, 0);
    atomic_store(&exec_written, 0); /* the parent's exec report is not the child's */
    atomic_flag_clear(&table_lock);
}

void fc_signals_exit_begin(void)
{
    for (int waited = 0; waited < WRITER_WAIT_MS; waited++) {
        int expect = WRITER_FREE;
        if (atomic_compare_exchange_strong(&writer, &expect, WRITER_EXITING) ||
            expect == WRITER_EXITING)
            return;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    atomic_store(&writer, WRITER_EXITING); /* a writer stuck for 2 s: go on without it */
}

/* init.c's destructor takes the report for the exit path first; this one
 * covers the order of destructors not being what we expect. */
__attribute__((destructor)) static void fc_signals_fini(void)
{
    fc_signals_exit_begin();
}

void fc_signals_init(void)
{
    static atomic_int once;
    if (atomic_exchange(&once, 1) || !fc_is_enabled())
        return;
    if (real_sigaction() == NULL)
        return;
    sigset_t mask;
    table_acquire(&mask);
    for (int i = 0; i < W_COUNT; i++) {
        struct sigaction now;
        if (real_sigaction()(i == W_INT ? SIGINT : SIGTERM, NULL, &now) != 0)
            continue;
        prog_set(i, &now);
        apply(i);
    }
    __atomic_store_n(&managing, 1, __ATOMIC_RELEASE);
    table_release(&mask);
    pthread_atfork(NULL, NULL, after_fork_child);
}
