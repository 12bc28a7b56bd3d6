/* SPDX-License-Identifier: Apache-2.0 */
/* flopcount.h - the one public header of flopcount.
 *
 * A program never needs this header: LD_PRELOAD=libflopcount.so counts GEMMs
 * with no code change. It is for programs that want to say where a training
 * iteration starts (sharper than automatic detection) or read the counters.
 * Linked with -lflopcount (pkg-config --libs flopcount) the program loads
 * the library, which then counts with or without LD_PRELOAD. A program that
 * must also run where the library is absent declares the functions it uses
 * weak itself (#pragma weak flopcount_step) and calls them only when their
 * address is not NULL, or looks them up with dlsym(RTLD_DEFAULT, ...). A
 * marker costs a load and a branch. */
#ifndef FLOPCOUNT_H
#define FLOPCOUNT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLOPCOUNT_VERSION_MAJOR 0
#define FLOPCOUNT_VERSION_MINOR 1
#define FLOPCOUNT_VERSION_PATCH 0
#define FLOPCOUNT_VERSION_STRING "0.1.0"

/* Version of the struct below; it only grows, new fields at the end.
 * 1: totals and iterations. 2: flags, rank, iteration times and FLOPs,
 * recompute, HFU/MFU and the peak used (what the report's summary says).
 * 3: HFU at the dtype mix, the FLOP share and peak of each dtype. */
#define FLOPCOUNT_SNAPSHOT_VERSION 3

/* Bits of flopcount_snapshot.flags (version 2). */
#define FLOPCOUNT_SNAPSHOT_COUNTING 0x1u    /* the library counts (no FLOPCOUNT_DISABLE) */
#define FLOPCOUNT_SNAPSHOT_DETECTOR 0x2u    /* iteration figures read (else the detector was busy: totals only) */
#define FLOPCOUNT_SNAPSHOT_LAST_TIME 0x4u   /* last_iteration_seconds is set */
#define FLOPCOUNT_SNAPSHOT_MEDIANS 0x8u     /* steady medians are set (steady_iterations > 0) */
#define FLOPCOUNT_SNAPSHOT_UTILIZATION 0x10u /* hfu, mfu and the peak are set */
#define FLOPCOUNT_SNAPSHOT_SPLIT_GUESSED 0x20u /* the recompute figures and mfu rest on a
                                                 * forward/backward/recompute split that is
                                                 * a guess in some iteration, one that can move
                                                 * recompute (docs/iterations.md) */
#define FLOPCOUNT_SNAPSHOT_MIX 0x40u /* hfu_mix is set (version 3) */

/* Dtypes the mix lists at most (version 3); more are counted in mix_count. */
#define FLOPCOUNT_SNAPSHOT_MIX_MAX 8

/* One dtype of the training FLOPs (flopcount_snapshot.mix, version 3). */
typedef struct flopcount_snapshot_dtype {
    char dtype[16];    /* "bf16", "fp8_e4m3", ... (as in the report) */
    double share;      /* of the training GEMM FLOPs so far */
    double peak_flops; /* dense FLOP/s of one device for it; 0: none published (or no
                        * utilization yet) */
} flopcount_snapshot_dtype;

/* How iterations are found (flopcount_snapshot.detected_by, version 2). */
enum flopcount_detected_by {
    FLOPCOUNT_DETECTED_NONE = 0,   /* no iteration yet */
    FLOPCOUNT_DETECTED_AUTO = 1,   /* from the GEMM stream */
    FLOPCOUNT_DETECTED_MARKER = 2, /* flopcount_step() */
    FLOPCOUNT_DETECTED_NVTX = 3,   /* NVTX step ranges */
    FLOPCOUNT_DETECTED_OPTIMIZER = 4 /* optimizer kernels launched (one step each run of them) */
};

/* A copy of the process-wide counters at one moment. FLOP counts are split
 * into two 64-bit halves so the struct stays plain C on every compiler:
 * total = hi * 2^64 + lo.
 *
 * A caller sets size to sizeof(flopcount_snapshot) as its header has it;
 * the library fills the fields that fit in that size (an older caller gets
 * the fields it knows) and sets version to its own version, so a newer
 * caller of an older library sees which fields were filled. */
typedef struct flopcount_snapshot {
    uint32_t size;    /* sizeof(struct flopcount_snapshot) as the caller knows it */
    uint32_t version; /* FLOPCOUNT_SNAPSHOT_VERSION of the library that filled it */
    uint64_t gemm_calls;
    uint64_t gemm_flops_lo;
    uint64_t gemm_flops_hi;
    uint64_t failed_calls;
    uint64_t invalid_calls;
    uint64_t iterations;  /* training iterations completed so far */
    /* ---- version 2 ---- */
    uint32_t flags;       /* FLOPCOUNT_SNAPSHOT_* */
    uint32_t detected_by; /* enum flopcount_detected_by */
    int64_t rank, local_rank, world_size; /* from the launcher; -1 when none said */
    uint64_t steady_iterations;       /* iterations the medians are over (all but the first) */
    double last_iteration_seconds;    /* the last finished iteration, evaluation left out */
    double median_iteration_seconds;  /* median over the steady iterations */
    uint64_t iteration_flops_lo;      /* median counted GEMM FLOPs per steady iteration */
    uint64_t iteration_flops_hi;
    uint64_t iteration_recompute_flops_lo; /* median recompute FLOPs per steady iteration */
    uint64_t iteration_recompute_flops_hi;
    uint64_t recompute_flops_lo;      /* recompute FLOPs over all finished iterations */
    uint64_t recompute_flops_hi;
    double recompute_fraction;        /* of all FLOPs in finished iterations */
    double hfu;                       /* iteration FLOPs / (peak x median seconds) */
    double mfu;                       /* the same less recompute (measured, no model formula) */
    double peak_flops;                /* FLOP/s of one device, the figure HFU/MFU use */
    char peak_source[24];             /* "device", "cpu-estimate", "FLOPCOUNT_PEAK_TFLOPS" */
    char peak_dtype[16];              /* the dtype of the peak figure, e.g. "bf16" */
    uint64_t eval_passes;             /* evaluation passes (not in the iterations) */
    /* ---- version 3 ---- */
    double hfu_mix;                   /* HFU at the dtype mix: sum over dtypes of the iteration
                                       * FLOPs' share / (its peak x median seconds); equals hfu
                                       * when one dtype ran (FLOPCOUNT_SNAPSHOT_MIX) */
    uint32_t mix_count;               /* dtypes the training FLOPs ran in */
    uint32_t mix_reserved;            /* 0 */
    char mix_reason[128];             /* why hfu_mix is not set, when utilization is ("no
                                       * published fp4_e2m1 peak for H100-SXM"); "" else */
    flopcount_snapshot_dtype mix[FLOPCOUNT_SNAPSHOT_MIX_MAX]; /* most FLOPs first */
} flopcount_snapshot;

/* The size of a version-1 struct: the least flopcount_snapshot_get accepts. */
#define FLOPCOUNT_SNAPSHOT_V1_SIZE 56u
/* The size of a version-2 struct (where version 3 begins). */
#define FLOPCOUNT_SNAPSHOT_V2_SIZE 240u

/* Marks the end of one training iteration (call it once per optimizer step,
 * after optimizer.step()). Once called, iterations are counted from markers
 * alone and automatic detection stands aside. */
void flopcount_step(void);

/* Optional phase markers around an evaluation pass: GEMMs in between are
 * reported as evaluation and never start or split a training iteration. */
void flopcount_eval_begin(void);
void flopcount_eval_end(void);

/* Optional phase markers: they make the forward / backward / recompute
 * split exact instead of inferred (docs/iterations.md, "Phase markers").
 * flopcount_forward_begin() before each forward pass and
 * flopcount_backward_begin() before each backward (loss.backward()): GEMMs
 * from there on are forward, or backward, until the next of the two.
 * Inside a backward, the detector still tells recompute from backward;
 * flopcount_recompute_begin()/flopcount_recompute_end() around a
 * recomputation (a checkpointed function run again in the backward) say
 * it outright. flopcount_step() clears the phase. */
void flopcount_forward_begin(void);
void flopcount_backward_begin(void);
void flopcount_recompute_begin(void);
void flopcount_recompute_end(void);

/* Fills *out (out->size must be set by the caller) with the fields that fit
 * in out->size. Drains what is queued first and takes the figures the way
 * the report does (same steady iterations, medians and peak). Returns 0 on
 * success, -1 when out is NULL or out->size is below
 * FLOPCOUNT_SNAPSHOT_V1_SIZE. Not for a signal handler. */
int flopcount_snapshot_get(flopcount_snapshot *out);

/* Writes the report now (to FLOPCOUNT_OUTPUT when set), without waiting for
 * exit. Returns 0 on success, -1 on failure (a flopcount: line says why). */
int flopcount_write_report(void);

/* "0.1.0" */
const char *flopcount_version(void);

#ifdef __cplusplus
}
#endif
#endif /* FLOPCOUNT_H */
