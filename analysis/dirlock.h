/* SPDX-License-Identifier: Apache-2.0 */
/* dirlock.h - flock(2) on the directory a file is in (dirlock.c): the lock
 * the library (shim/report/destination.c) and the command
 * (tools/job/job_join.c) take around replacing one shared
 * FLOPCOUNT_OUTPUT, with no lock file of its own left beside the report. */
#ifndef FC_DIRLOCK_H
#define FC_DIRLOCK_H

/* The directory of path locked exclusively, waiting up to wait_ms (polling
 * every millisecond): a descriptor to pass to fc_dirlock_release, or -1
 * when it cannot be had (a directory that cannot be opened, a file system
 * without flock, the wait over). errno is kept. No allocation. */
int fc_dirlock_take(const char *path, int wait_ms);
void fc_dirlock_release(int fd);

#endif
