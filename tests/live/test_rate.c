/* SPDX-License-Identifier: Apache-2.0 */
/* test_rate.c - the live line's rate unit (analysis/rate.c): the prefix
 * that fits the rate, at the boundaries 1e9, 1e12 and 1e15 FLOP/s and at
 * rates that round up across them; the CPU job at 3.6 GFLOP/s,
 * which a fixed TFLOP/s unit printed as "0.00 TFLOP/s". */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rate.h"

static void expect(double rate, const char *want)
{
    char b[32];
    assert_string_equal(fc_rate_text(rate, b, sizeof b), want);
}

static void test_boundaries(void **state)
{
    (void)state;
    expect(1e9, "1.00 GFLOP/s");
    expect(1e12, "1.00 TFLOP/s");
    expect(1e15, "1.00 PFLOP/s");
    expect(1e18, "1.00 EFLOP/s");
    expect(999e9, "999 GFLOP/s");
    expect(999.4e12, "999 TFLOP/s");
}

static void test_rounding_crosses_the_prefix(void **state)
{
    (void)state;
    expect(999.6e9, "1.00 TFLOP/s");
    expect(999.96e12, "1.00 PFLOP/s");
    expect(9.996e9, "10.0 GFLOP/s");
    expect(99.96e12, "100 TFLOP/s");
}

static void test_everyday_rates(void **state)
{
    (void)state;
    expect(3.6e9, "3.60 GFLOP/s"); /* a CPU job */
    expect(156.4e12, "156 TFLOP/s");
    expect(312e12, "312 TFLOP/s");
    expect(4.83e6, "4.83 MFLOP/s");
    expect(12.0, "12.0 FLOP/s");
    expect(2.5e21, "2500 EFLOP/s"); /* no prefix beyond E */
}

static void test_nothing_to_show(void **state)
{
    (void)state;
    expect(0, "0 FLOP/s");
    expect(-1, "0 FLOP/s");
    expect(NAN, "0 FLOP/s");
    expect(INFINITY, "0 FLOP/s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_rounding_crosses_the_prefix),
        cmocka_unit_test(test_everyday_rates),
        cmocka_unit_test(test_nothing_to_show),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
