/* SPDX-License-Identifier: Apache-2.0 */
/* test_snapshot_abi.c - flopcount_snapshot_get keeps its old callers
 * working: a program built against a copy of the version-1 struct (below,
 * as include/flopcount.h had it) gets its fields filled and not one byte
 * past its size written; a caller from the future (a larger size) gets
 * today's fields and nothing past them; a size below version 1 is refused.
 * Run under LD_PRELOAD=libflopcount.so (the function is looked up with
 * dlsym, as a program that does not link the library would), after three
 * sgemm_ calls of 2x3x4: 3 x 2*2*3*4 = 144 FLOPs. With RANK=5 in the
 * environment the version-2 fields say rank 5. A version-2 caller (size
 * 240) gets no version-3 byte. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "flopcount.h"

/* Version 1, exactly as it was published. */
typedef struct snapshot_v1 {
    uint32_t size;
    uint32_t version;
    uint64_t gemm_calls;
    uint64_t gemm_flops_lo;
    uint64_t gemm_flops_hi;
    uint64_t failed_calls;
    uint64_t invalid_calls;
    uint64_t iterations;
} snapshot_v1;

typedef int (*get_fn)(void *);

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

#define FILL 0xA5
#define BIG 1024

static union {
    unsigned char bytes[BIG];
    snapshot_v1 v1;
    flopcount_snapshot v2;
} buf;

static get_fn get(void)
{
    get_fn fn = (get_fn)dlsym(RTLD_DEFAULT, "flopcount_snapshot_get");
    assert_non_null(fn); /* the library is preloaded */
    return fn;
}

static void assert_untouched_from(size_t from)
{
    for (size_t i = from; i < BIG; i++)
        if (buf.bytes[i] != FILL)
            fail_msg("byte %zu past the caller's struct was written", i);
}

static void run_gemms(void **state)
{
    (void)state;
    int m = 2, n = 3, k = 4;
    float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}, c[6];
    float one = 1, zero = 0;
    for (int i = 0; i < 3; i++)
        sgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m, 1, 1);
    /* column-major: C[0][0] = A row 0 . B column 0 = 1; C[0][2] = 1 + 3 + 5 + 7 */
    assert_float_equal(c[0], 1, 0);
    assert_float_equal(c[4], 16, 0);
}

static void version1_caller(void **state)
{
    (void)state;
    assert_int_equal(sizeof(snapshot_v1), 56);
    assert_int_equal(FLOPCOUNT_SNAPSHOT_V1_SIZE, sizeof(snapshot_v1));
    memset(buf.bytes, FILL, sizeof buf.bytes);
    buf.v1.size = sizeof(snapshot_v1);
    assert_int_equal(get()(&buf.v1), 0);
    assert_int_equal(buf.v1.size, sizeof(snapshot_v1)); /* the caller's size is left as it was */
    assert_int_equal(buf.v1.version, FLOPCOUNT_SNAPSHOT_VERSION);
    assert_int_equal(buf.v1.gemm_calls, 3);
    assert_int_equal(buf.v1.gemm_flops_lo, 3 * 2 * 2 * 3 * 4);
    assert_int_equal(buf.v1.gemm_flops_hi, 0);
    assert_int_equal(buf.v1.failed_calls, 0);
    assert_int_equal(buf.v1.invalid_calls, 0);
    assert_int_equal(buf.v1.iterations, 0);
    assert_untouched_from(sizeof(snapshot_v1));
}

static void too_small_or_null(void **state)
{
    (void)state;
    memset(buf.bytes, FILL, sizeof buf.bytes);
    buf.v1.size = sizeof(snapshot_v1) - 1;
    assert_int_equal(get()(&buf.v1), -1);
    assert_int_equal(buf.v1.size, sizeof(snapshot_v1) - 1);
    assert_untouched_from(sizeof buf.v1.size);
    assert_int_equal(get()(NULL), -1);
}

/* A caller built against the version-2 header passes its size, 240: the
 * fields up to eval_passes are filled, the version-3 ones not touched. */
static void version2_caller(void **state)
{
    (void)state;
    assert_int_equal(offsetof(flopcount_snapshot, eval_passes) + sizeof(uint64_t),
                     FLOPCOUNT_SNAPSHOT_V2_SIZE);
    memset(buf.bytes, FILL, sizeof buf.bytes);
    buf.v2.size = FLOPCOUNT_SNAPSHOT_V2_SIZE;
    assert_int_equal(get()(&buf.v2), 0);
    const flopcount_snapshot *s = &buf.v2;
    assert_int_equal(s->size, FLOPCOUNT_SNAPSHOT_V2_SIZE);
    assert_int_equal(s->version, 3);
    assert_int_equal(s->gemm_flops_lo, 144);
    assert_true(s->flags & FLOPCOUNT_SNAPSHOT_DETECTOR);
    assert_int_equal(s->eval_passes, 0);
    assert_int_equal(s->rank, 5);
    assert_untouched_from(FLOPCOUNT_SNAPSHOT_V2_SIZE);
}

/* Today's struct: version 3, the dtype mix of the three fp32 calls (no
 * iteration: shares, no peak, no hfu_mix). */
static void version3_caller(void **state)
{
    (void)state;
    memset(buf.bytes, FILL, sizeof buf.bytes);
    buf.v2.size = sizeof(flopcount_snapshot);
    assert_int_equal(get()(&buf.v2), 0);
    const flopcount_snapshot *s = &buf.v2;
    assert_int_equal(s->version, 3);
    assert_int_equal(s->gemm_calls, 3);
    assert_int_equal(s->gemm_flops_lo, 144);
    assert_true(s->flags & FLOPCOUNT_SNAPSHOT_COUNTING);
    assert_true(s->flags & FLOPCOUNT_SNAPSHOT_DETECTOR);
    /* no iteration: no time, no medians, no utilization */
    assert_false(s->flags & (FLOPCOUNT_SNAPSHOT_LAST_TIME | FLOPCOUNT_SNAPSHOT_MEDIANS |
                             FLOPCOUNT_SNAPSHOT_UTILIZATION));
    assert_int_equal(s->detected_by, FLOPCOUNT_DETECTED_NONE);
    assert_int_equal(s->rank, 5);
    assert_int_equal(s->local_rank, -1);
    assert_int_equal(s->hfu, 0);
    assert_string_equal(s->peak_source, "");
    /* the calls ran in no iteration yet: the detector has not labelled
     * them, so no training FLOPs by dtype either */
    assert_false(s->flags & FLOPCOUNT_SNAPSHOT_MIX);
    assert_true(s->hfu_mix == 0);
    assert_string_equal(s->mix_reason, "");
    assert_int_equal(s->mix_reserved, 0);
    for (uint32_t i = s->mix_count; i < FLOPCOUNT_SNAPSHOT_MIX_MAX; i++) {
        assert_string_equal(s->mix[i].dtype, "");
        assert_true(s->mix[i].share == 0 && s->mix[i].peak_flops == 0);
    }
    assert_untouched_from(sizeof(flopcount_snapshot));
}

static void future_caller(void **state)
{
    (void)state;
    memset(buf.bytes, FILL, sizeof buf.bytes);
    buf.v2.size = BIG;
    assert_int_equal(get()(&buf.v2), 0);
    assert_int_equal(buf.v2.size, BIG);
    assert_int_equal(buf.v2.version, 3); /* tells the caller which fields were filled */
    assert_int_equal(buf.v2.gemm_flops_lo, 144);
    assert_untouched_from(sizeof(flopcount_snapshot));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_gemms),       cmocka_unit_test(version1_caller),
        cmocka_unit_test(too_small_or_null), cmocka_unit_test(version2_caller),
        cmocka_unit_test(version3_caller),   cmocka_unit_test(future_caller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
