/* SPDX-License-Identifier: Apache-2.0 */
/* render_gpu.h - the CUPTI sections of a report (graphs, kernel split,
 * hardware FLOPs) as 'flopcount report' and 'flopcount merge' print them:
 * text for people, and JSON in the layout the shim writes (so a merged
 * report reads back the same way). text/text_gpu.c, json/json_gpu.c. */
#ifndef FC_TOOLS_REPORT_GPU_OUT_H
#define FC_TOOLS_REPORT_GPU_OUT_H

#include "jsonw.h"
#include "report_gpu.h"

/* Lines under a "GPU (CUPTI)" heading; nothing when the report has none of
 * the sections. */
void fci_gpu_print_text(const fc_report_gpu *g);
/* "graphs", "kernels" / "kernels_reason", "hw_flops" members of the open
 * object (null when absent). */
void fci_gpu_print_json(fc_jw *w, const fc_report_gpu *g);

#endif
