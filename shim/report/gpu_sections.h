/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_sections.h - the report sections that come from the cupti layer:
 * "cupti" (status), "graphs" (graphs_json.c), "kernels" (kernels_json.c)
 * and "hw_flops" (hwflops_json.c), and their summary lines. Called by
 * sections.c with the detector drained and the drain lock held. Field
 * meanings: docs/report-schema.md, docs/cupti.md, docs/hw-flops.md. */
#ifndef FC_REPORT_GPU_SECTIONS_H
#define FC_REPORT_GPU_SECTIONS_H

#include "detect/steps.h"
#include "jsonw.h"

/* What the sections need of the iterations: the list of the current mode
 * and the per-device peak HFU is measured against (0: none). */
typedef struct fc_gpu_ctx {
    const fc_steps_view *v;
    double peak_flops;
    int interrupted;
    int final;
} fc_gpu_ctx;

void fc_report_cupti_json(fc_jw *w);
void fc_report_graphs_json(fc_jw *w);
void fc_report_graphs_text(int fd);
void fc_report_kernels_json(fc_jw *w, const fc_gpu_ctx *c);
void fc_report_kernels_text(int fd, const fc_gpu_ctx *c);
void fc_report_hwflops_json(fc_jw *w, const fc_gpu_ctx *c);
void fc_report_hwflops_text(int fd, const fc_gpu_ctx *c);

/* All of them, in that order (the JSON members / the summary lines); the
 * kernel and counter records are attributed to iterations first. */
void fc_report_gpu_json(fc_jw *w, const fc_gpu_ctx *c);
void fc_report_gpu_text(int fd, const fc_gpu_ctx *c);

#endif
