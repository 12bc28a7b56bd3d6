/* SPDX-License-Identifier: Apache-2.0 */
/* test_schema_lists.c - the tables of the report's lists and of the
 * sections written as one object each (analysis/run/schema_iter.h, ...)
 * drive their writers and both readers: an entry written by the table (as
 * the shim and the merged writer write it) has exactly the table's keys
 * (json-c, independently of the readers), and every row is read back to
 * the distinct value it was given, by the tree reader and by the
 * tree-free one (report_fast.c). A key written without a reader, a reader
 * a row short, or a fast-reader table that skips a row fails here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "report_fast.h"
#include "report_read.h"
#include "schema_iter.h"

/* ---- a document written by fc_jw, read back as text ---- */

typedef struct doc {
    char path[64];
    int fd;
    fc_jw w;
} doc;

static fc_jw *doc_open(doc *d)
{
    snprintf(d->path, sizeof d->path, "/tmp/fc_schema_lists_XXXXXX");
    d->fd = mkstemp(d->path);
    assert_true(d->fd >= 0);
    fc_jw_init(&d->w, d->fd, 0);
    fc_jw_obj_begin(&d->w, NULL);
    fc_jw_i64(&d->w, "schema", 1);
    fc_jw_obj_begin(&d->w, "totals");
    fc_jw_u64(&d->w, "gemm_calls", 0);
    fc_jw_u64(&d->w, "gemm_flops", 0);
    fc_jw_obj_end(&d->w);
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

/* ---- rows: a distinct value for row i of each type ---- */

static const char *const TEXT_OF = "a sentence for people";

static void fill_rows(const fc_schema_field *f, int n, void *rec)
{
    for (int i = 0; i < n; i++) {
        char *at = (char *)rec + f[i].offset;
        switch (f[i].type) {
        case FC_SCHEMA_U64: *(uint64_t *)(void *)at = 1000 + (uint64_t)i; break;
        case FC_SCHEMA_U128: *(fc_u128 *)(void *)at = ((fc_u128)1 << 64) + (fc_u128)i; break;
        case FC_SCHEMA_DBL: *(double *)(void *)at = 1000.0 + i + 0.25; break;
        case FC_SCHEMA_I64: *(int64_t *)(void *)at = 2000 + i; break;
        case FC_SCHEMA_BOOL: *(int *)(void *)at = 1; break;
        case FC_SCHEMA_TRANS: *at = "NTC"[i % 3]; break;
        case FC_SCHEMA_STR: snprintf(at, f[i].size, "s%d", i); break;
        case FC_SCHEMA_TEXT: *(const char **)(void *)at = TEXT_OF; break;
        default: fail_msg("%s: a row type this test does not know", f[i].name);
        }
    }
}

/* Row i of rec holds what fill_rows put there (a TEXT row is not kept by
 * the readers: 1). */
static int row_is_filled(const fc_schema_field *f, const void *rec, int i)
{
    const char *at = (const char *)rec + f[i].offset;
    switch (f[i].type) {
    case FC_SCHEMA_U64: return *(const uint64_t *)(const void *)at == 1000 + (uint64_t)i;
    case FC_SCHEMA_U128: return *(const fc_u128 *)(const void *)at == ((fc_u128)1 << 64) + (fc_u128)i;
    case FC_SCHEMA_DBL: return *(const double *)(const void *)at == 1000.0 + i + 0.25;
    case FC_SCHEMA_I64: return *(const int64_t *)(const void *)at == 2000 + i;
    case FC_SCHEMA_BOOL: return *(const int *)(const void *)at == 1;
    case FC_SCHEMA_TRANS: return *at == "NTC"[i % 3];
    case FC_SCHEMA_STR: {
        char want[16];
        snprintf(want, sizeof want, "s%d", i);
        return strcmp(at, want) == 0;
    }
    default: return 1;
    }
}

/* Object o has a key for each row not in omit, and extra keys beside. */
static void keys_are_rows(json_object *o, const fc_schema_field *f, int n, unsigned omit,
                          int extra)
{
    int want = extra;
    assert_non_null(o);
    for (int i = 0; i < n; i++) {
        json_object *v;
        int in = json_object_object_get_ex(o, f[i].name, &v);
        if (in != !(omit >> i & 1u))
            fail_msg("%s: %s", f[i].name, in ? "written though omitted" : "not written");
        if (in && f[i].type == FC_SCHEMA_TEXT && strcmp(json_object_get_string(v), TEXT_OF) != 0)
            fail_msg("%s: not the text given", f[i].name);
        want += in;
    }
    assert_int_equal(json_object_object_length(o), want);
}

static void rows_read_back(const char *what, const fc_schema_field *f, int n, const void *rec)
{
    for (int i = 0; i < n; i++)
        if (!row_is_filled(f, rec, i))
            fail_msg("%s.%s not read back", what, f[i].name);
}

/* Both readers, the fast one required to take the text. */
static void parse_both(const char *text, size_t len, fc_report *fast, fc_report *tree)
{
    char err[256];
    fc_report_fast f;
    assert_int_equal(fc_report_fast_scan(text, len, &f), 0); /* the fast path takes it */
    fc_report_fast_free(&f);
    if (fc_report_parse(text, len, fast, err, sizeof err) != 0)
        fail_msg("%s", err);
    if (fc_report_parse_tree(text, len, tree, err, sizeof err) != 0)
        fail_msg("%s", err);
}

/* ---- iterations.list[] ---- */

static void test_iter_round_trip(void **state)
{
    (void)state;
    /* every row; the shim's omissions of an exact, closed iteration */
    unsigned omits[] = {0, FC_ITER_BIT(slowest_rank) | FC_ITER_BIT(ambiguous_reason) |
                               FC_ITER_BIT(ambiguous_recompute) | FC_ITER_BIT(open_end)};
    for (size_t k = 0; k < 2; k++) {
        static fc_report_iter e;
        memset(&e, 0, sizeof e);
        fill_rows(fc_iter_fields, FC_ITER_N, &e);
        fill_rows(fc_iter_grouped_fields, FC_ITER_GROUPED_N, &e);
        static doc d;
        fc_jw *w = doc_open(&d);
        fc_jw_obj_begin(w, "iterations");
        fc_jw_arr_begin(w, "list");
        fc_jw_obj_begin(w, NULL);
        fc_iter_json(w, &e, omits[k]);
        fc_jw_obj_end(w);
        fc_jw_arr_end(w);
        fc_jw_obj_end(w);
        size_t len;
        char *text = doc_text(&d, &len);
        json_object *root = json_tokener_parse(text), *it, *list, *g;
        assert_non_null(root);
        assert_true(json_object_object_get_ex(root, "iterations", &it));
        assert_true(json_object_object_get_ex(it, "list", &list));
        json_object *entry = json_object_array_get_idx(list, 0);
        keys_are_rows(entry, fc_iter_fields, FC_ITER_N, omits[k], 1); /* + grouped_imbalance */
        assert_true(json_object_object_get_ex(entry, FC_ITER_GROUPED_KEY, &g));
        keys_are_rows(g, fc_iter_grouped_fields, FC_ITER_GROUPED_N, 0, 0);
        json_object_put(root);
        static fc_report fast, tree;
        parse_both(text, len, &fast, &tree);
        const fc_report *rs[] = {&fast, &tree};
        for (int r = 0; r < 2; r++) {
            assert_int_equal(rs[r]->iterations.n_list, 1);
            const fc_report_iter *got = &rs[r]->iterations.list[0];
            if (k == 0)
                rows_read_back("iterations.list[]", fc_iter_fields, FC_ITER_N, got);
            else /* the omitted: their defaults */
                assert_true(got->slowest_rank == -1 && got->open_end == 0 &&
                            got->ambiguous_recompute == 1 /* = ambiguous */);
            rows_read_back("iterations.list[].grouped_imbalance", fc_iter_grouped_fields,
                           FC_ITER_GROUPED_N, got);
            assert_null(got->ambiguous_reason);
        }
        fc_report_free(&fast);
        fc_report_free(&tree);
        free(text);
    }
}

/* No grouped call: no "grouped_imbalance"; an entry with nothing but the
 * required row reads the defaults. */
static void test_iter_defaults(void **state)
{
    (void)state;
    static fc_report_iter e;
    memset(&e, 0, sizeof e);
    e.flops = 7;
    static doc d;
    fc_jw *w = doc_open(&d);
    fc_jw_obj_begin(w, "iterations");
    fc_jw_arr_begin(w, "list");
    fc_jw_obj_begin(w, NULL);
    fc_iter_json(w, &e, ~FC_ITER_BIT(flops));
    fc_jw_obj_end(w);
    fc_jw_arr_end(w);
    fc_jw_obj_end(w);
    size_t len;
    char *text = doc_text(&d, &len);
    assert_non_null(strstr(text, "{\"flops\":7}"));
    static fc_report fast, tree;
    parse_both(text, len, &fast, &tree);
    const fc_report *rs[] = {&fast, &tree};
    for (int r = 0; r < 2; r++) {
        const fc_report_iter *got = &rs[r]->iterations.list[0];
        assert_true(got->index == 0 && got->flops == 7 && got->grouped_calls == 0);
        assert_true(isnan(got->seconds) && isnan(got->start_seconds) && isnan(got->gpu_seconds));
        assert_true(got->slowest_rank == -1 && got->kind[0] == '\0');
    }
    fc_report_free(&fast);
    fc_report_free(&tree);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iter_round_trip),
        cmocka_unit_test(test_iter_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
