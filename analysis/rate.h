/* SPDX-License-Identifier: Apache-2.0 */
/* rate.h - a FLOP rate for the eye, with the SI prefix that fits it
 * (rate.c): the live line's "3.60 GFLOP/s" where a fixed TFLOP/s unit
 * said "0.00 TFLOP/s". */
#ifndef FC_RATE_H
#define FC_RATE_H

#include <stddef.h>

/* flops_per_second as three significant digits and a unit from FLOP/s to
 * EFLOP/s: "3.60 GFLOP/s", "156 TFLOP/s", "1.00 PFLOP/s"; the prefix is
 * chosen after rounding (999.996e9 is "1.00 TFLOP/s", never
 * "1000 GFLOP/s"). 0, a negative or a non-finite rate: "0 FLOP/s".
 * Returns out. */
char *fc_rate_text(double flops_per_second, char *out, size_t size);

#endif
