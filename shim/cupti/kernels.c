/* SPDX-License-Identifier: Apache-2.0 */
/* kernels.c - kernel records (from activity.c) into figures: kernel time
 * by class and by GEMM shape, kernel names, GPU busy time, and all of it
 * per training iteration.
 *
 * Per iteration: the iterations the detector found are host stamps; the
 * kernels a call or graph launch issued carry its stamp (host_t), so the
 * first kernel of an iteration on the GPU is known, and the GPU timeline
 * is cut there: iteration i runs from the start of its first stamped kernel
 * to the start of the first kernel stamped after the iteration ended (the
 * next iteration's, or an evaluation pass's in between); with none (the
 * last iteration) to the end of the last kernel. Every kernel whose start
 * falls in that span is the iteration's - kernels without a stamp
 * (elementwise, attention, NCCL, ...) included. Busy time is the length of the union of
 * those kernels within the span. Kernels wait in a fixed pending store
 * until the iteration two after theirs issued a kernel (or the report is
 * final), since records arrive late and out of order.
 *
 * Everything is static; one spin lock (activity processing adds, the
 * drainer's tick and the report attribute and read). */
#include "kernels.h"

#include <stdio.h>
#include <string.h>

#include "core/lazymem.h"
#include "cupti_internal.h"
#include "detect/steps.h"
#include "spans.h"

#define SHAPES_CAP 4096u /* open addressing by shape key */
#define NAMES_CAP 1024u
#define PENDING_CAP 262144u
#define ITER_CAP 16384u /* as many as the detector lists */

typedef struct pend {
    uint64_t start, end, host_t;
    uint8_t cls;
} pend;

static fc_spin lock;
static fc_kshape_row shapes[SHAPES_CAP];
static fc_kname_row names[NAMES_CAP];
static uint64_t name_hash[NAMES_CAP];
static size_t n_names;
/* PENDING_CAP each, mapped at the first kernel record (12 MiB a process
 * without kernel activity never maps) */
static pend *pending;
static size_t n_pending;
static fc_span *scratch;
static fc_kiter iters[ITER_CAP];
static size_t n_done_iters; /* iterations attributed, in order */
static int iters_mode;
/* Per pass: the first start of a stamped kernel of iteration i (g_first),
 * and of one stamped after iteration i ended (after: the next iteration's,
 * an evaluation pass's). 0: none. */
static uint64_t g_first[ITER_CAP], after[ITER_CAP];

static struct {
    int any;
    uint64_t kernels, dropped, pending_overflow;
    uint64_t ns[FC_K_COUNT], count[FC_K_COUNT];
    uint64_t unknown_shape_ns, unknown_shape_kernels;
    uint64_t first_start, last_end, busy_ns, covered_until, outside_ns;
    uint64_t latest_host_t; /* the latest stamp a kernel carried */
    uint64_t other_names_ns[FC_K_COUNT];
    uint32_t device_mask;
    int dirty; /* kernels arrived since the last attribution */
} agg;

static fc_kshape_row view_shapes[SHAPES_CAP];
static fc_kname_row view_names[NAMES_CAP];

void fc_kernels_reset(void)
{
    lock.v = 0;
    if (agg.any)
        memset(shapes, 0, sizeof shapes);
    n_names = 0;
    n_pending = 0;
    n_done_iters = 0;
    iters_mode = 0;
    memset(&agg, 0, sizeof agg);
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h | 1;
}

static void add_shape(uint32_t key, uint64_t ns, int first)
{
    for (uint32_t i = key & (SHAPES_CAP - 1), n = 0; n < SHAPES_CAP;
         i = (i + 1) & (SHAPES_CAP - 1), n++) {
        if (shapes[i].key == 0)
            shapes[i].key = key;
        if (shapes[i].key == key) {
            shapes[i].ns += ns;
            shapes[i].kernels++;
            shapes[i].calls += first != 0;
            return;
        }
    }
    agg.unknown_shape_ns += ns; /* the table is full: more than 4096 shapes timed */
    agg.unknown_shape_kernels++;
}

static void add_name(const char *name, int cls, uint64_t ns)
{
    if (name == NULL || *name == '\0')
        name = "(unnamed)";
    uint64_t h = hash_name(name) ^ (uint64_t)cls;
    for (size_t i = 0; i < n_names; i++)
        if (name_hash[i] == h) {
            names[i].ns += ns;
            names[i].kernels++;
            return;
        }
    if (n_names == NAMES_CAP) {
        agg.other_names_ns[cls] += ns;
        return;
    }
    fc_kname_row *r = &names[n_names];
    name_hash[n_names++] = h;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->cls = cls;
    r->ns = ns;
    r->kernels = 1;
}

void fc_kernels_add(const fc_kernel_in *k)
{
    uint64_t ns = k->end > k->start ? k->end - k->start : 0;
    int cls = k->gemm ? FC_K_GEMM : fc_kclass_of_name(k->name);
    fc_spin_lock(&lock);
    agg.any = 1;
    agg.kernels++;
    agg.ns[cls] += ns;
    agg.count[cls]++;
    agg.device_mask |= 1u << (k->device & 31);
    if (k->gemm) {
        if (k->key != 0) {
            add_shape(k->key, ns, k->first);
        } else {
            agg.unknown_shape_ns += ns;
            agg.unknown_shape_kernels++;
        }
    }
    add_name(k->name, cls, ns);
    if (agg.first_start == 0 || k->start < agg.first_start)
        agg.first_start = k->start;
    if (k->end > agg.last_end)
        agg.last_end = k->end;
    if (k->host_t > agg.latest_host_t)
        agg.latest_host_t = k->host_t;
    if (pending == NULL) {
        pending = fc_mem_map(PENDING_CAP * (sizeof(pend) + sizeof(fc_span)));
        scratch = pending ? (fc_span *)(pending + PENDING_CAP) : NULL;
    }
    if (n_pending < PENDING_CAP && pending != NULL)
        pending[n_pending++] = (pend){k->start, k->end, k->host_t, (uint8_t)cls};
    else
        agg.pending_overflow++;
    agg.dirty = 1;
    fc_spin_unlock(&lock);
}

void fc_kernels_dropped(uint64_t n)
{
    fc_spin_lock(&lock);
    agg.dropped += n;
    fc_spin_unlock(&lock);
}

/* The iteration (0-based, among list[0..n)) whose host span holds t, or -1. */
static long iter_of(const fc_iteration *list, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first iteration with t0 > t */
        size_t mid = lo + (hi - lo) / 2;
        if (list[mid].t0 <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    const fc_iteration *it = &list[lo - 1];
    return t < it->t1 || (it->open_end && t <= it->t1) ? (long)(lo - 1) : -1;
}

/* The last iteration (0-based, among list[0..n)) that ended at or before
 * t, or -1. */
static long ended_before(const fc_iteration *list, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first iteration with t1 > t */
        size_t mid = lo + (hi - lo) / 2;
        if (list[mid].t1 <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

/* Run-level busy time: the union of spans leaving the pending store, in
 * start order, against what earlier batches covered. */
static void add_busy(fc_span *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t s = v[i].start > agg.covered_until ? v[i].start : agg.covered_until;
        if (v[i].end > s) {
            agg.busy_ns += v[i].end - s;
            agg.covered_until = v[i].end;
        }
    }
}

/* Takes the pending kernels starting before `end` out of the store: those
 * starting at or after g0 into iteration it (when it is not NULL), the
 * others counted outside any iteration. */
static void take(uint64_t g0, uint64_t end, fc_kiter *it)
{
    size_t n_in = 0, n_all = 0, kept = 0;
    for (size_t i = 0; i < n_pending; i++) {
        pend p = pending[i];
        if (p.start >= end) {
            pending[kept++] = p;
            continue;
        }
        uint64_t ns = p.end > p.start ? p.end - p.start : 0;
        if (it != NULL && p.start >= g0) {
            it->ns[p.cls] += ns;
            it->kernels++;
            n_in++;
        } else {
            agg.outside_ns += ns;
        }
        scratch[n_all++] = (fc_span){p.start, p.end};
    }
    n_pending = kept;
    fc_spans_union(scratch, n_all); /* sorts */
    if (it != NULL) {
        /* the iteration's busy time: its kernels' union clipped to its span */
        size_t m = 0;
        for (size_t i = 0; i < n_all; i++)
            if (scratch[i].start >= g0)
                scratch[m++] = scratch[i];
        add_busy(scratch, m);
        for (size_t i = 0; i < m; i++)
            if (scratch[i].end > end)
                scratch[i].end = end;
        it->busy_ns = fc_spans_union(scratch, m);
        (void)n_in;
    } else {
        add_busy(scratch, n_all);
    }
}

void fc_kernels_attribute(int final)
{
    fc_spin_lock(&lock);
    if (!agg.any || (!agg.dirty && !final)) {
        fc_spin_unlock(&lock);
        return;
    }
    agg.dirty = 0;
    int mode = fc_steps_mode();
    fc_steps_view v;
    fc_steps_get(mode, &v);
    if (mode != iters_mode) { /* markers took over: the automatic iterations are gone */
        iters_mode = mode;
        n_done_iters = 0;
        memset(iters, 0, sizeof iters);
    }
    size_t n = v.stored < ITER_CAP ? (size_t)v.stored : ITER_CAP;
    for (size_t i = n_done_iters; i < n; i++)
        g_first[i] = after[i] = 0;
    uint64_t last_end = 0; /* of every pending kernel */
    for (size_t i = 0; i < n_pending; i++) {
        if (pending[i].end > last_end)
            last_end = pending[i].end;
        if (pending[i].host_t == 0)
            continue;
        long k = iter_of(v.list, n, pending[i].host_t);
        if (k >= (long)n_done_iters && (g_first[k] == 0 || pending[i].start < g_first[k]))
            g_first[k] = pending[i].start;
        long j = ended_before(v.list, n, pending[i].host_t); /* the last iteration over by then */
        if (j >= (long)n_done_iters && (after[j] == 0 || pending[i].start < after[j]))
            after[j] = pending[i].start;
    }
    for (size_t i = n; i-- > n_done_iters + 1;) /* after[i]: over every iteration ended by then */
        if (after[i] != 0 && (after[i - 1] == 0 || after[i] < after[i - 1]))
            after[i - 1] = after[i];
    for (size_t i = n_done_iters; i < n; i++) {
        /* closed once kernels of two iterations later arrived, or at the end */
        int closable = final || (i + 2 < n && agg.latest_host_t >= v.list[i + 2].t0);
        if (!closable)
            break;
        fc_kiter *it = &iters[i];
        memset(it, 0, sizeof *it);
        if (g_first[i] != 0) {
            /* to the next stamped kernel after it; the last one: to the end */
            uint64_t end = after[i] != 0 ? after[i] : last_end;
            it->has = 1;
            it->g0 = g_first[i];
            it->g1 = end > it->g0 ? end : it->g0;
            take(it->g0, it->g1, it);
        }
        n_done_iters = i + 1;
    }
    if (final) {
        take(0, UINT64_MAX, NULL); /* the rest: in no iteration */
    }
    fc_spin_unlock(&lock);
}

static int more_ns(const fc_kname_row *a, const fc_kname_row *b)
{
    return a->ns > b->ns;
}

int fc_kernels_get(fc_kernels_view *out)
{
    memset(out, 0, sizeof *out);
    fc_spin_lock(&lock);
    if (!agg.any) {
        fc_spin_unlock(&lock);
        return -1;
    }
    out->kernels = agg.kernels;
    out->dropped = agg.dropped;
    out->pending_overflow = agg.pending_overflow;
    memcpy(out->ns, agg.ns, sizeof out->ns);
    memcpy(out->count, agg.count, sizeof out->count);
    out->unknown_shape_ns = agg.unknown_shape_ns;
    out->unknown_shape_kernels = agg.unknown_shape_kernels;
    out->busy_ns = agg.busy_ns;
    out->span_ns = agg.last_end > agg.first_start ? agg.last_end - agg.first_start : 0;
    out->outside_ns = agg.outside_ns;
    out->devices = __builtin_popcount(agg.device_mask);
    size_t ns_ = 0;
    for (uint32_t i = 0; i < SHAPES_CAP; i++)
        if (shapes[i].key != 0)
            view_shapes[ns_++] = shapes[i];
    memcpy(view_names, names, sizeof names[0] * n_names);
    out->n_names = n_names;
    memcpy(out->other_names_ns, agg.other_names_ns, sizeof out->other_names_ns);
    out->iters = iters;
    out->n_iters = n_done_iters;
    fc_spin_unlock(&lock);
    for (size_t i = 1; i < out->n_names; i++) /* most time first (insertion sort: few) */
        for (size_t j = i; j > 0 && more_ns(&view_names[j], &view_names[j - 1]); j--) {
            fc_kname_row t = view_names[j];
            view_names[j] = view_names[j - 1];
            view_names[j - 1] = t;
        }
    out->shapes = view_shapes;
    out->n_shapes = ns_;
    out->names = view_names;
    return 0;
}

int fc_kernels_iter_span(uint64_t index, uint64_t *g0, uint64_t *g1)
{
    if (index == 0 || index > n_done_iters)
        return -1;
    if (!iters[index - 1].has)
        return 1;
    *g0 = iters[index - 1].g0;
    *g1 = iters[index - 1].g1;
    return 0;
}
