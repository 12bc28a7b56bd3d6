/* SPDX-License-Identifier: Apache-2.0 */
/* exec.c - the exec family, interposed so that the GEMMs a process ran
 * before exec are not lost: exec replaces the program without running any
 * destructor, so the report is written first, marked "exec". The new
 * program (the shim inherited through LD_PRELOAD) is a new image of the
 * same pid; destination.c gives it a report of its own, never the one
 * written here. If exec fails the program goes on, and its later reports
 * replace the one written here.
 *
 * Only a process that counted something writes (a shell exec'ing the
 * training script has nothing to say), and only the process itself: a
 * vfork child (Python's subprocess, posix_spawn) shares the parent's
 * memory and counters but has a pid of its own, and passes straight
 * through. errno and the return value are the real function's. */
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "core/base.h"
#include "core/guard.h"
#include "core/process.h"
#include "core/resolve.h"
#include "init.h"
#include "report/report.h"
#include "report/tensorboard.h"
#include "signals.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

static void before_exec(void)
{
    int saved = errno;
    fc_init();
    if ((long)getpid() == fc_process_pid() && fc_report_counted()) {
        fc_tls_depth++; /* nothing the writer does is the program's GEMM */
        fc_signals_write_report("exec");
        fc_tb_flush(1); /* the event file's descriptor closes at exec */
        fc_tls_depth--;
    }
    errno = saved;
}

#define REAL(type, name)                                                                           \
    static type real_##name;                                                                       \
    type fn = __atomic_load_n(&real_##name, __ATOMIC_ACQUIRE);                                     \
    if (fn == NULL) {                                                                              \
        fn = (type)fc_resolve_next(#name);                                                         \
        __atomic_store_n(&real_##name, fn, __ATOMIC_RELEASE);                                      \
    }                                                                                              \
    if (fn == NULL) {                                                                              \
        errno = ENOSYS;                                                                            \
        return -1;                                                                                 \
    }

FC_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    REAL(execve_fn, execve);
    before_exec();
    return fn(path, argv, envp);
}

FC_EXPORT int execv(const char *path, char *const argv[])
{
    REAL(execv_fn, execv);
    before_exec();
    return fn(path, argv);
}

FC_EXPORT int execvp(const char *file, char *const argv[])
{
    REAL(execv_fn, execvp);
    before_exec();
    return fn(file, argv);
}

FC_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    REAL(execve_fn, execvpe);
    before_exec();
    return fn(file, argv, envp);
}

FC_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    REAL(fexecve_fn, fexecve);
    before_exec();
    return fn(fd, argv, envp);
}

FC_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
                       int flags)
{
    REAL(execveat_fn, execveat);
    before_exec();
    return fn(dirfd, path, argv, envp, flags);
}

/* The execl forms: their arguments, up to the NULL, as an argv on the
 * stack (no allocation: they may run in a vfork child). */
#define ARGV_FROM_VA(n, arg0, ap)                                                                  \
    do {                                                                                           \
        va_start(ap, arg0);                                                                        \
        n = 1;                                                                                     \
        while (va_arg(ap, const char *) != NULL)                                                   \
            n++;                                                                                   \
        va_end(ap);                                                                                \
    } while (0)

static void fill_argv(char **argv, size_t n, const char *arg0, va_list ap)
{
    argv[0] = (char *)arg0;
    for (size_t i = 1; i <= n; i++)
        argv[i] = va_arg(ap, char *);
}

FC_EXPORT int execl(const char *path, const char *arg0, ...)
{
    va_list ap;
    size_t n;
    ARGV_FROM_VA(n, arg0, ap);
    char *argv[n + 1];
    va_start(ap, arg0);
    fill_argv(argv, n, arg0, ap);
    va_end(ap);
    return execv(path, argv);
}

FC_EXPORT int execlp(const char *file, const char *arg0, ...)
{
    va_list ap;
    size_t n;
    ARGV_FROM_VA(n, arg0, ap);
    char *argv[n + 1];
    va_start(ap, arg0);
    fill_argv(argv, n, arg0, ap);
    va_end(ap);
    return execvp(file, argv);
}

FC_EXPORT int execle(const char *path, const char *arg0, ...)
{
    va_list ap;
    size_t n;
    ARGV_FROM_VA(n, arg0, ap);
    char *argv[n + 1];
    va_start(ap, arg0);
    fill_argv(argv, n, arg0, ap);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}
