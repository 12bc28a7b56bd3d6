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
