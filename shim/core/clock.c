/* SPDX-License-Identifier: Apache-2.0 */
/* clock.c - calibration of fc_ticks() against CLOCK_MONOTONIC.
 *
 * The cycle counter costs a few ns where clock_gettime costs ~20, and every
 * GEMM takes a timestamp. It is only used when the CPU says it runs at a
 * constant rate (invariant TSC); the ratio is taken over the longest
 * baseline available, so iteration times are as good as CLOCK_MONOTONIC.
 * Calibrated at the process's first GEMM (ring/ring.c), never at start-up:
 * a process that runs none does not pay for the 0.2 ms spin. */
#include "clock.h"

#include <time.h>

#include "process.h"
#if defined(__x86_64__)
#include <cpuid.h>
#endif

int fc_clock_fast;

uint64_t fc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tick0, ns0;
static double ns_per_tick = 1.0;
static int frozen; /* fc_clock_freeze: the ratio stays */

/* One (CLOCK_MONOTONIC, counter) pair read as close together as this
 * thread can: the counter read on both sides of clock_gettime, the
 * narrowest of four tries kept, the counter taken at its middle. A pair
 * read across a preemption would otherwise shift the ratio by the length
 * of the preemption over the baseline (1e-4 for 50 us over 0.5 s). */
static void read_pair(uint64_t *ns, uint64_t *ticks)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 4; i++) {
        uint64_t a = fc_ticks(), n = fc_now_ns(), b = fc_ticks();
        if (b >= a && b - a < best) {
            best = b - a;
            *ns = n;
            *ticks = a + (b - a) / 2;
        }
    }
    if (best == UINT64_MAX) { /* the counter went backwards every time */
        *ns = fc_now_ns();
        *ticks = fc_ticks();
    }
}

static int invariant_counter(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1u; /* CPUID.80000007H:EDX[8]: invariant TSC */
#elif defined(__aarch64__)
    return 1; /* the generic timer runs at a fixed frequency by architecture */
#else
    return 0;
#endif
}

void fc_clock_init(void)
{
    fc_clock_fast = invariant_counter();
    if (!fc_clock_fast) {
        ns0 = fc_now_ns();
        tick0 = fc_ticks();
        return;
    }
    read_pair(&ns0, &tick0);
#if defined(__aarch64__)
    uint64_t freq;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(freq));
    if (freq > 0) {
        ns_per_tick = 1e9 / (double)freq;
        return;
    }
#endif
    /* A first ratio from a 200 us spin, good to a fraction of a percent;
     * fc_clock_recalibrate replaces it once the run is longer. */
    uint64_t n1, t1;
    do
        read_pair(&n1, &t1);
    while (n1 - ns0 < 200000);
    if (t1 > tick0)
        ns_per_tick = (double)(n1 - ns0) / (double)(t1 - tick0);
    else
        fc_clock_fast = 0;
}

void fc_clock_recalibrate(void)
{
    if (!fc_clock_fast || __atomic_load_n(&frozen, __ATOMIC_RELAXED))
        return;
    uint64_t n, t;
    read_pair(&n, &t);
    if (n - ns0 >= 1000000ull && t > tick0) /* longer than the first spin (pairs are tight) */
        ns_per_tick = (double)(n - ns0) / (double)(t - tick0);
}

void fc_clock_freeze(void)
{
    __atomic_store_n(&frozen, 1, __ATOMIC_RELAXED);
}

double fc_ticks_seconds(uint64_t dticks)
{
    return (double)dticks * ns_per_tick / 1e9;
}

double fc_ticks_per_second(void)
{
    return 1e9 / ns_per_tick;
}

double fc_ticks_since_start(uint64_t t)
{
    /* tick0 was read at ns0 (the first GEMM); the process started before
     * (a fork child: after, and its start counts) */
    double since = t >= tick0 ? fc_ticks_seconds(t - tick0) : -fc_ticks_seconds(tick0 - t);
    return since + ((double)ns0 - (double)fc_process_start_ns()) / 1e9;
}
