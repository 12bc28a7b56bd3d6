/* SPDX-License-Identifier: Apache-2.0 */
/* cutlass_grouped.h - a CUTLASS 3 grouped GEMM launch read from its
 * parameters (cutlass_grouped.c; docs/moe.md): the kernel
 * cutlass::device_kernel<GemmUniversal<GroupProblemShape<Shape<int, int,
 * int>>, ...>> (torch._grouped_mm's bf16bf16_grouped_mm, FBGEMM-GenAI,
 * TransformerEngine's CUTLASS grouped GEMM) takes one parameter, the
 * kernel's Params, which begins (CUTLASS 3.x, include/cutlass/gemm/kernel/
 * sm90_gemm_array_tma_warpspecialized_*.hpp, sm100_gemm_array_*.hpp):
 *
 *   offset  0  GemmUniversalMode mode     int enum; kGrouped = 4
 *   offset  8  int32_t num_groups         (GroupProblemShape, 8-aligned:
 *   offset 16  Shape<int,int,int> *problem_shapes     device memory,
 *   offset 24  Shape<int,int,int> const *host_problem_shapes  usually NULL)
 *
 * The group count is on the host; every group's m, n, k (12 bytes a group)
 * are in device memory, filled by a kernel (PyTorch: from offs) before the
 * launch on the same stream. */
#ifndef FC_LAUNCH_CUTLASS_GROUPED_H
#define FC_LAUNCH_CUTLASS_GROUPED_H

#include <stddef.h>
#include <stdint.h>

#include "decoders.h"

#define FC_CUTLASS_GROUPED_MODE 4       /* cutlass::gemm::GemmUniversalMode::kGrouped */
#define FC_CUTLASS_GROUPED_MIN_BYTES 32 /* mode, pad, num_groups, pad, two pointers */
#define FC_CUTLASS_GROUPED_MAX_GROUPS 65536

/* What a grouped launch says on the host. */
typedef struct fc_cutlass_groups {
    int32_t groups;
    const void *shapes; /* device array of groups x {int32 m, n, k} */
    uint8_t dtype;      /* enum fc_dtype of A, from the name; FC_DT_UNKNOWN when it says none */
} fc_cutlass_groups;

/* Reads k (a launch of the kernel `name`) as above, checking the name (a
 * GemmUniversal over GroupProblemShape<cute::tuple<int, int, int>>), the
 * call (one parameter), parameter 0's size (at least 32 bytes when known),
 * the mode (kGrouped), the group count (1 .. 65536) and the shapes pointer
 * (not NULL, 4-byte aligned). 0 with out filled, or -1 with why. */
int fc_cutlass_grouped_decode(const char *name, const fc_kparams *k, fc_cutlass_groups *out,
                              char *why, size_t n);

/* A CUTLASS 2 grouped GEMM launch (cutlass::Kernel<GemmGrouped<Mma,
 * Epilogue, Swizzle, GroupScheduleMode, Transposed>>: the grouped_gemm
 * package, older Megatron MoE). Its one parameter, the kernel's Params,
 * begins (CUTLASS 2.x / 3.x, include/cutlass/gemm/kernel/gemm_grouped.h,
 * grouped_problem_visitor.h: BaseGroupedProblemVisitor::Params first):
 *
 *   offset  0  GemmCoord const *problem_sizes   device memory, groups x
 *                                               {int32 m, n, k}
 *   offset  8  int32_t problem_count
 *   offset 16  void const *workspace            (host-precomputed schedule)
 *   offset 24  int32_t tile_count
 *   offset 32  int threadblock_count            the launch's grid.x
 *
 * Checked: the name (11GemmGroupedI), one parameter, at least 36 bytes when
 * the size is known, 1..65536 problems, problem_sizes not NULL and 4-byte
 * aligned, tile_count not negative, threadblock_count = grid.x (GemmGrouped
 * launches dim3(threadblock_count, 1, 1)). A transposed kernel swaps each
 * problem's m and n (2mnk unchanged). */
#define FC_CUTLASS2_GROUPED_MIN_BYTES 36
int fc_cutlass2_grouped_decode(const char *name, const fc_kparams *k, fc_cutlass_groups *out,
                               char *why, size_t n);

#endif
