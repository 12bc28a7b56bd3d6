/* SPDX-License-Identifier: Apache-2.0 */
/* merge_gpu.h - the CUPTI sections of the ranks summed for the job
 * (merge_gpu.c). One merge per process: the sums are kept here. */
#ifndef FC_MERGE_GPU_H
#define FC_MERGE_GPU_H

#include <stddef.h>

#include "report_gpu.h"

/* Adds the sections of one rank's report (as fc_report_gpu_load read them);
 * -1 with a reason (out of memory). */
int fc_merge_gpu_add(const fc_report_gpu *g, char *err, size_t errlen);
/* The job's sections (valid until fc_merge_gpu_free). */
const fc_report_gpu *fc_merge_gpu_result(void);
void fc_merge_gpu_free(void);

#endif
