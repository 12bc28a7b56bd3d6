/* SPDX-License-Identifier: Apache-2.0 */
/* launch_json.c - the report's "launch" section: what the kernel-launch
 * layer saw (shim/launch/, shim/hooks/launch.c, shim/cupti/launches.c).
 *
 * Its point is to say what the counts cannot: device code registered
 * through a statically linked CUDA runtime (nvcc's default, -cudart
 * static) never reaches the interposed runtime, so none of its launches is
 * seen by the hooks - only CUPTI's launch callbacks see them, when CUPTI
 * is on. The note names the objects that register that way (their fat
 * binaries were never registered through the hooks) and says whether
 * CUPTI could see them. */
#include "launch_json.h"

#include <stdio.h>

#include "count/attn_table.h"
#include "cupti/cupti_layer.h"
#include "launch/launch.h"
#include "launch/runtimes.h"
#include "schema_launch.h"

static void path_json(fc_jw *w, const char *key, const fc_launch_stats *s, int p)
{
    fc_lpath_rec t = {
        .launches = s->seen[p],
        .decoded = s->decoded[p],
        .uncounted = s->uncounted[p],
        .layout_mismatch = s->layout[p],
        .optimizer = s->marks[p],
        .failed = s->failed[p],
        .captured = s->captured[p],
    };
    fc_jw_obj_begin(w, key);
    fc_launch_rows_json(w, fc_lpath_fields, 0, FC_LPATH_N, &t);
    fc_jw_obj_end(w);
}

/* What was counted, and by which layer, before what was not seen: "counted
 * 24 cuDNN SDPA calls from their executed plans (cuDNN layer); beyond that:
 * ...". "" when these layers counted nothing. */
static void counted_part(const fc_launch_stats *s, char *out, size_t n)
{
    fc_attn_totals t;
    fc_attn_table_totals(&t);
    uint64_t cudnn = t.calls_by_source[FC_ATTN_SRC_CUDNN];
    uint64_t launched = t.calls_by_source[FC_ATTN_SRC_FLASH] + t.calls_by_source[FC_ATTN_SRC_EFFICIENT];
    uint64_t decoded = s->decoded[FC_LP_HOOK] + s->decoded[FC_LP_CUPTI];
    size_t k = 0;
    out[0] = '\0';
    if (cudnn > 0)
        k += (size_t)snprintf(out + k, n - k, "counted %llu cuDNN SDPA call%s from their executed "
                              "plans (cuDNN layer)", (unsigned long long)cudnn, cudnn == 1 ? "" : "s");
    if (launched > 0 && k < n)
        k += (size_t)snprintf(out + k, n - k, "%s %llu FlashAttention / memory-efficient kernel "
                              "launch%s decoded (launch layer, %llu launches read)",
                              k ? ";" : "counted", (unsigned long long)launched,
                              launched == 1 ? "" : "es", (unsigned long long)decoded);
    if (k > 0 && k < n)
        snprintf(out + k, n - k, "; beyond that: ");
}

/* The note, or NULL when everything the process registered came through. */
static const char *note(const fc_launch_reg_stats *r, const fc_runtimes_view *v,
                        const fc_launch_stats *s, char *buf, size_t n)
{
    char counted[240];
    counted_part(s, counted, sizeof counted);
    fc_cupti_status c;
    fc_cupti_status_get(&c);
    char cupti[400];
    if (c.state == FC_CUPTI_ON)
        snprintf(cupti, sizeof cupti,
                 "CUPTI is on: its launch callbacks saw %llu launches of "
                 "kernels of interest",
                 (unsigned long long)s->seen[FC_LP_CUPTI]);
    else
        snprintf(cupti, sizeof cupti, "CUPTI is off (%.300s): those launches are not seen",
                 c.state == FC_CUPTI_NOT_TRIED ? "not looked for: no GPU call reached flopcount"
                                               : c.reason);
    if (v->n_static > 0) {
        snprintf(buf, n,
                 "%s%s%s registers its kernels through a statically linked CUDA runtime "
                 "(nvcc's default, -cudart static): the launch hooks do not see them; %s; build "
                 "with -cudart shared to have them seen without CUPTI",
                 counted, v->static_objects[0], v->n_static + v->more_static > 1 ? " (and others)" : "",
                 cupti);
        return buf;
    }
    if (r->registrations == 0 && v->driver_loaded) {
        snprintf(buf, n,
                 "%sthe CUDA driver is loaded but no kernel was registered through the "
                 "shared CUDA runtime: kernels come from a statically linked runtime or are "
                 "loaded through the driver API (Triton, NVRTC); %s",
                 counted, cupti);
        return buf;
    }
    return NULL;
}

void fc_report_launch_json(fc_jw *w)
{
    fc_launch_reg_stats r;
    fc_launch_stats s;
    static fc_runtimes_view v;
    static char buf[1100];
    fc_launch_reg_stats_get(&r);
    fc_launch_stats_get(&s);
    fc_runtimes_get(&v);
    fc_lcounts_rec n = {
        .registrations = r.registrations,
        .kernels_of_interest = r.of_interest,
        .learned_from_callbacks = r.learned,
        .not_kept = r.not_kept,
        .unregistered = r.unregistered,
        .cupti_duplicates = s.duplicates,
    };
    fc_lpsize_rec ps = {.checked = s.sized, .from_name = s.unsized};
    fc_lrt_rec rt = {.fatbins_registered = v.fatbins, .more_static_runtime_objects = v.more_static};
    fc_jw_obj_begin(w, "launch");
    fc_launch_rows_json(w, fc_lcounts_fields, 0, FC_LCOUNTS_I_cupti_duplicates, &n);
    path_json(w, "hooks", &s, FC_LP_HOOK);
    path_json(w, "cupti", &s, FC_LP_CUPTI);
    fc_launch_rows_json(w, fc_lcounts_fields, FC_LCOUNTS_I_cupti_duplicates, FC_LCOUNTS_N, &n);
    fc_jw_obj_begin(w, "parameter_size");
    fc_launch_rows_json(w, fc_lpsize_fields, 0, FC_LPSIZE_N, &ps);
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "runtime");
    fc_jw_bool(w, "scanned", v.scanned);
    fc_jw_str(w, "shared", v.shared[0] ? v.shared : NULL);
    fc_jw_bool(w, "driver_loaded", v.driver_loaded);
    fc_launch_rows_json(w, fc_lrt_fields, 0, FC_LRT_I_more_static_runtime_objects, &rt);
    fc_jw_arr_begin(w, "static_runtime_objects");
    for (size_t i = 0; i < v.n_static; i++)
        fc_jw_str(w, NULL, v.static_objects[i]);
    fc_jw_arr_end(w);
    fc_launch_rows_json(w, fc_lrt_fields, FC_LRT_I_more_static_runtime_objects, FC_LRT_N, &rt);
    fc_jw_obj_end(w);
    fc_jw_str(w, "note", note(&r, &v, &s, buf, sizeof buf));
    fc_jw_obj_end(w);
}
