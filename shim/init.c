/* SPDX-License-Identifier: Apache-2.0 */
/* init.c - lifecycle of libflopcount.so: constructor, fork, exit; the
 * flopcount: diagnostics; the public version and snapshot functions. */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../include/flopcount.h"
#include "counters.h"
#include "iter.h"
#include "options.h"
#include "rank.h"
#include "report.h"
#include "shim.h"
#include "signals.h"

FC_TLS int fc_tls_depth;

static atomic_int init_state; /* 0 not yet, 1 running, 2 done */
static atomic_int warnings_left = 20;
static int is_fork_child;

void fc_warn(const char *fmt, ...)
{
    char line[512];
    if (atomic_fetch_sub(&warnings_left, 1) <= 0)
        return;
    int saved = errno;
    int n = snprintf(line, sizeof line, "flopcount: ");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(2, line, (size_t)n);
    (void)w;
    errno = saved;
}

void fc_warn_once(int *flag, const char *fmt, ...)
{
    if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED))
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fc_warn("%s", msg);
}

uint64_t fc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}


static void after_fork_child(void)
{
    /* A DataLoader worker and the like: it reports only what it runs itself,
     * and never over the parent's file (see report.c). */
    is_fork_child = 1;
    fc_counters_reset();
    fc_iter_reset_after_fork();
    fc_report_after_fork();
}

int fc_is_fork_child(void)
{
    return is_fork_child;
}

void fc_init(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&init_state, &expect, 1))
        return;
    int saved = errno;
    fc_options_load();
    fc_rank_load();
    fc_report_init();
    fc_iter_init();
    fc_signals_init();
    pthread_atfork(fc_iter_before_fork, NULL, after_fork_child);
    atomic_store(&init_state, 2);
    errno = saved;
}

__attribute__((constructor)) static void fc_constructor(void)
{
    fc_init();
}

__attribute__((destructor)) static void fc_destructor(void)
{
    int saved = errno;
    fc_tls_depth++; /* GEMMs made by other destructors from here on are not ours to count */
    fc_report_at_exit();
    errno = saved;
}

FC_EXPORT const char *flopcount_version(void)
{
    return FLOPCOUNT_VERSION_STRING;
}

FC_EXPORT int flopcount_snapshot_get(flopcount_snapshot *out)
{
    if (out == NULL || out->size < sizeof(flopcount_snapshot))
        return -1;
    fc_totals t;
    fc_counters_totals(&t);
    out->version = FLOPCOUNT_SNAPSHOT_VERSION;
    out->gemm_calls = t.calls;
    out->gemm_flops_lo = (uint64_t)t.flops;
    out->gemm_flops_hi = (uint64_t)(t.flops >> 64);
    out->failed_calls = t.failed_calls;
    out->invalid_calls = t.invalid_calls;
    out->iterations = fc_iter_count();
    return 0;
}

FC_EXPORT int flopcount_write_report(void)
{
    fc_init();
    return fc_signals_write_report("running");
}
