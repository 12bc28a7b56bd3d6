/* SPDX-License-Identifier: Apache-2.0 */
/* decimal.c - m / 10^k rounded as strtod rounds it (decimal.h). */
#include "decimal.h"

#include <string.h>

static int bit_length(unsigned __int128 x)
{
    int n = 0;
    for (; x >> 64; x >>= 64)
        n += 64;
    return n + ((uint64_t)x ? 64 - __builtin_clzll((uint64_t)x) : 0);
}

/* 2^e for the exponents a quotient here has (|e| < 200: normal doubles),
 * from its bits: ldexp would make the shim map libm (footprint_idle). */
static double pow2(int e)
{
    uint64_t bits = (uint64_t)(1023 + e) << 52;
    double p;
    memcpy(&p, &bits, sizeof p);
    return p;
}

/* m / 10^k taken to 56 or more bits by one 128-bit division (m shifted up
 * first: 127 bits at most, as 10^21 < 2^70); the bits below the 53 kept
 * and the remainder then decide: above half up, below down, exactly half
 * (remainder 0) to the even neighbour. */
int fc_decimal_div_pow10(uint64_t m, unsigned k, double *out)
{
    if (k > 21)
        return -1;
    if (m == 0) {
        *out = 0.0;
        return 0;
    }
    unsigned __int128 d = 1;
    for (unsigned i = 0; i < k; i++)
        d *= 10;
    int bm = bit_length(m), bd = bit_length(d);
    int shift = bd + 56 - bm > 0 ? bd + 56 - bm : 0;
    unsigned __int128 n = (unsigned __int128)m << shift;
    unsigned __int128 q = n / d, r = n % d;
    int drop = bit_length(q) - 53; /* 3 or more: q has 56 bits or more */
    uint64_t mant = (uint64_t)(q >> drop);
    uint64_t low = (uint64_t)q & ((1ull << drop) - 1), half = 1ull << (drop - 1);
    if (low > half || (low == half && (r != 0 || (mant & 1))))
        mant++;
    if (mant == 1ull << 53) {
        mant >>= 1;
        drop++;
    }
    *out = (double)mant * pow2(drop - shift);
    return 0;
}
