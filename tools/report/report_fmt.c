/* SPDX-License-Identifier: Apache-2.0 */
/* report_fmt.c - human-readable numbers and the shape entry that the
 * 'report' and 'merge' outputs share. */
#include "report_fmt.h"

#include <math.h>
#include <stdio.h>

char *fc_fmt_flop(fc_u128 v, char *buf, size_t size)
{
    return fc_u128_si(v, "FLOP", buf, size);
}

char *fc_fmt_pct(double fraction, char *buf, size_t size)
{
    if (isnan(fraction))
        snprintf(buf, size, "n/a");
    else if (fraction != 0 && fabs(fraction) < 0.001) /* keep small figures visible */
        snprintf(buf, size, "%.2g%%", fraction * 100.0);
    else
        snprintf(buf, size, "%.1f%%", fraction * 100.0);
    return buf;
}

char *fc_fmt_seconds(double s, char *buf, size_t size)
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

void fc_json_shape(fc_jw *w, const fc_report_shape *s)
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
