/* SPDX-License-Identifier: Apache-2.0 */
/* test_report_read.c - the JSON report reader: exact integers past 2^64,
 * every section, and refusal of what it does not understand. Expected
 * numbers are worked out by hand in the comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_read.h"

/* 2^64 = 18446744073709551616, so 2^64 + 1 ends in ...617. */
#define TWO64_PLUS_1 "18446744073709551617"
/* 2^100 = 1267650600228229401496703205376 (31 digits). */
#define TWO100 "1267650600228229401496703205376"
/* 2^128 - 1, the largest fc_u128 (39 digits); 2^128 ends in ...456. */
#define U128_MAX_TEXT "340282366920938463463374607431768211455"
#define TWO128_TEXT "340282366920938463463374607431768211456"

static fc_u128 two_pow(int e) { return (fc_u128)1 << e; }

/* A whole report as the shim writes it, with totals.gemm_flops = flops. */
static char *report_with(const char *flops, const char *extra)
{
    static char buf[8192];
    snprintf(buf, sizeof buf,
             "{\"schema\": 1, \"tool\": {\"name\": \"flopcount\", \"version\": \"0.1.0\"},\n"
             " \"process\": {\"pid\": 42, \"command\": \"python train.py 12345678901234567890123\","
             " \"hostname\": \"node7\", \"rank\": 3, \"local_rank\": 1, \"world_size\": 8,"
             " \"launcher\": \"torchrun\", \"fork_child\": false},\n"
             " \"status\": \"complete\", \"wall_seconds\": 12.5,\n"
             " \"totals\": {\"gemm_calls\": 7, \"gemm_flops\": %s, \"failed_calls\": 1,"
             " \"invalid_calls\": 0, \"unresolved_calls\": 0, \"distinct_shapes\": 2,"
             " \"overflow_calls\": 0},\n"
             " \"by_api\": {\"sgemm_\": {\"calls\": 7, \"flops\": %s}},\n"
             " \"by_dtype\": {\"fp32\": {\"calls\": 7, \"flops\": %s}},\n"
             " \"shapes\": [{\"api\": \"sgemm_\", \"m\": 64, \"n\": 32, \"k\": 16, \"batch\": 1,"
             " \"transa\": \"N\", \"transb\": \"T\", \"dtype\": \"fp32\", \"out_dtype\": \"fp32\","
             " \"compute\": null, \"calls\": 7, \"flops\": 458752, \"failed_calls\": 1}]%s%s}\n",
             flops, flops, flops, extra ? ",\n" : "", extra ? extra : "");
    return buf;
}

static int parse(const char *text, fc_report *r, char *err, size_t n)
{
    return fc_report_parse(text, strlen(text), r, err, n);
}

static void test_whole_report(void **state)
{
    (void)state;
    fc_report r;
    char err[256];
    assert_int_equal(parse(report_with("458752", NULL), &r, err, sizeof err), 0);
    assert_int_equal(r.schema, 1);
    assert_int_equal(r.is_merge, 0);
    assert_int_equal(r.pid, 42);
    assert_string_equal(r.command, "python train.py 12345678901234567890123"); /* string kept */
    assert_string_equal(r.hostname, "node7");
    assert_int_equal(r.rank, 3);
    assert_int_equal(r.local_rank, 1);
    assert_int_equal(r.world_size, 8);
    assert_string_equal(r.launcher, "torchrun");
    assert_true(fabs(r.wall_seconds - 12.5) < 1e-12);
    assert_int_equal(r.totals.gemm_calls, 7);
    assert_int_equal(r.totals.failed_calls, 1);
    /* 7 calls of 2*64*32*16 = 65,536 FLOPs = 458,752 */
    assert_true(r.totals.gemm_flops == (fc_u128)7 * 2 * 64 * 32 * 16);
    assert_int_equal(r.n_by_api, 1);
    assert_string_equal(r.by_api[0].name, "sgemm_");
    assert_int_equal(r.n_shapes, 1);
    assert_int_equal(r.shapes[0].m, 64);
    assert_int_equal(r.shapes[0].k, 16);
    assert_int_equal(r.shapes[0].transb, 'T');
    assert_string_equal(r.shapes[0].compute, "");
    assert_false(r.has_iterations);
    assert_false(r.has_utilization);
    fc_report_free(&r);
}

static void test_past_two_pow_64(void **state)
{
    (void)state;
    fc_report r;
    char err[256];
    assert_int_equal(parse(report_with(TWO64_PLUS_1, NULL), &r, err, sizeof err), 0);
    assert_true(r.totals.gemm_flops == two_pow(64) + 1);
    assert_true(r.by_api[0].flops == two_pow(64) + 1);
    fc_report_free(&r);
    assert_int_equal(parse(report_with(TWO100, NULL), &r, err, sizeof err), 0);
    assert_true(r.totals.gemm_flops == two_pow(100));
    fc_report_free(&r);
    assert_int_equal(parse(report_with(U128_MAX_TEXT, NULL), &r, err, sizeof err), 0);
    assert_true(r.totals.gemm_flops == FC_U128_MAX);
    fc_report_free(&r);
    /* 10^18 has 19 digits: quoted, yet still exact */
    assert_int_equal(parse(report_with("1000000000000000000", NULL), &r, err, sizeof err), 0);
    assert_true(r.totals.gemm_flops == (fc_u128)1000000000000000000ull);
    fc_report_free(&r);
    /* 2^128 does not fit: refused, not wrapped to 0 */
    assert_int_equal(parse(report_with(TWO128_TEXT, NULL), &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "totals.gemm_flops"));
}

static void test_quoting(void **state)
{
    (void)state;
    const char *in = "{\"a\": 12345678901234567890, \"b\": \"x\\\"12345678901234567890\","
                     " \"c\": 1.5e30, \"d\": -12345678901234567890, \"e\": [1234567890123456789],"
                     " \"f\": 123456789012345678, \"g\": 12345678901234567890.5}";
    const char *want = "{\"a\": \"12345678901234567890\", \"b\": \"x\\\"12345678901234567890\","
                       " \"c\": 1.5e30, \"d\": -12345678901234567890, \"e\": [\"1234567890123456789\"],"
                       " \"f\": 123456789012345678, \"g\": 12345678901234567890.5}";
    size_t n = 0;
    char *out = fc_report_quote_big_ints(in, strlen(in), &n);
    assert_non_null(out);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
    free(out);
}

static void test_sections(void **state)
{
    (void)state;
    const char *extra =
        "\"iterations\": {\"count\": 2, \"detected_by\": \"repeat\", \"median_seconds\": 0.25,"
        " \"list\": [{\"index\": 1, \"start_seconds\": 1.0, \"seconds\": 0.25, \"flops\": " TWO64_PLUS_1
        ", \"forward_flops\": 6, \"backward_flops\": 12, \"recompute_flops\": 0},"
        " {\"index\": 2, \"start_seconds\": 1.25, \"seconds\": null, \"flops\": 18}]},\n"
        " \"eval_passes\": {\"count\": 1, \"flops\": 6},\n"
        " \"recompute\": {\"flops\": 0, \"fraction\": 0.0},\n"
        " \"utilization\": {\"peak_flops\": 9.894e14, \"hfu\": 0.5, \"mfu\": null},\n"
        " \"callsites\": [{\"x\": 1}, {\"x\": 2}, {\"x\": 3}], \"future_member\": {\"a\": [1]}";
    fc_report r;
    char err[256];
    assert_int_equal(parse(report_with("42", extra), &r, err, sizeof err), 0);
    assert_true(r.has_iterations);
    assert_int_equal(r.iterations.count, 2);
    assert_string_equal(r.iterations.detected_by, "repeat");
    assert_int_equal(r.iterations.n_list, 2);
    assert_true(r.iterations.list[0].flops == two_pow(64) + 1);
    assert_true(r.iterations.list[0].backward_flops == 12);
    assert_int_equal(r.iterations.list[1].index, 2);
    assert_true(isnan(r.iterations.list[1].seconds)); /* null: time unknown */
    assert_true(r.has_eval && r.eval_passes.flops == 6);
    assert_true(r.has_recompute && r.recompute.fraction == 0.0);
    assert_true(r.has_utilization && fabs(r.utilization.peak_flops - 9.894e14) < 1.0);
    assert_true(isnan(r.utilization.mfu));
    assert_int_equal(r.n_callsites, 3);
    fc_report_free(&r);
}

/* The sections as the shim writes them: "utilization" null with a reason,
 * "callsites" an object with a "top" array, an open-ended last iteration. */
static void test_shim_layout(void **state)
{
    (void)state;
    const char *extra =
        "\"iterations\": {\"count\": 3, \"detected_by\": \"auto\", \"method\": \"m\","
        " \"median_seconds\": null, \"flops\": 30, \"forward_flops\": 10, \"backward_flops\": 20,"
        " \"recompute_flops\": 0, \"other_flops\": 4, \"detector\": {\"segments\": 3},"
        " \"list_truncated\": false, \"list\": ["
        "{\"index\": 1, \"seconds\": 0.5, \"flops\": 10, \"calls\": 2},"
        "{\"index\": 2, \"seconds\": 0.25, \"flops\": 10, \"calls\": 2},"
        "{\"index\": 3, \"seconds\": 0.25, \"flops\": 10, \"calls\": 2},"
        "{\"index\": 4, \"seconds\": 0.01, \"flops\": 3, \"calls\": 1, \"open_end\": true}]},\n"
        " \"eval_passes\": {\"count\": 0, \"flops\": 0, \"seconds\": 0},\n"
        " \"utilization\": null, \"utilization_reason\": \"no peak known\",\n"
        " \"callsites\": {\"method\": \"stack\", \"unattributed_flops\": 0,"
        " \"top\": [{\"flops\": 1, \"frames\": [\"a\"]}, {\"flops\": 2, \"frames\": []}]}";
    fc_report r;
    char err[256];
    assert_int_equal(parse(report_with("33", extra), &r, err, sizeof err), 0);
    assert_false(r.has_utilization);
    assert_string_equal(r.utilization_reason, "no peak known");
    assert_int_equal(r.n_callsites, 2);
    assert_true(isnan(r.iterations.median_seconds));
    assert_true(r.iterations.other_flops == 4);
    assert_int_equal(r.iterations.n_list, 4);
    assert_true(r.iterations.list[3].open_end && !r.iterations.list[2].open_end);
    assert_int_equal(r.iterations.list[0].calls, 2);
    /* steady: drop the warm-up (index 1) and the open-ended last (index 4) */
    size_t from, to;
    fc_report_steady(r.iterations.list, r.iterations.n_list, &from, &to);
    assert_int_equal(from, 1);
    assert_int_equal(to, 3);
    fc_report_steady(r.iterations.list, 1, &from, &to); /* one iteration: kept */
    assert_int_equal(from, 0);
    assert_int_equal(to, 1);
    fc_report_steady(r.iterations.list + 2, 2, &from, &to); /* two: the first goes; one left */
    assert_int_equal(from, 1);
    assert_int_equal(to, 2);
    fc_report_free(&r);
}

/* Each must be refused with a reason containing the given words. */
static void test_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *text, *words;
    } bad[] = {
        {"", "not valid JSON"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2}", "not valid JSON"},
        {"{\"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2}}", "no \"schema\""},
        {"{\"schema\": 2, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2}}", "schema 2"},
        {"{\"schema\": \"1\", \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2}}", "schema"},
        {"[1, 2]", "top level"},
        {"{\"schema\": 1}", "totals"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1}}", "totals.gemm_flops: missing"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": -5}}", "non-negative"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2.5}}", "non-negative"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": \"12x\"}}", "non-negative"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2}} xyz", "JSON"},
        {"{\"schema\": 1, \"kind\": \"other\", \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2}}",
         "kind"},
        {"{\"schema\": 1, \"tool\": {\"name\": \"other\"}, \"totals\": {\"gemm_calls\": 1,"
         " \"gemm_flops\": 2}}", "tool.name"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2}, \"shapes\": {}}",
         "shapes"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2}, \"iterations\":"
         " {\"list\": [{\"seconds\": 1}]}}", "iterations.list[].flops"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2}, \"process\":"
         " {\"rank\": \"3\"}}", "process.rank"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2},"
         " \"wall_seconds\": 1e999}", "wall_seconds"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2},"
         " \"callsites\": 5}", "callsites"},
        {"{\"schema\": 1, \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 2},"
         " \"iterations\": {\"list\": [{\"flops\": 1, \"open_end\": 1}]}}", "open_end"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fc_report r;
        char err[256] = "unset";
        int rc = parse(bad[i].text, &r, err, sizeof err);
        if (rc != -1 || strstr(err, bad[i].words) == NULL)
            fail_msg("case %zu: rc %d, reason '%s', wanted '%s'", i, rc, err, bad[i].words);
        assert_null(r.command); /* nothing left allocated */
        fc_report_free(&r);
    }
}

/* A NUL byte inside the text, and every truncation of a good report: no
 * crash, and only the full text parses. */
static void test_truncations_and_nul(void **state)
{
    (void)state;
    const char *good = report_with("458752", NULL);
    size_t n = strlen(good);
    char *copy = malloc(n);
    assert_non_null(copy);
    memcpy(copy, good, n);
    char err[256];
    fc_report r;
    for (size_t len = 0; len < n - 2; len++) { /* the last 2 bytes are "}\n" */
        assert_int_equal(fc_report_parse(copy, len, &r, err, sizeof err), -1);
        fc_report_free(&r);
    }
    assert_int_equal(fc_report_parse(copy, n, &r, err, sizeof err), 0);
    fc_report_free(&r);
    copy[20] = '\0';
    assert_int_equal(fc_report_parse(copy, n, &r, err, sizeof err), -1);
    fc_report_free(&r);
    free(copy);
}

static void test_load_errors(void **state)
{
    (void)state;
    fc_report r;
    char err[256];
    assert_int_equal(fc_report_load("/nonexistent/flopcount/x.json", &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot open"));
    fc_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_report),   cmocka_unit_test(test_past_two_pow_64),
        cmocka_unit_test(test_quoting),        cmocka_unit_test(test_sections),
        cmocka_unit_test(test_refusals),       cmocka_unit_test(test_truncations_and_nul),
        cmocka_unit_test(test_load_errors),    cmocka_unit_test(test_shim_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
