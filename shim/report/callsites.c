/* SPDX-License-Identifier: Apache-2.0 */
/* callsites.c - the "callsites" section of the report and its summary
 * lines: counted shapes' FLOPs credited to the call site of each shape's
 * first call (probe/callsite.c), the top places by FLOPs, frames named
 * library!symbol+offset. Static buffers only. */
#include "callsites.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/options.h"
#include "count/counters.h"
#include "detect/irec.h"
#include "probe/callsite.h"

#define SITES FC_CALLSITE_SITES
#define TOP 10

static fc_u128 site_flops[SITES + 1]; /* [0]: not attributed */
static uint64_t site_calls[SITES + 1], site_shapes[SITES + 1];
/* The entries written by the last rank_sites, so the next one clears and
 * ranks only those: the cost is the sites in use, not SITES. */
static uint32_t used[SITES + 1], n_used;
static uint8_t in_used[SITES + 1];
static uint32_t order[TOP];
static int n_top;

static void add_shape(const fc_shape_view *v, void *ctx)
{
    (void)ctx;
    uint32_t s = v->key.m < 0 ? 0 : fc_callsite_of(fc_site_key(&v->key));
    if (!in_used[s]) {
        in_used[s] = 1;
        used[n_used++] = s;
    }
    site_flops[s] = fc_u128_sat_add(site_flops[s], v->flops);
    site_calls[s] += v->calls;
    site_shapes[s] += v->calls > 0;
}

static void rank_sites(void)
{
    for (uint32_t i = 0; i < n_used; i++) {
        uint32_t s = used[i];
        site_flops[s] = 0;
        site_calls[s] = site_shapes[s] = 0;
        in_used[s] = 0;
    }
    n_used = 0;
    fc_counters_foreach(add_shape, NULL);
    /* in site order, as a walk over every site would see them: ties keep
     * the lower index first (insertion sort: no allocation, few sites) */
    for (uint32_t i = 1; i < n_used; i++) {
        uint32_t v = used[i], j = i;
        for (; j > 0 && used[j - 1] > v; j--)
            used[j] = used[j - 1];
        used[j] = v;
    }
    n_top = 0;
    for (uint32_t i = 0; i < n_used; i++) {
        uint32_t s = used[i];
        if (s == 0 || site_calls[s] == 0)
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
    fc_jw_str(w, "method", fc_callsite_enabled() ? "stack unwound at the first call of each shape"
                           : fc_opt.callsites ? "off in a fork child (no unwinding after fork)"
                                              : "off (FLOPCOUNT_CALLSITES=0)");
    fc_jw_u128(w, "unattributed_flops", site_flops[0]);
    fc_jw_arr_begin(w, "top");
    for (int i = 0; i < n_top; i++) {
        void *ip[FC_CALLSITE_FRAMES];
        int nf = fc_callsite_frames(order[i], ip);
        fc_jw_obj_begin(w, NULL);
        fc_jw_u128(w, "flops", site_flops[order[i]]);
        fc_jw_u64(w, "calls", site_calls[order[i]]);
        fc_jw_u64(w, "shapes", site_shapes[order[i]]);
        fc_jw_arr_begin(w, "frames");
        for (int f = 0; f < nf; f++) {
            frame_name(ip[f], name, sizeof name);
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
static int best_frame(void *const *ip, int n)
{
    Dl_info first;
    if (n == 0 || dladdr(ip[0], &first) == 0)
        return 0;
    for (int f = 0; f < n; f++) {
        Dl_info info;
        if (dladdr(ip[f], &info) == 0 || info.dli_fbase != first.dli_fbase)
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
        void *ip[FC_CALLSITE_FRAMES];
        int nf = fc_callsite_frames(order[i], ip);
        if (nf == 0)
            continue;
        frame_name(ip[best_frame(ip, nf)], name, sizeof name);
        int n = snprintf(line, sizeof line, "flopcount:   call site %5.1f%% %.300s\n",
                         total ? 100.0 * fc_u128_to_double(site_flops[order[i]]) / fc_u128_to_double(total) : 0.0,
                         name);
        if (n > 0) {
            ssize_t wr = write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            (void)wr;
        }
    }
}
