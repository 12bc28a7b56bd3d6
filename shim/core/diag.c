/* SPDX-License-Identifier: Apache-2.0 */
/* diag.c - "flopcount: ..." lines on stderr: one write(2) each from a
 * fixed 512-byte buffer, at most 20 per process (a flood of warnings would
 * bury the program's own output). */
#include "diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int warnings_left = 20;

void fc_warn(const char *fmt, ...)
{
    char line[512];
    if (atomic_fetch_sub(&warnings_left, 1) <= 0)
        return;
    int saved = errno;
    int n = snprintf(line, sizeof line, "flopcount: ");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(2, line, (size_t)n);
    (void)w;
    errno = saved;
}

void fc_warn_once(int *flag, const char *fmt, ...)
{
    if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED))
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fc_warn("%s", msg);
}
