/* SPDX-License-Identifier: Apache-2.0 */
/* json_get.c - typed getters of the report readers (json_get.h). */
#include "json_get.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fc_jfail(fc_jctx *c, const char *fmt, ...)
{
    if (c->failed)
        return; /* the first reason is the useful one */
    c->failed = 1;
    if (c->err == NULL || c->errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
}

json_object *fc_jmember(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (o == NULL || !json_object_is_type(o, json_type_object) ||
        !json_object_object_get_ex(o, key, &v))
        return NULL;
    return v;
}

/* Integer from a JSON int (>= 0) or a string of digits (big values). */
int fc_jto_u128(json_object *v, fc_u128 *out)
{
    if (json_object_is_type(v, json_type_int)) {
        int64_t x = json_object_get_int64(v);
        if (x < 0)
            return -1;
        *out = (fc_u128)x;
        return 0;
    }
    if (json_object_is_type(v, json_type_string))
        return fc_u128_parse(json_object_get_string(v), (size_t)json_object_get_string_len(v), out);
    return -1;
}

void fc_jget_u128(fc_jctx *c, json_object *o, const char *sec, const char *key, fc_u128 *out,
                  int required)
{
    json_object *v = fc_jmember(o, key);
    if (v == NULL) {
        if (required)
            fc_jfail(c, "%s%s%s: missing", sec, *sec ? "." : "", key);
        return;
    }
    if (fc_jto_u128(v, out) != 0)
        fc_jfail(c, "%s%s%s: expected a non-negative integer", sec, *sec ? "." : "", key);
}

void fc_jget_u64(fc_jctx *c, json_object *o, const char *sec, const char *key, uint64_t *out,
                 int required)
{
    fc_u128 v = *out;
    fc_jget_u128(c, o, sec, key, &v, required);
    if (v > UINT64_MAX)
        fc_jfail(c, "%s%s%s: %s", sec, *sec ? "." : "", key, "too large");
    else
        *out = (uint64_t)v;
}

/* Signed integer; null means "not known" and gives -1. */
void fc_jget_i64(fc_jctx *c, json_object *o, const char *sec, const char *key, int64_t *out)
{
    json_object *v = fc_jmember(o, key);
    if (v == NULL)
        return;
    fc_u128 big;
    if (json_object_is_type(v, json_type_null))
        *out = -1;
    else if (json_object_is_type(v, json_type_int))
        *out = json_object_get_int64(v);
    else if (json_object_is_type(v, json_type_string) && json_object_get_string_len(v) >= 19 &&
             fc_jto_u128(v, &big) == 0 && big <= (fc_u128)INT64_MAX)
        *out = (int64_t)big; /* a 19-digit literal the quoting pass made a string (ns times) */
    else
        fc_jfail(c, "%s%s%s: expected an integer", sec, *sec ? "." : "", key);
}

void fc_jget_long(fc_jctx *c, json_object *o, const char *sec, const char *key, long *out)
{
    int64_t v = *out;
    fc_jget_i64(c, o, sec, key, &v);
    if (v < -1 || v > (1 << 30))
        fc_jfail(c, "%s%s%s: out of range", sec, *sec ? "." : "", key);
    else
        *out = (long)v;
}

/* Finite number; null (how the writer spells NaN) keeps NaN. */
void fc_jget_double(fc_jctx *c, json_object *o, const char *sec, const char *key, double *out)
{
    json_object *v = fc_jmember(o, key);
    if (v == NULL || json_object_is_type(v, json_type_null))
        return;
    fc_u128 big;
    double d;
    if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
        d = json_object_get_double(v);
    else if (json_object_is_type(v, json_type_string) && fc_jto_u128(v, &big) == 0)
        d = fc_u128_to_double(big); /* a 19+ digit literal we quoted */
    else {
        fc_jfail(c, "%s%s%s: expected a number", sec, *sec ? "." : "", key);
        return;
    }
    if (!isfinite(d))
        fc_jfail(c, "%s%s%s: not a finite number", sec, *sec ? "." : "", key);
    else
        *out = d;
}

/* Copies a string member (truncated to size); null leaves "". */
void fc_jget_str(fc_jctx *c, json_object *o, const char *sec, const char *key, char *out,
                 size_t size)
{
    json_object *v = fc_jmember(o, key);
    if (v == NULL || json_object_is_type(v, json_type_null))
        return;
    if (!json_object_is_type(v, json_type_string)) {
        fc_jfail(c, "%s%s%s: expected a string", sec, *sec ? "." : "", key);
        return;
    }
    snprintf(out, size, "%s", json_object_get_string(v));
}

void fc_jget_bool(fc_jctx *c, json_object *o, const char *sec, const char *key, int *out)
{
    json_object *v = fc_jmember(o, key);
    if (v == NULL)
        return;
    if (!json_object_is_type(v, json_type_boolean))
        fc_jfail(c, "%s%s%s: expected true or false", sec, *sec ? "." : "", key);
    else
        *out = json_object_get_boolean(v) ? 1 : 0;
}

/* The member as an object/array, NULL when absent; wrong type fails. */
json_object *fc_jsection(fc_jctx *c, json_object *o, const char *key, enum json_type want)
{
    json_object *v = fc_jmember(o, key);
    if (v == NULL || json_object_is_type(v, json_type_null))
        return NULL;
    if (!json_object_is_type(v, want)) {
        fc_jfail(c, "%s: expected %s", key, want == json_type_object ? "an object" : "an array");
        return NULL;
    }
    return v;
}

/* open, fstat, read: a file of the size fstat says is one buffer and two
 * reads (the second sees the end), where stdio took two buffers and eight
 * system calls; 10,240 rank reports are read per merge. */
char *fc_jread_file(fc_jctx *c, const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fc_jfail(c, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    size_t cap = 1 << 16, n = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size < max)
        cap = (size_t)st.st_size + 1; /* room for one byte more: the end is seen at once */
    char *buf = malloc(cap + 1);
    int bad = 0;
    while (buf != NULL && n <= max) {
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            bad = got < 0;
            break;
        }
        n += (size_t)got;
        if (n == cap) {
            char *bigger = realloc(buf, cap * 2 + 1);
            if (bigger == NULL)
                free(buf);
            buf = bigger;
            cap *= 2;
        }
    }
    close(fd);
    if (buf == NULL)
        fc_jfail(c, "out of memory");
    else if (bad)
        fc_jfail(c, "read error");
    else if (n > max)
        fc_jfail(c, "larger than %zu MiB; not a report", max >> 20);
    if (c->failed) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
