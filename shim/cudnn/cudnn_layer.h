/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn_layer.h - the cuDNN layer (between ring/ and cupti/, below the
 * hooks): a bounded table of the live backend descriptors a process
 * creates, the few attributes that decide what a plan computes, and at a
 * plan's finalize the work one execute of it does - one fused-attention
 * call (fc_attn), its matmul nodes as GEMMs, or a named reason it is not
 * counted. The hooks (hooks/cudnn.c) call in after each successful real
 * call (before it, for a destroy) and count what fc_cudnn_exec_of says.
 * Nothing here calls cuDNN; the table takes a spin lock around its
 * updates, held for no call out of the layer and across fork (fork
 * handlers take it), and maps its memory at the first descriptor.
 * docs/cudnn.md says what is read and why. */
#ifndef FC_CUDNN_LAYER_H
#define FC_CUDNN_LAYER_H

#include <stdint.h>

#include "attention.h"
#include "core/gemm.h"

#define FC_CUDNN_MAX_GEMMS 4 /* matmul nodes of one plan counted as GEMMs */

/* fc_cudnn_exec.kind */
enum fc_cudnn_kind {
    FC_CUDNN_UNCOUNTED = 0, /* unc_id names why (count it with fc_uncounted_count) */
    FC_CUDNN_ATTENTION,     /* attn: one fused-attention call */
    FC_CUDNN_GEMMS,         /* gemm[0 .. n_gemm - 1]: the plan's matmul nodes */
};

/* What one execute of a plan counts. */
typedef struct fc_cudnn_exec {
    int kind;
    fc_attn attn;
    int n_gemm;
    fc_gemm gemm[FC_CUDNN_MAX_GEMMS]; /* api, dims, dtypes, operand addresses */
    uint32_t unc_id;                  /* FC_CUDNN_UNCOUNTED: the uncounted table's id */
} fc_cudnn_exec;

/* After cudnnBackendCreateDescriptor(type) returned desc. */
void fc_cudnn_created(const void *desc, int type);
/* Before cudnnBackendDestroyDescriptor(desc) (the address may be handed
 * out again as soon as the real call returns). */
void fc_cudnn_destroying(const void *desc);
/* After cudnnBackendInitialize(desc): its attributes are gone; so is the
 * entry (a plan naming it later is not resolved). */
void fc_cudnn_reinitialized(const void *desc);
/* After a successful cudnnBackendSetAttribute. */
void fc_cudnn_set(const void *desc, int attr, int atype, int64_t count, const void *elems);
/* After a successful cudnnBackendGetAttribute: heuristics filling engine
 * configs, engine configs and plans handing out their engine / config.
 * count: what the library wrote to *elementCount. */
void fc_cudnn_got(const void *desc, int attr, int atype, int64_t requested, int64_t count,
                  const void *elems);
/* After a successful cudnnBackendFinalize. */
void fc_cudnn_finalized(const void *desc);
/* What an execute of plan with variant pack vp counts (vp may be NULL).
 * Reads the pack's host scalars and override shapes; no allocation. The
 * gemm entries have api FC_API_CUDNN_MATMUL and no stream. */
void fc_cudnn_exec_of(const void *plan, const void *vp, fc_cudnn_exec *out);

/* For tests and the report: live descriptors, and creations not tracked
 * because the table was full. */
uint32_t fc_cudnn_live(void);
uint64_t fc_cudnn_untracked(void);
/* Forgets every descriptor (tests). */
void fc_cudnn_reset(void);

#endif
