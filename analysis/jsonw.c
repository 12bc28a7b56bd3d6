/* SPDX-License-Identifier: Apache-2.0 */
/* jsonw.c - streaming JSON writer: fixed buffer, write(2), exact integers. */
#include "jsonw.h"

#include "decimal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void flush(fc_jw *w)
{
    size_t off = 0;
    while (off < w->len && !w->err) {
        ssize_t n = write(w->fd, w->buf + off, w->len - off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            w->err = errno;
        } else {
            off += (size_t)n;
        }
    }
    w->len = 0;
}

static void put(fc_jw *w, const char *s, size_t n)
{
    while (n > 0) {
        if (w->len == sizeof w->buf)
            flush(w);
        size_t room = sizeof w->buf - w->len;
        size_t take = n < room ? n : room;
        memcpy(w->buf + w->len, s, take);
        w->len += take;
        s += take;
        n -= take;
    }
}

static void puts_(fc_jw *w, const char *s) { put(w, s, strlen(s)); }

static void indent(fc_jw *w)
{
    if (!w->pretty)
        return;
    put(w, "\n", 1);
    for (int i = 0; i < w->depth; i++)
        put(w, "  ", 2);
}

static void quoted(fc_jw *w, const char *s)
{
    put(w, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"': puts_(w, "\\\""); break;
        case '\\': puts_(w, "\\\\"); break;
        case '\n': puts_(w, "\\n"); break;
        case '\t': puts_(w, "\\t"); break;
        case '\r': puts_(w, "\\r"); break;
        default:
            if (*p < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                puts_(w, esc);
            } else {
                put(w, (const char *)p, 1);
            }
        }
    }
    put(w, "\"", 1);
}

/* Comma, newline and key before a member or element. */
static void member(fc_jw *w, const char *key)
{
    if (w->depth > 0) {
        if (!w->first[w->depth])
            put(w, ",", 1);
        w->first[w->depth] = 0;
        indent(w);
    }
    if (key != NULL) {
        quoted(w, key);
        put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
    }
}

void fc_jw_init(fc_jw *w, int fd, int pretty)
{
    memset(w, 0, offsetof(fc_jw, buf));
    w->fd = fd;
    w->pretty = pretty;
}

static void open_(fc_jw *w, const char *key, const char *tok)
{
    member(w, key);
    puts_(w, tok);
    if (w->depth + 1 < FC_JW_MAX_DEPTH)
        w->depth++;
    w->first[w->depth] = 1;
}

static void close_(fc_jw *w, const char *tok)
{
    int empty = w->first[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (!empty)
        indent(w);
    puts_(w, tok);
}

void fc_jw_obj_begin(fc_jw *w, const char *key) { open_(w, key, "{"); }
void fc_jw_obj_end(fc_jw *w) { close_(w, "}"); }
void fc_jw_arr_begin(fc_jw *w, const char *key) { open_(w, key, "["); }
void fc_jw_arr_end(fc_jw *w) { close_(w, "]"); }

void fc_jw_str(fc_jw *w, const char *key, const char *v)
{
    member(w, key);
    if (v == NULL)
        puts_(w, "null");
    else
        quoted(w, v);
}

void fc_jw_u128(fc_jw *w, const char *key, fc_u128 v)
{
    char b[FC_U128_DIGITS];
    member(w, key);
    puts_(w, fc_u128_to_str(v, b));
}

void fc_jw_u64(fc_jw *w, const char *key, uint64_t v) { fc_jw_u128(w, key, v); }

void fc_jw_i64(fc_jw *w, const char *key, int64_t v)
{
    char b[32];
    member(w, key);
    snprintf(b, sizeof b, "%lld", (long long)v);
    puts_(w, b);
}

/* The loop fc_jw_double stood on, from prec on: the first precision of
 * 17 or fewer whose "%.*g" reads back as v. */
static int shortest_from(double v, int prec)
{
    char b[40];
    for (; prec < 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, v);
        char *end;
        double back = strtod(b, &end);
        if (end != b && back == v)
            break;
    }
    return prec;
}

/* The same answer with one printing of 17 digits instead of one a try:
 * "%.*g" at prec is the 17-digit form rounded to prec digits (printf
 * rounds the exact value, and the two agree unless the digits dropped are
 * exactly 5 then zeros: then printf decides, by the loop), and whether that
 * decimal reads back is asked of fc_decimal_div_pow10, strtod's rounding
 * without a string (decimals with no digits before the point beyond prec;
 * other ones by the loop). */
static int shortest_prec(double v)
{
    char b[40];
    snprintf(b, sizeof b, "%.6g", v); /* most figures: six digits do */
    char *end;
    double back = strtod(b, &end);
    if (end != b && back == v)
        return 6;
    double a = fabs(v);
    snprintf(b, sizeof b, "%.16e", a); /* d.dddddddddddddddde+XX */
    char dig[17];
    dig[0] = b[0];
    memcpy(dig + 1, b + 2, 16);
    int exp10 = atoi(b + 19);
    for (int prec = 7; prec < 17; prec++) {
        int zeros = 1;
        for (int i = prec + 1; i < 17; i++)
            zeros &= dig[i] == '0';
        if (dig[prec] == '5' && zeros)
            return shortest_from(v, prec); /* a tie in the 17 digits: printf's to round */
        uint64_t mant = 0;
        for (int i = 0; i < prec; i++)
            mant = mant * 10 + (uint64_t)(dig[i] - '0');
        int e = exp10;
        uint64_t decade = 1; /* 10^prec, without libm (the shim maps no libm) */
        for (int i = 0; i < prec; i++)
            decade *= 10;
        if (dig[prec] >= '5' && ++mant == decade) {
            mant /= 10; /* 9.99... rounded up to 10.0...: one digit fewer, one decade up */
            e++;
        }
        int k = prec - 1 - e; /* the decimal is mant / 10^k */
        double c;
        if (k < 0 || fc_decimal_div_pow10(mant, (unsigned)k, &c) != 0)
            return shortest_from(v, prec);
        if (c == a)
            return prec;
    }
    return 17;
}

void fc_jw_double(fc_jw *w, const char *key, double v)
{
    char b[40];
    member(w, key);
    if (!isfinite(v)) {
        puts_(w, "null");
        return;
    }
    /* the shortest form that reads back exactly (6 to 17 digits) */
    snprintf(b, sizeof b, "%.*g", shortest_prec(v), v);
    puts_(w, b);
}

void fc_jw_bool(fc_jw *w, const char *key, int v)
{
    member(w, key);
    puts_(w, v ? "true" : "false");
}

void fc_jw_null(fc_jw *w, const char *key)
{
    member(w, key);
    puts_(w, "null");
}

int fc_jw_finish(fc_jw *w)
{
    if (w->pretty)
        put(w, "\n", 1);
    flush(w);
    if (w->err) {
        errno = w->err;
        return -1;
    }
    return 0;
}
