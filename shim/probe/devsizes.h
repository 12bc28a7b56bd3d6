/* SPDX-License-Identifier: Apache-2.0 */
/* devsizes.h - the opt-in read of a grouped GEMM's size arrays from device
 * memory (FLOPCOUNT_READ_DEVICE_SIZES=1, flopcount run --read-device-sizes;
 * docs/moe.md).
 *
 * A grouped call whose group sizes live in device memory is never counted
 * as a GEMM by default: it is listed uncounted (count/uncounted.h). With the
 * option on, the hook asks for one small asynchronous copy of the arrays
 * into pinned memory on the call's own stream, followed by an event; it
 * never waits. The drainer thread (and the report) later finds the event
 * done and works out the call's exact FLOPs, added to its uncounted entry
 * as "read_from_device": the FLOPs of the calls whose sizes were read, and
 * the spread of the group sizes (the experts' load). A call whose
 * placeholder record took its place in the caller's ring
 * (ring/devread.h) is also counted, group by group, into the totals and
 * into the iteration and phase the call was made in: the drain holds the
 * stream at the placeholder until the read lands (bounded; see there). A
 * call on a capturing stream is not read (that would add a copy to the
 * user's graph): it is counted as such and keeps the default. */
#ifndef FC_DEVSIZES_H
#define FC_DEVSIZES_H

#include <stdint.h>

/* One grouped call's arrays: per group m (rows of D), n (columns of D) and
 * k, each int32 (width 0) or int64 (width 1), in device memory; or, with
 * interleaved set, one array at m of groups x {int32 m, n, k} (CUTLASS 3's
 * GroupProblemShape problem_shapes: cute::Shape<int, int, int>, 12 bytes a
 * group), n and k unused. */
typedef struct fc_devsizes_req {
    void *stream; /* the CUstream the call was queued on */
    const void *m, *n, *k;
    uint8_t m_width, n_width, k_width;
    uint8_t interleaved;
    int32_t groups;
    uint32_t unc_id; /* its uncounted entry (count/uncounted.h) */
    /* offs_axis 1, 2 or 3: m is instead PyTorch's offs (groups int32
     * cumulative ends) splitting m, n or k; the other two are fixed[] */
    uint8_t offs_axis;
    int32_t fixed[3];
} fc_devsizes_req;

/* What became of a request (also counted per entry). */
enum fc_devsizes_outcome {
    FC_DEVSIZES_QUEUED = 0,
    FC_DEVSIZES_CAPTURING, /* the stream is capturing: not read */
    FC_DEVSIZES_BUSY,      /* every slot in flight: not read */
    FC_DEVSIZES_TOO_MANY,  /* more groups than a slot holds */
    FC_DEVSIZES_NO_DRIVER, /* no driver, context or pinned memory */
    FC_DEVSIZES_COPY_FAILED,
    FC_DEVSIZES_NO_ARRAYS, /* the library did not give the arrays' addresses */
    FC_DEVSIZES_OUTCOMES
};

/* The most groups one call may have to be read. */
#define FC_DEVSIZES_MAX_GROUPS 1024

/* Queues the copies and the event on the caller's thread (never waits);
 * returns the outcome. Keeps errno. slot not NULL: the slot is held for a
 * placeholder (*slot its index when QUEUED), which the caller then either
 * queues or gives up (fc_devsizes_give_up); NULL: the poll reads it. */
int fc_devsizes_submit(const fc_devsizes_req *r, int *slot);

/* A call of entry unc_id not read, for outcome (a call recorded against a
 * stream capture: FC_DEVSIZES_CAPTURING, without asking the stream). */
void fc_devsizes_not_read(uint32_t unc_id, int outcome);

/* One group of a resolved call: its rows, columns and inner size. */
typedef void (*fc_devsizes_group_fn)(void *ctx, int64_t m, int64_t n, int64_t k);
/* The drain at a placeholder: 1 when held slot s landed (fn had every
 * group with a valid size, the entry's stats the call, counted), 0 when
 * not yet (ask again later), -1 when it failed or is not a held slot (no
 * group: the call stays uncounted). wait_ms > 0: polls cuEventQuery that
 * long at most (the final report), never a synchronisation. */
int fc_devsizes_resolve(int slot, int wait_ms, fc_devsizes_group_fn fn, void *ctx);
/* The drain stops holding slot s (or its placeholder could not be
 * queued): when it lands the poll reads it into the stats, not counted. */
void fc_devsizes_give_up(int slot);

/* Reads every copy whose event has landed (cuEventQuery, never a wait)
 * into its entry. The drainer's unlocked tick, and the report before it
 * writes; one caller at a time (others return at once). */
void fc_devsizes_poll(void);

/* What the reads gave an uncounted entry; 0 when nothing was asked for it. */
typedef struct fc_devsizes_view {
    uint64_t read_calls;     /* calls whose sizes were read */
    uint64_t counted_calls;  /* ... and counted at their place (totals, iterations) */
    uint64_t late_calls;     /* ... read after the drain gave up their place: not counted */
    uint64_t pending_calls;  /* copies not landed when asked */
    uint64_t not_read[FC_DEVSIZES_OUTCOMES]; /* by outcome (QUEUED unused) */
    uint64_t flops_lo, flops_hi; /* exact FLOPs of the read calls (128-bit) */
    uint64_t groups;         /* groups seen in the read calls */
    int64_t rows_min, rows_max; /* group rows (m) over every read group */
    double imbalance_max;    /* max over calls of (largest group's m*n*k / mean) */
    double imbalance_sum;    /* summed over read calls, for the mean */
} fc_devsizes_view;
int fc_devsizes_get(uint32_t unc_id, fc_devsizes_view *out);

/* A grouped call of entry unc_id whose FLOPs the host's values give
 * (PyTorch's setup kernel, launch/grouped_fill.h): exactly (exact 1) or
 * at most; why (the first kept) says from what. Never added to totals. */
void fc_devsizes_note_host(uint32_t unc_id, uint64_t flops, int exact, const char *why);
typedef struct fc_devsizes_host_view {
    uint64_t bound_calls, exact_calls; /* calls with a bound / an exact host count */
    uint64_t flops_lo, flops_hi;       /* their FLOPs summed (a bound if bound_calls > 0) */
    const char *why;                   /* the first call's reason */
} fc_devsizes_host_view;
/* 0 when no call of unc_id had host values. */
int fc_devsizes_host_get(uint32_t unc_id, fc_devsizes_host_view *out);

/* The name of an outcome for the report ("capturing", "busy", ...). */
const char *fc_devsizes_outcome_name(int outcome);

void fc_devsizes_reset(void);

#endif
