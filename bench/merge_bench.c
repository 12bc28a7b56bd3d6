/* SPDX-License-Identifier: Apache-2.0 */
/* merge_bench.c - times 'flopcount merge' end to end (process start, reading
 * and parsing every report, the analysis, the JSON written to /dev/null) on
 * 1,024 synthetic rank reports: one straggler, one missing rank, 100
 * iterations and 52 shapes each (~45 KB a report; the tiny GPT demo writes
 * 19 shapes). The goal (issue 6) is under one second.
 *
 * usage: merge_bench [RANKS [FLOPCOUNT [ITERATIONS [EXTRA_SHAPES]]]]
 *        (defaults: 1024, the one built beside it, 100, 50) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "merge_gen.h"

#define RUNS 5

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One merge; its wall time in seconds, or -1 when it did not exit 0. */
static double run_merge(const char *exe, const char *dir)
{
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(exe, exe, "merge", dir, "--json", "--peak-tflops", "989.4", (char *)NULL);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return now() - t0;
}

static void cleanup(const char *dir, int ranks)
{
    char path[4200];
    for (int r = 0; r < ranks; r++) {
        snprintf(path, sizeof path, "%s/rank%d.json", dir, r);
        unlink(path);
    }
    rmdir(dir);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    fc_gen_opts o;
    fc_gen_defaults(&o);
    o.ranks = argc > 1 ? atoi(argv[1]) : 1024;
    const char *exe = argc > 2 ? argv[2] : FC_FLOPCOUNT_EXE;
    if (o.ranks < 2 || o.iterations < 1 || o.filler < 0) {
        fprintf(stderr, "merge_bench: RANKS must be at least 2, ITERATIONS at least 1\n");
        return 2;
    }
    o.missing = o.ranks / 2;
    o.straggler = 3;
    o.iterations = argc > 3 ? atoi(argv[3]) : 100;
    o.filler = argc > 4 ? atoi(argv[4]) : 50; /* a transformer: tens of shapes */
    char dir[] = "/tmp/flopcount-merge-bench-XXXXXX";
    if (mkdtemp(dir) == NULL || fc_gen_reports(dir, &o) != 0) {
        perror("merge_bench");
        return 1;
    }
    double t[RUNS];
    int rc = 0;
    for (int i = 0; i < RUNS && rc == 0; i++)
        if ((t[i] = run_merge(exe, dir)) < 0) {
            fprintf(stderr, "merge_bench: %s merge failed\n", exe);
            rc = 1;
        }
    cleanup(dir, o.ranks);
    if (rc != 0)
        return rc;
    qsort(t, RUNS, sizeof t[0], cmp);
    printf("merge of %d rank reports (1 missing; %d iterations, %d shapes each): median %.3f s, "
           "best %.3f s, worst %.3f s over %d runs (goal: under 1 s)\n",
           o.ranks - 1, o.iterations, o.filler + 1, t[RUNS / 2], t[0], t[RUNS - 1], RUNS);
    return 0;
}
