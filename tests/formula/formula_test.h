/* SPDX-License-Identifier: Apache-2.0 */
/* formula_test.h - what the formula's cmocka tests share (test_formula.c,
 * test_formula_kinds.c, test_hfconfig_kinds.c, test_formula_peer.c): one
 * GEMM's FLOPs from its shape, a checked formula run, an exact comparison
 * of 128-bit counts (each below 2^64, which it checks too, since cmocka
 * compares 64-bit integers). Include after cmocka.h, once per program. */
#ifndef FC_TEST_FORMULA_TEST_H
#define FC_TEST_FORMULA_TEST_H

#include "../analysis/formula.h"

/* A GEMM of op(A) m x k by op(B) k x n: m*n multiply-adds of length k. */
static inline fc_u128 gemm(int64_t m, int64_t n, int64_t k)
{
    return 2 * (fc_u128)m * (fc_u128)n * (fc_u128)k;
}

/* The formula of a model that must pass fc_model_check. */
static inline fc_flops run(const fc_model *m)
{
    char err[200] = "";
    int rc = fc_model_check(m, err, sizeof err);
    if (rc != 0)
        print_message("fc_model_check: %s\n", err);
    assert_int_equal(rc, 0);
    fc_flops f;
    fc_formula(m, &f);
    assert_int_equal(f.overflow, 0);
    return f;
}

#define EQ(a, b)                                                                                   \
    do {                                                                                           \
        fc_u128 a_ = (a), b_ = (b);                                                                \
        if (a_ != b_)                                                                              \
            print_message("%s = %llu, want %llu\n", #a, (unsigned long long)a_,                    \
                          (unsigned long long)b_);                                                 \
        assert_true(a_ == b_);                                                                     \
        assert_true((a_ >> 64) == 0);                                                              \
        assert_int_equal((uint64_t)a_, (uint64_t)b_);                                              \
    } while (0)

#ifdef FC_HFCONFIG_H
/* A config that must be refused with one line holding needle, leaving the
 * caller's model as it was and nothing found. */
static inline void expect_parse_error(const char *json, const char *needle)
{
    fc_model m;
    memset(&m, 0, sizeof m);
    m.layers = 7; /* must survive a failed parse */
    char err[300] = "";
    unsigned found = 99;
    int rc = fc_hfconfig_parse(json, strlen(json), &m, &found, err, sizeof err);
    if (rc == 0 || strstr(err, needle) == NULL)
        print_message("for %s\nerror was: %s\n", json, err);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, needle));
    assert_null(strchr(err, '\n'));
    assert_int_equal(m.layers, 7);
    assert_int_equal(found, 0);
}

/* A config that must parse; its model. */
static inline fc_model parse_ok(const char *json, unsigned *found)
{
    fc_model m;
    memset(&m, 0, sizeof m);
    char err[300] = "";
    int rc = fc_hfconfig_parse(json, strlen(json), &m, found, err, sizeof err);
    if (rc != 0)
        print_message("%s\n", err);
    assert_int_equal(rc, 0);
    return m;
}
#endif

#endif
