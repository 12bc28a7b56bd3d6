/* SPDX-License-Identifier: Apache-2.0 */
/* test_dlsym_early.c - a GEMM looked up with dlsym and run by the
 * constructor of a library this program links (fixture_ctor_dlsym.c): that
 * constructor runs before the preloaded shim's, so the shim's dlsym works
 * before the shim is initialised. The call must have been forwarded (its
 * result is right) and counted: 1 call, 2*1*1*1 = 2 FLOPs.
 * (run under LD_PRELOAD=libflopcount.so, FC_DLSYM_CTOR_CUBLAS set) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "emu/cublas_emu_check.h"

extern int fc_ctor_dlsym_result;

static void test_constructor_gemm_counted(void **state)
{
    (void)state;
    assert_int_equal(fc_ctor_dlsym_result, 1);
    ck_totals t = ck_totals_now();
    assert_int_equal(t.calls, 1);
    assert_int_equal(t.flops, 2);
    ck_expect(&(ck_want){"cublasSgemm_v2", 1, 1, 1, 1, 'N', 'N', "fp32", "fp32", NULL, 1, 0, 2});
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_constructor_gemm_counted)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
