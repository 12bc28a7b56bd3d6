/* SPDX-License-Identifier: Apache-2.0 */
/* test_device.c - local GPU detection through a fake libcuda.so.1 (built by
 * tests/peak/peak.cmake, named by FLOPCOUNT_LIBCUDA) and the clock-derived peak,
 * worked out by hand. The fake answers from FAKE_CUDA_* variables. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "device.h"
#include "peak.h"

static char fake_path[4096];    /* FLOPCOUNT_LIBCUDA as ctest set it */
static char partial_path[4096]; /* the fake without cuDeviceGetName */

static int reset(void **state)
{
    (void)state;
    static const char *const vars[] = {
        "FAKE_CUDA_INIT_ERROR", "FAKE_CUDA_COUNT", "FAKE_CUDA_NAME",    "FAKE_CUDA_SMS",
        "FAKE_CUDA_CLOCK_KHZ",  "FAKE_CUDA_CC",    "FAKE_CUDA_NO_CLOCK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    setenv("FLOPCOUNT_LIBCUDA", fake_path, 1);
    return 0;
}

/* Must run first: the fake is not loaded until a plain detect loads it. */
static void test_noload(void **state)
{
    (void)state;
    fc_device_info d;
    char err[256];
    assert_int_equal(fc_device_detect_flags(0, FC_DEVICE_NOLOAD, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "not loaded by this process"));
    assert_int_equal(fc_device_detect(0, &d, err, sizeof err), 0);
    assert_int_equal(fc_device_detect_flags(0, FC_DEVICE_NOLOAD, &d, err, sizeof err), 0);
    assert_string_equal(d.name, "NVIDIA H100 80GB HBM3");
}

/* The fake's defaults are an H100 SXM at its 1980 MHz maximum clock. */
static void test_detect_h100(void **state)
{
    (void)state;
    fc_device_info d;
    char err[256] = "stale";
    assert_int_equal(fc_device_detect(0, &d, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_string_equal(d.name, "NVIDIA H100 80GB HBM3");
    assert_int_equal(d.sm_count, 132);
    assert_int_equal(d.cc_major, 9);
    assert_int_equal(d.cc_minor, 0);
    assert_int_equal(d.clock_khz, 1980000);
    assert_int_equal(d.count, 1);
    const fc_peak_device *p = fc_peak_find(d.name);
    assert_non_null(p);
    assert_string_equal(p->key, "H100-SXM");
    /* 132 x 4096 = 540,672 FLOP/clk; x 1.98e9 Hz = 1,070,530,560,000,000:
     * 8.2% above the table's 989.4e12, which is at 1.83 GHz. */
    assert_true(fc_device_clock_peak(&d, p->flop_per_clk_per_sm_fp16) == 1070530560000000.0);
}

static void test_clock_derived_at_table_clock(void **state)
{
    (void)state;
    fc_device_info d;
    char err[256];
    setenv("FAKE_CUDA_CLOCK_KHZ", "1830000", 1);
    assert_int_equal(fc_device_detect(0, &d, err, sizeof err), 0);
    /* 540,672 x 1,830,000 kHz x 1000 = 989,429,760,000,000 FLOP/s; the
     * table's 989.4 TFLOP/s is this rounded to the data sheet's digits. */
    assert_true(fc_device_clock_peak(&d, 4096) == 989429760000000.0);
}

static void test_detect_a100(void **state)
{
    (void)state;
    fc_device_info d;
    char err[256];
    setenv("FAKE_CUDA_NAME", "NVIDIA A100-SXM4-80GB", 1);
    setenv("FAKE_CUDA_SMS", "108", 1);
    setenv("FAKE_CUDA_CC", "8.0", 1);
    setenv("FAKE_CUDA_CLOCK_KHZ", "1410000", 1);
    setenv("FAKE_CUDA_COUNT", "8", 1);
    assert_int_equal(fc_device_detect(3, &d, err, sizeof err), 0);
    assert_string_equal(d.name, "NVIDIA A100-SXM4-80GB");
    assert_int_equal(d.sm_count, 108);
    assert_int_equal(d.cc_major, 8);
    assert_int_equal(d.cc_minor, 0);
    assert_int_equal(d.count, 8);
    const fc_peak_device *p = fc_peak_find(d.name);
    assert_non_null(p);
    assert_string_equal(p->key, "A100-SXM");
    /* 108 x 2048 = 221,184 FLOP/clk; x 1.41e9 = 311,869,440,000,000 (table 312e12). */
    assert_true(fc_device_clock_peak(&d, p->flop_per_clk_per_sm_fp16) == 311869440000000.0);
}

static void test_cuinit_fails(void **state)
{
    (void)state;
    fc_device_info d;
    char err[256];
    setenv("FAKE_CUDA_INIT_ERROR", "100", 1);
    assert_int_equal(fc_device_detect(0, &d, err, sizeof err), -1);
    assert_string_equal(err, "CUDA driver failed to initialise: no CUDA device (cuInit error 100)");
    setenv("FAKE_CUDA_INIT_ERROR", "34", 1);
    assert_int_equal(fc_device_detect(0, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "stub libcuda"));
}

static void test_no_devices_and_bad_ordinal(void **state)
{
    (void)state;
    fc_device_info d;
    char err[256];
    setenv("FAKE_CUDA_COUNT", "0", 1);
    assert_int_equal(fc_device_detect(0, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "no CUDA device"));
    setenv("FAKE_CUDA_COUNT", "1", 1);
    assert_int_equal(fc_device_detect(1, &d, err, sizeof err), -1);
    assert_string_equal(err, "GPU 1 not present (1 visible)");
    assert_int_equal(fc_device_detect(-1, &d, err, sizeof err), -1);
}

static void test_missing_library(void **state)
{
    (void)state;
    fc_device_info d;
    char err[256];
    setenv("FLOPCOUNT_LIBCUDA", "/nonexistent/flopcount-test/libcuda.so.1", 1);
    errno = EDOM;
    assert_int_equal(fc_device_detect(0, &d, err, sizeof err), -1);
    assert_int_equal(errno, EDOM); /* the host's errno survives */
    assert_string_equal(
        err, "no CUDA driver (FLOPCOUNT_LIBCUDA=/nonexistent/flopcount-test/libcuda.so.1 cannot be "
             "loaded)");
    assert_int_equal(d.sm_count, 0);
    assert_int_equal(d.name[0], '\0');
}

static void test_driver_lacks_symbol(void **state)
{
    (void)state;
    fc_device_info d;
    char err[256];
    setenv("FLOPCOUNT_LIBCUDA", partial_path, 1);
    assert_int_equal(fc_device_detect(0, &d, err, sizeof err), -1);
    assert_string_equal(err, "CUDA driver lacks cuDeviceGetName");
}

static void test_clock_unknown(void **state)
{
    (void)state;
    fc_device_info d;
    char err[256];
    setenv("FAKE_CUDA_NO_CLOCK", "1", 1);
    errno = ERANGE;
    assert_int_equal(fc_device_detect(0, &d, err, sizeof err), 0);
    assert_int_equal(errno, ERANGE);
    assert_int_equal(d.clock_khz, 0);
    assert_int_equal(d.sm_count, 132);
    assert_true(fc_device_clock_peak(&d, 4096) == 0);
}

static void test_clock_peak_edges(void **state)
{
    (void)state;
    fc_device_info d;
    memset(&d, 0, sizeof d);
    d.sm_count = 80;
    d.clock_khz = 1530000;
    /* V100: 80 x 1024 x 1.53e9 = 125,337,600,000,000. */
    assert_true(fc_device_clock_peak(&d, 1024) == 125337600000000.0);
    assert_true(fc_device_clock_peak(&d, 0) == 0);
    assert_true(fc_device_clock_peak(NULL, 1024) == 0);
    d.sm_count = 0;
    assert_true(fc_device_clock_peak(&d, 1024) == 0);
    char err[64];
    assert_int_equal(fc_device_detect(0, NULL, err, sizeof err), -1);
}

int main(void)
{
    const char *f = getenv("FLOPCOUNT_LIBCUDA");
    const char *p = getenv("FAKE_CUDA_PARTIAL_LIB");
    if (f == NULL || p == NULL) {
        fprintf(stderr,
                "test_device: run from ctest (FLOPCOUNT_LIBCUDA, FAKE_CUDA_PARTIAL_LIB unset)\n");
        return 2;
    }
    snprintf(fake_path, sizeof fake_path, "%s", f);
    snprintf(partial_path, sizeof partial_path, "%s", p);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_noload, reset),
        cmocka_unit_test_setup(test_detect_h100, reset),
        cmocka_unit_test_setup(test_clock_derived_at_table_clock, reset),
        cmocka_unit_test_setup(test_detect_a100, reset),
        cmocka_unit_test_setup(test_cuinit_fails, reset),
        cmocka_unit_test_setup(test_no_devices_and_bad_ordinal, reset),
        cmocka_unit_test_setup(test_missing_library, reset),
        cmocka_unit_test_setup(test_driver_lacks_symbol, reset),
        cmocka_unit_test_setup(test_clock_unknown, reset),
        cmocka_unit_test_setup(test_clock_peak_edges, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
