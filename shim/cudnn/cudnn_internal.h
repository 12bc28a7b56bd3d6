/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn_internal.h - what the files of shim/cudnn/ share: a live
 * descriptor as the table keeps it (its type and the few attributes the
 * walk reads, tensors copied into the operations that name them), the
 * "work" an operation graph describes (its attention call or its matmuls,
 * or why it is not counted), and the variant packs' copies of unique ids,
 * data pointers and override shapes. All of it lives in one lazily mapped
 * table (desc_table.c) under one spin lock; every function here is called
 * with that lock held, unless it says otherwise. */
#ifndef FC_CUDNN_INTERNAL_H
#define FC_CUDNN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "attention.h"
#include "cudnn_abi.h"
#include "cudnn_layer.h"

#define FC_CUDNN_CAPACITY 32768u       /* live descriptors tracked at once */
#define FC_CUDNN_INDEX (2u * FC_CUDNN_CAPACITY) /* hash slots, a power of two */
#define FC_CUDNN_WORKS 1024u           /* graphs described at once (shared by their plans) */
#define FC_CUDNN_VPACKS 128u           /* variant packs live at once */
#define FC_CUDNN_VP_PAIRS 64u          /* (unique id, data pointer) pairs kept per pack */
#define FC_CUDNN_VP_OVERRIDES 8u       /* override shapes kept per pack */
#define FC_CUDNN_SLOTS 6u              /* values a mask reads at execute time, per graph */
#define FC_CUDNN_WALK_OPS 512u         /* operations of one graph the walk reads */
#define FC_CUDNN_SUB_OPS 16u           /* ops kept for an SDPA node's score modifier */

/* fc_cten.flags */
#define FC_TEN_SEEN 0x01u     /* the descriptor was in the table when it was named */
#define FC_TEN_VIRTUAL 0x02u  /* CUDNN_ATTR_TENSOR_IS_VIRTUAL */
#define FC_TEN_BY_VALUE 0x04u /* CUDNN_ATTR_TENSOR_IS_BY_VALUE: a host scalar */
#define FC_TEN_RAGGED 0x08u   /* a ragged offset descriptor: lengths in device memory */
#define FC_TEN_TAINT 0x10u    /* an attribute flopcount does not know was set on it */

/* A tensor as an operation names it. Dimensions are kept right-aligned:
 * d[3] is the last, d[2] the one before; dimensions before the last four
 * are multiplied into lead (they only ever matter as a batch). */
typedef struct fc_cten {
    int64_t uid;
    int64_t lead;
    int64_t d[4];
    uint16_t taint_attr; /* FC_TEN_TAINT: which attribute */
    uint8_t nd;          /* dimensions set; 0: none */
    uint8_t dtype;       /* cudnnDataType_t */
    uint8_t flags;       /* FC_TEN_* */
} fc_cten;

/* fc_cent.state */
#define FC_CE_FINALIZED 0x01u
#define FC_CE_TAINT 0x02u   /* an attribute not in the 9.19 header was set (taint_attr) */
#define FC_CE_NO_DESC 0x04u /* an operation's pointwise/matmul descriptor was not seen */
#define FC_CE_DYNAMIC 0x08u /* op graph (and what links to it): dynamic shapes enabled */
#define FC_CE_JSON 0x10u    /* plan: built from a serialized (JSON) plan */

/* Why a heuristics, engine, engine config or plan has no work (fc_cent.u.link.why). */
enum fc_cwhy {
    FC_WHY_NONE = 0,
    FC_WHY_UNSET,        /* its operation graph / engine / engine config was never set */
    FC_WHY_NOT_SEEN,     /* the descriptor it names was not seen created */
    FC_WHY_NO_OPS,       /* its operation graph had no operations set */
    FC_WHY_WORKS_FULL,   /* no room to describe the graph */
    FC_WHY_DESERIALIZED, /* a plan built from JSON: its graph is never shown */
};

/* fc_cent.u.sdpa.opt */
#define FC_SDPA_SEQ_LEN 0x01u    /* SEQ_LEN_Q/KV: padding, lengths in device memory */
#define FC_SDPA_BLOCK_MASK 0x02u /* a block mask in device memory */
#define FC_SDPA_PAGED 0x04u      /* K/V in a paged cache (page tables) */
#define FC_SDPA_PT_DIMS 0x08u    /* pt_blocks is known */
#define FC_SDPA_SUB 0x10u        /* SDPA_FWD_SUBGRAPH set (sub_work: its graph's work) */
#define FC_SDPA_SUB_IN 0x20u     /* SDPA_FWD_SUBGRAPH_INPUT_UID set */
#define FC_SDPA_SUB_OUT 0x40u    /* SDPA_FWD_SUBGRAPH_OUTPUT_UID set */

/* fc_cent.u.band.set: the attributes of a diagonal band mask set */
#define FC_BANDOP_X 0x01u
#define FC_BANDOP_B 0x02u
#define FC_BANDOP_SQ 0x04u
#define FC_BANDOP_SKV 0x08u
#define FC_BANDOP_LEFT 0x10u
#define FC_BANDOP_SHIFT 0x20u
#define FC_BANDOP_MODE 0x40u

/* One live descriptor. */
typedef struct fc_cent {
    const void *key;     /* the descriptor; NULL: a free entry */
    uint32_t next_free;  /* free list (entry index + 1) */
    uint16_t type;       /* cudnnBackendDescriptorType_t as created */
    uint8_t state;       /* FC_CE_* */
    uint8_t why;         /* links: enum fc_cwhy */
    uint16_t taint_attr; /* FC_CE_TAINT: the first unknown attribute */
    uint8_t out_set;     /* an operation's output (y_uid, o_uid): 1 set, 2 not seen created */
    uint8_t pad;
    union {
        fc_cten tensor;
        struct {
            fc_cten a, b, c;
            uint8_t overrides; /* M/N/K override descriptors set (bits 0, 1, 2) */
        } mm;
        struct {
            int32_t mode;
            int64_t axis;
        } pwdesc;
        struct {
            int32_t mode; /* from its pointwise descriptor; -1 unknown */
            int64_t axis;
            fc_cten x, b, t; /* X (or DY), B (or X of a backward mode), T */
            int64_t y_uid;   /* Y (or DX) */
        } pw;
        struct { /* reduction, reshape, RNG, paged cache load, block scale (de)quantize */
            fc_cten x;
            int64_t y_uid;
        } io;
        struct {
            fc_cten q, k, v;
            int64_t o_uid;
            int64_t pt_blocks; /* K's page table: blocks per sequence (dims[2]) */
            int64_t sub_in, sub_out; /* the score modifier graph's input (S) and output */
            uint32_t sub_work;       /* its operation graph's work (a reference), 0 none */
            uint8_t opt;       /* FC_SDPA_* */
        } sdpa;
        struct { /* diagonal band mask (cuDNN 9.20): Y = X where (cond) else B */
            fc_cten x, b, sq, skv, left, shift;
            int64_t y_uid;
            int32_t mode; /* the comparison, a cudnnPointwiseMode_t */
            uint8_t set;  /* FC_BANDOP_* */
        } band;
        struct { /* operation graph, heuristics, engine, engine config, plan */
            uint32_t work;   /* its work (index + 1), holding a reference; 0 none */
            uint32_t unc;    /* plan: its uncounted id once finalized */
            uint32_t unc_gen; /* plan: fc_cplan_gen when unc was interned */
            uint8_t counted; /* plan: finalized, and unc / work say what an execute counts */
        } link;
        struct {
            uint32_t vp; /* its record (index + 1); 0: none (the pool was full) */
        } vpack;
    } u;
} fc_cent;

/* A linear expression in the indices of the score matrix: ci * i + cj * j
 * + c + sum of coef[k] * (value of slot k), the slots being values read at
 * execute time (host scalars) or lengths in device memory. */
typedef struct fc_clin {
    int64_t c;
    int8_t ci, cj;
    int8_t coef[FC_CUDNN_SLOTS];
} fc_clin;

/* fc_cslot.kind */
enum { FC_SLOT_SCALAR = 1, FC_SLOT_SEQ_Q, FC_SLOT_SEQ_KV, FC_SLOT_DEVICE };

typedef struct fc_cslot {
    int64_t uid;
    uint8_t kind;  /* FC_SLOT_* */
    uint8_t dtype; /* cudnnDataType_t of a scalar */
} fc_cslot;

/* One matmul node: 2 * m * n * k * batch. */
typedef struct fc_cgemm {
    int64_t m, n, k, batch;
    int64_t a_uid, b_uid, c_uid;
    fc_cten a, b; /* for dynamic shapes: the operands as built */
    uint8_t dtype, out_dtype; /* enum fc_dtype */
} fc_cgemm;

/* fc_cwork.kind */
enum { FC_CW_ATTN = 1, FC_CW_GEMM, FC_CW_UNCOUNTED };

/* fc_cwork.band: which constraints of the mask the work has */
#define FC_BAND_HI 0x01u   /* j - i <= hi */
#define FC_BAND_LO 0x02u   /* j - i >= lo */
#define FC_BAND_CAP_I 0x04u /* i <= cap_i */
#define FC_BAND_CAP_J 0x08u /* j <= cap_j */

/* What one execute of a plan of this graph counts, shared by the graph's
 * heuristics, engines, engine configs and plans (refs). */
typedef struct fc_cwork {
    uint32_t refs;     /* 0: free */
    uint32_t next_free;
    uint8_t kind;      /* FC_CW_* */
    uint8_t reason;    /* uncounted: enum fc_unc_reason */
    uint8_t kclass;    /* uncounted: enum fc_kclass */
    uint8_t n_gemm;
    uint8_t n_slot;
    uint8_t band;      /* FC_BAND_* */
    uint8_t k_trans;   /* attention: K is stored transposed ([.., d, s_k]: composite) */
    uint8_t v_trans;   /* attention: V is stored transposed ([.., d_v, s_k]: composite backward) */
    uint8_t composite; /* attention: from matmul nodes (1) or an SDPA node (0) */
    char name[72];     /* uncounted: the report's name */
    char detail[160];  /* uncounted: why */
    fc_attn attn;      /* attention: shape and the flags of the graph's structure */
    fc_attn resolved;  /* attn with its band, when no value is read at execute time */
    fc_clin hi, lo, cap_i, cap_j;
    fc_cslot slot[FC_CUDNN_SLOTS];
    fc_cten q, k, v;   /* attention: the operands as built (dynamic shapes) */
    fc_cgemm gemm[FC_CUDNN_MAX_GEMMS];
    /* a graph of at most FC_CUDNN_SUB_OPS operations: them, for an SDPA
     * node that names it as its score modifier (0: more, or none) */
    uint8_t n_sub_ops;
    const void *sub_ops[FC_CUDNN_SUB_OPS];
} fc_cwork;

/* A variant pack's copies. */
typedef struct fc_cvp {
    uint32_t used;
    uint32_t n_pairs;    /* unique ids set (may exceed the pairs kept) */
    uint32_t n_ptrs;     /* data pointers set */
    uint32_t n_over;     /* override unique ids set */
    uint8_t over_shapes; /* 0 none, 1 read, 2 set but not readable */
    uint8_t over_nd[FC_CUDNN_VP_OVERRIDES];
    int64_t uid[FC_CUDNN_VP_PAIRS];
    const void *ptr[FC_CUDNN_VP_PAIRS];
    int64_t over_uid[FC_CUDNN_VP_OVERRIDES];
    int64_t over_dims[FC_CUDNN_VP_OVERRIDES][FC_CUDNN_DIM_MAX];
} fc_cvp;

/* ---- desc_table.c: the table (lock held unless said) ---- */
void fc_ct_lock(void);
void fc_ct_unlock(void);
/* 0 once the table is mapped (maps it at the first call; no lock needed);
 * -1 when the system refused the memory. */
int fc_ct_ready(void);
fc_cent *fc_ct_find(const void *key);
/* A fresh entry for key (an existing one of that key is dropped first:
 * cuDNN gave the address out again); NULL when the table is full. */
fc_cent *fc_ct_insert(const void *key, int type);
void fc_ct_remove(const void *key);
/* The entry a work or pack index names. */
fc_cwork *fc_ct_work(uint32_t idx1);
fc_cvp *fc_ct_vp(uint32_t idx1);
/* A zeroed work with one reference (index + 1), or 0 when the pool is full. */
uint32_t fc_ct_work_new(void);
void fc_ct_work_ref(uint32_t idx1);
void fc_ct_work_unref(uint32_t idx1);
uint32_t fc_ct_vp_new(void);
void fc_ct_vp_free(uint32_t idx1);
/* How many creations were not tracked because the table was full. */
uint64_t fc_ct_untracked(void);
/* The generation of the uncounted ids plans hold: bumped in a fork child
 * and by fc_cudnn_reset (the uncounted table was emptied); plan_exec.c
 * interns its ids again when it moved (no lock). */
uint32_t fc_ct_generation(void);

/* ---- desc_attrs.c: decoding Set/GetAttribute ---- */
/* 1 when the 9.19 header names attr as an attribute of descriptor type. */
int fc_cattr_known(int type, int attr);
/* A tensor entry's snapshot for an operation that names desc (flags 0
 * when desc is not in the table). */
void fc_cattr_snapshot(const void *desc, fc_cten *out);
/* Copies a work reference (and the dynamic flag, or the reason there is
 * none) from the entry of src into e. */
void fc_cattr_link(fc_cent *e, const void *src, int want_type);

/* ---- graph_walk.c: an operation graph's operations -> its work ---- */
/* Fills w (zeroed, one reference) from the n operations of a graph. */
void fc_cwalk_graph(const void *const *ops, int64_t n, fc_cwork *w);
/* Marks w uncounted, with the report's name and detail. */
void fc_cwork_uncounted(fc_cwork *w, int reason, int kclass, const char *name, const char *fmt,
                        ...) __attribute__((format(printf, 5, 6)));
/* enum fc_dtype of a cudnnDataType_t. */
int fc_cdtype(int cudnn_type);
/* The dimension k places from the end (0: the last). */
static inline int64_t fc_cten_dim(const fc_cten *t, int k)
{
    return t->d[3 - k];
}
/* Everything before the last two dimensions, multiplied. */
static inline int64_t fc_cten_batch(const fc_cten *t)
{
    return t->lead * t->d[0] * t->d[1];
}

/* ---- the walk's view of one graph (graph_walk.c; read by mask_band.c) ---- */
#define FC_CWALK_TENSORS (4u * FC_CUDNN_WALK_OPS)
#define FC_CWALK_HASH (2u * FC_CWALK_TENSORS) /* a power of two */

/* fc_cwalk_ctx.mark */
#define FC_MARK_FROM_S 0x01u  /* computed from the score matrix S */
#define FC_MARK_EXP 0x02u     /* ... through an EXP (softmax) */
#define FC_MARK_TO_P 0x04u    /* the probabilities P are computed from it */

typedef struct fc_cwalk_ctx {
    const fc_cent *op[FC_CUDNN_WALK_OPS];
    int n_op;
    int64_t uid[FC_CWALK_TENSORS];
    const fc_cten *ten[FC_CWALK_TENSORS]; /* the fullest snapshot of it, NULL for outputs only */
    int16_t prod[FC_CWALK_TENSORS];       /* the operation writing it, -1 none */
    uint8_t mark[FC_CWALK_TENSORS];       /* FC_MARK_* */
    int n_t;
    uint16_t hash[FC_CWALK_HASH]; /* tensor index + 1 by uid */
    int64_t s_q, s_k;             /* the score matrix's dimensions */
    int nd;                       /* ... and its rank */
} fc_cwalk_ctx;

/* The walk's index of uid, or -1. */
int fc_cwalk_tensor(const fc_cwalk_ctx *c, int64_t uid);
#define FC_CWALK_IN 6 /* the most inputs an operation has here (a band mask) */
/* The inputs (snapshots, SEEN ones only) and output uid of operation i;
 * returns the number of inputs, *out_uid = 0 when none. */
int fc_cwalk_io(const fc_cwalk_ctx *c, int i, const fc_cten *in[FC_CWALK_IN], int64_t *out_uid,
                int *has_out);
/* 1 when the shim knows descriptor type t (the 9.19 header's, and the
 * newer ones it reads). */
int fc_ctype_known(int t);

/* ---- mask_band.c: the mask sub-graph of a composite attention ---- */
/* Reads the masks applied on the score chain (tensors marked from S and
 * to P) into w's band and slots; flags w->attn with FC_ATTN_BOUND where a
 * mask is not a band. */
void fc_cmask_read(fc_cwalk_ctx *c, fc_cwork *w);
/* The band of w on a (whose s_q and s_k are the problem's), given the
 * values of w's scalar slots (val NULL or ok[k] 0: not read): sets a's
 * align and windows, and FC_ATTN_BOUND where a constraint had to be
 * dropped or reads lengths in device memory. */
void fc_cmask_resolve(const fc_cwork *w, const int64_t *val, const uint8_t *ok, fc_attn *a);

/* ---- plan_exec.c ---- */
/* At a plan's finalize: what its executes count (interns the uncounted name). */
void fc_cplan_finalize(fc_cent *plan);

#endif
