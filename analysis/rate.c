/* SPDX-License-Identifier: Apache-2.0 */
/* rate.c - FLOP/s with an SI prefix (rate.h). */
#include "rate.h"

#include <math.h>
#include <stdio.h>

char *fc_rate_text(double flops_per_second, char *out, size_t size)
{
    static const char prefix[] = {'\0', 'k', 'M', 'G', 'T', 'P', 'E'};
    double v = flops_per_second;
    if (!isfinite(v) || v <= 0) {
        snprintf(out, size, "0 FLOP/s");
        return out;
    }
    int p = 0;
    while (v >= 1000.0 && p < 6) {
        v /= 1000.0;
        p++;
    }
    /* three significant digits; a mantissa that rounds up to 1000 takes
     * the next prefix */
    int decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
    if (decimals == 0 && v >= 999.5 && p < 6) {
        v /= 1000.0;
        p++;
        decimals = 2;
    }
    if (p == 0)
        snprintf(out, size, "%.*f FLOP/s", decimals, v);
    else
        snprintf(out, size, "%.*f %cFLOP/s", decimals, v, prefix[p]);
    return out;
}
