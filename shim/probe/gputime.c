/* SPDX-License-Identifier: Apache-2.0 */
/* gputime.c - iteration times on the GPU, from CUDA events.
 *
 * Iteration boundaries are host stamps (fc_ticks) of calls and markers:
 * an automatic iteration starts at a call whose A operand is the anchor
 * (the first GEMM's A, in the same transpose), a marker iteration ends at a
 * flopcount_step(), an NVTX one runs from push to pop. At each such point
 * an event is recorded on the stream of the GEMM (for markers: the legacy
 * default stream) and kept with its stamp. Which of them turn out to
 * be boundaries is known only when the report is written; then the events
 * are found by stamp and cuEventElapsedTime gives the GPU time between
 * them. At most EV_CAP events (the first ones), created and recorded on the
 * rare calls that are candidates; nothing is allocated by us.
 *
 * The driver is used only when this process already loaded it (dlopen
 * RTLD_NOLOAD of libcuda.so.1, or of FLOPCOUNT_LIBCUDA), looked for at the
 * first cuBLAS/cuBLASLt GEMM, by which time cuBLAS has loaded it. */
#include "gputime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/copies.h"
#include "core/resolve.h"
#include "detect/irec.h"

#define EV_CAP 4096u
#define CU_DEINITIALIZED 4 /* CUDA_ERROR_DEINITIALIZED: the driver shut down */

typedef int (*ctx_get_fn)(void **ctx);
typedef int (*ev_create_fn)(void **ev, unsigned flags);
typedef int (*ev_record_fn)(void *ev, void *stream);
typedef int (*ev_sync_fn)(void *ev);
typedef int (*ev_elapsed_fn)(float *ms, void *start, void *end);
typedef int (*ev_destroy_fn)(void *ev);
typedef int (*get_stream_fn)(const void *handle, void **stream);

static struct {
    ctx_get_fn ctx_get;
    ev_create_fn create;
    ev_record_fn record;
    ev_sync_fn sync;
    ev_elapsed_fn elapsed;
    ev_destroy_fn destroy;
} cu;

typedef struct ev_slot {
    uint64_t t;  /* stamp of the call or marker */
    void *ev;    /* CUevent */
    int ready;   /* atomic: t and ev are set */
} ev_slot;

int fc_gputime_state;
int fc_gpu_work_seen;
static char off_reason[200];
static const void *anchor_a;
static char anchor_ta;
static ev_slot evs[EV_CAP];
static uint32_t n_claimed; /* atomic */
static int last_error;     /* atomic: CUresult of the last failed create/record */
static uint32_t order[EV_CAP], n_sorted; /* report side */

#define sym2 fc_resolve_lib_sym

/* 0 with cu filled, or -1 with off_reason. */
static int probe(void)
{
    const char *path = getenv("FLOPCOUNT_LIBCUDA");
    if (path == NULL || *path == '\0')
        path = "libcuda.so.1";
    void *h = fc_resolve_loaded_lib(path);
    if (h == NULL) {
        snprintf(off_reason, sizeof off_reason, "CUDA driver (%.150s) not loaded by this process", path);
        return -1;
    }
    cu.ctx_get = (ctx_get_fn)sym2(h, "cuCtxGetCurrent", NULL);
    cu.create = (ev_create_fn)sym2(h, "cuEventCreate", NULL);
    cu.record = (ev_record_fn)sym2(h, "cuEventRecord", NULL);
    cu.sync = (ev_sync_fn)sym2(h, "cuEventSynchronize", NULL);
    /* cuda.h 12.x/13 map these names to the _v2 entry points */
    cu.elapsed = (ev_elapsed_fn)sym2(h, "cuEventElapsedTime_v2", "cuEventElapsedTime");
    cu.destroy = (ev_destroy_fn)sym2(h, "cuEventDestroy_v2", "cuEventDestroy");
    if (!cu.ctx_get || !cu.create || !cu.record || !cu.sync || !cu.elapsed || !cu.destroy) {
        snprintf(off_reason, sizeof off_reason, "the CUDA driver lacks the event functions");
        return -1;
    }
    return 0;
}

/* The stream a call was queued on. A cuBLAS handle is asked with the
 * cublasGetStream_v2 of the copy of libcublas that made it (copy: its slot,
 * core/copies.h). */
static void *stream_of(uint8_t kind, const void *handle, unsigned copy)
{
    if (kind == FC_STREAM_DIRECT)
        return (void *)(uintptr_t)handle;
    if (kind != FC_STREAM_CUBLAS_HANDLE || handle == NULL)
        return NULL; /* the legacy default stream */
    get_stream_fn fn = (get_stream_fn)fc_copy_fn(&fc_copies[FC_LIB_CUBLAS][copy % FC_COPIES],
                                                 FC_SYM_CUBLAS_GET_STREAM,
                                                 "cublasGetStream_v2");
    void *s = NULL;
    if (fn == NULL || fn(handle, &s) != 0)
        return NULL;
    return s;
}

/* Records one candidate boundary: an event on the stream, kept with t. */
static void record(uint64_t t, uint8_t kind, const void *handle, unsigned copy)
{
    if (__atomic_load_n(&n_claimed, __ATOMIC_RELAXED) >= EV_CAP)
        return;
    void *ctx = NULL;
    if (cu.ctx_get(&ctx) != 0 || ctx == NULL)
        return; /* no context on this thread: nothing to time against */
    uint32_t i = __atomic_fetch_add(&n_claimed, 1, __ATOMIC_RELAXED);
    if (i >= EV_CAP)
        return;
    void *ev = NULL;
    int rc = cu.create(&ev, 0);
    if (rc == 0 && (rc = cu.record(ev, stream_of(kind, handle, copy))) != 0)
        cu.destroy(ev);
    if (rc != 0) {
        __atomic_store_n(&last_error, rc, __ATOMIC_RELAXED);
        return;
    }
    evs[i].t = t;
    evs[i].ev = ev;
    __atomic_store_n(&evs[i].ready, 1, __ATOMIC_RELEASE);
}

void fc_gputime_on_call(const fc_gemm *g, uint64_t t)
{
    int st = __atomic_load_n(&fc_gputime_state, __ATOMIC_ACQUIRE);
    if (FC_UNLIKELY(st != FC_GPUTIME_ON)) {
        int expect = FC_GPUTIME_UNKNOWN;
        if (st != FC_GPUTIME_UNKNOWN ||
            !__atomic_compare_exchange_n(&fc_gputime_state, &expect, FC_GPUTIME_PROBING, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return; /* another thread is probing: this call is not timed */
        int saved = errno;
        int ok = probe() == 0 && g->a != NULL;
        if (ok) { /* this first GEMM names the anchor */
            anchor_a = g->a;
            anchor_ta = g->transa;
        } else if (off_reason[0] == '\0') {
            snprintf(off_reason, sizeof off_reason, "the first GEMM had no A operand");
        }
        __atomic_store_n(&fc_gputime_state, ok ? FC_GPUTIME_ON : FC_GPUTIME_OFF, __ATOMIC_RELEASE);
        errno = saved;
        if (!ok)
            return;
    }
    if (g->a == anchor_a && g->transa == anchor_ta) {
        int saved = errno;
        record(t, g->stream_kind, g->stream_handle, g->copy);
        errno = saved;
    }
}

void fc_gputime_on_mark(int kind, uint64_t t)
{
    if (__atomic_load_n(&fc_gputime_state, __ATOMIC_ACQUIRE) != FC_GPUTIME_ON)
        return;
    if (kind != FC_IREC_STEP && kind != FC_IREC_NVTX_PUSH && kind != FC_IREC_NVTX_POP)
        return;
    /* On the legacy default stream (PyTorch's default): it follows all work
     * of blocking streams, and a marker cannot know whether the handle or
     * stream of its thread's last GEMM is still alive. */
    int saved = errno;
    record(t, FC_STREAM_NONE, NULL, 0);
    errno = saved;
}

void fc_gputime_reset(void)
{
    /* only the slots claimed so far were ever written */
    uint32_t n = __atomic_load_n(&n_claimed, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < n && i < EV_CAP; i++)
        __atomic_store_n(&evs[i].ready, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&n_claimed, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&last_error, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&fc_gpu_work_seen, 0, __ATOMIC_RELAXED);
    n_sorted = 0;
    anchor_a = NULL;
    off_reason[0] = '\0';
    __atomic_store_n(&fc_gputime_state, FC_GPUTIME_UNKNOWN, __ATOMIC_RELEASE);
}

/* Ready events by stamp (insertion sort: they arrive nearly in order). */
static void sort_events(void)
{
    uint32_t n = __atomic_load_n(&n_claimed, __ATOMIC_RELAXED);
    n_sorted = 0;
    for (uint32_t i = 0; i < n && i < EV_CAP; i++) {
        if (!__atomic_load_n(&evs[i].ready, __ATOMIC_ACQUIRE))
            continue;
        uint32_t j = n_sorted++;
        for (; j > 0 && evs[order[j - 1]].t > evs[i].t; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
}

int fc_gputime_prepare(int final, int interrupted, char *reason, size_t len)
{
    int st = __atomic_load_n(&fc_gputime_state, __ATOMIC_ACQUIRE);
    if (st != FC_GPUTIME_ON) {
        snprintf(reason, len, "%s", st == FC_GPUTIME_OFF ? off_reason
                                    : "no cuBLAS or cuBLASLt GEMM ran");
        return -1;
    }
    if (interrupted) { /* a fatal signal's handler must not call the driver */
        snprintf(reason, len, "report written from a signal handler");
        return -1;
    }
    sort_events();
    if (n_sorted == 0) {
        int err = __atomic_load_n(&last_error, __ATOMIC_RELAXED);
        if (err != 0)
            snprintf(reason, len, "no events recorded (cuEventCreate/cuEventRecord: CUresult %d)", err);
        else
            snprintf(reason, len, "no events recorded (no CUDA context current at the GEMMs)");
        return -1;
    }
    if (final) {
        int rc = cu.sync(evs[order[n_sorted - 1]].ev);
        if (rc != 0) {
            if (rc == CU_DEINITIALIZED)
                snprintf(reason, len, "the CUDA driver was shut down before the report");
            else
                snprintf(reason, len, "cuEventSynchronize failed (CUresult %d)", rc);
            return -1;
        }
    }
    return 0;
}

static void *event_at(uint64_t t)
{
    uint32_t lo = 0, hi = n_sorted;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (evs[order[mid]].t < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n_sorted && evs[order[lo]].t == t ? evs[order[lo]].ev : NULL;
}

int fc_gputime_span(uint64_t t0, uint64_t t1, double *seconds)
{
    void *e0 = event_at(t0), *e1 = event_at(t1);
    float ms = 0;
    if (e0 == NULL || e1 == NULL || cu.elapsed(&ms, e0, e1) != 0)
        return -1;
    *seconds = (double)ms / 1e3;
    return 0;
}
