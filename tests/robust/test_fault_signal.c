/* SPDX-License-Identifier: Apache-2.0 */
/* test_fault_signal.c - a program that ends in the ways a training job can:
 * killed by a signal, its own handler, _exit, exec, fork. Driven by
 * tests/robust/fault_signals.sh and tests/robust/fault_exits.sh, which compare its exit
 * status with and without the shim and check the report.
 *
 * usage: test_fault_signal MODE N
 * Every mode first makes N sgemm_ calls of 2x3x4 (48 FLOPs each) through
 * libfc_fault_blas.so, then:
 *   wait          print "ready", sleep until a signal ends the process
 *   handler       SIGTERM/SIGINT handler (sigaction, SA_RESTART) set after the
 *                 shim's constructor; check that sigaction() reads it back;
 *                 print "ready", wait for the signal, make 2 more calls,
 *                 print "handled", exit 0
 *   handler-exit  the handler calls _exit(7)
 *   resethand     SA_RESETHAND handler; raise SIGINT twice: the first runs
 *                 the handler (prints "count=1"), the second kills
 *   signal-fn     signal() installs a handler; signal() hands it back
 *   ignore        SIGTERM set to SIG_IGN; raise it; print "survived"
 *   raise-int     raise(SIGINT) with whatever disposition was inherited;
 *                 print "survived" when still alive
 *   plain         print "done", exit 0
 *   exit          sleep 0.6 s (snapshots cover it), then _exit(5)
 *   exec          execv("/bin/true"): the process image is replaced
 *   fork          fork; the child makes 2 calls and exits normally, the
 *                 parent waits for it, makes 1 more call and exits
 *   fork-exit     as fork, but the child ends with _exit(0)
 *   vfork-exit    vfork; the child ends with _exit(3) at once (it shares
 *                 the parent's memory: it must not write), the parent
 *                 checks that status, makes 1 more call and exits 0
 *   asleep        sleep 0.3 s (the shim's drainer thread drains the calls
 *                 and goes to its long sleep), make N more calls, then
 *                 raise(SIGTERM) at once: the signal comes while the
 *                 drainer sleeps with those calls still queued */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

static volatile sig_atomic_t got;
static int n_calls; /* N */

static void gemms(int n)
{
    const int m = 2, nn = 3, k = 4, ld = 4;
    float alpha = 1, beta = 0, a[16], b[16], c[16];
    for (int i = 0; i < n; i++)
        sgemm_("N", "N", &m, &nn, &k, &alpha, a, &ld, b, &ld, &beta, c, &ld, 1, 1);
}

static void say(const char *s)
{
    fputs(s, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static void on_sig(int sig)
{
    got = sig;
}

static void on_sig_exit(int sig)
{
    (void)sig;
    _exit(7);
}

static void on_sig_info(int sig, siginfo_t *info, void *uc)
{
    (void)info;
    (void)uc;
    got += sig == SIGINT;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static int install(int sig, void (*fn)(int), int flags)
{
    struct sigaction act, back;
    memset(&act, 0, sizeof act);
    act.sa_handler = fn;
    sigemptyset(&act.sa_mask);
    sigaddset(&act.sa_mask, SIGUSR1);
    act.sa_flags = flags;
    if (sigaction(sig, &act, NULL) != 0 || sigaction(sig, NULL, &back) != 0)
        return -1;
    /* What the program set is what it reads back: handler, mask, flags. */
    if (back.sa_handler != fn || !sigismember(&back.sa_mask, SIGUSR1) ||
        sigismember(&back.sa_mask, SIGUSR2) ||
        (back.sa_flags & (int)(SA_RESTART | SA_SIGINFO | SA_RESETHAND | SA_NODEFER)) != flags)
        return -1;
    return 0;
}

static int run_fork(int child_exit)
{
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        gemms(2);
        if (child_exit)
            _exit(0);
        exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return 1;
    gemms(1);
    say("parent done");
    return 0;
}

/* Modes about signal handlers; -1 when mode is none of them. */
static int run_signal_mode(const char *mode)
{
    if (strcmp(mode, "wait") == 0) {
        say("ready");
        for (;;)
            pause();
    }
    if (strcmp(mode, "handler") == 0) {
        if (install(SIGTERM, on_sig, SA_RESTART) != 0 || install(SIGINT, on_sig, SA_RESTART) != 0)
            return say("sigaction read-back differs"), 1;
        say("ready");
        while (!got)
            pause();
        gemms(2);
        say("handled");
        return 0;
    }
    if (strcmp(mode, "handler-exit") == 0) {
        if (install(SIGTERM, on_sig_exit, 0) != 0)
            return 1;
        say("ready");
        for (;;)
            pause();
    }
    if (strcmp(mode, "resethand") == 0) {
        struct sigaction act;
        memset(&act, 0, sizeof act);
        act.sa_sigaction = on_sig_info;
        sigemptyset(&act.sa_mask);
        act.sa_flags = SA_SIGINFO | SA_RESETHAND;
        if (sigaction(SIGINT, &act, NULL) != 0)
            return 1;
        raise(SIGINT);
        printf("count=%d\n", (int)got);
        fflush(stdout);
        raise(SIGINT);
        say("survived");
        return 0;
    }
    if (strcmp(mode, "signal-fn") == 0) {
        if (signal(SIGINT, on_sig) == SIG_ERR || signal(SIGINT, SIG_DFL) != on_sig ||
            signal(SIGINT, on_sig) != SIG_DFL)
            return say("signal() read-back differs"), 1;
        raise(SIGINT);
        say(got == SIGINT ? "handled" : "not handled");
        return 0;
    }
    return -1;
}

/* Modes that end without a signal; -1 when mode is none of them. */
static int run_exit_mode(const char *mode)
{
    if (strcmp(mode, "ignore") == 0) {
        signal(SIGTERM, SIG_IGN);
        raise(SIGTERM);
        say("survived");
        return 0;
    }
    if (strcmp(mode, "raise-int") == 0) {
        raise(SIGINT);
        say("survived");
        return 0;
    }
    if (strcmp(mode, "plain") == 0) {
        say("done");
        return 0;
    }
    if (strcmp(mode, "exit") == 0) {
        sleep_ms(600);
        _exit(5);
    }
    if (strcmp(mode, "exec") == 0) {
        char *argv[] = {"true", NULL};
        execv("/bin/true", argv);
        return 1;
    }
    if (strcmp(mode, "vfork-exit") == 0) {
        pid_t pid = vfork();
        if (pid == 0)
            _exit(3);
        int st;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 3)
            return 1;
        gemms(1);
        say("done");
        return 0;
    }
    if (strcmp(mode, "fork") == 0 || strcmp(mode, "fork-exit") == 0)
        return run_fork(strcmp(mode, "fork-exit") == 0);
    if (strcmp(mode, "asleep") == 0) {
        sleep_ms(300);
        gemms(n_calls);
        raise(SIGTERM);
        say("survived");
        return 1;
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_fault_signal MODE N\n");
        return 2;
    }
    n_calls = atoi(argv[2]);
    gemms(n_calls);
    int rc = run_signal_mode(argv[1]);
    if (rc < 0)
        rc = run_exit_mode(argv[1]);
    if (rc < 0) {
        fprintf(stderr, "test_fault_signal: unknown mode %s\n", argv[1]);
        rc = 2;
    }
    return rc;
}
