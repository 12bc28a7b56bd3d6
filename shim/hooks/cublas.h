/* SPDX-License-Identifier: Apache-2.0 */
/* cublas.h - what the cuBLAS hooks share (defined in cublas_gemm.c, used by
 * cublas_batched.c too). Include <cublas_api.h> before this file. */
#ifndef FC_HOOKS_CUBLAS_H
#define FC_HOOKS_CUBLAS_H

#include "hook.h"

/* cublasOperation_t -> 'N', 'T', 'C'; '?' for anything else. */
char fc_cublas_op(int op);
/* fc_dtype of a cudaDataType_t operand. Complex types flopcount has no name
 * for (C_8I, C_16F, ...) count as complex64, so they still cost 8*m*n*k. */
int fc_cublas_dtype(int cuda_type);
/* The dtype whose peak a GEMM with fp32 inputs runs at: tf32 under compute
 * type 32F_FAST_TF32, fp16 under 32F_FAST_16F, bf16 under 32F_FAST_16BF;
 * with compute 32F (or none, -1) the handle's math mode decides
 * (CUBLAS_TF32_TENSOR_OP_MATH: tf32; the deprecated CUBLAS_TENSOR_OP_MATH,
 * which cublas_api.h makes 32F_FAST_16F: fp16); otherwise fp32. Asks copy
 * cp's cublasGetMathMode (the handle is that library's); an error there
 * means the default mode. */
int fc_cublas_fp32_runs_as(fc_copy *cp, const void *handle, int compute);
/* Ends a cuBLAS hook of copy cp: for the outermost call, turns fp32 into
 * the dtype it ran as (fc_cublas_fp32_runs_as; successful calls only: a
 * failed call proves nothing about its handle) and counts g; status 0 is
 * success. Keeps errno. */
void fc_cublas_finish(fc_copy *cp, int outer, fc_gemm *g, int status, const void *handle);

/* The start of a cuBLAS hook body: fn_##sym is copy cp's function (or the
 * call is counted as unresolved and gets the status a library without a
 * GPU gives), the guard is entered (outer, with the cupti layer's bit:
 * hook.h, fc_hook_begin_gpu), a nested call is sent where
 * fc_copy_nested says, and a copy other than 0 marks the thread until
 * FC_CUBLAS_CALLED. */
#define FC_CUBLAS_BEGIN(cp, sym, SYM, API)                                                \
    FC_COPY_REAL_OR(cp, sym##_fn, sym, SYM, fc_record_unresolved(API);                    \
                    return CUBLAS_STATUS_NOT_INITIALIZED);                                \
    int outer = fc_hook_begin_gpu();                                                      \
    FC_COPY_NESTED(cp, outer, sym##_fn, sym, SYM);                                        \
    fc_copy *prev_copy = fc_copy_enter(cp)

/* Right after the real call. */
#define FC_CUBLAS_CALLED(cp) fc_copy_leave(cp, prev_copy)

#endif
