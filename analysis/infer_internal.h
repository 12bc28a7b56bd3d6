/* SPDX-License-Identifier: Apache-2.0 */
/* infer_internal.h - what the files of the shape inference share:
 * infer_ops.c turns a forward profile into operations and finds the
 * layers, infer_layer.c reads each layer and the whole model off them,
 * infer_attn.c reads the attention core off fused-attention calls. */
#ifndef FC_INFER_INTERNAL_H
#define FC_INFER_INTERNAL_H

#include "infer.h"

enum op_kind {
    OP_LIN = 0, /* a weight GEMM: a Linear from `in` to `out` features on `tok` tokens */
    OP_PROD,    /* a product of two activations that is not the attention core */
    OP_UNK,     /* a GEMM whose shape is not known */
    OP_CORE,    /* QK^T and attention x V of one layer */
    OP_EXPERTS  /* a run of weight GEMMs on fewer tokens than the layer: experts */
};

typedef struct op {
    int kind;
    int64_t in, out, tok, grp; /* OP_LIN: grp > 1 is a batched GEMM over `grp` weights */
    int64_t m, n, k, cnt;      /* OP_PROD: shape, calls x batch */
    int64_t s, d, r,
        heads_b;        /* OP_CORE: sequence, head dim, query rows per K row, GEMMs per product */
    size_t first, last; /* OP_EXPERTS: the OP_LIN ops [first, last) of the raw list;
                           OP_CORE with attn: the profile entry of the call (first) */
    int attn;           /* OP_CORE: a fused-attention call, not QK^T and AV GEMMs */
    fc_u128 flops;
    uint64_t sym; /* equal for operations that repeat from layer to layer */
} op;

enum { MLP_NONE = 0, MLP_DENSE, MLP_MOE };

typedef struct layer {
    size_t start, end; /* operations [start, end) */
    int64_t h, q, kv, nproj;
    int core;
    size_t core_op;        /* the core's operation (with core) */
    int64_t s, d, heads_b; /* heads_b: B*a */
    int mlp;
    int64_t f, gated; /* dense MLP */
    int64_t experts, seen, fe, egated, routed, shared_n, shared_f, shared_gated;
    fc_u128 extra; /* operations of the layer no term of the formula has */
} layer;

struct fc_infer_work {
    const fc_fwd_gemm *prof; /* the profile the operations were read from */
    op raw[FC_INFER_MAX_GEMMS]; /* one per profile entry, cores grouped */
    op ops[FC_INFER_MAX_GEMMS]; /* experts grouped */
    size_t n_raw, n_ops;
    int64_t tokens;
    layer lay[FC_INFER_MAX_LAYERS];
    size_t n_lay;
    size_t prefix_end, suffix_start; /* operations before the first layer, after the last */
};

/* infer_ops.c: operations from the profile; 0, or -1 with the reason. */
int fc_infer_ops(const fc_fwd_profile *p, fc_infer_work *w, char *why, size_t n);
/* The layers' extents in w->lay (start, end) and the prefix / suffix. */
int fc_infer_layers(fc_infer_work *w, char *why, size_t n);

/* infer_layer.c: one layer's projections, core and MLP; 0, or -1 with why. */
int fc_infer_layer(const fc_infer_work *w, layer *l, char *why, size_t n);

/* infer_attn.c: a fused-attention call of the profile (entry i) as the
 * attention core operation (OP_UNK when its shape is not known). */
op fc_infer_attn_op(const fc_fwd_gemm *g, size_t i);
/* The layers' fused-attention calls against each other, against layers
 * whose core is QK^T GEMMs, and against the projections and tokens: fills
 * f->attn*; -1 with the contradiction in f->why. */
int fc_infer_attn_facts(const fc_infer_work *w, fc_infer_facts *f);
/* heads, kv_heads, head_dim, seq and the causal note from the calls. */
void fc_infer_attn_values(fc_inferred *in, const fc_infer_facts *f);
/* The sequence length the batch is read with: f->seq with the core in the
 * stream, 0 without it or when the calls' lengths are only bounds. */
int64_t fc_infer_attn_seq(const fc_infer_facts *f);
/* The forward attention core of model m as the stream counts it: 0 without
 * the core, the formula's square (fl->attention_core_forward) with QK^T
 * GEMMs, the exact band with fused-attention calls (their mask). */
fc_u128 fc_infer_core_counted(const fc_infer_facts *f, const fc_model *m, const fc_flops *fl);

#endif
