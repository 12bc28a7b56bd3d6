/* SPDX-License-Identifier: Apache-2.0 */
/* ring_internal.h - what ring.c (the rings, draining, the slow path) and
 * drainer.c (the drainer thread) share inside the ring layer. */
#ifndef FC_RING_INTERNAL_H
#define FC_RING_INTERNAL_H

#include <stdint.h>

#include "hotpath.h"

#define FC_DRAIN_AT_INLINE (FC_RING_CAP / 4)        /* no drainer thread: callers drain */
#define FC_WAKE_AT (FC_RING_CAP / 2)                /* a caller rings a sleeping drainer */
#define FC_DRAIN_AT_FALLBACK (FC_RING_CAP / 4 * 3)  /* the drainer is late: help it */
#define FC_TICKS_NEVER (UINT64_MAX / 2)             /* a tick difference never reached */

/* ring.c */
/* The drain lock: a try-lock (one exchange), so no thread ever waits on a
 * holder that fork or a signal left behind. */
int fc_ring_lock_try(void);
void fc_ring_lock_release(void);
/* Feeds every published record to the counters and the detector, oldest
 * first across rings. Drain lock held. */
void fc_ring_drain_locked(void);
/* The same, budget records at most; 1 when some were left. */
int fc_ring_drain_some(uint64_t budget);
/* Threads waiting for the drain lock to read (the drainer gives way). */
int fc_ring_readers_waiting(void);
/* 1 when some ring has published records not drained yet. */
int fc_ring_pending(void);
/* Who drains: the drainer thread, woken by a caller whose ring is half
 * full and helped by callers only when it is late (help_late), or the
 * callers themselves (callers_drain: no thread). */
void fc_ring_callers_help_late(void);
void fc_ring_callers_drain(void);
/* 1 once the final report ended the detector's stream. */
int fc_ring_finished(void);
/* Ticks between two drains at most while records are few (0.1 s). */
uint64_t fc_ring_drain_every_ticks(void);
/* Runs the tick functions of one kind: with_lock 1 (fc_ring_add_tick)
 * while holding the drain lock, 0 (fc_ring_add_tick_unlocked) just after
 * releasing it. */
void fc_ring_run_tick(int with_lock);

/* drainer.c */
/* Starts the drainer thread once per process (and once in a fork child);
 * on failure the callers drain. */
void fc_drainer_start(void);
/* Wakes the drainer if it sleeps (a caller whose ring is half full). */
void fc_drainer_wake(void);
/* 1 while a drainer thread may be running or starting. */
int fc_drainer_running(void);
/* Fork: the prepare handler's wait for a thread still being created, and
 * the child's reset (no thread survives fork). */
void fc_drainer_before_fork(void);
void fc_drainer_reset(void);
void fc_drainer_after_fork_child(void);

#endif
