/* SPDX-License-Identifier: Apache-2.0 */
/* run_rec.h - the rows a run's report is made of that a sum of runs adds
 * up: one GEMM shape of "shapes", one member of "by_api" / "by_dtype".
 * One run's reader (analysis/io/report_read.h) and the sum of N runs
 * (run_sum.h) give the same rows, so one renderer takes either. */
#ifndef FC_RUN_REC_H
#define FC_RUN_REC_H

#include <stdint.h>

#include "schema_groups.h"
#include "u128.h"

typedef struct fc_report_shape {
    char api[48];
    int overflow;                               /* the bucket of shapes beyond the shim's table */
    int64_t m, n, k, batch;                     /* -1 in the overflow bucket */
    char transa, transb;                        /* 'N', 'T', 'C'; '?' when absent */
    char dtype[24], out_dtype[24], compute[32]; /* "" when absent or null */
    uint64_t calls, failed_calls;
    fc_u128 flops;
} fc_report_shape;

typedef struct fc_report_group { /* one member of "by_api" or "by_dtype" */
    char name[48];
    FC_GROUP_FIELDS(FC_SCHEMA_MEMBER, _) /* calls, flops (schema_groups.h) */
} fc_report_group;

#endif
