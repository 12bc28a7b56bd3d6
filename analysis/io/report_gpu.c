/* SPDX-License-Identifier: Apache-2.0 */
/* report_gpu.c - reads the CUPTI sections of a report (report_gpu.h). Big
 * integers are quoted before json-c sees them, as in report_read.c. */
#include "report_gpu.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_get.h"
#include "kernel_class.h"
#include "report_read.h"
#include "schema_read.h"

int fc_rgpu_class_index(const char *name)
{
    for (int i = 0; i < FC_RGPU_CLASSES; i++)
        if (strcmp(name, fc_kclass_name(i)) == 0)
            return i;
    return -1;
}

static void read_graphs(fc_jctx *c, json_object *g, fc_report_gpu *out)
{
    if (g == NULL || !json_object_is_type(g, json_type_object))
        return;
    out->has_graphs = 1;
    fc_jget_bool(c, g, "graphs", "replays_visible", &out->replays_visible);
    fc_jget_str(c, g, "graphs", "reason", out->graphs_reason, sizeof out->graphs_reason);
    fc_jget_str(c, g, "graphs", "seen_by", out->graphs_seen_by, sizeof out->graphs_seen_by);
    fc_schema_read(c, g, "graphs", fc_graphs_fields, 0, FC_GRAPHS_N, &out->graph);
}

static void read_shapes(fc_jctx *c, json_object *arr, fc_report_gpu *out)
{
    if (arr == NULL)
        return;
    if (!json_object_is_type(arr, json_type_array)) {
        fc_jfail(c, "kernels.shapes: expected an array");
        return;
    }
    size_t n = json_object_array_length(arr);
    out->shapes = calloc(n ? n : 1, sizeof *out->shapes);
    if (out->shapes == NULL) {
        fc_jfail(c, "out of memory");
        return;
    }
    for (size_t i = 0; i < n && !c->failed; i++) {
        json_object *s = json_object_array_get_idx(arr, i);
        fc_rgpu_shape *r = &out->shapes[out->n_shapes++];
        char ta[4] = "?", tb[4] = "?";
        r->t.achieved_flops_per_second = r->t.peak_fraction = r->t.lost_seconds = NAN;
        fc_jget_str(c, s, "kernels.shapes", "api", r->api, sizeof r->api);
        fc_jget_str(c, s, "kernels.shapes", "dtype", r->dtype, sizeof r->dtype);
        fc_jget_i64(c, s, "kernels.shapes", "m", &r->m);
        fc_jget_i64(c, s, "kernels.shapes", "n", &r->n);
        fc_jget_i64(c, s, "kernels.shapes", "k", &r->k);
        fc_jget_i64(c, s, "kernels.shapes", "batch", &r->batch);
        fc_jget_str(c, s, "kernels.shapes", "transa", ta, sizeof ta);
        fc_jget_str(c, s, "kernels.shapes", "transb", tb, sizeof tb);
        r->transa = ta[0];
        r->transb = tb[0];
        fc_schema_read(c, s, "kernels.shapes", fc_kshape_fields, 0, FC_KSHAPE_N, &r->t);
    }
}

static void read_kernels(fc_jctx *c, json_object *root, fc_report_gpu *out)
{
    fc_jget_str(c, root, "report", "kernels_reason", out->kernels_reason,
                sizeof out->kernels_reason);
    json_object *k = fc_jmember(root, "kernels");
    if (k == NULL || !json_object_is_type(k, json_type_object))
        return;
    out->has_kernels = 1;
    out->busy_fraction = NAN; /* null: no span */
    fc_schema_read(c, k, "kernels", fc_ktotals_fields, 0, FC_KTOTALS_N, &out->kt);
    json_object *bc = fc_jmember(k, "by_class"), *tn = fc_jmember(k, "top_names");
    for (int i = 0; i < FC_RGPU_CLASSES && !c->failed; i++) {
        json_object *one = fc_jmember(bc, fc_kclass_name(i));
        fc_jget_double(c, one, "kernels.by_class", "seconds", &out->class_seconds[i]);
        fc_jget_u64(c, one, "kernels.by_class", "kernels", &out->class_kernels[i], 0);
        json_object *names = fc_jmember(tn, fc_kclass_name(i));
        if (names == NULL || !json_object_is_type(names, json_type_array))
            continue;
        for (size_t j = 0; j < json_object_array_length(names) && out->n_names[i] < FC_RGPU_NAMES;
             j++) {
            json_object *x = json_object_array_get_idx(names, j);
            fc_rgpu_name *r = &out->names[i][out->n_names[i]++];
            fc_jget_str(c, x, "kernels.top_names", "name", r->name, sizeof r->name);
            fc_jget_double(c, x, "kernels.top_names", "seconds", &r->seconds);
            fc_jget_u64(c, x, "kernels.top_names", "kernels", &r->kernels, 0);
        }
    }
    read_shapes(c, fc_jmember(k, "shapes"), out);
    json_object *it = fc_jmember(k, "iterations");
    fc_schema_read(c, it, "kernels.iterations", fc_kiter_fields, 0, FC_KITER_N, &out->kiter);
}

static void read_values(fc_jctx *c, json_object *o, const char *where, fc_rgpu_value *out,
                        size_t *n)
{
    if (o == NULL || !json_object_is_type(o, json_type_object))
        return;
    json_object_object_foreach(o, key, val)
    {
        if (*n == FC_RGPU_TYPES)
            break;
        fc_rgpu_value *v = &out[(*n)++];
        snprintf(v->name, sizeof v->name, "%s", key);
        v->value = NAN;
        if (json_object_is_type(val, json_type_double) || json_object_is_type(val, json_type_int))
            v->value = json_object_get_double(val);
        else if (json_object_is_type(val, json_type_string))
            v->value = 0; /* coverage text */
        else if (!json_object_is_type(val, json_type_null))
            fc_jfail(c, "%s.%s: expected a number", where, key);
    }
}

static void read_hw(fc_jctx *c, json_object *h, fc_report_gpu *out)
{
    if (h == NULL || !json_object_is_type(h, json_type_object))
        return;
    out->has_hw = 1;
    fc_jget_str(c, h, "hw_flops", "status", out->hw_status, sizeof out->hw_status);
    fc_jget_str(c, h, "hw_flops", "reason", out->hw_reason, sizeof out->hw_reason);
    fc_jget_str(c, h, "hw_flops", "mode", out->hw_mode, sizeof out->hw_mode);
    fc_jget_str(c, h, "hw_flops", "chip", out->hw_chip, sizeof out->hw_chip);
    fc_schema_read(c, h, "hw_flops", fc_hw_fields, 0, FC_HW_N, &out->hw);
    read_values(c, fc_jmember(h, "totals"), "hw_flops.totals", out->hw_totals, &out->n_hw_totals);
    json_object *cov = fc_jmember(h, "coverage");
    if (cov != NULL && json_object_is_type(cov, json_type_object)) {
        json_object_object_foreach(cov, key, val)
        {
            const char *t =
                json_object_is_type(val, json_type_string) ? json_object_get_string(val) : "";
            if (strncmp(t, "left out", 8) == 0 && out->n_hw_left < FC_RGPU_TYPES)
                snprintf(out->hw_coverage_left[out->n_hw_left++].name,
                         sizeof out->hw_coverage_left[0].name, "%s", key);
        }
    }
    json_object *it = fc_jmember(h, "iterations");
    fc_schema_read(c, it, "hw_flops.iterations", fc_hwiter_fields, 0, FC_HWITER_N, &out->hw_iter);
}

static void read_launch(fc_jctx *c, json_object *l, fc_report_gpu *out)
{
    if (l == NULL || !json_object_is_type(l, json_type_object))
        return;
    fc_rgpu_launch *r = &out->launch;
    out->has_launch = 1;
    fc_schema_read(c, l, "launch", fc_lcounts_fields, 0, FC_LCOUNTS_N, &r->counts);
    fc_schema_read(c, fc_jmember(l, "hooks"), "launch.hooks", fc_lpath_fields, 0, FC_LPATH_N,
                   &r->hooks);
    fc_schema_read(c, fc_jmember(l, "cupti"), "launch.cupti", fc_lpath_fields, 0, FC_LPATH_N,
                   &r->cupti);
    fc_schema_read(c, fc_jmember(l, "parameter_size"), "launch.parameter_size", fc_lpsize_fields,
                   0, FC_LPSIZE_N, &r->parameter_size);
    fc_schema_read(c, fc_jmember(l, "runtime"), "launch.runtime", fc_lrt_fields, 0, FC_LRT_N,
                   &r->runtime);
}

static void defaults(fc_report_gpu *out)
{
    memset(out, 0, sizeof *out);
    out->kiter.median_busy_fraction = out->kiter.median_gemm_seconds = NAN;
    out->hw_iter.median_flops = out->hw_iter.median_hfu = NAN;
    out->hw_iter.median_hardware_minus_counted = NAN;
}

/* The sections from the parsed top-level object; -1 with the reason in c. */
static int read_root(fc_jctx *c, json_object *root, fc_report_gpu *out)
{
    json_object *cu = fc_jmember(root, "cupti");
    if (cu != NULL && json_object_is_type(cu, json_type_object)) {
        out->has_cupti = 1;
        fc_jget_str(c, cu, "cupti", "status", out->cupti_status, sizeof out->cupti_status);
        fc_jget_str(c, cu, "cupti", "reason", out->cupti_reason, sizeof out->cupti_reason);
    }
    read_graphs(c, fc_jmember(root, "graphs"), out);
    read_kernels(c, root, out);
    read_hw(c, fc_jmember(root, "hw_flops"), out);
    read_launch(c, fc_jmember(root, "launch"), out);
    if (c->failed) {
        fc_report_gpu_free(out);
        return -1;
    }
    return 0;
}

int fc_report_gpu_parse(const char *text, size_t len, fc_report_gpu *out, char *err, size_t errlen)
{
    fc_jctx c = {err, errlen, 0};
    defaults(out);
    size_t qlen;
    char *quoted = fc_report_quote_big_ints(text, len, &qlen);
    if (quoted == NULL) {
        fc_jfail(&c, "out of memory");
        return -1;
    }
    json_object *root = json_tokener_parse(quoted);
    free(quoted);
    if (root == NULL || !json_object_is_type(root, json_type_object)) {
        fc_jfail(&c, "not a JSON object");
        json_object_put(root);
        return -1;
    }
    int rc = read_root(&c, root, out);
    json_object_put(root);
    return rc;
}

typedef struct both_ctx {
    fc_report_gpu *gpu;
    int *rc;
    fc_jctx c;
} both_ctx;

static void gpu_of_tree(void *tree, void *arg)
{
    both_ctx *b = arg;
    *b->rc = read_root(&b->c, tree, b->gpu);
}

int fc_report_load_both(const char *path, fc_report *out, char *err, size_t errlen,
                        fc_report_gpu *gpu, int *gpu_rc, char *gpu_err, size_t gpu_errlen)
{
    both_ctx b = {gpu, gpu_rc, {gpu_err, gpu_errlen, 0}};
    defaults(gpu);
    *gpu_rc = 0;
    if (gpu_err && gpu_errlen)
        gpu_err[0] = '\0';
    return fc_report_load_with(path, out, err, errlen, gpu_of_tree, &b);
}

int fc_report_gpu_load(const char *path, fc_report_gpu *out, char *err, size_t errlen)
{
    fc_jctx c = {err, errlen, 0};
    memset(out, 0, sizeof *out);
    size_t len = 0;
    char *buf = fc_jread_file(&c, path, 512u << 20, &len);
    if (buf == NULL)
        return -1;
    int rc = fc_report_gpu_parse(buf, len, out, err, errlen);
    free(buf);
    return rc;
}

void fc_report_gpu_free(fc_report_gpu *g)
{
    free(g->shapes);
    g->shapes = NULL;
    g->n_shapes = 0;
}
