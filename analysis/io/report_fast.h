/* SPDX-License-Identifier: Apache-2.0 */
/* report_fast.h - the report reader's fast path for its two big arrays,
 * "shapes" and "iterations.list" (about 70 % of a rank report's bytes):
 * read straight into flat arrays by the tree-less scanner (json_scan.h),
 * and cut out of the text json-c then parses for the rest.
 *
 * Same result or none: each entry is read by the rules of report_read.c
 * (defaults, types, required members); anything those rules would refuse,
 * and anything plain strict JSON would not say (escapes in a value read,
 * a key twice, a leading zero, a surrogate escape), makes the scan return
 * -1 and the reader parse the whole text with json-c as before, so errors
 * keep json-c's wording. Internal to analysis/io (report_read.c). */
#ifndef FC_REPORT_FAST_H
#define FC_REPORT_FAST_H

#include <stddef.h>

#include "report_read.h"

typedef struct fc_report_fast {
    fc_report_shape *shapes; /* NULL: the text has no "shapes" array */
    size_t n_shapes;
    fc_report_iter *list; /* NULL: no "iterations.list" array */
    size_t n_list;
    size_t cut[2][2]; /* [start, end) of those arrays in the text, in order */
    size_t n_cut;
} fc_report_fast;

/* Scans text for the two arrays and reads them. 0 with *f filled (n_cut 0:
 * neither is there), or -1 (f emptied): parse the text the slow way. */
int fc_report_fast_scan(const char *text, size_t len, fc_report_fast *f);
/* text with each cut array replaced by [] (malloc'd, NUL-terminated, its
 * length in *outlen); NULL when out of memory. */
char *fc_report_fast_cut(const char *text, size_t len, const fc_report_fast *f, size_t *outlen);
void fc_report_fast_free(fc_report_fast *f);

/* A test's hook (tests/run/schema_keys_reader.c defines it; the command
 * does not, so it is NULL there and costs a test of a constant): each
 * entry read calls it with the entry's path ("shapes[]") and every key its
 * table asks for. */
extern void fc_report_fast_asked(const char *entry, const char *key) __attribute__((weak));

#endif
