/* SPDX-License-Identifier: Apache-2.0 */
/* infer_grouped.h - a mixture of experts read off the grouped GEMM calls
 * of one forward (cublasGemmGroupedBatchedEx, cublas?gemmGroupedBatched:
 * one profile entry per group, flagged `grouped`): the number of experts
 * (groups per call), the expert FFN width, top-k (routed rows / tokens,
 * the tokens from the dense GEMMs on the experts' hidden width), the
 * shared experts (dense MLPs beside the grouped calls) and the load
 * imbalance per MoE layer (largest group's rows over the mean group's).
 * Each value exact, a bound or unknown, with the reason. Nothing
 * allocates; not reentrant (a static scratch of the calls: the shim calls
 * it under the drain lock). Method and limits: docs/moe.md, "The experts
 * read off the grouped calls". */
#ifndef FC_INFER_GROUPED_H
#define FC_INFER_GROUPED_H

#include <stddef.h>
#include <stdint.h>

#include "infer.h"
#include "jsonw.h"

enum fc_moe_st { FC_MOE_UNKNOWN = 0, FC_MOE_EXACT, FC_MOE_BOUND };

typedef struct fc_moe_val {
    int64_t value;
    int status;     /* enum fc_moe_st */
    char note[160]; /* how it was read, or why not */
} fc_moe_val;

typedef struct fc_moe_grouped {
    int found;             /* grouped calls in the forward */
    int64_t calls, layers; /* grouped calls (runs of one weight shape); MoE layers (up calls) */
    int64_t hidden;        /* the experts' input width */
    int gated;             /* the up projection is gate and up (fused, or two calls) */
    fc_moe_val experts, moe_ffn, topk, tokens, shared, shared_ffn;
    int64_t routed;             /* routed rows of the first MoE layer */
    int64_t rows_min, rows_max; /* group rows over every MoE layer */
    double imbalance_max;       /* the largest layer's max group rows / mean group rows */
    double imbalance_mean;      /* that ratio averaged over the layers */
} fc_moe_grouped;

/* Reads p's grouped entries (nothing found: out->found = 0). */
void fc_moe_grouped_read(const fc_fwd_profile *p, fc_moe_grouped *out);
const char *fc_moe_st_name(int status);
/* infer_grouped_out.c: m as the JSON object `key`; as text lines into out
 * (returns what snprintf would). */
void fc_moe_grouped_json(fc_jw *w, const char *key, const fc_moe_grouped *m);
int fc_moe_grouped_text(const fc_moe_grouped *m, char *out, size_t size);

#endif
