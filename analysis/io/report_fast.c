/* SPDX-License-Identifier: Apache-2.0 */
/* report_fast.c - "shapes" and "iterations.list" read without a tree
 * (report_fast.h). Each entry is read by a table of its members that
 * mirrors read_shape / read_iter of report_read.c: the same defaults, the
 * same types; where those would fail, or json-c might read the text
 * otherwise, the scan gives up and the caller parses the slow way. */
#include "report_fast.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "json_scan.h"

/* T_GROUPED: the object "grouped_imbalance" of an iteration, read by
 * grouped_fields into the same entry; T_TEXT: a string or null, not kept */
enum { T_STR, T_TRANS, T_BOOL, T_I64, T_U64, T_U128, T_DBL, T_TEXT, T_GROUPED };

typedef struct field {
    char name[24]; /* zero-padded: json_scan.h reads it eight bytes at a time */
    unsigned char len, type;
    unsigned short off, size;
} field;

/* A schema row's type (analysis/run/schema.h) as the scan reads it. */
#define FAST_T_U64 T_U64
#define FAST_T_U128 T_U128
#define FAST_T_DBL T_DBL
#define FAST_T_I64 T_I64
#define FAST_T_BOOL T_BOOL
#define FAST_T_TRANS T_TRANS
#define FAST_T_TEXT T_TEXT
#define FAST_T_STR16 T_STR
#define FAST_T_STR24 T_STR
#define FAST_T_STR32 T_STR
#define FAST_T_STR48 T_STR

/* The member tables come from the schema's lists (the keys written once,
 * there), in their order, which is the order the writers write them:
 * read_entry guesses each key is the one after the last it read. */
#define FAST_ROW(P, key, type, req, unit, meaning)                                                 \
    {#key, sizeof #key - 1, FAST_T_##type, offsetof(P, key), sizeof((P *)0)->key},
#define FAST_REQ(P, key, type, req, unit, meaning) | ((req) ? 1u << P##key : 0u)

#define F(st, key, t)                                                                              \
    {                                                                                              \
#key, sizeof #key - 1, t, offsetof(st, key), sizeof((st *)0)->key                          \
    }

static const field shape_fields[] = {
    F(fc_report_shape, api, T_STR),
    F(fc_report_shape, m, T_I64),
    F(fc_report_shape, n, T_I64),
    F(fc_report_shape, k, T_I64),
    F(fc_report_shape, batch, T_I64),
    F(fc_report_shape, transa, T_TRANS),
    F(fc_report_shape, transb, T_TRANS),
    F(fc_report_shape, dtype, T_STR),
    F(fc_report_shape, out_dtype, T_STR),
    F(fc_report_shape, compute, T_STR),
    F(fc_report_shape, calls, T_U64),
    F(fc_report_shape, flops, T_U128),
    F(fc_report_shape, failed_calls, T_U64),
    F(fc_report_shape, overflow, T_BOOL),
};
#define SHAPE_REQUIRED (1u << 11) /* flops */

static const field iter_fields[] = {
    FC_ITER_FIELDS(FAST_ROW, fc_report_iter){FC_ITER_GROUPED_KEY, sizeof FC_ITER_GROUPED_KEY - 1,
                                             T_GROUPED, 0, 0},
};
#define ITER_REQUIRED (0u FC_ITER_FIELDS(FAST_REQ, FC_ITER_I_))

/* read_iter's "grouped_imbalance" (docs/moe.md), members of the entry
 * (grouped_<key>); all three asked for here (json-c, on the way back,
 * decides what a partial object means) */
#define FAST_GROUPED_ROW(P, key, type, req, unit, meaning)                                         \
    {#key, sizeof #key - 1, FAST_T_##type, offsetof(P, grouped_##key), sizeof((P *)0)->grouped_##key},
static const field grouped_fields[] = {FC_ITER_GROUPED_FIELDS(FAST_GROUPED_ROW, fc_report_iter)};
#define GROUPED_REQUIRED ((1u << FC_ITER_GROUPED_N) - 1)

/* seen / required masks are 32 bits; names fit the 24-byte slots */
_Static_assert(FC_ITER_N + 1 <= 32, "a table of more than 32 rows");
_Static_assert(sizeof FC_ITER_GROUPED_KEY <= 24, "a key longer than its slot");

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* A plain string value into out (truncated as snprintf would); null keeps
 * what is there. An escaped value is refused: json-c's decoding rules. */
static int get_str(fc_jscan *s, char *out, size_t size)
{
    int kind = fc_js_peek(s);
    if (kind == FC_JS_NULL)
        return fc_js_literal(s, kind);
    fc_jspan v;
    if (kind != FC_JS_STRING || fc_js_string(s, &v) != 0 || v.escaped)
        return -1; /* unescaped, it holds no NUL: the scanner refuses control bytes */
    size_t n = v.n < size - 1 ? v.n : size - 1;
    memcpy(out, v.s, n);
    out[n] = '\0';
    return 0;
}

/* "N", "T", "C"; "" / null / absent: '?' (trans_char of report_read.c). */
static int get_trans(fc_jscan *s, char *out)
{
    char b[4] = "";
    if (get_str(s, b, sizeof b) != 0)
        return -1;
    if (b[0] == '\0')
        *out = '?';
    else if (b[1] != '\0' || strchr("NTC", b[0]) == NULL)
        return -1;
    else
        *out = b[0];
    return 0;
}

/* Digits of an integer literal, its sign left out. */
static size_t int_digits(const fc_jspan *v)
{
    return v->n - (v->s[0] == '-');
}

/* An integer literal json-c keeps as an int64 (18 digits at most, so never
 * saturated nor quoted); "-0" is refused. */
static int small_int(const fc_jspan *v, int64_t *out)
{
    if (!v->is_int || int_digits(v) > 18 || (v->n == 2 && v->s[0] == '-' && v->s[1] == '0'))
        return -1;
    int64_t x = (int64_t)v->mag; /* 18 digits at most: no wrap */
    *out = v->s[0] == '-' ? -x : x;
    return 0;
}

/* fc_js_number refuses what starts no number itself. */
static int get_number(fc_jscan *s, fc_jspan *v)
{
    return fc_js_number(s, v);
}

static int get_i64(fc_jscan *s, int64_t *out)
{
    if (fc_js_peek(s) == FC_JS_NULL) {
        *out = -1; /* null: not known */
        return fc_js_literal(s, FC_JS_NULL);
    }
    fc_jspan v;
    return get_number(s, &v) == 0 ? small_int(&v, out) : -1;
}

/* fc_jto_u128: a non-negative int, or 19+ digits the quoting pass made a
 * string; both are digits here. */
static int get_u128(fc_jscan *s, fc_u128 *out)
{
    fc_jspan v;
    return get_number(s, &v) == 0 ? fc_js_u128(&v, out) : -1;
}

/* A plain decimal "123.456" with at most 15 significant digits and 22
 * after the point: digits and 10^k are exact doubles, and one division of
 * exact doubles is correctly rounded, which is what strtod returns
 * (Clinger's fast path). -1 for anything else (strtod then). */
static int exact_decimal(const fc_jspan *v, double *out)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    uint64_t m = 0;
    size_t digits = 0, after = 0;
    int point = 0;
    for (size_t i = 0; i < v->n; i++) {
        char ch = v->s[i];
        if (ch == '.') {
            point = 1;
            continue;
        }
        if (ch < '0' || ch > '9')
            return -1; /* an exponent or a sign */
        if (m != 0 || ch != '0')
            digits++;
        if (digits > 15)
            return -1;
        m = m * 10 + (uint64_t)(ch - '0');
        after += point;
    }
    if (after > 22)
        return -1;
    *out = (double)m / pow10[after];
    return 0;
}

/* A plain decimal of 16 to 19 significant digits (start_seconds such as
 * 6.1000000000000005) with at most 21 after the point, rounded as strtod
 * rounds it by integer arithmetic (decimal.h): exact where exact_decimal is
 * not, without strtod's multi-precision path (a third of a merge's strtod
 * calls). -1 for anything else. */
static int exact_decimal_wide(const fc_jspan *v, double *out)
{
    uint64_t m = 0;
    size_t digits = 0, after = 0;
    int point = 0;
    for (size_t i = 0; i < v->n; i++) {
        char ch = v->s[i];
        if (ch == '.') {
            point = 1;
            continue;
        }
        if (ch < '0' || ch > '9')
            return -1;
        if (m != 0 || ch != '0')
            digits++;
        if (digits > 19)
            return -1;
        m = m * 10 + (uint64_t)(ch - '0');
        after += point;
    }
    if (m == 0)
        return -1;
    return fc_decimal_div_pow10(m, (unsigned)after, out);
}

/* fc_jget_double: null keeps the default; an int is json-c's int64 made a
 * double, 19+ digits go by fc_u128_to_double, a real by strtod as json-c
 * reads it. Negative numbers are refused (json-c's "-0" is its own). */
static int get_double(fc_jscan *s, double *out)
{
    if (fc_js_peek(s) == FC_JS_NULL)
        return fc_js_literal(s, FC_JS_NULL);
    fc_jspan v;
    if (get_number(s, &v) != 0 || v.s[0] == '-')
        return -1;
    double d;
    int64_t x;
    fc_u128 big;
    if (v.is_int && small_int(&v, &x) == 0)
        d = (double)x;
    else if (v.is_int && fc_js_u128(&v, &big) == 0)
        d = fc_u128_to_double(big);
    else if (!v.is_int && (exact_decimal(&v, &d) == 0 || exact_decimal_wide(&v, &d) == 0))
        ; /* d is strtod's result */
    else if (!v.is_int && v.n < 64) {
        char buf[64];
        memcpy(buf, v.s, v.n);
        buf[v.n] = '\0';
        d = strtod(buf, NULL);
    } else
        return -1;
    if (!isfinite(d))
        return -1;
    *out = d;
    return 0;
}

static int read_entry(fc_jscan *s, const field *fields, size_t n, unsigned required, char *base);

static int get_field(fc_jscan *s, const field *f, char *base)
{
    void *at = base + f->off;
    switch (f->type) {
    case T_STR:
        return get_str(s, at, f->size);
    case T_TRANS:
        return get_trans(s, at);
    case T_BOOL: {
        int kind = fc_js_peek(s);
        if ((kind != FC_JS_TRUE && kind != FC_JS_FALSE) || fc_js_literal(s, kind) != 0)
            return -1;
        *(int *)at = kind == FC_JS_TRUE;
        return 0;
    }
    case T_I64:
        return get_i64(s, at);
    case T_DBL:
        return get_double(s, at);
    case T_TEXT: { /* checked as json-c's reader does, not kept */
        char none[1];
        return get_str(s, none, sizeof none);
    }
    case T_GROUPED: /* an object of its own, members into this entry */
        return fc_js_peek(s) == FC_JS_OBJECT
                   ? read_entry(s, grouped_fields, N_OF(grouped_fields), GROUPED_REQUIRED, base)
                   : -1;
    default: { /* T_U64, T_U128 */
        fc_u128 v;
        if (get_u128(s, &v) != 0 || (f->type == T_U64 && v > UINT64_MAX))
            return -1;
        if (f->type == T_U64)
            *(uint64_t *)at = (uint64_t)v;
        else
            memcpy(at, &v, sizeof v);
        return 0;
    }
    }
}

static int is_field(const field *f, const fc_jspan *key)
{
    size_t n = key->n, i = 0;
    if (f->len != n)
        return 0;
    for (; i + 8 <= n; i += 8) { /* eight bytes a step, no memcmp call */
        uint64_t a, b;
        memcpy(&a, f->name + i, 8);
        memcpy(&b, key->s + i, 8);
        if (a != b)
            return 0;
    }
    for (; i < n; i++)
        if (f->name[i] != key->s[i])
            return 0;
    return 1;
}

/* One object's members by the table; unknown members skipped. A member
 * twice is refused (json-c keeps the last, with its own checks). 0 with
 * every required member seen, or -1. */
static int read_entry(fc_jscan *s, const field *fields, size_t n, unsigned required, char *base)
{
    fc_jspan key;
    int first = 1, rc;
    unsigned seen = 0;
    size_t next = 0;
    if (fc_js_open(s, '{') != 0)
        return -1;
    if (fc_report_fast_asked != NULL) /* a test's record of the keys read (report_fast.h) */
        for (size_t i = 0; i < n; i++)
            fc_report_fast_asked(fields == shape_fields  ? "shapes[]"
                                 : fields == iter_fields ? "iterations.list[]"
                                                         : "iterations.list[].grouped_imbalance",
                                 fields[i].name);
    /* the writer's order first: the member after the last one found */
    while ((rc = next < n
                     ? fc_js_next_member_like(s, &first, fields[next].name, fields[next].len, &key)
                     : fc_js_next_member(s, &first, &key)) > 0) {
        if (key.escaped)
            return -1;
        size_t i = rc == 2 ? next : 0; /* 2: the key is fields[next], compared */
        while (rc != 2 && i < n && !is_field(&fields[i], &key))
            i++;
        if (i == n) { /* a member not read: the guess of the next one stands */
            if (fc_js_skip(s, 3) != 0)
                return -1;
            continue;
        }
        if ((seen & (1u << i)) || get_field(s, &fields[i], base) != 0)
            return -1;
        seen |= 1u << i;
        next = i + 1;
    }
    return rc == 0 && (seen & required) == required ? 0 : -1;
}

/* Grows *arr (elements of size) to hold one more than n. */
static int room(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 64;
    void *b = realloc(*arr, c * size);
    if (b == NULL)
        return -1;
    *arr = b;
    *cap = c;
    return 0;
}

static int read_shapes(fc_jscan *s, fc_report_fast *f)
{
    size_t cap = 0;
    int first = 1, rc;
    if (fc_js_open(s, '[') != 0)
        return -1;
    while ((rc = fc_js_next_element(s, &first)) == 1) {
        if (room((void **)&f->shapes, &cap, f->n_shapes, sizeof *f->shapes) != 0)
            return -1;
        fc_report_shape *sh = memset(&f->shapes[f->n_shapes], 0, sizeof *sh);
        sh->m = sh->n = sh->k = sh->batch = -1;
        sh->transa = sh->transb = '?';
        if (read_entry(s, shape_fields, N_OF(shape_fields), SHAPE_REQUIRED, (char *)sh) != 0)
            return -1;
        f->n_shapes++;
    }
    if (rc == 0 && f->shapes == NULL && (f->shapes = calloc(1, sizeof *f->shapes)) == NULL)
        return -1; /* an empty array: there, with nothing in it */
    return rc;
}

static int read_list(fc_jscan *s, fc_report_fast *f)
{
    size_t cap = 0;
    int first = 1, rc;
    if (fc_js_open(s, '[') != 0)
        return -1;
    while ((rc = fc_js_next_element(s, &first)) == 1) {
        if (room((void **)&f->list, &cap, f->n_list, sizeof *f->list) != 0)
            return -1;
        fc_report_iter *it = memset(&f->list[f->n_list], 0, sizeof *it);
        it->index = f->n_list;
        it->start_seconds = it->seconds = it->gpu_seconds = NAN;
        it->slowest_rank = -1;
        it->ambiguous_recompute = -1; /* reports before the field: any doubt may */
        if (read_entry(s, iter_fields, N_OF(iter_fields), ITER_REQUIRED, (char *)it) != 0 ||
            it->seconds < 0)
            return -1;
        if (it->ambiguous_recompute < 0 || !it->ambiguous)
            it->ambiguous_recompute = it->ambiguous;
        f->n_list++;
    }
    if (rc == 0 && f->list == NULL && (f->list = calloc(1, sizeof *f->list)) == NULL)
        return -1;
    return rc;
}

/* Reads an array with fn, noting where it stands in the text. */
static int read_cut(fc_jscan *s, const char *text, fc_report_fast *f,
                    int (*fn)(fc_jscan *, fc_report_fast *))
{
    fc_js_ws(s);
    size_t start = (size_t)(s->p - text);
    if (fn(s, f) != 0)
        return -1;
    f->cut[f->n_cut][0] = start;
    f->cut[f->n_cut][1] = (size_t)(s->p - text);
    f->n_cut++;
    return 0;
}

/* "iterations": its "list" read when an array; the rest skipped. */
static int scan_iterations(fc_jscan *s, const char *text, fc_report_fast *f)
{
    fc_jspan key;
    int first = 1, rc, seen = 0;
    if (fc_js_open(s, '{') != 0)
        return -1;
    while ((rc = fc_js_next_member(s, &first, &key)) == 1) {
        if (key.escaped)
            return -1;
        if (!fc_js_is(&key, "list")) {
            if (fc_js_skip(s, 2) != 0)
                return -1;
            continue;
        }
        if (seen++)
            return -1;
        if (fc_js_peek(s) == FC_JS_ARRAY ? read_cut(s, text, f, read_list) : fc_js_skip(s, 2))
            return -1;
    }
    return rc;
}

static int scan(fc_jscan *s, const char *text, fc_report_fast *f)
{
    fc_jspan key;
    int first = 1, rc, shapes = 0, iterations = 0;
    if (fc_js_open(s, '{') != 0)
        return -1;
    while ((rc = fc_js_next_member(s, &first, &key)) == 1) {
        int kind = fc_js_peek(s);
        if (key.escaped)
            return -1;
        if (fc_js_is(&key, "shapes")) {
            if (shapes++ ||
                (kind == FC_JS_ARRAY ? read_cut(s, text, f, read_shapes) : fc_js_skip(s, 1)))
                return -1;
        } else if (fc_js_is(&key, "iterations")) {
            if (iterations++ ||
                (kind == FC_JS_OBJECT ? scan_iterations(s, text, f) : fc_js_skip(s, 1)))
                return -1;
        } else if (fc_js_skip(s, 1) != 0) {
            return -1;
        }
    }
    fc_js_ws(s);
    return rc == 0 && s->p == s->end ? 0 : -1;
}

int fc_report_fast_scan(const char *text, size_t len, fc_report_fast *f)
{
    memset(f, 0, sizeof *f);
    fc_jscan s = {text, text + len};
    if (text == NULL || scan(&s, text, f) != 0) {
        fc_report_fast_free(f);
        return -1;
    }
    if (f->n_cut == 2 && f->cut[0][0] > f->cut[1][0]) {
        size_t a = f->cut[0][0], b = f->cut[0][1];
        f->cut[0][0] = f->cut[1][0];
        f->cut[0][1] = f->cut[1][1];
        f->cut[1][0] = a;
        f->cut[1][1] = b;
    }
    return 0;
}

char *fc_report_fast_cut(const char *text, size_t len, const fc_report_fast *f, size_t *outlen)
{
    char *out = malloc(len + 1);
    if (out == NULL)
        return NULL;
    size_t o = 0, from = 0;
    for (size_t i = 0; i < f->n_cut; i++) {
        memcpy(out + o, text + from, f->cut[i][0] - from);
        o += f->cut[i][0] - from;
        out[o++] = '[';
        out[o++] = ']';
        from = f->cut[i][1];
    }
    memcpy(out + o, text + from, len - from);
    o += len - from;
    out[o] = '\0';
    *outlen = o;
    return out;
}

void fc_report_fast_free(fc_report_fast *f)
{
    free(f->shapes);
    free(f->list);
    memset(f, 0, sizeof *f);
}
