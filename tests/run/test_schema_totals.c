/* SPDX-License-Identifier: Apache-2.0 */
/* test_schema_totals.c - the "totals" section's table (analysis/run/
 * schema_totals.h) drives its writer and its reader: every row written is
 * read back to the value (each row a distinct value, one past 2^64), the
 * object written has exactly the table's keys (json-c, independently of
 * the reader), an omitted row is absent and reads 0, and counted_flops
 * absent reads gemm_flops + attention_flops. A key a writer wrote without
 * a reader (or the other way round) fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "report_read.h"
#include "schema_totals.h"

/* A minimal report around the totals object fc_totals_json writes, as
 * text (through a pipe: the writer writes to a descriptor). */
static char *report_with(const fc_totals_rec *t, unsigned omit, size_t *len)
{
    char tmpl[] = "/tmp/fc_schema_totals_XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    static fc_jw w;
    fc_jw_init(&w, fd, 0);
    fc_jw_obj_begin(&w, NULL);
    fc_jw_i64(&w, "schema", 1);
    fc_jw_obj_begin(&w, "totals");
    fc_totals_json(&w, t, omit);
    fc_jw_obj_end(&w);
    fc_jw_obj_end(&w);
    assert_int_equal(fc_jw_finish(&w), 0);
    off_t n = lseek(fd, 0, SEEK_END);
    char *text = calloc(1, (size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(pread(fd, text, (size_t)n, 0), n);
    close(fd);
    unlink(tmpl);
    *len = (size_t)n;
    return text;
}

static fc_u128 value_of(int i)
{
    /* row i: 1000 + i, and for U128 rows 2^64 + i (past a uint64_t) */
    return fc_totals_fields[i].type == FC_SCHEMA_U128 ? ((fc_u128)1 << 64) + (fc_u128)i
                                                      : (fc_u128)(1000 + i);
}

static void fill(fc_totals_rec *t)
{
    for (int i = 0; i < FC_TOTALS_N; i++) {
        char *at = (char *)t + fc_totals_fields[i].offset;
        if (fc_totals_fields[i].type == FC_SCHEMA_U128)
            *(fc_u128 *)(void *)at = value_of(i);
        else
            *(uint64_t *)(void *)at = (uint64_t)value_of(i);
    }
}

static fc_u128 read_back(const fc_totals_rec *t, int i)
{
    const char *at = (const char *)t + fc_totals_fields[i].offset;
    return fc_totals_fields[i].type == FC_SCHEMA_U128 ? *(const fc_u128 *)(const void *)at
                                                      : (fc_u128) * (const uint64_t *)(const void *)at;
}

static void test_round_trip(void **state)
{
    (void)state;
    fc_totals_rec t;
    fill(&t);
    size_t len;
    char *text = report_with(&t, 0, &len);
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
        if (read_back(&r.totals, i) != value_of(i))
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
    char *text = report_with(&t, FC_TOTALS_SUMS | FC_TOTALS_BIT(counted_flops), &len);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_omitted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
