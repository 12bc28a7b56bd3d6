/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublas_big.c - dimensions beyond 32 bits through the _64 entry
 * points (tests/cublas/fixture_nop_cublas.c: success, no arithmetic). The hot path queues
 * calls with 32-bit dimensions and hands the rest to the caller-side
 * counting; both must give exact FLOPs and exact shapes, whichever way a
 * call went, and readers must see queued calls at once.
 *
 * By hand, 2*m*n*k*batch:
 *   2,000 calls m=3 n=5 k=2:                 60 each -> 120,000
 *   m=3,000,000,000 n=4 k=5:                            120,000,000,000
 *   strided m=n=k=2, batch 4,294,967,296 (2^32):         68,719,476,736
 *   m=2,147,483,647 (INT32_MAX) n=k=1:                    4,294,967,294
 *   m=2,147,483,648 (INT32_MAX + 1) n=k=1:                4,294,967,296
 * Total: 2,004 calls, 197,309,531,326 FLOPs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <cublas_api.h>
#include <json-c/json.h>

#include "emu/cublas_emu_check.h"

static const cublasOperation_t N_ = CUBLAS_OP_N;

static void small_calls(int n)
{
    static float x[16];
    float one = 1, zero = 0;
    for (int i = 0; i < n; i++)
        assert_int_equal(cublasSgemm_v2_64(NULL, N_, N_, 3, 5, 2, &one, x, 3, x, 2, &zero, x, 3),
                         CUBLAS_STATUS_SUCCESS);
}

static void big_dimensions(void **state)
{
    (void)state;
    static float x[16];
    float one = 1, zero = 0;
    ck_totals t0 = ck_totals_now();
    small_calls(1000);
    ck_expect_delta(&t0, 1000, 60000, 0, 0); /* queued calls are seen at once */
    assert_int_equal(cublasSgemm_v2_64(NULL, N_, N_, 3000000000ll, 4, 5, &one, x, 3000000000ll, x,
                                       5, &zero, x, 3000000000ll),
                     CUBLAS_STATUS_SUCCESS);
    assert_int_equal(cublasSgemmStridedBatched_64(NULL, N_, N_, 2, 2, 2, &one, x, 2, 0, x, 2, 0,
                                                  &zero, x, 2, 0, 4294967296ll),
                     CUBLAS_STATUS_SUCCESS);
    assert_int_equal(cublasSgemm_v2_64(NULL, N_, N_, 2147483647ll, 1, 1, &one, x, 2147483647ll, x,
                                       1, &zero, x, 2147483647ll),
                     CUBLAS_STATUS_SUCCESS);
    assert_int_equal(cublasSgemm_v2_64(NULL, N_, N_, 2147483648ll, 1, 1, &one, x, 2147483648ll, x,
                                       1, &zero, x, 2147483648ll),
                     CUBLAS_STATUS_SUCCESS);
    small_calls(1000);
    ck_expect_delta(&t0, 2004, 197309531326ull, 0, 0);

    struct json_object *r = ck_report();
    ck_want small = {"cublasSgemm_v2_64", 3, 5, 2, 1, 'N', 'N', "fp32", "fp32", NULL, 2000, 0,
                     120000};
    ck_expect_shape(r, &small);
    ck_want rows = {"cublasSgemm_v2_64", 3000000000ll, 4, 5, 1, 'N', 'N', "fp32", "fp32", NULL,
                    1, 0, 120000000000ull};
    ck_expect_shape(r, &rows);
    ck_want batch = {"cublasSgemmStridedBatched_64", 2, 2, 2, 4294967296ll, 'N', 'N', "fp32",
                     "fp32", NULL, 1, 0, 68719476736ull};
    ck_expect_shape(r, &batch);
    ck_want edge = {"cublasSgemm_v2_64", 2147483647ll, 1, 1, 1, 'N', 'N', "fp32", "fp32", NULL,
                    1, 0, 4294967294ull};
    ck_expect_shape(r, &edge);
    ck_want past = {"cublasSgemm_v2_64", 2147483648ll, 1, 1, 1, 'N', 'N', "fp32", "fp32", NULL,
                    1, 0, 4294967296ull};
    ck_expect_shape(r, &past);
    assert_int_equal(ck_total(r, "gemm_calls"), 2004);
    assert_int_equal(ck_total(r, "distinct_shapes"), 5);
    json_object_put(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(big_dimensions)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
