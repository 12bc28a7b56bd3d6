/* SPDX-License-Identifier: Apache-2.0 */
/* lt_check.c - reading a flopcount JSON report in the cuBLASLt tests (see
 * lt_check.h). json-c keeps integers up to 2^64-1 exact, which is all the
 * FLOP counts these tests produce. */
#include "lt_check.h"

#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

struct json_object *lt_load(const char *path)
{
    json_object *r = json_object_from_file(path);
    if (r == NULL)
        fail_msg("cannot read report %s: %s", path, json_util_get_last_err());
    json_object *schema = NULL;
    assert_true(json_object_object_get_ex(r, "schema", &schema));
    assert_int_equal(json_object_get_int64(schema), 1);
    return r;
}

static uint64_t get_u64(json_object *parent, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(parent, key, &v) || !json_object_is_type(v, json_type_int))
        fail_msg("report: no integer field \"%s\"", key);
    return json_object_get_uint64(v);
}

uint64_t lt_total(json_object *report, const char *key)
{
    json_object *totals = NULL;
    assert_true(json_object_object_get_ex(report, "totals", &totals));
    return get_u64(totals, key);
}

uint64_t lt_group(json_object *report, const char *group, const char *name, const char *key)
{
    json_object *g = NULL, *entry = NULL;
    assert_true(json_object_object_get_ex(report, group, &g));
    if (!json_object_object_get_ex(g, name, &entry))
        return 0;
    return get_u64(entry, key);
}

static json_object *shapes(json_object *report)
{
    json_object *s = NULL;
    assert_true(json_object_object_get_ex(report, "shapes", &s));
    assert_true(json_object_is_type(s, json_type_array));
    return s;
}

size_t lt_shape_count(json_object *report)
{
    return json_object_array_length(shapes(report));
}

static int str_is(json_object *o, const char *key, const char *want)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v))
        return 0;
    if (want == NULL)
        return json_object_is_type(v, json_type_null);
    return json_object_is_type(v, json_type_string) && strcmp(json_object_get_string(v), want) == 0;
}

static int int_is(json_object *o, const char *key, int64_t want)
{
    json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_int) &&
           json_object_get_int64(v) == want;
}

static int key_matches(json_object *o, const lt_want *w)
{
    char ta[2] = {w->transa, 0}, tb[2] = {w->transb, 0};
    return str_is(o, "api", "cublasLtMatmul") && int_is(o, "m", w->m) && int_is(o, "n", w->n) &&
           int_is(o, "k", w->k) && int_is(o, "batch", w->batch) && str_is(o, "transa", ta) &&
           str_is(o, "transb", tb) && str_is(o, "dtype", w->dtype) &&
           str_is(o, "out_dtype", w->out_dtype) && str_is(o, "compute", w->compute);
}

void lt_expect_shape(json_object *report, const lt_want *w)
{
    json_object *s = shapes(report), *found = NULL;
    for (size_t i = 0; i < json_object_array_length(s); i++) {
        json_object *o = json_object_array_get_idx(s, i);
        if (key_matches(o, w)) {
            if (found != NULL)
                fail_msg("two shape entries for m=%lld n=%lld k=%lld", (long long)w->m,
                         (long long)w->n, (long long)w->k);
            found = o;
        }
    }
    if (found == NULL)
        fail_msg("no shape entry m=%lld n=%lld k=%lld batch=%lld %c%c %s->%s compute=%s",
                 (long long)w->m, (long long)w->n, (long long)w->k, (long long)w->batch, w->transa,
                 w->transb, w->dtype, w->out_dtype, w->compute ? w->compute : "null");
    assert_int_equal(get_u64(found, "calls"), w->calls);
    assert_int_equal(get_u64(found, "failed_calls"), w->failed_calls);
    assert_int_equal(get_u64(found, "flops"), w->flops);
}

void lt_expect_uncounted(json_object *report, const char *name, const char *reason,
                         const char *detail_has, uint64_t calls, uint64_t failed)
{
    json_object *u = NULL;
    if (!json_object_object_get_ex(report, "uncounted", &u) ||
        !json_object_is_type(u, json_type_array))
        fail_msg("report: no \"uncounted\" list");
    for (size_t i = 0; i < json_object_array_length(u); i++) {
        json_object *x = json_object_array_get_idx(u, i);
        if (!str_is(x, "name", name))
            continue;
        if (!str_is(x, "reason", reason) || !str_is(x, "class", "gemm_like_uncounted"))
            fail_msg("uncounted \"%s\": reason or class is not %s, gemm_like_uncounted", name,
                     reason);
        json_object *d = NULL;
        if (detail_has != NULL &&
            (!json_object_object_get_ex(x, "detail", &d) ||
             strstr(json_object_get_string(d), detail_has) == NULL))
            fail_msg("uncounted \"%s\": detail lacks \"%s\"", name, detail_has);
        assert_int_equal(get_u64(x, "calls"), calls);
        assert_int_equal(get_u64(x, "failed_calls"), failed);
        return;
    }
    fail_msg("report: no uncounted entry \"%s\"", name);
}
