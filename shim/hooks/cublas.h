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
/* 1 when a GEMM with fp32 inputs ran as TF32: compute type 32F_FAST_TF32,
 * or compute 32F (or none, -1) on a handle in CUBLAS_TF32_TENSOR_OP_MATH.
 * Asks the real cublasGetMathMode; any error means "not TF32". */
int fc_cublas_runs_tf32(const void *handle, int compute);
/* Ends a cuBLAS hook: for the outermost call, turns fp32 into tf32 when the
 * call ran so (successful calls only: a failed call proves nothing about
 * its handle) and counts g; status 0 is success. Keeps errno. */
void fc_cublas_finish(int outer, fc_gemm *g, int status, const void *handle);

/* In a cuBLAS hook: resolves sym, or counts the call as unresolved and
 * returns the status a library without a GPU gives. */
#define FC_CUBLAS_REAL(type, sym, API)                                                    \
    FC_REAL(FC_LIB_CUBLAS, type, sym);                                                    \
    if (FC_UNLIKELY(fn_##sym == NULL)) {                                                  \
        fc_record_unresolved(API);                                                        \
        return CUBLAS_STATUS_NOT_INITIALIZED;                                             \
    }

#endif
