/* SPDX-License-Identifier: Apache-2.0 */
/* cublas_emu.h - what the CPU emulation of libcublas.so.13 offers tests
 * beyond the cuBLAS API itself: how many calls reached this copy of it. A
 * test that loads two copies (from two paths) reads each copy's counts
 * through dlsym on that copy's handle. */
#ifndef FC_CUBLAS_EMU_H
#define FC_CUBLAS_EMU_H

/* GEMM entry point calls that ran here (a nested call counts on its own),
 * whatever their status. */
unsigned long fc_emu_cublas_gemm_calls(void);
/* cublasGetMathMode calls that reached this copy. */
unsigned long fc_emu_cublas_mode_queries(void);

#endif
