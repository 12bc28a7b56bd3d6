/* SPDX-License-Identifier: Apache-2.0 */
/* copies.h - the loaded copies of each library family the hooks forward
 * to, and each copy's real functions.
 *
 * Copy 0 of a family is the default: the functions fc_resolve finds, which
 * a program's linked calls reach. A process can hold other copies of the
 * same library (pip's libcublas.so.12 beside the toolkit's, one library
 * file under two paths). A dlsym or dlvsym on one of them (hooks/dlsym.c)
 * claims slot 1..FC_COPIES-1 of its family for that object and answers with
 * hooks bound to the slot: they forward to that object's functions and ask
 * its own helpers (cublasGetMathMode, the cuBLASLt descriptor getters,
 * cublasGetStream_v2), never another copy's. A slot is claimed with one
 * compare-and-swap and never freed (the object is pinned, RTLD_NODELETE):
 * no lock, nothing that fork could leave held.
 *
 * A hook bound to copy i also marks the thread (fc_tls_copy) while the real
 * call runs, so that a GEMM entry point the library calls inside, which
 * lands in the shim's exported hook through the PLT, still reaches copy i's
 * function (what that library's own lookup would find), not copy 0's. */
#ifndef FC_COPIES_H
#define FC_COPIES_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "base.h"
#include "resolve.h"

#define FC_COPIES 4 /* per family: the default and three more */

/* Symbol ids: each interposed entry point (2 * api, + 1 for the _64 twin),
 * then the library functions the hooks call themselves. */
#define FC_SYM_OF(api, flags) (2u * (unsigned)(api) + ((flags) & FC_API_64))
enum {
    FC_SYM_CUBLAS_GET_MATH_MODE = 2 * FC_API_COUNT, /* cublasGetMathMode */
    FC_SYM_CUBLAS_GET_STREAM,                       /* cublasGetStream_v2 */
    FC_SYM_LT_DESC_GET,                             /* cublasLtMatmulDescGetAttribute */
    FC_SYM_LT_LAYOUT_GET,                           /* cublasLtMatrixLayoutGetAttribute */
    /* the cuDNN backend API (hooks/cudnn.c) */
    FC_SYM_CUDNN_CREATE,     /* cudnnBackendCreateDescriptor */
    FC_SYM_CUDNN_DESTROY,    /* cudnnBackendDestroyDescriptor */
    FC_SYM_CUDNN_INITIALIZE, /* cudnnBackendInitialize */
    FC_SYM_CUDNN_SET,        /* cudnnBackendSetAttribute */
    FC_SYM_CUDNN_GET,        /* cudnnBackendGetAttribute */
    FC_SYM_CUDNN_FINALIZE,   /* cudnnBackendFinalize */
    FC_SYM_CUDNN_EXECUTE,    /* cudnnBackendExecute */
    FC_SYM_CUDNN_POPULATE,   /* cudnnBackendPopulateCudaGraph */
    FC_SYM_CUDNN_UPDATE,     /* cudnnBackendUpdateCudaGraph */
    FC_SYM_CUDNN_GET_STREAM, /* cudnnGetStream */
    FC_SYM_COUNT
};

/* real[] value of a name a copy (other than 0) does not define. */
#define FC_COPY_ABSENT ((void *)1)

typedef struct fc_copy {
    void *real[FC_SYM_COUNT]; /* atomic; NULL: not looked up yet */
    const void *base;         /* atomic; copies 1..: load address of the object, NULL: free */
} fc_copy;

extern fc_copy fc_copies[FC_LIB_COUNT][FC_COPIES];
/* The copy whose hook is running on this thread; NULL outside, or in a
 * hook of a copy 0. */
extern FC_TLS fc_copy *fc_tls_copy;

static inline unsigned fc_copy_index(const fc_copy *cp)
{
    return (unsigned)((cp - &fc_copies[0][0]) % FC_COPIES);
}

static inline int fc_copy_lib(const fc_copy *cp)
{
    return (int)((cp - &fc_copies[0][0]) / FC_COPIES);
}

/* cp's function sym (named name): looked up the first time (copy 0 with
 * fc_resolve, retried while missing; other copies in their own object and
 * its dependencies, once). NULL when there is none. */
void *fc_copy_resolve(fc_copy *cp, unsigned sym, const char *name);

/* The same, after the first time one load and one test. */
static inline void *fc_copy_fn(fc_copy *cp, unsigned sym, const char *name)
{
    void *fn = __atomic_load_n(&cp->real[sym], __ATOMIC_ACQUIRE);
    if (FC_UNLIKELY((uintptr_t)fn <= (uintptr_t)FC_COPY_ABSENT))
        fn = fc_copy_resolve(cp, sym, name);
    return fn;
}

/* The copy of family lib that is the object loaded at base: the slot it
 * has, or a free one it now takes. NULL when every slot is taken. */
fc_copy *fc_copy_claim(int lib, const void *base);

/* Records fn as copy cp's function sym: 1 when that is (now or already)
 * what cp has, 0 when cp already has another function under that id. */
int fc_copy_bind(fc_copy *cp, unsigned sym, void *fn);

/* What a hook of copy cp forwards to when it is not the outermost GEMM
 * call on the thread: inside a call of another copy (fc_tls_copy), that
 * copy's function sym, when it has one; otherwise fn. Only copy 0's hooks
 * (the exported ones, which a library's PLT calls reach) look. */
static inline void *fc_copy_nested(fc_copy *cp, void *fn, unsigned sym, const char *name)
{
    fc_copy *in = fc_tls_copy;
    if (fc_copy_index(cp) != 0 || in == NULL)
        return fn;
    void *own = fc_copy_fn(in, sym, name);
    return own != NULL ? own : fn;
}

/* Around a hook's real call: a copy other than 0 marks the thread. */
static inline fc_copy *fc_copy_enter(fc_copy *cp)
{
    if (fc_copy_index(cp) == 0)
        return NULL;
    fc_copy *prev = fc_tls_copy;
    fc_tls_copy = cp;
    return prev;
}

static inline void fc_copy_leave(fc_copy *cp, fc_copy *prev)
{
    if (fc_copy_index(cp) != 0)
        fc_tls_copy = prev;
}

#endif
