/* SPDX-License-Identifier: Apache-2.0 */
/* shim.h - what the pieces of libflopcount.so share: the API ids, one GEMM
 * call as the hooks describe it, the recursion guard, real-symbol lookup and
 * the counters. Internal; never installed. */
#ifndef FC_SHIM_H
#define FC_SHIM_H

#include <errno.h>
#include <stdint.h>

#include "../analysis/dtype.h"
#include "../analysis/u128.h"
#include "options.h"

#define FC_EXPORT __attribute__((visibility("default")))
#define FC_TLS __thread __attribute__((tls_model("initial-exec")))
#define FC_LIKELY(x) __builtin_expect(!!(x), 1)
#define FC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Libraries whose functions we forward to. */
enum fc_lib { FC_LIB_CUBLAS, FC_LIB_CUBLASLT, FC_LIB_BLAS, FC_LIB_COUNT };

/* One id per interposed entry point family; the report's "by_api" keys are
 * fc_api_name(). _64 twins share the id of their 32-bit sibling but are told
 * apart by the FC_API_64 flag in fc_gemm.flags. */
enum fc_api {
    FC_API_UNKNOWN = 0,
    FC_API_CUBLAS_SGEMM, FC_API_CUBLAS_DGEMM, FC_API_CUBLAS_CGEMM, FC_API_CUBLAS_ZGEMM,
    FC_API_CUBLAS_HGEMM, FC_API_CUBLAS_SGEMMEX, FC_API_CUBLAS_CGEMMEX, FC_API_CUBLAS_GEMMEX,
    FC_API_CUBLAS_CGEMM3M, FC_API_CUBLAS_CGEMM3MEX, FC_API_CUBLAS_ZGEMM3M,
    FC_API_CUBLAS_HGEMM_BATCHED, FC_API_CUBLAS_SGEMM_BATCHED, FC_API_CUBLAS_DGEMM_BATCHED,
    FC_API_CUBLAS_CGEMM_BATCHED, FC_API_CUBLAS_ZGEMM_BATCHED, FC_API_CUBLAS_CGEMM3M_BATCHED,
    FC_API_CUBLAS_GEMM_BATCHED_EX,
    FC_API_CUBLAS_HGEMM_STRIDED, FC_API_CUBLAS_SGEMM_STRIDED, FC_API_CUBLAS_DGEMM_STRIDED,
    FC_API_CUBLAS_CGEMM_STRIDED, FC_API_CUBLAS_ZGEMM_STRIDED, FC_API_CUBLAS_CGEMM3M_STRIDED,
    FC_API_CUBLAS_GEMM_STRIDED_EX,
    FC_API_CUBLAS_SGEMM_GROUPED, FC_API_CUBLAS_DGEMM_GROUPED, FC_API_CUBLAS_GEMM_GROUPED_EX,
    FC_API_CUBLASLT_MATMUL,
    FC_API_BLAS_SGEMM, FC_API_BLAS_DGEMM, FC_API_BLAS_CGEMM, FC_API_BLAS_ZGEMM,
    FC_API_CBLAS_SGEMM, FC_API_CBLAS_DGEMM, FC_API_CBLAS_CGEMM, FC_API_CBLAS_ZGEMM,
    FC_API_COUNT
};

/* Name as exported ("cublasSgemm_v2", "sgemm_"); is64 picks the _64 twin. */
const char *fc_api_name(int api, int is64);

#define FC_API_64 0x1u /* the call came through a _64 entry point */

/* One GEMM (or one group of a grouped call) as a hook saw it. Operand
 * addresses feed iteration detection; they are never dereferenced. */
typedef struct fc_gemm {
    uint8_t api;       /* enum fc_api */
    uint8_t flags;     /* FC_API_64 */
    uint8_t dtype;     /* enum fc_dtype of the inputs (tf32 when run as tf32) */
    uint8_t out_dtype; /* enum fc_dtype of C/D */
    int16_t compute;   /* cublasComputeType_t, or -1 when the API has none */
    char transa, transb; /* 'N', 'T', 'C' */
    int64_t m, n, k, batch;
    const void *a, *b, *c;
    /* Where the GEMM was queued, for GPU timing (gputime.c): a cudaStream_t
     * (FC_STREAM_DIRECT) or a cublasHandle_t whose stream is asked for only
     * when an event is recorded (FC_STREAM_CUBLAS_HANDLE); 0: none. */
    const void *stream_handle;
    uint8_t stream_kind;
} fc_gemm;
enum { FC_STREAM_NONE = 0, FC_STREAM_DIRECT = 1, FC_STREAM_CUBLAS_HANDLE = 2 };

/* FLOPs of one described call: 2*m*n*k*batch, 8*... for complex types.
 * Returns 0 with *valid = 0 when a dimension is negative. */
fc_u128 fc_gemm_flops(const fc_gemm *g, int *valid);

/* Records one finished call at once (the slow path of fc_count, ring.h):
 * counts it in the shape table, then queues it for the detector marked as
 * counted. status_ok: the real function returned success. Keeps errno.
 * Lock-free and allocation-free; safe from any thread. */
void fc_record(const fc_gemm *g, int status_ok);
/* Records one call that could not be forwarded (real symbol missing). */
void fc_record_unresolved(int api);

/* ---- recursion guard: count the outermost intercepted call only ---- */
extern FC_TLS int fc_tls_depth;
static inline int fc_enter(void) { return fc_tls_depth++ == 0; }
static inline void fc_leave(void) { fc_tls_depth--; }

/* ---- real symbols ---- */
/* Finds the next definition of name after ours: RTLD_NEXT first, then any
 * loaded object of lib (found RTLD_LOCAL libraries too), then dlopen by
 * soname. Returns NULL and warns once per name when there is none. Safe to
 * call before the constructor ran and from several threads. */
void *fc_resolve(int lib, const char *name);

/* Resolves into a function-local static once, then costs a load and a test. */
#define FC_REAL(lib, type, sym)                                                    \
    static type real_##sym;                                                        \
    type fn_##sym = __atomic_load_n(&real_##sym, __ATOMIC_ACQUIRE);                \
    if (FC_UNLIKELY(fn_##sym == NULL)) {                                           \
        fn_##sym = (type)fc_resolve(lib, #sym);                                    \
        __atomic_store_n(&real_##sym, fn_##sym, __ATOMIC_RELEASE);                 \
    }

/* ---- diagnostics: one "flopcount: ..." line on stderr, no allocation ---- */
void fc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like fc_warn, but only the first time key (a static flag) is seen. */
void fc_warn_once(int *flag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- lifecycle (init.c) ---- */
void fc_init(void);      /* idempotent; run by the constructor and lazily */
/* 0 when FLOPCOUNT_DISABLE switched counting off. */
static inline int fc_is_enabled(void)
{
    return !fc_opt.disable;
}
/* Monotonic nanoseconds. */
uint64_t fc_now_ns(void);

/* The one shape of every hook (uftrace-style): the real call always
 * happens; only the outermost intercepted call on a thread is recorded
 * (fc_hook_end, ring.h); errno is what the real function left. */
static inline int fc_hook_begin(void)
{
    return fc_enter();
}

/* ---- cuBLAS hooks (cublas_gemm.c, cublas_batched.c) ---- */
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
 * its handle) and records g; status 0 is success. Keeps errno. */
void fc_cublas_finish(int outer, fc_gemm *g, int status, const void *handle);
/* In a cuBLAS hook (with <cublas_api.h>): resolves sym, or counts the call
 * as unresolved and returns the status a library without a GPU gives. */
#define FC_CUBLAS_REAL(type, sym, API)                                                    \
    FC_REAL(FC_LIB_CUBLAS, type, sym);                                                    \
    if (FC_UNLIKELY(fn_##sym == NULL)) {                                                  \
        fc_record_unresolved(API);                                                        \
        return CUBLAS_STATUS_NOT_INITIALIZED;                                             \
    }

#endif
