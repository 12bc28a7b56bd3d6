/* SPDX-License-Identifier: Apache-2.0 */
/* report.h - what 'flopcount report' works out from one report (a rank's or
 * a merged one) and, given model flags, the analytic formula beside it.
 * Internal to the flopcount command (report.c, report_gap.c,
 * tools/render/text/text_report.c, tools/render/json/json_report.c). */
#ifndef FC_TOOLS_REPORT_H
#define FC_TOOLS_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "formula.h"
#include "infer_grouped.h"
#include "jsonw.h"
#include "model_flags.h"
#include "attention_view.h"
#include "report_gpu.h"
#include "report_read.h"
#include "u128.h"
#include "utilization.h"

/* Terms by which the analytic model and cuBLAS's view of a run commonly
 * differ; each is a FLOP count per iteration (all GPUs). */
enum fc_gap_term {
    FC_GAP_ATTENTION_CORE = 0, /* QK^T and attention*V, fwd + bwd: flash attention hides them */
    FC_GAP_FIRST_DGRAD,        /* the first layer's input-projection data gradient */
    FC_GAP_LOGITS,             /* the vocabulary projection, fwd + bwd */
    FC_GAP_ATTENTION_BAND,     /* the formula's core in its causal convention against the
                                  exact band counted fused-attention calls ran */
    FC_GAP_COUNT
};

typedef struct fc_gap {
    int sign;        /* -1: counted below the formula, 0: equal, 1: above */
    fc_u128 abs;     /* |formula model - counted model| */
    double fraction; /* of the formula's model FLOPs, signed */
    fc_u128 term[FC_GAP_COUNT];
    unsigned explained;        /* bit per term: the terms whose sum is nearest the gap */
    unsigned offered;          /* bit per term that can explain it (the attention core is
                                  not missing when calls or GEMMs counted it) */
    int band_above;            /* FC_GAP_ATTENTION_BAND: the exact band exceeds the formula's
                                  term (its 'half' convention), so it explains a count above */
    fc_u128 residual;          /* |gap - that sum| */
    double recompute_of_model; /* measured recompute / formula model FLOPs */
    double formula_recompute_of_model; /* (formula hardware - model) / model */
} fc_gap;

typedef struct fc_report_view {
    const char *path;
    fc_report rep;
    /* measured, per iteration */
    int has_iterations; /* steady iterations with FLOPs found */
    size_t n_steady;
    fc_u128 file_flops, file_recompute; /* what the file counted (a rank, or the merged job) */
    long scale;                       /* ranks the job figure multiplies the file's by (1: none) */
    fc_u128 job_flops, job_recompute; /* the whole job */
    fc_u128 file_xs, job_xs;          /* median attention beyond the model convention (the file's,
                                         the job's): of the counted FLOPs, left out of MFU */
    double seconds;                   /* median iteration time; NaN without */
    int64_t gpus;
    int gpus_from; /* 0 default 1, 1 the report's world size, 2 --gpus */
    double peak;   /* per GPU, FLOP/s; 0 when unknown */
    char peak_desc[160];
    double hfu, mfu;      /* measured; NaN when not computable */
    fc_mix mix;           /* HFU at the dtype mix (mix.ok), its terms, or why not */
    fc_u128 file_forward; /* median forward FLOPs of the steady iterations (the file's) */
    /* the model read off the forward GEMMs (report_infer.c) */
    int has_inferred; /* the report has a forward profile */
    fc_inferred inf;
    fc_moe_grouped moe; /* the experts of the profile's grouped calls (moe.found) */
    const char *model_from;   /* "the stream", "flags", "the stream and flags" */
    char formula_reason[300]; /* no formula: why */
    size_t n_ambiguous;       /* steady iterations whose recompute (so MFU) is a guess */
    int recompute_guessed;    /* the median recompute is of guessed iterations (none sure) */
    size_t n_ambiguous_split; /* steady iterations whose split is a guess at all */
    /* formula */
    int has_model;
    fc_model model;
    fc_flops f;
    double formula_mfu, formula_hfu;
    fc_gap gap;
    /* the CUPTI sections (graphs, kernels, hardware FLOPs) */
    fc_report_gpu gpu;
    /* counted fused attention against the formula (attention_view.c) */
    fc_report_attn_cmp attn_cmp;
} fc_report_view;

/* The gap between the counted and the formula's FLOPs (report_gap.c). */
void fc_report_gap(fc_report_view *v);
const char *fc_gap_term_name(int term);
const char *fc_gap_term_why(int term);

/* Counted FLOPs less recompute and the attention beyond the model
 * convention, per iteration, for the job (report_gap.c). */
fc_u128 fc_report_counted_model(const fc_report_view *v);

/* The model from the report's forward profile with the flags laid over it
 * (report_infer.c): sets has_inferred, inf, and when complete has_model,
 * model, model_from. -1 with a reason on a bad --config. */
int fc_report_infer(fc_report_view *v, const fc_model_opts *mo, char *err, size_t n);
/* The model as the command's flags ("--layers 2 --hidden 64 ..."). */
void fc_report_infer_flags(const fc_inferred *in, char *out, size_t size);

/* Output: tools/render/ (render.h; its own phrases in render_forms.h). */

#endif
