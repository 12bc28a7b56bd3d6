/* SPDX-License-Identifier: Apache-2.0 */
/* test_fault_input.c - bad input to the CPU BLAS hooks: negative, zero and
 * huge dimensions, NULL pointers, unknown enum values. Each call must reach
 * the BLAS (libfc_fault_blas.so, which rejects nothing) with every argument
 * unchanged, and be counted as the rules say: negative or unreadable
 * dimensions as invalid (no FLOPs), zero dimensions as a valid call with 0
 * FLOPs, unknown transpose letters as a valid call with its FLOPs.
 * Expected FLOPs are worked out by hand in each test. Needs the shim
 * preloaded (flopcount_snapshot_get is found with dlsym). */
#include <dlfcn.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../include/flopcount.h"

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                 float *, int);
extern __thread const void *fault_blas_last[15];

static int (*snap_get)(flopcount_snapshot *);
static flopcount_snapshot before;

static int setup(void **state)
{
    (void)state;
    snap_get = (int (*)(flopcount_snapshot *))dlsym(RTLD_DEFAULT, "flopcount_snapshot_get");
    return snap_get == NULL ? -1 : 0; /* not preloaded: the group fails */
}

static void mark(void)
{
    before.size = sizeof before;
    assert_int_equal(snap_get(&before), 0);
}

/* Checks the change in the counters since mark(). */
static void expect_delta(uint64_t calls, uint64_t invalid, uint64_t flops_hi, uint64_t flops_lo)
{
    flopcount_snapshot now = {.size = sizeof now};
    assert_int_equal(snap_get(&now), 0);
    assert_int_equal(now.gemm_calls - before.gemm_calls, calls);
    assert_int_equal(now.invalid_calls - before.invalid_calls, invalid);
    assert_int_equal(now.failed_calls, before.failed_calls); /* the CPU BLAS cannot fail */
    unsigned __int128 b = ((unsigned __int128)before.gemm_flops_hi << 64) | before.gemm_flops_lo;
    unsigned __int128 n = ((unsigned __int128)now.gemm_flops_hi << 64) | now.gemm_flops_lo;
    unsigned __int128 d = n - b;
    assert_int_equal((uint64_t)(d >> 64), flops_hi);
    assert_int_equal((uint64_t)d, flops_lo);
}

/* Calls sgemm_ and checks that all 15 arguments arrived as passed. */
static void call_sgemm(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                       size_t lta, size_t ltb)
{
    static float alpha = 1, beta = 0, a[4], b[4], c[4];
    static int lda = 1, ldb = 1, ldc = 1;
    const void *want[15] = {ta,
                            tb,
                            m,
                            n,
                            k,
                            &alpha,
                            a,
                            &lda,
                            b,
                            &ldb,
                            &beta,
                            c,
                            &ldc,
                            (const void *)lta,
                            (const void *)ltb};
    sgemm_(ta, tb, m, n, k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, lta, ltb);
    for (int i = 0; i < 15; i++)
        assert_ptr_equal(fault_blas_last[i], want[i]);
}

static void negative_dimensions_are_invalid(void **state)
{
    (void)state;
    int neg = -1, three = 3, big_neg = INT_MIN;
    mark();
    call_sgemm("N", "N", &neg, &three, &three, 1, 1);
    call_sgemm("N", "N", &three, &three, &big_neg, 1, 1);
    expect_delta(0, 2, 0, 0);
}

static void null_dimension_pointers_are_invalid(void **state)
{
    (void)state;
    int two = 2;
    mark();
    call_sgemm("N", "N", NULL, &two, &two, 1, 1);
    call_sgemm("N", "N", &two, NULL, NULL, 1, 1);
    expect_delta(0, 2, 0, 0);
}

static void zero_dimensions_count_zero_flops(void **state)
{
    (void)state;
    int zero = 0, five = 5;
    mark();
    call_sgemm("N", "N", &zero, &five, &five, 1, 1); /* 2*0*5*5 = 0 */
    call_sgemm("T", "N", &five, &five, &zero, 1, 1); /* k = 0: 0 */
    expect_delta(2, 0, 0, 0);
}

static void unknown_transpose_letters_still_count(void **state)
{
    (void)state;
    int m = 2, n = 3, k = 4;
    mark();
    call_sgemm("X", "\x7f", &m, &n, &k, 1, 1); /* 2*2*3*4 = 48 */
    call_sgemm(NULL, NULL, &m, &n, &k, 0, 0);  /* 48 */
    expect_delta(2, 0, 0, 96);
}

static void huge_dimensions_stay_exact(void **state)
{
    (void)state;
    /* 2*(2^31-1)^3 = 2^94 - 3*2^63 + 3*2^32 - 2:
     *   high 64 bits 2^30 - 2            = 1,073,741,822
     *   low  64 bits 2^63 + 3*2^32 - 2   = 9,223,372,049,739,677,694 */
    int max = INT_MAX;
    mark();
    call_sgemm("N", "N", &max, &max, &max, 1, 1);
    expect_delta(1, 0, 1073741822ull, 9223372049739677694ull);
}

static void cblas_unknown_enums_and_negative_sizes(void **state)
{
    (void)state;
    float a[1], b[1], c[1];
    mark();
    /* order 999 and transposes 0/555 are no CBLAS values: forwarded,
     * shape kept: 2*3*4*5 = 120 FLOPs. */
    cblas_sgemm(999, 0, 555, 3, 4, 5, 1.0f, a, 1, b, 1, 0.0f, c, 1);
    assert_ptr_equal(fault_blas_last[0], (const void *)999L);
    assert_ptr_equal(fault_blas_last[1], (const void *)0L);
    assert_ptr_equal(fault_blas_last[2], (const void *)555L);
    assert_ptr_equal(fault_blas_last[7], a);
    assert_ptr_equal(fault_blas_last[12], c);
    cblas_sgemm(102, 111, 111, 3, -4, 5, 1.0f, NULL, 1, NULL, 1, 0.0f, NULL, 1);
    assert_ptr_equal(fault_blas_last[4], (const void *)-4L);
    assert_ptr_equal(fault_blas_last[12], NULL);
    expect_delta(1, 1, 0, 120);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(negative_dimensions_are_invalid),
        cmocka_unit_test(null_dimension_pointers_are_invalid),
        cmocka_unit_test(zero_dimensions_count_zero_flops),
        cmocka_unit_test(unknown_transpose_letters_still_count),
        cmocka_unit_test(huge_dimensions_stay_exact),
        cmocka_unit_test(cblas_unknown_enums_and_negative_sizes),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
