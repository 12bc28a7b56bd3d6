/* SPDX-License-Identifier: Apache-2.0 */
/* context.c - cuInit, the process lock, the primary context and the
 * per-thread context stack (cuCtx*, cuDevicePrimaryCtx*).
 *
 * The lock is a plain mutex taken around registry updates only (never while
 * calling out). pthread_atfork takes it before fork and the child starts with
 * a fresh one, so a child of a threaded process finds it free. */
#include "nullgpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int init_done;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&lock); }
static void after_fork_child(void) { pthread_mutex_init(&lock, NULL); }
static void install_atfork(void) { pthread_atfork(before_fork, after_fork_parent, after_fork_child); }

void ng_lock(void) { pthread_mutex_lock(&lock); }
void ng_unlock(void) { pthread_mutex_unlock(&lock); }
int ng_initialised(void) { return __atomic_load_n(&init_done, __ATOMIC_ACQUIRE); }

__attribute__((constructor)) static void nullgpu_ctor(void) { pthread_once(&atfork_once, install_atfork); }

NG_EXPORT CUresult cuInit(unsigned flags)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_once(&atfork_once, install_atfork);
    (void)ng_device();
    __atomic_store_n(&init_done, 1, __ATOMIC_RELEASE);
    return CUDA_SUCCESS;
}

/* ---- contexts ---- */
static struct CUctx_st primary = {.magic = NG_CTX_MAGIC, .primary = 1, .id = 1};
static int primary_active; /* retained at least once and not reset */
static unsigned long long next_ctx_id = 2;

#define STACK_MAX 32
static __thread CUcontext stack[STACK_MAX];
static __thread int depth;

CUcontext ng_primary_ctx(void) { return &primary; }

int ng_ctx_valid(CUcontext c) { return c != NULL && c->magic == NG_CTX_MAGIC && !c->destroyed; }

CUcontext ng_current_ctx(void) { return depth > 0 ? stack[depth - 1] : NULL; }

NG_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    NG_CHECK_INIT();
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    __atomic_add_fetch(&primary.refcount, 1, __ATOMIC_ACQ_REL);
    __atomic_store_n(&primary_active, 1, __ATOMIC_RELEASE);
    *pctx = &primary;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    NG_CHECK_INIT();
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    if (__atomic_sub_fetch(&primary.refcount, 1, __ATOMIC_ACQ_REL) <= 0) {
        __atomic_store_n(&primary.refcount, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&primary_active, 0, __ATOMIC_RELEASE);
    }
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    NG_CHECK_INIT();
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    __atomic_store_n(&primary_active, 0, __ATOMIC_RELEASE);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned *flags, int *active)
{
    NG_CHECK_INIT();
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    if (flags == NULL || active == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = __atomic_load_n(&primary.flags, __ATOMIC_RELAXED);
    *active = __atomic_load_n(&primary_active, __ATOMIC_ACQUIRE);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned flags)
{
    NG_CHECK_INIT();
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    __atomic_store_n(&primary.flags, flags, __ATOMIC_RELAXED);
    return CUDA_SUCCESS;
}

static CUresult ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev)
{
    NG_CHECK_INIT();
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    CUcontext c = calloc(1, sizeof *c);
    if (c == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->magic = NG_CTX_MAGIC;
    c->flags = flags;
    c->refcount = 1;
    c->id = __atomic_fetch_add(&next_ctx_id, 1, __ATOMIC_RELAXED);
    if (depth < STACK_MAX)
        stack[depth++] = c;
    *pctx = c;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

NG_EXPORT CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *p, int n, unsigned flags,
                                  CUdevice dev)
{
    (void)p;
    (void)n;
    return ctx_create(pctx, flags, dev);
}

NG_EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *p, unsigned flags, CUdevice dev)
{
    (void)p;
    return ctx_create(pctx, flags, dev);
}

NG_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    NG_CHECK_INIT();
    if (!ng_ctx_valid(ctx) || ctx->primary)
        return CUDA_ERROR_INVALID_CONTEXT;
    for (int i = 0; i < depth; i++)
        if (stack[i] == ctx) {
            memmove(&stack[i], &stack[i + 1], (size_t)(depth - i - 1) * sizeof stack[0]);
            depth--;
            i--;
        }
    /* Kept allocated (marked destroyed): a stale handle must read as invalid,
     * not as freed memory. */
    ctx->destroyed = 1;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    NG_CHECK_INIT();
    if (!ng_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (depth >= STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    stack[depth++] = ctx;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    NG_CHECK_INIT();
    if (depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUcontext c = stack[--depth];
    if (pctx != NULL)
        *pctx = c;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    NG_CHECK_INIT();
    if (ctx == NULL) {
        if (depth > 0)
            depth--;
        return CUDA_SUCCESS;
    }
    if (!ng_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (depth == 0)
        depth = 1;
    stack[depth - 1] = ctx;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    NG_CHECK_INIT();
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = ng_current_ctx();
    return CUDA_SUCCESS;
}

#define NEED_CTX(c)                                                                                \
    NG_CHECK_INIT();                                                                               \
    CUcontext c = ng_current_ctx();                                                                \
    if (c == NULL)                                                                                 \
        return CUDA_ERROR_INVALID_CONTEXT;

NG_EXPORT CUresult cuCtxGetDevice(CUdevice *dev)
{
    NEED_CTX(c);
    (void)c;
    if (dev == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *dev = 0;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxGetDevice_v2(CUdevice *dev, CUcontext ctx)
{
    NG_CHECK_INIT();
    if (dev == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (ctx != NULL && !ng_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx == NULL && ng_current_ctx() == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    *dev = 0;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxGetFlags(unsigned *flags)
{
    NEED_CTX(c);
    if (flags == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = c->flags;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxSetFlags(unsigned flags)
{
    NEED_CTX(c);
    c->flags = flags;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxGetId(CUcontext ctx, unsigned long long *id)
{
    NG_CHECK_INIT();
    if (id == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (ctx == NULL)
        ctx = ng_current_ctx();
    if (!ng_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    *id = ctx->id;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxSynchronize(void)
{
    NG_CHECK_INIT();
    return CUDA_SUCCESS; /* every operation finished when it was issued */
}

NG_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    (void)ctx;
    NG_CHECK_INIT();
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    NEED_CTX(c);
    if ((unsigned)limit >= 16)
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
    c->limits[limit] = value;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxGetLimit(size_t *value, CUlimit limit)
{
    NEED_CTX(c);
    if (value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if ((unsigned)limit >= 16)
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
    size_t v = c->limits[limit];
    if (v == 0) { /* the defaults the real driver reports */
        switch (limit) {
        case CU_LIMIT_STACK_SIZE: v = 1024; break;
        case CU_LIMIT_PRINTF_FIFO_SIZE: v = 1048576; break;
        case CU_LIMIT_MALLOC_HEAP_SIZE: v = 8388608; break;
        case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: v = 2; break;
        case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: v = 2048; break;
        case CU_LIMIT_MAX_L2_FETCH_GRANULARITY: v = 64; break;
        default: break;
        }
    }
    *value = v;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxGetCacheConfig(CUfunc_cache *cfg)
{
    NEED_CTX(c);
    if (cfg == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *cfg = (CUfunc_cache)c->cache_config;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxSetCacheConfig(CUfunc_cache cfg)
{
    NEED_CTX(c);
    c->cache_config = (int)cfg;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxGetSharedMemConfig(CUsharedconfig *cfg)
{
    NEED_CTX(c);
    if (cfg == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *cfg = (CUsharedconfig)c->shared_config;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxSetSharedMemConfig(CUsharedconfig cfg)
{
    NEED_CTX(c);
    c->shared_config = (int)cfg;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned *version)
{
    NG_CHECK_INIT();
    if (version == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (ctx != NULL && !ng_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    *version = 3020;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest)
{
    NG_CHECK_INIT();
    if (least != NULL)
        *least = 0;
    if (greatest != NULL)
        *greatest = -5;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxResetPersistingL2Cache(void)
{
    NG_CHECK_INIT();
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxGetExecAffinity(CUexecAffinityParam *p, CUexecAffinityType type)
{
    NG_CHECK_INIT();
    if (p == NULL || type != CU_EXEC_AFFINITY_TYPE_SM_COUNT)
        return CUDA_ERROR_INVALID_VALUE;
    p->type = type;
    p->param.smCount.val = (unsigned)ng_device()->sm_count;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned flags)
{
    (void)peer;
    (void)flags;
    NG_CHECK_INIT();
    return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
}

NG_EXPORT CUresult cuCtxDisablePeerAccess(CUcontext peer)
{
    (void)peer;
    NG_CHECK_INIT();
    return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
}

/* The pre-CUDA 11 names of the primary-context calls, still asked for by the
 * runtime at exit. */
NG_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
NG_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }
NG_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned flags)
{
    return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}
NG_EXPORT CUresult cuCtxDestroy(CUcontext ctx) { return cuCtxDestroy_v2(ctx); }
NG_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxPushCurrent_v2(ctx); }
NG_EXPORT CUresult cuCtxPopCurrent(CUcontext *pctx) { return cuCtxPopCurrent_v2(pctx); }
