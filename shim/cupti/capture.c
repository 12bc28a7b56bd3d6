/* SPDX-License-Identifier: Apache-2.0 */
/* capture.c - what a cuBLAS/cuBLASLt hook does for CUPTI, and the
 * "capture in progress" flag.
 *
 * The flag (FC_CUPTI_CAPTURE in fc_cupti_hot) is up while a count of
 * stream captures begun and not ended is above zero. CUPTI's driver
 * callbacks keep the count when they are on (they see every capture,
 * cudart's included); otherwise the interposed cudaStreamBeginCapture* /
 * cudaStreamEndCapture of the CUDA runtime (hooks/capture.c) do, for
 * programs that call the runtime through its shared library. Only while
 * the flag is up does a GEMM hook ask the driver (cuStreamGetCaptureInfo,
 * which is not free) whether its stream is capturing. The flag is a
 * filter, not a verdict: the driver's answer decides.
 *
 * Per call, on the calling thread: the stamp and external correlation id
 * for kernel timing (pushed before forwarding, popped after), and the
 * graph nodes a capture adds during the call (GRAPHNODE_CREATED arrives
 * on this thread inside the real call), which tie the kernels of a graph
 * launch back to this GEMM. */
#include "core/base.h"
#include "core/clock.h"
#include "core/options.h"
#include "core/resolve.h"
#include "cupti_internal.h"
#include "detect/irec.h"

typedef struct call_state {
    uint64_t t;     /* stamp taken before forwarding (kernel timing), 0 none */
    int pushed;     /* an external correlation id is on CUPTI's stack */
    int collecting; /* graph nodes created now belong to this call */
    int check;      /* CUPTI came up inside this call: ask about its stream anyway */
    int n_nodes;
    uint64_t nodes[FC_NODES_PER_GEMM];
} call_state;

static FC_TLS call_state cs;
static void fc_capture_settle(int captured);
static fc_spin cap_lock;
static int capture_count;   /* captures in progress (cap_lock) */
static int cupti_callbacks; /* CUPTI's callbacks keep the count (cap_lock) */
static int unseen;          /* captures began before CUPTI listened (cap_lock) */

void fc_cupti_call_begin(void)
{
    unsigned hot = fc_cupti_hot_get();
    cs.check = 0;
    if (hot & FC_CUPTI_PROBE) {
        /* a capture may have begun before CUPTI listened: this call asks
         * (the flag stays up until its end, so that the end runs) */
        cs.check = fc_cupti_probe();
        if (cs.check)
            fc_cupti_hot_set(FC_CUPTI_CAPTURE, 1);
        hot = fc_cupti_hot_get();
    }
    cs.pushed = 0;
    cs.t = 0;
    if (hot & FC_CUPTI_KERNELS) {
        cs.t = fc_ticks();
        fc_activity_push(cs.t);
        cs.pushed = 1;
    }
    cs.collecting = (hot & FC_CUPTI_CAPTURE) || cs.check;
    cs.n_nodes = 0;
}

int fc_cupti_call_end(fc_gemm *g, int ok)
{
    if (FC_UNLIKELY(fc_hwflops_wanted()) && ok && fc_cupti_on())
        fc_hwflops_start(g->dtype); /* once: the first GEMM's dtype is tried first */
    if (cs.pushed) {
        fc_activity_pop();
        cs.pushed = 0;
        g->t = cs.t;
        if (ok)
            fc_activity_note_call(cs.t, fc_site_key(g));
    }
    int diverted = 0;
    if (ok && ((fc_cupti_hot_get() & FC_CUPTI_CAPTURE) || cs.check)) {
        diverted = fc_graphs_divert(g, fc_capture_stream_of(g), cs.nodes, cs.n_nodes);
        cs.n_nodes = 0; /* a grouped call's nodes go with its first group */
        if (cs.check)
            fc_capture_settle(diverted);
        cs.check = 0;
    }
    cs.collecting = 0;
    return diverted;
}

void fc_capture_note_node(uint64_t node_id)
{
    if (cs.collecting && cs.n_nodes < FC_NODES_PER_GEMM)
        cs.nodes[cs.n_nodes++] = node_id;
}

typedef int (*get_stream_fn)(const void *handle, void **stream);

CUstream fc_capture_stream_of(const fc_gemm *g)
{
    if (g->stream_kind == FC_STREAM_DIRECT)
        return (CUstream)(uintptr_t)g->stream_handle;
    if (g->stream_kind != FC_STREAM_CUBLAS_HANDLE || g->stream_handle == NULL)
        return NULL; /* the legacy default stream */
    static get_stream_fn get;
    get_stream_fn fn = __atomic_load_n(&get, __ATOMIC_ACQUIRE);
    if (fn == NULL) {
        fn = (get_stream_fn)fc_resolve(FC_LIB_CUBLAS, "cublasGetStream_v2");
        __atomic_store_n(&get, fn, __ATOMIC_RELEASE);
    }
    void *s = NULL;
    if (fn == NULL || fn(g->stream_handle, &s) != 0)
        return NULL;
    return (CUstream)s;
}

void fc_capture_began(int cupti)
{
    fc_spin_lock(&cap_lock);
    if (cupti)
        cupti_callbacks = 1;
    if (cupti || !cupti_callbacks) {
        capture_count++;
        fc_cupti_hot_set(FC_CUPTI_CAPTURE, 1);
    }
    fc_spin_unlock(&cap_lock);
}

void fc_capture_ended(int cupti)
{
    fc_spin_lock(&cap_lock);
    if ((cupti || !cupti_callbacks) && capture_count > 0 && --capture_count == 0 && !unseen)
        fc_cupti_hot_set(FC_CUPTI_CAPTURE, 0);
    fc_spin_unlock(&cap_lock);
}

/* After the GEMM that found CUPTI asked about its stream. Captured: the
 * capture began before CUPTI listened, and others may be in progress that
 * no callback will announce, so from now on every GEMM asks the driver (a
 * cost, in this case only) and none of them is counted as executed. Not
 * captured: the flag goes back to what the count says. */
static void fc_capture_settle(int captured)
{
    fc_spin_lock(&cap_lock);
    if (captured)
        unseen = 1;
    fc_cupti_hot_set(FC_CUPTI_CAPTURE, unseen || capture_count > 0);
    fc_spin_unlock(&cap_lock);
}

/* 1 when the runtime hooks keep the count (CUPTI's callbacks do not). */
static int runtime_counts(void)
{
    if (!fc_is_enabled() || fc_cupti_forked())
        return 0;
    fc_spin_lock(&cap_lock);
    int ours = !cupti_callbacks;
    fc_spin_unlock(&cap_lock);
    return ours;
}

void fc_cupti_runtime_capture_before(int begin, void *stream)
{
    if (begin && (fc_cupti_hot_get() & FC_CUPTI_PROBE))
        fc_cupti_probe();
    if (!begin && runtime_counts())
        fc_graphs_capture_end_enter((CUstream)stream);
}

void fc_cupti_runtime_capture_after(int begin, int ok, void *stream)
{
    if (!runtime_counts())
        return; /* CUPTI's callbacks saw this call themselves */
    if (begin) {
        if (!ok)
            return;
        fc_capture_began(0);
        fc_graphs_capture_begin((CUstream)stream, NULL);
    } else {
        fc_graphs_capture_end_exit(NULL, ok); /* without CUPTI no launch is seen: dropped */
        fc_capture_ended(0);
    }
}

void fc_capture_reset(void)
{
    cap_lock.v = 0;
    capture_count = 0;
    unseen = 0;
    cupti_callbacks = 0;
    cs.collecting = cs.pushed = cs.check = 0;
}
