/* SPDX-License-Identifier: Apache-2.0 */
/* grouped_fill.c - prepare_grouped_gemm_data's launch parameters decoded
 * (grouped_fill.h), each value checked; the bound or exact FLOPs of the
 * CUTLASS grouped GEMM it feeds, worked out case by case from what the
 * kernel writes (ATen GroupMMCommon.cuh, PyTorch 2.15):
 *   M < 0 (A 2D, B 3D):  m_g = offs[g] - offs[g-1], sum <= shape_a[0]
 *   N < 0 (A 3D, B 2D):  n_g = delta,               sum <= shape_b[1]
 *   K < 0 (A 2D, B 2D):  k_g = delta,               sum <= shape_a[1]
 *   else  (3D x 3D):     every group M x N x K, G = blockDim.x groups. */
#include "grouped_fill.h"

#include <stdio.h>
#include <string.h>

#define FILL_PREFIX "_ZN2at4cuda6detail25prepare_grouped_gemm_data"
/* The parameter list after the 14 pointers, PyTorch 2.15: offs (int
 * const*), M, N, K, five std::array<long, 3> (the first spelled out, the
 * other four a substitution, S<seq-id>_, whose number depends on the
 * instance: SZ_ forward, S10_ backward), two long, two bool. */
#define FILL_TAIL_215 "PKiiiiSt5arrayIlLm3EE"
#define FILL_END_215 "llbb"

enum { P_PROBLEM = 10, P_OFFS = 14, P_M = 15, P_N = 16, P_K = 17, P_SHAPE_A = 21, P_SHAPE_B = 22 };

int fc_grouped_fill_is(const char *name)
{
    return name != NULL && strncmp(name, FILL_PREFIX, sizeof FILL_PREFIX - 1) == 0;
}

/* 1 when name ends with FILL_TAIL_215, four times one substitution, then
 * FILL_END_215. */
static int layout_215(const char *name)
{
    const char *t = strstr(name, FILL_TAIL_215);
    if (t == NULL)
        return 0;
    const char *p = t + sizeof FILL_TAIL_215 - 1, *sub = p;
    size_t len = 0;
    for (int i = 0; i < 4; i++) {
        const char *q = p;
        if (*q++ != 'S')
            return 0;
        while ((*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'Z'))
            q++;
        if (*q++ != '_')
            return 0;
        if (i == 0)
            len = (size_t)(q - p);
        else if ((size_t)(q - p) != len || strncmp(p, sub, len) != 0)
            return 0;
        p = q;
    }
    return strcmp(p, FILL_END_215) == 0;
}

/* The size each parameter must have, by index (pointers 8, ints 4,
 * arrays 24, longs 8, bools 1). */
static int64_t want_size(int i)
{
    if (i <= P_OFFS)
        return 8;
    if (i <= P_K)
        return 4;
    if (i <= P_SHAPE_B)
        return 24;
    return i <= 24 ? 8 : 1;
}

int fc_grouped_fill_decode(const char *name, void *const *args, int nparams,
                           const int64_t *sizes, unsigned block_x, fc_grouped_fill *out,
                           char *why, size_t n)
{
    if (!fc_grouped_fill_is(name) || !layout_215(name)) {
        snprintf(why, n, "not the PyTorch 2.15 prepare_grouped_gemm_data: its layout is not known");
        return -1;
    }
    if (args == NULL) {
        snprintf(why, n, "no kernelParams array (a packed buffer is not read)");
        return -1;
    }
    if (nparams >= 0 && nparams != FC_GROUPED_FILL_NPARAMS) {
        snprintf(why, n, "%d parameters, not the %d of the 2.15 layout", nparams,
                 FC_GROUPED_FILL_NPARAMS);
        return -1;
    }
    for (int i = 0; sizes != NULL && i < FC_GROUPED_FILL_NPARAMS; i++)
        if (sizes[i] != want_size(i)) {
            snprintf(why, n, "parameter %d is %lld bytes, not %lld", i, (long long)sizes[i],
                     (long long)want_size(i));
            return -1;
        }
    for (int i = 0; i < FC_GROUPED_FILL_NPARAMS; i++)
        if (args[i] == NULL) {
            snprintf(why, n, "parameter %d's pointer is NULL", i);
            return -1;
        }
    uint64_t ps, offs;
    memcpy(&ps, args[P_PROBLEM], 8);
    memcpy(&offs, args[P_OFFS], 8);
    memcpy(&out->m, args[P_M], 4);
    memcpy(&out->n, args[P_N], 4);
    memcpy(&out->k, args[P_K], 4);
    memcpy(out->shape_a, args[P_SHAPE_A], 24);
    memcpy(out->shape_b, args[P_SHAPE_B], 24);
    if (ps == 0 || ps % 4 != 0) {
        snprintf(why, n, "problem_sizes %s", ps == 0 ? "is NULL" : "is not 4-byte aligned");
        return -1;
    }
    if (block_x < 1 || block_x > FC_GROUPED_FILL_MAX_GROUPS) {
        snprintf(why, n, "blockDim.x %u, out of 1..%d groups", block_x, FC_GROUPED_FILL_MAX_GROUPS);
        return -1;
    }
    int neg = (out->m < 0) + (out->n < 0) + (out->k < 0);
    int ragged = out->m < 0 ? FC_GF_RAGGED_M : out->n < 0 ? FC_GF_RAGGED_N
                 : out->k < 0 ? FC_GF_RAGGED_K : FC_GF_RAGGED_NONE;
    if (neg > 1 || (neg == 1 && (out->m < -1 || out->n < -1 || out->k < -1))) {
        snprintf(why, n, "M %d, N %d, K %d: at most one may be -1 (the dimension offs splits)",
                 (int)out->m, (int)out->n, (int)out->k);
        return -1;
    }
    if ((ragged != FC_GF_RAGGED_NONE) != (offs != 0)) {
        snprintf(why, n, "offs %s but M %d, N %d, K %d", offs ? "given" : "NULL", (int)out->m,
                 (int)out->n, (int)out->k);
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if (out->shape_a[i] < 0 || out->shape_b[i] < 0) {
            snprintf(why, n, "a negative operand extent");
            return -1;
        }
    out->problem_sizes = (const void *)(uintptr_t)ps;
    out->offs = (const void *)(uintptr_t)offs;
    out->groups = (int32_t)block_x;
    out->ragged = ragged;
    return 0;
}

/* The ragged dimension's extent: what the groups' deltas sum to at most. */
static int64_t ragged_extent(const fc_grouped_fill *f)
{
    switch (f->ragged) {
    case FC_GF_RAGGED_M:
        return f->shape_a[0];
    case FC_GF_RAGGED_N:
        return f->shape_b[1];
    case FC_GF_RAGGED_K:
        return f->shape_a[1];
    default:
        return 0;
    }
}

static uint64_t flops_of(const fc_grouped_fill *f, int64_t ragged_sum)
{
    uint64_t m = (uint64_t)(f->ragged == FC_GF_RAGGED_M ? ragged_sum : f->m);
    uint64_t nn = (uint64_t)(f->ragged == FC_GF_RAGGED_N ? ragged_sum : f->n);
    uint64_t k = (uint64_t)(f->ragged == FC_GF_RAGGED_K ? ragged_sum : f->k);
    return 2u * m * nn * k;
}

int fc_grouped_fill_bound(const fc_grouped_fill *f, uint64_t *flops, char *why, size_t n)
{
    static const char *const dim[] = {"", "M", "N", "K"};
    static const char *const op[] = {"", "A's rows", "B's columns", "A's columns"};
    if (f->ragged == FC_GF_RAGGED_NONE) {
        *flops = (uint64_t)f->groups * flops_of(f, 0);
        snprintf(why, n, "%d groups of M %d N %d K %d (3D x 3D)", (int)f->groups,
                 (int)f->m, (int)f->n, (int)f->k);
        return 1;
    }
    int64_t ext = ragged_extent(f);
    *flops = flops_of(f, ext);
    snprintf(why, n, "offs splits %s: sum at most %s (%lld); M %d N %d K %d", dim[f->ragged],
             op[f->ragged], (long long)ext, (int)f->m, (int)f->n, (int)f->k);
    return 0;
}

int fc_grouped_fill_exact(const fc_grouped_fill *f, const int32_t *offs, uint64_t *flops,
                          char *why, size_t n)
{
    if (f->ragged == FC_GF_RAGGED_NONE) {
        char w[8];
        fc_grouped_fill_bound(f, flops, w, sizeof w);
        return 0;
    }
    int64_t ext = ragged_extent(f), prev = 0;
    for (int g = 0; g < f->groups; g++) {
        if (offs[g] < prev || offs[g] > ext) {
            snprintf(why, n, "offs[%d] = %d is not in %lld..%lld", g, (int)offs[g],
                     (long long)prev, (long long)ext);
            return -1;
        }
        prev = offs[g];
    }
    /* every group's product shares the two fixed extents: the sum of the
     * ragged ones is the last end */
    *flops = flops_of(f, prev);
    return 0;
}
