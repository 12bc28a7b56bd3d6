/* SPDX-License-Identifier: Apache-2.0 */
/* json_scan.c - the tree-less JSON scanner of the report reader's fast
 * path (json_scan.h). Strict and conservative: every refusal sends the
 * reader back to json-c, so nothing here needs a message. */
#include "json_scan.h"

#include <string.h>

int fc_js_peek(fc_jscan *s)
{
    fc_js_ws(s);
    if (s->p >= s->end)
        return FC_JS_BAD;
    switch (*s->p) {
    case '{': return FC_JS_OBJECT;
    case '[': return FC_JS_ARRAY;
    case '"': return FC_JS_STRING;
    case 't': return FC_JS_TRUE;
    case 'f': return FC_JS_FALSE;
    case 'n': return FC_JS_NULL;
    default:
        return *s->p == '-' || (*s->p >= '0' && *s->p <= '9') ? FC_JS_NUMBER : FC_JS_BAD;
    }
}

static int hex(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* A \u escape naming a surrogate is refused: json-c pairs (or replaces)
 * them by rules of its own, which the fast path does not mirror. */
static int surrogate(const char *u)
{
    return (u[0] == 'd' || u[0] == 'D') && strchr("89abcdefABCDEF", u[1]) != NULL;
}

/* Bytes that stand for themselves in a string: not '"', not '\\', not a
 * control byte. */
static const unsigned char plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

int fc_js_string(fc_jscan *s, fc_jspan *out)
{
    fc_js_ws(s);
    if (s->p >= s->end || *s->p != '"')
        return -1;
    const char *p = s->p + 1, *end = s->end;
    out->s = p;
    out->escaped = 0;
    out->is_int = 0;
    for (;;) {
        while (p < end && plain[(unsigned char)*p])
            p++;
        if (p >= end || (unsigned char)*p < 0x20)
            return -1;
        if (*p == '"')
            break;
        out->escaped = 1; /* a backslash */
        if (p + 1 >= end)
            return -1;
        char e = p[1];
        if (e == 'u') {
            if (end - p < 6 || !hex(p[2]) || !hex(p[3]) || !hex(p[4]) || !hex(p[5]) ||
                surrogate(p + 2))
                return -1;
            p += 6;
        } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                   e == 'r' || e == 't') {
            p += 2;
        } else {
            return -1;
        }
    }
    out->n = (size_t)(p - out->s);
    s->p = p + 1;
    return 0;
}

/* What may follow a number or a literal. */
static int delimiter(char ch)
{
    return fc_js_space(ch) || ch == ',' || ch == ']' || ch == '}';
}

static int digit(const char *p, const char *end)
{
    return p < end && *p >= '0' && *p <= '9';
}

int fc_js_number(fc_jscan *s, fc_jspan *out)
{
    fc_js_ws(s);
    const char *p = s->p, *end = s->end;
    out->s = p;
    out->escaped = 0;
    out->is_int = 1;
    if (p < end && *p == '-')
        p++;
    if (!digit(p, end))
        return -1;
    if (*p == '0') {
        p++;
        if (digit(p, end))
            return -1; /* a leading zero: refused */
    } else {
        while (digit(p, end))
            p++;
    }
    if (p < end && *p == '.') {
        out->is_int = 0;
        p++;
        if (!digit(p, end))
            return -1;
        while (digit(p, end))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        out->is_int = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (!digit(p, end))
            return -1;
        while (digit(p, end))
            p++;
    }
    /* a number runs up to a delimiter: "12x" or "1true" is no number */
    if (p < end && !delimiter(*p))
        return -1;
    out->n = (size_t)(p - out->s);
    s->p = p;
    return 0;
}

int fc_js_literal(fc_jscan *s, int kind)
{
    static const char *const words[] = {[FC_JS_TRUE] = "true", [FC_JS_FALSE] = "false",
                                        [FC_JS_NULL] = "null"};
    if (kind != FC_JS_TRUE && kind != FC_JS_FALSE && kind != FC_JS_NULL)
        return -1;
    fc_js_ws(s);
    size_t n = strlen(words[kind]);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, words[kind], n) != 0)
        return -1;
    s->p += n;
    if (s->p < s->end && !delimiter(*s->p))
        return -1;
    return 0;
}

int fc_js_open(fc_jscan *s, char bracket)
{
    fc_js_ws(s);
    if (s->p >= s->end || *s->p != bracket)
        return -1;
    s->p++;
    return 0;
}

/* After a member or element: ',' goes on (1), the closing bracket ends
 * (0); on the first call the bracket may close at once. */
static int step(fc_jscan *s, int *first, char close)
{
    fc_js_ws(s);
    if (s->p >= s->end)
        return -1;
    if (*s->p == close) {
        s->p++;
        return 0;
    }
    if (*first) {
        *first = 0;
        return 1;
    }
    if (*s->p != ',')
        return -1;
    s->p++;
    return 1;
}

int fc_js_next_member(fc_jscan *s, int *first, fc_jspan *key)
{
    int rc = step(s, first, '}');
    if (rc <= 0)
        return rc;
    if (fc_js_string(s, key) != 0)
        return -1;
    fc_js_ws(s);
    if (s->p >= s->end || *s->p != ':')
        return -1;
    s->p++;
    return 1;
}

int fc_js_next_element(fc_jscan *s, int *first)
{
    return step(s, first, ']');
}

int fc_js_skip(fc_jscan *s, int depth)
{
    fc_jspan span;
    int kind = fc_js_peek(s), first = 1, rc;
    if (depth >= FC_JS_MAX_DEPTH)
        return -1;
    switch (kind) {
    case FC_JS_OBJECT:
        s->p++;
        while ((rc = fc_js_next_member(s, &first, &span)) == 1)
            if (fc_js_skip(s, depth + 1) != 0)
                return -1;
        return rc;
    case FC_JS_ARRAY:
        s->p++;
        while ((rc = fc_js_next_element(s, &first)) == 1)
            if (fc_js_skip(s, depth + 1) != 0)
                return -1;
        return rc;
    case FC_JS_STRING:
        return fc_js_string(s, &span);
    case FC_JS_NUMBER:
        return fc_js_number(s, &span);
    case FC_JS_BAD:
        return -1;
    default:
        return fc_js_literal(s, kind);
    }
}

int fc_js_is(const fc_jspan *span, const char *name)
{
    size_t n = strlen(name);
    return !span->escaped && span->n == n && memcmp(span->s, name, n) == 0;
}

/* Up to 19 digits fit a uint64_t (10^19 - 1 < 2^64): no 128-bit
 * arithmetic for them; longer ones go to fc_u128_parse. */
int fc_js_u128(const fc_jspan *num, fc_u128 *out)
{
    if (!num->is_int || num->n == 0 || num->s[0] == '-')
        return -1;
    if (num->n > 19)
        return fc_u128_parse(num->s, num->n, out);
    uint64_t v = 0;
    for (size_t i = 0; i < num->n; i++)
        v = v * 10 + (uint64_t)(num->s[i] - '0');
    *out = v;
    return 0;
}
