/* SPDX-License-Identifier: Apache-2.0 */
/* hook.h - the one shape of every hook (uftrace-style): resolve the real
 * function, enter the recursion guard, make the real call with exactly the
 * caller's arguments, describe it, count the outermost call on the thread
 * (ring/hotpath.h), leave; the real status is returned and errno is what
 * the real function left. */
#ifndef FC_HOOK_H
#define FC_HOOK_H

#include <errno.h>

#include "core/api.h"
#include "core/base.h"
#include "core/gemm.h"
#include "core/guard.h"
#include "core/options.h"
#include "core/resolve.h"
#include "cupti/cupti_layer.h"
#include "dtype.h"
#include "ring/hotpath.h"
#include "ring/ring.h"

/* 1 for the outermost intercepted call on this thread. */
static inline int fc_hook_begin(void)
{
    return fc_enter();
}

/* Ends a hook: counts the outermost call (errno untouched), leaves. */
static inline void fc_hook_end(int outer, const fc_gemm *g, int ok)
{
    if (outer && FC_LIKELY(fc_is_enabled()))
        fc_ring_count(g, ok);
    fc_leave();
}

/* The GPU (cuBLAS, cuBLASLt) hooks: the same, plus what CUPTI needs around
 * the real call (cupti/cupti_layer.h) - one load and test while nothing of
 * it is on. begin: before forwarding; returns the outer flag, with bit 2
 * set when the cupti layer took part (so the end runs without another
 * load: a capture that begins after this point cannot hold this call). */
static inline int fc_hook_begin_gpu(void)
{
    int outer = fc_enter();
    if (FC_UNLIKELY(fc_cupti_hot_get()) && outer) {
        int saved = errno;
        fc_cupti_call_begin();
        errno = saved;
        return outer | 2;
    }
    return outer;
}

/* After forwarding, when begin involved the cupti layer: 1 when g was
 * issued on a capturing stream and recorded against the capture instead of
 * counted. */
static inline int fc_hook_diverted_gpu(int outer, fc_gemm *g, int ok)
{
    if (FC_LIKELY(!(outer & 2)))
        return 0;
    int saved = errno;
    int d = fc_cupti_call_end(g, ok);
    errno = saved;
    return d;
}

static inline void fc_hook_end_gpu(int outer, fc_gemm *g, int ok)
{
    if (fc_hook_diverted_gpu(outer, g, ok)) {
        fc_leave();
        return;
    }
    fc_hook_end(outer, g, ok);
}

#endif
