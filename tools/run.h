/* SPDX-License-Identifier: Apache-2.0 */
/* run.h - what run.c (options, environment, the job report) and
 * run_wait.c (the command's process tree: start, signals, wait) share. */
#ifndef FC_RUN_H
#define FC_RUN_H

#include "job.h"

typedef struct fc_run {
    char **argv;          /* the command and its arguments */
    char run_dir[4200];   /* the per-run directory the processes write into; "" none */
    int quiet;
    fc_job_child child;   /* filled by fc_run_command */
} fc_run;

/* Starts argv as a child of this process (made a subreaper first, so
 * orphaned descendants come back to it), passes SIGTERM, SIGINT and SIGHUP
 * sent to this process on to the command (its process group when it made
 * one of its own), and waits for it; then for the processes of the job that
 * are still running and wrote a part into run_dir. Fills r->child, with
 * exit_code the status to exit with: the command's, 128 + a signal, or 126
 * (found, cannot run) / 127 (not found) when exec failed. Returns 0 when
 * the command ran, 1 when exec failed (said on stderr), 2 when it could not
 * be started. */
int fc_run_command(fc_run *r);

#endif
