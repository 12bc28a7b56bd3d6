/* SPDX-License-Identifier: Apache-2.0 */
/* json_gpu.c - the CUPTI sections (graphs, kernel split, hardware FLOPs)
 * as JSON, in the layout the shim writes, so a merged report reads back
 * the same way (render_gpu.h; text_gpu.c writes them for people). */
#include "render_gpu.h"

#include <math.h>

#include "kernel_class.h"

static void json_graphs(fc_jw *w, const fc_report_gpu *g)
{
    if (!g->has_graphs) {
        fc_jw_null(w, "graphs");
        return;
    }
    fc_jw_obj_begin(w, "graphs");
    fc_jw_bool(w, "replays_visible", g->replays_visible);
    fc_jw_str(w, "reason", g->replays_visible ? NULL : g->graphs_reason);
    fc_jw_str(w, "seen_by", g->graphs_seen_by[0] ? g->graphs_seen_by : NULL);
    fc_graphs_json(w, &g->graph, FC_GRAPHS_PROCESS_ONLY);
    fc_jw_obj_end(w);
}

static void json_kernels(fc_jw *w, const fc_report_gpu *g)
{
    if (!g->has_kernels) {
        fc_jw_null(w, "kernels");
        fc_jw_str(w, "kernels_reason", g->kernels_reason[0] ? g->kernels_reason : NULL);
        return;
    }
    fc_ktotals_rec t = g->kt; /* busy_fraction of the seconds, as for a sum */
    t.busy_fraction = t.gpu_span_seconds > 0 ? t.gpu_busy_seconds / t.gpu_span_seconds : NAN;
    fc_jw_obj_begin(w, "kernels");
    fc_ktotals_json(w, &t, FC_KTOTALS_PROCESS_ONLY);
    fc_jw_obj_begin(w, "by_class");
    for (int c = 0; c < FC_RGPU_CLASSES; c++) {
        fc_jw_obj_begin(w, fc_kclass_name(c));
        fc_jw_double(w, "seconds", g->class_seconds[c]);
        fc_jw_u64(w, "kernels", g->class_kernels[c]);
        fc_jw_obj_end(w);
    }
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "top_names");
    for (int c = 0; c < FC_RGPU_CLASSES; c++) {
        fc_jw_arr_begin(w, fc_kclass_name(c));
        for (size_t i = 0; i < g->n_names[c]; i++) {
            fc_jw_obj_begin(w, NULL);
            fc_jw_str(w, "name", g->names[c][i].name);
            fc_jw_double(w, "seconds", g->names[c][i].seconds);
            fc_jw_u64(w, "kernels", g->names[c][i].kernels);
            fc_jw_obj_end(w);
        }
        fc_jw_arr_end(w);
    }
    fc_jw_obj_end(w);
    fc_jw_arr_begin(w, "shapes");
    for (size_t i = 0; i < g->n_shapes; i++) {
        const fc_rgpu_shape *s = &g->shapes[i];
        char ta[2] = {s->transa, 0}, tb[2] = {s->transb, 0};
        fc_jw_obj_begin(w, NULL);
        fc_jw_str(w, "api", s->api);
        fc_jw_i64(w, "m", s->m);
        fc_jw_i64(w, "n", s->n);
        fc_jw_i64(w, "k", s->k);
        fc_jw_i64(w, "batch", s->batch);
        fc_jw_str(w, "transa", ta);
        fc_jw_str(w, "transb", tb);
        fc_jw_str(w, "dtype", s->dtype);
        fc_kshape_json(w, &s->t);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_obj_begin(w, "iterations");
    fc_kiter_json(w, &g->kiter);
    fc_jw_obj_end(w);
    fc_jw_obj_end(w);
}

static void json_hw(fc_jw *w, const fc_report_gpu *g)
{
    if (!g->has_hw) {
        fc_jw_null(w, "hw_flops");
        return;
    }
    fc_jw_obj_begin(w, "hw_flops");
    fc_jw_str(w, "status", g->hw_status);
    fc_jw_str(w, "reason", g->hw_reason[0] ? g->hw_reason : NULL);
    fc_jw_bool(w, "validated_on_hardware", 0);
    fc_jw_str(w, "mode", g->hw_mode[0] ? g->hw_mode : NULL);
    fc_jw_str(w, "chip", g->hw_chip[0] ? g->hw_chip : NULL);
    fc_jw_obj_begin(w, "totals");
    for (size_t i = 0; i < g->n_hw_totals; i++)
        fc_jw_double(w, g->hw_totals[i].name, g->hw_totals[i].value);
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "coverage");
    for (size_t i = 0; i < g->n_hw_left; i++)
        fc_jw_str(w, g->hw_coverage_left[i].name, "left out");
    fc_jw_obj_end(w);
    fc_hw_json(w, &g->hw, FC_HW_I_samples, FC_HW_N, FC_HW_PROCESS_ONLY);
    fc_jw_obj_begin(w, "iterations"); /* median_hfu before hardware - counted, as it always was */
    fc_hwiter_json(w, &g->hw_iter, 0, FC_HWITER_I_median_hardware_minus_counted);
    fc_hwiter_json(w, &g->hw_iter, FC_HWITER_I_median_hfu, FC_HWITER_N);
    fc_hwiter_json(w, &g->hw_iter, FC_HWITER_I_median_hardware_minus_counted,
                   FC_HWITER_I_median_hfu);
    fc_jw_obj_end(w);
    fc_jw_obj_end(w);
}

void fci_gpu_print_json(fc_jw *w, const fc_report_gpu *g)
{
    if (g->has_cupti) {
        fc_jw_obj_begin(w, "cupti");
        fc_jw_str(w, "status", g->cupti_status);
        fc_jw_str(w, "reason", g->cupti_reason[0] ? g->cupti_reason : NULL);
        fc_jw_obj_end(w);
    } else {
        fc_jw_null(w, "cupti");
    }
    json_graphs(w, g);
    json_kernels(w, g);
    json_hw(w, g);
}
