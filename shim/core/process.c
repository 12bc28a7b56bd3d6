/* SPDX-License-Identifier: Apache-2.0 */
/* process.c - the pid, start time and fork-child flag of this process, set
 * by the constructor and by the child side of fork (process.h). */
#include "process.h"

#include <unistd.h>

#include "clock.h"

static long my_pid;
static uint64_t start_ns;
static int fork_child;

void fc_process_start(int is_fork_child)
{
    my_pid = (long)getpid();
    start_ns = fc_now_ns();
    fork_child = is_fork_child;
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
