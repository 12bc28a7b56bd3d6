/* SPDX-License-Identifier: Apache-2.0 */
/* launch.h - the launch layer (shim/launch/, layer 3) as the layers above
 * see it: the launch hooks (hooks/launch.c) and CUPTI's launch callbacks
 * (cupti/launches.c) find a launched kernel in the registry
 * (registry.h: fc_launch_find, inline), and for a kernel of interest
 * decode the launch (decode.c) and account for it: a decoded attention
 * call counted (fc_attn_record), a kernel that could not be decoded
 * counted in the uncounted list, an optimizer kernel marked
 * (fc_ring_mark). Between the two the caller may find the launch was
 * captured into a CUDA graph (the cupti layer) and not account for it
 * now: the graph's launches do. docs/launch.md. */
#ifndef FC_LAUNCH_H
#define FC_LAUNCH_H

#include <stdint.h>

#include "attention.h"
#include "core/base.h"
#include "registry.h"

/* The FlashAttention-2 parameter layout a decoded call was read as, by its
 * fc_attn.variant ("flash-attn 2.6.1-2.8, PyTorch 2.7+"); NULL: none. */
const char *fc_fa2_layout_name(int variant);

/* Where a launch was seen. */
enum { FC_LP_HOOK = 0, FC_LP_CUPTI = 1, FC_LP_COUNT };

/* A launch. The kernel's parameter size is asked of the first identity
 * given: a CUfunction (cuFuncGetParamInfo), a cudaKernel_t / CUkernel
 * (cuKernelGetParamInfo), a host stub of the shared runtime
 * (cudaFuncGetParamInfo: the hooks' launches only). */
typedef struct fc_launch_call {
    const void *param0; /* host copy of parameter 0; NULL none */
    int64_t avail;      /* bytes readable there when known (a packed buffer), else 0 */
    unsigned grid[3];
    const void *function; /* CUfunction, or NULL */
    const void *kernel;   /* cudaKernel_t, or NULL */
    const void *stub;     /* the shared runtime's host stub, or NULL */
    int path;             /* FC_LP_* */
    int ok;               /* the launch succeeded (the runtime may be asked then) */
    void *const *args;    /* the kernelParams array (each entry one argument), or NULL */
    unsigned block_x;     /* blockDim.x, 0 unknown */
} fc_launch_call;

enum { FC_LR_NONE = 0, FC_LR_ATTN, FC_LR_UNCOUNTED, FC_LR_MARK };

typedef struct fc_launch_result {
    int kind;    /* FC_LR_* */
    uint32_t id; /* UNCOUNTED: its uncounted id; MARK: the marker (enum fc_irec_kind) */
    fc_attn a;   /* ATTN */
    /* UNCOUNTED, a CUTLASS 3 grouped launch read from its parameters
     * (cutlass_grouped.h): groups > 0, the device array of their m, n, k,
     * A's dtype; its sizes are read when --read-device-sizes is on */
    int32_t groups;
    const void *shapes;
    uint8_t dtype;
    /* and when PyTorch's prepare_grouped_gemm_data filled those shapes
     * (grouped_fill.h): offs (device) splitting axis offs_axis
     * (FC_GF_RAGGED_*, 0 none) and the host's fixed m, n, k */
    const void *offs;
    uint8_t offs_axis;
    int32_t fixed[3];
    uint64_t host_flops; /* from the host values: a bound, or exact (host_exact) */
    uint8_t host_exact;
    char host_why[96];
} fc_launch_result;

/* Decodes a launch of record rec (fc_launch_find's value). Never fails:
 * what is not decoded is a named uncounted kernel with the reason. */
void fc_launch_decode(uint32_t rec, const fc_launch_call *c, fc_launch_result *r);
/* Accounts for r (not captured): counted, listed or marked. ok: the
 * launch's status; stream: where it was queued (GPU timing). */
void fc_launch_account(const fc_launch_result *r, const void *stream, int ok, int path);
/* r was recorded against a stream capture instead (stats only). */
void fc_launch_note_captured(int path);
/* A CUPTI callback for a launch a hook saw already (stats only). */
void fc_launch_note_duplicate(void);

/* Set by a launch hook around the real call of a kernel of interest, so
 * that CUPTI's callbacks inside it (and a nested launch entry point) do
 * not see the launch a second time. */
extern FC_TLS int fc_launch_in_hook;

typedef struct fc_launch_stats {
    uint64_t seen[FC_LP_COUNT];      /* launches of kernels of interest */
    uint64_t decoded[FC_LP_COUNT];   /* attention calls decoded */
    uint64_t uncounted[FC_LP_COUNT]; /* named uncounted (opaque or layout) */
    uint64_t layout[FC_LP_COUNT];    /* of which: parameters that did not check out */
    uint64_t marks[FC_LP_COUNT];     /* optimizer kernels */
    uint64_t failed[FC_LP_COUNT];    /* launches that returned an error */
    uint64_t captured[FC_LP_COUNT];  /* recorded against a stream capture */
    uint64_t sized, unsized; /* decoded with the runtime/driver's parameter size / without */
    uint64_t duplicates;     /* CUPTI callbacks of launches the hooks saw */
} fc_launch_stats;
void fc_launch_stats_get(fc_launch_stats *out);

#endif
