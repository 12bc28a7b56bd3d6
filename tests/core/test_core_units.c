/* SPDX-License-Identifier: Apache-2.0 */
/* test_core_units.c - exact 128-bit text, the JSON writer, strict option
 * parsing and dtype names: the pieces every report relies on. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dtype.h"
#include "jsonw.h"
#include "parse.h"
#include "u128.h"

static void u128_text(void **state)
{
    (void)state;
    char b[FC_U128_DIGITS];
    assert_string_equal(fc_u128_to_str(0, b), "0");
    assert_string_equal(fc_u128_to_str(18446744073709551615ull, b), "18446744073709551615");
    fc_u128 two64 = (fc_u128)1 << 64;
    assert_string_equal(fc_u128_to_str(two64, b), "18446744073709551616");
    assert_string_equal(fc_u128_to_str(FC_U128_MAX, b), "340282366920938463463374607431768211455");
    fc_u128 v;
    assert_int_equal(fc_u128_parse("18446744073709551616", 20, &v), 0);
    assert_true(v == two64);
    assert_int_equal(fc_u128_parse("340282366920938463463374607431768211455", 39, &v), 0);
    assert_true(v == FC_U128_MAX);
    assert_int_equal(fc_u128_parse("340282366920938463463374607431768211456", 39, &v), -1);
    assert_int_equal(fc_u128_parse("12a", 3, &v), -1);
    assert_int_equal(fc_u128_parse("", 0, &v), -1);
    assert_int_equal(fc_u128_parse("-1", 2, &v), -1);
}

static void u128_saturates(void **state)
{
    (void)state;
    assert_true(fc_u128_sat_add(FC_U128_MAX, 1) == FC_U128_MAX);
    assert_true(fc_u128_sat_mul(FC_U128_MAX / 2, 3) == FC_U128_MAX);
    /* A GPT-3-sized iteration (3.4e18) times 10,000 iterations passes 2^64 exactly. */
    fc_u128 iter = 3400000000000000000ull;
    fc_u128 run = 0;
    for (int i = 0; i < 10000; i++)
        run = fc_u128_sat_add(run, iter);
    char b[FC_U128_DIGITS];
    assert_string_equal(fc_u128_to_str(run, b), "34000000000000000000000");
}

static void u128_si(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(fc_u128_si(48, "FLOP", b, sizeof b), "48 FLOP");
    assert_string_equal(fc_u128_si(999, "FLOP", b, sizeof b), "999 FLOP");
    assert_string_equal(fc_u128_si(25300041728ull, "FLOP", b, sizeof b), "25.30 GFLOP");
    /* 3.4e22 = 34,000 EFLOP... = 34.00 ZFLOP */
    assert_string_equal(fc_u128_si((fc_u128)34000000000000ull * 1000000000ull, "FLOP", b, sizeof b),
                        "34.00 ZFLOP");
}

/* Writes through fc_jw into a temp file and returns its contents. */
static const char *render(void (*fill)(fc_jw *), int pretty)
{
    static char out[4096];
    char path[] = "/tmp/fc_jw_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static fc_jw w;
    fc_jw_init(&w, fd, pretty);
    fill(&w);
    assert_int_equal(fc_jw_finish(&w), 0);
    ssize_t n = pread(fd, out, sizeof out - 1, 0);
    assert_true(n >= 0);
    out[n] = '\0';
    close(fd);
    unlink(path);
    return out;
}

static void fill_doc(fc_jw *w)
{
    fc_jw_obj_begin(w, NULL);
    fc_jw_i64(w, "schema", 1);
    fc_jw_u128(w, "big", ((fc_u128)1 << 64) + 5);
    fc_jw_str(w, "s", "a\"b\\c\n\x01");
    fc_jw_double(w, "half", 0.5);
    fc_jw_double(w, "nan", 0.0 / 0.0);
    fc_jw_arr_begin(w, "empty");
    fc_jw_arr_end(w);
    fc_jw_arr_begin(w, "list");
    fc_jw_i64(w, NULL, -3);
    fc_jw_bool(w, NULL, 1);
    fc_jw_null(w, NULL);
    fc_jw_arr_end(w);
    fc_jw_obj_end(w);
}

static void json_writer(void **state)
{
    (void)state;
    assert_string_equal(render(fill_doc, 0),
                        "{\"schema\":1,\"big\":18446744073709551621,\"s\":\"a\\\"b\\\\c\\n\\u0001\","
                        "\"half\":0.5,\"nan\":null,\"empty\":[],\"list\":[-3,true,null]}");
}

static void fill_tricky_double(fc_jw *w)
{
    fc_jw_arr_begin(w, NULL);
    fc_jw_double(w, NULL, 0.1 + 0.2); /* 0.30000000000000004: needs 17 digits */
    fc_jw_double(w, NULL, 989.4e12);
    fc_jw_arr_end(w);
}

static void json_double_round_trip(void **state)
{
    (void)state;
    assert_string_equal(render(fill_tricky_double, 0), "[0.30000000000000004,9.894e+14]");
}

/* The shortest form fc_jw_double writes, worked out the plain way: the
 * first precision from 6 whose %g reads back (sscanf) as the value. */
static void shortest_by_loop(double v, char *b, size_t size)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(b, size, "%.*g", prec, v);
        double back;
        if (sscanf(b, "%lf", &back) == 1 && back == v)
            return;
    }
}

/* fc_jw_double finds that precision from one 17-digit printing and
 * integer arithmetic (jsonw.c): 20,000 doubles of the kinds a merge
 * writes (ratios like an HFU, sums of tenths, random bits over 10^-25 to
 * 10^25, values a 17-digit tie away) must print as the loop prints them. */
static void json_double_shortest(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        switch (i % 4) {
        case 0: /* a ratio of integers: 4.4e12 / (989.4e12 * 0.1) */
            v = (double)(x % 100000007) / (double)((x >> 32) % 1000003 + 1);
            break;
        case 1: /* a start time: tenths summed */
            v = 0;
            for (uint64_t k = 0; k < x % 97; k++)
                v += 0.1;
            break;
        case 2: { /* any bits with a decimal exponent within +-25 */
            uint64_t bits =
                (x & 0x800FFFFFFFFFFFFFull) | ((uint64_t)(1023 - 83 + (x >> 52) % 166) << 52);
            memcpy(&v, &bits, sizeof v);
            break;
        }
        default: /* the neighbours of round decimals */
            v = nextafter((double)(x % 1000000) / 1e6, (x & 1) ? 1.0 : 0.0);
            break;
        }
        char want[40], got[64];
        shortest_by_loop(v, want, sizeof want);
        fc_jw w;
        fc_jw_init(&w, -1, 0);
        fc_jw_double(&w, NULL, v);
        snprintf(got, sizeof got, "%.*s", (int)w.len, w.buf);
        if (strcmp(got, want) != 0)
            fail_msg("%.17g printed %s, the loop %s", v, got, want);
    }
}

static void parse_strict(void **state)
{
    (void)state;
    int b = 7;
    assert_int_equal(fc_parse_bool("TRUE", &b), 0);
    assert_int_equal(b, 1);
    assert_int_equal(fc_parse_bool("off", &b), 0);
    assert_int_equal(b, 0);
    b = 7;
    assert_int_equal(fc_parse_bool("maybe", &b), -1);
    assert_int_equal(b, 7);
    uint64_t u = 9;
    assert_int_equal(fc_parse_u64("18446744073709551615", UINT64_MAX, &u), 0);
    assert_true(u == UINT64_MAX);
    assert_int_equal(fc_parse_u64("18446744073709551616", UINT64_MAX, &u), -1);
    assert_int_equal(fc_parse_u64("10", 9, &u), -1);
    assert_int_equal(fc_parse_u64("1 ", 100, &u), -1);
    assert_int_equal(fc_parse_u64("-1", 100, &u), -1);
    assert_int_equal(fc_parse_u64("", 100, &u), -1);
    double d = 0;
    assert_int_equal(fc_parse_double("989.4", 0, 1e7, &d), 0);
    assert_true(d == 989.4);
    assert_int_equal(fc_parse_double("1e3", 0, 1e7, &d), 0);
    assert_true(d == 1000.0);
    assert_int_equal(fc_parse_double("nan", 0, 1e7, &d), -1);
    assert_int_equal(fc_parse_double("inf", 0, 1e7, &d), -1);
    assert_int_equal(fc_parse_double("0x10", 0, 1e7, &d), -1);
    assert_int_equal(fc_parse_double("-1", 0, 1e7, &d), -1);
    assert_int_equal(fc_parse_double("5x", 0, 1e7, &d), -1);
}

static void dtype_names(void **state)
{
    (void)state;
    assert_string_equal(fc_dtype_name(FC_DT_FP8_E4M3), "fp8_e4m3");
    assert_int_equal(fc_dtype_from_name("BF16"), FC_DT_BF16);
    assert_int_equal(fc_dtype_from_name("bfloat16"), FC_DT_BF16);
    assert_int_equal(fc_dtype_from_name("fp8"), FC_DT_FP8_E4M3);
    assert_int_equal(fc_dtype_from_name("fp12"), FC_DT_UNKNOWN);
    /* library_types.h values */
    assert_int_equal(fc_dtype_from_cuda(0), FC_DT_FP32);
    assert_int_equal(fc_dtype_from_cuda(14), FC_DT_BF16);
    assert_int_equal(fc_dtype_from_cuda(28), FC_DT_FP8_E4M3);
    assert_int_equal(fc_dtype_from_cuda(29), FC_DT_FP8_E5M2);
    assert_int_equal(fc_dtype_from_cuda(33), FC_DT_FP4_E2M1);
    assert_int_equal(fc_dtype_from_cuda(5), FC_DT_COMPLEX128);
    assert_int_equal(fc_dtype_from_cuda(99), FC_DT_UNKNOWN);
    assert_string_equal(fc_compute_type_name(77), "32F_FAST_TF32");
    assert_true(fc_dtype_is_complex(FC_DT_COMPLEX64));
    assert_false(fc_dtype_is_complex(FC_DT_FP64));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(u128_text),       cmocka_unit_test(u128_saturates), cmocka_unit_test(u128_si),
        cmocka_unit_test(json_writer),     cmocka_unit_test(json_double_round_trip),
        cmocka_unit_test(json_double_shortest),
        cmocka_unit_test(parse_strict),    cmocka_unit_test(dtype_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
