/* SPDX-License-Identifier: Apache-2.0 */
/* exit_direct.c - _exit and _Exit, interposed so that a process that ends
 * without running exit code still writes its report. Python's os._exit
 * calls _exit: the workers of multiprocessing's fork start method end that
 * way, and so do training scripts that skip a slow teardown; without this
 * their GEMMs were lost (a short-lived worker even before its first part
 * under flopcount run). Before the real function, what the destructor
 * would have done runs (fc_exit_report: the final report, the summary,
 * the event file's last iterations), after a CUPTI flush asked of the
 * drainer thread (never a call into CUPTI from here: _exit may come from a
 * signal handler that interrupted CUPTI).
 *
 * Passed straight through:
 * - a vfork child (Python's subprocess, posix_spawn, a shell's failed
 *   exec): it shares the parent's memory and counters but has a pid of its
 *   own, and must touch nothing;
 * - the program's SIGTERM/SIGINT handler ending with _exit: our handler
 *   wrote the "interrupted" report just before calling it; that stands;
 * - a process that counted nothing (dash, the usual /bin/sh, ends with
 *   _exit: a job's wrapper shell has nothing to say), as exec.c does.
 * The exit status is the program's. The C library's own exit() reaches its _exit
 * without this function; the destructor writes then. */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/base.h"
#include "core/process.h"
#include "core/resolve.h"
#include "cupti/cupti_layer.h"
#include "init.h"
#include "report/report.h"
#include "signals.h"

typedef void (*exit_fn)(int);

static void before_exit(void)
{
    int saved = errno;
    if ((long)getpid() == fc_process_pid() && !fc_signals_in_program_handler() &&
        fc_report_counted()) {
        fc_cupti_before_report(0, 1);
        fc_exit_report();
    }
    errno = saved;
}

/* The real function of that name; when none is found, the system call. */
static __attribute__((noreturn)) void end(const char *name, exit_fn *slot, int status)
{
    exit_fn fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (fn == NULL) {
        fn = (exit_fn)fc_resolve_next(name);
        __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    }
    if (fn != NULL)
        fn(status);
    for (;;)
        syscall(SYS_exit_group, status);
}

FC_EXPORT void _exit(int status)
{
    static exit_fn real;
    before_exit();
    end("_exit", &real, status);
}

FC_EXPORT void _Exit(int status)
{
    static exit_fn real;
    before_exit();
    end("_Exit", &real, status);
}
