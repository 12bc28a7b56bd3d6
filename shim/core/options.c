/* SPDX-License-Identifier: Apache-2.0 */
/* options.c - one table of FLOPCOUNT_* variables, parsed strictly once. */
#include "options.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "diag.h"

fc_options fc_opt = {.callsites = 1, .detect_repeat = 1, .nvtx_step = "step",
                     .prometheus_seconds = 15};

enum kind { K_BOOL, K_U64, K_DOUBLE, K_STR, K_REPEAT /* 0, 1 or check (2) */ };

static const struct {
    const char *name;
    enum kind kind;
    void *dst;
    size_t size; /* K_STR: buffer size */
    double max;  /* K_U64 / K_DOUBLE upper bound */
    const char *expect;
} table[] = {
    {"FLOPCOUNT_DISABLE", K_BOOL, &fc_opt.disable, 0, 0, "0 or 1"},
    {"FLOPCOUNT_QUIET", K_BOOL, &fc_opt.quiet, 0, 0, "0 or 1"},
    {"FLOPCOUNT_SUMMARY_ALWAYS", K_BOOL, &fc_opt.summary_always, 0, 0, "0 or 1"},
    {"FLOPCOUNT_OUTPUT", K_STR, fc_opt.output, sizeof fc_opt.output, 0, "a file path"},
    {"FLOPCOUNT_LOG_EVERY", K_U64, &fc_opt.log_every, 0, 1e9, "a whole number of iterations"},
    {"FLOPCOUNT_PEAK_TFLOPS", K_DOUBLE, &fc_opt.peak_tflops, 0, 1e7, "a positive TFLOP/s figure"},
    {"FLOPCOUNT_SNAPSHOT_SECONDS", K_DOUBLE, &fc_opt.snapshot_seconds, 0, 1e6, "seconds"},
    {"FLOPCOUNT_NVTX_STEP", K_STR, fc_opt.nvtx_step, sizeof fc_opt.nvtx_step, 0, "a range name"},
    {"FLOPCOUNT_LOG_ALL_RANKS", K_BOOL, &fc_opt.log_all_ranks, 0, 0, "0 or 1"},
    {"FLOPCOUNT_CALLSITES", K_BOOL, &fc_opt.callsites, 0, 0, "0 or 1"},
    {"FLOPCOUNT_DETECT_REPEAT", K_REPEAT, &fc_opt.detect_repeat, 0, 0, "0, 1 or check"},
    {"FLOPCOUNT_PROMETHEUS", K_STR, fc_opt.prometheus, sizeof fc_opt.prometheus, 0, "a directory"},
    {"FLOPCOUNT_PROMETHEUS_SECONDS", K_DOUBLE, &fc_opt.prometheus_seconds, 0, 1e6, "seconds"},
    {"FLOPCOUNT_TENSORBOARD", K_STR, fc_opt.tensorboard, sizeof fc_opt.tensorboard, 0, "a directory"},
    {"FLOPCOUNT_CUPTI", K_STR, fc_opt.cupti, sizeof fc_opt.cupti, 0, "0 or a library path"},
    {"FLOPCOUNT_KERNELS", K_BOOL, &fc_opt.kernels, 0, 0, "0 or 1"},
    {"FLOPCOUNT_HW_FLOPS", K_BOOL, &fc_opt.hw_flops, 0, 0, "0 or 1"},
    {"FLOPCOUNT_READ_DEVICE_SIZES", K_BOOL, &fc_opt.read_device_sizes, 0, 0, "0 or 1"},
    {"FLOPCOUNT_RUN_DIR", K_STR, fc_opt.run_dir, sizeof fc_opt.run_dir, 0, "a directory"},
    {"FLOPCOUNT_RUN_ID", K_STR, fc_opt.run_id, sizeof fc_opt.run_id, 0, "a run id"},
    {"FLOPCOUNT_NULL_GPU", K_STR, fc_opt.null_gpu, sizeof fc_opt.null_gpu, 0, "a device kind"},
};

void fc_options_load(void)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const char *v = getenv(table[i].name);
        if (v == NULL || *v == '\0')
            continue;
        int ok = 0;
        switch (table[i].kind) {
        case K_BOOL:
            ok = fc_parse_bool(v, (int *)table[i].dst) == 0;
            break;
        case K_U64:
            ok = fc_parse_u64(v, (uint64_t)table[i].max, (uint64_t *)table[i].dst) == 0;
            break;
        case K_DOUBLE:
            ok = fc_parse_double(v, 0.0, table[i].max, (double *)table[i].dst) == 0;
            break;
        case K_REPEAT:
            if (strcmp(v, "check") == 0)
                *(int *)table[i].dst = 2, ok = 1;
            else
                ok = fc_parse_bool(v, (int *)table[i].dst) == 0;
            break;
        case K_STR:
            ok = strlen(v) < table[i].size;
            if (ok)
                memcpy(table[i].dst, v, strlen(v) + 1);
            break;
        }
        if (!ok)
            fc_warn("%s='%.64s' is not %s; ignored", table[i].name, v, table[i].expect);
    }
}
