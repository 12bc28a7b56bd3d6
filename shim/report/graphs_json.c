/* SPDX-License-Identifier: Apache-2.0 */
/* graphs_json.c - the "cupti" status and "graphs" sections, their summary
 * line, and the entry points that write every cupti-layer section. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/options.h"
#include "cupti/cupti_layer.h"
#include "cupti/hwflops.h"
#include "cupti/kernels.h"
#include "gpu_sections.h"
#include "schema_graphs.h"

static const char *state_name(int s)
{
    return s == FC_CUPTI_ON ? "on" : s == FC_CUPTI_OFF ? "off" : "not_tried";
}

void fc_report_cupti_json(fc_jw *w)
{
    fc_cupti_status s;
    fc_cupti_status_get(&s);
    fc_jw_obj_begin(w, "cupti");
    fc_jw_str(w, "status", state_name(s.state));
    fc_jw_str(w, "reason",
              s.state == FC_CUPTI_ON ? NULL
              : s.reason[0]          ? s.reason
                                     : "no cuBLAS/cuBLASLt GEMM ran");
    fc_jw_str(w, "library", s.library[0] ? s.library : NULL);
    if (s.version)
        fc_jw_u64(w, "version", s.version);
    else
        fc_jw_null(w, "version");
    fc_jw_str(w, "kernels", !s.kernels_wanted ? "not requested" : s.kernels_on ? "on" : "off");
    fc_jw_str(w, "kernels_reason", s.kernels_wanted && !s.kernels_on ? s.kernels_reason : NULL);
    fc_jw_obj_end(w);
}

void fc_report_graphs_json(fc_jw *w)
{
    static fc_graphs_view g;
    fc_graphs_get(&g);
    fc_jw_obj_begin(w, "graphs");
    fc_jw_bool(w, "replays_visible", g.replays_visible);
    fc_jw_str(w, "reason", g.replays_visible ? NULL : g.reason);
    fc_jw_str(w, "seen_by", g.seen_by);
    fc_graphs_rec rec;
#define FC_X(P, name, type, req, unit, meaning) rec.name = g.name;
    FC_GRAPHS_FIELDS(FC_X, _)
#undef FC_X
    fc_graphs_json(w, &rec, 0);
    fc_jw_arr_begin(w, "execs");
    for (size_t i = 0; i < g.n_execs; i++) {
        const fc_graph_exec_row *r = &g.execs[i];
        fc_jw_obj_begin(w, NULL);
        fc_jw_u64(w, "exec_id", r->exec_id);
        fc_jw_u64(w, "graph_id", r->graph_id);
        fc_jw_u64(w, "gemms_per_launch", r->gemms);
        fc_jw_u128(w, "flops_per_launch", r->flops);
        fc_jw_u64(w, "launches", r->launches);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_u64(w, "more_execs", g.more_execs);
    fc_jw_obj_end(w);
}

static void say(int fd, const char *line, int n)
{
    if (n > 0) {
        ssize_t wr = write(fd, line, (size_t)n);
        (void)wr;
    }
}

void fc_report_graphs_text(int fd)
{
    static fc_graphs_view g;
    fc_graphs_get(&g);
    char line[600];
    if (g.captures == 0 && g.launches == 0 && g.unknown_launches == 0)
        return;
    if (!g.replays_visible) {
        say(fd, line,
            snprintf(line, sizeof line,
                     "flopcount: CUDA graphs: %llu captures, %llu GEMMs captured (not "
                     "counted as executed); graph replays cannot be seen: %s\n",
                     (unsigned long long)g.captures, (unsigned long long)g.captured_calls,
                     g.reason));
        return;
    }
    say(fd, line,
        snprintf(line, sizeof line,
                 "flopcount: CUDA graphs (seen through %s): %llu captures (%llu GEMMs "
                 "captured), %llu instantiated, %llu launches counted %llu GEMM calls%s\n",
                 g.seen_by ? g.seen_by : "?", (unsigned long long)g.captures,
                 (unsigned long long)g.captured_calls, (unsigned long long)g.instantiations,
                 (unsigned long long)g.launches, (unsigned long long)g.launched_calls,
                 g.unknown_launches ? "; some launches were of graphs made before "
                                      "flopcount saw them (not counted)"
                                    : ""));
}

void fc_report_gpu_json(fc_jw *w, const fc_gpu_ctx *c)
{
    fc_kernels_attribute(c->final);
    fc_hwflops_attribute(c->final);
    fc_report_cupti_json(w);
    fc_report_graphs_json(w);
    fc_report_kernels_json(w, c);
    fc_report_hwflops_json(w, c);
}

void fc_report_gpu_text(int fd, const fc_gpu_ctx *c)
{
    fc_kernels_attribute(c->final);
    fc_hwflops_attribute(c->final);
    fc_report_graphs_text(fd);
    fc_report_kernels_text(fd, c);
    fc_report_hwflops_text(fd, c);
}
