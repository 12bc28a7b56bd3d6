/* SPDX-License-Identifier: Apache-2.0 */
/* public.c - every exported entry point that is not a GEMM hook: the
 * flopcount_* API of include/flopcount.h and the NVTX injection entry
 * (InitializeInjectionNvtx2, looked up by NVTX through
 * NVTX_INJECTION64_PATH). Each one initializes the library first. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <string.h>

#include "core/base.h"
#include "count/counters.h"
#include "detect/irec.h"
#include "flopcount.h"
#include "hooks/nvtx_install.h"
#include "init.h"
#include "ring/ring.h"
#include "signals.h"

FC_EXPORT const char *flopcount_version(void)
{
    return FLOPCOUNT_VERSION_STRING;
}

FC_EXPORT int flopcount_snapshot_get(flopcount_snapshot *out)
{
    if (out == NULL || out->size < sizeof(flopcount_snapshot))
        return -1;
    fc_init();
    fc_totals t;
    fc_ring_sync(); /* calls still queued in the rings are counted first */
    fc_counters_totals(&t);
    out->version = FLOPCOUNT_SNAPSHOT_VERSION;
    out->gemm_calls = t.calls;
    out->gemm_flops_lo = (uint64_t)t.flops;
    out->gemm_flops_hi = (uint64_t)(t.flops >> 64);
    out->failed_calls = t.failed_calls;
    out->invalid_calls = t.invalid_calls;
    out->iterations = fc_ring_iterations();
    return 0;
}

FC_EXPORT int flopcount_write_report(void)
{
    fc_init();
    return fc_signals_write_report("running");
}

static void mark(int kind)
{
    int saved = errno;
    fc_init();
    fc_ring_mark(kind);
    errno = saved;
}

FC_EXPORT void flopcount_step(void)
{
    mark(FC_IREC_STEP);
}

FC_EXPORT void flopcount_eval_begin(void)
{
    mark(FC_IREC_EVAL_BEGIN);
}

FC_EXPORT void flopcount_eval_end(void)
{
    mark(FC_IREC_EVAL_END);
}

FC_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
    fc_init();
    return fc_nvtx_install(get_table);
}
