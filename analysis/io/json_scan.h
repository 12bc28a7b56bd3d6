/* SPDX-License-Identifier: Apache-2.0 */
/* json_scan.h - a JSON scanner that builds no tree and allocates nothing:
 * a cursor over the text that steps through objects and arrays, hands out
 * strings and numbers as spans of the text, and skips whole values.
 *
 * It is the report reader's fast path (report_fast.c): it accepts only
 * plain, strict JSON (RFC 8259) and says no (-1) to anything else, at which
 * point the reader falls back to json-c, whose verdict and messages stay
 * the reference. So it may refuse more than json-c does (a \u escape
 * naming a surrogate, a raw control byte in a string, a leading zero,
 * nesting deeper than FC_JS_MAX_DEPTH) but never accepts what json-c's
 * strict mode refuses. Header-only (static inline): the reader's loops call
 * it once a token, and a call a token was a fifth of a merge's time.
 * fc_jsi_* are internal to it. */
#ifndef FC_JSON_SCAN_H
#define FC_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "u128.h"

/* Nesting the scanner follows before it gives up (json-c's reader here
 * allows 64 levels: a value at this depth below a section is far inside). */
#define FC_JS_MAX_DEPTH 24

typedef struct fc_jscan {
    const char *p, *end;
} fc_jscan;

/* A value's kind as its first byte tells it. */
enum fc_js_kind {
    FC_JS_BAD = 0,
    FC_JS_OBJECT,
    FC_JS_ARRAY,
    FC_JS_STRING,
    FC_JS_NUMBER,
    FC_JS_TRUE,
    FC_JS_FALSE,
    FC_JS_NULL
};

/* A string or number as it stands in the text (a string without its
 * quotes; escaped: it holds a backslash escape, so the bytes are not the
 * value). */
typedef struct fc_jspan {
    const char *s;
    size_t n;
    int escaped;
    int is_int;   /* a number without fraction or exponent */
    uint64_t mag; /* a number's integer digits as a value, read in the same
                   * pass (right when they are 19 or fewer) */
} fc_jspan;

/* Bytes JSON counts as white space: space, \t, \n, \r (a table: one load
 * before every token instead of four compares). */
static const unsigned char fc_jsi_ws_tab[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};

static inline int fc_js_space(char ch)
{
    return fc_jsi_ws_tab[(unsigned char)ch];
}

/* Skips spaces, tabs, newlines and carriage returns (inline: it runs
 * before every token). Reports are indented: a run of spaces is measured
 * eight bytes at a time. */
static inline void fc_js_ws(fc_jscan *s)
{
    const char *p = s->p, *end = s->end;
    while (p < end && fc_js_space(*p)) {
        p++;
        if (p < end && !fc_js_space(*p))
            break; /* one byte: the space after ':', the newline of a short line */
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        while (end - p >= 8) { /* the first byte of eight that is no space ends the run */
            uint64_t w;
            memcpy(&w, p, 8);
            w ^= 0x2020202020202020ull;
            if (w != 0) {
                p += __builtin_ctzll(w) >> 3;
                break;
            }
            p += 8;
        }
#endif
    }
    s->p = p;
}
/* The kind of the value at the cursor (after spaces); FC_JS_BAD at the end
 * or on a byte that starts no value. */
static inline int fc_js_peek(fc_jscan *s);
/* Steps over one whole value of any kind, checking its syntax; depth is
 * the nesting already entered. 0, or -1. */
static inline int fc_js_skip(fc_jscan *s, int depth);
/* One string / number / literal at the cursor. 0, or -1. */
static inline int fc_js_string(fc_jscan *s, fc_jspan *out);
static inline int fc_js_number(fc_jscan *s, fc_jspan *out);
static inline int fc_js_literal(fc_jscan *s, int kind);

/* Objects and arrays: _open consumes the bracket; _next moves to the next
 * member (its key in *key, the cursor on its value) or element, returning
 * 1, or 0 after the closing bracket, or -1. first starts at 1 and is kept
 * by the caller. */
static inline int fc_js_open(fc_jscan *s, char bracket);
static inline int fc_js_next_member(fc_jscan *s, int *first, fc_jspan *key);
static inline int fc_js_next_element(fc_jscan *s, int *first);
/* fc_js_next_member when the key is likely name (len bytes, no quote or
 * backslash in it; name readable and zero-padded up to len rounded up to
 * 8 bytes, e.g. a char[24]): 2 when it is (compared in place, not
 * scanned), 1 for another key (in *key), 0 at the end, -1. */
static inline int fc_js_next_member_like(fc_jscan *s, int *first, const char *name, size_t len,
                                         fc_jspan *key);

/* 1 when span (an unescaped key) is the NUL-terminated name. */
static inline int fc_js_is(const fc_jspan *span, const char *name);

/* A non-negative integer literal (digits only, a span from fc_js_number)
 * into *out; -1 when the span is no such literal or exceeds 2^128 - 1. */
static inline int fc_js_u128(const fc_jspan *num, fc_u128 *out);

/* ---- the implementation: inline, so the reader's loops (report_fast.c)
 * run without a call per token ---- */

static inline int fc_js_peek(fc_jscan *s)
{
    fc_js_ws(s);
    if (s->p >= s->end)
        return FC_JS_BAD;
    switch (*s->p) {
    case '{':
        return FC_JS_OBJECT;
    case '[':
        return FC_JS_ARRAY;
    case '"':
        return FC_JS_STRING;
    case 't':
        return FC_JS_TRUE;
    case 'f':
        return FC_JS_FALSE;
    case 'n':
        return FC_JS_NULL;
    default:
        return *s->p == '-' || (*s->p >= '0' && *s->p <= '9') ? FC_JS_NUMBER : FC_JS_BAD;
    }
}

static inline int fc_jsi_hex(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* A \u escape naming a surrogate is refused: json-c pairs (or replaces)
 * them by rules of its own, which the fast path does not mirror. */
static inline int fc_jsi_surrogate(const char *u)
{
    return (u[0] == 'd' || u[0] == 'D') && strchr("89abcdefABCDEF", u[1]) != NULL;
}

/* Bytes that stand for themselves in a string: not '"', not '\\', not a
 * control byte. */
static const unsigned char fc_jsi_plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

static inline int fc_js_string(fc_jscan *s, fc_jspan *out)
{
    fc_js_ws(s);
    if (s->p >= s->end || *s->p != '"')
        return -1;
    const char *p = s->p + 1, *end = s->end;
    out->s = p;
    out->escaped = 0;
    out->is_int = 0;
    for (;;) {
        while (p < end && fc_jsi_plain[(unsigned char)*p])
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
            if (end - p < 6 || !fc_jsi_hex(p[2]) || !fc_jsi_hex(p[3]) || !fc_jsi_hex(p[4]) ||
                !fc_jsi_hex(p[5]) || fc_jsi_surrogate(p + 2))
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
static inline int fc_jsi_delimiter(char ch)
{
    return fc_js_space(ch) || ch == ',' || ch == ']' || ch == '}';
}

static inline int fc_jsi_digit(const char *p, const char *end)
{
    return p < end && (unsigned char)(*p - '0') < 10;
}

static inline int fc_js_number(fc_jscan *s, fc_jspan *out)
{
    fc_js_ws(s);
    const char *p = s->p, *end = s->end;
    out->s = p;
    out->escaped = 0;
    out->is_int = 1;
    if (p < end && *p == '-')
        p++;
    if (!fc_jsi_digit(p, end))
        return -1;
    uint64_t mag = 0;
    if (*p == '0') {
        p++;
        if (fc_jsi_digit(p, end))
            return -1; /* a leading zero: refused */
    } else {
        do /* past 19 digits it wraps: fc_js_u128 then reads the text */
            mag = mag * 10 + (uint64_t)(*p++ - '0');
        while (fc_jsi_digit(p, end));
    }
    out->mag = mag;
    if (p < end && *p == '.') {
        out->is_int = 0;
        p++;
        if (!fc_jsi_digit(p, end))
            return -1;
        while (fc_jsi_digit(p, end))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        out->is_int = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (!fc_jsi_digit(p, end))
            return -1;
        while (fc_jsi_digit(p, end))
            p++;
    }
    /* a number runs up to a delimiter: "12x" or "1true" is no number */
    if (p < end && !fc_jsi_delimiter(*p))
        return -1;
    out->n = (size_t)(p - out->s);
    s->p = p;
    return 0;
}

static inline int fc_js_literal(fc_jscan *s, int kind)
{
    static const char *const words[] = {
        [FC_JS_TRUE] = "true", [FC_JS_FALSE] = "false", [FC_JS_NULL] = "null"};
    if (kind != FC_JS_TRUE && kind != FC_JS_FALSE && kind != FC_JS_NULL)
        return -1;
    fc_js_ws(s);
    size_t n = strlen(words[kind]);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, words[kind], n) != 0)
        return -1;
    s->p += n;
    if (s->p < s->end && !fc_jsi_delimiter(*s->p))
        return -1;
    return 0;
}

static inline int fc_js_open(fc_jscan *s, char bracket)
{
    fc_js_ws(s);
    if (s->p >= s->end || *s->p != bracket)
        return -1;
    s->p++;
    return 0;
}

/* After a member or element: ',' goes on (1), the closing bracket ends
 * (0); on the first call the bracket may close at once. */
static inline int fc_jsi_step(fc_jscan *s, int *first, char close)
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

static inline int fc_js_next_member(fc_jscan *s, int *first, fc_jspan *key)
{
    int rc = fc_jsi_step(s, first, '}');
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

/* name[0..len) == q[0..len), q having room bytes readable; name is
 * readable up to len rounded up to 8 (fc_js_next_member_like's rule), so
 * a short key is one masked eight-byte compare. */
static inline int fc_jsi_key_eq(const char *name, const char *q, size_t len, size_t room)
{
    uint64_t a, b;
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len > 0 && len < 8 && room >= 8) {
        memcpy(&a, name, 8);
        memcpy(&b, q, 8);
        return ((a ^ b) & (~0ull >> (64 - 8 * len))) == 0;
    }
#endif
    (void)room;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) { /* eight bytes a step, no memcmp call */
        memcpy(&a, name + i, 8);
        memcpy(&b, q + i, 8);
        if (a != b)
            return 0;
    }
    if (i < len && len >= 8) { /* the tail: the last eight, overlapping */
        memcpy(&a, name + len - 8, 8);
        memcpy(&b, q + len - 8, 8);
        return a == b;
    }
    for (; i < len; i++)
        if (name[i] != q[i])
            return 0;
    return 1;
}

static inline int fc_js_next_member_like(fc_jscan *s, int *first, const char *name, size_t len,
                                         fc_jspan *key)
{
    int rc = fc_jsi_step(s, first, '}');
    if (rc <= 0)
        return rc;
    fc_js_ws(s);
    const char *p = s->p;
    if ((size_t)(s->end - p) > len + 2 && p[0] == '"' && p[len + 1] == '"' &&
        fc_jsi_key_eq(name, p + 1, len, (size_t)(s->end - p) - 1)) {
        *key = (fc_jspan){p + 1, len, 0, 0, 0};
        s->p = p + len + 2;
        rc = 2;
    } else if (fc_js_string(s, key) != 0) {
        return -1;
    }
    fc_js_ws(s);
    if (s->p >= s->end || *s->p != ':')
        return -1;
    s->p++;
    return rc;
}

static inline int fc_js_next_element(fc_jscan *s, int *first)
{
    return fc_jsi_step(s, first, ']');
}

static inline int fc_js_skip(fc_jscan *s, int depth)
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

static inline int fc_js_is(const fc_jspan *span, const char *name)
{
    size_t n = strlen(name);
    return !span->escaped && span->n == n && memcmp(span->s, name, n) == 0;
}

/* Up to 19 digits fit a uint64_t (10^19 - 1 < 2^64): no 128-bit
 * arithmetic for them; longer ones go to fc_u128_parse. */
static inline int fc_js_u128(const fc_jspan *num, fc_u128 *out)
{
    if (!num->is_int || num->n == 0 || num->s[0] == '-')
        return -1;
    if (num->n > 19)
        return fc_u128_parse(num->s, num->n, out);
    *out = num->mag;
    return 0;
}

#endif
