/* SPDX-License-Identifier: Apache-2.0 */
/* prometheus.h - FLOPCOUNT_PROMETHEUS=DIR: the run's figures as a
 * node-exporter textfile-collector file, one per process
 * (DIR/flopcount-rank<R>-pid<P>.prom, or flopcount-pid<P>.prom without a
 * rank), rewritten atomically every FLOPCOUNT_PROMETHEUS_SECONDS by the
 * drainer thread and once more at exit. Metric names and meanings:
 * docs/prometheus.md. */
#ifndef FC_PROMETHEUS_H
#define FC_PROMETHEUS_H

/* Reads the options, checks the directory and prepares names and labels
 * (constructor, after the options and the rank are loaded). 0 when the
 * file is to be written; -1 when it is off or a value was bad (one
 * flopcount: line said so). */
int fc_prom_init(void);
/* The drainer's tick (fc_ring_add_tick): writes the file when the period
 * has passed. Runs holding the drain lock; allocates nothing. */
void fc_prom_tick(void);
/* The last write, with the final figures: the caller holds the drain lock
 * after fc_ring_collect(1). Skipped when this process never wrote the file
 * and counted nothing (a launcher, a worker that ran no GEMM).
 * interrupted: from a signal handler (no device lookup). */
void fc_prom_at_exit(int interrupted);
/* A fork child: its own pid in the file name and labels, a fresh period. */
void fc_prom_after_fork_child(void);

#endif
