/* SPDX-License-Identifier: Apache-2.0 */
/* clock.h - a cheap timestamp for every recorded GEMM: the invariant TSC on
 * x86-64, the virtual counter on AArch64, CLOCK_MONOTONIC elsewhere, turned
 * into seconds with a ratio calibrated against CLOCK_MONOTONIC. */
#ifndef FC_CLOCK_H
#define FC_CLOCK_H

#include <stdint.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "base.h"

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t fc_now_ns(void);

/* 1 when fc_ticks() reads the cycle counter (set once by fc_clock_init). */
extern int fc_clock_fast;

static inline uint64_t fc_ticks(void)
{
#if defined(__x86_64__)
    if (FC_LIKELY(fc_clock_fast))
        return __rdtsc();
#elif defined(__aarch64__)
    if (FC_LIKELY(fc_clock_fast)) {
        uint64_t v;
        __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
        return v;
    }
#endif
    return fc_now_ns();
}

/* Picks the counter and takes the first calibration point (0.2 ms). */
void fc_clock_init(void);
/* Refines the ratio from the first point to now (call now and then: the
 * longer the baseline, the better the ratio). Cheap; no allocation. */
void fc_clock_recalibrate(void);
/* Keeps the ratio as it is from now on (at exit: the Prometheus file, the
 * JSON report and the summary, written after drains of their own, then
 * turn the same ticks into the same seconds, so one HFU in all three). */
void fc_clock_freeze(void);
/* Ticks as seconds (a difference of two fc_ticks values). */
double fc_ticks_seconds(uint64_t dticks);
/* Ticks per second, as calibrated so far. */
double fc_ticks_per_second(void);
/* Seconds from the start of the process (its constructor or fork) to
 * tick value t. */
double fc_ticks_since_start(uint64_t t);

#endif
