/* SPDX-License-Identifier: Apache-2.0 */
/* process.h - what this process is to the report: its pid, when counting
 * started, and whether it is a fork child of a process that counted. */
#ifndef FC_PROCESS_H
#define FC_PROCESS_H

#include <stdint.h>

/* Takes the pid and the start time (the constructor; again in a fork
 * child, with is_fork_child 1). */
void fc_process_start(int is_fork_child);
long fc_process_pid(void);
uint64_t fc_process_start_ns(void);
/* The same moment in ns since the epoch (CLOCK_REALTIME): names this
 * image's part of a job and orders the parts (exec keeps the pid). */
int64_t fc_process_start_unix_ns(void);
int fc_process_is_fork_child(void);

#endif
