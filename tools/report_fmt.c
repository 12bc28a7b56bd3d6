/* report_fmt.c - human-readable numbers for the 'report' and 'merge' texts. */
#include "report_fmt.h"

#include <math.h>
#include <stdio.h>

char *fc_fmt_flop(fc_u128 v, char *buf, size_t size)
{
    static const char *const unit[] = {"", "K", "M", "G", "T", "P", "E", "Z", "Y"};
    double d = fc_u128_to_double(v);
    int u = 0;
    while (d >= 1000.0 && u < 8) {
        d /= 1000.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, size, "%.0f FLOP", d);
    else
        snprintf(buf, size, "%.2f %sFLOP", d, unit[u]);
    return buf;
}

char *fc_fmt_pct(double fraction, char *buf, size_t size)
{
    if (isnan(fraction))
        snprintf(buf, size, "n/a");
    else if (fraction != 0 && fabs(fraction) < 0.001) /* keep small figures visible */
        snprintf(buf, size, "%.2g%%", fraction * 100.0);
    else
        snprintf(buf, size, "%.1f%%", fraction * 100.0);
    return buf;
}

char *fc_fmt_seconds(double s, char *buf, size_t size)
{
    if (isnan(s))
        snprintf(buf, size, "n/a");
    else if (s < 1.0)
        snprintf(buf, size, "%.4f s", s);
    else
        snprintf(buf, size, "%.3f s", s);
    return buf;
}
