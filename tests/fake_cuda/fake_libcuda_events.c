/* SPDX-License-Identifier: Apache-2.0 */
/* fake_libcuda_events.c - a stand-in libcuda.so.1 with CUDA events, for the
 * GPU-timing tests (tests/gputime/gputime.cmake). There is no GPU: the "GPU clock"
 * is a number of milliseconds the test program moves forward itself with
 * fake_cuda_advance_ms() (the work its GEMMs would have done), and an event
 * records the clock's value when cuEventRecord is called. So the time
 * between two events is exactly the work the program declared between
 * them. Environment, read at call time:
 *   FAKE_CUDA_STREAM      when set (hex or decimal), cuEventRecord on any
 *                         other stream fails (CUDA_ERROR_INVALID_HANDLE):
 *                         events must go on the GEMMs' stream
 *   FAKE_CUDA_LEGACY_OK   the legacy default stream (NULL) is accepted too
 *                         (markers record there: it follows every stream)
 *   FAKE_CUDA_NO_CONTEXT  cuCtxGetCurrent gives no context
 * Built with SONAME libcuda.so.1 into a directory of its own; the test
 * program dlopens it (as cuBLAS loads the real driver) and the shim finds
 * it by FLOPCOUNT_LIBCUDA. Handles are pointers (CUevent, CUstream,
 * CUcontext) and CUresult is int: the ABI of cuda.h. */
#include <stdint.h>
#include <stdlib.h>

#define FAKE_MAX_EVENTS 65536
#define ERR_INVALID_VALUE 1
#define ERR_INVALID_HANDLE 400
#define ERR_NOT_READY 600

typedef struct fake_event {
    unsigned magic;
    int recorded;
    double ms; /* GPU clock when recorded */
} fake_event;

static double gpu_clock_ms;
static fake_event events[FAKE_MAX_EVENTS];
static int n_events;

void fake_cuda_advance_ms(double ms)
{
    gpu_clock_ms += ms;
}

int fake_cuda_events_created(void)
{
    return n_events;
}

static fake_event *ev_ok(void *p)
{
    fake_event *e = p;
    return e >= events && e < events + FAKE_MAX_EVENTS && e->magic == 0xe7e7u ? e : NULL;
}

int cuCtxGetCurrent(void **ctx)
{
    if (ctx == NULL)
        return ERR_INVALID_VALUE;
    *ctx = getenv("FAKE_CUDA_NO_CONTEXT") != NULL ? NULL : (void *)(uintptr_t)0xc0ffee;
    return 0;
}

int cuEventCreate(void **ev, unsigned flags)
{
    if (ev == NULL || flags != 0) /* flopcount needs timing: flags 0 */
        return ERR_INVALID_VALUE;
    if (n_events >= FAKE_MAX_EVENTS)
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    fake_event *e = &events[n_events++];
    e->magic = 0xe7e7u;
    *ev = e;
    return 0;
}

int cuEventRecord(void *ev, void *stream)
{
    fake_event *e = ev_ok(ev);
    const char *want = getenv("FAKE_CUDA_STREAM");
    if (e == NULL)
        return ERR_INVALID_HANDLE;
    int legacy_ok = stream == NULL && getenv("FAKE_CUDA_LEGACY_OK") != NULL;
    if (want != NULL && !legacy_ok && (uintptr_t)stream != (uintptr_t)strtoull(want, NULL, 0))
        return ERR_INVALID_HANDLE;
    e->recorded = 1;
    e->ms = gpu_clock_ms;
    return 0;
}

int cuEventSynchronize(void *ev)
{
    return ev_ok(ev) != NULL ? 0 : ERR_INVALID_HANDLE;
}

int cuEventElapsedTime_v2(float *ms, void *start, void *end)
{
    fake_event *a = ev_ok(start), *b = ev_ok(end);
    if (ms == NULL)
        return ERR_INVALID_VALUE;
    if (a == NULL || b == NULL)
        return ERR_INVALID_HANDLE;
    if (!a->recorded || !b->recorded)
        return ERR_NOT_READY;
    *ms = (float)(b->ms - a->ms);
    return 0;
}

int cuEventDestroy_v2(void *ev)
{
    fake_event *e = ev_ok(ev);
    if (e == NULL)
        return ERR_INVALID_HANDLE;
    e->magic = 0;
    return 0;
}
