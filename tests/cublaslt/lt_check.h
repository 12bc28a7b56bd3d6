/* SPDX-License-Identifier: Apache-2.0 */
/* lt_check.h - reading a flopcount JSON report in the cuBLASLt tests.
 *
 * The test programs run twice: once under the shim, making the calls, and
 * once with --check REPORT, comparing the report written at exit with the
 * counts derived by hand next to each call. These helpers do the reading and
 * fail the current cmocka test on any mismatch. */
#ifndef FC_LT_CHECK_H
#define FC_LT_CHECK_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

/* One expected entry of "shapes" (api cublasLtMatmul). compute NULL means
 * the report's compute is null. */
typedef struct lt_want {
    int64_t m, n, k, batch;
    char transa, transb;
    const char *dtype, *out_dtype, *compute;
    uint64_t calls, failed_calls;
    uint64_t flops;
} lt_want;

/* Parses the report at path; fails the test when it is missing or not a
 * schema-1 flopcount report. Release with json_object_put. */
struct json_object *lt_load(const char *path);

/* totals.<key> as an unsigned integer (fails the test when absent). */
uint64_t lt_total(struct json_object *report, const char *key);

/* by_api.<api>.<key> or by_dtype.<name>.<key>; 0 when the group is absent
 * (the report leaves out groups without successful calls). */
uint64_t lt_group(struct json_object *report, const char *group, const char *name,
                  const char *key);

/* Number of entries in "shapes". */
size_t lt_shape_count(struct json_object *report);

/* Finds the shape entry whose key fields (api, m, n, k, batch, transposes,
 * dtype, out_dtype, compute) equal w's and checks its calls, failed_calls
 * and flops. */
void lt_expect_shape(struct json_object *report, const lt_want *w);

/* Finds the "uncounted" entry called name and checks its reason, its class
 * (gemm_like_uncounted), that its detail holds detail_has (NULL: not
 * checked), its calls and failed_calls. */
void lt_expect_uncounted(struct json_object *report, const char *name, const char *reason,
                         const char *detail_has, uint64_t calls, uint64_t failed);

#endif
