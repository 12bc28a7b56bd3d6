/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_nvtx_py.c - NVTX push/pop for Python through ctypes: Debian's CPU
 * torch has no NVTX (torch.cuda.nvtx raises), so split_child.py's "nvtx"
 * mode opens its phase ranges through this library. It is the real NVTX v3
 * header implementation: the first call loads NVTX_INJECTION64_PATH (the
 * shim) and hands it the ranges, exactly as a CUDA program's would. */
#include <nvtx3/nvToolsExt.h>

__attribute__((visibility("default"))) int fixture_nvtx_push(const char *name)
{
    return nvtxRangePushA(name);
}

__attribute__((visibility("default"))) int fixture_nvtx_pop(void)
{
    return nvtxRangePop();
}
