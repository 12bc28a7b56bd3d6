/* SPDX-License-Identifier: Apache-2.0 */
/* init.c - lifecycle of libflopcount.so, the top of its layers: the
 * constructor (options, rank, the ring layer, signals, the drainer's ticks
 * wired to the live line, the Prometheus file and the TensorBoard event
 * file, the cupti layer), the fork handlers, and the destructor that writes
 * the final report (and the event file's last iterations). CUPTI itself
 * is flushed and ended earlier, by an atexit handler (cupti/lifecycle.c),
 * while the CUDA libraries are still alive. The constructor maps,
 * calibrates and starts nothing of the ring layer's: snapshots start with
 * the first GEMM (docs/iterations.md, "Cost"). */
#include "init.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "core/guard.h"
#include "core/options.h"
#include "core/process.h"
#include "core/rank.h"
#include "cupti/cupti_layer.h"
#include "probe/devsizes.h"
#include "report/live.h"
#include "report/prometheus.h"
#include "report/report.h"
#include "report/tensorboard.h"
#include "ring/ring.h"
#include "signals.h"

static atomic_int init_state; /* 0 not yet, 1 running, 2 done */
static atomic_int first_part_written; /* write_first_part ran in this process */

static void before_fork(void)
{
    fc_ring_before_fork();
}

static void after_fork_child(void)
{
    /* A DataLoader worker and the like: it reports only what it runs itself,
     * and never over the parent's file (see report/report.c). */
    fc_process_start(1);
    fc_report_after_fork();
    atomic_store(&first_part_written, 0);
    fc_ring_after_fork_child();
    fc_cupti_after_fork_child();
    fc_live_reset();
    fc_prom_after_fork_child();
    fc_tb_after_fork_child();
}

/* Under 'flopcount run', a process that runs GEMMs writes its part as soon
 * as it has (the drainer thread's first tick after a drain, holding no
 * lock): a process killed later leaves a "running" part, so the job report
 * says it is incomplete rather than not knowing it, and flopcount run knows
 * to wait for it. */
static void write_first_part(void)
{
    if (!atomic_exchange(&first_part_written, 1))
        fc_signals_write_report("running");
}

void fc_init(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&init_state, &expect, 1))
        return;
    int saved = errno;
    fc_process_start(0);
    fc_options_load();
    fc_rank_load();
    fc_report_init();
    fc_ring_init();
    fc_ring_add_tick(fc_live_poll);
    fc_ring_set_first_use(fc_signals_start_snapshots);
    if (fc_prom_init() == 0)
        fc_ring_add_tick(fc_prom_tick);
    if (fc_tb_init() == 0)
        fc_ring_add_tick(fc_tb_tick);
    fc_cupti_init();
    if (fc_opt.run_dir[0] != '\0')
        fc_ring_add_tick_unlocked(write_first_part);
    if (fc_opt.read_device_sizes)
        fc_ring_add_tick_unlocked(fc_devsizes_poll);
    fc_signals_init();
    pthread_atfork(before_fork, NULL, after_fork_child);
    atomic_store(&init_state, 2);
    errno = saved;
}

__attribute__((constructor)) static void fc_constructor(void)
{
    fc_init();
}

__attribute__((destructor)) static void fc_destructor(void)
{
    fc_exit_report();
}

void fc_exit_report(void)
{
    int saved = errno;
    fc_tls_depth++; /* GEMMs made by other destructors from here on are not ours to count */
    fc_signals_exit_begin(); /* no snapshot or signal handler writes from here on */
    /* A program that handles SIGTERM itself and then exits normally was
     * still interrupted. */
    int interrupted = fc_signals_received() != 0;
    fc_report_at_exit(interrupted ? "interrupted" : "complete");
    fc_tb_flush(!interrupted); /* after the report: the stream has ended, the last iteration is in */
    errno = saved;
}
