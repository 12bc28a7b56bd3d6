/* SPDX-License-Identifier: Apache-2.0 */
/* callsite.c - call sites by FLOPs.
 *
 * A shape (api, types, transposes, m, n, k, batch) is unwound the first
 * time it is seen, never again: the hot path pays one probe of a table of
 * shape signatures. The frames above libflopcount (up to FRAMES of them)
 * make the call site; a shape's FLOPs, read from the counters at report
 * time, go to the call site of its first call. A shape issued from two
 * places is thus credited to the first (docs/iterations.md). */
#include "callsite.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"
#include "irec.h"
#include "options.h"

#define SIG_SLOTS FC_CALLSITE_SIG_SLOTS
#define SITES 1024u
#define FRAMES 6
#define TOP 10

typedef struct site {
    _Atomic uint64_t hash; /* 0: free */
    int n;
    void *ip[FRAMES];
} site;

_Atomic uint32_t fc_callsite_sigs[SIG_SLOTS];
static _Atomic uint32_t sig_site[SIG_SLOTS]; /* site index + 1; 0 not known yet */
static site sites[SITES];
static void *_Atomic self_base;
#define SITE_BUSY 2u /* hashes are odd: an even value is never a real one */

void fc_callsite_reset(void)
{
    memset(fc_callsite_sigs, 0, sizeof fc_callsite_sigs);
    memset(sig_site, 0, sizeof sig_site);
    memset(sites, 0, sizeof sites);
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
    int n = unw_backtrace(ips, 48);
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
        if (fc_opt.callsites) {
            int saved = errno;
            atomic_store_explicit(&sig_site[j], unwind_site(), memory_order_release);
            errno = saved;
        }
        return;
    }
}

static uint32_t site_of(uint32_t sig)
{
    uint32_t i = sig;
    for (int probe = 0; probe < 8; probe++, i++) {
        uint32_t j = i & (SIG_SLOTS - 1);
        uint32_t cur = atomic_load_explicit(&fc_callsite_sigs[j], memory_order_relaxed);
        if (cur == sig)
            return atomic_load_explicit(&sig_site[j], memory_order_acquire);
        if (cur == 0)
            return 0;
    }
    return 0;
}

/* ---- report ---- */

static fc_u128 site_flops[SITES + 1]; /* [0]: not attributed */
static uint64_t site_calls[SITES + 1], site_shapes[SITES + 1];
static uint32_t order[TOP];
static int n_top;

static void add_shape(const fc_shape_view *v, void *ctx)
{
    (void)ctx;
    uint32_t s = v->key.m < 0 ? 0 : site_of(fc_site_key(&v->key));
    site_flops[s] = fc_u128_sat_add(site_flops[s], v->flops);
    site_calls[s] += v->calls;
    site_shapes[s] += v->calls > 0;
}

static void rank_sites(void)
{
    memset(site_flops, 0, sizeof site_flops);
    memset(site_calls, 0, sizeof site_calls);
    memset(site_shapes, 0, sizeof site_shapes);
    fc_counters_foreach(add_shape, NULL);
    n_top = 0;
    for (uint32_t s = 1; s <= SITES; s++) {
        if (site_calls[s] == 0)
            continue;
        int pos = n_top < TOP ? n_top++ : TOP;
        while (pos > 0 && site_flops[order[pos - 1]] < site_flops[s]) {
            if (pos < TOP)
                order[pos] = order[pos - 1];
            pos--;
        }
        if (pos < TOP)
            order[pos] = s;
    }
}

/* "libtorch_cpu.so!symbol+0x1f" or "libtorch_cpu.so+0x1234f". */
static void frame_name(void *ip, char *out, size_t size)
{
    Dl_info info;
    if (dladdr(ip, &info) == 0 || info.dli_fname == NULL) {
        snprintf(out, size, "%p", ip);
        return;
    }
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (*base == '\0')
        base = "main";
    if (info.dli_sname != NULL)
        snprintf(out, size, "%s!%s+0x%lx", base, info.dli_sname,
                 (unsigned long)((char *)ip - (char *)info.dli_saddr));
    else
        snprintf(out, size, "%s+0x%lx", base, (unsigned long)((char *)ip - (char *)info.dli_fbase));
}

void fc_callsite_report_json(fc_jw *w)
{
    char name[512];
    rank_sites();
    fc_jw_obj_begin(w, "callsites");
    fc_jw_str(w, "method", fc_opt.callsites ? "stack unwound at the first call of each shape"
                                            : "off (FLOPCOUNT_CALLSITES=0)");
    fc_jw_u128(w, "unattributed_flops", site_flops[0]);
    fc_jw_arr_begin(w, "top");
    for (int i = 0; i < n_top; i++) {
        const site *s = &sites[order[i] - 1];
        fc_jw_obj_begin(w, NULL);
        fc_jw_u128(w, "flops", site_flops[order[i]]);
        fc_jw_u64(w, "calls", site_calls[order[i]]);
        fc_jw_u64(w, "shapes", site_shapes[order[i]]);
        fc_jw_arr_begin(w, "frames");
        for (int f = 0; f < s->n; f++) {
            frame_name(s->ip[f], name, sizeof name);
            fc_jw_str(w, NULL, name);
        }
        fc_jw_arr_end(w);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_obj_end(w);
}

/* The frame that names the place best: the first with a symbol within the
 * object of the direct caller (which is often an unexported wrapper inside
 * the same library); else the direct caller as object+offset, never a frame
 * of another object (a program's own static functions have no dynamic
 * symbol, and naming __libc_start_main instead would say nothing). */
static int best_frame(const site *s)
{
    Dl_info first;
    if (s->n == 0 || dladdr(s->ip[0], &first) == 0)
        return 0;
    for (int f = 0; f < s->n; f++) {
        Dl_info info;
        if (dladdr(s->ip[f], &info) == 0 || info.dli_fbase != first.dli_fbase)
            break;
        if (info.dli_sname != NULL)
            return f;
    }
    return 0;
}

void fc_callsite_report_text(int fd)
{
    char line[1024], name[400];
    rank_sites();
    fc_u128 total = site_flops[0];
    for (int i = 0; i < n_top; i++)
        total = fc_u128_sat_add(total, site_flops[order[i]]);
    int shown = n_top < 3 ? n_top : 3;
    for (int i = 0; i < shown; i++) {
        const site *s = &sites[order[i] - 1];
        frame_name(s->ip[best_frame(s)], name, sizeof name);
        int n = snprintf(line, sizeof line, "flopcount:   call site %5.1f%% %.300s\n",
                         total ? 100.0 * fc_u128_to_double(site_flops[order[i]]) / fc_u128_to_double(total) : 0.0,
                         name);
        if (n > 0) {
            ssize_t wr = write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            (void)wr;
        }
    }
}
