/* SPDX-License-Identifier: Apache-2.0 */
/* parse.h - strict parsing of option values (environment and flags).
 *
 * Each returns 0 on success and -1 on anything it does not fully understand
 * (empty, trailing junk, out of range); *out is untouched on failure, so the
 * caller keeps its default and says so. */
#ifndef FC_PARSE_H
#define FC_PARSE_H

#include <stdint.h>

/* 1/0, true/false, yes/no, on/off (any case). */
int fc_parse_bool(const char *s, int *out);
/* Decimal, 0 .. max. */
int fc_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* Finite decimal or exponent form within [min, max]. */
int fc_parse_double(const char *s, double min, double max, double *out);

#endif
