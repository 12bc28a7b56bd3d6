/* SPDX-License-Identifier: Apache-2.0 */
/* destination_join.c - the join of a shared FLOPCOUNT_OUTPUT: FILE made the
 * report of the whole run, from FILE.parts/ (destination.c says when).
 *
 * Joining reads JSON reports and builds the job's report as `flopcount run`
 * does (tools/job/), which needs the JSON reader the library must not link
 * into the host. So the library runs the flopcount command installed next
 * to it (LIBDIR/FC_LIB_TO_BIN/flopcount, or ../bin/flopcount in the build
 * tree): `flopcount run --join-parts FILE PART`, which takes flock(2) on
 * FILE's directory, moves the first writer's report into FILE.parts/,
 * builds the job report from the parts of PART's run and renames it over
 * FILE. A crash of either process at any point leaves FILE a whole report
 * (the old one or the new one) and every part in place.
 *
 * The command is started with posix_spawn (no fork of the host: glibc's
 * clone(CLONE_VM | CLONE_VFORK), no atfork handler runs), with the host's
 * environment less LD_PRELOAD and FLOPCOUNT_* and with FLOPCOUNT_DISABLE=1
 * (it must not count itself), default signal dispositions and an empty
 * signal mask, and waited for: at most JOIN_WAIT_S, by its pid (a host that
 * reaps children itself only ends the wait early). It runs at a process's
 * last writes only: at exit, on SIGINT/SIGTERM, before exec. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/diag.h"
#include "destination.h"

#ifndef FC_LIB_TO_BIN
#define FC_LIB_TO_BIN "../bin"
#endif

#define JOIN_WAIT_S 10 /* then the host goes on; the command finishes the join alone */
#define MAX_ENV 512

extern char **environ;

static char cli[4096];
static int warned;

void fc_destination_join_init(void)
{
    cli[0] = '\0';
    Dl_info info;
    if (dladdr((void *)fc_destination_join_init, &info) == 0 || info.dli_fname == NULL)
        return;
    char *lib = realpath(info.dli_fname, NULL);
    char *slash = lib != NULL ? strrchr(lib, '/') : NULL;
    if (slash == NULL) {
        free(lib);
        return;
    }
    *slash = '\0';
    static const char *const to_bin[] = {FC_LIB_TO_BIN, "../bin"};
    for (size_t i = 0; i < sizeof to_bin / sizeof to_bin[0]; i++) {
        int n = snprintf(cli, sizeof cli, "%s/%s/flopcount", lib, to_bin[i]);
        if (n > 0 && (size_t)n < sizeof cli && access(cli, X_OK) == 0)
            break;
        cli[0] = '\0';
    }
    free(lib);
}

/* The command's environment: the host's, less LD_PRELOAD and FLOPCOUNT_*
 * (pointers into environ: nothing copied), counting switched off. */
static char **join_env(void)
{
    static char *env[MAX_ENV];
    static char disable[] = "FLOPCOUNT_DISABLE=1";
    size_t n = 0;
    for (char **e = environ; e != NULL && *e != NULL && n < MAX_ENV - 2; e++)
        if (strncmp(*e, "LD_PRELOAD=", 11) != 0 && strncmp(*e, "FLOPCOUNT_", 10) != 0)
            env[n++] = *e;
    env[n++] = disable;
    env[n] = NULL;
    return env;
}

void fc_destination_join(const char *file, const char *part)
{
    int saved = errno;
    if (cli[0] == '\0') {
        fc_warn_once(&warned,
                     "the flopcount command was not found next to libflopcount.so: %.300s keeps "
                     "its first writer's report ('flopcount report %.300s' adds %.300s.parts/)",
                     file, file, file);
        errno = saved;
        return;
    }
    char *argv[] = {cli, "run", "--join-parts", (char *)file, (char *)part, NULL};
    posix_spawnattr_t attr;
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&dfl, sigs[i]);
    pid_t pid = -1;
    int rc = posix_spawnattr_init(&attr);
    if (rc == 0) {
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &dfl);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        rc = posix_spawn(&pid, cli, NULL, &attr, argv, join_env());
        posix_spawnattr_destroy(&attr);
    }
    if (rc != 0) {
        fc_warn_once(&warned, "cannot start %.300s to join the run into %.300s: %s", cli, file,
                     strerror(rc));
        errno = saved;
        return;
    }
    for (long waited = 0; waited < JOIN_WAIT_S * 1000L; waited++) {
        int st;
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) {
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                fc_warn_once(&warned,
                             "joining the run into %.300s failed (said above); 'flopcount report "
                             "%.300s' adds %.300s.parts/",
                             file, file, file);
            errno = saved;
            return;
        }
        if (w < 0 && errno != EINTR)
            break; /* reaped by the host: it has ended */
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    errno = saved;
}
