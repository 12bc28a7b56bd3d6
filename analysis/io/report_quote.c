/* SPDX-License-Identifier: Apache-2.0 */
/* report_quote.c - big integers kept exact through json-c: integer literals
 * of 19 or more digits (INT64_MAX has 19; json-c saturates past it) become
 * JSON strings before parsing, and the reader parses their digits into
 * fc_u128. Strings, fractions, exponents and negative numbers are left as
 * they are. */
#include <stdlib.h>
#include <string.h>

#include "report_read.h"

#define BIG_DIGITS 19

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* A digit run starts a number only after a structural character or space;
 * after a letter, '.', 'e', '+' or '-' it is part of something else (an
 * exponent, a fraction, a negative number: none are FLOP counts). */
static int starts_number(const char *text, size_t i)
{
    if (i == 0)
        return 1;
    char p = text[i - 1];
    return p == ':' || p == ',' || p == '[' || p == ' ' || p == '\n' || p == '\t' || p == '\r';
}

/* Length of the integer literal at i worth quoting, 0 when none. */
static size_t big_literal(const char *text, size_t len, size_t i)
{
    if (!starts_number(text, i))
        return 0;
    size_t j = i;
    while (j < len && is_digit(text[j]))
        j++;
    if (j - i < BIG_DIGITS)
        return 0;
    if (j < len && (text[j] == '.' || text[j] == 'e' || text[j] == 'E'))
        return 0; /* a real number: json-c's double is what it means */
    return j - i;
}

/* End of the string whose opening quote is at text[i]: the index of its
 * closing quote, or len when it has none. A quote preceded by an odd number
 * of backslashes is escaped. memchr keeps long strings cheap. */
static size_t string_end(const char *text, size_t len, size_t i)
{
    for (size_t j = i + 1; j < len;) {
        const char *q = memchr(text + j, '"', len - j);
        if (q == NULL)
            return len;
        size_t at = (size_t)(q - text), bs = 0;
        while (at - bs > i + 1 && text[at - bs - 1] == '\\')
            bs++;
        if (bs % 2 == 0)
            return at;
        j = at + 1;
    }
    return len;
}

/* Copies text to dst (room for len + 2 * (len / BIG_DIGITS) + 1 bytes: at
 * most one quote pair per BIG_DIGITS bytes), quoting big literals; returns
 * the output length. */
static size_t rewrite(const char *text, size_t len, char *dst)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        char ch = text[i];
        size_t run = 1, n = 0;
        if (ch == '"') {
            size_t e = string_end(text, len, i);
            run = (e < len ? e + 1 : len) - i;
        } else if (is_digit(ch)) {
            n = big_literal(text, len, i);
            for (run = 0; i + run < len && is_digit(text[i + run]);)
                run++;
        } else { /* structure and spaces up to the next string or number */
            while (i + run < len && text[i + run] != '"' && !is_digit(text[i + run]))
                run++;
        }
        if (n)
            dst[o++] = '"';
        memcpy(dst + o, text + i, run);
        o += run;
        if (n)
            dst[o++] = '"';
        i += run;
    }
    return o;
}

char *fc_report_quote_big_ints(const char *text, size_t len, size_t *outlen)
{
    char *out = malloc(len + 2 * (len / BIG_DIGITS) + 1);
    if (out == NULL)
        return NULL;
    size_t n = rewrite(text, len, out);
    out[n] = '\0';
    if (outlen)
        *outlen = n;
    return out;
}
