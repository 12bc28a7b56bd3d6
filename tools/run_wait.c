/* SPDX-License-Identifier: Apache-2.0 */
/* run_wait.c - the command of 'flopcount run' as a process tree: started
 * with an exec-error pipe (126/127 as shells say), signals passed on, the
 * command and then the job's remaining GEMM processes waited for.
 *
 * Signals. SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGCHLD are blocked here and
 * taken with sigtimedwait, so nothing runs in a signal handler. A signal
 * sent by another process (kill, a scheduler, timeout(1)) is passed on to
 * the command, or to its process group when it leads one of its own (a
 * shell with job control, timeout(1)); one the terminal sent (Ctrl-C,
 * hang-up: si_code SI_KERNEL) already reached the whole foreground group,
 * so it is not sent twice. SIGQUIT is never passed on (Ctrl-\ reaches the
 * command from the terminal) and does not end flopcount run.
 *
 * The job's other processes. This process is a subreaper, so a process
 * whose parent exits (a training started in the background by a script)
 * becomes its child. After the command exits, flopcount run waits while a
 * process that wrote a part into the per-run directory is alive and
 * descends from it, so its final report is in the job report, and for
 * GRACE_SECONDS while a descendant it left behind has not run a GEMM yet; a
 * daemon that runs no GEMM is not waited for longer. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

#define POLL_NS 200000000L /* while the job's processes outlive the command */
/* After the command exits, how long a descendant it left running (now a
 * child of this subreaper) may take to write its first part. */
#define GRACE_SECONDS 2.0

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void watched(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGQUIT);
    sigaddset(set, SIGCHLD);
}

/* In the child: back to the signal mask flopcount run was started with,
 * then exec; on failure errno goes up the pipe. */
static void exec_child(char **argv, const sigset_t *old, int err_fd)
{
    sigprocmask(SIG_SETMASK, old, NULL);
    execvp(argv[0], argv);
    int e = errno;
    ssize_t w = write(err_fd, &e, sizeof e);
    (void)w;
    _exit(127);
}

/* ppid of pid from /proc/PID/stat, -1 when gone; *zombie set. */
static long parent_of(long pid, int *zombie)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    char state;
    long ppid;
    if (p == NULL || sscanf(p + 1, " %c %ld", &state, &ppid) != 2)
        return -1;
    *zombie = state == 'Z' || state == 'X';
    return ppid;
}

/* pid is alive and descends from this process. */
static int live_descendant(long pid)
{
    long self = (long)getpid(), p = pid;
    for (int depth = 0; depth < 64 && p > 1; depth++) {
        int zombie = 0;
        long up = parent_of(p, &zombie);
        if (up < 0 || (p == pid && zombie))
            return 0;
        if (up == self)
            return 1;
        p = up;
    }
    return 0;
}

/* Pids of the parts in dir ("PID.json", "PID-START.json") that are alive
 * descendants; returns how many, the first few in pids. */
static size_t job_alive(const char *dir, long *pids, size_t max)
{
    size_t n = 0;
    DIR *d = dir[0] ? opendir(dir) : NULL;
    if (d == NULL)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (end == e->d_name || (*end != '.' && *end != '-') || pid <= 1)
            continue;
        int dup = 0;
        for (size_t i = 0; i < n && i < max; i++)
            dup |= pids[i] == pid;
        if (dup || !live_descendant(pid))
            continue;
        if (n < max)
            pids[n] = pid;
        n++;
    }
    closedir(d);
    return n;
}

static void forward(fc_run *r, int sig, int child_done)
{
    char name[32];
    r->child.forwarded_signal = sig;
    if (!child_done) {
        pid_t c = (pid_t)r->child.pid;
        pid_t g = getpgid(c);
        if (g == c && g != getpgrp())
            kill(-g, sig); /* it leads its own group: the whole group */
        else
            kill(c, sig);
        return;
    }
    long pids[64];
    size_t n = job_alive(r->run_dir, pids, 64);
    for (size_t i = 0; i < n && i < 64; i++)
        kill((pid_t)pids[i], sig);
    if (!r->quiet)
        fprintf(stderr, "flopcount run: %s passed on to %zu process%s of the job\n",
                fc_signal_name(sig, name, sizeof name), n, n == 1 ? "" : "es");
}

static void reap(fc_run *r, int *child_done)
{
    int st;
    pid_t p;
    while ((p = waitpid(-1, &st, WNOHANG)) > 0)
        if (p == (pid_t)r->child.pid && !*child_done) {
            *child_done = 1;
            r->child.wait_status = st;
        }
}

/* 1 while this process has children not yet reaped (descendants the
 * command left running came back to it). */
static int has_children(void)
{
    siginfo_t info;
    info.si_pid = 0;
    return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

static int wait_all(fc_run *r, const sigset_t *set, double t0)
{
    int child_done = 0, said = 0;
    for (;;) {
        reap(r, &child_done);
        if (child_done && r->child.wall_seconds == 0)
            r->child.wall_seconds = now_seconds() - t0;
        if (child_done) {
            long pids[4];
            size_t n = job_alive(r->run_dir, pids, 4);
            /* one it left behind may be about to run its first GEMM */
            int grace = n == 0 && has_children() &&
                        now_seconds() - t0 - r->child.wall_seconds < GRACE_SECONDS;
            if (n == 0 && !grace)
                return 0;
            if (n > 0 && !said && !r->quiet) {
                fprintf(stderr, "flopcount run: the command exited; waiting for %zu process%s "
                                "of the job that ran GEMMs (pid %ld%s)\n",
                        n, n == 1 ? "" : "es", pids[0], n > 1 ? ", ..." : "");
                said = 1;
            }
        }
        siginfo_t info;
        struct timespec ts = {child_done ? 0 : 1, child_done ? POLL_NS : 0};
        int sig = sigtimedwait(set, &info, &ts);
        if (sig < 0)
            continue; /* timeout or EINTR: look again */
        if (sig == SIGCHLD || sig == SIGQUIT)
            continue;
        if (info.si_code == SI_KERNEL)
            continue; /* from the terminal: the foreground group has it already */
        if (info.si_code == SI_USER && info.si_pid == getpid())
            continue;
        forward(r, sig, child_done);
    }
}

static void join_command(fc_run *r)
{
    size_t o = 0;
    r->child.command[0] = '\0';
    for (char **a = r->argv; *a != NULL; a++) {
        int n = snprintf(r->child.command + o, sizeof r->child.command - o, "%s%s",
                         a == r->argv ? "" : " ", *a);
        if (n < 0 || (size_t)n >= sizeof r->child.command - o)
            break;
        o += (size_t)n;
    }
}

int fc_run_command(fc_run *r)
{
    sigset_t set, old;
    watched(&set);
    join_command(r);
    if (gethostname(r->child.hostname, sizeof r->child.hostname - 1) != 0)
        snprintf(r->child.hostname, sizeof r->child.hostname, "unknown");
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        fprintf(stderr, "flopcount run: pipe failed: %s\n", strerror(errno));
        return 2;
    }
    sigprocmask(SIG_BLOCK, &set, &old);
    double t0 = now_seconds();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "flopcount run: fork failed: %s\n", strerror(errno));
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(pipefd[0]);
        close(pipefd[1]);
        return 2;
    }
    if (pid == 0) {
        close(pipefd[0]);
        exec_child(r->argv, &old, pipefd[1]);
    }
    close(pipefd[1]);
    r->child.pid = pid;
    int e = 0;
    ssize_t n;
    while ((n = read(pipefd[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(pipefd[0]);
    wait_all(r, &set, t0);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (n == (ssize_t)sizeof e) { /* exec failed: the shells' 127 (not found) or 126 */
        fprintf(stderr, "flopcount run: cannot run '%s': %s\n", r->argv[0], strerror(e));
        r->child.exit_code = e == ENOENT ? 127 : 126;
        return 1;
    }
    int st = r->child.wait_status;
    r->child.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    return 0;
}
