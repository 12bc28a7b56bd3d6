/* SPDX-License-Identifier: Apache-2.0 */
/* public.c - every exported entry point that is not a GEMM hook: the
 * flopcount_* API of include/flopcount.h and the NVTX injection entry
 * (InitializeInjectionNvtx2, looked up by NVTX through
 * NVTX_INJECTION64_PATH). Each one initializes the library first. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/base.h"
#include "core/options.h"
#include "core/rank.h"
#include "count/counters.h"
#include "cupti/cupti_layer.h"
#include "detect/irec.h"
#include "dtype.h"
#include "flopcount.h"
#include "hooks/nvtx_install.h"
#include "init.h"
#include "report/figures.h"
#include "ring/ring.h"
#include "signals.h"

FC_EXPORT const char *flopcount_version(void)
{
    return FLOPCOUNT_VERSION_STRING;
}

_Static_assert(offsetof(flopcount_snapshot, flags) == FLOPCOUNT_SNAPSHOT_V1_SIZE,
               "version 1 of flopcount_snapshot ends where version 2 begins");
_Static_assert(offsetof(flopcount_snapshot, hfu_mix) == FLOPCOUNT_SNAPSHOT_V2_SIZE,
               "version 2 of flopcount_snapshot ends where version 3 begins");

static double no_peak(void *ctx, int dtype, char *why, size_t n)
{
    (void)ctx, (void)dtype;
    snprintf(why, n, "no peak");
    return 0;
}

static void split_u128(fc_u128 v, uint64_t *lo, uint64_t *hi)
{
    *lo = (uint64_t)v;
    *hi = (uint64_t)(v >> 64);
}

/* The dtype mix (version 3): shares always, peaks and hfu_mix with the
 * utilization, as the report's "utilization" section has them. */
static void fill_mix(const fc_figures *f, flopcount_snapshot *s)
{
    static fc_mix shares; /* the drain lock serializes callers */
    const fc_mix *m = &f->mix;
    if (!f->util_ok) { /* no peaks: the terms alone, from the same FLOPs */
        static const fc_mix_peaks none = {no_peak, NULL, NULL};
        fc_mix_compute(f->by_dtype, f->flops, f->median_seconds, 1, &none, &shares);
        m = &shares;
    }
    s->mix_count = (uint32_t)m->n;
    for (int i = 0; i < m->n && i < FLOPCOUNT_SNAPSHOT_MIX_MAX; i++) {
        snprintf(s->mix[i].dtype, sizeof s->mix[i].dtype, "%s", fc_dtype_name(m->t[i].dtype));
        s->mix[i].share = m->t[i].share;
        s->mix[i].peak_flops = m->t[i].peak;
    }
    if (!f->util_ok)
        return;
    if (f->mix_ok) {
        s->flags |= FLOPCOUNT_SNAPSHOT_MIX;
        s->hfu_mix = f->hfu_mix;
    } else {
        snprintf(s->mix_reason, sizeof s->mix_reason, "%.127s", m->reason);
    }
}

/* The figures (report/figures.c) into the public struct. */
static void fill_figures(const fc_figures *f, flopcount_snapshot *s)
{
    static const uint32_t by_mode[] = {
        [FC_MODE_NONE] = FLOPCOUNT_DETECTED_NONE, [FC_MODE_AUTO] = FLOPCOUNT_DETECTED_AUTO,
        [FC_MODE_MARKER] = FLOPCOUNT_DETECTED_MARKER, [FC_MODE_NVTX] = FLOPCOUNT_DETECTED_NVTX,
        [FC_MODE_OPTIM] = FLOPCOUNT_DETECTED_OPTIMIZER};
    s->flags |= FLOPCOUNT_SNAPSHOT_DETECTOR;
    s->iterations = f->v.count;
    s->detected_by = f->v.count > 0 && f->v.mode >= 0 && f->v.mode <= FC_MODE_LAST
                         ? by_mode[f->v.mode]
                         : FLOPCOUNT_DETECTED_NONE;
    s->eval_passes = f->ev.count;
    split_u128(f->v.rec, &s->recompute_flops_lo, &s->recompute_flops_hi);
    s->recompute_fraction = f->recompute_fraction;
    if (f->v.unsure_mfu > 0)
        s->flags |= FLOPCOUNT_SNAPSHOT_SPLIT_GUESSED;
    if (f->have_last) {
        s->flags |= FLOPCOUNT_SNAPSHOT_LAST_TIME;
        s->last_iteration_seconds = f->last_seconds;
    }
    s->steady_iterations = f->steady;
    if (f->steady > 0) {
        s->flags |= FLOPCOUNT_SNAPSHOT_MEDIANS;
        s->median_iteration_seconds = f->median_seconds;
        split_u128(f->flops, &s->iteration_flops_lo, &s->iteration_flops_hi);
        split_u128(f->rec, &s->iteration_recompute_flops_lo, &s->iteration_recompute_flops_hi);
    }
    if (f->util_ok) {
        s->flags |= FLOPCOUNT_SNAPSHOT_UTILIZATION;
        s->hfu = f->hfu;
        s->mfu = f->mfu;
        s->peak_flops = f->pc.flops;
        snprintf(s->peak_source, sizeof s->peak_source, "%s", f->pc.source);
        snprintf(s->peak_dtype, sizeof s->peak_dtype, "%s", fc_dtype_name(f->pc.dtype));
    }
    fill_mix(f, s);
}

FC_EXPORT int flopcount_snapshot_get(flopcount_snapshot *out)
{
    if (out == NULL || out->size < FLOPCOUNT_SNAPSHOT_V1_SIZE)
        return -1;
    int saved = errno;
    fc_init();
    flopcount_snapshot s;
    memset(&s, 0, sizeof s);
    s.size = out->size;
    s.version = FLOPCOUNT_SNAPSHOT_VERSION;
    s.flags = fc_is_enabled() ? FLOPCOUNT_SNAPSHOT_COUNTING : 0;
    s.rank = fc_rank.rank;
    s.local_rank = fc_rank.local_rank;
    s.world_size = fc_rank.world_size;
    static fc_figures f; /* the drain lock serializes its users */
    if (fc_ring_collect(0) == 0) {
        fc_figures_compute(&f, 1);
        fill_figures(&f, &s);
        s.gemm_calls = f.totals.calls;
        split_u128(f.totals.flops, &s.gemm_flops_lo, &s.gemm_flops_hi);
        s.failed_calls = f.totals.failed_calls;
        s.invalid_calls = f.totals.invalid_calls;
        fc_ring_release();
    } else { /* the detector stayed busy: the counters alone */
        fc_totals t;
        fc_counters_totals(&t);
        s.gemm_calls = t.calls;
        split_u128(t.flops, &s.gemm_flops_lo, &s.gemm_flops_hi);
        s.failed_calls = t.failed_calls;
        s.invalid_calls = t.invalid_calls;
    }
    memcpy(out, &s, out->size < sizeof s ? out->size : sizeof s);
    errno = saved;
    return 0;
}

FC_EXPORT int flopcount_write_report(void)
{
    fc_init();
    fc_cupti_before_report(0, 0);
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

static void mark_phase(int phase)
{
    int saved = errno;
    fc_init();
    fc_ring_mark_phase(FC_IREC_PHASE, phase);
    errno = saved;
}

FC_EXPORT void flopcount_forward_begin(void)
{
    mark_phase(FC_PH_FWD);
}

FC_EXPORT void flopcount_backward_begin(void)
{
    mark_phase(FC_PH_BWD);
}

FC_EXPORT void flopcount_recompute_begin(void)
{
    mark_phase(FC_PH_REC);
}

FC_EXPORT void flopcount_recompute_end(void)
{
    mark_phase(FC_PH_REC_END);
}

FC_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
    fc_init();
    return fc_nvtx_install(get_table);
}
