/* SPDX-License-Identifier: Apache-2.0 */
/* schema.h - a report section described once, as a table of rows (name,
 * type, required, unit, meaning, where in the section's struct): the
 * section's writers go through fci_schema_json, its reader through
 * fc_schema_read (analysis/io/schema_read.c), so a key string is written
 * in one place, the section's X-macro list (schema_<section>.h). */
#ifndef FC_SCHEMA_H
#define FC_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "jsonw.h"
#include "u128.h"

/* The C type of a row of type T: FC_SCHEMA_C_U64, FC_SCHEMA_C_U128,
 * FC_SCHEMA_C_DBL (a measured figure: null in JSON when NaN). */
#define FC_SCHEMA_C_U64 uint64_t
#define FC_SCHEMA_C_U128 fc_u128
#define FC_SCHEMA_C_DBL double
#define FC_SCHEMA_C_I64 int64_t /* a signed integer (a count that may be -1: not known) */

enum { FC_SCHEMA_U64, FC_SCHEMA_U128, FC_SCHEMA_DBL, FC_SCHEMA_I64 };

typedef struct fc_schema_field {
    const char *name;
    int type; /* FC_SCHEMA_U64, FC_SCHEMA_U128, FC_SCHEMA_DBL, FC_SCHEMA_I64 */
    int required;
    const char *unit, *meaning;
    size_t offset; /* in the section's record struct */
} fc_schema_field;

/* A section's list is FC_<SECTION>_FIELDS(X, P), one row a key:
 *   X(P, name, type, required, unit, meaning)
 * and these three X make of it, once for every section: the record struct
 * (one member a row, of the row's C type), the row indices (P the index
 * prefix: P##name) and the table as data (P the record type):
 * a section's header says FC_SCHEMA_SECTION(LIST, REC, I_, N, FIELDS) and
 * its .c FC_SCHEMA_TABLE(LIST, REC, N, FIELDS). */
#define FC_SCHEMA_MEMBER(P, name, type, req, unit, meaning) FC_SCHEMA_C_##type name;
#define FC_SCHEMA_INDEX(P, name, type, req, unit, meaning) P##name,
#define FC_SCHEMA_ROW(P, name, type, req, unit, meaning) \
    {#name, FC_SCHEMA_##type, req, unit, meaning, offsetof(P, name)},
/* The record struct REC (one member a row), the row indices I_##name and
 * their count N (a row's bit in an omit mask: 1u << I_##name), and the
 * table FIELDS, declared. */
#define FC_SCHEMA_SECTION(LIST, REC, I_, N, FIELDS)                                               \
    typedef struct REC {                                                                          \
        LIST(FC_SCHEMA_MEMBER, _)                                                                 \
    } REC;                                                                                        \
    enum { LIST(FC_SCHEMA_INDEX, I_) N };                                                         \
    extern const fc_schema_field FIELDS[N]
/* ... and the table defined (the section's .c). */
#define FC_SCHEMA_TABLE(LIST, REC, N, FIELDS) const fc_schema_field FIELDS[N] = {LIST(FC_SCHEMA_ROW, REC)}

/* A section's rows inside a larger struct (a reader's): one member M, the
 * record REC that fci_schema_json, fc_schema_read and fc_schema_add take,
 * laid over the rows themselves as members (an anonymous union, C11), so
 * code naming a row keeps naming it as before:
 *   FC_SCHEMA_INLINE(LIST, REC, M); */
#define FC_SCHEMA_INLINE(LIST, REC, M)                                                            \
    union {                                                                                       \
        REC M;                                                                                    \
        struct {                                                                                  \
            LIST(FC_SCHEMA_MEMBER, _)                                                             \
        };                                                                                        \
    }

/* Members of the open JSON object: the n rows of f read from rec, in table
 * order, but those whose bit (1 << row) is in omit. */
void fci_schema_json(fc_jw *w, const fc_schema_field *f, int n, const void *rec, unsigned omit);
/* dst += src, row by row (a sum of runs): U64 rows wrap as the writers'
 * counters do, U128 rows saturate (fc_u128_sat_add), DBL and I64 rows add. */
void fc_schema_add(const fc_schema_field *f, int n, void *dst, const void *src);

#endif
