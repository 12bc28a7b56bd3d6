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
    int64_t dv;         /* OP_CORE: attention x V's other width (= d unless relaxed) */
    size_t g0, g1;      /* the profile entries [g0, g1) it was made of */
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

/* A sublayer of the layer-kinds reader (infer_kinds.c): the operations
 * from one write-back of the hidden width to the next. */
enum { SEG_UNKNOWN = 0, SEG_ATTN, SEG_MLP, SEG_GDN, SEG_MAMBA2, SEG_MAMBA1, SEG_MTP_PROJ, SEG_LOGITS };
#define FC_INFER_MAX_SEGS 2048

typedef struct kseg {
    size_t a, b;   /* operations [a, b) */
    int kind;      /* SEG_* */
    char mix;      /* FC_MIX_* of a mixer (attention: A, or C once chunked) */
    layer l;       /* attention: h, q (o's input), kv, nproj, core; MLP: mlp and sizes */
    int mla, gate; /* attention: multi-latent; Q twice o's input (an output gate) */
    /* MLA: q_lora, kv_lora, nope, rope, v, heads; GDN: key heads, value heads,
     * key dim, value dim, chunk; Mamba-2: heads, head dim, state, groups,
     * chunk, d_inner; Mamba-1: d_inner, state, dt rank (0: not read) */
    int64_t v[6];
    char why[120]; /* what of its sizes the stream did not show */
} kseg;

/* A layer of the layer-kinds reader: its mixer and MLP sublayers. */
typedef struct klayer {
    int mix, mlp; /* indices into fc_infer_work.seg, -1: none */
} klayer;

struct fc_infer_work {
    op raw[FC_INFER_MAX_GEMMS]; /* one per profile entry, cores grouped */
    op ops[FC_INFER_MAX_GEMMS]; /* experts grouped */
    size_t n_raw, n_ops;
    int64_t tokens;
    layer lay[FC_INFER_MAX_LAYERS];
    size_t n_lay;
    size_t prefix_end, suffix_start; /* operations before the first layer, after the last */
    int relaxed; /* cores whose attention x V width differs from QK^T's (multi-latent) */
    kseg seg[FC_INFER_MAX_SEGS]; /* infer_kinds.c */
    size_t n_seg;
    klayer klay[FC_INFER_MAX_LAYERS], kmtp[FC_INFER_MAX_LAYERS]; /* main layers, MTP blocks */
    const fc_fwd_profile *p; /* the profile the operations were made of */
};

/* infer_ops.c: operations from the profile; 0, or -1 with the reason. */
int fc_infer_ops(const fc_fwd_profile *p, fc_infer_work *w, char *why, size_t n);
/* The layers' extents in w->lay (start, end) and the prefix / suffix. */
int fc_infer_layers(fc_infer_work *w, char *why, size_t n);

/* infer_layer.c: one layer's projections, core and MLP; 0, or -1 with why. */
int fc_infer_layer(const fc_infer_work *w, layer *l, char *why, size_t n);
/* The MLP part of a layer from its operations x[0..cnt) (weight GEMMs and
 * expert runs): one dense MLP, or a mixture of experts (router, experts,
 * shared experts); fills l->mlp and its sizes (l->h set). 0, or -1. */
int fc_infer_mlp_part(const fc_infer_work *w, layer *l, const op *const *x, size_t cnt, char *why,
                      size_t n);
/* An MLP group (h -> f -> h, gated or not) at x[0..avail): its length, 0
 * when none. */
size_t fc_infer_mlp_group(const op *const *x, size_t avail, int64_t h, int64_t *f, int64_t *gated);

/* infer_shapes.c: two layers' MLPs alike (dense: width and gating; MoE:
 * experts, their width and gating, shared experts). */
int fc_infer_same_mlp(const layer *a, const layer *b);
/* infer_layer.c: K and V's width g*d from the input projections' widths
 * outs[0..np) and q = a*d (fused QKV, Q and KV, or Q, K and V); 0, or -1. */
int fc_infer_kv_width(const int64_t *outs, size_t np, int64_t q, int64_t *kv);

/* infer_kinds.c: the layer kinds reader, for a stream the uniform reader
 * could not take (infer.h, fc_infer_facts "kinds"); 0 with f filled, or -1
 * (f->why replaced when it recognized a kind the uniform reader does not
 * know). */
int fc_infer_kinds(const fc_fwd_profile *p, fc_infer_work *w, fc_infer_facts *f);
/* infer_mixers.c: one segment read as attention (standard or multi-latent),
 * gated delta-net, Mamba-2 or Mamba-1 (s->kind and sizes set); 0, or -1
 * with why. T: tokens, h: hidden width. */
int fc_infer_mixer(const fc_infer_work *w, kseg *s, int64_t T, int64_t h, char *why, size_t n);

/* ---- the values (infer_model.c, infer_values.c) ---- */

void fc_infer_set(fc_inferred *in, int key, int status, int64_t value, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static inline int fc_infer_known(const fc_inferred *in, int key)
{
    return in->v[key].status != FC_IS_UNKNOWN;
}
static inline int64_t fc_infer_val_of(const fc_inferred *in, int key) { return in->v[key].value; }
/* Appends the flag of key to in->missing. */
void fc_infer_add_missing(fc_inferred *in, int key);

/* infer_values.c: the keys from FC_IK_FIRST_KIND on. */
/* Their value in a model given on the command line. */
int64_t fc_infer_kind_given(const fc_model *m, int key);
/* What the stream says of them (f->ok), and what the layer kinds change
 * in the values read before (layers, heads and widths of multi-latent
 * attention, the MoE layers' pattern). */
void fc_infer_kind_values(fc_inferred *in, const fc_infer_facts *f);
/* With flags given: the formula's defaults for what neither says. */
void fc_infer_kind_defaults(fc_inferred *in);
/* The model's fields for them (and the layer patterns: the stream's, or
 * the given ones), adding what is missing to in->missing. */
void fc_infer_kind_build(fc_inferred *in, const fc_infer_given *g, fc_model *m);

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
