/* SPDX-License-Identifier: Apache-2.0 */
/* fake_libcuda_copy.c - a stand-in libcuda.so.1 with a "GPU" that lags,
 * for the opt-in read of device size arrays (shim/probe/devsizes.c,
 * tests/moe/test_moe_devsizes.c). cuMemcpyAsync and cuEventRecord only
 * queue; nothing lands until the test calls fake_cuda_run() (the GPU
 * catching up), so cuEventQuery answers CUDA_ERROR_NOT_READY until then
 * and a caller that waited would hang the test. There is no
 * cuEventSynchronize, cuStreamSynchronize or cuCtxSynchronize to call.
 * Environment, read at call time:
 *   FAKE_CUDA_CAPTURING_STREAM  a stream (hex) that is capturing
 * Handles are pointers and CUresult is int: the ABI of cuda.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NOT_READY 600
#define INVALID_VALUE 1
#define QUEUE 4096

static struct {
    void *dst;
    const void *src;
    size_t n;
} copies[QUEUE];
static int n_copies, n_copies_total, n_host_allocs;

typedef struct fake_event {
    int recorded, done;
} fake_event;
static fake_event *pending_events[QUEUE];
static int n_pending;

int cuCtxGetCurrent(void **ctx)
{
    static int the_context;
    *ctx = &the_context;
    return 0;
}

int cuStreamIsCapturing(void *stream, int *status)
{
    const char *v = getenv("FAKE_CUDA_CAPTURING_STREAM");
    *status = v != NULL && (uintptr_t)strtoull(v, NULL, 16) == (uintptr_t)stream ? 1 : 0;
    return 0;
}

int cuMemHostAlloc(void **p, size_t size, unsigned flags)
{
    (void)flags;
    *p = calloc(1, size);
    n_host_allocs++;
    return *p != NULL ? 0 : 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}

int cuMemcpyAsync(unsigned long long dst, unsigned long long src, size_t n, void *stream)
{
    (void)stream;
    if (n_copies >= QUEUE)
        return INVALID_VALUE;
    copies[n_copies].dst = (void *)(uintptr_t)dst;
    copies[n_copies].src = (const void *)(uintptr_t)src;
    copies[n_copies].n = n;
    n_copies++;
    n_copies_total++;
    return 0;
}

int cuEventCreate(void **ev, unsigned flags)
{
    (void)flags;
    *ev = calloc(1, sizeof(fake_event));
    return *ev != NULL ? 0 : 2;
}

int cuEventRecord(void *ev, void *stream)
{
    (void)stream;
    fake_event *e = ev;
    if (n_pending >= QUEUE)
        return INVALID_VALUE;
    e->recorded = 1;
    e->done = 0;
    pending_events[n_pending++] = e;
    return 0;
}

int cuEventQuery(void *ev)
{
    const fake_event *e = ev;
    return !e->recorded || e->done ? 0 : NOT_READY;
}

/* The GPU catches up: every queued copy lands, every recorded event is done. */
void fake_cuda_run(void)
{
    for (int i = 0; i < n_copies; i++)
        memcpy(copies[i].dst, copies[i].src, copies[i].n);
    n_copies = 0;
    for (int i = 0; i < n_pending; i++)
        pending_events[i]->done = 1;
    n_pending = 0;
}

int fake_cuda_copies(void)
{
    return n_copies_total;
}

int fake_cuda_host_allocs(void)
{
    return n_host_allocs;
}
