/* SPDX-License-Identifier: Apache-2.0 */
/* steps.h - labelled segments and markers in, iterations out: the three
 * ways of counting iterations (automatic, flopcount_step markers, NVTX
 * ranges) kept side by side, evaluation passes, recompute and time. No
 * output here: the live line (report/live.c) reads finished iterations.
 * Single consumer (whoever holds the drain lock), like segment.h. */
#ifndef FC_STEPS_H
#define FC_STEPS_H

#include <stdint.h>

#include "u128.h"
#include "irec.h"

#define FC_PHASES_MARKERS 0x1u /* flopcount_forward_begin & co */
#define FC_PHASES_NVTX 0x2u    /* NVTX phase ranges */

/* OPTIM: an iteration ends with each optimizer step the launch layer saw
 * (a run of FC_IREC_OPTIM records: optimizer kernels launched). */
enum fc_steps_mode { FC_MODE_NONE = 0, FC_MODE_AUTO, FC_MODE_MARKER, FC_MODE_NVTX, FC_MODE_OPTIM };
#define FC_MODE_LAST FC_MODE_OPTIM

/* One training iteration. */
typedef struct fc_iteration {
    uint64_t t0, t1;   /* ticks: start, end */
    uint64_t excluded; /* ticks of evaluation inside [t0, t1) */
    uint32_t micro;    /* micro-batches: training forwards that began in it (automatic: 1) */
    fc_u128 fwd, bwd, rec;
    fc_u128 xs;        /* of bwd: attention FLOPs beyond the model convention (irec.xs) */
    uint64_t calls;
    int open_end;      /* t1 is the last call, not the next iteration's start */
    unsigned unsure;   /* FC_UNSURE_* of the calls in it: its split is a guess */
    uint64_t evals;    /* evaluation passes begun before it ended, in stream order */
    int fwd_only;      /* a marked step (flopcount_step, NVTX range) whose GEMMs were all
                        * forward: an inference, evaluation or benchmark step; fwd holds them */
} fc_iteration;

/* Seconds of an iteration: its span less the evaluation inside it. */
double fc_iteration_seconds(const fc_iteration *it);

/* Totals of one mode. */
typedef struct fc_steps_view {
    int mode;
    uint64_t count;              /* iterations finished */
    uint64_t stored;             /* of which kept in the list */
    const fc_iteration *list;    /* the first `stored` iterations */
    fc_u128 fwd, bwd, rec;       /* over all finished iterations */
    fc_u128 xs;                  /* of bwd: attention beyond the model convention */
    uint64_t unsure;             /* finished iterations whose split is unsure ... */
    uint64_t unsure_mfu;         /* ... of which some doubt can move recompute (FC_UNSURE_MFU) */
    unsigned unsure_bits;        /* FC_UNSURE_* over them */
    int lost;                    /* records were lost to the detector */
    uint64_t train_calls;        /* calls in iterations (all modes alike) ... */
    uint64_t declared_calls;     /* ... of which the program declared the phase of */
    unsigned phase_sources;      /* FC_PHASES_*: how the program declared phases */
    uint64_t optim_steps;        /* optimizer steps seen (runs of FC_IREC_OPTIM records) */
    uint64_t fwd_only;           /* finished iterations that are forward-only (fc_iteration) */
} fc_steps_view;

typedef struct fc_eval_view {
    uint64_t count;
    uint64_t unsure;  /* passes found in a segment whose split is unsure */
    fc_u128 flops;
    uint64_t ticks;   /* time spent in evaluation passes */
} fc_eval_view;

/* Maps the lists of iterations (once); 0, or -1 when they could not be. */
int fc_steps_init(void);
/* Back to no iterations, the lists' pages given back. */
void fc_steps_reset(void);
/* From segment.c, in stream order. */
/* unsure: FC_UNSURE_* bits of the segment (its calls' iterations get them). */
void fc_steps_segment_begin(int kind, uint64_t t0, unsigned unsure);
void fc_steps_record(const fc_irec *r, int cls);
/* group_final: the iteration cannot continue in the next segment; at_end:
 * the stream ended here, so t1 is the last call, not a next start. */
void fc_steps_segment_end(uint64_t t1, int group_final, int at_end);
/* End of stream: close what is open (the last automatic iteration). */
void fc_steps_finish(void);

/* The mode iterations come from: markers once flopcount_step() was seen,
 * else NVTX step ranges once one was seen, else optimizer steps once the
 * launch layer saw an optimizer kernel, else automatic. */
int fc_steps_mode(void);
void fc_steps_get(int mode, fc_steps_view *out);
/* Evaluation passes, less those that made up the forward-only marked
 * steps of the current mode. */
void fc_steps_eval(fc_eval_view *out);
/* Iteration index (1-based) of mode: kept when it is among the first
 * stored ones or the last 64 finished. 0, or -1 when it is not kept. */
int fc_steps_iteration(int mode, uint64_t index, fc_iteration *out);
/* FLOPs in no iteration and no evaluation pass (a trailing forward, work
 * before the first marker ...), per mode. */
fc_u128 fc_steps_other(int mode);
/* FLOPs per dtype over the iterations of the current mode, for picking the
 * dominant dtype of the live line. */
int fc_steps_dominant_dtype(void);
/* Those FLOPs per dtype (FC_DT_COUNT entries into out), for the dtype mix:
 * every training call (evaluation left out) up to the end of the last
 * iteration the current mode finished, so a call of an iteration still
 * running never shifts the shares of finished ones. */
void fc_steps_by_dtype(fc_u128 *out);

#endif
