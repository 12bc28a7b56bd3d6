/* SPDX-License-Identifier: Apache-2.0 */
/* job_splice.c - top-level members of a JSON object replaced or added
 * without parsing the values: a part's report goes into the job report
 * byte for byte (big integers and all) except the members the job sums.
 * The texts come from our own writers and were validated by the reader;
 * anything that does not scan as an object is refused, never guessed at. */
#include <stdlib.h>
#include <string.h>

#include "job.h"

typedef struct span {
    const char *key, *val; /* key with its quotes; value */
    size_t key_len, val_len;
} span;

typedef struct members {
    span *v;
    size_t n, cap;
} members;

static size_t skip_ws(const char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* s[i] is '"': the index after the closing quote, or len. */
static size_t skip_string(const char *s, size_t len, size_t i)
{
    for (i++; i < len; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '"')
            return i + 1;
    }
    return len;
}

/* One value from s[i]: the index after it, or len when it does not end. */
static size_t skip_value(const char *s, size_t len, size_t i)
{
    int depth = 0;
    while (i < len) {
        char c = s[i];
        if (c == '"') {
            i = skip_string(s, len, i);
            if (depth == 0)
                return i;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']') {
            if (depth == 0)
                return i; /* the end of the enclosing object: a scalar ended */
            if (--depth == 0)
                return i + 1;
        } else if (c == ',' && depth == 0)
            return i;
        i++;
    }
    return depth == 0 ? i : len;
}

static int scan(const char *s, size_t len, members *m)
{
    size_t i = skip_ws(s, len, 0);
    if (i >= len || s[i] != '{')
        return -1;
    i = skip_ws(s, len, i + 1);
    if (i < len && s[i] == '}')
        return 0;
    while (i < len) {
        if (s[i] != '"')
            return -1;
        span sp = {.key = s + i};
        size_t e = skip_string(s, len, i);
        if (e >= len)
            return -1;
        sp.key_len = e - i;
        i = skip_ws(s, len, e);
        if (i >= len || s[i] != ':')
            return -1;
        i = skip_ws(s, len, i + 1);
        e = skip_value(s, len, i);
        if (e >= len || e == i)
            return -1;
        sp.val = s + i;
        sp.val_len = e - i;
        while (sp.val_len > 0 && strchr(" \t\r\n", sp.val[sp.val_len - 1]) != NULL)
            sp.val_len--;
        if (m->n == m->cap) {
            size_t cap = m->cap ? m->cap * 2 : 32;
            span *b = realloc(m->v, cap * sizeof *b);
            if (b == NULL)
                return -1;
            m->v = b;
            m->cap = cap;
        }
        m->v[m->n++] = sp;
        i = skip_ws(s, len, e);
        if (i < len && s[i] == '}')
            return 0;
        if (i >= len || s[i] != ',')
            return -1;
        i = skip_ws(s, len, i + 1);
    }
    return -1;
}

static const span *find(const members *m, const span *k)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].key_len == k->key_len && memcmp(m->v[i].key, k->key, k->key_len) == 0)
            return &m->v[i];
    return NULL;
}

static void put(char *out, size_t *o, const char *s, size_t n)
{
    memcpy(out + *o, s, n);
    *o += n;
}

static void put_member(char *out, size_t *o, const span *sp, int first)
{
    if (!first)
        put(out, o, ",", 1);
    put(out, o, "\n  ", 3);
    put(out, o, sp->key, sp->key_len);
    put(out, o, ": ", 2);
    put(out, o, sp->val, sp->val_len);
}

char *fc_json_patch_top(const char *base, size_t base_len, const char *patch, size_t patch_len,
                        size_t *out_len)
{
    members b = {0}, p = {0};
    char *out = NULL;
    if (scan(base, base_len, &b) == 0 && scan(patch, patch_len, &p) == 0 &&
        (out = malloc(base_len + patch_len + 16 * (b.n + p.n) + 8)) != NULL) {
        size_t o = 0;
        int first = 1;
        put(out, &o, "{", 1);
        for (size_t i = 0; i < b.n; i++) {
            const span *r = find(&p, &b.v[i]);
            put_member(out, &o, r ? r : &b.v[i], first);
            first = 0;
        }
        for (size_t i = 0; i < p.n; i++)
            if (find(&b, &p.v[i]) == NULL) {
                put_member(out, &o, &p.v[i], first);
                first = 0;
            }
        put(out, &o, "\n}\n", 3);
        out[o] = '\0';
        *out_len = o;
    }
    free(b.v);
    free(p.v);
    return out;
}
