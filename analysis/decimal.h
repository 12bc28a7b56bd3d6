/* SPDX-License-Identifier: Apache-2.0 */
/* decimal.h - a decimal m / 10^k made a double exactly as strtod makes it
 * (to nearest, ties to even), by integer arithmetic: for the report
 * reader's fast path (analysis/io/report_fast.c), which must read what
 * json-c's strtod reads, and the JSON writer's shortest round trip
 * (jsonw.c), which asks whether a printed form reads back. */
#ifndef FC_DECIMAL_H
#define FC_DECIMAL_H

#include <stdint.h>

/* m / 10^k for k <= 21 into *out (0); -1 when k is larger. */
int fc_decimal_div_pow10(uint64_t m, unsigned k, double *out);

#endif
