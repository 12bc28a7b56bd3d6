/* SPDX-License-Identifier: Apache-2.0 */
/* irec.h - one event of the stream the iteration detector reads: a counted
 * GEMM (its shape signature, operand addresses and roles, FLOPs, time) or a
 * marker (flopcount_step, evaluation brackets, NVTX step ranges). */
#ifndef FC_IREC_H
#define FC_IREC_H

#include <stdint.h>

#include "core/api.h"
#include "core/gemm.h"

enum fc_irec_kind {
    FC_IREC_GEMM = 0,
    FC_IREC_STEP,       /* flopcount_step(): an optimizer step ended */
    FC_IREC_EVAL_BEGIN, /* flopcount_eval_begin() */
    FC_IREC_EVAL_END,   /* flopcount_eval_end() */
    FC_IREC_NVTX_PUSH,  /* an NVTX range named FLOPCOUNT_NVTX_STEP opened */
    FC_IREC_NVTX_POP,   /* ... and closed */
    FC_IREC_PHASE,      /* a phase marker (flopcount_forward_begin & co): .phase */
    FC_IREC_NVTX_PHASE, /* the NVTX phase of the calling thread changed: .phase */
    FC_IREC_LOST,       /* records were lost to the detector before this point */
    FC_IREC_ATTN,       /* a counted fused-attention call (launch decoded, cuDNN plan run) */
    FC_IREC_OPTIM,      /* an optimizer kernel was launched: an optimizer step is under way */
    FC_IREC_DEVREAD     /* ring only: a grouped call whose sizes are being read from the
                         * device (ring/devread.h); the drain turns it into its groups */
};

/* Phases declared by the program (fc_irec.phase). On a GEMM: the phase its
 * markers or NVTX ranges put it in (NONE: the detector decides). On an
 * FC_IREC_PHASE record: the marker (FWD, BWD, REC = recompute_begin,
 * REC_END = recompute_end). On an FC_IREC_NVTX_PHASE record: the thread's
 * phase from its open NVTX ranges now (NONE when it is in none). */
enum fc_phase { FC_PH_NONE = 0, FC_PH_FWD, FC_PH_BWD, FC_PH_REC, FC_PH_REC_END };

#define FC_IREC_XEVAL 0x1u /* GEMM inside flopcount_eval_begin/end */
#define FC_IREC_RECDECL 0x2u /* GEMM of a program that declares its recomputation: a
                              * declared backward is backward only */
#define FC_IREC_GPU 0x4u     /* a GPU GEMM (cuBLAS, cuBLASLt): its thread may tell its phase */

#define FC_THREAD_NONE 0xffu /* fc_irec.thread: the issuing thread is not known */
#define FC_IREC_ATTN_BWD 0x8u /* FC_IREC_ATTN: a backward kernel (else a forward one) */
/* The signature of an attention record: its shape's id in the attention
 * table (count/attn_table.h) with the top bit set. */
#define FC_ATTN_SIG(id) (0x80000000u | ((uint32_t)(id) & 0x7fffffffu))
#define FC_ATTN_ID_OF_SIG(sig) ((sig) & 0x7fffffffu)

/* Roles: which operand slot a matrix sits in and whether it is transposed
 * there. The low 3 bits of a role key hold the role; the rest identify the
 * matrix (stored rows and columns, batch, element type), so one address
 * seen with the same matrix key in two roles is the same tensor used two
 * ways - the backward's signature. */
enum { FC_ROLE_AN = 0, FC_ROLE_AT = 1, FC_ROLE_BN = 2, FC_ROLE_BT = 3 };
#define FC_ROLE(k) ((k) & 7u)
#define FC_MAT(k) ((k) >> 3)

typedef struct fc_irec {
    uint64_t t;              /* fc_ticks() when the call returned */
    const void *a, *b, *c;   /* operand addresses, never dereferenced */
    uint64_t flops;          /* saturated at UINT64_MAX (never in practice) */
    uint64_t xs;             /* FC_IREC_ATTN: executed FLOPs beyond the model convention's
                              * (a backward's recomputed QK^T); 0 for anything else */
    uint32_t sig;            /* shape: api, types, transposes, m, n, k, batch */
    uint32_t ka, kb;         /* role keys of A and B */
    uint8_t kind;            /* enum fc_irec_kind */
    uint8_t dtype;           /* enum fc_dtype of the inputs */
    uint8_t flags;           /* FC_IREC_XEVAL ... */
    uint8_t phase;           /* enum fc_phase (see there) */
    uint8_t thread;          /* the ring it came from: its thread's while that lives (ring.c) */
} fc_irec;

/* 1 for the records that carry counted FLOPs: GEMMs and attention calls. */
static inline int fc_irec_counted(const fc_irec *r)
{
    return r->kind == FC_IREC_GEMM || r->kind == FC_IREC_ATTN;
}

static inline uint32_t fc_mix32(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (uint32_t)h;
}

/* Shape signature of a call; the same function names shapes in the call
 * site table, so a counters shape finds its call site at report time. */
static inline uint32_t fc_gemm_sig(const fc_gemm *g)
{
    uint64_t h = (uint64_t)g->api | (uint64_t)g->flags << 8 | (uint64_t)g->dtype << 16 |
                 (uint64_t)g->out_dtype << 24 | (uint64_t)(uint16_t)g->compute << 32 |
                 (uint64_t)(uint8_t)g->transa << 48 | (uint64_t)(uint8_t)g->transb << 56;
    h = h * 0x9e3779b97f4a7c15ull ^ (uint64_t)g->m;
    h = h * 0x9e3779b97f4a7c15ull ^ (uint64_t)g->n;
    h = h * 0x9e3779b97f4a7c15ull ^ (uint64_t)g->k;
    h = h * 0x9e3779b97f4a7c15ull ^ (uint64_t)g->batch;
    return fc_mix32(h) | 1u; /* 0 means "empty" in tables */
}

/* A cheaper name of the same shape for the call-site table, which the hot
 * path probes on every call (two multiplies instead of six); the report
 * finds a counted shape's call site with the same function. Equal for
 * equal shapes; a collision (2^-32) only credits two shapes to one site. */
static inline uint32_t fc_site_key(const fc_gemm *g)
{
    uint64_t h = (uint64_t)g->m * 0x9e3779b97f4a7c15ull ^ ((uint64_t)g->n << 32 | (uint32_t)g->k);
    h ^= (uint64_t)g->batch << 40 ^ (uint64_t)g->api << 24 ^ (uint64_t)g->dtype << 16 ^
         (uint64_t)(uint8_t)g->transa << 8 ^ (uint64_t)(uint8_t)g->transb ^
         (uint64_t)g->flags << 32 ^ (uint64_t)g->out_dtype << 48 ^ (uint64_t)(uint16_t)g->compute << 56;
    h *= 0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(h >> 32) | 1u; /* 0 means "empty" in tables */
}

static inline uint32_t fc_role_key(int64_t rows, int64_t cols, int64_t batch, int dtype,
                                   unsigned role)
{
    uint64_t h = (uint64_t)rows * 0x9e3779b97f4a7c15ull ^ (uint64_t)cols;
    h = h * 0x9e3779b97f4a7c15ull ^ ((uint64_t)batch << 8 | (uint64_t)(uint8_t)dtype);
    return (fc_mix32(h) & ~7u) | 8u | role; /* never 0 */
}

/* Fills r from a counted call (t, flops and sig = fc_gemm_sig(g) given by
 * the caller, which has them already). op(A) is m x k and op(B) is k x n;
 * stored, A is m x k when not transposed. */
static inline void fc_irec_fill(fc_irec *r, const fc_gemm *g, uint64_t flops, uint64_t t,
                                uint32_t sig)
{
    int ta = g->transa != 'N', tb = g->transb != 'N';
    r->t = t;
    r->a = g->a;
    r->b = g->b;
    r->c = g->c;
    r->flops = flops;
    r->xs = 0;
    r->sig = sig;
    r->ka = ta ? fc_role_key(g->k, g->m, g->batch, g->dtype, FC_ROLE_AT)
               : fc_role_key(g->m, g->k, g->batch, g->dtype, FC_ROLE_AN);
    r->kb = tb ? fc_role_key(g->n, g->k, g->batch, g->dtype, FC_ROLE_BT)
               : fc_role_key(g->k, g->n, g->batch, g->dtype, FC_ROLE_BN);
    r->kind = FC_IREC_GEMM;
    r->dtype = g->dtype;
    r->flags = fc_api_is_gpu(g->api) ? FC_IREC_GPU : 0;
    r->phase = FC_PH_NONE;
    r->thread = FC_THREAD_NONE;
}

#endif
