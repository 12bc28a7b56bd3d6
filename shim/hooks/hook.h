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

#endif
