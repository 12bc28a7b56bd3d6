/* SPDX-License-Identifier: Apache-2.0 */
/* activity.c - CUPTI activity records for kernel timing (--kernels).
 *
 * Kinds enabled: CONCURRENT_KERNEL (never KERNEL, which serializes
 * kernels) and EXTERNAL_CORRELATION. Around every outermost cuBLAS /
 * cuBLASLt call (capture.c) an external correlation id of kind CUSTOM2 is
 * pushed: the call's stamp (fc_ticks, the same stamp the ring records the
 * call with). CUPTI ties it to every kernel the call launched, through
 * the kernel's correlation id. A cuGraphLaunch's kernels carry the
 * launch's own correlation id, which its callback knows: graphs.c ties it
 * to the launch's stamp here, bit 63 set. The shape of a cuBLAS call
 * comes from a table of recent stamps the hook fills after the call
 * (stamp -> shape key), that of a graph-launched GEMM kernel from its
 * graph node (graphs.c).
 *
 * Buffers: ACT_BUFS buffers of ACT_BUF_SIZE bytes handed to CUPTI on
 * request (none free: CUPTI drops records, which are counted), mapped with
 * the stamp and correlation tables when kernel activity starts (lazymem:
 * 21 MiB a process without a GPU never maps); nothing is allocated after. A completed buffer is queued; the queue is processed by
 * fc_activity_flush - from the drainer thread's tick every 0.5 s (after
 * a forced flush) and before a report - in two passes, correlations first,
 * so a kernel never misses a correlation that came in another buffer of
 * the same flush. Fields read from a kernel record (start, end, deviceId,
 * correlationId, name, graphNodeId) sit at the same offsets in every
 * kernel record version since CUpti_ActivityKernel5 (CUDA 11). */
#include <stdio.h>
#include <string.h>

#include "call_table.h"
#include "core/clock.h"
#include "core/diag.h"
#include "core/lazymem.h"
#include "cupti_internal.h"

#define ACT_BUFS 16
#define ACT_BUF_SIZE (1u << 20)
#define CORR_SLOTS 65536u  /* correlation id -> external id, direct-mapped */
#define CALL_SLOTS 262144u /* stamp -> shape key (call_table.h) */
#define EXT_KIND CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2

static uint8_t (*bufs)[ACT_BUF_SIZE]; /* ACT_BUFS of them, from fc_activity_start on */
static unsigned free_mask = (1u << ACT_BUFS) - 1; /* bit i: buffer i is ours to give */

typedef struct done_buf {
    int idx;
    size_t valid;
    CUcontext ctx;
    uint32_t stream;
} done_buf;
static done_buf done_q[ACT_BUFS];
static int n_done;
static fc_spin q_lock, proc_lock;

typedef struct corr_slot {
    uint32_t corr;
    uint64_t ext;
} corr_slot;
static corr_slot *corr_map; /* CORR_SLOTS, with bufs */

/* CALL_SLOTS, with bufs: NULL until kernel activity starts */
static fc_call_slot *activity_calls; /* only through __atomic_* (clang refuses them on _Atomic) */

static uint64_t no_buffer, last_flush;
static int started, finished;

static void CUPTIAPI buf_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *max_records = 0;
    unsigned m = __atomic_load_n(&free_mask, __ATOMIC_ACQUIRE);
    while (m != 0) {
        int i = __builtin_ctz(m);
        if (__atomic_compare_exchange_n(&free_mask, &m, m & ~(1u << i), 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            *buffer = bufs[i];
            *size = ACT_BUF_SIZE;
            return;
        }
    }
    __atomic_fetch_add(&no_buffer, 1, __ATOMIC_RELAXED);
    *buffer = NULL;
    *size = 0;
}

static void give_back(int i)
{
    __atomic_fetch_or(&free_mask, 1u << i, __ATOMIC_RELEASE);
}

static void CUPTIAPI buf_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                  size_t valid)
{
    (void)size;
    if (buffer == NULL || bufs == NULL)
        return;
    ptrdiff_t off = buffer - &bufs[0][0];
    if (off < 0 || off % ACT_BUF_SIZE != 0 || off / ACT_BUF_SIZE >= ACT_BUFS)
        return; /* not one of ours */
    fc_spin_lock(&q_lock);
    done_q[n_done++] = (done_buf){(int)(off / ACT_BUF_SIZE), valid, ctx, stream};
    fc_spin_unlock(&q_lock);
}

/* The buffers and tables, once; 0, or -1 when the system refuses. */
static int map_tables(void)
{
    if (__atomic_load_n(&activity_calls, __ATOMIC_ACQUIRE) != NULL)
        return 0;
    size_t b = (size_t)ACT_BUFS * ACT_BUF_SIZE, c = CORR_SLOTS * sizeof(corr_slot);
    uint8_t *m = fc_mem_map(b + c + CALL_SLOTS * sizeof(fc_call_slot));
    if (m == NULL)
        return -1;
    bufs = (uint8_t (*)[ACT_BUF_SIZE])m;
    corr_map = (corr_slot *)(m + b);
    __atomic_store_n(&activity_calls, (fc_call_slot *)(m + b + c), __ATOMIC_RELEASE);
    return 0;
}

int fc_activity_start(char *why, size_t n)
{
    char e[96];
    if (map_tables() != 0) {
        snprintf(why, n, "no memory for the activity buffers (%u MiB)", ACT_BUFS);
        return -1;
    }
    CUptiResult rc = fc_cu.ActivityRegisterCallbacks(buf_request, buf_complete);
    if (rc == CUPTI_SUCCESS)
        rc = fc_cu.ActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    if (rc == CUPTI_SUCCESS)
        rc = fc_cu.ActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (rc != CUPTI_SUCCESS) {
        snprintf(why, n, "enabling kernel activity failed: %s", fc_cupti_errstr(rc, e, sizeof e));
        return -1;
    }
    started = 1;
    last_flush = fc_ticks();
    return 0;
}

void fc_activity_push(uint64_t id)
{
    fc_cu.ActivityPushExternalCorrelationId(EXT_KIND, id);
}

void fc_activity_pop(void)
{
    uint64_t last = 0;
    fc_cu.ActivityPopExternalCorrelationId(EXT_KIND, &last);
}

void fc_activity_note_call(uint64_t t, uint32_t key)
{
    fc_call_slot *calls = __atomic_load_n(&activity_calls, __ATOMIC_ACQUIRE);
    if (calls != NULL)
        fc_call_put(calls, CALL_SLOTS, t, key);
}

uint32_t fc_activity_call_key(uint64_t t, int *first)
{
    fc_call_slot *calls = __atomic_load_n(&activity_calls, __ATOMIC_ACQUIRE);
    *first = 0;
    return calls != NULL ? fc_call_get(calls, CALL_SLOTS, t, first) : 0;
}

void fc_activity_note_correlation(uint32_t corr, uint64_t ext)
{
    if (__atomic_load_n(&activity_calls, __ATOMIC_ACQUIRE) == NULL)
        return; /* no table yet: no kernel record to tie either */
    uint32_t i = corr & (CORR_SLOTS - 1);
    __atomic_store_n(&corr_map[i].ext, ext, __ATOMIC_RELAXED);
    __atomic_store_n(&corr_map[i].corr, corr, __ATOMIC_RELEASE);
}

static uint64_t ext_of(uint32_t corr)
{
    if (__atomic_load_n(&activity_calls, __ATOMIC_ACQUIRE) == NULL)
        return 0;
    uint32_t i = corr & (CORR_SLOTS - 1);
    return __atomic_load_n(&corr_map[i].corr, __ATOMIC_ACQUIRE) == corr
               ? __atomic_load_n(&corr_map[i].ext, __ATOMIC_RELAXED)
               : 0;
}

static void on_kernel(const CUpti_ActivityKernel10 *k)
{
    fc_kernel_in in;
    memset(&in, 0, sizeof in);
    in.start = k->start;
    in.end = k->end;
    in.name = k->name;
    in.device = k->deviceId;
    uint64_t ext = ext_of(k->correlationId);
    if (ext != 0) {
        in.host_t = ext & ~FC_EXT_GRAPH;
        if (ext & FC_EXT_GRAPH) {
            in.key = fc_graphs_node_key(k->graphNodeId, &in.first);
            in.gemm = in.key != 0;
        } else {
            in.key = fc_activity_call_key(in.host_t, &in.first);
            in.gemm = 1;
        }
    }
    fc_kernels_add(&in);
}

/* pass 0: correlations; pass 1: kernels */
static void walk(const done_buf *d, int pass)
{
    CUpti_Activity *rec = NULL;
    uint8_t *b = bufs[d->idx];
    while (fc_cu.ActivityGetNextRecord(b, d->valid, &rec) == CUPTI_SUCCESS) {
        if (pass == 0 && rec->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
            const CUpti_ActivityExternalCorrelation *x = (const void *)rec;
            if (x->externalKind != EXT_KIND)
                continue;
            fc_activity_note_correlation(x->correlationId, x->externalId);
        } else if (pass == 1 && rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            on_kernel((const CUpti_ActivityKernel10 *)rec);
        }
    }
}

static void process_queue(void)
{
    done_buf q[ACT_BUFS];
    fc_spin_lock(&q_lock);
    int n = n_done;
    memcpy(q, done_q, sizeof q[0] * (size_t)n);
    n_done = 0;
    fc_spin_unlock(&q_lock);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            walk(&q[i], pass);
    for (int i = 0; i < n; i++) {
        size_t dropped = 0;
        if (fc_cu.ActivityGetNumDroppedRecords(q[i].ctx, q[i].stream, &dropped) == CUPTI_SUCCESS &&
            dropped > 0)
            fc_kernels_dropped(dropped);
        give_back(q[i].idx);
    }
}

void fc_activity_flush(int final)
{
    if (!started || fc_cupti_forked())
        return;
    uint64_t now = fc_ticks();
    if (!final && fc_ticks_seconds(now - __atomic_load_n(&last_flush, __ATOMIC_RELAXED)) < 0.5)
        return;
    fc_spin_lock(&proc_lock);
    if (!finished) {
        __atomic_store_n(&last_flush, now, __ATOMIC_RELAXED);
        fc_cu.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        if (final) {
            fc_cu.ActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
            fc_cu.ActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
            fc_cu.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
            finished = 1;
        }
        process_queue();
        uint64_t nb = __atomic_exchange_n(&no_buffer, 0, __ATOMIC_RELAXED);
        if (nb > 0) {
            static int warned;
            fc_warn_once(&warned,
                         "CUPTI asked for more activity buffers than the %d kept; "
                         "kernel records were dropped (the report counts them)",
                         ACT_BUFS);
        }
    }
    fc_spin_unlock(&proc_lock);
}

void fc_activity_reset(void)
{
    q_lock.v = proc_lock.v = 0;
    n_done = 0;
    started = 0;
    finished = 0;
    __atomic_store_n(&free_mask, (1u << ACT_BUFS) - 1, __ATOMIC_RELAXED);
}
