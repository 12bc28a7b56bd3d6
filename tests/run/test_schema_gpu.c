/* SPDX-License-Identifier: Apache-2.0 */
/* test_schema_gpu.c - the tables of the dtype mix's "by_api" / "by_dtype"
 * members and of the GPU-side sections (analysis/run/schema_*.h) drive
 * their writers, their reader and their sum. For each: the object the
 * table writes (as the shim and the merged writer write it) has exactly
 * the table's keys beside those written apart (json-c, independently of
 * the reader), every row is read back to its value (each row a distinct
 * value: U128 rows past 2^64, DBL rows with a fraction), so a reader a row
 * short fails here, and the rows a sum adds are summed. Sections: a
 * "by_api" / "by_dtype" member; "kernels"' own totals and "iterations";
 * "hw_flops"' counts and "iterations"; "launch"'s counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "report_gpu.h"
#include "report_read.h"
#include "run_sum.h"
#include "schema_groups.h"
#include "schema_hwflops.h"
#include "schema_kernels.h"
#include "schema_launch.h"

/* A JSON document written to a temporary file (the writer writes to a
 * descriptor) and read back as text: doc_open, the members, doc_text. */
typedef struct doc {
    char path[64];
    int fd;
    fc_jw w;
} doc;

static fc_jw *doc_open(doc *d)
{
    snprintf(d->path, sizeof d->path, "/tmp/fc_schema_gpu_XXXXXX");
    d->fd = mkstemp(d->path);
    assert_true(d->fd >= 0);
    fc_jw_init(&d->w, d->fd, 0);
    fc_jw_obj_begin(&d->w, NULL);
    fc_jw_i64(&d->w, "schema", 1);
    return &d->w;
}

static char *doc_text(doc *d, size_t *len)
{
    fc_jw_obj_end(&d->w);
    assert_int_equal(fc_jw_finish(&d->w), 0);
    off_t n = lseek(d->fd, 0, SEEK_END);
    char *text = calloc(1, (size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(pread(d->fd, text, (size_t)n, 0), n);
    close(d->fd);
    unlink(d->path);
    *len = (size_t)n;
    return text;
}

/* Row i's value: 1000 + i; a U128 row 2^64 + i; a DBL row 1000 + i + 0.25
 * (exact in binary and in %.17g). */
static void fill_rows(const fc_schema_field *f, int n, void *rec)
{
    for (int i = 0; i < n; i++) {
        char *at = (char *)rec + f[i].offset;
        if (f[i].type == FC_SCHEMA_U128)
            *(fc_u128 *)(void *)at = ((fc_u128)1 << 64) + (fc_u128)i;
        else if (f[i].type == FC_SCHEMA_DBL)
            *(double *)(void *)at = 1000.0 + i + 0.25;
        else if (f[i].type == FC_SCHEMA_I64)
            *(int64_t *)(void *)at = 1000 + i;
        else
            *(uint64_t *)(void *)at = (uint64_t)(1000 + i);
    }
}

/* Row i of rec holds what fill_rows put there times k. */
static int row_is(const fc_schema_field *f, const void *rec, int i, int k)
{
    const char *at = (const char *)rec + f[i].offset;
    if (f[i].type == FC_SCHEMA_DBL)
        return *(const double *)(const void *)at == k * (1000.0 + i + 0.25);
    if (f[i].type == FC_SCHEMA_U128)
        return *(const fc_u128 *)(const void *)at == (fc_u128)k * (((fc_u128)1 << 64) + (fc_u128)i);
    if (f[i].type == FC_SCHEMA_I64)
        return *(const int64_t *)(const void *)at == (int64_t)k * (1000 + i);
    return *(const uint64_t *)(const void *)at == (uint64_t)k * (uint64_t)(1000 + i);
}

/* Every row of f not in omit is a key of o; o has no other key but extra. */
static void keys_are_rows(json_object *o, const fc_schema_field *f, int n, unsigned omit, int extra)
{
    assert_non_null(o);
    int want = extra;
    for (int i = 0; i < n; i++) {
        int in = json_object_object_get_ex(o, f[i].name, NULL);
        if (in != !(omit >> i & 1u))
            fail_msg("%s: %s", f[i].name, in ? "written though omitted" : "not written");
        want += in;
    }
    assert_int_equal(json_object_object_length(o), want);
}

/* The object at root.key.sub (sub NULL: root.key) of text, by json-c. */
static json_object *member(json_object *root, const char *key, const char *sub)
{
    json_object *o = NULL, *s = NULL;
    assert_true(json_object_object_get_ex(root, key, &o));
    if (sub == NULL)
        return o;
    assert_true(json_object_object_get_ex(o, sub, &s));
    return s;
}

/* "by_api" and "by_dtype" members written by the table (as the shim and
 * the merged writer write them): exactly the table's keys, read back into
 * fc_report_group; the sum of two runs adds them, the FLOPs saturating. */
static void test_groups(void **state)
{
    (void)state;
    fc_report_group g;
    memset(&g, 0, sizeof g);
    fill_rows(fc_group_fields, FC_GROUP_N, &g);
    static doc d;
    fc_jw *w = doc_open(&d);
    fc_jw_obj_begin(w, "totals");
    fc_jw_u64(w, "gemm_calls", 1001);
    fc_jw_u128(w, "gemm_flops", g.flops);
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "by_api");
    fc_group_json(w, "cublasGemmEx", &g);
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "by_dtype");
    fc_group_json(w, "bf16", &g);
    fc_jw_obj_end(w);
    size_t len;
    char *text = doc_text(&d, &len);
    json_object *root = json_tokener_parse(text);
    assert_non_null(root);
    keys_are_rows(member(root, "by_api", "cublasGemmEx"), fc_group_fields, FC_GROUP_N, 0, 0);
    keys_are_rows(member(root, "by_dtype", "bf16"), fc_group_fields, FC_GROUP_N, 0, 0);
    json_object_put(root);
    fc_report r;
    char err[256];
    if (fc_report_parse(text, len, &r, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(r.n_by_api, 1);
    assert_int_equal(r.n_by_dtype, 1);
    assert_string_equal(r.by_api[0].name, "cublasGemmEx");
    assert_string_equal(r.by_dtype[0].name, "bf16");
    for (int i = 0; i < FC_GROUP_N; i++)
        if (!row_is(fc_group_fields, &r.by_api[0], i, 1) ||
            !row_is(fc_group_fields, &r.by_dtype[0], i, 1))
            fail_msg("by_api / by_dtype .%s not read back", fc_group_fields[i].name);
    /* the sum: two runs of the same rows, then one at 2^128 - 1 FLOPs */
    fc_totals_rec t = {0};
    fc_run_part p = {.totals = &t, .by_api = r.by_api, .n_by_api = 1, .wall_seconds = 0};
    fc_run_sum s;
    memset(&s, 0, sizeof s);
    assert_int_equal(fc_run_sum_add(&s, &p), 0);
    assert_int_equal(fc_run_sum_add(&s, &p), 0);
    assert_int_equal(s.n_by_api, 1);
    for (int i = 0; i < FC_GROUP_N; i++)
        if (!row_is(fc_group_fields, &s.by_api[0], i, 2))
            fail_msg("by_api.%s not summed", fc_group_fields[i].name);
    g.flops = ~(fc_u128)0;
    p.by_api = &g;
    snprintf(g.name, sizeof g.name, "cublasGemmEx");
    assert_int_equal(fc_run_sum_add(&s, &p), 0);
    assert_true(s.by_api[0].flops == ~(fc_u128)0 && s.by_api[0].calls == 3 * 1000);
    fc_run_sum_free(&s);
    fc_report_free(&r);
    free(text);
}

/* The "kernels" object's own totals and its "iterations" (as the shim
 * writes them, and as a report read back writes them: not_in_busy_time
 * left out, then read as 0): exactly the tables' keys beside those written
 * apart, every row read back into fc_report_gpu; the totals sum row by
 * row (I64 and DBL rows too). */
static void test_kernels(void **state)
{
    (void)state;
    unsigned omits[] = {0, FC_KTOTALS_PROCESS_ONLY}; /* the shim's, a report's read back */
    for (size_t o = 0; o < 2; o++) {
        fc_ktotals_rec t;
        fc_kiter_rec it;
        fill_rows(fc_ktotals_fields, FC_KTOTALS_N, &t);
        fill_rows(fc_kiter_fields, FC_KITER_N, &it);
        static doc d;
        fc_jw *w = doc_open(&d);
        fc_jw_obj_begin(w, "kernels");
        fc_ktotals_json(w, &t, omits[o]);
        fc_jw_obj_begin(w, "iterations");
        fc_kiter_json(w, &it);
        fc_jw_arr_begin(w, "list");
        fc_jw_arr_end(w);
        fc_jw_obj_end(w);
        fc_jw_obj_end(w);
        size_t len;
        char *text = doc_text(&d, &len);
        json_object *root = json_tokener_parse(text);
        assert_non_null(root);
        keys_are_rows(member(root, "kernels", NULL), fc_ktotals_fields, FC_KTOTALS_N, omits[o],
                      1); /* + iterations */
        keys_are_rows(member(root, "kernels", "iterations"), fc_kiter_fields, FC_KITER_N, 0,
                      1); /* + list */
        json_object_put(root);
        static fc_report_gpu r;
        char err[256];
        if (fc_report_gpu_parse(text, len, &r, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_true(r.has_kernels);
        for (int i = 0; i < FC_KTOTALS_N; i++)
            if (omits[o] >> i & 1u ? r.not_in_busy_time != 0
                                   : !row_is(fc_ktotals_fields, &r.kt, i, 1))
                fail_msg("kernels.%s not read back", fc_ktotals_fields[i].name);
        for (int i = 0; i < FC_KITER_N; i++)
            if (!row_is(fc_kiter_fields, &r.kiter, i, 1))
                fail_msg("kernels.iterations.%s not read back", fc_kiter_fields[i].name);
        assert_true(r.devices == 1003 && r.gpu_busy_seconds == 1005.25); /* by their names */
        fc_schema_add(fc_ktotals_fields, FC_KTOTALS_N, &t, &t);
        for (int i = 0; i < FC_KTOTALS_N; i++)
            if (!row_is(fc_ktotals_fields, &t, i, 2))
                fail_msg("kernels.%s not summed", fc_ktotals_fields[i].name);
        fc_report_gpu_free(&r);
        free(text);
    }
}

/* "hw_flops" with its counts and its "iterations" (as the shim writes
 * them: interval after trigger, the rest after totals; and as a report
 * read back writes them: the process-only rows left out, then read as 0):
 * exactly the tables' keys beside those written apart, every row read
 * back; the sum adds the counts but the interval. */
static void test_hw_flops(void **state)
{
    (void)state;
    unsigned omits[] = {0, FC_HW_PROCESS_ONLY};
    for (size_t o = 0; o < 2; o++) {
        fc_hw_rec t;
        fc_hwiter_rec it;
        fill_rows(fc_hw_fields, FC_HW_N, &t);
        fill_rows(fc_hwiter_fields, FC_HWITER_N, &it);
        static doc d;
        fc_jw *w = doc_open(&d);
        fc_jw_obj_begin(w, "hw_flops");
        fc_jw_str(w, "status", "on");
        fc_jw_str(w, "trigger", "time");
        fc_hw_json(w, &t, 0, FC_HW_I_samples, omits[o]);
        fc_jw_obj_begin(w, "totals");
        fc_jw_double(w, "flops", 1e12);
        fc_jw_obj_end(w);
        fc_hw_json(w, &t, FC_HW_I_samples, FC_HW_N, omits[o]);
        fc_jw_obj_begin(w, "iterations");
        fc_hwiter_json(w, &it, 0, FC_HWITER_N);
        fc_jw_arr_begin(w, "list");
        fc_jw_arr_end(w);
        fc_jw_obj_end(w);
        fc_jw_obj_end(w);
        size_t len;
        char *text = doc_text(&d, &len);
        json_object *root = json_tokener_parse(text);
        assert_non_null(root);
        keys_are_rows(member(root, "hw_flops", NULL), fc_hw_fields, FC_HW_N, omits[o],
                      4); /* + status, trigger, totals, iterations */
        keys_are_rows(member(root, "hw_flops", "iterations"), fc_hwiter_fields, FC_HWITER_N, 0,
                      1); /* + list */
        json_object_put(root);
        static fc_report_gpu r;
        char err[256];
        if (fc_report_gpu_parse(text, len, &r, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_true(r.has_hw);
        assert_string_equal(r.hw_status, "on");
        for (int i = 0; i < FC_HW_N; i++) {
            const char *at = (const char *)&r.hw + fc_hw_fields[i].offset;
            int zero = fc_hw_fields[i].type == FC_SCHEMA_DBL
                           ? *(const double *)(const void *)at == 0
                           : *(const uint64_t *)(const void *)at == 0;
            if (omits[o] >> i & 1u ? !zero : !row_is(fc_hw_fields, &r.hw, i, 1))
                fail_msg("hw_flops.%s not read back", fc_hw_fields[i].name);
        }
        for (int i = 0; i < FC_HWITER_N; i++)
            if (!row_is(fc_hwiter_fields, &r.hw_iter, i, 1))
                fail_msg("hw_flops.iterations.%s not read back", fc_hwiter_fields[i].name);
        fc_report_gpu_free(&r);
        free(text);
    }
    /* the sum of two runs' counts, as tools/merge/merge_gpu.c adds them */
    fc_hw_rec a, b;
    fill_rows(fc_hw_fields, FC_HW_N, &a);
    fill_rows(fc_hw_fields, FC_HW_N, &b);
    fc_schema_add(fc_hw_fields + FC_HW_I_samples, FC_HW_N - FC_HW_I_samples, &a, &b);
    assert_true(a.interval == 1000 && a.samples == 2 * 1001 &&
                a.outside_iterations_flops == 2 * 1004.25);
}

/* "launch" as the shim writes it (cupti_duplicates after the paths,
 * runtime's counts around its list): each object exactly its table's keys
 * beside those written apart, every row read back into fc_rgpu_launch. */
static void test_launch(void **state)
{
    (void)state;
    fc_lcounts_rec n;
    fc_lpath_rec hooks, cupti;
    fc_lpsize_rec ps;
    fc_lrt_rec rt;
    fill_rows(fc_lcounts_fields, FC_LCOUNTS_N, &n);
    fill_rows(fc_lpath_fields, FC_LPATH_N, &hooks);
    fill_rows(fc_lpath_fields, FC_LPATH_N, &cupti);
    cupti.launches = 7; /* the paths apart */
    fill_rows(fc_lpsize_fields, FC_LPSIZE_N, &ps);
    fill_rows(fc_lrt_fields, FC_LRT_N, &rt);
    static doc d;
    fc_jw *w = doc_open(&d);
    fc_jw_obj_begin(w, "launch");
    fc_launch_rows_json(w, fc_lcounts_fields, 0, FC_LCOUNTS_I_cupti_duplicates, &n);
    fc_jw_obj_begin(w, "hooks");
    fc_launch_rows_json(w, fc_lpath_fields, 0, FC_LPATH_N, &hooks);
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "cupti");
    fc_launch_rows_json(w, fc_lpath_fields, 0, FC_LPATH_N, &cupti);
    fc_jw_obj_end(w);
    fc_launch_rows_json(w, fc_lcounts_fields, FC_LCOUNTS_I_cupti_duplicates, FC_LCOUNTS_N, &n);
    fc_jw_obj_begin(w, "parameter_size");
    fc_launch_rows_json(w, fc_lpsize_fields, 0, FC_LPSIZE_N, &ps);
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "runtime");
    fc_jw_bool(w, "scanned", 1);
    fc_launch_rows_json(w, fc_lrt_fields, 0, FC_LRT_I_more_static_runtime_objects, &rt);
    fc_jw_arr_begin(w, "static_runtime_objects");
    fc_jw_arr_end(w);
    fc_launch_rows_json(w, fc_lrt_fields, FC_LRT_I_more_static_runtime_objects, FC_LRT_N, &rt);
    fc_jw_obj_end(w);
    fc_jw_str(w, "note", NULL);
    fc_jw_obj_end(w);
    size_t len;
    char *text = doc_text(&d, &len);
    json_object *root = json_tokener_parse(text);
    assert_non_null(root);
    keys_are_rows(member(root, "launch", NULL), fc_lcounts_fields, FC_LCOUNTS_N, 0,
                  5); /* + hooks, cupti, parameter_size, runtime, note */
    keys_are_rows(member(root, "launch", "hooks"), fc_lpath_fields, FC_LPATH_N, 0, 0);
    keys_are_rows(member(root, "launch", "cupti"), fc_lpath_fields, FC_LPATH_N, 0, 0);
    keys_are_rows(member(root, "launch", "parameter_size"), fc_lpsize_fields, FC_LPSIZE_N, 0, 0);
    keys_are_rows(member(root, "launch", "runtime"), fc_lrt_fields, FC_LRT_N, 0,
                  2); /* + scanned, static_runtime_objects */
    json_object_put(root);
    static fc_report_gpu r;
    char err[256];
    if (fc_report_gpu_parse(text, len, &r, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(r.has_launch);
    const fc_rgpu_launch *l = &r.launch;
    for (int i = 0; i < FC_LCOUNTS_N; i++)
        if (!row_is(fc_lcounts_fields, &l->counts, i, 1))
            fail_msg("launch.%s not read back", fc_lcounts_fields[i].name);
    for (int i = 1; i < FC_LPATH_N; i++)
        if (!row_is(fc_lpath_fields, &l->hooks, i, 1) || !row_is(fc_lpath_fields, &l->cupti, i, 1))
            fail_msg("launch.hooks / cupti .%s not read back", fc_lpath_fields[i].name);
    assert_true(l->hooks.launches == 1000 && l->cupti.launches == 7);
    for (int i = 0; i < FC_LPSIZE_N; i++)
        if (!row_is(fc_lpsize_fields, &l->parameter_size, i, 1))
            fail_msg("launch.parameter_size.%s not read back", fc_lpsize_fields[i].name);
    for (int i = 0; i < FC_LRT_N; i++)
        if (!row_is(fc_lrt_fields, &l->runtime, i, 1))
            fail_msg("launch.runtime.%s not read back", fc_lrt_fields[i].name);
    fc_report_gpu_free(&r);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_hw_flops),
        cmocka_unit_test(test_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
