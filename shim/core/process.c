/* SPDX-License-Identifier: Apache-2.0 */
/* process.c - the pid, start times and fork-child flag of this process, set
 * by the constructor and by the child side of fork (process.h). */
#include "process.h"

#include <time.h>
#include <unistd.h>

#include "clock.h"

static long my_pid;
static uint64_t start_ns;
static int64_t start_unix_ns;
static int fork_child;

void fc_process_start(int is_fork_child)
{
    struct timespec ts;
    my_pid = (long)getpid();
    start_ns = fc_now_ns();
    clock_gettime(CLOCK_REALTIME, &ts);
    start_unix_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    fork_child = is_fork_child;
}

int64_t fc_process_start_unix_ns(void)
{
    return start_unix_ns;
}

long fc_process_pid(void)
{
    return my_pid;
}

uint64_t fc_process_start_ns(void)
{
    return start_ns;
}

int fc_process_is_fork_child(void)
{
    return fork_child;
}
