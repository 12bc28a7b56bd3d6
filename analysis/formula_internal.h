/* SPDX-License-Identifier: Apache-2.0 */
/* formula_internal.h - what the formula's files share: saturating 128-bit
 * arithmetic that remembers an overflow (formula.c assembles the totals,
 * formula_layers.c has each layer kind's weights and matrix products,
 * formula_check.c validates a model). */
#ifndef FC_FORMULA_INTERNAL_H
#define FC_FORMULA_INTERNAL_H

#include "formula.h"

typedef struct fc_acc {
    int ovf; /* 1: some product or sum passed 2^128 - 1 (saturated) */
} fc_acc;

static inline fc_u128 fc_acc_mul(fc_acc *c, fc_u128 a, fc_u128 b)
{
    if (a != 0 && b > FC_U128_MAX / a) {
        c->ovf = 1;
        return FC_U128_MAX;
    }
    return a * b;
}

static inline fc_u128 fc_acc_mul3(fc_acc *c, fc_u128 a, fc_u128 b, fc_u128 d)
{
    return fc_acc_mul(c, fc_acc_mul(c, a, b), d);
}

static inline fc_u128 fc_acc_add(fc_acc *c, fc_u128 a, fc_u128 b)
{
    fc_u128 r = a + b;
    if (r < a) {
        c->ovf = 1;
        return FC_U128_MAX;
    }
    return r;
}

/* Negative sizes count as 0 (fc_model_check refuses them first). */
static inline fc_u128 fc_acc_u(int64_t v)
{
    return v > 0 ? (fc_u128)v : 0;
}

/* One layer of a kind: the weights a token meets (its linear FLOPs are 2
 * per weight per token) and, for all B sequences of an iteration, the
 * products of activations with each other (attention core, scans). */
typedef struct fc_kind_cost {
    fc_u128 weights;     /* GEMM weights one token goes through */
    fc_u128 weights_all; /* every weight (all experts) */
    fc_u128 router;      /* MoE router weights (not in weights) */
    fc_u128 norms;       /* norm scales of this sublayer */
    fc_u128 activations; /* FLOPs of its activation x activation products, whole iteration */
} fc_kind_cost;

/* formula_layers.c: the cost of one mixer (FC_MIX_*) or one MLP (FC_MLP_*)
 * of model m; an unknown kind costs nothing (fc_model_check refuses it). */
void fc_mixer_cost(fc_acc *c, const fc_model *m, char kind, fc_kind_cost *out);
void fc_mlp_cost(fc_acc *c, const fc_model *m, char kind, fc_kind_cost *out);
/* Query x (key + value) width of one attention head pair, a*(d_qk + d_v):
 * the attention core costs this times 2 per query-key pair. */
fc_u128 fc_attention_qkv_width(fc_acc *c, const fc_model *m);

#endif
