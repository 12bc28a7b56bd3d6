/* SPDX-License-Identifier: Apache-2.0 */
/* report_read.c - parse a schema-1 JSON report (or a merged one) into an
 * fc_report, exactly: big integers are quoted before json-c sees them and
 * parsed here into fc_u128. Every field is type-checked; errors name the
 * field ("totals.gemm_flops: expected a non-negative integer"). */
#include "report_read.h"

#include "json_get.h"
#include "report_fast.h"
#include "schema_read.h"
#include "stats.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE_BYTES (512u << 20)

/* ---- sections ---- */

static void read_schema(fc_jctx *c, json_object *root, fc_report *r)
{
    json_object *v = fc_jmember(root, "schema");
    if (v == NULL) {
        fc_jfail(c, "not a flopcount report (no \"schema\" member)");
        return;
    }
    if (!json_object_is_type(v, json_type_int)) {
        fc_jfail(c, "unknown report schema (\"schema\" is not an integer)");
        return;
    }
    int64_t s = json_object_get_int64(v);
    if (s != FC_REPORT_SCHEMA) {
        fc_jfail(c, "report schema %lld is not one this flopcount reads (it reads %d)",
                 (long long)s, FC_REPORT_SCHEMA);
        return;
    }
    r->schema = (int)s;
    char kind[32] = "";
    fc_jget_str(c, root, "", "kind", kind, sizeof kind);
    if (kind[0] != '\0' && strcmp(kind, "merge") != 0)
        fc_jfail(c, "unknown report kind '%s'", kind);
    r->is_merge = strcmp(kind, "merge") == 0;
    json_object *tool = fc_jsection(c, root, "tool", json_type_object);
    char name[32] = "";
    fc_jget_str(c, tool, "tool", "name", name, sizeof name);
    if (tool != NULL && strcmp(name, "flopcount") != 0)
        fc_jfail(c, "not a flopcount report (tool.name is '%s')", name);
    fc_jget_str(c, tool, "tool", "version", r->tool_version, sizeof r->tool_version);
}

static void read_process(fc_jctx *c, json_object *root, fc_report *r)
{
    json_object *p = fc_jsection(c, root, "process", json_type_object);
    int64_t pid = -1;
    fc_jget_i64(c, p, "process", "pid", &pid);
    r->pid = (long)pid;
    json_object *cmd = fc_jmember(p, "command");
    if (cmd != NULL && json_object_is_type(cmd, json_type_string)) {
        char *s = strdup(json_object_get_string(cmd));
        if (s == NULL) {
            fc_jfail(c, "out of memory");
            return;
        }
        free(r->command);
        r->command = s;
    } else if (cmd != NULL && !json_object_is_type(cmd, json_type_null)) {
        fc_jfail(c, "process.command: expected a string");
    }
    fc_jget_str(c, p, "process", "hostname", r->hostname, sizeof r->hostname);
    fc_jget_long(c, p, "process", "ppid", &r->ppid);
    fc_jget_i64(c, p, "process", "started_unix_ns", &r->started_unix_ns);
    fc_jget_long(c, p, "process", "rank", &r->rank);
    fc_jget_long(c, p, "process", "local_rank", &r->local_rank);
    fc_jget_long(c, p, "process", "world_size", &r->world_size);
    fc_jget_str(c, p, "process", "launcher", r->launcher, sizeof r->launcher);
    fc_jget_bool(c, p, "process", "fork_child", &r->fork_child);
    fc_jget_str(c, root, "", "status", r->status, sizeof r->status);
    fc_jget_double(c, root, "", "wall_seconds", &r->wall_seconds);
}

static void read_totals(fc_jctx *c, json_object *root, fc_report *r)
{
    json_object *t = fc_jmember(root, "totals");
    if (t == NULL || !json_object_is_type(t, json_type_object)) {
        fc_jfail(c, "totals: missing or not an object");
        return;
    }
    /* every row of the table (analysis/run/schema_totals.h); counted_flops,
     * the last, defaults to GEMMs + attention read before it */
    const int k = FC_TOTALS_I_counted_flops;
    fc_schema_read(c, t, "totals", fc_totals_fields, 0, k, &r->totals);
    r->totals.counted_flops = fc_u128_sat_add(r->totals.gemm_flops, r->totals.attention_flops);
    fc_schema_read(c, t, "totals", fc_totals_fields, k, FC_TOTALS_N, &r->totals);
}

static void *alloc_array(fc_jctx *c, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p == NULL)
        fc_jfail(c, "out of memory");
    return p;
}

static void read_groups(fc_jctx *c, json_object *root, const char *key, fc_report_group **out,
                        size_t *n_out)
{
    json_object *g = fc_jsection(c, root, key, json_type_object);
    if (g == NULL)
        return;
    size_t n = (size_t)json_object_object_length(g), i = 0;
    fc_report_group *arr = alloc_array(c, n, sizeof *arr);
    if (arr == NULL)
        return;
    *out = arr;
    json_object_object_foreach(g, name, v)
    {
        if (i >= n || c->failed)
            break;
        if (!json_object_is_type(v, json_type_object)) {
            fc_jfail(c, "%s.%s: expected an object", key, name);
            break;
        }
        snprintf(arr[i].name, sizeof arr[i].name, "%s", name);
        fc_schema_read(c, v, key, fc_group_fields, 0, FC_GROUP_N, &arr[i]);
        i++;
    }
    *n_out = i;
}

static char trans_char(fc_jctx *c, json_object *o, const char *key)
{
    char s[4] = "";
    fc_jget_str(c, o, "shapes[]", key, s, sizeof s);
    if (s[0] == '\0')
        return '?';
    if (s[1] != '\0' || strchr("NTC", s[0]) == NULL)
        fc_jfail(c, "shapes[].%s: expected \"N\", \"T\" or \"C\"", key);
    return s[0];
}

static void read_shape(fc_jctx *c, json_object *o, fc_report_shape *s)
{
    s->m = s->n = s->k = s->batch = -1;
    fc_jget_str(c, o, "shapes[]", "api", s->api, sizeof s->api);
    fc_jget_bool(c, o, "shapes[]", "overflow", &s->overflow);
    fc_jget_i64(c, o, "shapes[]", "m", &s->m);
    fc_jget_i64(c, o, "shapes[]", "n", &s->n);
    fc_jget_i64(c, o, "shapes[]", "k", &s->k);
    fc_jget_i64(c, o, "shapes[]", "batch", &s->batch);
    s->transa = trans_char(c, o, "transa");
    s->transb = trans_char(c, o, "transb");
    fc_jget_str(c, o, "shapes[]", "dtype", s->dtype, sizeof s->dtype);
    fc_jget_str(c, o, "shapes[]", "out_dtype", s->out_dtype, sizeof s->out_dtype);
    fc_jget_str(c, o, "shapes[]", "compute", s->compute, sizeof s->compute);
    fc_jget_u64(c, o, "shapes[]", "calls", &s->calls, 0);
    fc_jget_u64(c, o, "shapes[]", "failed_calls", &s->failed_calls, 0);
    fc_jget_u128(c, o, "shapes[]", "flops", &s->flops, 1);
}

static void read_shapes(fc_jctx *c, json_object *root, fc_report *r)
{
    json_object *a = fc_jsection(c, root, "shapes", json_type_array);
    if (a == NULL)
        return;
    size_t n = json_object_array_length(a);
    if ((r->shapes = alloc_array(c, n, sizeof *r->shapes)) == NULL)
        return;
    for (size_t i = 0; i < n && !c->failed; i++) {
        json_object *o = json_object_array_get_idx(a, i);
        if (!json_object_is_type(o, json_type_object)) {
            fc_jfail(c, "shapes[%zu]: expected an object", i);
            break;
        }
        read_shape(c, o, &r->shapes[i]);
        r->n_shapes = i + 1;
    }
}

static void read_iter(fc_jctx *c, json_object *o, size_t i, fc_report_iter *it)
{
    it->index = i;
    it->start_seconds = it->seconds = it->gpu_seconds = NAN;
    it->slowest_rank = -1;
    it->ambiguous_recompute = -1; /* reports before the field: any doubt may */
    fc_schema_read(c, o, "iterations.list[]", fc_iter_fields, 0, FC_ITER_N, it);
    if (it->ambiguous_recompute < 0 || !it->ambiguous)
        it->ambiguous_recompute = it->ambiguous;
    if (!c->failed && it->seconds < 0)
        fc_jfail(c, "iterations.list[%zu].seconds: negative", i);
    json_object *g = fc_jmember(o, FC_ITER_GROUPED_KEY); /* absent: no grouped call */
    if (g != NULL)
        fc_schema_read(c, g, "iterations.list[]." FC_ITER_GROUPED_KEY, fc_iter_grouped_fields, 0,
                       FC_ITER_GROUPED_N, it);
}

/* The split's confidence: strings, a count, and the reasons joined. */
static void read_split(fc_jctx *c, json_object *s, fc_report *r)
{
    fc_jget_str(c, s, "iterations", "split", r->iterations.split, sizeof r->iterations.split);
    fc_jget_str(c, s, "iterations", "phase_markers", r->iterations.phase_markers,
                sizeof r->iterations.phase_markers);
    fc_jget_u64(c, s, "iterations", "ambiguous_iterations", &r->iterations.ambiguous_iterations, 0);
    fc_jget_str(c, s, "iterations", "advice", r->iterations.advice, sizeof r->iterations.advice);
    json_object *a = fc_jsection(c, s, "ambiguous_reasons", json_type_array);
    if (a == NULL)
        return;
    size_t used = 0, size = sizeof r->iterations.ambiguous_reasons;
    for (size_t i = 0; i < json_object_array_length(a) && !c->failed; i++) {
        json_object *v = json_object_array_get_idx(a, i);
        if (!json_object_is_type(v, json_type_string)) {
            fc_jfail(c, "iterations.ambiguous_reasons[%zu]: expected a string", i);
            return;
        }
        int k = snprintf(r->iterations.ambiguous_reasons + used, size - used, "%s%s", i ? "; " : "",
                         json_object_get_string(v));
        used = k < 0 || (size_t)k >= size - used ? size - 1 : used + (size_t)k;
        r->iterations.n_ambiguous_reasons = i + 1;
    }
}

static void read_iterations(fc_jctx *c, json_object *root, fc_report *r)
{
    json_object *s = fc_jsection(c, root, "iterations", json_type_object);
    if (s == NULL)
        return;
    r->has_iterations = 1;
    fc_jget_u64(c, s, "iterations", "count", &r->iterations.count, 0);
    fc_jget_str(c, s, "iterations", "detected_by", r->iterations.detected_by,
                sizeof r->iterations.detected_by);
    fc_jget_str(c, s, "iterations", "method", r->iterations.method, sizeof r->iterations.method);
    fc_jget_str(c, s, "iterations", "micro_batch", r->iterations.micro_batch,
                sizeof r->iterations.micro_batch);
    fc_jget_str(c, s, "iterations", "kind", r->iterations.kind, sizeof r->iterations.kind);
    fc_jget_u64(c, s, "iterations", "forward_only_iterations", &r->iterations.forward_only, 0);
    fc_jget_double(c, s, "iterations", "median_seconds", &r->iterations.median_seconds);
    fc_jget_u128(c, s, "iterations", "flops", &r->iterations.flops, 0);
    fc_jget_u128(c, s, "iterations", "forward_flops", &r->iterations.forward_flops, 0);
    fc_jget_u128(c, s, "iterations", "backward_flops", &r->iterations.backward_flops, 0);
    fc_jget_u128(c, s, "iterations", "recompute_flops", &r->iterations.recompute_flops, 0);
    fc_jget_u128(c, s, "iterations", "other_flops", &r->iterations.other_flops, 0);
    fc_jget_u128(c, s, "iterations", "attention_excess_flops",
                 &r->iterations.attention_excess_flops, 0);
    fc_jget_bool(c, s, "iterations", "list_truncated", &r->iterations.list_truncated);
    read_split(c, s, r);
    json_object *a = fc_jsection(c, s, "list", json_type_array);
    if (a == NULL)
        return;
    size_t n = json_object_array_length(a);
    if ((r->iterations.list = alloc_array(c, n, sizeof *r->iterations.list)) == NULL)
        return;
    for (size_t i = 0; i < n && !c->failed; i++) {
        json_object *o = json_object_array_get_idx(a, i);
        if (!json_object_is_type(o, json_type_object)) {
            fc_jfail(c, "iterations.list[%zu]: expected an object", i);
            break;
        }
        read_iter(c, o, i, &r->iterations.list[i]);
        r->iterations.n_list = i + 1;
    }
}

/* Only counted: an object with a "top" array (the shim), or a bare array. */
static void read_callsites(fc_jctx *c, json_object *root, fc_report *r)
{
    json_object *cs = fc_jmember(root, "callsites");
    if (cs == NULL || json_object_is_type(cs, json_type_null))
        return;
    if (json_object_is_type(cs, json_type_object))
        cs = fc_jsection(c, cs, "top", json_type_array);
    else if (!json_object_is_type(cs, json_type_array))
        fc_jfail(c, "callsites: expected an object or an array");
    if (cs != NULL && json_object_is_type(cs, json_type_array))
        r->n_callsites = json_object_array_length(cs);
}

static void read_extras(fc_jctx *c, json_object *root, fc_report *r)
{
    json_object *e = fc_jsection(c, root, "eval_passes", json_type_object);
    if (e != NULL) {
        r->has_eval = 1;
        fc_jget_u64(c, e, "eval_passes", "count", &r->eval_passes.count, 0);
        fc_jget_u128(c, e, "eval_passes", "flops", &r->eval_passes.flops, 0);
        fc_jget_double(c, e, "eval_passes", "seconds", &r->eval_passes.seconds);
        fc_jget_u64(c, e, "eval_passes", "ambiguous", &r->eval_passes.ambiguous, 0);
    }
    json_object *rc = fc_jsection(c, root, "recompute", json_type_object);
    if (rc != NULL) {
        r->has_recompute = 1;
        fc_jget_u128(c, rc, "recompute", "flops", &r->recompute.flops, 0);
        fc_jget_double(c, rc, "recompute", "fraction", &r->recompute.fraction);
        fc_jget_bool(c, rc, "recompute", "ambiguous", &r->recompute.ambiguous);
    }
    json_object *u = fc_jsection(c, root, "utilization", json_type_object);
    if (!c->failed)
        fc_report_read_mix(c, fc_jsection(c, root, "iterations", json_type_object), u, r);
    if (u != NULL) {
        r->has_utilization = 1;
        fc_jget_double(c, u, "utilization", "peak_flops", &r->utilization.peak_flops);
        fc_jget_double(c, u, "utilization", "hfu", &r->utilization.hfu);
        fc_jget_double(c, u, "utilization", "mfu", &r->utilization.mfu);
        fc_jget_str(c, u, "utilization", "device", r->utilization.device,
                    sizeof r->utilization.device);
        fc_jget_str(c, u, "utilization", "dtype", r->utilization.dtype,
                    sizeof r->utilization.dtype);
        fc_jget_str(c, u, "utilization", "peak_source", r->utilization.peak_source,
                    sizeof r->utilization.peak_source);
        fc_jget_bool(c, u, "utilization", "split_ambiguous", &r->utilization.split_ambiguous);
    }
    fc_jget_str(c, root, "", "utilization_reason", r->utilization_reason,
                sizeof r->utilization_reason);
    json_object *ng = fc_jmember(root, "null_gpu");
    if (ng != NULL && json_object_is_type(ng, json_type_object)) {
        fc_jget_str(c, ng, "null_gpu", "device", r->null_gpu, sizeof r->null_gpu);
        fc_jget_str(c, ng, "null_gpu", "caveat", r->null_gpu_caveat, sizeof r->null_gpu_caveat);
    }
    read_callsites(c, root, r);
}

/* "run": the run a process belongs to (direct LD_PRELOAD use, where
 * several processes share one output path). */
static void read_run(fc_jctx *c, json_object *root, fc_report *r)
{
    json_object *run = fc_jsection(c, root, "run", json_type_object);
    fc_jget_str(c, run, "run", "id", r->run_id, sizeof r->run_id);
    fc_jget_i64(c, run, "run", "start_unix_ns", &r->run_start_unix_ns);
}

static void read_proc(fc_jctx *c, json_object *o, fc_report_proc *p)
{
    p->pid = p->ppid = p->rank = -1;
    fc_jget_long(c, o, "processes[]", "pid", &p->pid);
    fc_jget_long(c, o, "processes[]", "ppid", &p->ppid);
    fc_jget_long(c, o, "processes[]", "rank", &p->rank);
    fc_jget_str(c, o, "processes[]", "command", p->command, sizeof p->command);
    fc_jget_str(c, o, "processes[]", "status", p->status, sizeof p->status);
    fc_jget_str(c, o, "processes[]", "ended", p->ended, sizeof p->ended);
    fc_jget_bool(c, o, "processes[]", "fork_child", &p->fork_child);
    fc_jget_bool(c, o, "processes[]", "iterations_used", &p->iterations_used);
    fc_jget_u64(c, o, "processes[]", "gemm_calls", &p->gemm_calls, 0);
    fc_jget_u128(c, o, "processes[]", "gemm_flops", &p->gemm_flops, 0);
    fc_jget_u64(c, o, "processes[]", "failed_calls", &p->failed_calls, 0);
    json_object *it = fc_jmember(o, "iterations");
    if (it != NULL && !json_object_is_type(it, json_type_null)) {
        p->has_iterations = 1;
        fc_jget_u64(c, o, "processes[]", "iterations", &p->iterations, 0);
    }
}

static void read_job(fc_jctx *c, json_object *root, fc_report *r)
{
    json_object *a = fc_jsection(c, root, "processes", json_type_array);
    if (a != NULL) {
        size_t n = json_object_array_length(a);
        if ((r->procs = alloc_array(c, n, sizeof *r->procs)) == NULL)
            return;
        for (size_t i = 0; i < n && !c->failed; i++) {
            json_object *o = json_object_array_get_idx(a, i);
            if (!json_object_is_type(o, json_type_object)) {
                fc_jfail(c, "processes[%zu]: expected an object", i);
                break;
            }
            read_proc(c, o, &r->procs[i]);
            r->n_procs = i + 1;
        }
    }
    json_object *j = fc_jsection(c, root, "job", json_type_object);
    if (j == NULL || c->failed)
        return;
    r->has_job = 1;
    r->job.processes_with_gemms = -1;
    fc_jget_str(c, j, "job", "command", r->job.command, sizeof r->job.command);
    fc_jget_str(c, j, "job", "ended", r->job.ended, sizeof r->job.ended);
    fc_jget_str(c, j, "job", "parts", r->job.parts, sizeof r->job.parts);
    fc_jget_long(c, j, "job", "processes_with_gemms", &r->job.processes_with_gemms);
    uint64_t u = 0;
    fc_jget_u64(c, j, "job", "incomplete", &u, 0);
    r->job.n_incomplete = (size_t)u;
    u = 0;
    fc_jget_u64(c, j, "job", "stale_parts_ignored", &u, 0);
    r->job.stale_ignored = (size_t)u;
    json_object *from = fc_jsection(c, j, "iterations_from", json_type_array);
    if (from == NULL)
        return;
    size_t n = json_object_array_length(from);
    if ((r->job.iterations_from = alloc_array(c, n, sizeof *r->job.iterations_from)) == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        json_object *v = json_object_array_get_idx(from, i);
        if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
            fc_jfail(c, "job.iterations_from[%zu]: expected a pid", i);
            return;
        }
        r->job.iterations_from[i] = (long)json_object_get_int64(v);
        r->job.n_iterations_from = i + 1;
    }
}

static unsigned weight_bits(fc_jctx *c, json_object *o)
{
    char w[4] = "";
    json_object *v = fc_jmember(o, "weight");
    if (v == NULL || json_object_is_type(v, json_type_null))
        return 0;
    fc_jget_str(c, o, "forward_profile.gemms[]", "weight", w, sizeof w);
    if (strcmp(w, "A") == 0)
        return 1;
    if (strcmp(w, "B") == 0)
        return 2;
    if (strcmp(w, "AB") == 0)
        return 3;
    fc_jfail(c, "forward_profile.gemms[].weight: expected \"A\", \"B\", \"AB\" or null");
    return 0;
}

static char profile_trans(fc_jctx *c, json_object *o, const char *key)
{
    char s[4] = "";
    fc_jget_str(c, o, "forward_profile.gemms[]", key, s, sizeof s);
    if (s[0] == '\0')
        return '?';
    if (s[1] != '\0' || strchr("NTC", s[0]) == NULL)
        fc_jfail(c, "forward_profile.gemms[].%s: expected \"N\", \"T\" or \"C\"", key);
    return s[0];
}

static void read_profile_gemm(fc_jctx *c, json_object *o, fc_fwd_gemm *g)
{
    static const char *const sec = "forward_profile.gemms[]";
    int unresolved = 0;
    g->m = g->n = g->k = g->batch = -1;
    g->transa = g->transb = '?';
    fc_jget_bool(c, o, sec, "unresolved", &unresolved);
    if (!unresolved) {
        fc_jget_i64(c, o, sec, "m", &g->m);
        fc_jget_i64(c, o, sec, "n", &g->n);
        fc_jget_i64(c, o, sec, "k", &g->k);
        fc_jget_i64(c, o, sec, "batch", &g->batch);
        g->transa = profile_trans(c, o, "transa");
        g->transb = profile_trans(c, o, "transb");
        char api[64] = "";
        fc_jget_str(c, o, sec, "api", api, sizeof api);
        /* cublas?gemmGroupedBatched[Ex], and cuBLASLt grouped calls whose
         * sizes were read from the device (cublasLtMatmul:grouped_read_from_device) */
        g->grouped = strstr(api, "GroupedBatched") != NULL || strstr(api, "grouped_read") != NULL;
        if (!c->failed && (g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 1))
            fc_jfail(c, "%s: m, n, k and batch must be given (non-negative; batch positive)", sec);
    }
    fc_jget_u64(c, o, sec, "count", &g->count, 1);
    fc_jget_u128(c, o, sec, "flops", &g->flops, 1);
    g->weight = weight_bits(c, o);
}

static void read_profile(fc_jctx *c, json_object *root, fc_report *r)
{
    json_object *p = fc_jsection(c, root, "forward_profile", json_type_object);
    if (p == NULL)
        return;
    r->has_profile = 1;
    fc_jget_str(c, p, "forward_profile", "state", r->profile.state, sizeof r->profile.state);
    fc_jget_u64(c, p, "forward_profile", "training_forward", &r->profile.training_forward, 0);
    fc_jget_u64(c, p, "forward_profile", "calls", &r->profile.calls, 0);
    fc_jget_u128(c, p, "forward_profile", "flops", &r->profile.flops, 0);
    fc_jget_bool(c, p, "forward_profile", "truncated", &r->profile.truncated);
    json_object *a = fc_jsection(c, p, "gemms", json_type_array);
    if (a == NULL || c->failed)
        return;
    size_t n = json_object_array_length(a);
    if (n > (1u << 20)) {
        fc_jfail(c, "forward_profile.gemms: more than 2^20 entries");
        return;
    }
    if ((r->profile.gemms = alloc_array(c, n, sizeof *r->profile.gemms)) == NULL)
        return;
    for (size_t i = 0; i < n && !c->failed; i++) {
        json_object *o = json_object_array_get_idx(a, i);
        char kind[16] = "";
        if (!json_object_is_type(o, json_type_object)) {
            fc_jfail(c, "forward_profile.gemms[%zu]: expected an object", i);
            break;
        }
        fc_jget_str(c, o, "forward_profile.gemms[]", "kind", kind, sizeof kind);
        if (strcmp(kind, "attention") == 0)
            fc_report_read_profile_attention(c, o, &r->profile.gemms[i]);
        else if (kind[0] == '\0' || strcmp(kind, "gemm") == 0)
            read_profile_gemm(c, o, &r->profile.gemms[i]);
        else
            fc_jfail(c, "forward_profile.gemms[%zu].kind: expected \"gemm\" or \"attention\"", i);
        r->profile.n_gemms = i + 1;
    }
}

/* A merged report's "inferred_model" when "complete": its model values
 * (the keys of 'flopcount formula --json'). */
static void read_merged_model(fc_jctx *c, json_object *root, fc_report *r)
{
    static const char *const sec = "inferred_model";
    json_object *im = fc_jsection(c, root, sec, json_type_object);
    char state[16] = "";
    fc_jget_str(c, im, sec, "state", state, sizeof state);
    json_object *m =
        im && strcmp(state, "complete") == 0 ? fc_jsection(c, im, "model", json_type_object) : NULL;
    if (m == NULL || c->failed)
        return;
    int kinds = 0;
    fc_jget_bool(c, im, sec, "layer_kinds", &kinds);
    if (kinds) {
        snprintf(r->merged_model_reason, sizeof r->merged_model_reason,
                 "the merged model has layer kinds (multi-latent attention, hybrid or MTP layers), "
                 "which a merged report does not carry in full: read one rank's report, or give "
                 "the model flags");
        return;
    }
    fc_model *x = &r->merged_model;
    int64_t *ints[] = {&x->layers,         &x->hidden,     &x->heads,     &x->kv_heads,
                       &x->head_dim,       &x->ffn,        &x->vocab,     &x->seq,
                       &x->batch,          &x->experts,    &x->topk,      &x->moe_ffn,
                       &x->shared_experts, &x->shared_ffn, &x->moe_every, &x->moe_first_dense};
    static const char *const names[] = {
        "layers",         "hidden",     "heads",     "kv_heads",       "head_dim", "ffn",
        "vocab",          "seq",        "batch",     "experts",        "topk",     "moe_ffn",
        "shared_experts", "shared_ffn", "moe_every", "moe_first_dense"};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        fc_jget_i64(c, m, "inferred_model.model", names[i], ints[i]);
        if (*ints[i] < 0)
            *ints[i] = 0; /* null: not known; the check below refuses a missing size */
    }
    fc_jget_bool(c, m, "inferred_model.model", "swiglu", &x->swiglu);
    char rec[16] = "none", causal[16] = "full";
    fc_jget_str(c, m, "inferred_model.model", "recompute", rec, sizeof rec);
    fc_jget_str(c, m, "inferred_model.model", "causal_attention", causal, sizeof causal);
    x->recompute =
        fc_recompute_from_name(rec) >= 0 ? fc_recompute_from_name(rec) : FC_RECOMPUTE_NONE;
    x->causal = fc_causal_from_name(causal) >= 0 ? fc_causal_from_name(causal) : FC_CAUSAL_FULL;
    fc_jget_str(c, im, sec, "layout", r->merged_layout, sizeof r->merged_layout);
    if (!c->failed && fc_model_check(x, NULL, 0) == 0)
        r->has_merged_model = 1;
}

static void empty(fc_report *r)
{
    memset(r, 0, sizeof *r);
    r->pid = r->ppid = r->rank = r->local_rank = r->world_size = -1;
    r->started_unix_ns = r->run_start_unix_ns = -1;
    r->wall_seconds = r->iterations.median_seconds = r->recompute.fraction = NAN;
    r->eval_passes.seconds = NAN;
    r->utilization.peak_flops = r->utilization.hfu = r->utilization.mfu = NAN;
    r->utilization.hfu_mix = NAN;
}

void fc_report_steady(const fc_report_iter *list, size_t n, size_t *from, size_t *to)
{
    fc_steady_range(n, n > 0 && list[n - 1].open_end, from, to);
}

void fc_report_fig_iter(const void *ctx, size_t i, fc_fig_iter *out)
{
    const fc_report_iter *it = &((const fc_report_iter *)ctx)[i];
    *out = (fc_fig_iter){.flops = it->flops,
                         .forward = it->forward_flops,
                         .recompute = it->recompute_flops,
                         .xs = it->attention_excess_flops,
                         .seconds = it->seconds,
                         .unsure = it->ambiguous != 0,
                         .unsure_recompute = it->ambiguous_recompute != 0};
}

void fc_report_free(fc_report *r)
{
    if (r == NULL)
        return;
    free(r->command);
    free(r->by_api);
    free(r->by_dtype);
    free(r->shapes);
    free(r->iterations.list);
    free(r->procs);
    free(r->job.iterations_from);
    free(r->profile.gemms);
    fc_report_attention_free(&r->attn);
    empty(r);
}

static json_object *tokenize(fc_jctx *c, const char *text, size_t len)
{
    if (len > INT32_MAX) {
        fc_jfail(c, "report too large");
        return NULL;
    }
    json_tokener *tok = json_tokener_new_ex(64);
    if (tok == NULL) {
        fc_jfail(c, "out of memory");
        return NULL;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    if (root == NULL || e != json_tokener_success) {
        fc_jfail(c, "not valid JSON (%s at byte %zu)",
                 e == json_tokener_continue ? "unexpected end" : json_tokener_error_desc(e), used);
        json_object_put(root);
        root = NULL;
    } else {
        while (used < len && strchr(" \t\r\n", text[used]) != NULL && text[used] != '\0')
            used++;
        if (used < len) {
            fc_jfail(c, "not valid JSON (trailing data at byte %zu)", used);
            json_object_put(root);
            root = NULL;
        }
    }
    json_tokener_free(tok);
    return root;
}

/* The whole text through json-c: the reference reader, and the one whose
 * messages a failed report gets. */
static int parse_tree(const char *text, size_t len, fc_report *out, char *err, size_t errlen,
                      fc_report_tree_fn also, void *ctx)
{
    fc_jctx c = {err, errlen, 0};
    empty(out);
    if (err && errlen)
        err[0] = '\0';
    if (text == NULL) {
        fc_jfail(&c, "no text");
        return -1;
    }
    size_t qlen;
    char *quoted = fc_report_quote_big_ints(text, len, &qlen);
    if (quoted == NULL) {
        fc_jfail(&c, "out of memory");
        return -1;
    }
    json_object *root = tokenize(&c, quoted, qlen);
    free(quoted);
    if (root != NULL && !json_object_is_type(root, json_type_object))
        fc_jfail(&c, "not a flopcount report (the top level is not an object)");
    if (!c.failed)
        read_schema(&c, root, out);
    if (!c.failed)
        read_process(&c, root, out);
    if (!c.failed)
        read_totals(&c, root, out);
    if (!c.failed)
        read_groups(&c, root, "by_api", &out->by_api, &out->n_by_api);
    if (!c.failed)
        read_groups(&c, root, "by_dtype", &out->by_dtype, &out->n_by_dtype);
    if (!c.failed)
        read_shapes(&c, root, out);
    if (!c.failed)
        fc_report_read_attention(&c, root, &out->attn);
    if (!c.failed)
        read_iterations(&c, root, out);
    if (!c.failed)
        read_extras(&c, root, out);
    if (!c.failed)
        read_run(&c, root, out);
    if (!c.failed)
        read_job(&c, root, out);
    if (!c.failed)
        read_profile(&c, root, out);
    if (!c.failed && out->is_merge)
        read_merged_model(&c, root, out);
    if (!c.failed && also != NULL)
        also(root, ctx);
    json_object_put(root);
    if (c.failed) {
        fc_report_free(out);
        return -1;
    }
    if (out->command == NULL && (out->command = strdup("")) == NULL) {
        fc_jfail(&c, "out of memory");
        return -1;
    }
    return 0;
}

/* also, noting that it ran (it may keep what it read: run it once). */
typedef struct also_once {
    fc_report_tree_fn fn;
    void *ctx;
    int ran;
} also_once;

static void also_call(void *tree, void *arg)
{
    also_once *a = arg;
    a->ran = 1;
    if (a->fn != NULL)
        a->fn(tree, a->ctx);
}

/* The big arrays ("shapes", "iterations.list") read by the fast path
 * (report_fast.h) and cut from the text json-c parses for the rest; when
 * the fast path gives up, or json-c refuses the cut text, the whole text
 * goes through json-c alone, so a bad report's message is the reference
 * reader's. */
static int parse_with(const char *text, size_t len, fc_report *out, char *err, size_t errlen,
                      fc_report_tree_fn also, void *ctx)
{
    fc_report_fast f;
    also_once once = {also, ctx, 0};
    if (text != NULL && fc_report_fast_scan(text, len, &f) == 0) {
        size_t clen = 0;
        char *cut = f.n_cut ? fc_report_fast_cut(text, len, &f, &clen) : NULL;
        int rc = cut != NULL ? parse_tree(cut, clen, out, err, errlen, also_call, &once) : -1;
        free(cut);
        if (rc == 0) {
            if (f.shapes != NULL) {
                free(out->shapes);
                out->shapes = f.shapes;
                out->n_shapes = f.n_shapes;
                f.shapes = NULL;
            }
            if (f.list != NULL && out->has_iterations) {
                free(out->iterations.list);
                out->iterations.list = f.list;
                out->iterations.n_list = f.n_list;
                f.list = NULL;
            }
        }
        fc_report_fast_free(&f);
        if (rc == 0 || once.ran)
            return rc;
    }
    return parse_tree(text, len, out, err, errlen, also, ctx);
}

int fc_report_parse(const char *text, size_t len, fc_report *out, char *err, size_t errlen)
{
    return parse_with(text, len, out, err, errlen, NULL, NULL);
}

int fc_report_parse_tree(const char *text, size_t len, fc_report *out, char *err, size_t errlen)
{
    return parse_tree(text, len, out, err, errlen, NULL, NULL);
}

int fc_report_load_with(const char *path, fc_report *out, char *err, size_t errlen,
                        fc_report_tree_fn also, void *ctx)
{
    fc_jctx c = {err, errlen, 0};
    size_t len = 0;
    char *buf = fc_jread_file(&c, path, MAX_FILE_BYTES, &len);
    int rc = -1;
    if (buf == NULL || len == 0)
        empty(out); /* parse_tree empties it otherwise (13 KB: once a report is enough) */
    if (buf == NULL)
        return -1;
    if (len == 0)
        fc_jfail(&c, "empty file (a rank that never finished?)");
    else
        rc = parse_with(buf, len, out, err, errlen, also, ctx);
    free(buf);
    return rc;
}

int fc_report_load(const char *path, fc_report *out, char *err, size_t errlen)
{
    return fc_report_load_with(path, out, err, errlen, NULL, NULL);
}
