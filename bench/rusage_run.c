/* SPDX-License-Identifier: Apache-2.0 */
/* rusage_run.c - runs one command and prints what it cost, for
 * bench/footprint.py: wall time, CPU time (user + system, the command and
 * every child it waited for) and peak resident memory (ru_maxrss, the
 * largest process of its tree). A small C program rather than the
 * benchmark's Python: a child's peak RSS starts from the memory of the
 * process that forked it (the kernel keeps the pre-exec high-water mark).
 *
 * usage: rusage_run [NAME=VALUE...] CMD [ARGS...]
 * The NAME=VALUE pairs are set in the command's environment only (so an
 * LD_PRELOAD reaches the command, not this launcher). Prints "wall_ns
 * user_us sys_us maxrss_kib exit_status" on stderr; exits with the
 * command's status (127 when it could not be started). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

int main(int argc, char **argv)
{
    int cmd = 1;
    while (cmd < argc && strchr(argv[cmd], '=') != NULL && argv[cmd][0] != '=')
        cmd++;
    if (cmd >= argc) {
        fprintf(stderr, "usage: rusage_run [NAME=VALUE...] CMD [ARGS...]\n");
        return 2;
    }
    long long t0 = now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        perror("rusage_run: fork");
        return 127;
    }
    if (pid == 0) {
        for (int i = 1; i < cmd; i++)
            putenv(argv[i]);
        execvp(argv[cmd], argv + cmd);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("rusage_run: wait4");
        return 127;
    }
    long long wall = now_ns() - t0;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(stderr, "%lld %lld %lld %ld %d\n", wall,
            (long long)ru.ru_utime.tv_sec * 1000000ll + ru.ru_utime.tv_usec,
            (long long)ru.ru_stime.tv_sec * 1000000ll + ru.ru_stime.tv_usec, ru.ru_maxrss, code);
    return code;
}
