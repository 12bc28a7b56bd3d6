/* SPDX-License-Identifier: Apache-2.0 */
/* merge_load.c - reads the rank reports on a few threads, a batch at a
 * time, and hands them over in the order given. Parsing (json-c) is nearly
 * all of a merge's time, so each file is read and parsed once, on a worker,
 * for the report and its CUPTI sections both; the sums after it are cheap
 * and stay on one thread, so the result does not depend on which thread
 * finished first. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "merge.h"

#define BATCH 128     /* reports parsed before they are handed over */
#define MAX_THREADS 8

typedef struct job {
    const char *path;
    fc_merge_loaded got;
    int rc;
    char err[512];
} job;

typedef struct pool {
    job *jobs;
    size_t n, next;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        size_t i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (i >= p->n)
            return NULL;
        job *j = &p->jobs[i];
        fc_merge_loaded *g = &j->got;
        j->rc = fc_report_load_both(j->path, &g->report, j->err, sizeof j->err, &g->gpu,
                                    &g->gpu_rc, g->gpu_err, sizeof g->gpu_err);
    }
}

static size_t thread_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > MAX_THREADS ? MAX_THREADS : (size_t)n;
}

/* Parses jobs[0..n); on a thread failing to start, the caller's thread
 * does the rest. */
static void parse_batch(job *jobs, size_t n)
{
    pool p = {jobs, n, 0};
    pthread_t t[MAX_THREADS];
    size_t started = 0, want = thread_count();
    if (want > n)
        want = n;
    while (started + 1 < want && pthread_create(&t[started], NULL, worker, &p) == 0)
        started++;
    worker(&p);
    for (size_t i = 0; i < started; i++)
        pthread_join(t[i], NULL);
}

int fc_merge_load_all(char *const *paths, size_t n, fc_merge_take_fn take, void *ctx)
{
    job *jobs = calloc(BATCH, sizeof *jobs);
    if (jobs == NULL) {
        fprintf(stderr, "flopcount merge: out of memory\n");
        return -1;
    }
    int rc = 0;
    for (size_t base = 0; base < n && rc == 0; base += BATCH) {
        size_t k = n - base < BATCH ? n - base : BATCH;
        for (size_t i = 0; i < k; i++)
            jobs[i].path = paths[base + i];
        parse_batch(jobs, k);
        for (size_t i = 0; i < k; i++) {
            if (rc == 0 && jobs[i].rc != 0) {
                fprintf(stderr, "flopcount merge: %s: %s\n", jobs[i].path, jobs[i].err);
                rc = -1;
            }
            if (rc == 0)
                rc = take(ctx, base + i, jobs[i].path, &jobs[i].got);
            fc_report_free(&jobs[i].got.report);
            fc_report_gpu_free(&jobs[i].got.gpu);
        }
    }
    free(jobs);
    return rc;
}
