/* SPDX-License-Identifier: Apache-2.0 */
/* guard.h - the per-thread recursion guard: only the outermost intercepted
 * GEMM call on a thread is counted (libcublas calling cublasLtMatmul, CBLAS
 * calling the Fortran routine), and threads of the shim itself (drainer,
 * snapshots) raise it once so nothing they do counts as the program's. */
#ifndef FC_GUARD_H
#define FC_GUARD_H

#include "base.h"

extern FC_TLS int fc_tls_depth;

/* 1 when this is the outermost call on the thread; always pair with fc_leave. */
static inline int fc_enter(void)
{
    return fc_tls_depth++ == 0;
}

static inline void fc_leave(void)
{
    fc_tls_depth--;
}

#endif
