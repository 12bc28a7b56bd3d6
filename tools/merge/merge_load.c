/* SPDX-License-Identifier: Apache-2.0 */
/* merge_load.c - reads the rank reports on a few threads, a batch at a
 * time, and hands them over in the order given. Parsing (json-c) is nearly
 * all of a merge's time, so each file is read and parsed once, on a worker,
 * for the report and its CUPTI sections both. The sums stay on one thread,
 * in order, so the result does not depend on which thread finished first;
 * they run while the next batch is parsed. */
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

/* A batch being parsed by started threads while the caller hands over
 * the one before: the hand-over (the sums) stays on one thread, in order,
 * and no longer waits for the parsing, nor the parsing for it. */
typedef struct batch {
    pool p;
    pthread_t t[MAX_THREADS];
    size_t started;
} batch;

/* Starts parsing jobs[0..n) on up to thread_count() threads (none when
 * they cannot start: batch_end parses them then). */
static void batch_start(batch *b, job *jobs, size_t n)
{
    b->p = (pool){jobs, n, 0};
    b->started = 0;
    size_t want = thread_count();
    if (want > n)
        want = n;
    while (b->started < want && pthread_create(&b->t[b->started], NULL, worker, &b->p) == 0)
        b->started++;
}

/* The caller's thread parses what is left, then waits for the rest. */
static void batch_end(batch *b)
{
    worker(&b->p);
    for (size_t i = 0; i < b->started; i++)
        pthread_join(b->t[i], NULL);
}

/* Hands jobs[0..k) (reports base..base+k) over in order; frees them. */
static int take_batch(job *jobs, size_t k, size_t base, int rc, fc_merge_take_fn take, void *ctx)
{
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
    return rc;
}

int fc_merge_load_all(char *const *paths, size_t n, fc_merge_take_fn take, void *ctx)
{
    job *jobs = calloc(2 * BATCH, sizeof *jobs); /* two batches: one parsed, one handed over */
    if (jobs == NULL) {
        fprintf(stderr, "flopcount merge: out of memory\n");
        return -1;
    }
    int rc = 0;
    size_t prev_k = 0, prev_base = 0;
    job *prev = NULL;
    for (size_t base = 0; base < n && rc == 0; base += BATCH) {
        job *cur = jobs + (base / BATCH % 2) * BATCH;
        size_t k = n - base < BATCH ? n - base : BATCH;
        for (size_t i = 0; i < k; i++)
            cur[i].path = paths[base + i];
        batch b;
        batch_start(&b, cur, k);
        if (prev != NULL)
            rc = take_batch(prev, prev_k, prev_base, rc, take, ctx);
        batch_end(&b);
        prev = cur;
        prev_k = k;
        prev_base = base;
    }
    if (prev != NULL) /* the last batch (or, after an error, the one parsed meanwhile: freed) */
        rc = take_batch(prev, prev_k, prev_base, rc, take, ctx);
    free(jobs);
    return rc;
}
