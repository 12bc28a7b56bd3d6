/* SPDX-License-Identifier: Apache-2.0 */
/* hwflops_json.c - the "hw_flops" section (--hw-flops): how the hardware
 * FLOPs were measured (mode, chip, counters, the types left out of the
 * one-pass set), run totals by type, and per iteration: hardware FLOPs,
 * hardware HFU, and hardware less counted (the FLOPs cuBLAS did not see:
 * attention cores, Triton/CUTLASS GEMMs ...). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cupti/hwflops.h"
#include "detect/steps.h"
#include "gpu_sections.h"
#include "schema_hwflops.h"
#include "stats.h"

#define MAX_LIST 16384

static double med_flops[MAX_LIST], med_hfu[MAX_LIST], med_diff[MAX_LIST];

static const char *state_name(int s)
{
    switch (s) {
    case FC_HWS_ON:
        return "on";
    case FC_HWS_OFF:
        return "off";
    case FC_HWS_PENDING:
        return "pending";
    default:
        return "not requested";
    }
}

static double counted_of(const fc_iteration *it)
{
    return fc_u128_to_double(fc_u128_sat_add(it->fwd, fc_u128_sat_add(it->bwd, it->rec)));
}

static void write_choice(fc_jw *w, const fc_hw_choice *ch)
{
    fc_jw_arr_begin(w, "metrics");
    for (int m = 0; m < ch->n_metrics; m++) {
        fc_jw_obj_begin(w, NULL);
        fc_jw_str(w, "type", fc_hwtype_name(ch->metric_type[m]));
        fc_jw_str(w, "metric", ch->metric[m]);
        fc_jw_double(w, "flops_per_unit", ch->metric_scale[m]);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_obj_begin(w, "coverage");
    for (int t = 0; t < FC_HW_COUNT; t++) {
        char text[200];
        if (ch->covered[t] == 1)
            snprintf(text, sizeof text, "full");
        else if (ch->covered[t] == 2)
            snprintf(text, sizeof text, "partial: %s", ch->note[t] ? ch->note[t] : "");
        else
            snprintf(text, sizeof text, "left out: %s", ch->note[t] ? ch->note[t] : "not tried");
        fc_jw_str(w, fc_hwtype_name(t), text);
    }
    fc_jw_obj_end(w);
}

static void write_iterations(fc_jw *w, const fc_hw_view *h, const fc_gpu_ctx *c)
{
    const fc_steps_view *v = c->v;
    size_t n = h->n_iters < v->stored ? h->n_iters : (size_t)v->stored, from, to, m = 0;
    fc_steady_range(n, n > 0 && v->list[n - 1].open_end, &from, &to);
    for (size_t i = from; i < to; i++) {
        const fc_hw_iter *it = &h->iters[i];
        double secs = fc_iteration_seconds(&v->list[i]);
        if (!it->has)
            continue;
        med_flops[m] = it->flops;
        med_diff[m] = it->flops - counted_of(&v->list[i]);
        med_hfu[m] = c->peak_flops > 0 && secs > 0 ? it->flops / (c->peak_flops * secs) : NAN;
        m++;
    }
    fc_hwiter_rec t = {
        .count = n,
        .median_flops = m ? fc_median_double(med_flops, m) : NAN,
        .median_hardware_minus_counted = m ? fc_median_double(med_diff, m) : NAN,
        .median_hfu = m && c->peak_flops > 0 ? fc_median_double(med_hfu, m) : NAN,
    };
    fc_jw_obj_begin(w, "iterations");
    fc_hwiter_json(w, &t, 0, FC_HWITER_N);
    fc_jw_arr_begin(w, "list");
    for (size_t i = 0; i < n; i++) {
        const fc_hw_iter *it = &h->iters[i];
        double secs = fc_iteration_seconds(&v->list[i]);
        fc_jw_obj_begin(w, NULL);
        fc_jw_u64(w, "index", i + 1);
        if (!it->has) {
            fc_jw_null(w, "flops");
            fc_jw_obj_end(w);
            continue;
        }
        fc_jw_double(w, "flops", it->flops);
        fc_jw_obj_begin(w, "by_type");
        for (int t = 0; t < FC_HW_COUNT; t++)
            if (h->choice->covered[t])
                fc_jw_double(w, fc_hwtype_name(t), it->by_type[t]);
        fc_jw_obj_end(w);
        fc_jw_double(w, "counted_flops", counted_of(&v->list[i]));
        fc_jw_double(w, "hardware_minus_counted", it->flops - counted_of(&v->list[i]));
        fc_jw_double(w, "hfu",
                     c->peak_flops > 0 && secs > 0 ? it->flops / (c->peak_flops * secs) : NAN);
        fc_jw_double(w, "gpu_span_seconds", (double)it->span_ns / 1e9);
        fc_jw_double(w, "sampled_fraction",
                     it->span_ns ? (double)it->sampled_ns / (double)it->span_ns : NAN);
        fc_jw_double(w, "sampling_gap_seconds",
                     (double)(it->span_ns > it->sampled_ns ? it->span_ns - it->sampled_ns : 0) /
                         1e9);
        fc_jw_bool(w, "apportioned", it->apportioned);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_obj_end(w);
}

void fc_report_hwflops_json(fc_jw *w, const fc_gpu_ctx *c)
{
    static fc_hw_view h;
    fc_hwflops_get(&h);
    if (h.state == FC_HWS_NOT_REQUESTED) {
        fc_jw_null(w, "hw_flops");
        return;
    }
    fc_jw_obj_begin(w, "hw_flops");
    fc_jw_str(w, "status", state_name(h.state));
    fc_jw_str(w, "reason", h.state == FC_HWS_ON ? NULL : h.reason);
    fc_jw_bool(w, "validated_on_hardware", 0);
    if (h.state == FC_HWS_ON) {
        fc_hw_rec t = {
            .interval = h.interval,
            .samples = h.samples,
            .overflows = h.overflows,
            .decode_errors = h.decode_errors,
            .outside_iterations_flops = h.outside_flops,
        };
        fc_jw_str(w, "mode", h.mode);
        fc_jw_str(w, "chip", h.chip);
        fc_jw_str(w, "trigger", h.trigger);
        fc_hw_json(w, &t, 0, FC_HW_I_samples, 0); /* interval */
        write_choice(w, h.choice);
        fc_jw_obj_begin(w, "totals");
        double all = 0;
        for (int t = 0; t < FC_HW_COUNT; t++) {
            if (h.choice->covered[t])
                fc_jw_double(w, fc_hwtype_name(t), h.total[t]);
            all += fc_hwtype_is_flop(t) ? h.total[t] : 0;
        }
        fc_jw_double(w, "flops", all);
        fc_jw_obj_end(w);
        fc_hw_json(w, &t, FC_HW_I_samples, FC_HW_N, 0);
        write_iterations(w, &h, c);
    }
    fc_jw_obj_end(w);
}

static void say(int fd, const char *line, int n)
{
    if (n > 0) {
        ssize_t wr = write(fd, line, (size_t)n);
        (void)wr;
    }
}

void fc_report_hwflops_text(int fd, const fc_gpu_ctx *c)
{
    static fc_hw_view h;
    fc_hwflops_get(&h);
    char line[600];
    if (h.state != FC_HWS_ON)
        return;
    const fc_steps_view *v = c->v;
    size_t n = h.n_iters < v->stored ? h.n_iters : (size_t)v->stored, from, to, m = 0;
    fc_steady_range(n, n > 0 && v->list[n - 1].open_end, &from, &to);
    for (size_t i = from; i < to; i++) {
        if (!h.iters[i].has)
            continue;
        double secs = fc_iteration_seconds(&v->list[i]);
        med_flops[m] = h.iters[i].flops;
        med_diff[m] = h.iters[i].flops - counted_of(&v->list[i]);
        med_hfu[m] =
            c->peak_flops > 0 && secs > 0 ? h.iters[i].flops / (c->peak_flops * secs) : NAN;
        m++;
    }
    if (m == 0) {
        say(fd, line,
            snprintf(line, sizeof line,
                     "flopcount: hardware FLOPs (PM sampling, %s): no iteration measured\n",
                     h.chip));
        return;
    }
    double f = fc_median_double(med_flops, m), d = fc_median_double(med_diff, m);
    char hfu[48] = "";
    if (c->peak_flops > 0)
        snprintf(hfu, sizeof hfu, ", hwHFU %.1f%%", 100 * fc_median_double(med_hfu, m));
    say(fd, line,
        snprintf(line, sizeof line,
                 "flopcount: hardware FLOPs (PM sampling, %s; not yet validated on "
                 "hardware): %.4g per iteration%s; hardware - counted %.4g (%.1f%%)\n",
                 h.chip, f, hfu, d, f > 0 ? 100 * d / f : 0.0));
}
