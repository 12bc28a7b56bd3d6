/* SPDX-License-Identifier: Apache-2.0 */
/* grouped_fill.h - PyTorch's prepare_grouped_gemm_data launch (the kernel
 * that writes torch._grouped_mm's problem shapes on the device just before
 * the CUTLASS 3 grouped GEMM, ATen's GroupMMCommon.cuh) decoded from its
 * kernel parameters: the problem_sizes pointer that links it to the
 * CUTLASS launch, offs, the host's M, N, K and the operands' shapes, and
 * from them a bound on the GEMM's FLOPs or, given offs, their exact count.
 * Layout: PyTorch 2.15 (27 parameters; docs/moe.md). */
#ifndef FC_LAUNCH_GROUPED_FILL_H
#define FC_LAUNCH_GROUPED_FILL_H

#include <stddef.h>
#include <stdint.h>

#define FC_GROUPED_FILL_NPARAMS 27
#define FC_GROUPED_FILL_MAX_GROUPS 1024 /* blockDim.x: one thread a group */

/* Which dimension offs splits (the one passed as -1), or none (3D x 3D). */
enum { FC_GF_RAGGED_NONE = 0, FC_GF_RAGGED_M, FC_GF_RAGGED_N, FC_GF_RAGGED_K };

typedef struct fc_grouped_fill {
    const void *problem_sizes; /* device: G x {m, n, k} int32, the CUTLASS Params' */
    const void *offs;          /* device: G int32 cumulative ends, or NULL */
    int32_t m, n, k;           /* the host's; the ragged one is -1 */
    int64_t shape_a[3], shape_b[3];
    int32_t groups; /* blockDim.x */
    int ragged;     /* FC_GF_RAGGED_* */
} fc_grouped_fill;

/* 1 when name is prepare_grouped_gemm_data (any layout). */
int fc_grouped_fill_is(const char *name);

/* Decodes a launch of name with its kernelParams array args (each entry
 * points at one argument's bytes), nparams (-1 unknown) and, when known,
 * each parameter's size (sizes, or NULL), block_x its blockDim.x. 0 and
 * *out, or -1 with why when the layout or a value does not check out. */
int fc_grouped_fill_decode(const char *name, void *const *args, int nparams,
                           const int64_t *sizes, unsigned block_x, fc_grouped_fill *out,
                           char *why, size_t n);

/* The GEMM's FLOPs (2 m n k summed over the groups) from the host values
 * alone: exact (returns 1) for 3D x 3D; otherwise an upper bound (returns
 * 0) in which the ragged dimension's groups sum to at most the operand's
 * extent (total rows x N x K x 2 for 2D x 3D). why says which. */
int fc_grouped_fill_bound(const fc_grouped_fill *f, uint64_t *flops, char *why, size_t n);

/* The exact FLOPs given offs read back (G int32 cumulative ends): each
 * group's ragged extent offs[g] - offs[g-1]. 0, or -1 with why when offs
 * is not non-decreasing within the operand's extent. */
int fc_grouped_fill_exact(const fc_grouped_fill *f, const int32_t *offs, uint64_t *flops,
                          char *why, size_t n);

#endif
