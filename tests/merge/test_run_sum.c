/* SPDX-License-Identifier: Apache-2.0 */
/* test_run_sum.c - the sum of N runs (analysis/run/run_sum.h): totals,
 * rows by name, shapes by their whole key, saturation, order. Every
 * expected value is worked out by hand in the comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run_sum.h"

static fc_report_shape shape(const char *api, int64_t m, int64_t n, int64_t k, char ta,
                             uint64_t calls, fc_u128 flops)
{
    fc_report_shape s = {.m = m,
                         .n = n,
                         .k = k,
                         .batch = 1,
                         .transa = ta,
                         .transb = 'N',
                         .calls = calls,
                         .flops = flops};
    snprintf(s.api, sizeof s.api, "%s", api);
    snprintf(s.dtype, sizeof s.dtype, "bf16");
    return s;
}

static void test_two_runs(void **state)
{
    (void)state;
    /* run A: 3 calls of 64x64x64 (2*64^3 = 524288 FLOPs each) and one of
     * 128x64x64 'T' (1048576); run B: 5 more of the first, one of the same
     * dims with transa 'T' (a different key) */
    fc_report_shape a_shapes[] = {shape("cublasGemmEx", 64, 64, 64, 'N', 3, 3 * 524288),
                                  shape("cublasGemmEx", 128, 64, 64, 'T', 1, 1048576)};
    fc_report_shape b_shapes[] = {shape("cublasGemmEx", 64, 64, 64, 'N', 5, 5 * 524288),
                                  shape("cublasGemmEx", 64, 64, 64, 'T', 1, 524288)};
    fc_report_group a_api[] = {{"cublasGemmEx", 4, 3 * 524288 + 1048576}};
    fc_report_group b_api[] = {{"cublasLtMatmul", 2, 7}, {"cublasGemmEx", 6, 6 * 524288}};
    fc_totals_rec ta = {.gemm_calls = 4,
                        .gemm_flops = 3 * 524288 + 1048576,
                        .failed_calls = 1,
                        .attention_calls = 2,
                        .attention_flops = 100,
                        .counted_flops = 3 * 524288 + 1048576 + 100};
    fc_totals_rec tb = {.gemm_calls = 6,
                        .gemm_flops = 6 * 524288,
                        .invalid_calls = 2,
                        .unresolved_calls = 3,
                        .counted_flops = 6 * 524288};
    fc_run_part a = {.totals = &ta,
                     .by_api = a_api,
                     .n_by_api = 1,
                     .shapes = a_shapes,
                     .n_shapes = 2,
                     .has_recompute = 1,
                     .recompute_flops = 1000,
                     .wall_seconds = 12.5};
    fc_run_part b = {.totals = &tb,
                     .by_api = b_api,
                     .n_by_api = 2,
                     .shapes = b_shapes,
                     .n_shapes = 2,
                     .has_recompute = 0,
                     .recompute_flops = 999,
                     .wall_seconds = NAN};
    fc_run_sum s = {0};
    assert_int_equal(fc_run_sum_add(&s, &a), 0);
    assert_int_equal(fc_run_sum_add(&s, &b), 0);
    fc_run_sum_finish(&s);
    assert_int_equal(s.n_runs, 2);
    assert_int_equal(s.totals.gemm_calls, 10);
    assert_true(s.totals.gemm_flops == 9 * 524288 + 1048576); /* 5767168 */
    assert_int_equal(s.totals.failed_calls, 1);
    assert_int_equal(s.totals.invalid_calls, 2);
    assert_int_equal(s.totals.unresolved_calls, 3);
    assert_int_equal(s.totals.attention_calls, 2);
    assert_true(s.totals.counted_flops == 9 * 524288 + 1048576 + 100);
    assert_true(s.recompute_flops == 1000); /* B has no recompute section */
    assert_true(s.wall_seconds == 12.5);    /* the longest known */
    /* rows by name, in the order first seen */
    assert_int_equal(s.n_by_api, 2);
    assert_string_equal(s.by_api[0].name, "cublasGemmEx");
    assert_int_equal(s.by_api[0].calls, 10);
    assert_string_equal(s.by_api[1].name, "cublasLtMatmul");
    assert_true(s.by_api[1].flops == 7);
    /* three keys: 64^3 N (8 calls, 4194304), 128x64x64 T (1048576), 64^3 T (524288) */
    assert_int_equal(s.n_shapes, 3);
    assert_true(s.shapes[0].m == 64 && s.shapes[0].transa == 'N' && s.shapes[0].calls == 8 &&
                s.shapes[0].flops == 4194304);
    assert_true(s.shapes[1].m == 128 && s.shapes[1].flops == 1048576);
    assert_true(s.shapes[2].m == 64 && s.shapes[2].transa == 'T' && s.shapes[2].flops == 524288);
    fc_run_sum_free(&s);
    assert_null(s.shapes);
}

/* FLOPs saturate at 2^128 - 1; thousands of keys outgrow the index. */
static void test_saturation_and_growth(void **state)
{
    (void)state;
    fc_u128 max = ~(fc_u128)0;
    fc_report_shape one = shape("sgemm_", 1, 1, 1, 'N', 1, max - 1);
    fc_totals_rec t = {.gemm_calls = 1, .gemm_flops = max - 1};
    fc_run_part p = {.totals = &t, .shapes = &one, .n_shapes = 1, .wall_seconds = NAN};
    fc_run_sum s = {0};
    assert_int_equal(fc_run_sum_add(&s, &p), 0);
    assert_int_equal(fc_run_sum_add(&s, &p), 0);
    assert_true(s.totals.gemm_flops == max && s.shapes[0].flops == max);
    assert_int_equal(s.shapes[0].calls, 2);
    assert_true(s.wall_seconds == 0); /* none known */
    fc_run_sum_free(&s);
    /* 5000 distinct m, each twice: 5000 rows of 2 calls, largest m first
     * (2*m FLOPs a call) */
    enum { N = 5000 };
    static fc_report_shape many[N];
    for (int i = 0; i < N; i++)
        many[i] = shape("sgemm_", i + 1, 1, 1, 'N', 1, (fc_u128)(2 * (i + 1)));
    fc_totals_rec tm = {0};
    fc_run_part pm = {.totals = &tm, .shapes = many, .n_shapes = N, .wall_seconds = NAN};
    assert_int_equal(fc_run_sum_add(&s, &pm), 0);
    assert_int_equal(fc_run_sum_add(&s, &pm), 0);
    fc_run_sum_finish(&s);
    assert_int_equal(s.n_shapes, N);
    assert_true(s.shapes[0].m == N && s.shapes[0].flops == 4 * N && s.shapes[0].calls == 2);
    assert_true(s.shapes[N - 1].m == 1 && s.shapes[N - 1].flops == 4);
    fc_run_sum_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_runs),
        cmocka_unit_test(test_saturation_and_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
