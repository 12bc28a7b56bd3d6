/* SPDX-License-Identifier: Apache-2.0 */
/* devsizes.c - the opt-in asynchronous read of grouped GEMMs' size arrays
 * (devsizes.h; docs/moe.md).
 *
 * SLOTS slots, each a pinned buffer of three arrays of MAX_GROUPS int64 (or
 * one interleaved {m, n, k} int32 array of MAX_GROUPS x 12 bytes) and an
 * event, made at the first request (on the caller's thread, which has
 * the context: cuMemHostAlloc once, an event per slot when first used). A
 * request claims a free slot, queues three cuMemcpyAsync on the call's
 * stream and cuEventRecord after them, then marks the slot in flight; the
 * poll (one thread at a time) asks cuEventQuery of each slot in flight and
 * reads the landed ones. Nothing here waits on the GPU, allocates on a
 * request, or takes a lock on the caller's side.
 *
 * A slot asked for with a place (fc_devsizes_submit's slot) is held: the
 * poll leaves it alone, and the drain resolves it when it reaches the
 * call's placeholder record in the ring (fc_devsizes_resolve), handing
 * every group's m, n, k to the counters and the detector at the call's
 * own place in the stream; a drain that stops waiting gives it up
 * (fc_devsizes_give_up), and the poll then reads it into the stats only.
 *
 * The driver is the one this process loaded (RTLD_NOLOAD of libcuda.so.1
 * or FLOPCOUNT_LIBCUDA), as probe/gputime.c finds it. */
#include "devsizes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/resolve.h"
#include "count/uncounted.h"

#define SLOTS 32u
#define MAX_GROUPS FC_DEVSIZES_MAX_GROUPS
#define CU_MEMHOSTALLOC_PORTABLE 1u
#define CU_EVENT_DISABLE_TIMING 2u
#define CU_NOT_READY 600

typedef int (*ctx_get_fn)(void **ctx);
typedef int (*capturing_fn)(void *stream, int *status);
typedef int (*host_alloc_fn)(void **p, size_t size, unsigned flags);
typedef int (*copy_fn)(unsigned long long dst, unsigned long long src, size_t n, void *stream);
typedef int (*ev_create_fn)(void **ev, unsigned flags);
typedef int (*ev_record_fn)(void *ev, void *stream);
typedef int (*ev_query_fn)(void *ev);

static struct {
    ctx_get_fn ctx_get;
    capturing_fn capturing;
    host_alloc_fn host_alloc;
    copy_fn copy;
    ev_create_fn ev_create;
    ev_record_fn ev_record;
    ev_query_fn ev_query;
} cu;

enum { S_FREE = 0, S_CLAIMED, S_FLIGHT };

typedef struct slot {
    int state; /* atomic */
    int held;  /* atomic: a placeholder in a ring holds its place (the drain resolves it) */
    int late;  /* given up by the drain: read, if it lands, but not counted */
    int interleaved; /* one {m, n, k} int32 array (fc_devsizes_req) in the slot's start */
    void *ev;
    uint32_t unc_id;
    int32_t groups;
    uint8_t width[3];
    uint8_t offs_axis; /* fc_devsizes_req */
    int32_t fixed[3];
} slot;

static int setup_state; /* atomic: 0 not tried, 1 trying, 2 ready, 3 off */
static int64_t *pinned; /* SLOTS x 3 x MAX_GROUPS */
static slot slots[SLOTS];
static int polling; /* atomic: a poll is running */

/* Per uncounted entry (ids below FC_UNCOUNTED_CAPACITY; the shared bucket
 * has none): written by the poll (one at a time) and, for the outcome
 * counts, by callers with atomic adds. */
typedef struct entry_stats {
    uint64_t read_calls, groups;
    uint64_t counted_calls, late_calls; /* of read_calls: counted at their place / after it */
    uint64_t not_read[FC_DEVSIZES_OUTCOMES]; /* atomic adds */
    unsigned __int128 flops;
    int64_t rows_min, rows_max;
    double imbalance_max, imbalance_sum;
} entry_stats;
static entry_stats stats[FC_UNCOUNTED_CAPACITY];

/* Per entry: the host values' bound or exact count (fc_devsizes_note_host),
 * added by callers with atomics; the reason kept by the first. */
typedef struct host_stats {
    uint64_t bound_calls, exact_calls, flops_lo, flops_hi;
    int why_state; /* 0 none, 1 writing, 2 written */
    char why[128];
} host_stats;
static host_stats host[FC_UNCOUNTED_CAPACITY];

void fc_devsizes_note_host(uint32_t id, uint64_t flops, int exact, const char *why)
{
    if (id >= FC_UNCOUNTED_CAPACITY)
        return;
    host_stats *h = &host[id];
    __atomic_add_fetch(exact ? &h->exact_calls : &h->bound_calls, 1, __ATOMIC_RELAXED);
    uint64_t old = __atomic_fetch_add(&h->flops_lo, flops, __ATOMIC_RELAXED);
    if (old + flops < old)
        __atomic_add_fetch(&h->flops_hi, 1, __ATOMIC_RELAXED);
    int expect = 0;
    if (why != NULL && __atomic_compare_exchange_n(&h->why_state, &expect, 1, 0,
                                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        snprintf(h->why, sizeof h->why, "%s", why);
        __atomic_store_n(&h->why_state, 2, __ATOMIC_RELEASE);
    }
}

int fc_devsizes_host_get(uint32_t id, fc_devsizes_host_view *out)
{
    memset(out, 0, sizeof *out);
    if (id >= FC_UNCOUNTED_CAPACITY)
        return 0;
    host_stats *h = &host[id];
    out->bound_calls = __atomic_load_n(&h->bound_calls, __ATOMIC_RELAXED);
    out->exact_calls = __atomic_load_n(&h->exact_calls, __ATOMIC_RELAXED);
    out->flops_lo = __atomic_load_n(&h->flops_lo, __ATOMIC_RELAXED);
    out->flops_hi = __atomic_load_n(&h->flops_hi, __ATOMIC_RELAXED);
    out->why = __atomic_load_n(&h->why_state, __ATOMIC_ACQUIRE) == 2 ? h->why : "";
    return out->bound_calls + out->exact_calls > 0;
}

static int64_t *slot_array(unsigned s, int which)
{
    return pinned + ((size_t)s * 3u + (size_t)which) * MAX_GROUPS;
}

/* Resolves the driver and allocates the pinned buffer; 0 when ready. */
static int setup(void)
{
    int st = __atomic_load_n(&setup_state, __ATOMIC_ACQUIRE);
    if (st == 2)
        return 0;
    int expect = 0;
    if (st != 0 || !__atomic_compare_exchange_n(&setup_state, &expect, 1, 0, __ATOMIC_ACQ_REL,
                                                __ATOMIC_ACQUIRE))
        return -1; /* off, or another thread is setting up: this call is not read */
    const char *path = getenv("FLOPCOUNT_LIBCUDA");
    void *h = fc_resolve_loaded_lib(path != NULL && *path != '\0' ? path : "libcuda.so.1");
    if (h != NULL) {
        cu.ctx_get = (ctx_get_fn)fc_resolve_lib_sym(h, "cuCtxGetCurrent", NULL);
        cu.capturing = (capturing_fn)fc_resolve_lib_sym(h, "cuStreamIsCapturing", NULL);
        cu.host_alloc = (host_alloc_fn)fc_resolve_lib_sym(h, "cuMemHostAlloc", NULL);
        cu.copy = (copy_fn)fc_resolve_lib_sym(h, "cuMemcpyAsync", NULL);
        cu.ev_create = (ev_create_fn)fc_resolve_lib_sym(h, "cuEventCreate", NULL);
        cu.ev_record = (ev_record_fn)fc_resolve_lib_sym(h, "cuEventRecord", NULL);
        cu.ev_query = (ev_query_fn)fc_resolve_lib_sym(h, "cuEventQuery", NULL);
    }
    void *ctx = NULL;
    int ok = h != NULL && cu.ctx_get && cu.capturing && cu.host_alloc && cu.copy &&
             cu.ev_create && cu.ev_record && cu.ev_query && cu.ctx_get(&ctx) == 0 && ctx != NULL;
    void *p = NULL;
    if (ok)
        ok = cu.host_alloc(&p, sizeof(int64_t) * 3u * MAX_GROUPS * SLOTS,
                           CU_MEMHOSTALLOC_PORTABLE) == 0 &&
             p != NULL;
    pinned = ok ? p : NULL;
    __atomic_store_n(&setup_state, ok ? 2 : 3, __ATOMIC_RELEASE);
    return ok ? 0 : -1;
}

static void not_read(uint32_t id, int outcome)
{
    if (id < FC_UNCOUNTED_CAPACITY)
        __atomic_fetch_add(&stats[id].not_read[outcome], 1, __ATOMIC_RELAXED);
}

static int claim(void)
{
    for (unsigned s = 0; s < SLOTS; s++) {
        int expect = S_FREE;
        if (__atomic_compare_exchange_n(&slots[s].state, &expect, S_CLAIMED, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            return (int)s;
    }
    return -1;
}

static int submit(const fc_devsizes_req *r, int *slot_out)
{
    int one = r->interleaved || r->offs_axis != 0; /* one array at m */
    if (r->m == NULL || r->offs_axis > 3 || (!one && (r->n == NULL || r->k == NULL)))
        return FC_DEVSIZES_NO_ARRAYS;
    if (r->groups < 0 || r->groups > MAX_GROUPS)
        return FC_DEVSIZES_TOO_MANY;
    if (setup() != 0)
        return FC_DEVSIZES_NO_DRIVER;
    int capture = 0;
    if (cu.capturing(r->stream, &capture) != 0 || capture != 0)
        return FC_DEVSIZES_CAPTURING; /* active or invalidated: leave the graph alone */
    int s = claim();
    if (s < 0)
        return FC_DEVSIZES_BUSY;
    slot *sl = &slots[s];
    if (sl->ev == NULL && cu.ev_create(&sl->ev, CU_EVENT_DISABLE_TIMING) != 0) {
        sl->ev = NULL;
        __atomic_store_n(&sl->state, S_FREE, __ATOMIC_RELEASE);
        return FC_DEVSIZES_NO_DRIVER;
    }
    const void *src[3] = {r->m, r->n, r->k};
    uint8_t width[3] = {r->m_width, r->n_width, r->k_width};
    if (r->offs_axis != 0)
        width[0] = 0; /* int32 */
    for (int i = 0; i < (one ? 1 : 3); i++) {
        /* interleaved: 12 bytes a group, within the slot's three arrays */
        size_t bytes = (size_t)r->groups * (r->interleaved ? 12u : width[i] ? 8u : 4u);
        if (bytes > 0 && (src[i] == NULL ||
                          cu.copy((unsigned long long)(uintptr_t)slot_array((unsigned)s, i),
                                  (unsigned long long)(uintptr_t)src[i], bytes, r->stream) != 0)) {
            __atomic_store_n(&sl->state, S_FREE, __ATOMIC_RELEASE);
            return FC_DEVSIZES_COPY_FAILED;
        }
    }
    if (cu.ev_record(sl->ev, r->stream) != 0) {
        /* the copies already queued land in a slot nobody reads until
         * its next use, which records its own event after its own copies */
        __atomic_store_n(&sl->state, S_FREE, __ATOMIC_RELEASE);
        return FC_DEVSIZES_COPY_FAILED;
    }
    __atomic_store_n(&sl->unc_id, r->unc_id, __ATOMIC_RELAXED);
    sl->groups = r->groups;
    sl->late = 0;
    sl->interleaved = r->interleaved;
    memcpy(sl->width, width, sizeof width);
    sl->offs_axis = r->offs_axis;
    memcpy(sl->fixed, r->fixed, sizeof sl->fixed);
    __atomic_store_n(&sl->held, slot_out != NULL, __ATOMIC_RELAXED);
    __atomic_store_n(&sl->state, S_FLIGHT, __ATOMIC_RELEASE);
    if (slot_out != NULL)
        *slot_out = s;
    return FC_DEVSIZES_QUEUED;
}

void fc_devsizes_not_read(uint32_t unc_id, int outcome)
{
    if (outcome > FC_DEVSIZES_QUEUED && outcome < FC_DEVSIZES_OUTCOMES)
        not_read(unc_id, outcome);
}

int fc_devsizes_submit(const fc_devsizes_req *r, int *slot)
{
    int saved = errno;
    int outcome = submit(r, slot);
    if (outcome != FC_DEVSIZES_QUEUED)
        not_read(r->unc_id, outcome);
    errno = saved;
    return outcome;
}

static int64_t at(const int64_t *arr, int width, int32_t i)
{
    if (width)
        return arr[i];
    int32_t v;
    memcpy(&v, (const char *)arr + (size_t)i * 4u, sizeof v);
    return v;
}

/* The landed slot s into its entry's stats, and each group to fn (when
 * not NULL: the call is counted at its place). A negative size (which the
 * library would have refused) makes the call's FLOPs 0 for that group. */
static void take(unsigned s, fc_devsizes_group_fn fn, void *ctx)
{
    slot *sl = &slots[s];
    const int64_t *m = slot_array(s, 0), *n = slot_array(s, 1), *k = slot_array(s, 2);
    unsigned __int128 sum = 0;
    double work_max = 0;
    entry_stats *e = sl->unc_id < FC_UNCOUNTED_CAPACITY ? &stats[sl->unc_id] : NULL;
    for (int32_t g = 0; g < sl->groups; g++) {
        int64_t gm, gn, gk;
        if (sl->offs_axis != 0) { /* the ragged axis is offs[g] - offs[g - 1] */
            int64_t d = at(m, 0, g) - (g > 0 ? at(m, 0, g - 1) : 0);
            gm = sl->offs_axis == 1 ? d : sl->fixed[0];
            gn = sl->offs_axis == 2 ? d : sl->fixed[1];
            gk = sl->offs_axis == 3 ? d : sl->fixed[2];
        } else if (sl->interleaved) {
            int32_t mnk[3];
            memcpy(mnk, (const char *)m + (size_t)g * sizeof mnk, sizeof mnk);
            gm = mnk[0], gn = mnk[1], gk = mnk[2];
        } else {
            gm = at(m, sl->width[0], g), gn = at(n, sl->width[1], g);
            gk = at(k, sl->width[2], g);
        }
        if (gm < 0 || gn < 0 || gk < 0)
            continue;
        if (fn != NULL)
            fn(ctx, gm, gn, gk);
        unsigned __int128 w = (unsigned __int128)gm * (uint64_t)gn * (uint64_t)gk;
        sum += w;
        if ((double)w > work_max)
            work_max = (double)w;
        if (e != NULL) {
            if (e->groups == 0 || gm < e->rows_min)
                e->rows_min = gm;
            if (gm > e->rows_max)
                e->rows_max = gm;
            e->groups++;
        }
    }
    if (e != NULL) {
        e->read_calls++;
        if (fn != NULL)
            e->counted_calls++;
        else if (sl->late)
            e->late_calls++;
        e->flops += 2 * sum;
        double mean = sl->groups > 0 ? (double)sum / sl->groups : 0;
        double imb = mean > 0 ? work_max / mean : 1.0;
        e->imbalance_sum += imb;
        if (imb > e->imbalance_max)
            e->imbalance_max = imb;
    }
}

void fc_devsizes_poll(void)
{
    if (__atomic_load_n(&setup_state, __ATOMIC_ACQUIRE) != 2)
        return;
    int expect = 0;
    if (!__atomic_compare_exchange_n(&polling, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return;
    int saved = errno;
    for (unsigned s = 0; s < SLOTS; s++) {
        if (__atomic_load_n(&slots[s].state, __ATOMIC_ACQUIRE) != S_FLIGHT ||
            __atomic_load_n(&slots[s].held, __ATOMIC_ACQUIRE))
            continue; /* a held slot is the drain's to resolve, at its place */
        int rc = cu.ev_query(slots[s].ev);
        if (rc == CU_NOT_READY)
            continue;
        if (rc == 0)
            take(s, NULL, NULL);
        else
            not_read(slots[s].unc_id, FC_DEVSIZES_COPY_FAILED);
        __atomic_store_n(&slots[s].state, S_FREE, __ATOMIC_RELEASE);
    }
    errno = saved;
    __atomic_store_n(&polling, 0, __ATOMIC_RELEASE);
}

/* Takes the poll's flag, waiting for a poll in progress (a few µs) for at
 * most about 50 ms; 1 when taken. */
static int take_flag(void)
{
    for (int i = 0; i < 50000; i++) {
        int expect = 0;
        if (__atomic_compare_exchange_n(&polling, &expect, 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            return 1;
        struct timespec ts = {0, 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

int fc_devsizes_get(uint32_t id, fc_devsizes_view *out)
{
    memset(out, 0, sizeof *out);
    if (id >= FC_UNCOUNTED_CAPACITY)
        return 0;
    /* the poll writes the stats: read them between polls */
    int flag = take_flag();
    const entry_stats *e = &stats[id];
    out->read_calls = e->read_calls;
    out->counted_calls = e->counted_calls;
    out->late_calls = e->late_calls;
    for (int i = 1; i < FC_DEVSIZES_OUTCOMES; i++)
        out->not_read[i] = __atomic_load_n(&e->not_read[i], __ATOMIC_RELAXED);
    for (unsigned s = 0; s < SLOTS; s++)
        if (__atomic_load_n(&slots[s].state, __ATOMIC_ACQUIRE) == S_FLIGHT &&
            __atomic_load_n(&slots[s].unc_id, __ATOMIC_RELAXED) == id)
            out->pending_calls++;
    out->flops_lo = (uint64_t)e->flops;
    out->flops_hi = (uint64_t)(e->flops >> 64);
    out->groups = e->groups;
    out->rows_min = e->rows_min;
    out->rows_max = e->rows_max;
    out->imbalance_max = e->imbalance_max;
    out->imbalance_sum = e->imbalance_sum;
    if (flag)
        __atomic_store_n(&polling, 0, __ATOMIC_RELEASE);
    uint64_t asked = out->read_calls + out->pending_calls;
    for (int i = 1; i < FC_DEVSIZES_OUTCOMES; i++)
        asked += out->not_read[i];
    return asked > 0;
}

int fc_devsizes_resolve(int s, int wait_ms, fc_devsizes_group_fn fn, void *ctx)
{
    if (s < 0 || s >= (int)SLOTS || __atomic_load_n(&slots[s].state, __ATOMIC_ACQUIRE) != S_FLIGHT ||
        !__atomic_load_n(&slots[s].held, __ATOMIC_ACQUIRE))
        return -1; /* not a held slot (a fork child's reset freed it) */
    int saved = errno, rc = CU_NOT_READY;
    /* the event, at once or (the final report) a bounded wait: a poll of
     * cuEventQuery with sleeps, never a synchronisation */
    for (int i = 0;; i++) {
        rc = cu.ev_query(slots[s].ev);
        if (rc != CU_NOT_READY || i >= wait_ms)
            break;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    int out;
    if (rc == CU_NOT_READY) {
        out = 0;
    } else {
        int expect = 0;
        /* the stats are the poll's too: between polls (a poll is short) */
        int flag = wait_ms > 0 ? take_flag()
                               : __atomic_compare_exchange_n(&polling, &expect, 1, 0,
                                                             __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
        if (!flag) {
            errno = saved;
            return 0; /* the next drain takes it */
        }
        if (rc == 0) {
            take((unsigned)s, fn, ctx);
            out = 1;
        } else {
            not_read(slots[s].unc_id, FC_DEVSIZES_COPY_FAILED);
            out = -1;
        }
        __atomic_store_n(&polling, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&slots[s].held, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&slots[s].state, S_FREE, __ATOMIC_RELEASE);
    }
    errno = saved;
    return out;
}

void fc_devsizes_give_up(int s)
{
    if (s < 0 || s >= (int)SLOTS)
        return;
    slots[s].late = 1;
    /* the poll reads it when it lands, into the stats only */
    __atomic_store_n(&slots[s].held, 0, __ATOMIC_RELEASE);
}

const char *fc_devsizes_outcome_name(int outcome)
{
    static const char *const names[FC_DEVSIZES_OUTCOMES] = {
        [FC_DEVSIZES_QUEUED] = "queued",         [FC_DEVSIZES_CAPTURING] = "capturing",
        [FC_DEVSIZES_BUSY] = "busy",             [FC_DEVSIZES_TOO_MANY] = "too_many_groups",
        [FC_DEVSIZES_NO_DRIVER] = "no_driver",   [FC_DEVSIZES_COPY_FAILED] = "copy_failed",
        [FC_DEVSIZES_NO_ARRAYS] = "no_arrays"};
    return outcome >= 0 && outcome < FC_DEVSIZES_OUTCOMES ? names[outcome] : "unknown";
}

void fc_devsizes_reset(void)
{
    /* a fork child: the parent's pinned memory and events are not its own
     * to use (nor is its CUDA context); a process that never set up keeps
     * the chance to */
    memset(stats, 0, sizeof stats);
    for (unsigned s = 0; s < SLOTS; s++) {
        __atomic_store_n(&slots[s].held, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&slots[s].state, S_FREE, __ATOMIC_RELAXED);
    }
    if (__atomic_load_n(&setup_state, __ATOMIC_ACQUIRE) != 0)
        __atomic_store_n(&setup_state, 3, __ATOMIC_RELEASE);
    __atomic_store_n(&polling, 0, __ATOMIC_RELEASE);
}
