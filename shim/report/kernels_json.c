/* SPDX-License-Identifier: Apache-2.0 */
/* kernels_json.c - the "kernels" section (--kernels): GPU busy time,
 * kernel time by class with the top kernel names of each, GEMM kernel time
 * per shape with achieved TFLOP/s and the fraction of peak (the shapes
 * losing the most time against peak first), and per iteration. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/api.h"
#include "count/counters.h"
#include "cupti/cupti_layer.h"
#include "cupti/kernels.h"
#include "detect/irec.h"
#include "dtype.h"
#include "gpu_sections.h"
#include "probe/peak_choice.h"
#include "schema_kernels.h"
#include "stats.h"

#define SHAPE_ROWS 64
#define NAME_ROWS 5
#define INDEX_SLOTS 8192u
#define MAX_LIST 16384

typedef struct shape_row {
    fc_shape_view v;
    const fc_kshape_row *k;
    fc_u128 flops_timed;                  /* FLOPs of the calls whose kernels were seen */
    double achieved, peak_fraction, lost; /* FLOP/s; NaN without a peak */
} shape_row;

static uint32_t index_slot[INDEX_SLOTS]; /* kernel shape row + 1, by key */
static shape_row rows[SHAPE_ROWS];
static size_t n_rows, more_rows;
static double med_buf[MAX_LIST];

struct collect {
    const fc_kernels_view *kv;
    int may_look;
};

static const fc_kshape_row *find_key(const fc_kernels_view *kv, uint32_t key)
{
    for (uint32_t i = key & (INDEX_SLOTS - 1), n = 0; n < INDEX_SLOTS;
         i = (i + 1) & (INDEX_SLOTS - 1), n++) {
        if (index_slot[i] == 0)
            return NULL;
        if (kv->shapes[index_slot[i] - 1].key == key)
            return &kv->shapes[index_slot[i] - 1];
    }
    return NULL;
}

/* The less of a row, the more time it loses: lost time, else kernel time. */
static int worse(const shape_row *a, const shape_row *b)
{
    double la = a->lost == a->lost ? a->lost : (double)a->k->ns / 1e9;
    double lb = b->lost == b->lost ? b->lost : (double)b->k->ns / 1e9;
    return la > lb;
}

static void add_row(const fc_shape_view *v, void *ctx)
{
    struct collect *c = ctx;
    if (v->key.m < 0 || v->calls == 0 || !fc_api_is_gpu(v->key.api))
        return;
    const fc_kshape_row *k = find_key(c->kv, fc_site_key(&v->key));
    if (k == NULL || k->ns == 0)
        return;
    shape_row r;
    memset(&r, 0, sizeof r);
    r.v = *v;
    r.k = k;
    fc_u128 per_call = v->flops / v->calls; /* one shape: every call has the same FLOPs */
    r.flops_timed = per_call * (k->calls < v->calls ? k->calls : v->calls);
    double secs = (double)k->ns / 1e9;
    r.achieved = fc_u128_to_double(r.flops_timed) / secs;
    r.peak_fraction = r.lost = NAN;
    fc_peak_choice pc;
    if (fc_peak_choose(v->key.dtype, 1, c->may_look, &pc) == 0 && pc.flops > 0) {
        r.peak_fraction = r.achieved / pc.flops;
        r.lost = secs - fc_u128_to_double(r.flops_timed) / pc.flops;
    }
    if (n_rows < SHAPE_ROWS) {
        rows[n_rows++] = r;
        return;
    }
    more_rows++;
    size_t least = 0;
    for (size_t i = 1; i < n_rows; i++)
        if (worse(&rows[least], &rows[i]))
            least = i;
    if (worse(&r, &rows[least]))
        rows[least] = r;
}

static void build_rows(const fc_kernels_view *kv, int may_look)
{
    memset(index_slot, 0, sizeof index_slot);
    for (size_t i = 0; i < kv->n_shapes && i < INDEX_SLOTS / 2; i++) {
        uint32_t s = kv->shapes[i].key & (INDEX_SLOTS - 1);
        while (index_slot[s] != 0)
            s = (s + 1) & (INDEX_SLOTS - 1);
        index_slot[s] = (uint32_t)i + 1;
    }
    n_rows = more_rows = 0;
    struct collect c = {kv, may_look};
    fc_counters_foreach(add_row, &c);
    for (size_t i = 1; i < n_rows; i++) /* the most time lost first */
        for (size_t j = i; j > 0 && worse(&rows[j], &rows[j - 1]); j--) {
            shape_row t = rows[j];
            rows[j] = rows[j - 1];
            rows[j - 1] = t;
        }
}

static double secs(uint64_t ns)
{
    return (double)ns / 1e9;
}

static void write_classes(fc_jw *w, const uint64_t *ns, const uint64_t *count)
{
    fc_jw_obj_begin(w, "by_class");
    for (int c = 0; c < FC_K_COUNT; c++) {
        fc_jw_obj_begin(w, fc_kclass_name(c));
        fc_jw_double(w, "seconds", secs(ns[c]));
        fc_jw_u64(w, "kernels", count[c]);
        fc_jw_obj_end(w);
    }
    fc_jw_obj_end(w);
}

static void write_names(fc_jw *w, const fc_kernels_view *kv)
{
    fc_jw_obj_begin(w, "top_names");
    for (int c = 0; c < FC_K_COUNT; c++) {
        fc_jw_arr_begin(w, fc_kclass_name(c));
        int shown = 0;
        for (size_t i = 0; i < kv->n_names && shown < NAME_ROWS; i++) {
            if (kv->names[i].cls != c)
                continue;
            fc_jw_obj_begin(w, NULL);
            fc_jw_str(w, "name", kv->names[i].name);
            fc_jw_double(w, "seconds", secs(kv->names[i].ns));
            fc_jw_u64(w, "kernels", kv->names[i].kernels);
            fc_jw_obj_end(w);
            shown++;
        }
        fc_jw_arr_end(w);
    }
    fc_jw_obj_end(w);
}

static void write_shapes(fc_jw *w)
{
    fc_jw_arr_begin(w, "shapes");
    for (size_t i = 0; i < n_rows; i++) {
        const shape_row *r = &rows[i];
        char ta[2] = {r->v.key.transa, 0}, tb[2] = {r->v.key.transb, 0};
        fc_jw_obj_begin(w, NULL);
        fc_jw_str(w, "api", fc_api_name(r->v.key.api, r->v.key.flags & FC_API_64));
        fc_jw_i64(w, "m", r->v.key.m);
        fc_jw_i64(w, "n", r->v.key.n);
        fc_jw_i64(w, "k", r->v.key.k);
        fc_jw_i64(w, "batch", r->v.key.batch);
        fc_jw_str(w, "transa", ta);
        fc_jw_str(w, "transb", tb);
        fc_jw_str(w, "dtype", fc_dtype_name(r->v.key.dtype));
        fc_kshape_rec t = {.calls = r->v.calls,
                           .calls_timed = r->k->calls,
                           .kernels = r->k->kernels,
                           .kernel_seconds = secs(r->k->ns),
                           .flops_timed = r->flops_timed,
                           .achieved_flops_per_second = r->achieved,
                           .peak_fraction = r->peak_fraction,
                           .lost_seconds = r->lost};
        fc_kshape_json(w, &t);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_u64(w, "more_shapes", more_rows);
}

static void write_iterations(fc_jw *w, const fc_kernels_view *kv, const fc_gpu_ctx *c)
{
    size_t from, to, n = kv->n_iters, m = 0;
    fc_steady_range(n, n > 0 && c->v->stored >= n && c->v->list[n - 1].open_end, &from, &to);
    fc_kiter_rec t = {.count = n};
    for (size_t i = from; i < to; i++)
        if (kv->iters[i].has && kv->iters[i].g1 > kv->iters[i].g0)
            med_buf[m++] =
                (double)kv->iters[i].busy_ns / (double)(kv->iters[i].g1 - kv->iters[i].g0);
    t.median_busy_fraction = m ? fc_median_double(med_buf, m) : NAN;
    m = 0;
    for (size_t i = from; i < to; i++)
        if (kv->iters[i].has)
            med_buf[m++] = secs(kv->iters[i].ns[FC_K_GEMM]);
    t.median_gemm_seconds = m ? fc_median_double(med_buf, m) : NAN;
    fc_jw_obj_begin(w, "iterations");
    fc_kiter_json(w, &t);
    fc_jw_arr_begin(w, "list");
    for (size_t i = 0; i < n; i++) {
        const fc_kiter *it = &kv->iters[i];
        fc_jw_obj_begin(w, NULL);
        fc_jw_u64(w, "index", i + 1);
        if (it->has) {
            fc_jw_double(w, "gpu_span_seconds", secs(it->g1 - it->g0));
            fc_jw_double(w, "gpu_busy_seconds", secs(it->busy_ns));
            fc_jw_double(w, "busy_fraction",
                         it->g1 > it->g0 ? (double)it->busy_ns / (double)(it->g1 - it->g0) : NAN);
            fc_jw_u64(w, "kernels", it->kernels);
            fc_jw_obj_begin(w, "seconds_by_class");
            for (int k = 0; k < FC_K_COUNT; k++)
                fc_jw_double(w, fc_kclass_name(k), secs(it->ns[k]));
            fc_jw_obj_end(w);
        } else {
            fc_jw_null(w, "gpu_span_seconds");
        }
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_obj_end(w);
}

void fc_report_kernels_json(fc_jw *w, const fc_gpu_ctx *c)
{
    static fc_kernels_view kv;
    fc_cupti_status s;
    fc_cupti_status_get(&s);
    if (!s.kernels_wanted) {
        fc_jw_null(w, "kernels");
        fc_jw_str(w, "kernels_reason",
                  "not requested (flopcount run --kernels, FLOPCOUNT_KERNELS=1)");
        return;
    }
    if (fc_kernels_get(&kv) != 0) {
        fc_jw_null(w, "kernels");
        fc_jw_str(w, "kernels_reason",
                  s.kernels_on ? "no kernel records arrived" : s.kernels_reason);
        return;
    }
    build_rows(&kv, !c->interrupted);
    uint64_t total = 0;
    for (int k = 0; k < FC_K_COUNT; k++)
        total += kv.ns[k];
    fc_ktotals_rec t = {
        .kernels = kv.kernels,
        .dropped_records = kv.dropped,
        .not_in_busy_time = kv.pending_overflow,
        .devices = kv.devices,
        .kernel_seconds = secs(total),
        .gpu_busy_seconds = secs(kv.busy_ns),
        .gpu_span_seconds = secs(kv.span_ns),
        .busy_fraction = kv.span_ns ? (double)kv.busy_ns / (double)kv.span_ns : NAN,
        .outside_iterations_seconds = secs(kv.outside_ns),
    };
    fc_jw_obj_begin(w, "kernels");
    fc_ktotals_json(w, &t, 0);
    write_classes(w, kv.ns, kv.count);
    fc_jw_obj_begin(w, "gemm_unknown_shape");
    fc_jw_double(w, "seconds", secs(kv.unknown_shape_ns));
    fc_jw_u64(w, "kernels", kv.unknown_shape_kernels);
    fc_jw_obj_end(w);
    write_names(w, &kv);
    write_shapes(w);
    write_iterations(w, &kv, c);
    fc_jw_obj_end(w);
}

static void say(int fd, const char *line, int n)
{
    if (n > 0) {
        ssize_t wr = write(fd, line, (size_t)n);
        (void)wr;
    }
}

void fc_report_kernels_text(int fd, const fc_gpu_ctx *c)
{
    static fc_kernels_view kv;
    if (fc_kernels_get(&kv) != 0)
        return;
    build_rows(&kv, !c->interrupted);
    uint64_t total = 0;
    for (int k = 0; k < FC_K_COUNT; k++)
        total += kv.ns[k];
    char line[700];
    double t = total ? (double)total : 1;
    say(fd, line,
        snprintf(line, sizeof line,
                 "flopcount: GPU busy %.1f%% of %.3f s; kernel time: GEMM %.1f%%, "
                 "attention %.1f%%, communication %.1f%%, GEMM-like uncounted %.1f%%, "
                 "other %.1f%%\n",
                 kv.span_ns ? 100.0 * (double)kv.busy_ns / (double)kv.span_ns : 0.0,
                 secs(kv.span_ns), 100 * kv.ns[FC_K_GEMM] / t, 100 * kv.ns[FC_K_ATTENTION] / t,
                 100 * kv.ns[FC_K_COMM] / t, 100 * kv.ns[FC_K_GEMM_LIKE] / t,
                 100 * kv.ns[FC_K_OTHER] / t));
    for (size_t i = 0; i < n_rows && i < 3; i++) {
        const shape_row *r = &rows[i];
        char pct[32] = "";
        if (r->peak_fraction == r->peak_fraction)
            snprintf(pct, sizeof pct, " (%.1f%% of peak)", 100 * r->peak_fraction);
        say(fd, line,
            snprintf(line, sizeof line,
                     "flopcount:   GEMM %c%c m=%lld n=%lld k=%lld batch=%lld %s: %.4f s "
                     "in kernels, %.2f TFLOP/s%s\n",
                     r->v.key.transa, r->v.key.transb, (long long)r->v.key.m, (long long)r->v.key.n,
                     (long long)r->v.key.k, (long long)r->v.key.batch,
                     fc_dtype_name(r->v.key.dtype), secs(r->k->ns), r->achieved / 1e12, pct));
    }
}
