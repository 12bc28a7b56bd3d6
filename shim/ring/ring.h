/* SPDX-License-Identifier: Apache-2.0 */
/* ring.h - the ring layer's functions beside the inline hot path
 * (hotpath.h): lifecycle, markers, the slow path's extras, and draining
 * the rings into the counters and the detector for readers. */
#ifndef FC_RING_H
#define FC_RING_H

#include <stdint.h>

#include "attention.h"
#include "core/gemm.h"

/* The constructor's part: no memory, clock or thread until the process's
 * first GEMM or marker. */
void fc_ring_init(void);
/* 1 once the first GEMM or marker set up the rings, counters and detector. */
int fc_ring_active(void);
/* pthread_atfork prepare handler, and the child's reset (the child's only
 * thread starts with empty rings, counters and detector). */
void fc_ring_before_fork(void);
void fc_ring_after_fork_child(void);

/* One fused-attention call (a decoded kernel launch, an executed cuDNN
 * plan): counted at once in the attention table (count/attn_table.h) -
 * a failed one (ok 0) with the FLOPs it would have run - and, when it
 * succeeded, queued for the iteration detector as an FC_IREC_ATTN record.
 * stream: the cudaStream_t it was queued on (GPU timing), or NULL. Keeps
 * errno; no lock and no allocation (the table is mapped at the first
 * call). Nothing is counted when counting is disabled or a is not valid
 * (fc_attn_valid): then it returns -1. */
int fc_attn_record(const fc_attn *a, const void *stream, int ok);

/* A grouped call whose group sizes were queued to be read from the device
 * (probe/devsizes.h, held slot `slot`): its placeholder in the calling
 * thread's ring, resolved into one counted record per group when the
 * drain reaches it (devread.h). g gives the groups' api (a *_GROUPED_READ
 * one), types, transposes and operands. 0, or -1 when it could not be queued (then the caller gives
 * the slot up). Keeps errno. */
int fc_ring_put_devread(const fc_gemm *g, int slot, int32_t groups);

/* Records a call that could not be forwarded (no real function found). */
void fc_record_unresolved(int api);
/* A marker (enum fc_irec_kind) at this point of the calling thread's
 * stream: flopcount_step(), the evaluation brackets, NVTX step ranges.
 * Ignored before fc_ring_init and when counting is disabled. */
void fc_ring_mark(int kind);
/* The same with a phase (enum fc_phase): FC_IREC_PHASE, FC_IREC_NVTX_PHASE. */
void fc_ring_mark_phase(int kind, int phase);

/* Drains the rings (into the counters and the detector) so that readers of
 * the counters see every finished call; waits briefly for a drain in
 * progress. 0, or -1 when the lock could not be had. Nothing to do on a
 * thread that is draining already. */
int fc_ring_sync(void);
/* Drains all rings and keeps the drain lock (waiting briefly), so the
 * detector's state can be read; final also ends the detector's stream
 * (labels the last segments) once, after which the drainer thread exits.
 * 0, or -1 when the lock could not be had (then no fc_ring_release). */
int fc_ring_collect(int final);
void fc_ring_release(void);
/* Records lost to the detector because a thread's ring stayed full (or
 * more than FC_NRINGS threads issued GEMMs); the counters have them all. */
uint64_t fc_ring_dropped(void);

/* Adds a function the drainer thread calls after each of its drains,
 * holding the drain lock (so it may read the detector): the live line, and
 * whatever else must follow the run without costing the GEMM path. At most
 * 8, added by the top layer at start-up (adding one twice is a no-op). 0,
 * or -1 when all places are taken. */
int fc_ring_add_tick(void (*fn)(void));
/* Adds a function the drainer thread calls just after releasing the drain
 * lock, after each of its drains: work that may wait on other libraries (a
 * CUPTI flush) without holding up readers of the detector. At most 8, as
 * above. */
int fc_ring_add_tick_unlocked(void (*fn)(void));
/* Wakes the drainer thread now if it sleeps (it drains and runs its ticks
 * at once, instead of at the end of its sleep): for a signal handler that
 * wants a tick's work done (the CUPTI flush). Async-signal-safe. */
void fc_ring_wake(void);
/* A function called once, right after the process's first GEMM or marker
 * set everything up (on that thread, holding nothing): the snapshot
 * thread's start. One; set by the top layer at start-up. */
void fc_ring_set_first_use(void (*fn)(void));

#endif
