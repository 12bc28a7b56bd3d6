/* SPDX-License-Identifier: Apache-2.0 */
/* naive_logger.h - the per-call logger bench/shim_overhead compares with. */
#ifndef FC_BENCH_NAIVE_LOGGER_H
#define FC_BENCH_NAIVE_LOGGER_H

#include <stddef.h>

typedef void (*bench_sgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                               const float *, const float *, const int *, const float *,
                               const int *, const float *, float *, const int *, size_t, size_t);

/* Opens the log (path, e.g. /dev/null) and sets the function forwarded to.
 * Returns 0, or -1 when the file cannot be opened. */
int naive_logger_open(const char *path, bench_sgemm_fn real);
void naive_logger_close(void);
/* An sgemm_ wrapper: lock, timestamp, one formatted line, unlock, forward. */
void naive_logger_sgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                        const float *alpha, const float *a, const int *lda, const float *b,
                        const int *ldb, const float *beta, float *c, const int *ldc, size_t lta,
                        size_t ltb);

#endif
