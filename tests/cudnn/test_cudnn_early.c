/* SPDX-License-Identifier: Apache-2.0 */
/* test_cudnn_early.c - cuDNN calls from a library constructor that runs
 * before the shim's (fixture_ctor_cudnn.c): forwarded and counted.
 *   test_cudnn_early run          (under the shim, over the fake cuDNN)
 *   test_cudnn_early --check REPORT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "cudnn_cases.h"

extern int fc_ctor_cudnn_result;

static void test_run(void **state)
{
    (void)state;
    assert_int_equal(fc_ctor_cudnn_result, 1);
}

static void test_check(void **state)
{
    (void)state;
    json_object *r = cc_load(cc_report);
    cc_expect_matmul(r, 1, 0);
    json_object_put(r);
}

int main(int argc, char **argv)
{
    int checked = cc_check_mode(argc, argv, test_check);
    return checked >= 0 ? checked : cc_run_test(test_run);
}
