/* SPDX-License-Identifier: Apache-2.0 */
/* render_fmt.c - human-readable numbers and the shape entry that the
 * 'report' and 'merge' outputs share. */
#include "render_fmt.h"

#include <math.h>
#include <stdio.h>

char *fci_fmt_flop(fc_u128 v, char *buf, size_t size)
{
    return fc_u128_si(v, "FLOP", buf, size);
}

char *fci_fmt_pct(double fraction, char *buf, size_t size)
{
    if (isnan(fraction))
        snprintf(buf, size, "n/a");
    else if (fraction != 0 && fabs(fraction) < 0.001) /* keep small figures visible */
        snprintf(buf, size, "%.2g%%", fraction * 100.0);
    else
        snprintf(buf, size, "%.1f%%", fraction * 100.0);
    return buf;
}

char *fci_fmt_seconds(double s, char *buf, size_t size)
{
    if (isnan(s))
        snprintf(buf, size, "n/a");
    else if (s < 1.0)
        snprintf(buf, size, "%.4f s", s);
    else
        snprintf(buf, size, "%.3f s", s);
    return buf;
}

static void str_or_null(fc_jw *w, const char *key, const char *v)
{
    if (v[0])
        fc_jw_str(w, key, v);
    else
        fc_jw_null(w, key);
}

void fci_json_shape(fc_jw *w, const fc_report_shape *s)
{
    char ta[2] = {s->transa == '?' ? 0 : s->transa, 0};
    char tb[2] = {s->transb == '?' ? 0 : s->transb, 0};
    fc_jw_obj_begin(w, NULL);
    fc_jw_str(w, "api", s->api);
    if (s->overflow) {
        fc_jw_bool(w, "overflow", 1);
    } else {
        fc_jw_i64(w, "m", s->m);
        fc_jw_i64(w, "n", s->n);
        fc_jw_i64(w, "k", s->k);
        fc_jw_i64(w, "batch", s->batch);
        str_or_null(w, "transa", ta);
        str_or_null(w, "transb", tb);
    }
    str_or_null(w, "dtype", s->dtype);
    if (!s->overflow) {
        str_or_null(w, "out_dtype", s->out_dtype);
        str_or_null(w, "compute", s->compute);
    }
    fc_jw_u64(w, "calls", s->calls);
    fc_jw_u128(w, "flops", s->flops);
    fc_jw_u64(w, "failed_calls", s->failed_calls);
    fc_jw_obj_end(w);
}

char *fci_fmt_mix_terms(const fc_mix *m, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < m->n && used + 1 < size; i++) {
        const fc_mix_term *t = &m->t[i];
        int k;
        if (t->peak > 0)
            k = snprintf(buf + used, size - used, "%s%s %.1f%% at %.6g TFLOP/s", i ? ", " : "",
                         fc_dtype_name(t->dtype), 100.0 * t->share, t->peak / 1e12);
        else
            k = snprintf(buf + used, size - used, "%s%s %.1f%% (no peak)", i ? ", " : "",
                         fc_dtype_name(t->dtype), 100.0 * t->share);
        if (k < 0)
            break;
        used += (size_t)k < size - used ? (size_t)k : size - used - 1;
    }
    return buf;
}

char *fci_fmt_mix_line(const fc_mix *m, char *buf, size_t size)
{
    char p[16], terms[400];
    fci_fmt_mix_terms(m, terms, sizeof terms);
    if (m->ok)
        snprintf(buf, size, "%s   each dtype's FLOPs at its own dense peak: %s",
                 fci_fmt_pct(m->hfu, p, sizeof p), terms);
    else if (m->n > 0)
        snprintf(buf, size, "n/a   %s (%s)", m->reason, terms);
    else
        snprintf(buf, size, "n/a   %s", m->reason);
    return buf;
}
