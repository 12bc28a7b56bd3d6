/* SPDX-License-Identifier: Apache-2.0 */
/* injection.c - the CUDA driver's injection entry point: with
 * CUDA_INJECTION64_PATH naming libflopcount.so, the driver loads it (the
 * preloaded copy) and calls InitializeInjection inside cuInit, before any
 * kernel runs. CUPTI is looked for then, so that its launch callbacks see
 * a program that never calls cuBLAS - one linked with the static CUDA
 * runtime, whose launches nothing else reveals (docs/launch.md). Without
 * the variable the driver never calls it; the shim looks for CUPTI at the
 * first GPU call it sees, as before. */
#include <errno.h>

#include "core/base.h"
#include "core/options.h"
#include "cupti/cupti_layer.h"

FC_EXPORT int InitializeInjection(void);

int InitializeInjection(void)
{
    int saved = errno;
    if (fc_is_enabled())
        fc_cupti_injected();
    errno = saved;
    return 1;
}
