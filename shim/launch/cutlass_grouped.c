/* SPDX-License-Identifier: Apache-2.0 */
/* cutlass_grouped.c - a CUTLASS 3 or CUTLASS 2 grouped GEMM launch's group
 * count and problem-shape array read from its Params (cutlass_grouped.h),
 * each field checked; what does not check out is said, never guessed. */
#include "cutlass_grouped.h"

#include <stdio.h>
#include <string.h>

#include "dtype.h"

/* The problem shape the layout is known for, as nvcc mangles it:
 * GroupProblemShape<cute::tuple<int, int, int>> (cute::Shape is an alias). */
#define SHAPE_INT3 "17GroupProblemShapeIN4cute5tupleIJiiiEEEE"

/* A's element type: the first CUTLASS element type the name mentions. */
static uint8_t dtype_of_name(const char *name)
{
    static const struct {
        const char *mangled;
        uint8_t dtype;
    } types[] = {{"10bfloat16_t", FC_DT_BF16},
                 {"6half_t", FC_DT_FP16},
                 {"12float_e4m3_t", FC_DT_FP8_E4M3},
                 {"12float_e5m2_t", FC_DT_FP8_E5M2},
                 {"10tfloat32_t", FC_DT_TF32}};
    const char *best = NULL;
    uint8_t dt = FC_DT_UNKNOWN;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        const char *at = strstr(name, types[i].mangled);
        if (at != NULL && (best == NULL || at < best))
            best = at, dt = types[i].dtype;
    }
    return dt;
}

int fc_cutlass_grouped_decode(const char *name, const fc_kparams *k, fc_cutlass_groups *out,
                              char *why, size_t n)
{
    if (name == NULL || strstr(name, "13GemmUniversalI") == NULL ||
        strstr(name, SHAPE_INT3) == NULL) {
        snprintf(why, n,
                 "not a GemmUniversal over GroupProblemShape<Shape<int, int, int>>: "
                 "its Params layout is not known");
        return -1;
    }
    if (fc_kp_check_call(k, "CUTLASS device_kernel", why, n) != 0)
        return -1;
    int64_t size = k->size > 0 ? k->size : k->avail;
    if (size > 0 && size < FC_CUTLASS_GROUPED_MIN_BYTES) {
        snprintf(why, n,
                 "parameter 0 is %lld bytes, less than the %d of mode and GroupProblemShape",
                 (long long)size, FC_CUTLASS_GROUPED_MIN_BYTES);
        return -1;
    }
    const char *p = k->p;
    int32_t mode, groups;
    uint64_t shapes;
    memcpy(&mode, p, sizeof mode);
    memcpy(&groups, p + 8, sizeof groups);
    memcpy(&shapes, p + 16, sizeof shapes);
    if (mode != FC_CUTLASS_GROUPED_MODE) {
        snprintf(why, n, "mode %d, not kGrouped (%d)", (int)mode, FC_CUTLASS_GROUPED_MODE);
        return -1;
    }
    if (groups < 1 || groups > FC_CUTLASS_GROUPED_MAX_GROUPS) {
        snprintf(why, n, "%d groups, out of 1..%d", (int)groups, FC_CUTLASS_GROUPED_MAX_GROUPS);
        return -1;
    }
    if (shapes == 0 || shapes % 4 != 0) {
        snprintf(why, n, "problem_shapes %s", shapes == 0 ? "is NULL" : "is not 4-byte aligned");
        return -1;
    }
    out->groups = groups;
    out->shapes = (const void *)(uintptr_t)shapes;
    out->dtype = dtype_of_name(name);
    return 0;
}

int fc_cutlass2_grouped_decode(const char *name, const fc_kparams *k, fc_cutlass_groups *out,
                               char *why, size_t n)
{
    if (name == NULL || strstr(name, "11GemmGroupedI") == NULL) {
        snprintf(why, n, "not a CUTLASS 2 GemmGrouped: its Params layout is not known");
        return -1;
    }
    if (fc_kp_check_call(k, "CUTLASS Kernel<GemmGrouped>", why, n) != 0)
        return -1;
    int64_t size = k->size > 0 ? k->size : k->avail;
    if (size > 0 && size < FC_CUTLASS2_GROUPED_MIN_BYTES) {
        snprintf(why, n,
                 "parameter 0 is %lld bytes, less than the %d of the problem visitor's Params "
                 "and threadblock_count",
                 (long long)size, FC_CUTLASS2_GROUPED_MIN_BYTES);
        return -1;
    }
    const char *p = k->p;
    uint64_t sizes;
    int32_t groups, tiles, blocks;
    memcpy(&sizes, p, sizeof sizes);
    memcpy(&groups, p + 8, sizeof groups);
    memcpy(&tiles, p + 24, sizeof tiles);
    memcpy(&blocks, p + 32, sizeof blocks);
    if (groups < 1 || groups > FC_CUTLASS_GROUPED_MAX_GROUPS) {
        snprintf(why, n, "%d problems, out of 1..%d", (int)groups, FC_CUTLASS_GROUPED_MAX_GROUPS);
        return -1;
    }
    if (sizes == 0 || sizes % 4 != 0) {
        snprintf(why, n, "problem_sizes %s", sizes == 0 ? "is NULL" : "is not 4-byte aligned");
        return -1;
    }
    if (tiles < 0) {
        snprintf(why, n, "tile_count %d is negative", (int)tiles);
        return -1;
    }
    if (blocks < 1 || (k->grid[0] > 0 && (unsigned)blocks != k->grid[0])) {
        snprintf(why, n, "threadblock_count %d, not the grid's %u", (int)blocks, k->grid[0]);
        return -1;
    }
    out->groups = groups;
    out->shapes = (const void *)(uintptr_t)sizes;
    out->dtype = dtype_of_name(name);
    return 0;
}
