/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_hfconfig.c - libFuzzer target for the Hugging Face config.json
 * reader (analysis/io/hfconfig.h), which reads files users download. Any
 * bytes: no crash, no leak (ASan); a failure always says why, and fields
 * the file did not name keep the caller's values. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hfconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fc_model before, m;
    memset(&before, 0x3c, sizeof before);
    m = before;
    unsigned found = 0;
    char err[256] = "";
    if (fc_hfconfig_parse((const char *)data, size, &m, &found, err, sizeof err) != 0) {
        if (err[0] == '\0')
            abort();
    } else if (found == 0 && memcmp(&m, &before, sizeof m) != 0) {
        abort(); /* nothing named, yet something changed */
    }
    return 0;
}
