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
/* ... FC_SCHEMA_C_I64 (signed: null reads as -1), FC_SCHEMA_C_BOOL,
 * FC_SCHEMA_C_TRANS (an operand's transpose 'N', 'T', 'C': a one-letter
 * string; '?' when not known, null in JSON), FC_SCHEMA_C_STR<size> (a
 * string kept in a buffer of size bytes: "" when absent, null in JSON),
 * FC_SCHEMA_C_TEXT (a sentence for people: written from a pointer, NULL
 * null; readers check it is a string and do not keep it). */
#define FC_SCHEMA_C_I64 int64_t
#define FC_SCHEMA_C_BOOL int
#define FC_SCHEMA_C_TRANS char
#define FC_SCHEMA_C_TEXT const char *
typedef char fc_schema_str16[16];
typedef char fc_schema_str24[24];
typedef char fc_schema_str32[32];
typedef char fc_schema_str48[48];
#define FC_SCHEMA_C_STR16 fc_schema_str16
#define FC_SCHEMA_C_STR24 fc_schema_str24
#define FC_SCHEMA_C_STR32 fc_schema_str32
#define FC_SCHEMA_C_STR48 fc_schema_str48

enum { FC_SCHEMA_U64, FC_SCHEMA_U128, FC_SCHEMA_DBL };
enum { FC_SCHEMA_I64 = FC_SCHEMA_DBL + 1, FC_SCHEMA_BOOL, FC_SCHEMA_TRANS, FC_SCHEMA_STR, FC_SCHEMA_TEXT };
#define FC_SCHEMA_STR16 FC_SCHEMA_STR
#define FC_SCHEMA_STR24 FC_SCHEMA_STR
#define FC_SCHEMA_STR32 FC_SCHEMA_STR
#define FC_SCHEMA_STR48 FC_SCHEMA_STR

typedef struct fc_schema_field {
    const char *name;
    int type; /* FC_SCHEMA_U64, FC_SCHEMA_U128, FC_SCHEMA_DBL, ... (one per C type) */
    int required;
    const char *unit, *meaning;
    size_t offset; /* in the section's record struct */
    size_t size;   /* of the member there (a STR row's buffer) */
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
    {#name, FC_SCHEMA_##type, req, unit, meaning, offsetof(P, name), sizeof(((P *)0)->name)},
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
 * counters do, U128 rows saturate (fc_u128_sat_add), DBL rows add; I64
 * rows add, BOOL rows or; the other rows keep dst's. */
void fc_schema_add(const fc_schema_field *f, int n, void *dst, const void *src);

#endif
