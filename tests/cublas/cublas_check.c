/* SPDX-License-Identifier: Apache-2.0 */
/* cublas_check.c - helpers of the cuBLAS tests (declared in
 * emu/cublas_emu_check.h): the shim's counts read in-process, the report
 * parsed with json-c, the hand-worked GEMM data, fp16/bf16 bits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <dlfcn.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/flopcount.h"
#include "emu/cublas_emu_check.h"

const double ck_a_n[6] = {1, 4, 2, 5, 3, 6};
const double ck_a_t[6] = {1, 2, 3, 4, 5, 6};
const double ck_b_n[12] = {1, 0, 1, 0, 1, 1, 2, 1, 0, 1, 2, 3};
const double ck_b_t[12] = {1, 0, 2, 1, 0, 1, 1, 2, 1, 1, 0, 3};
const double ck_product[8] = {4, 10, 5, 11, 4, 13, 14, 32};
const double ck_c_expect[8] = {9, 21, 11, 23, 9, 27, 29, 65};

void *ck_shim_symbol(const char *name)
{
    void *fn = dlsym(RTLD_DEFAULT, name);
    if (fn == NULL)
        fail_msg("%s not found: run with LD_PRELOAD=libflopcount.so", name);
    return fn;
}

ck_totals ck_totals_now(void)
{
    int (*get)(flopcount_snapshot *) =
        (int (*)(flopcount_snapshot *))ck_shim_symbol("flopcount_snapshot_get");
    flopcount_snapshot s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    assert_int_equal(get(&s), 0);
    assert_int_equal(s.gemm_flops_hi, 0); /* every test total fits 64 bits */
    ck_totals t = {s.gemm_calls, s.gemm_flops_lo, s.failed_calls, s.invalid_calls};
    return t;
}

void ck_expect_delta(const ck_totals *before, uint64_t calls, uint64_t flops, uint64_t failed,
                     uint64_t invalid)
{
    ck_totals now = ck_totals_now();
    assert_int_equal(now.calls - before->calls, calls);
    assert_int_equal(now.flops - before->flops, flops);
    assert_int_equal(now.failed - before->failed, failed);
    assert_int_equal(now.invalid - before->invalid, invalid);
}

struct json_object *ck_report(void)
{
    int (*write_now)(void) = (int (*)(void))ck_shim_symbol("flopcount_write_report");
    const char *path = getenv("FLOPCOUNT_OUTPUT");
    if (path == NULL || *path == '\0')
        fail_msg("FLOPCOUNT_OUTPUT is not set");
    assert_int_equal(write_now(), 0);
    struct json_object *r = json_object_from_file(path);
    if (r == NULL)
        fail_msg("cannot parse %s: %s", path, json_util_get_last_err());
    struct json_object *schema;
    assert_true(json_object_object_get_ex(r, "schema", &schema));
    assert_int_equal(json_object_get_int64(schema), 1);
    return r;
}

static struct json_object *member(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    if (o == NULL || !json_object_object_get_ex(o, key, &v))
        return NULL;
    return v;
}

static uint64_t must_u64(struct json_object *o, const char *key)
{
    struct json_object *v = member(o, key);
    if (v == NULL || !json_object_is_type(v, json_type_int))
        fail_msg("report: %s missing or not an integer", key);
    return json_object_get_uint64(v);
}

uint64_t ck_total(struct json_object *report, const char *key)
{
    return must_u64(member(report, "totals"), key);
}

uint64_t ck_api_calls(struct json_object *report, const char *api)
{
    struct json_object *g = member(member(report, "by_api"), api);
    return g == NULL ? 0 : must_u64(g, "calls");
}

static int str_is(struct json_object *o, const char *key, const char *want)
{
    struct json_object *v = member(o, key);
    if (want == NULL)
        return v == NULL || json_object_is_type(v, json_type_null);
    return v != NULL && json_object_is_type(v, json_type_string) &&
           strcmp(json_object_get_string(v), want) == 0;
}

static int int_is(struct json_object *o, const char *key, int64_t want)
{
    struct json_object *v = member(o, key);
    return v != NULL && json_object_is_type(v, json_type_int) && json_object_get_int64(v) == want;
}

static int same_key(struct json_object *e, const ck_want *w)
{
    char ta[2] = {w->transa, 0}, tb[2] = {w->transb, 0};
    return str_is(e, "api", w->api) && int_is(e, "m", w->m) && int_is(e, "n", w->n) &&
           int_is(e, "k", w->k) && int_is(e, "batch", w->batch) && str_is(e, "transa", ta) &&
           str_is(e, "transb", tb) && str_is(e, "dtype", w->dtype) &&
           str_is(e, "out_dtype", w->out_dtype) && str_is(e, "compute", w->compute);
}

void ck_expect_shape(struct json_object *report, const ck_want *w)
{
    struct json_object *shapes = member(report, "shapes");
    assert_non_null(shapes);
    int found = 0;
    for (size_t i = 0; i < json_object_array_length(shapes); i++) {
        struct json_object *e = json_object_array_get_idx(shapes, i);
        if (!same_key(e, w))
            continue;
        found++;
        if (must_u64(e, "calls") != w->calls || must_u64(e, "failed_calls") != w->failed ||
            must_u64(e, "flops") != w->flops)
            fail_msg("%s m=%lld n=%lld k=%lld batch=%lld %s: calls %llu failed %llu flops "
                     "%llu, expected %llu %llu %llu",
                     w->api, (long long)w->m, (long long)w->n, (long long)w->k,
                     (long long)w->batch, w->dtype, (unsigned long long)must_u64(e, "calls"),
                     (unsigned long long)must_u64(e, "failed_calls"),
                     (unsigned long long)must_u64(e, "flops"), (unsigned long long)w->calls,
                     (unsigned long long)w->failed, (unsigned long long)w->flops);
    }
    if (found != 1)
        fail_msg("%d entries for %s m=%lld n=%lld k=%lld batch=%lld %c%c %s->%s compute %s, "
                 "expected 1",
                 found, w->api, (long long)w->m, (long long)w->n, (long long)w->k,
                 (long long)w->batch, w->transa, w->transb, w->dtype, w->out_dtype,
                 w->compute ? w->compute : "null");
}

int ck_count_shapes(struct json_object *report, const char *api, int64_t m, int64_t n, int64_t k)
{
    struct json_object *shapes = member(report, "shapes");
    int found = 0;
    for (size_t i = 0; shapes != NULL && i < json_object_array_length(shapes); i++) {
        struct json_object *e = json_object_array_get_idx(shapes, i);
        found += str_is(e, "api", api) && int_is(e, "m", m) && int_is(e, "n", n) &&
                 int_is(e, "k", k);
    }
    return found;
}

void ck_expect(const ck_want *w)
{
    struct json_object *r = ck_report();
    ck_expect_shape(r, w);
    json_object_put(r);
}

/* Small integers only: v = 2^e * (1 + f/1024) exactly. */
uint16_t ck_half(double v)
{
    if (v == 0)
        return 0;
    uint16_t sign = v < 0 ? 0x8000 : 0;
    double a = fabs(v);
    int e = (int)floor(log2(a));
    double frac = (a / ldexp(1.0, e) - 1.0) * 1024.0;
    assert_true(frac == floor(frac) && e >= -14 && e <= 15);
    return sign | (uint16_t)((e + 15) << 10) | (uint16_t)frac;
}

double ck_from_half(uint16_t h)
{
    int e = (h >> 10) & 0x1f;
    double man = h & 0x3ff;
    double a = e == 0 ? ldexp(man, -24) : ldexp(1.0 + man / 1024.0, e - 15);
    return (h & 0x8000) ? -a : a;
}

uint16_t ck_bf16(double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    assert_int_equal(u & 0xffff, 0); /* exact in bf16 */
    return (uint16_t)(u >> 16);
}

double ck_from_bf16(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* cudaDataType values (library_types.h), spelled out so this file needs no
 * CUDA header. */
enum { T_R32F = 0, T_R64F = 1, T_R16F = 2, T_R8I = 3, T_C32F = 4, T_C64F = 5, T_R32I = 10,
       T_R16BF = 14 };

void ck_put(void *x, int t, size_t i, double re, double im)
{
    switch (t) {
    case T_R32F: ((float *)x)[i] = (float)re; break;
    case T_R64F: ((double *)x)[i] = re; break;
    case T_R16F: ((uint16_t *)x)[i] = ck_half(re); break;
    case T_R16BF: ((uint16_t *)x)[i] = ck_bf16(re); break;
    case T_R8I: ((int8_t *)x)[i] = (int8_t)re; break;
    case T_R32I: ((int32_t *)x)[i] = (int32_t)re; break;
    case T_C32F: ((float *)x)[2 * i] = (float)re; ((float *)x)[2 * i + 1] = (float)im; break;
    case T_C64F: ((double *)x)[2 * i] = re; ((double *)x)[2 * i + 1] = im; break;
    default: fail_msg("ck_put: type %d", t);
    }
}

void ck_get(const void *x, int t, size_t i, double *re, double *im)
{
    *im = 0;
    switch (t) {
    case T_R32F: *re = ((const float *)x)[i]; break;
    case T_R64F: *re = ((const double *)x)[i]; break;
    case T_R16F: *re = ck_from_half(((const uint16_t *)x)[i]); break;
    case T_R16BF: *re = ck_from_bf16(((const uint16_t *)x)[i]); break;
    case T_R8I: *re = ((const int8_t *)x)[i]; break;
    case T_R32I: *re = ((const int32_t *)x)[i]; break;
    case T_C32F: *re = ((const float *)x)[2 * i]; *im = ((const float *)x)[2 * i + 1]; break;
    case T_C64F: *re = ((const double *)x)[2 * i]; *im = ((const double *)x)[2 * i + 1]; break;
    default: fail_msg("ck_get: type %d", t);
    }
}

void ck_fill(ck_ops *o, int at, int bt, int ct, char ta, char tb, int imag_b)
{
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < 6; i++)
        ck_put(o->A, at, i, ta == 'N' ? ck_a_n[i] : ck_a_t[i], 0);
    for (size_t i = 0; i < 12; i++) {
        double v = tb == 'N' ? ck_b_n[i] : ck_b_t[i];
        ck_put(o->B, bt, i, imag_b ? 0 : v, imag_b ? v : 0);
    }
    for (size_t i = 0; i < 8; i++)
        ck_put(o->C, ct, i, 1, 0);
}

int ck_null_gpu(void)
{
    const char *v = getenv("FLOPCOUNT_TEST_NULLGPU");
    return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

void ck_check_c(const ck_ops *o, int ct, int im_sign)
{
    if (ck_null_gpu()) {
        ck_check_untouched(o, ct);
        return;
    }
    for (size_t i = 0; i < 8; i++) {
        double re, im;
        ck_get(o->C, ct, i, &re, &im);
        double want_re = im_sign ? 1 : ck_c_expect[i];
        double want_im = im_sign ? im_sign * 2 * ck_product[i] : 0;
        if (re != want_re || im != want_im)
            fail_msg("C[%zu] = (%g, %g), expected (%g, %g)", i, re, im, want_re, want_im);
    }
}

void ck_check_untouched(const ck_ops *o, int ct)
{
    for (size_t i = 0; i < 8; i++) {
        double re, im;
        ck_get(o->C, ct, i, &re, &im);
        if (re != 1 || im != 0)
            fail_msg("C[%zu] = (%g, %g) changed by a failed call", i, re, im);
    }
}
