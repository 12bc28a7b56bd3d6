/* SPDX-License-Identifier: Apache-2.0 */
/* u128.c - decimal text form and saturating arithmetic of 128-bit counts. */
#include "u128.h"

#include <stdio.h>

char *fc_u128_to_str(fc_u128 v, char *buf)
{
    char tmp[FC_U128_DIGITS];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v != 0);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return buf;
}

int fc_u128_parse(const char *s, size_t len, fc_u128 *out)
{
    if (s == NULL || len == 0 || len > 39)
        return -1;
    fc_u128 v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (FC_U128_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

fc_u128 fc_u128_sat_add(fc_u128 a, fc_u128 b)
{
    fc_u128 r = a + b;
    return r < a ? FC_U128_MAX : r;
}

fc_u128 fc_u128_sat_mul(fc_u128 a, fc_u128 b)
{
    if (a != 0 && b > FC_U128_MAX / a)
        return FC_U128_MAX;
    return a * b;
}

double fc_u128_to_double(fc_u128 v)
{
    return (double)(uint64_t)(v >> 64) * 18446744073709551616.0 + (double)(uint64_t)v;
}

char *fc_u128_si(fc_u128 v, const char *unit, char *buf, size_t size)
{
    static const char *const prefix[] = {"", "K", "M", "G", "T", "P", "E", "Z", "Y"};
    double d = fc_u128_to_double(v);
    int p = 0;
    while (d >= 1000.0 && p < 8) {
        d /= 1000.0;
        p++;
    }
    if (p == 0)
        snprintf(buf, size, "%.0f %s", d, unit);
    else
        snprintf(buf, size, "%.2f %s%s", d, prefix[p], unit);
    return buf;
}
