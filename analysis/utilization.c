/* SPDX-License-Identifier: Apache-2.0 */
/* utilization.c - MFU/HFU and throughput: the only place the exact FLOP
 * integers meet floating point, and only for ratios shown to people. */
#include "utilization.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double fc_utilization(fc_u128 flops_per_iter, double seconds, int64_t gpus,
                      double peak_flops_per_gpu)
{
    if (!(seconds > 0) || gpus <= 0 || !(peak_flops_per_gpu > 0) || !isfinite(seconds) ||
        !isfinite(peak_flops_per_gpu))
        return NAN;
    return fc_u128_to_double(flops_per_iter) / (seconds * (double)gpus * peak_flops_per_gpu);
}

int fc_util_compute(fc_u128 model_flops, fc_u128 hardware_flops, fc_u128 tokens,
                    double seconds, int64_t gpus, double peak_flops_per_gpu, fc_util *u)
{
    memset(u, 0, sizeof *u);
    double mfu = fc_utilization(model_flops, seconds, gpus, peak_flops_per_gpu);
    if (isnan(mfu))
        return -1;
    u->seconds = seconds;
    u->gpus = gpus;
    u->peak_flops = peak_flops_per_gpu;
    u->mfu = mfu;
    u->hfu = fc_utilization(hardware_flops, seconds, gpus, peak_flops_per_gpu);
    double per_gpu_s = seconds * (double)gpus * 1e12;
    u->tflops_per_gpu = fc_u128_to_double(model_flops) / per_gpu_s;
    u->hardware_tflops_per_gpu = fc_u128_to_double(hardware_flops) / per_gpu_s;
    u->tokens_per_second = fc_u128_to_double(tokens) / seconds;
    return 0;
}

void fc_util_json(fc_jw *w, const fc_util *u)
{
    fc_jw_double(w, "iter_time_s", u->seconds);
    fc_jw_i64(w, "gpus", u->gpus);
    fc_jw_double(w, "peak_flops", u->peak_flops);
    fc_jw_double(w, "mfu", u->mfu);
    fc_jw_double(w, "hfu", u->hfu);
    fc_jw_double(w, "tflops_per_gpu", u->tflops_per_gpu);
    fc_jw_double(w, "hardware_tflops_per_gpu", u->hardware_tflops_per_gpu);
    fc_jw_double(w, "tokens_per_second", u->tokens_per_second);
}

int fc_util_text(const fc_util *u, char *buf, size_t n)
{
    return snprintf(buf, n,
                    "  %lld GPU%s, %.6g s per iteration, peak %.6g TFLOP/s per GPU\n"
                    "  MFU %.2f%%   HFU %.2f%%   %.2f model TFLOP/s per GPU (%.2f hardware)   "
                    "%.6g tokens/s\n",
                    (long long)u->gpus, u->gpus == 1 ? "" : "s", u->seconds, u->peak_flops / 1e12,
                    u->mfu * 100.0, u->hfu * 100.0, u->tflops_per_gpu,
                    u->hardware_tflops_per_gpu, u->tokens_per_second);
}

/* Terms with FLOPs, most first (ties: lower dtype first). */
static void collect_terms(const fc_u128 *by_dtype, fc_mix *out, fc_u128 *total)
{
    *total = 0;
    for (int d = 0; d < FC_DT_COUNT; d++) {
        if (by_dtype[d] == 0)
            continue;
        *total = fc_u128_sat_add(*total, by_dtype[d]);
        int i = out->n++;
        while (i > 0 && out->t[i - 1].flops < by_dtype[d]) {
            out->t[i] = out->t[i - 1];
            i--;
        }
        memset(&out->t[i], 0, sizeof out->t[i]);
        out->t[i].dtype = d;
        out->t[i].flops = by_dtype[d];
        out->t[i].seconds = NAN;
    }
}

int fc_mix_compute(const fc_u128 *by_dtype, fc_u128 flops, double seconds, int64_t gpus,
                   const fc_mix_peaks *peaks, fc_mix *out)
{
    memset(out, 0, sizeof *out);
    out->hfu = out->ideal_seconds = NAN;
    fc_u128 total;
    collect_terms(by_dtype, out, &total);
    if (out->n == 0) {
        snprintf(out->reason, sizeof out->reason, "no training FLOPs by dtype");
        return -1;
    }
    double all = fc_u128_to_double(total), f = fc_u128_to_double(flops);
    int missing = 0;
    for (int i = 0; i < out->n; i++) {
        fc_mix_term *t = &out->t[i];
        char why[160] = "";
        /* x / x is 1 exactly: one dtype gives F itself below */
        t->share = fc_u128_to_double(t->flops) / all;
        if (peaks->single != NULL && out->n > 1)
            continue; /* one figure is no dtype's own: no peaks, said below */
        t->peak = peaks->of(peaks->ctx, t->dtype, why, sizeof why);
        if (!(t->peak > 0) || !isfinite(t->peak)) {
            t->peak = 0;
            if (!missing) /* the first dtype without a peak says why */
                snprintf(out->reason, sizeof out->reason, "%s", why[0] ? why : "no peak");
            missing = 1;
        } else if (seconds > 0 && gpus > 0) {
            t->seconds = f * t->share / ((double)gpus * t->peak);
        }
    }
    if (peaks->single != NULL && out->n > 1)
        snprintf(out->reason, sizeof out->reason,
                 "one peak given (%s) for FLOPs of %d dtypes: the mix needs each dtype's own "
                 "peak (name the device instead)",
                 peaks->single, out->n);
    if (missing || (peaks->single != NULL && out->n > 1))
        return -1;
    if (!(seconds > 0) || gpus <= 0 || !isfinite(seconds)) {
        snprintf(out->reason, sizeof out->reason, "no measured time");
        return -1;
    }
    double hfu = 0, ideal = 0;
    for (int i = 0; i < out->n; i++) {
        const fc_mix_term *t = &out->t[i];
        /* fc_utilization's expression, term by term */
        hfu += f * t->share / (seconds * (double)gpus * t->peak);
        ideal += t->seconds;
    }
    out->ok = 1;
    out->hfu = hfu;
    out->ideal_seconds = ideal;
    return 0;
}

char *fc_mix_shares_text(const fc_mix *m, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < m->n && used + 1 < size; i++) {
        int k = snprintf(buf + used, size - used, "%s%s %.1f%%", i ? ", " : "",
                         fc_dtype_name(m->t[i].dtype), 100.0 * m->t[i].share);
        if (k < 0)
            break;
        used += (size_t)k < size - used ? (size_t)k : size - used - 1;
    }
    return buf;
}

void fc_mix_json(fc_jw *w, const fc_mix *m)
{
    if (m->ok) {
        fc_jw_double(w, "hfu_mix", m->hfu);
        fc_jw_double(w, "ideal_seconds", m->ideal_seconds);
    } else {
        fc_jw_null(w, "hfu_mix");
        fc_jw_str(w, "mix_reason", m->reason);
    }
    fc_jw_arr_begin(w, "mix");
    for (int i = 0; i < m->n; i++) {
        const fc_mix_term *t = &m->t[i];
        fc_jw_obj_begin(w, NULL);
        fc_jw_str(w, "dtype", fc_dtype_name(t->dtype));
        fc_jw_double(w, "share", t->share);
        fc_jw_u128(w, "training_flops", t->flops);
        fc_jw_double(w, "peak_flops", t->peak > 0 ? t->peak : NAN); /* NaN is written null */
        fc_jw_double(w, "seconds_at_peak", t->peak > 0 ? t->seconds : NAN);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
}
