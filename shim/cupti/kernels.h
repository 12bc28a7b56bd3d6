/* SPDX-License-Identifier: Apache-2.0 */
/* kernels.h - kernel timing as the report reads it (kernels.c): GPU busy
 * time, kernel time by class, per GEMM shape, per iteration. Read with
 * the drain lock held, after fc_cupti_before_report and
 * fc_kernels_attribute(1). */
#ifndef FC_CUPTI_KERNELS_H
#define FC_CUPTI_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "kernel_class.h"

typedef struct fc_kshape_row {
    uint32_t key; /* fc_site_key of the GEMM shape */
    uint64_t ns;  /* kernel time */
    uint64_t kernels;
    uint64_t calls; /* calls whose kernels were seen (their first kernel) */
} fc_kshape_row;

typedef struct fc_kname_row {
    char name[112]; /* as CUPTI gave it, truncated */
    int cls;        /* enum fc_kclass */
    uint64_t ns, kernels;
} fc_kname_row;

/* One training iteration on the GPU timeline: from the first kernel a
 * call of the iteration issued to the first kernel of the next iteration
 * (or, for the last one and one followed by a gap, the end of its own
 * kernels); every kernel starting in it belongs to it. */
typedef struct fc_kiter {
    int has;          /* it issued kernels: the figures below are set */
    uint64_t g0, g1;  /* GPU ns (CUPTI timestamps) */
    uint64_t busy_ns; /* union of its kernels, within [g0, g1) */
    uint64_t ns[FC_K_COUNT];
    uint64_t kernels;
} fc_kiter;

typedef struct fc_kernels_view {
    uint64_t kernels, dropped, pending_overflow;
    uint64_t ns[FC_K_COUNT], count[FC_K_COUNT];
    uint64_t unknown_shape_ns, unknown_shape_kernels; /* GEMM kernels whose call was forgotten */
    uint64_t busy_ns, span_ns; /* union of all kernels; first start to last end */
    uint64_t outside_ns;       /* kernel time in no iteration */
    int devices;               /* devices seen (busy time treats them as one timeline) */
    const fc_kshape_row *shapes;
    size_t n_shapes;
    const fc_kname_row *names; /* most time first */
    size_t n_names;
    uint64_t other_names_ns[FC_K_COUNT]; /* kernels whose names did not fit the table */
    const fc_kiter *iters;               /* index i is iteration i + 1 of the current mode */
    size_t n_iters;
} fc_kernels_view;

/* Attributes pending kernels to finished iterations (drain lock held);
 * final: everything left, at the report. */
void fc_kernels_attribute(int final);
/* Fills v; 0 when kernel timing ran (else -1: nothing to show). The
 * arrays stay valid until the next call. */
int fc_kernels_get(fc_kernels_view *v);
/* The GPU span of iteration index (1-based) of the current mode: 0 when
 * known, 1 when the iteration is attributed but issued no kernel, -1 when
 * it is not attributed yet. For hardware FLOPs. */
int fc_kernels_iter_span(uint64_t index, uint64_t *g0, uint64_t *g1);

#endif
