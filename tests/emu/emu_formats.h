/* SPDX-License-Identifier: Apache-2.0 */
/* emu_formats.h - the narrow float formats the CPU emulations of cuBLAS and
 * cuBLASLt read and write: BF16 both ways, OCP FP8 (E4M3, E5M2) read.
 * Exact, libm-free (the emulations compute in float or double). */
#ifndef EMU_FORMATS_H
#define EMU_FORMATS_H

#include <stdint.h>
#include <string.h>

static inline float bf16_to_float(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint16_t float_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (f != f)
        return 0x7fc0; /* NaN */
    u += 0x7fff + ((u >> 16) & 1); /* round to nearest even */
    return (uint16_t)(u >> 16);
}

/* An 8-bit float: 1 sign bit, ebits exponent bits of bias, the rest
 * mantissa (E4M3: 4, 7; E5M2: 5, 15). E4M3's all-ones and E5M2's top
 * exponent (NaN, infinity) are not used by the tests. */
static inline double fp8_to_double(uint8_t x, int ebits, int bias)
{
    int mbits = 7 - ebits, e = (x >> mbits) & ((1 << ebits) - 1), m = x & ((1 << mbits) - 1);
    double v = e == 0 ? (double)m / (double)(1 << mbits) : 1.0 + (double)m / (double)(1 << mbits);
    for (int p = e == 0 ? 1 - bias : e - bias; p > 0; p--)
        v *= 2;
    for (int p = e == 0 ? 1 - bias : e - bias; p < 0; p++)
        v /= 2;
    return (x & 0x80) ? -v : v;
}

/* FP4 E2M1 (two per byte, element 2i in the low nibble): 1 sign, 2
 * exponent bits (bias 1), 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6. */
static inline double fp4_to_double(uint8_t byte, int high)
{
    static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    uint8_t x = high ? (uint8_t)(byte >> 4) : (uint8_t)(byte & 0xf);
    return (x & 0x8) ? -mag[x & 7] : mag[x & 7];
}

#endif
