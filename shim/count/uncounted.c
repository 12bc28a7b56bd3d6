/* SPDX-License-Identifier: Apache-2.0 */
/* uncounted.c - the named kernels and calls whose FLOPs are not counted
 * (uncounted.h): a fixed array claimed in first-seen order by a
 * compare-and-swap on its count, each entry written once (name, class,
 * reason, detail) and published with a release store, then only counted.
 * A name is found by a linear scan of its hash: interning is rare (once
 * per kernel the launch layer registers, once per cuDNN plan). */
#include "uncounted.h"

#include <stdatomic.h>
#include <string.h>

#include "core/base.h"

typedef struct entry {
    _Atomic uint32_t ready; /* 0 free, 1 being written, 2 readable */
    uint32_t hash;
    uint8_t kclass, reason;
    char name[FC_UNCOUNTED_NAME];
    char detail[FC_UNCOUNTED_DETAIL];
    _Atomic uint64_t calls, failed;
} entry;

static entry ents[FC_UNCOUNTED_CAPACITY];
static _Atomic uint32_t n_ents;
static _Atomic uint64_t rest_calls, rest_failed; /* names beyond the capacity */

static uint32_t name_hash(const char *s, int reason)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)reason;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return (uint32_t)(h ^ h >> 32) | 1u;
}

static void copy_str(char *dst, const char *src, size_t size)
{
    size_t n = src ? strnlen(src, size - 1) : 0;
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

/* 1 when entry e holds (name, reason); waits the few ns another thread
 * takes to finish writing it. */
static int holds(entry *e, uint32_t h, const char *name, int reason)
{
    uint32_t st;
    while ((st = atomic_load_explicit(&e->ready, memory_order_acquire)) == 1)
        ;
    return st == 2 && e->hash == h && e->reason == (uint8_t)reason &&
           strncmp(e->name, name, FC_UNCOUNTED_NAME - 1) == 0;
}

uint32_t fc_uncounted_intern(const char *name, int kclass, int reason, const char *detail)
{
    if (name == NULL)
        name = "";
    uint32_t h = name_hash(name, reason);
    uint32_t seen = 0;
    for (;;) {
        uint32_t n = atomic_load_explicit(&n_ents, memory_order_acquire);
        if (n > FC_UNCOUNTED_CAPACITY)
            n = FC_UNCOUNTED_CAPACITY;
        for (uint32_t i = seen; i < n; i++)
            if (holds(&ents[i], h, name, reason))
                return i;
        seen = n;
        if (n >= FC_UNCOUNTED_CAPACITY)
            return FC_UNCOUNTED_NONE;
        /* claim entry n; if another thread took it first, look again */
        uint32_t expect = n;
        if (!atomic_compare_exchange_strong(&n_ents, &expect, n + 1))
            continue;
        entry *e = &ents[n];
        atomic_store_explicit(&e->ready, 1, memory_order_relaxed);
        e->hash = h;
        e->kclass = (uint8_t)kclass;
        e->reason = (uint8_t)reason;
        copy_str(e->name, name, sizeof e->name);
        copy_str(e->detail, detail, sizeof e->detail);
        atomic_store_explicit(&e->ready, 2, memory_order_release);
        return n;
    }
}

void fc_uncounted_count(uint32_t id, int ok)
{
    _Atomic uint64_t *c;
    if (FC_LIKELY(id < FC_UNCOUNTED_CAPACITY))
        c = ok ? &ents[id].calls : &ents[id].failed;
    else
        c = ok ? &rest_calls : &rest_failed;
    atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

void fc_uncounted_foreach(void (*fn)(const fc_uncounted_view *, void *), void *ctx)
{
    uint32_t n = atomic_load_explicit(&n_ents, memory_order_acquire);
    for (uint32_t i = 0; i < n && i < FC_UNCOUNTED_CAPACITY; i++) {
        entry *e = &ents[i];
        if (atomic_load_explicit(&e->ready, memory_order_acquire) != 2)
            continue;
        fc_uncounted_view v = {e->name, e->detail, e->kclass, e->reason,
                               atomic_load_explicit(&e->calls, memory_order_relaxed),
                               atomic_load_explicit(&e->failed, memory_order_relaxed), i};
        fn(&v, ctx);
    }
    uint64_t rc = atomic_load_explicit(&rest_calls, memory_order_relaxed);
    uint64_t rf = atomic_load_explicit(&rest_failed, memory_order_relaxed);
    if (rc || rf) {
        fc_uncounted_view v = {"(other names: the table was full)", "", 0, 0, rc, rf,
                               FC_UNCOUNTED_NONE};
        fn(&v, ctx);
    }
}

const char *fc_unc_reason_name(int reason)
{
    static const char *const names[FC_UNC_REASON_COUNT] = {
        [FC_UNC_OPAQUE] = "opaque_parameters", [FC_UNC_LAYOUT] = "layout_mismatch",
        [FC_UNC_VARLEN] = "varlen_unbounded", [FC_UNC_GRAPH] = "unresolved_graph",
        [FC_UNC_NOT_MATMUL] = "not_counted_operation",
        [FC_UNC_DEVICE_SIZES] = "sizes_in_device_memory"};
    return reason > 0 && reason < FC_UNC_REASON_COUNT ? names[reason] : "unknown";
}

void fc_uncounted_reset(void)
{
    uint32_t n = atomic_load(&n_ents);
    memset(ents, 0, sizeof(entry) * (n < FC_UNCOUNTED_CAPACITY ? n : FC_UNCOUNTED_CAPACITY));
    atomic_store(&n_ents, 0);
    atomic_store(&rest_calls, 0);
    atomic_store(&rest_failed, 0);
}
