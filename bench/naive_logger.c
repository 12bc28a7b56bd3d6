/* SPDX-License-Identifier: Apache-2.0 */
/* naive_logger.c - a GEMM tracer written the simple way many public ones
 * are: every call takes a global lock, reads the clock, formats one text
 * line with fprintf into a buffered FILE, and forwards. It is the baseline
 * the shim's counters are compared with in bench/shim_overhead. */
#include "naive_logger.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static bench_sgemm_fn forward;

int naive_logger_open(const char *path, bench_sgemm_fn real)
{
    out = fopen(path, "w");
    forward = real;
    return out == NULL ? -1 : 0;
}

void naive_logger_close(void)
{
    if (out != NULL)
        fclose(out);
    out = NULL;
}

void naive_logger_sgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                        const float *alpha, const float *a, const int *lda, const float *b,
                        const int *ldb, const float *beta, float *c, const int *ldc, size_t lta,
                        size_t ltb)
{
    struct timespec ts;
    pthread_mutex_lock(&lock);
    clock_gettime(CLOCK_REALTIME, &ts);
    fprintf(out, "%lld.%09ld sgemm_ %c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d\n",
            (long long)ts.tv_sec, ts.tv_nsec, *ta, *tb, *m, *n, *k, *lda, *ldb, *ldc);
    pthread_mutex_unlock(&lock);
    forward(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, lta, ltb);
}
