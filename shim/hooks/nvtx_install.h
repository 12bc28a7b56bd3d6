/* SPDX-License-Identifier: Apache-2.0 */
/* nvtx_install.h - installs the NVTX range callbacks (nvtx.c) into the
 * program's NVTX export table. Include <nvtx3/nvToolsExt.h> (with
 * NVTX_NO_IMPL) first. */
#ifndef FC_NVTX_INSTALL_H
#define FC_NVTX_INSTALL_H

/* Returns 1 when the callbacks are in, 0 when the table is unusable. */
int fc_nvtx_install(NvtxGetExportTableFunc_t get_table);

#endif
