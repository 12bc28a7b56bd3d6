/* SPDX-License-Identifier: Apache-2.0 */
/* init.h - start-up of libflopcount.so (init.c). */
#ifndef FC_INIT_H
#define FC_INIT_H

/* Idempotent; run by the constructor, and lazily by the public entry points
 * (a marker or NVTX call can come from another library's constructor,
 * before ours ran). */
void fc_init(void);

/* What the end of the process does (the destructor; _exit, exit_direct.c):
 * the final report, "complete" or "interrupted" when a SIGTERM/SIGINT came,
 * the exit summary, the event file's last iterations. Once per process:
 * a second call writes nothing. Keeps errno. */
void fc_exit_report(void);

#endif
