/* SPDX-License-Identifier: Apache-2.0 */
/* json_get.h - typed getters for the report readers (report_read.c,
 * report_gpu.c): an absent member keeps the caller's default; a member of
 * the wrong type records the first error, naming the field
 * ("totals.gemm_flops: expected a non-negative integer"), and every later
 * call leaves the error as it is. Big integers arrive as strings of digits
 * (the readers quote them before json-c parses the text). */
#ifndef FC_JSON_GET_H
#define FC_JSON_GET_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "u128.h"

typedef struct fc_jctx {
    char *err; /* where the first error goes (may be NULL) */
    size_t errlen;
    int failed;
} fc_jctx;

void fc_jfail(fc_jctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The member key of object o; NULL when absent or o is no object. */
json_object *fc_jmember(json_object *o, const char *key);
/* A JSON int >= 0 or a string of digits; -1 otherwise. */
int fc_jto_u128(json_object *v, fc_u128 *out);

/* The whole file at path in a malloc'ed buffer (*len bytes, NUL-terminated);
 * NULL with the reason in c when it cannot be opened or read, is larger
 * than max bytes, or memory runs out. */
char *fc_jread_file(fc_jctx *c, const char *path, size_t max, size_t *len);

/* sec is the field's section ("" at the top level); required: a missing
 * member is an error. */
void fc_jget_u128(fc_jctx *c, json_object *o, const char *sec, const char *key, fc_u128 *out,
                  int required);
void fc_jget_u64(fc_jctx *c, json_object *o, const char *sec, const char *key, uint64_t *out,
                 int required);
/* Signed; null means "not known" and gives -1. */
void fc_jget_i64(fc_jctx *c, json_object *o, const char *sec, const char *key, int64_t *out);
/* As fc_jget_i64, within -1 .. 2^30. */
void fc_jget_long(fc_jctx *c, json_object *o, const char *sec, const char *key, long *out);
/* Finite number; null (how the writers spell NaN) keeps the default. */
void fc_jget_double(fc_jctx *c, json_object *o, const char *sec, const char *key, double *out);
/* A string copied (truncated to size); null keeps the default. */
void fc_jget_str(fc_jctx *c, json_object *o, const char *sec, const char *key, char *out,
                 size_t size);
void fc_jget_bool(fc_jctx *c, json_object *o, const char *sec, const char *key, int *out);
/* The member as an object or array (want), NULL when absent or null; the
 * wrong type is an error. */
json_object *fc_jsection(fc_jctx *c, json_object *o, const char *key, enum json_type want);

#endif
