/* SPDX-License-Identifier: Apache-2.0 */
/* mangled.c - template arguments of a mangled name (mangled.h).
 *
 * A recursive-descent skipper over the Itanium C++ ABI's grammar, as much
 * of it as nvcc writes in kernel names: <nested-name> N...E, <source-name>
 * <length><identifier>, <template-args> I...E, <expr-primary> literals
 * L<type><value>E (and L_Z...E), builtin types, CV- and ref-qualifiers,
 * pointers, substitutions S_ / S<seq>_ / St..., template parameters T_,
 * argument packs J...E and expressions X...E (skipped by nesting). A
 * construct outside it (local names, lambdas' closure types, function
 * types) makes the parse fail: the caller then does not decode the kernel
 * and says why. Depth and length are bounded; a malformed name cannot
 * make it read past its end. */
#include "mangled.h"

#include <stddef.h>
#include <string.h>

#define MAX_DEPTH 32

typedef struct cur {
    const char *p, *end;
    int depth;
} cur;

static int at(const cur *c, char ch)
{
    return c->p < c->end && *c->p == ch;
}

static int digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static int skip_type(cur *c);
static int skip_args(cur *c);

static int skip_source_name(cur *c)
{
    size_t n = 0;
    while (c->p < c->end && digit(*c->p))
        n = n * 10 + (size_t)(*c->p++ - '0');
    if (n == 0 || (size_t)(c->end - c->p) < n)
        return -1;
    c->p += n;
    return 0;
}

/* S_, S<base 36>_, St / Sa / Sb / Ss / Si / So / Sd */
static int skip_substitution(cur *c)
{
    c->p++; /* 'S' */
    if (c->p >= c->end)
        return -1;
    if (strchr("tabsiod", *c->p) != NULL && *c->p != '\0') {
        c->p++;
        return 0;
    }
    while (c->p < c->end && *c->p != '_') {
        if (!digit(*c->p) && !(*c->p >= 'A' && *c->p <= 'Z'))
            return -1;
        c->p++;
    }
    if (!at(c, '_'))
        return -1;
    c->p++;
    return 0;
}

/* T_ or T<n>_ */
static int skip_template_param(cur *c)
{
    c->p++;
    while (c->p < c->end && digit(*c->p))
        c->p++;
    if (!at(c, '_'))
        return -1;
    c->p++;
    return 0;
}

static int skip_nested(cur *c)
{
    c->p++; /* 'N' */
    while (c->p < c->end && strchr("rVKRO", *c->p) != NULL && *c->p != '\0')
        c->p++;
    while (c->p < c->end && *c->p != 'E') {
        int rc;
        if (digit(*c->p))
            rc = skip_source_name(c);
        else if (*c->p == 'I')
            rc = skip_args(c);
        else if (*c->p == 'S')
            rc = skip_substitution(c);
        else if (*c->p == 'T')
            rc = skip_template_param(c);
        else
            return -1;
        if (rc != 0)
            return -1;
    }
    if (!at(c, 'E'))
        return -1;
    c->p++;
    return 0;
}

/* L<type><value>E, L_Z<encoding>E, L<type>E */
static int skip_literal(cur *c, fc_targ *t)
{
    c->p++; /* 'L' */
    if (at(c, '_')) { /* an external name: skip to the matching E by nesting */
        int nest = 1;
        while (c->p < c->end && nest > 0) {
            if (*c->p == 'E')
                nest--;
            else if (*c->p == 'N' || *c->p == 'I')
                nest++;
            c->p++;
        }
        if (t)
            t->kind = FC_TARG_OTHER;
        return nest == 0 ? 0 : -1;
    }
    char type = c->p < c->end ? *c->p : '\0';
    if (type >= 'a' && type <= 'z') {
        c->p++;
    } else if (skip_type(c) != 0) {
        return -1;
    }
    int neg = 0;
    if (at(c, 'n')) {
        neg = 1;
        c->p++;
    }
    int64_t v = 0;
    int any = 0;
    while (c->p < c->end && digit(*c->p) && v < ((int64_t)1 << 56)) {
        v = v * 10 + (*c->p++ - '0');
        any = 1;
    }
    if (!at(c, 'E'))
        return -1;
    c->p++;
    if (t) {
        t->kind = !any ? FC_TARG_OTHER : type == 'b' ? FC_TARG_BOOL : FC_TARG_INT;
        t->value = neg ? -v : v;
    }
    return 0;
}

/* skips a balanced X...E expression or J...E pack */
static int skip_balanced(cur *c)
{
    int nest = 0;
    do {
        if (c->p >= c->end)
            return -1;
        if (digit(*c->p)) {
            if (skip_source_name(c) != 0)
                return -1;
            continue;
        }
        if (strchr("XJNIL", *c->p) != NULL && *c->p != '\0')
            nest++;
        else if (*c->p == 'E')
            nest--;
        c->p++;
    } while (nest > 0);
    return 0;
}

static int skip_arg(cur *c, fc_targ *t)
{
    const char *b = c->p;
    int rc;
    if (t)
        t->kind = FC_TARG_TYPE;
    if (at(c, 'L')) {
        rc = skip_literal(c, t);
    } else if (at(c, 'X') || at(c, 'J')) {
        rc = skip_balanced(c);
        if (t)
            t->kind = FC_TARG_OTHER;
    } else {
        rc = skip_type(c);
    }
    if (t) {
        t->begin = b;
        t->end = c->p;
    }
    return rc;
}

static int skip_args(cur *c)
{
    if (++c->depth > MAX_DEPTH)
        return -1;
    c->p++; /* 'I' */
    while (c->p < c->end && *c->p != 'E')
        if (skip_arg(c, NULL) != 0)
            return -1;
    if (!at(c, 'E'))
        return -1;
    c->p++;
    c->depth--;
    return 0;
}

static int skip_type(cur *c)
{
    if (c->p >= c->end || ++c->depth > MAX_DEPTH)
        return -1;
    int rc = 0;
    char ch = *c->p;
    if (ch == 'r' || ch == 'V' || ch == 'K' || ch == 'P' || ch == 'R' || ch == 'O') {
        c->p++;
        rc = skip_type(c);
    } else if (ch == 'D') { /* Dn, Dh, Df, Ds, Di, Du, Da, Dc: two characters */
        if (c->end - c->p < 2)
            return -1;
        c->p += 2;
    } else if (ch >= 'a' && ch <= 'z') {
        c->p++;
    } else if (ch == 'N') {
        rc = skip_nested(c);
    } else if (digit(ch)) {
        rc = skip_source_name(c);
        if (rc == 0 && at(c, 'I'))
            rc = skip_args(c);
    } else if (ch == 'S') {
        rc = skip_substitution(c);
        if (rc == 0 && at(c, 'I'))
            rc = skip_args(c);
    } else if (ch == 'T') {
        rc = skip_template_param(c);
    } else {
        return -1; /* local names, closures, function and array types */
    }
    c->depth--;
    return rc;
}

int fc_mangled_has(const char *begin, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = begin; p != NULL && p + n <= end; p++) {
        p = memchr(p, needle[0], (size_t)(end - p));
        if (p == NULL || p + n > end)
            return 0;
        if (memcmp(p, needle, n) == 0)
            return 1;
    }
    return 0;
}

int fc_mangled_targs(const char *name, const char *limit, const char *source, fc_targ *out,
                     int max)
{
    if (name == NULL || source == NULL)
        return -1;
    const char *end = limit ? limit : name + strlen(name);
    size_t n = strlen(source);
    const char *p = name;
    for (;;) {
        p = memchr(p, source[0], (size_t)(end - p));
        if (p == NULL || p + n >= end)
            return -1;
        /* a whole source name: not the tail of a longer length prefix */
        if (memcmp(p, source, n) == 0 && p[n] == 'I' && (p == name || !digit(p[-1])))
            break;
        p++;
    }
    cur c = {p + n, end, 0};
    c.p++; /* 'I' */
    int count = 0;
    while (c.p < c.end && *c.p != 'E') {
        fc_targ t;
        if (skip_arg(&c, &t) != 0)
            return -1;
        if (count < max)
            out[count] = t;
        count++;
    }
    return at(&c, 'E') ? count : -1;
}
