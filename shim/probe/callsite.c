/* SPDX-License-Identifier: Apache-2.0 */
/* callsite.c - where each GEMM shape is first called from.
 *
 * A shape (api, types, transposes, m, n, k, batch, named by fc_site_key) is
 * unwound the first time it is seen, never again: the hot path pays one
 * probe of a table of shape keys (ring/hotpath.h). The frames above
 * libflopcount (up to FC_CALLSITE_FRAMES of them) make the call site. The
 * report (report/callsites.c) credits each counted shape's FLOPs to the
 * call site of its first call, so a shape issued from two places is
 * credited to the first (docs/iterations.md). The tables are mapped at the
 * process's first GEMM (fc_callsite_init), and libunwind is loaded
 * (dlopen) at the first unwind, so a process that runs no GEMM never maps
 * it. */
#include "callsite.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "core/base.h"
#include "core/diag.h"
#include "core/dlsym_real.h"
#include "core/lazymem.h"
#include "core/options.h"
#include "core/process.h"

#define SIG_SLOTS FC_CALLSITE_SIG_SLOTS
#define SITES FC_CALLSITE_SITES
#define FRAMES FC_CALLSITE_FRAMES

typedef struct site {
    _Atomic uint64_t hash; /* 0: free */
    int n;
    void *ip[FRAMES];
} site;

typedef struct callsite_mem {
    _Atomic uint32_t sigs[SIG_SLOTS];
    _Atomic uint32_t sig_site[SIG_SLOTS]; /* site index + 1; 0 not known yet */
    site sites[SITES];
} callsite_mem;

_Atomic uint32_t *fc_callsite_sigs;
static _Atomic uint32_t *sig_site;
static site *sites;
static callsite_mem *_Atomic mem;
static void *_Atomic self_base;
#define SITE_BUSY 2u /* hashes are odd: an even value is never a real one */

typedef int (*backtrace_fn)(void **ips, int n);
static backtrace_fn _Atomic unw_backtrace_p;
static atomic_int unwind_state; /* 0 not loaded, 1 loaded, -1 not available */

int fc_callsite_init(void)
{
    callsite_mem *m = fc_mem_map_once((void *_Atomic *)&mem, sizeof(callsite_mem));
    if (m == NULL)
        return -1;
    sig_site = m->sig_site;
    sites = m->sites;
    fc_callsite_sigs = m->sigs;
    return 0;
}

void fc_callsite_reset(void)
{
    fc_mem_clear(atomic_load(&mem), sizeof(callsite_mem));
}

/* libunwind's unw_backtrace, loaded the first time a stack is unwound;
 * NULL (said once) when the library is not there. */
static backtrace_fn unwinder(void)
{
    int st = atomic_load_explicit(&unwind_state, memory_order_acquire);
    if (FC_LIKELY(st == 1))
        return atomic_load_explicit(&unw_backtrace_p, memory_order_relaxed);
    if (st < 0)
        return NULL;
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        h = dlopen("libunwind.so", RTLD_NOW | RTLD_LOCAL);
    backtrace_fn fn = h ? (backtrace_fn)fc_dlsym(h, "unw_backtrace") : NULL;
    atomic_store_explicit(&unw_backtrace_p, fn, memory_order_relaxed);
    atomic_store_explicit(&unwind_state, fn ? 1 : -1, memory_order_release);
    if (fn == NULL) {
        static int warned;
        fc_warn_once(&warned, "libunwind (libunwind.so.8) not found; no call sites");
    }
    return fn;
}

static int in_self(void *ip)
{
    Dl_info info;
    void *base = atomic_load_explicit(&self_base, memory_order_relaxed);
    if (base == NULL && dladdr((void *)fc_callsite_note, &info) != 0) {
        base = info.dli_fbase;
        atomic_store_explicit(&self_base, base, memory_order_relaxed);
    }
    return dladdr(ip, &info) != 0 && info.dli_fbase == base;
}

/* Unwinds the current stack into a site; returns its index + 1, or 0. */
static uint32_t unwind_site(void)
{
    void *ips[48];
    backtrace_fn bt = unwinder();
    int n = bt != NULL ? bt(ips, 48) : 0;
    site s = {.n = 0};
    for (int i = 0; i < n && s.n < FRAMES; i++) {
        if (s.n == 0 && in_self(ips[i]))
            continue; /* our own frames: the hook and what it called */
        s.ip[s.n++] = ips[i];
    }
    if (s.n == 0)
        return 0;
    uint64_t h = 0x84222325cbf29ce4ull;
    for (int i = 0; i < s.n; i++)
        h = (h ^ (uint64_t)(uintptr_t)s.ip[i]) * 0x100000001b3ull;
    h |= 1;
    for (uint32_t i = 0; i < SITES; i++) {
        site *t = &sites[(h + i) & (SITES - 1)];
        uint64_t cur = atomic_load_explicit(&t->hash, memory_order_acquire);
        if (cur == 0) {
            /* Claim the slot, fill it, then publish its hash. */
            uint64_t expect = 0;
            if (atomic_compare_exchange_strong(&t->hash, &expect, SITE_BUSY)) {
                t->n = s.n;
                memcpy(t->ip, s.ip, sizeof s.ip);
                atomic_store_explicit(&t->hash, h, memory_order_release);
                return (uint32_t)((h + i) & (SITES - 1)) + 1;
            }
            cur = expect;
        }
        while (cur == SITE_BUSY) /* another thread is filling it: a few ns */
            cur = atomic_load_explicit(&t->hash, memory_order_acquire);
        if (cur == h)
            return (uint32_t)((h + i) & (SITES - 1)) + 1;
    }
    return 0;
}

void fc_callsite_note(uint32_t sig) /* sig: fc_site_key */
{
    uint32_t i = sig;
    for (int probe = 0; probe < 8; probe++, i++) {
        uint32_t j = i & (SIG_SLOTS - 1);
        uint32_t cur = atomic_load_explicit(&fc_callsite_sigs[j], memory_order_relaxed);
        if (FC_LIKELY(cur == sig))
            return;
        if (cur != 0)
            continue;
        uint32_t expect = 0;
        if (!atomic_compare_exchange_strong(&fc_callsite_sigs[j], &expect, sig)) {
            if (expect == sig)
                return;
            continue;
        }
        if (fc_callsite_enabled()) {
            int saved = errno;
            atomic_store_explicit(&sig_site[j], unwind_site(), memory_order_release);
            errno = saved;
        }
        return;
    }
}

uint32_t fc_callsite_of(uint32_t sig)
{
    /* a reader (the report) may never have made a GEMM itself: it goes by
     * the mapping, not by the pointers the first GEMM set */
    callsite_mem *m = atomic_load_explicit(&mem, memory_order_acquire);
    if (m == NULL)
        return 0;
    uint32_t i = sig;
    for (int probe = 0; probe < 8; probe++, i++) {
        uint32_t j = i & (SIG_SLOTS - 1);
        uint32_t cur = atomic_load_explicit(&m->sigs[j], memory_order_relaxed);
        if (cur == sig)
            return atomic_load_explicit(&m->sig_site[j], memory_order_acquire);
        if (cur == 0)
            return 0;
    }
    return 0;
}

int fc_callsite_frames(uint32_t site, void **ip)
{
    callsite_mem *m = atomic_load_explicit(&mem, memory_order_acquire);
    if (site == 0 || site > SITES || m == NULL)
        return 0;
    const struct site *t = &m->sites[site - 1];
    if (atomic_load_explicit(&t->hash, memory_order_acquire) <= SITE_BUSY)
        return 0;
    memcpy(ip, t->ip, sizeof t->ip);
    return t->n;
}

/* Never in a fork child: libunwind takes its own mutex and the loader's
 * dl_iterate_phdr lock, either of which another thread of the parent may
 * have held at fork (a child of a program whose worker thread was unwinding
 * its first GEMMs hung there). */
int fc_callsite_enabled(void)
{
    return fc_opt.callsites && !fc_process_is_fork_child();
}
