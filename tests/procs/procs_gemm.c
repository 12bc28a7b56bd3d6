/* SPDX-License-Identifier: Apache-2.0 */
/* procs_gemm.c - a GEMM program for the process-tree tests: N sgemm_ calls
 * of m = n = k = D (2*D^3 FLOPs each, checked: every element of C is D),
 * then what the mode says.
 *
 * usage: procs_gemm gemm N D                 exit 0
 *        procs_gemm exec N D HOW PROG ARGS.. exec PROG (HOW: execv execve execvp
 *                                            execvpe execl execlp execle fexecve)
 *        procs_gemm fork N D CN              a fork child runs CN more, both exit 0
 *        procs_gemm sleep N D S              print "ready", sleep S seconds, exit 0
 *        procs_gemm none                     no GEMM at all */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

static float a[64 * 64], b[64 * 64], c[64 * 64];

static int gemms(int n, int d)
{
    float one = 1, zero = 0;
    for (int i = 0; i < 64 * 64; i++)
        a[i] = b[i] = 1;
    for (int i = 0; i < n; i++) {
        c[0] = 0;
        sgemm_("N", "N", &d, &d, &d, &one, a, &d, b, &d, &zero, c, &d, 1, 1);
        if (c[0] != (float)d || c[d * d - 1] != (float)d) {
            fprintf(stderr, "procs_gemm: wrong result\n");
            return -1;
        }
    }
    return 0;
}

static int run_exec(const char *how, char **argv)
{
    const char *prog = argv[0];
    if (strcmp(how, "execv") == 0)
        execv(prog, argv);
    else if (strcmp(how, "execve") == 0)
        execve(prog, argv, environ);
    else if (strcmp(how, "execvp") == 0)
        execvp(prog, argv);
    else if (strcmp(how, "execvpe") == 0)
        execvpe(prog, argv, environ);
    else if (strcmp(how, "fexecve") == 0) {
        int fd = open(prog, O_RDONLY | O_CLOEXEC);
        if (fd >= 0)
            fexecve(fd, argv, environ);
    } else if (argv[1] == NULL || argv[2] == NULL || argv[3] == NULL || argv[4] != NULL) {
        fprintf(stderr, "procs_gemm: the execl forms take exactly 3 arguments\n");
        return 2;
    } else if (strcmp(how, "execl") == 0)
        execl(prog, argv[0], argv[1], argv[2], argv[3], (char *)NULL);
    else if (strcmp(how, "execlp") == 0)
        execlp(prog, argv[0], argv[1], argv[2], argv[3], (char *)NULL);
    else if (strcmp(how, "execle") == 0)
        execle(prog, argv[0], argv[1], argv[2], argv[3], (char *)NULL, environ);
    else {
        fprintf(stderr, "procs_gemm: unknown exec form %s\n", how);
        return 2;
    }
    perror("procs_gemm: exec");
    return 127;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "none") == 0)
        return 0;
    if (argc < 4) {
        fprintf(stderr, "usage: procs_gemm gemm|exec|fork|sleep N D ...\n");
        return 2;
    }
    int n = atoi(argv[2]), d = atoi(argv[3]);
    if (d < 1 || d > 64 || n < 0 || gemms(n, d) != 0)
        return 1;
    if (strcmp(argv[1], "gemm") == 0)
        return 0;
    if (strcmp(argv[1], "exec") == 0 && argc >= 6)
        return run_exec(argv[4], argv + 5);
    if (strcmp(argv[1], "fork") == 0 && argc >= 5) {
        pid_t pid = fork();
        if (pid == 0)
            exit(gemms(atoi(argv[4]), d) == 0 ? 0 : 1);
        int st;
        return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
    }
    if (strcmp(argv[1], "sleep") == 0 && argc >= 5) {
        printf("ready\n");
        fflush(stdout);
        sleep((unsigned)atoi(argv[4]));
        return 0;
    }
    fprintf(stderr, "procs_gemm: bad arguments\n");
    return 2;
}
