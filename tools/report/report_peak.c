/* SPDX-License-Identifier: Apache-2.0 */
/* report_peak.c - --gpu/--dtype/--peak-tflops for 'report' and 'merge':
 * strict parsing, and the peak looked up in the shared table (peak.h). */
#include "report_peak.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "parse.h"
#include "peak.h"

/* "--gpu" or "--gpu=NAME": the flag's name length, or 0 when a is not it. */
static size_t flag_is(const char *a, const char *name)
{
    size_t n = strlen(name);
    return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=') ? n : 0;
}

int fc_peak_opt_take(fc_peak_opt *o, const char *verb, int argc, char **argv, int *i)
{
    static const char *const names[] = {"--gpu", "--dtype", "--peak-tflops"};
    const char **slots[] = {&o->gpu, &o->dtype, &o->tflops};
    const char *a = argv[*i];
    for (int k = 0; k < 3; k++) {
        size_t n = flag_is(a, names[k]);
        if (n == 0)
            continue;
        if (a[n] == '=') {
            *slots[k] = a + n + 1;
        } else if (*i + 1 < argc) {
            *slots[k] = argv[++*i];
        } else {
            fprintf(stderr, "flopcount %s: %s needs a value\n", verb, names[k]);
            return -1;
        }
        if (**slots[k] == '\0') {
            fprintf(stderr, "flopcount %s: %s needs a value\n", verb, names[k]);
            return -1;
        }
        return 1;
    }
    return 0;
}

static int from_table(const fc_peak_opt *o, const char *verb, const char *dtype_name,
                      double *flops, char *desc, size_t size)
{
    const fc_peak_device *d = fc_peak_find(o->gpu);
    if (d == NULL) {
        fprintf(stderr,
                "flopcount %s: unknown GPU '%s' ('flopcount peak' lists the known ones; "
                "or give --peak-tflops)\n",
                verb, o->gpu);
        return -1;
    }
    int dt = fc_dtype_from_name(dtype_name);
    if (dt == FC_DT_UNKNOWN) {
        fprintf(stderr, "flopcount %s: unknown dtype '%s'\n", verb, dtype_name);
        return -1;
    }
    double f = fc_peak_flops(d, dt);
    if (!(f > 0)) {
        char why[160];
        fprintf(stderr, "flopcount %s: %s; pick another --dtype, or give --peak-tflops\n", verb,
                fc_peak_none_reason(d, dt, why, sizeof why));
        return -1;
    }
    *flops = f;
    snprintf(desc, size, "%s, %s dense: %.1f TFLOP/s", d->display, fc_dtype_name(dt), f / 1e12);
    return 0;
}

int fc_peak_opt_resolve(const fc_peak_opt *o, const char *verb, const char *default_dtype,
                        double *flops, char *desc, size_t size)
{
    *flops = 0;
    snprintf(desc, size, "none");
    if (o->tflops != NULL && (o->gpu != NULL || o->dtype != NULL)) {
        fprintf(stderr, "flopcount %s: give either --peak-tflops or --gpu/--dtype, not both\n",
                verb);
        return -1;
    }
    if (o->tflops != NULL) {
        double t;
        if (fc_parse_double(o->tflops, 1e-6, 1e9, &t) != 0) {
            fprintf(stderr, "flopcount %s: bad value '%s' for --peak-tflops\n", verb, o->tflops);
            return -1;
        }
        *flops = t * 1e12;
        snprintf(desc, size, "given: %g TFLOP/s", t);
        return 0;
    }
    if (o->dtype != NULL && o->gpu == NULL) {
        fprintf(stderr, "flopcount %s: --dtype needs --gpu (or give --peak-tflops)\n", verb);
        return -1;
    }
    if (o->gpu == NULL)
        return 0;
    const char *dt = o->dtype ? o->dtype : default_dtype;
    if (dt == NULL || *dt == '\0') {
        fprintf(stderr, "flopcount %s: --gpu needs --dtype\n", verb);
        return -1;
    }
    return from_table(o, verb, dt, flops, desc, size);
}

const char *fc_peak_main_dtype(const fc_report_group *by_dtype, size_t n)
{
    const fc_report_group *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (best == NULL || by_dtype[i].flops > best->flops)
            best = &by_dtype[i];
    return best ? best->name : NULL;
}

/* ---- the peak of each dtype ---- */

void fc_mix_source_opts(fc_mix_source *s, const fc_peak_opt *o)
{
    double t;
    s->given = 0;
    s->dev = NULL;
    if (o->tflops != NULL && fc_parse_double(o->tflops, 1e-6, 1e9, &t) == 0)
        s->given = t * 1e12;
    else if (o->gpu != NULL)
        s->dev = fc_peak_find(o->gpu);
}

void fc_mix_source_add(fc_mix_source *s, const fc_report *r)
{
    static fc_u128 trained[FC_DT_COUNT];
    fc_mix_flops_of(r, trained);
    double mine[FC_DT_COUNT] = {0}; /* this report's peaks: 0 none given */
    for (size_t i = 0; r->has_utilization && i < r->utilization.n_mix; i++) {
        const fc_report_mix_term *t = &r->utilization.mix[i];
        int dt = fc_dtype_from_name(t->dtype);
        if (dt != FC_DT_UNKNOWN && t->peak_flops > 0)
            mine[dt] = t->peak_flops;
    }
    /* Every dtype this report trained in needs this report's own peak: a
     * report without one (no utilization at all, as when its dominant dtype
     * has no peak on its device, or a null peak) must not borrow another
     * rank's figure, which may be another device's. */
    for (int dt = FC_DT_UNKNOWN + 1; dt < FC_DT_COUNT; dt++) {
        double *have = &s->by_dtype[dt];
        if ((trained[dt] == 0 && mine[dt] == 0) || *have == -1 || *have == -2)
            continue;
        if (!(mine[dt] > 0))
            *have = -2; /* this report has the dtype and no peak for it */
        else if (*have == 0)
            *have = mine[dt];
        else if (*have != mine[dt])
            *have = -1; /* two reports, two figures */
    }
    if (r->has_utilization && strcmp(r->utilization.peak_source, "FLOPCOUNT_PEAK_TFLOPS") == 0)
        s->by_hand = 1;
    if (s->reason[0] == '\0' && r->utilization.mix_reason[0])
        snprintf(s->reason, sizeof s->reason, "%s", r->utilization.mix_reason);
    if (s->reason[0] == '\0' && !r->has_utilization && r->utilization_reason[0]) {
        /* "no peak: WHY; HINT" -> WHY: the hint (one peak by hand) cannot
         * serve a mix, which needs each dtype's own */
        const char *why = r->utilization_reason;
        if (strncmp(why, "no peak: ", 9) == 0)
            why += 9;
        const char *hint = strstr(why, "; " FC_PEAK_UNKNOWN_HINT);
        int len = hint ? (int)(hint - why) : (int)strlen(why);
        snprintf(s->reason, sizeof s->reason, "%.*s", len, why);
    }
    s->reports++;
}

static double source_of(void *ctx, int dtype, char *why, size_t n)
{
    const fc_mix_source *s = ctx;
    if (s->given > 0)
        return s->given;
    if (s->dev != NULL) {
        double f = fc_peak_flops(s->dev, dtype);
        if (!(f > 0))
            fc_peak_none_reason(s->dev, dtype, why, n);
        return f;
    }
    if (s->reports > 0 && dtype > FC_DT_UNKNOWN && dtype < FC_DT_COUNT) {
        if (s->by_dtype[dtype] > 0)
            return s->by_dtype[dtype];
        if (s->by_dtype[dtype] == -1)
            snprintf(why, n, "the reports give different %s peaks (name the device: --gpu NAME)",
                     fc_dtype_name(dtype));
        else if (s->reason[0])
            snprintf(why, n, "%s", s->reason);
        else
            snprintf(why, n, "the report%s no %s peak (name the device: --gpu NAME)",
                     s->reports > 1 ? "s give" : " gives", fc_dtype_name(dtype));
        return 0;
    }
    if (dtype <= FC_DT_UNKNOWN || dtype >= FC_DT_COUNT)
        snprintf(why, n, "FLOPs of a dtype this flopcount does not know: no peak for them");
    else
        snprintf(why, n, "no peak known (--gpu NAME, or --peak-tflops X for one dtype)");
    return 0;
}

fc_mix_peaks fc_mix_source_peaks(fc_mix_source *s)
{
    /* a report's hand-given peak is one figure whatever the dtype, like
     * --peak-tflops: a mix of several dtypes cannot rest on it */
    fc_mix_peaks p = {source_of, s,
                      s->given > 0  ? "--peak-tflops"
                      : s->by_hand ? "FLOPCOUNT_PEAK_TFLOPS, in a report"
                                   : NULL};
    return p;
}

int fc_mix_flops_of(const fc_report *r, fc_u128 *out)
{
    memset(out, 0, FC_DT_COUNT * sizeof *out);
    for (size_t i = 0; i < r->iterations.n_flops_by_dtype; i++) {
        int dt = fc_dtype_from_name(r->iterations.flops_by_dtype[i].name);
        out[dt] = fc_u128_sat_add(out[dt], r->iterations.flops_by_dtype[i].flops);
    }
    return r->iterations.has_flops_by_dtype;
}
