/* SPDX-License-Identifier: Apache-2.0 */
/* gemm.h - one GEMM call (or one group of a grouped call) as a hook saw it,
 * and the FLOPs it means. */
#ifndef FC_GEMM_H
#define FC_GEMM_H

#include <stdint.h>

#include "u128.h"

/* Operand addresses feed iteration detection; they are never dereferenced. */
typedef struct fc_gemm {
    uint8_t api;       /* enum fc_api */
    uint8_t flags;     /* FC_API_64 */
    uint8_t dtype;     /* enum fc_dtype of the inputs (tf32 when run as tf32) */
    uint8_t out_dtype; /* enum fc_dtype of C/D */
    int16_t compute;   /* cublasComputeType_t, or -1 when the API has none */
    char transa, transb; /* 'N', 'T', 'C' */
    int64_t m, n, k, batch;
    const void *a, *b, *c;
    /* Where the GEMM was queued, for GPU timing (probe/gputime.c): a
     * cudaStream_t (FC_STREAM_DIRECT) or a cublasHandle_t whose stream is
     * asked for only when an event is recorded (FC_STREAM_CUBLAS_HANDLE);
     * FC_STREAM_NONE: none. */
    const void *stream_handle;
    uint8_t stream_kind;
    /* Which copy of libcublas made stream_handle (its slot in copies.h, 0
     * the default): that copy's cublasGetStream_v2 reads it. */
    uint8_t copy;
    /* The call's stamp (fc_ticks) when the hook took one before forwarding
     * (kernel timing ties GPU kernels to it: shim/cupti/kernels.c) or a
     * graph launch replays the call; 0: the ring stamps the record when the
     * call returns. */
    uint64_t t;
} fc_gemm;
enum { FC_STREAM_NONE = 0, FC_STREAM_DIRECT = 1, FC_STREAM_CUBLAS_HANDLE = 2 };

/* FLOPs of one described call: 2*m*n*k*batch, 8*m*n*k*batch for complex
 * types (saturated at 2^128-1). Returns 0 with *valid = 0 when a dimension
 * is negative. */
fc_u128 fc_gemm_flops(const fc_gemm *g, int *valid);

#endif
