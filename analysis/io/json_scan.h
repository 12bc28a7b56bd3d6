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
 * strict mode refuses. */
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
enum fc_js_kind { FC_JS_BAD = 0, FC_JS_OBJECT, FC_JS_ARRAY, FC_JS_STRING, FC_JS_NUMBER,
                  FC_JS_TRUE, FC_JS_FALSE, FC_JS_NULL };

/* A string or number as it stands in the text (a string without its
 * quotes; escaped: it holds a backslash escape, so the bytes are not the
 * value). */
typedef struct fc_jspan {
    const char *s;
    size_t n;
    int escaped;
    int is_int; /* a number without fraction or exponent */
} fc_jspan;

static inline int fc_js_space(char ch)
{
    return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t';
}

/* Skips spaces, tabs, newlines and carriage returns (inline: it runs
 * before every token). Reports are indented: runs of spaces go eight at
 * a time. */
static inline void fc_js_ws(fc_jscan *s)
{
    const char *p = s->p, *end = s->end;
    while (p < end && fc_js_space(*p)) {
        p++;
        uint64_t w;
        while (end - p >= 8 && (memcpy(&w, p, 8), w == 0x2020202020202020ull))
            p += 8;
    }
    s->p = p;
}
/* The kind of the value at the cursor (after spaces); FC_JS_BAD at the end
 * or on a byte that starts no value. */
int fc_js_peek(fc_jscan *s);
/* Steps over one whole value of any kind, checking its syntax; depth is
 * the nesting already entered. 0, or -1. */
int fc_js_skip(fc_jscan *s, int depth);
/* One string / number / literal at the cursor. 0, or -1. */
int fc_js_string(fc_jscan *s, fc_jspan *out);
int fc_js_number(fc_jscan *s, fc_jspan *out);
int fc_js_literal(fc_jscan *s, int kind);

/* Objects and arrays: _open consumes the bracket; _next moves to the next
 * member (its key in *key, the cursor on its value) or element, returning
 * 1, or 0 after the closing bracket, or -1. first starts at 1 and is kept
 * by the caller. */
int fc_js_open(fc_jscan *s, char bracket);
int fc_js_next_member(fc_jscan *s, int *first, fc_jspan *key);
int fc_js_next_element(fc_jscan *s, int *first);

/* 1 when span (an unescaped key) is the NUL-terminated name. */
int fc_js_is(const fc_jspan *span, const char *name);

/* A non-negative integer literal (digits only) into *out; -1 when the span
 * is no such literal or exceeds 2^128 - 1. */
int fc_js_u128(const fc_jspan *num, fc_u128 *out);

#endif
