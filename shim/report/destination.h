/* SPDX-License-Identifier: Apache-2.0 */
/* destination.h - where this process's report goes when several processes
 * of one job write (destination.c): its part in the per-run directory of
 * 'flopcount run', or FLOPCOUNT_OUTPUT claimed by the first writer of the
 * run with the others' parts next to it, never a report of another process
 * replaced. */
#ifndef FC_REPORT_DESTINATION_H
#define FC_REPORT_DESTINATION_H

#include <stddef.h>
#include <stdint.h>

/* Constructor: with FLOPCOUNT_OUTPUT and no run yet, this process starts
 * one (FLOPCOUNT_RUN_ID, passed on to its children in the environment). */
void fc_destination_init(void);
/* Fork child: what the parent wrote is not the child's to rewrite. */
void fc_destination_after_fork(void);
/* The run this process belongs to ("" none) and when it started (ns since
 * the epoch, coarse clock; -1 none). */
const char *fc_destination_run_id(void);
int64_t fc_destination_run_start(void);

/* Where the next write goes: 0 with path set (*claim: the file must not
 * exist yet; fc_destination_commit links it in place), 1 when this process
 * has nothing to write there, -1 after one flopcount: line. counted: the
 * process ran a GEMM. */
int fc_destination_pick(int counted, char *path, size_t size, int *claim);
/* Puts the written temporary file tmp where fc_destination_pick said (a
 * claimed path taken meanwhile sends it to the parts). 0, or -1 after one
 * flopcount: line (tmp removed). */
int fc_destination_commit(const char *tmp, char *path, size_t size, int claim, int counted);
/* After a committed write with status ("complete", "interrupted", "exec",
 * "running"): a process of a shared FILE that wrote its part joins the
 * run into FILE at its last writes (not after a snapshot). */
void fc_destination_written(const char *status);

/* destination_join.c: finds the flopcount command next to this library
 * (constructor; nothing to do without a shared FILE), and runs
 * `flopcount run --join-parts FILE PART`, which joins the parts of PART's
 * run into FILE, waiting for it (at most JOIN_WAIT_S). Said once when the
 * command is not found or fails. */
void fc_destination_join_init(void);
void fc_destination_join(const char *file, const char *part);

#endif
