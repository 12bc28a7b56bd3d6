/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_parse.c - libFuzzer target for the option-value parsers
 * (analysis/parse.h), which read FLOPCOUNT_* environment variables inside
 * the host process. Every input goes to all three parsers; besides not
 * crashing, each must keep its contract, checked here: on failure *out is
 * untouched; on success the value is in range and the text was all of it. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[512];
    if (size >= sizeof s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    size_t len = strlen(s); /* the parsers see a C string: it ends at the first NUL */

    int b = 42;
    if (fc_parse_bool(s, &b) == 0) {
        if (b != 0 && b != 1)
            abort();
    } else if (b != 42) {
        abort();
    }

    const uint64_t sentinel = 0x5a5a5a5a5a5a5a5aull, max = 1000000000ull;
    uint64_t u = sentinel;
    if (fc_parse_u64(s, max, &u) == 0) {
        if (u > max || len == 0 || strspn(s, "0123456789") != len)
            abort();
    } else if (u != sentinel) {
        abort();
    }

    double d = -7.0;
    if (fc_parse_double(s, 0.0, 1e7, &d) == 0) {
        if (!isfinite(d) || d < 0.0 || d > 1e7)
            abort();
    } else if (d != -7.0) {
        abort();
    }
    return 0;
}
