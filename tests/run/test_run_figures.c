/* SPDX-License-Identifier: Apache-2.0 */
/* test_run_figures.c - the run's figures (analysis/run/run_figures.h) by
 * hand: the medians of the steady iterations, the recompute of the sure
 * ones (a guessed one never moves it), the guess when none is sure, and
 * HFU/MFU's one expression. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "run_figures.h"

static void get(const void *ctx, size_t i, fc_fig_iter *out)
{
    *out = ((const fc_fig_iter *)ctx)[i];
}

#define IT(f, r, x, s, guess) \
    {.flops = (f), .forward = (f) / 3, .recompute = (r), .xs = (x), .seconds = (s), \
     .micro = 1, .unsure = (guess), .unsure_recompute = (guess)}

/* Steady iterations 1..4 of 5: one sure with recompute 100, three guessed
 * with 0. Of the sure: 100 (of all four, sorted 0 0 0 100, the lower
 * middle would be 0). FLOPs 900 1200 600 300 -> sorted 300 600 900 1200,
 * lower middle 600; seconds 2 3 1 4 -> 2. */
static void test_sure_recompute_wins(void **state)
{
    (void)state;
    fc_fig_iter l[] = {IT(5000, 7, 0, 9.0, 0), IT(900, 100, 10, 2.0, 0), IT(1200, 0, 20, 3.0, 1),
                       IT(600, 0, 30, 1.0, 1), IT(300, 0, 40, 4.0, 1)};
    fc_u128 u[4];
    double s[4];
    fc_fig_medians m;
    fc_fig_medians_of(get, l, 1, 5, u, s, &m);
    assert_int_equal(m.n, 4);
    assert_int_equal(m.n_unsure, 3);
    assert_int_equal(m.n_unsure_recompute, 3);
    assert_true(m.recompute == 100);
    assert_false(m.recompute_guessed);
    assert_true(m.flops == 600);
    assert_true(m.forward == 200); /* 300 400 200 100 -> 100 200 300 400 */
    assert_true(m.xs == 20);       /* 10 20 30 40 */
    assert_true(m.seconds == 2.0);
    assert_int_equal(m.micro, 1);
}

/* None sure: the median of all (sorted 0 50 70 -> 50), a guess. */
static void test_none_sure_is_a_guess(void **state)
{
    (void)state;
    fc_fig_iter l[] = {IT(100, 70, 0, 1.0, 1), IT(100, 0, 0, 1.0, 1), IT(100, 50, 0, NAN, 1)};
    fc_u128 u[3];
    double s[3];
    fc_fig_medians m;
    fc_fig_medians_of(get, l, 0, 3, u, s, &m);
    assert_true(m.recompute == 50);
    assert_true(m.recompute_guessed);
    assert_int_equal(m.n_timed, 2); /* NaN left out of the time */
    assert_true(m.seconds == 1.0);
}

/* A doubt between forward and backward only does not make recompute a
 * guess; no iterations: NaN time, zero FLOPs. */
static void test_split_doubt_and_empty(void **state)
{
    (void)state;
    fc_fig_iter l[] = {IT(100, 30, 0, 1.0, 0), IT(100, 10, 0, 1.0, 0)};
    l[1].unsure = 1; /* unsure_recompute stays 0 */
    fc_u128 u[2];
    double s[2];
    fc_fig_medians m;
    fc_fig_medians_of(get, l, 0, 2, u, s, &m);
    assert_int_equal(m.n_unsure, 1);
    assert_int_equal(m.n_unsure_recompute, 0);
    assert_true(m.recompute == 10); /* both sure: 10 30 -> 10 */
    assert_false(m.recompute_guessed);
    fc_fig_medians_of(get, l, 1, 1, u, s, &m);
    assert_int_equal(m.n, 0);
    assert_true(isnan(m.seconds));
    assert_true(m.flops == 0);
}

/* HFU 1000 / (2 s x 2 x 100) = 2.5; MFU (1000 - 100 - 300) / 400 = 1.5;
 * model FLOPs never below 0; NaN without a peak. */
/* The merge's two medians of a rank, by hand on the list above: FLOPs
 * 900 1200 600 300 -> 600, seconds 2 3 1 4 -> 2; a list with one time
 * missing (NaN left out: 3 1 -> lower middle 1) and none timed (NaN). */
static void test_time_flops_only(void **state)
{
    (void)state;
    fc_fig_iter l[] = {IT(5000, 7, 0, 9.0, 0), IT(900, 100, 10, 2.0, 0), IT(1200, 0, 20, 3.0, 1),
                       IT(600, 0, 30, 1.0, 1), IT(300, 0, 40, 4.0, 1)};
    fc_u128 u[5], flops = 7;
    double s[5], seconds = 0;
    fc_fig_median_time_flops(get, l, 1, 5, u, s, &seconds, &flops);
    assert_true(flops == 600 && seconds == 2.0);
    l[1].seconds = NAN;
    l[4].seconds = NAN;
    fc_fig_median_time_flops(get, l, 1, 5, u, s, &seconds, &flops);
    assert_true(flops == 600 && seconds == 1.0);
    for (int i = 0; i < 5; i++)
        l[i].seconds = NAN;
    fc_fig_median_time_flops(get, l, 0, 5, u, s, &seconds, &flops);
    assert_true(flops == 900 && isnan(seconds)); /* 5000 900 1200 600 300 -> 900 */
    fc_fig_median_time_flops(get, l, 2, 2, u, s, &seconds, &flops);
    assert_true(flops == 0 && isnan(seconds)); /* nothing: as fc_fig_medians_of */
}

static void test_utilization(void **state)
{
    (void)state;
    double h, m;
    fc_fig_utilization(1000, 100, 300, 2.0, 2, 100.0, &h, &m);
    assert_true(h == 2.5);
    assert_true(m == 1.5);
    assert_true(fc_fig_model_flops(100, 80, 80) == 0);
    fc_fig_utilization(1000, 0, 0, 2.0, 1, 0.0, &h, &m);
    assert_true(isnan(h) && isnan(m));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sure_recompute_wins),
        cmocka_unit_test(test_none_sure_is_a_guess),
        cmocka_unit_test(test_split_doubt_and_empty),
        cmocka_unit_test(test_time_flops_only),
        cmocka_unit_test(test_utilization),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
