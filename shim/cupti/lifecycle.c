/* SPDX-License-Identifier: Apache-2.0 */
/* lifecycle.c - when the cupti layer works besides the GPU calls: the
 * drainer's ticks (a flush of kernel records and counter samples every
 * 0.5 s, run after each of its wake-ups; their attribution to iterations
 * under the drain lock), the flush before a report, and the end of CUPTI at exit
 * (loader.c registers it with atexit, so it runs before the CUDA
 * libraries' own destructors). A report written from a signal handler
 * never calls CUPTI - the interrupted thread may hold CUPTI's locks - but
 * asks the drainer thread for a flush, wakes it, and waits for it
 * briefly. */
#include <string.h>
#include <time.h>

#include "cupti_internal.h"
#include "hwflops.h"
#include "ring/ring.h"

#define SIGNAL_WAIT_MS 300

static fc_spin life_lock;
static int finalized;
static unsigned flush_req, flush_done; /* __atomic: a signal handler's requests */

static void tick_unlocked(void)
{
    if (!fc_cupti_on() || fc_cupti_forked())
        return;
    unsigned req = __atomic_load_n(&flush_req, __ATOMIC_ACQUIRE);
    int asked = req != __atomic_load_n(&flush_done, __ATOMIC_ACQUIRE);
    fc_spin_lock(&life_lock);
    if (!finalized) {
        fc_activity_flush(asked);
        fc_hwflops_poll(asked);
    }
    fc_spin_unlock(&life_lock);
    if (asked)
        __atomic_store_n(&flush_done, req, __ATOMIC_RELEASE);
}

void fc_cupti_tick(void)
{
    fc_kernels_attribute(0);
    fc_hwflops_attribute(0);
}

void fc_cupti_before_report(int final, int from_signal)
{
    if (!fc_cupti_on() || fc_cupti_forked())
        return;
    if (from_signal) {
        unsigned want = __atomic_add_fetch(&flush_req, 1, __ATOMIC_ACQ_REL);
        fc_ring_wake(); /* its sleep may be 0.1 s long */
        struct timespec ms = {0, 1000000};
        for (int i = 0;
             i < SIGNAL_WAIT_MS && (int)(want - __atomic_load_n(&flush_done, __ATOMIC_ACQUIRE)) > 0;
             i++)
            nanosleep(&ms, NULL);
        return;
    }
    fc_spin_lock(&life_lock);
    if (!finalized) {
        fc_hwflops_poll(1);
        fc_activity_flush(final);
        if (final) {
            fc_hwflops_stop();
            fc_cupti_hot_set(FC_CUPTI_KERNELS, 0);
            fc_cu.Unsubscribe(fc_cupti_subscriber());
            fc_graphs_set_visible(1, "");
            fc_cu.Finalize();
            finalized = 1;
        }
    }
    fc_spin_unlock(&life_lock);
}

void fc_cupti_lifecycle_init(void)
{
    fc_ring_add_tick_unlocked(tick_unlocked);
    fc_ring_add_tick(fc_cupti_tick);
}

void fc_cupti_lifecycle_reset(void)
{
    life_lock.v = 0;
    finalized = 0;
    flush_req = flush_done = 0;
}
