/* SPDX-License-Identifier: Apache-2.0 */
/* signals.h - the report survives the ways a job ends early: SIGINT and
 * SIGTERM (report marked "interrupted", then the program's own handling),
 * and SIGKILL (periodic snapshots, FLOPCOUNT_SNAPSHOT_SECONDS; _exit is
 * exit_direct.c's). */
#ifndef FC_SIGNALS_H
#define FC_SIGNALS_H

/* Puts our handler in front of SIGINT and SIGTERM. Idempotent; run from
 * fc_init. */
void fc_signals_init(void);

/* Starts the snapshot thread when snapshots are asked for; once, at the
 * process's first GEMM or marker (the ring layer's first-use function). */
void fc_signals_start_snapshots(void);

/* The SIGINT/SIGTERM number this process received, 0 when none: a report
 * written at exit after a handled signal should say "interrupted". */
int fc_signals_received(void);
/* Non-zero on a thread inside the program's handler that one of our
 * handlers called, after writing the "interrupted" report. */
int fc_signals_in_program_handler(void);

/* Writes the report with status under the lock the snapshot thread and the
 * signal handler share, so two writers never interleave in report.c's
 * static buffers. Returns the writer's result, or -1 (nothing written) when
 * the exit path already owns the report. */
int fc_signals_write_report(const char *status);

/* The exit path takes the report for good: waits for a snapshot in
 * progress, then no snapshot or handler writes again. Idempotent. Our
 * destructor calls it; the final-report writer may call it first so the
 * order of destructors does not matter. */
void fc_signals_exit_begin(void);

#endif
