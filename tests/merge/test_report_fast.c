/* SPDX-License-Identifier: Apache-2.0 */
/* test_report_fast.c - the report reader's fast path (analysis/io/
 * report_fast.c, json_scan.c) against the json-c reader it stands in for
 * (fc_report_parse_tree): odd but valid JSON gives the same shapes and
 * iterations, a bad or truncated report the same one-line reason. The
 * values asserted besides are worked out by hand in the comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_fast.h"
#include "report_read.h"

/* A report around the given "shapes" and "iterations" members (either may
 * be "" to leave it out); sep separates the members. */
static char *doc(const char *shapes, const char *iterations, const char *sep)
{
    static char buf[16384];
    snprintf(buf, sizeof buf,
             "{\"schema\":1,%s\"totals\":{\"gemm_calls\":3,\"gemm_flops\":6}%s%s%s%s%s"
             "%s\"status\":\"complete\"}",
             sep, sep, *shapes ? "," : "", shapes, *iterations ? "," : "", iterations, ",");
    return buf;
}

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void same_shape(const fc_report_shape *a, const fc_report_shape *b, size_t i)
{
    if (strcmp(a->api, b->api) || a->overflow != b->overflow || a->m != b->m || a->n != b->n ||
        a->k != b->k || a->batch != b->batch || a->transa != b->transa || a->transb != b->transb ||
        strcmp(a->dtype, b->dtype) || strcmp(a->out_dtype, b->out_dtype) ||
        strcmp(a->compute, b->compute) || a->calls != b->calls ||
        a->failed_calls != b->failed_calls || a->flops != b->flops)
        fail_msg("shapes[%zu] differ (api '%s' / '%s', m %lld / %lld)", i, a->api, b->api,
                 (long long)a->m, (long long)b->m);
}

/* The first row of table f where records a and b differ (-1: none):
 * every row the readers keep, so a row the fast reader skips fails here. */
static int differing_row(const fc_schema_field *f, int n, const void *a, const void *b)
{
    for (int i = 0; i < n; i++) {
        const char *x = (const char *)a + f[i].offset, *y = (const char *)b + f[i].offset;
        if (f[i].type == FC_SCHEMA_TEXT)
            continue; /* not kept */
        if (f[i].type == FC_SCHEMA_DBL ? !same_double(*(const double *)(const void *)x,
                                                      *(const double *)(const void *)y)
            : f[i].type == FC_SCHEMA_STR ? strcmp(x, y) != 0
                                         : memcmp(x, y, f[i].size) != 0)
            return i;
    }
    return -1;
}

static void same_iter(const fc_report_iter *a, const fc_report_iter *b, size_t i)
{
    int r = differing_row(fc_iter_fields, FC_ITER_N, a, b);
    if (r >= 0)
        fail_msg("iterations.list[%zu].%s differ", i, fc_iter_fields[r].name);
    r = differing_row(fc_iter_grouped_fields, FC_ITER_GROUPED_N, a, b);
    if (r >= 0)
        fail_msg("iterations.list[%zu].grouped_imbalance.%s differ", i,
                 fc_iter_grouped_fields[r].name);
}

/* Both readers on text: the same verdict, reason, shapes and list. The
 * fast reader's report is left in *out (the caller frees it). */
static void both(const char *text, size_t len, fc_report *out)
{
    fc_report ref;
    char e1[512] = "", e2[512] = "";
    int rc = fc_report_parse(text, len, out, e1, sizeof e1);
    int rc_ref = fc_report_parse_tree(text, len, &ref, e2, sizeof e2);
    if (rc != rc_ref || strcmp(e1, e2) != 0)
        fail_msg("rc %d '%s' vs reference %d '%s' on: %.*s", rc, e1, rc_ref, e2, (int)len, text);
    if (rc == 0) {
        assert_int_equal(out->n_shapes, ref.n_shapes);
        assert_int_equal(out->iterations.n_list, ref.iterations.n_list);
        assert_int_equal(out->has_iterations, ref.has_iterations);
        assert_int_equal(out->totals.gemm_calls, ref.totals.gemm_calls);
        assert_string_equal(out->status, ref.status);
        for (size_t i = 0; i < ref.n_shapes; i++)
            same_shape(&out->shapes[i], &ref.shapes[i], i);
        for (size_t i = 0; i < ref.iterations.n_list; i++)
            same_iter(&out->iterations.list[i], &ref.iterations.list[i], i);
    }
    fc_report_free(&ref);
}

static const char *const SHAPE =
    "\"shapes\":[{\"api\":\"cublasGemmEx\",\"m\":64,\"n\":32,\"k\":16,\"batch\":1,"
    "\"transa\":\"N\",\"transb\":\"T\",\"dtype\":\"bf16\",\"out_dtype\":\"bf16\","
    "\"compute\":\"fp32\",\"calls\":2,\"failed_calls\":0,\"flops\":131072}]";
static const char *const ITERS =
    "\"iterations\":{\"count\":2,\"list\":[{\"index\":1,\"start_seconds\":0.5,\"seconds\":0.25,"
    "\"gpu_seconds\":0.2,\"flops\":10,\"forward_flops\":4,\"backward_flops\":6,"
    "\"recompute_flops\":0,\"attention_excess_flops\":1,\"calls\":2,\"micro_batches\":3,"
    "\"kind\":\"training\",\"eval_passes\":5,\"ambiguous\":true,\"ambiguous_reason\":\"a guess\","
    "\"ambiguous_recompute\":false},"
    "{\"index\":2,\"seconds\":0.125,\"slowest_rank\":3,\"flops\":10,\"calls\":2,"
    "\"open_end\":true}]}";

/* The plain layout is what the fast path is for: it must take it. */
static void test_fast_path_taken(void **state)
{
    (void)state;
    const char *text = doc(SHAPE, ITERS, "\n ");
    fc_report_fast f;
    assert_int_equal(fc_report_fast_scan(text, strlen(text), &f), 0);
    assert_int_equal(f.n_cut, 2);
    assert_int_equal(f.n_shapes, 1);
    assert_int_equal(f.n_list, 2);
    /* 2 * 64 * 32 * 16 = 65536 FLOPs a call, 2 calls */
    assert_true(f.shapes[0].flops == 131072 && f.shapes[0].transb == 'T');
    assert_true(f.list[1].seconds == 0.125 && f.list[1].open_end && isnan(f.list[1].start_seconds));
    /* every row the writers write is read (the shim's entry, then a merge's) */
    assert_true(f.list[0].gpu_seconds == 0.2 && f.list[0].attention_excess_flops == 1);
    assert_true(f.list[0].micro_batches == 3 && f.list[0].eval_passes == 5);
    assert_string_equal(f.list[0].kind, "training");
    assert_true(f.list[0].ambiguous && !f.list[0].ambiguous_recompute);
    assert_true(f.list[0].slowest_rank == -1 && f.list[1].slowest_rank == 3);
    assert_true(isnan(f.list[1].gpu_seconds) && f.list[1].kind[0] == '\0');
    fc_report_fast_free(&f);
    fc_report r;
    both(text, strlen(text), &r);
    fc_report_free(&r);
}

/* Whitespace, key order, unknown members, escapes, unicode, null, big and
 * real numbers, duplicates: the same as json-c reads them. */
static void test_odd_but_valid(void **state)
{
    (void)state;
    static const struct {
        const char *shapes, *iters, *sep;
    } cases[] = {
        {"\"shapes\" :\t[ {\"flops\" : 8 , \"m\" : 2 ,\"n\":2,\"k\":1,\"api\":\"sgemm_\"} ]",
         "\"iterations\" : {\r\n\"list\" :[\r\n{ \"seconds\" : 1e-3 , \"flops\" : 1 }\r\n] }",
         "\r\n\t"},
        {"\"shapes\":[{\"api\":\"cublas\\u0047emmEx\",\"flops\":1}]", "", ""},
        {"\"shapes\":[{\"api\":\"\xc3\xa9t\xc3\xa9\",\"dtype\":\"fp8_\xe2\x9c\x93\",\"flops\":1,"
         "\"note\":\"a \\\"quoted\\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9 word\","
         "\"\\u006d\":5,\"extra\":{\"deep\":[[1,2,{\"x\":null}],true,false,-0.5e+3]}}]",
         "", " "},
        {"\"shapes\":[{\"m\":1,\"m\":2,\"flops\":3,\"api\":null,\"compute\":null,\"batch\":null}]",
         "\"iterations\":{\"list\":[],\"count\":0}", ""},
        {"\"shapes\":[]",
         "\"iterations\":{\"list\":[{\"flops\":1267650600228229401496703205376,"
         "\"seconds\":123456789.123456789,\"start_seconds\":2.5E+2},{\"flops\":0,"
         "\"seconds\":0,\"ambiguous\":true},{\"flops\":0,\"ambiguous\":true,"
         "\"ambiguous_recompute\":false},{\"flops\":0,\"ambiguous_recompute\":true},"
         "{\"flops\":0,\"seconds\":12345678901234567890123,\"index\":7}]}",
         "  "},
        {"\"shapes\":[{\"flops\":1,\"transa\":\"\",\"transb\":null,\"overflow\":true,"
         "\"m\":-1,\"n\":null}]",
         "\"iterations\":null", ""},
        {"\"shapes\":null", "\"iterations\":{\"list\":{\"not\":\"an array\"}}", ""},
        {"\"shapes\":[{\"flops\":1}],\"shapes\":[{\"flops\":2}]", "", ""},
        {"\"shapes\":[{\"flops\":1,\"api\":\"0123456789012345678901234567890123456789"
         "0123456789\"}]",
         "\"iterations\":{\"list\":[{\"flops\":1}],\"list\":[]}", ""},
        /* 10: the experts' load of an iteration (docs/moe.md), and one cut short */
        {"\"shapes\":[]",
         "\"iterations\":{\"list\":[{\"flops\":4,\"grouped_imbalance\":{\"calls\":2,"
         "\"max\":1.5,\"mean\":1.25}},{\"flops\":5,\"grouped_imbalance\":{\"calls\":1}}]}",
         ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* iterations before shapes too: the cuts come in either order */
        for (int swap = 0; swap < 2; swap++) {
            const char *text = swap ? doc(cases[i].iters, cases[i].shapes, cases[i].sep)
                                    : doc(cases[i].shapes, cases[i].iters, cases[i].sep);
            fc_report r;
            both(text, strlen(text), &r);
            if (i == 1) /* \u0047 is 'G' */
                assert_string_equal(r.shapes[0].api, "cublasGemmEx");
            if (i == 3) /* a key twice: json-c keeps the last */
                assert_int_equal(r.shapes[0].m, 2);
            if (i == 4) { /* 2^100; 12345678901234567890123 quoted, then as a double */
                assert_true(r.iterations.list[0].flops == (fc_u128)1 << 100);
                assert_true(r.iterations.list[0].start_seconds == 250.0);
                assert_true(r.iterations.list[4].index == 7 &&
                            r.iterations.list[4].seconds == 12345678901234567890123.0);
                /* ambiguous without the field: it may move recompute */
                assert_int_equal(r.iterations.list[1].ambiguous_recompute, 1);
                assert_int_equal(r.iterations.list[2].ambiguous_recompute, 0);
                assert_int_equal(r.iterations.list[3].ambiguous_recompute, 0);
                assert_int_equal(r.iterations.list[3].index, 3); /* its position */
            }
            if (i == 10) { /* by hand: the values written, nothing more */
                assert_true(r.iterations.list[0].grouped_calls == 2);
                assert_true(r.iterations.list[0].grouped_max == 1.5 &&
                            r.iterations.list[0].grouped_mean == 1.25);
                assert_true(r.iterations.list[1].grouped_calls == 1 &&
                            r.iterations.list[1].grouped_max == 0);
            }
            if (i == 8) /* api[48]: 47 characters kept */
                assert_int_equal(strlen(r.shapes[0].api), 47);
            fc_report_free(&r);
        }
    }
}

/* What the reader refuses inside the two arrays: refused with json-c's
 * reason, word for word. */
static void test_refusals_same(void **state)
{
    (void)state;
    static const char *const shapes[] = {
        "\"shapes\":[{\"m\":1}]", /* flops missing */
        "\"shapes\":[{\"flops\":-1}]",
        "\"shapes\":[{\"flops\":1.5}]",
        "\"shapes\":[{\"flops\":\"12\"}]", /* a string of digits: taken */
        "\"shapes\":[{\"flops\":1,\"transa\":\"X\"}]",
        "\"shapes\":[{\"flops\":1,\"m\":\"4\"}]",
        "\"shapes\":[{\"flops\":1,\"calls\":18446744073709551616}]", /* 2^64 */
        "\"shapes\":[{\"flops\":1,\"overflow\":1}]",
        "\"shapes\":[{\"flops\":1},7]",
        "\"shapes\":[{\"flops\":01}]",
        "\"shapes\":[{\"flops\":1,}]",
        "\"shapes\":[{\"flops\":1}",
        "\"shapes\":[{\"flops\":1,\"api\":\"a\x01\"}]",
        "\"shapes\":[{\"flops\":1,\"api\":\"\\ud83d\\ude00\"}]",
        "\"shapes\":[{\"flops\":1,\"m\":-0}]",
        "\"iterations\":{\"list\":[{\"flops\":1,\"seconds\":-1}]}",
        "\"iterations\":{\"list\":[{\"flops\":1,\"seconds\":1e999}]}",
        "\"iterations\":{\"list\":[{\"flops\":1,\"seconds\":\"1\"}]}",
        "\"iterations\":{\"list\":[{\"flops\":1,\"open_end\":null}]}",
        "\"iterations\":{\"list\":[{\"flops\":1,\"index\":-3}]}",
        "\"iterations\":{\"list\":[{\"flops\":1}] ]}",
        "\"iterations\":{\"list\":[{\"flops\":1,\"kind\":7}]}",
        "\"iterations\":{\"list\":[{\"flops\":1,\"ambiguous_reason\":true}]}",
        "\"iterations\":{\"list\":[{\"flops\":1,\"slowest_rank\":\"x\"}]}",
        "\"iterations\":{\"list\":[{\"flops\":1,\"micro_batches\":-1}]}",
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const char *text = doc(shapes[i], "", " ");
        fc_report r;
        both(text, strlen(text), &r);
        fc_report_free(&r);
    }
}

/* Every truncation of a report with both arrays: refused, with the
 * reference reader's reason. */
static void test_truncations_same(void **state)
{
    (void)state;
    const char *text = doc(SHAPE, ITERS, "\n  ");
    size_t n = strlen(text);
    for (size_t len = 0; len < n; len++) {
        fc_report r;
        char err[512] = "";
        assert_int_equal(fc_report_parse(text, len, &r, err, sizeof err), -1);
        assert_non_null(strstr(err, "not valid JSON"));
        fc_report_free(&r);
        both(text, len, &r);
        fc_report_free(&r);
    }
}

/* Decimals of 16 to 19 significant digits (a start time such as
 * 6.1000000000000005), which the fast reader rounds by integer arithmetic
 * instead of strtod: each must give json-c's value (strtod's) to the bit.
 * Digits and the point's place from a fixed LCG; ties between two doubles
 * (an odd last mantissa bit plus exactly half) are built in as well. */
static void test_wide_decimals_same(void **state)
{
    (void)state;
    enum { N = 400 };
    size_t cap = 64 + N * 96;
    char *text = malloc(cap);
    assert_non_null(text);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 25; round++) {
        size_t o = (size_t)snprintf(text, cap,
                                    "{\"schema\":1,\"totals\":{\"gemm_calls\":1,\"gemm_flops\":1},"
                                    "\"iterations\":{\"list\":[");
        for (int i = 0; i < N; i++) {
            char digits[24];
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            int nd = 16 + (int)((x >> 33) % 4), before = (int)((x >> 40) % 20);
            uint64_t y = x;
            for (int k = 0; k < nd; k++) {
                y = y * 6364136223846793005ull + 1;
                digits[k] = (char)('0' + (y >> 59) % 10);
            }
            digits[0] = digits[0] == '0' ? '7' : digits[0];
            if (i % 8 == 0) { /* (2^53 + odd) / 2^(k+1): halfway between two doubles */
                int k = (i / 8) % 4;
                uint64_t n53 = (1ull << 53) + 2 * ((x >> 20) % 1000) + 1;
                uint64_t frac = (n53 & ((2ull << k) - 1)), five = 1;
                for (int j = 0; j <= k; j++)
                    five *= 5;
                o += (size_t)snprintf(text + o, cap - o,
                                      "%s{\"start_seconds\":%llu.%0*llu,\"flops\":1}", i ? "," : "",
                                      (unsigned long long)(n53 >> (k + 1)), k + 1,
                                      (unsigned long long)(frac * five));
                continue;
            }
            if (before >= nd - 1) /* 0.000ddd */
                o += (size_t)snprintf(text + o, cap - o,
                                      "%s{\"start_seconds\":0.%.*s%.*s,\"flops\":1}", i ? "," : "",
                                      before - nd + 1, "000000000000000000000", nd, digits);
            else
                o += (size_t)snprintf(text + o, cap - o,
                                      "%s{\"start_seconds\":%.*s.%.*s,\"flops\":1}", i ? "," : "",
                                      before + 1, digits, nd - before - 1, digits + before + 1);
        }
        o += (size_t)snprintf(text + o, cap - o, "]}}");
        fc_report_fast f;
        assert_int_equal(fc_report_fast_scan(text, o, &f), 0); /* the fast path read them */
        assert_int_equal(f.n_list, N);
        fc_report_fast_free(&f);
        fc_report r;
        both(text, o, &r);
        assert_int_equal(r.iterations.n_list, N); /* read, not refused by both */
        fc_report_free(&r);
    }
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_path_taken),    cmocka_unit_test(test_odd_but_valid),
        cmocka_unit_test(test_refusals_same),      cmocka_unit_test(test_truncations_same),
        cmocka_unit_test(test_wide_decimals_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
