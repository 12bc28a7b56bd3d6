/* SPDX-License-Identifier: Apache-2.0 */
/* u128.h - exact 128-bit FLOP arithmetic and its decimal text form.
 *
 * FLOP totals pass 2^64 in long runs (a GPT-3-sized iteration is 3.4e18), so
 * every count is an unsigned __int128 and is printed and parsed as an exact
 * decimal integer, never through a double. */
#ifndef FC_U128_H
#define FC_U128_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned __int128 fc_u128;

#define FC_U128_MAX (~(fc_u128)0)
/* Longest decimal form of a u128 is 39 digits; 40 with the NUL. */
#define FC_U128_DIGITS 40

/* Writes v as decimal into buf (at least FC_U128_DIGITS bytes); returns buf. */
char *fc_u128_to_str(fc_u128 v, char *buf);

/* Parses a plain decimal (digits only, no sign, no spaces) of at most 39
 * digits. Returns 0 and sets *out on success, -1 on anything else, including
 * overflow. len is the number of bytes of s to read. */
int fc_u128_parse(const char *s, size_t len, fc_u128 *out);

/* a + b and a * b, saturating at FC_U128_MAX instead of wrapping. */
fc_u128 fc_u128_sat_add(fc_u128 a, fc_u128 b);
fc_u128 fc_u128_sat_mul(fc_u128 a, fc_u128 b);

/* v with an SI prefix, for the eye: "25.30 GFLOP", "48 FLOP" (unit "FLOP").
 * The exact integer is always printed beside it. Returns buf. */
char *fc_u128_si(fc_u128 v, const char *unit, char *buf, size_t size);

/* Nearest double, for ratios such as MFU (only ever used for display). */
double fc_u128_to_double(fc_u128 v);

#endif
