/* SPDX-License-Identifier: Apache-2.0 */
/* stream.c - streams, events (times from the host clock) and host callbacks.
 *
 * Work is finished when it is issued, so synchronisation always succeeds at
 * once. What streams do keep is capture state: a stream under capture
 * records work into a graph (graph.c) instead of doing it; a stream that
 * waits on an event recorded during a capture joins that capture, as on the
 * real driver (PyTorch's side streams in torch.cuda.graph). */

#include "nullgpu.h"

#include <stdlib.h>
#include <time.h>

static unsigned long long next_stream_id = 16;

int64_t ng_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* the legacy and per-thread default streams are never captured here */
static int is_special(CUstream s)
{
    return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

int ng_stream_valid(CUstream s) { return is_special(s) || s->magic == NG_STREAM_MAGIC; }

ng_capture *ng_stream_capture(CUstream s)
{
    if (is_special(s) || s->capture == NULL)
        return NULL;
    if (__atomic_load_n(&s->capture->ended, __ATOMIC_ACQUIRE)) {
        s->capture = NULL;
        return NULL;
    }
    return s->capture;
}

static CUresult stream_create(CUstream *ps, unsigned flags, int priority)
{
    NG_CHECK_INIT();
    if (ps == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUstream s = calloc(1, sizeof *s);
    if (s == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->magic = NG_STREAM_MAGIC;
    s->flags = flags;
    s->priority = priority < -5 ? -5 : priority > 0 ? 0 : priority;
    s->ctx = ng_current_ctx();
    s->id = __atomic_fetch_add(&next_stream_id, 1, __ATOMIC_RELAXED);
    *ps = s;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamCreate(CUstream *ps, unsigned flags) { return stream_create(ps, flags, 0); }

NG_EXPORT CUresult cuStreamCreateWithPriority(CUstream *ps, unsigned flags, int priority)
{
    return stream_create(ps, flags, priority);
}

NG_EXPORT CUresult cuStreamDestroy_v2(CUstream s)
{
    NG_CHECK_INIT();
    if (is_special(s) || s->magic != NG_STREAM_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    s->magic = 0;
    free(s);
    return CUDA_SUCCESS;
}

#define CHECK_STREAM(s)                                                                            \
    do {                                                                                           \
        NG_CHECK_INIT();                                                                           \
        if (!ng_stream_valid(s))                                                                   \
            return CUDA_ERROR_INVALID_HANDLE;                                                      \
    } while (0)

NG_EXPORT CUresult cuStreamQuery(CUstream s)
{
    CHECK_STREAM(s);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamSynchronize(CUstream s)
{
    CHECK_STREAM(s);
    if (ng_stream_capture(s) != NULL)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamGetPriority(CUstream s, int *priority)
{
    CHECK_STREAM(s);
    if (priority == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *priority = is_special(s) ? 0 : s->priority;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamGetFlags(CUstream s, unsigned *flags)
{
    CHECK_STREAM(s);
    if (flags == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = is_special(s) ? 0 : s->flags;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamGetId(CUstream s, unsigned long long *id)
{
    CHECK_STREAM(s);
    if (id == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *id = s == NULL || s == CU_STREAM_LEGACY ? 1 : s == CU_STREAM_PER_THREAD ? 2 : s->id;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamGetCtx(CUstream s, CUcontext *pctx)
{
    CHECK_STREAM(s);
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext c = is_special(s) ? ng_current_ctx() : s->ctx;
    *pctx = c != NULL ? c : ng_primary_ctx();
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamGetCtx_v2(CUstream s, CUcontext *pctx, CUgreenCtx *green)
{
    if (green != NULL)
        *green = NULL;
    return cuStreamGetCtx(s, pctx);
}

/* No stream is in a green context here (cuGreenCtxCreate is not
 * supported): NULL, as the real driver answers for a regular context's
 * stream. cuDNN 9.26's cudnnSetStream asks it for every non-default stream
 * and fails the handle (INTERNAL_ERROR) without an answer. */
NG_EXPORT CUresult cuStreamGetGreenCtx(CUstream s, CUgreenCtx *green)
{
    CHECK_STREAM(s);
    if (green == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *green = NULL;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamGetDevice(CUstream s, CUdevice *dev)
{
    CHECK_STREAM(s);
    if (dev == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *dev = 0;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamSetAttribute(CUstream s, CUstreamAttrID id, const CUstreamAttrValue *v)
{
    (void)id;
    (void)v;
    CHECK_STREAM(s);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamGetAttribute(CUstream s, CUstreamAttrID id, CUstreamAttrValue *v)
{
    (void)id;
    CHECK_STREAM(s);
    if (v == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *v = (CUstreamAttrValue){0};
    if (id == CU_LAUNCH_ATTRIBUTE_PRIORITY)
        v->priority = is_special(s) ? 0 : s->priority;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamCopyAttributes(CUstream dst, CUstream src)
{
    CHECK_STREAM(dst);
    CHECK_STREAM(src);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamAttachMemAsync(CUstream s, CUdeviceptr p, size_t n, unsigned flags)
{
    (void)p;
    (void)n;
    (void)flags;
    CHECK_STREAM(s);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags)
{
    (void)flags;
    CHECK_STREAM(s);
    if (e == NULL || e->magic != NG_EVENT_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    ng_capture *cap = e->capture;
    if (cap != NULL && !__atomic_load_n(&cap->ended, __ATOMIC_ACQUIRE)) {
        if (is_special(s))
            return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
        s->capture = cap; /* joins the capture (fork) */
        return ng_capture_simple(cap, NG_OP_EVENT_WAIT);
    }
    ng_capture *mine = ng_stream_capture(s);
    if (mine != NULL)
        return ng_capture_simple(mine, NG_OP_EVENT_WAIT);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuLaunchHostFunc(CUstream s, CUhostFn fn, void *data)
{
    CHECK_STREAM(s);
    if (fn == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    ng_capture *cap = ng_stream_capture(s);
    if (cap != NULL)
        return ng_capture_host(cap, fn, data);
    fn(data);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamAddCallback(CUstream s, CUstreamCallback cb, void *data, unsigned flags)
{
    if (flags != 0 || cb == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CHECK_STREAM(s);
    if (ng_stream_capture(s) != NULL)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    cb(s, CUDA_SUCCESS, data);
    return CUDA_SUCCESS;
}

/* ---- events ---- */
NG_EXPORT CUresult cuEventCreate(CUevent *pe, unsigned flags)
{
    NG_CHECK_INIT();
    if (pe == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUevent e = calloc(1, sizeof *e);
    if (e == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->magic = NG_EVENT_MAGIC;
    e->flags = flags;
    e->ns = -1;
    *pe = e;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuEventDestroy_v2(CUevent e)
{
    NG_CHECK_INIT();
    if (e == NULL || e->magic != NG_EVENT_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    e->magic = 0;
    free(e);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuEventRecord(CUevent e, CUstream s)
{
    CHECK_STREAM(s);
    if (e == NULL || e->magic != NG_EVENT_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    ng_capture *cap = ng_stream_capture(s);
    if (cap != NULL) {
        e->capture = cap;
        return ng_capture_simple(cap, NG_OP_EVENT_RECORD);
    }
    e->capture = NULL;
    e->ns = ng_now_ns();
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuEventRecordWithFlags(CUevent e, CUstream s, unsigned flags)
{
    (void)flags;
    return cuEventRecord(e, s);
}

NG_EXPORT CUresult cuEventQuery(CUevent e)
{
    NG_CHECK_INIT();
    if (e == NULL || e->magic != NG_EVENT_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuEventSynchronize(CUevent e) { return cuEventQuery(e); }

NG_EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end)
{
    NG_CHECK_INIT();
    if (ms == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (start == NULL || end == NULL || start->magic != NG_EVENT_MAGIC || end->magic != NG_EVENT_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    if ((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING)
        return CUDA_ERROR_INVALID_HANDLE;
    if (start->ns < 0 || end->ns < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    *ms = (float)((double)(end->ns - start->ns) / 1e6);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
    return cuEventElapsedTime_v2(ms, start, end);
}

NG_EXPORT CUresult cuCtxRecordEvent(CUcontext ctx, CUevent e)
{
    (void)ctx;
    return cuEventRecord(e, NULL);
}

NG_EXPORT CUresult cuCtxWaitEvent(CUcontext ctx, CUevent e)
{
    (void)ctx;
    return cuEventQuery(e);
}

/* ---- stream memory operations: done at once ---- */
NG_EXPORT CUresult cuStreamWriteValue32_v2(CUstream s, CUdeviceptr p, cuuint32_t v, unsigned flags)
{
    (void)flags;
    CHECK_STREAM(s);
    *(volatile cuuint32_t *)(uintptr_t)p = v;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamWriteValue64_v2(CUstream s, CUdeviceptr p, cuuint64_t v, unsigned flags)
{
    (void)flags;
    CHECK_STREAM(s);
    *(volatile cuuint64_t *)(uintptr_t)p = v;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamWaitValue32_v2(CUstream s, CUdeviceptr p, cuuint32_t v, unsigned flags)
{
    (void)p;
    (void)v;
    (void)flags;
    CHECK_STREAM(s);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamWaitValue64_v2(CUstream s, CUdeviceptr p, cuuint64_t v, unsigned flags)
{
    (void)p;
    (void)v;
    (void)flags;
    CHECK_STREAM(s);
    return CUDA_SUCCESS;
}
