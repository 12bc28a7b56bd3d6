/* SPDX-License-Identifier: Apache-2.0 */
/* jsonw.h - a small streaming JSON writer over a file descriptor.
 *
 * Used by the shim at exit (no stdio, no malloc: a fixed buffer flushed with
 * write(2)) and by the CLI. Integers are exact: 128-bit counts are written as
 * plain decimal JSON numbers. */
#ifndef FC_JSONW_H
#define FC_JSONW_H

#include <stddef.h>
#include <stdint.h>

#include "u128.h"

#define FC_JW_MAX_DEPTH 32

typedef struct fc_jw {
    int fd;
    int err;   /* first write error (errno), 0 when fine */
    int depth;
    int pretty;
    unsigned char first[FC_JW_MAX_DEPTH]; /* no member written yet at depth */
    size_t len;
    char buf[16384];
} fc_jw;

void fc_jw_init(fc_jw *w, int fd, int pretty);
/* key is NULL inside arrays and for the top-level value. */
void fc_jw_obj_begin(fc_jw *w, const char *key);
void fc_jw_obj_end(fc_jw *w);
void fc_jw_arr_begin(fc_jw *w, const char *key);
void fc_jw_arr_end(fc_jw *w);
void fc_jw_str(fc_jw *w, const char *key, const char *v); /* NULL -> null */
void fc_jw_u128(fc_jw *w, const char *key, fc_u128 v);
void fc_jw_u64(fc_jw *w, const char *key, uint64_t v);
void fc_jw_i64(fc_jw *w, const char *key, int64_t v);
/* Shortest round-trip form; NaN and infinities become null. */
void fc_jw_double(fc_jw *w, const char *key, double v);
void fc_jw_bool(fc_jw *w, const char *key, int v);
void fc_jw_null(fc_jw *w, const char *key);
/* Flushes; returns 0, or -1 with errno set from the first failure. */
int fc_jw_finish(fc_jw *w);

#endif
