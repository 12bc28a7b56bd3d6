/* SPDX-License-Identifier: Apache-2.0 */
/* cublaslt_emu.h - what the CPU emulation of libcublasLt.so.13 offers tests
 * beyond the cuBLASLt API itself (which comes from the real cublasLt.h, so
 * the emulation and the shim share one ABI). */
#ifndef FC_CUBLASLT_EMU_H
#define FC_CUBLASLT_EMU_H

/* How many cublasLtMatmul calls reached the emulation, whatever their
 * status: lets a test see that the shim forwarded each call exactly once. */
unsigned long fc_emu_lt_matmul_calls(void);

/* How many cublasLtMatrixLayoutGetAttribute and cublasLtMatmulDescGetAttribute
 * calls reached this copy of the emulation (a test that loads two copies
 * checks that each descriptor is read by the copy that made it). */
unsigned long fc_emu_lt_getter_calls(void);

#endif
