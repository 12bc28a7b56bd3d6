/* SPDX-License-Identifier: Apache-2.0 */
/* test_schema.c - the sections' tables (analysis/run/schema_*.h) drive
 * their writers and their reader. "totals": every row written is read
 * back to the value (each row a distinct value, one past 2^64), the object
 * written has exactly the table's keys (json-c, independently of the
 * reader), an omitted row is absent and reads 0, and counted_flops absent
 * reads gemm_flops + attention_flops. "attention": its counts the same
 * way. "graphs": its counts written by the table (as the shim and the
 * merged writer write them) are exactly the table's keys and are read back
 * into fc_report_gpu; a sum of runs omits the process-only rows; the table
 * sums row by row. A key a writer wrote without a reader (or the other way
 * round) fails here. "kernels.shapes": an entry's timing rows (DBL rows
 * among them) the same way. */
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
#include "schema_attention.h"
#include "schema_graphs.h"
#include "schema_kernels.h"
#include "schema_totals.h"

/* A JSON document written to a temporary file (the writer writes to a
 * descriptor) and read back as text: doc_open, the members, doc_text. */
typedef struct doc {
    char path[64];
    int fd;
    fc_jw w;
} doc;

static fc_jw *doc_open(doc *d)
{
    snprintf(d->path, sizeof d->path, "/tmp/fc_schema_XXXXXX");
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

/* A minimal report around the totals object fc_totals_json writes, as
 * text (through a pipe: the writer writes to a descriptor). */
static char *report_with(const fc_totals_rec *t, unsigned omit, const fc_attn_totals_rec *a,
                         size_t *len)
{
    static doc d;
    fc_jw *w = doc_open(&d);
    fc_jw_obj_begin(w, "totals");
    fc_totals_json(w, t, omit);
    fc_jw_obj_end(w);
    if (a != NULL) {
        fc_jw_obj_begin(w, "attention");
        fc_attn_totals_json(w, a);
        fc_jw_obj_begin(w, "by_source");
        fc_jw_obj_end(w);
        fc_jw_arr_begin(w, "shapes");
        fc_jw_arr_end(w);
        fc_jw_obj_end(w);
    }
    char *text = doc_text(&d, len);
    return text;
}

static fc_u128 value_of(const fc_schema_field *f, int i)
{
    /* row i: 1000 + i, and for U128 rows 2^64 + i (past a uint64_t) */
    return f[i].type == FC_SCHEMA_U128 ? ((fc_u128)1 << 64) + (fc_u128)i : (fc_u128)(1000 + i);
}

/* A DBL row i holds 1000 + i + 0.25 (exact in binary and in %.17g). */
static double dbl_of(int i)
{
    return 1000.0 + i + 0.25;
}

static void fill_rows(const fc_schema_field *f, int n, void *rec)
{
    for (int i = 0; i < n; i++) {
        char *at = (char *)rec + f[i].offset;
        if (f[i].type == FC_SCHEMA_U128)
            *(fc_u128 *)(void *)at = value_of(f, i);
        else if (f[i].type == FC_SCHEMA_DBL)
            *(double *)(void *)at = dbl_of(i);
        else
            *(uint64_t *)(void *)at = (uint64_t)value_of(f, i);
    }
}

/* Row i of rec holds what fill_rows put there. */
static int row_is_filled(const fc_schema_field *f, const void *rec, int i)
{
    const char *at = (const char *)rec + f[i].offset;
    if (f[i].type == FC_SCHEMA_DBL)
        return *(const double *)(const void *)at == dbl_of(i);
    if (f[i].type == FC_SCHEMA_U128)
        return *(const fc_u128 *)(const void *)at == value_of(f, i);
    return *(const uint64_t *)(const void *)at == (uint64_t)value_of(f, i);
}

static void fill(fc_totals_rec *t)
{
    fill_rows(fc_totals_fields, FC_TOTALS_N, t);
}

static fc_u128 row_of(const fc_schema_field *f, const void *rec, int i)
{
    const char *at = (const char *)rec + f[i].offset;
    return f[i].type == FC_SCHEMA_U128 ? *(const fc_u128 *)(const void *)at
                                       : (fc_u128) * (const uint64_t *)(const void *)at;
}

static fc_u128 read_back(const fc_totals_rec *t, int i)
{
    return row_of(fc_totals_fields, t, i);
}

static void test_round_trip(void **state)
{
    (void)state;
    fc_totals_rec t;
    fill(&t);
    size_t len;
    char *text = report_with(&t, 0, NULL, &len);
    /* the keys written, by json-c: the table's, each once */
    json_object *root = json_tokener_parse(text), *tot;
    assert_non_null(root);
    assert_true(json_object_object_get_ex(root, "totals", &tot));
    assert_int_equal(json_object_object_length(tot), FC_TOTALS_N);
    for (int i = 0; i < FC_TOTALS_N; i++)
        assert_true(json_object_object_get_ex(tot, fc_totals_fields[i].name, NULL));
    json_object_put(root);
    /* the reader takes every row back */
    fc_report r;
    char err[256];
    assert_int_equal(fc_report_parse(text, len, &r, err, sizeof err), 0);
    for (int i = 0; i < FC_TOTALS_N; i++)
        if (read_back(&r.totals, i) != value_of(fc_totals_fields, i))
            fail_msg("totals.%s not read back", fc_totals_fields[i].name);
    fc_report_free(&r);
    free(text);
}

/* A shim report (ranks, processes and counted_flops left out): those read
 * 0, counted_flops = gemm_flops + attention_flops = 2^65 + 1 + 8. */
static void test_omitted(void **state)
{
    (void)state;
    fc_totals_rec t;
    fill(&t);
    size_t len;
    char *text = report_with(&t, FC_TOTALS_SUMS | FC_TOTALS_BIT(counted_flops), NULL, &len);
    assert_null(strstr(text, "\"ranks\""));
    assert_null(strstr(text, "\"counted_flops\""));
    fc_report r;
    char err[256];
    assert_int_equal(fc_report_parse(text, len, &r, err, sizeof err), 0);
    assert_true(r.totals.ranks == 0 && r.totals.processes == 0);
    assert_true(r.totals.counted_flops == ((fc_u128)1 << 65) + 1 + 8);
    fc_report_free(&r);
    free(text);
}

/* The attention section's counts: written by the table, exactly its keys
 * beside the lists, read back to the value into fc_report_attention. */
static void test_attention_round_trip(void **state)
{
    (void)state;
    fc_totals_rec t = {0};
    fc_attn_totals_rec a;
    fill_rows(fc_attn_totals_fields, FC_ATTN_TOTALS_N, &a);
    size_t len;
    char *text = report_with(&t, 0, &a, &len);
    json_object *root = json_tokener_parse(text), *att;
    assert_non_null(root);
    assert_true(json_object_object_get_ex(root, "attention", &att));
    assert_int_equal(json_object_object_length(att), FC_ATTN_TOTALS_N + 2); /* + the lists */
    for (int i = 0; i < FC_ATTN_TOTALS_N; i++)
        assert_true(json_object_object_get_ex(att, fc_attn_totals_fields[i].name, NULL));
    json_object_put(root);
    fc_report r;
    char err[256];
    if (fc_report_parse(text, len, &r, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(r.attn.has);
    fc_attn_totals_rec back;
#define FC_X(P, name, type, req, unit, meaning) back.name = r.attn.name;
    FC_ATTN_TOTALS_FIELDS(FC_X, _)
#undef FC_X
    for (int i = 0; i < FC_ATTN_TOTALS_N; i++)
        if (row_of(fc_attn_totals_fields, &back, i) != value_of(fc_attn_totals_fields, i))
            fail_msg("attention.%s not read back", fc_attn_totals_fields[i].name);
    fc_report_free(&r);
    free(text);
}

/* A report whose "graphs" object is the table's counts of g (omit: rows
 * left out), beside the keys written apart. */
static char *graphs_report(const fc_graphs_rec *g, unsigned omit, size_t *len)
{
    static doc d;
    fc_jw *w = doc_open(&d);
    fc_jw_obj_begin(w, "graphs");
    fc_jw_bool(w, "replays_visible", 1);
    fc_graphs_json(w, g, omit);
    fc_jw_obj_end(w);
    char *text = doc_text(&d, len);
    return text;
}

/* Every row not in omit is a key of o, o has no other key but extra ones. */
static void keys_are_rows(json_object *o, const fc_schema_field *f, int n, unsigned omit,
                          int extra)
{
    int want = extra;
    for (int i = 0; i < n; i++) {
        int in = json_object_object_get_ex(o, f[i].name, NULL);
        if (in != !(omit >> i & 1u))
            fail_msg("%s: %s", f[i].name, in ? "written though omitted" : "not written");
        want += in;
    }
    assert_int_equal(json_object_object_length(o), want);
}

static void test_graphs_round_trip(void **state)
{
    (void)state;
    unsigned omits[] = {0, FC_GRAPHS_PROCESS_ONLY}; /* the shim's, the sum's */
    for (size_t k = 0; k < 2; k++) {
        fc_graphs_rec g;
        fill_rows(fc_graphs_fields, FC_GRAPHS_N, &g);
        size_t len;
        char *text = graphs_report(&g, omits[k], &len);
        json_object *root = json_tokener_parse(text), *sec;
        assert_non_null(root);
        assert_true(json_object_object_get_ex(root, "graphs", &sec));
        keys_are_rows(sec, fc_graphs_fields, FC_GRAPHS_N, omits[k], 1); /* + replays_visible */
        json_object_put(root);
        static fc_report_gpu r;
        char err[256];
        if (fc_report_gpu_parse(text, len, &r, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_true(r.has_graphs && r.replays_visible);
        for (int i = 0; i < FC_GRAPHS_N; i++) {
            fc_u128 want = omits[k] >> i & 1u ? 0 : value_of(fc_graphs_fields, i);
            if (row_of(fc_graphs_fields, &r.graph, i) != want)
                fail_msg("graphs.%s not read back", fc_graphs_fields[i].name);
        }
        fc_report_gpu_free(&r);
        free(text);
    }
}

/* The sum of two runs, row by row: U64 rows add, U128 rows add and
 * saturate at 2^128 - 1. */
static void test_sum_rows(void **state)
{
    (void)state;
    fc_graphs_rec a, b;
    fill_rows(fc_graphs_fields, FC_GRAPHS_N, &a);
    fill_rows(fc_graphs_fields, FC_GRAPHS_N, &b);
    b.never_launched_flops = ~(fc_u128)0;
    fc_schema_add(fc_graphs_fields, FC_GRAPHS_N, &a, &b);
    for (int i = 0; i < FC_GRAPHS_N; i++) {
        fc_u128 want = 2 * value_of(fc_graphs_fields, i);
        if (i == FC_GRAPHS_I_never_launched_flops)
            want = ~(fc_u128)0;
        if (row_of(fc_graphs_fields, &a, i) != want)
            fail_msg("graphs.%s not summed", fc_graphs_fields[i].name);
    }
    assert_true(a.captures == 2 * 1000 && a.captured_flops == ((fc_u128)1 << 65) + 4);
}

/* One "kernels.shapes" entry: the shape's own keys, then the timing rows
 * by the table (as the shim and the merged writer write them): exactly
 * the table's keys beside the shape's eight, each read back into
 * fc_rgpu_shape. */
static void test_kernel_shape_round_trip(void **state)
{
    (void)state;
    static doc d;
    fc_jw *w = doc_open(&d);
    fc_jw_obj_begin(w, "kernels");
    fc_jw_arr_begin(w, "shapes");
    fc_jw_obj_begin(w, NULL);
    fc_jw_str(w, "api", "cublasGemmEx");
    fc_jw_i64(w, "m", 64);
    fc_jw_i64(w, "n", 32);
    fc_jw_i64(w, "k", 16);
    fc_jw_i64(w, "batch", 1);
    fc_jw_str(w, "transa", "N");
    fc_jw_str(w, "transb", "T");
    fc_jw_str(w, "dtype", "bf16");
    fc_kshape_rec k;
    fill_rows(fc_kshape_fields, FC_KSHAPE_N, &k);
    fc_kshape_json(w, &k);
    fc_jw_obj_end(w);
    fc_jw_arr_end(w);
    fc_jw_obj_end(w);
    size_t n;
    char *text = doc_text(&d, &n);
    json_object *root = json_tokener_parse(text), *sec, *shapes;
    assert_non_null(root);
    assert_true(json_object_object_get_ex(root, "kernels", &sec));
    assert_true(json_object_object_get_ex(sec, "shapes", &shapes));
    keys_are_rows(json_object_array_get_idx(shapes, 0), fc_kshape_fields, FC_KSHAPE_N, 0, 8);
    json_object_put(root);
    static fc_report_gpu r;
    char err[256];
    if (fc_report_gpu_parse(text, (size_t)n, &r, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(r.has_kernels);
    assert_int_equal(r.n_shapes, 1);
    assert_true(r.shapes[0].m == 64 && r.shapes[0].transb == 'T');
    for (int i = 0; i < FC_KSHAPE_N; i++)
        if (!row_is_filled(fc_kshape_fields, &r.shapes[0].t, i))
            fail_msg("kernels.shapes[].%s not read back", fc_kshape_fields[i].name);
    fc_report_gpu_free(&r);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_omitted),
        cmocka_unit_test(test_attention_round_trip),
        cmocka_unit_test(test_graphs_round_trip),
        cmocka_unit_test(test_sum_rows),
        cmocka_unit_test(test_kernel_shape_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
