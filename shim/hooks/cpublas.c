/* SPDX-License-Identifier: Apache-2.0 */
/* cpublas.c - hooks for the CPU BLAS: Fortran sgemm_/dgemm_/cgemm_/zgemm_
 * and CBLAS cblas_?gemm. Reference CBLAS calls the Fortran routine inside;
 * the guard counts such a call once, at the CBLAS level. */
#include <stddef.h>

#include "hook.h"

/* The start of a BLAS hook body, as FC_CUBLAS_BEGIN (cublas.h) for a void
 * function: fn_##sym from copy cp (or the call counted as unresolved),
 * the guard entered (outer), a nested call sent where fc_copy_nested says,
 * the thread marked by a copy other than 0 until FC_BLAS_CALLED. */
#define FC_BLAS_BEGIN(cp, sym, SYM, API)                                                   \
    FC_COPY_REAL_OR(cp, sym##_fn, sym, SYM, fc_record_unresolved(API); return);            \
    int outer = fc_hook_begin();                                                           \
    FC_COPY_NESTED(cp, outer, sym##_fn, sym, SYM);                                         \
    fc_copy *prev_copy = fc_copy_enter(cp)
#define FC_BLAS_CALLED(cp) fc_copy_leave(cp, prev_copy)

/* gfortran passes the lengths of the two CHARACTER arguments after the
 * others; we take and forward them so the callee sees exactly what the
 * caller passed, whether or not the caller knew about them. */
#define FORTRAN_PARAMS(T)                                                                  \
    (const char *ta, const char *tb, const int *m, const int *n, const int *k,             \
     const T *alpha, const T *a, const int *lda, const T *b, const int *ldb, const T *beta, \
     T *c, const int *ldc, size_t lta, size_t ltb)
#define FORTRAN_ARGS (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, lta, ltb)

#define FORTRAN_GEMM(sym, T, API, DT)                                                      \
    typedef void(*sym##_fn) FORTRAN_PARAMS(T);                                             \
    FC_HOOK_BODY(void, sym, FORTRAN_PARAMS(T))                                             \
    {                                                                                      \
        FC_BLAS_BEGIN(cp, sym, FC_SYM_OF(API, 0), API);                                    \
        fn_##sym(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, lta, ltb);          \
        FC_BLAS_CALLED(cp);                                                                \
        if (outer) {                                                                       \
            fc_gemm g = {.api = API, .dtype = DT, .out_dtype = DT, .compute = -1,          \
                         .transa = fc_blas_trans(ta), .transb = fc_blas_trans(tb),         \
                         .m = m ? *m : -1, .n = n ? *n : -1, .k = k ? *k : -1,             \
                         .batch = 1, .a = a, .b = b, .c = c};                              \
            fc_hook_end(outer, &g, 1);                                                     \
        } else {                                                                           \
            fc_leave();                                                                    \
        }                                                                                  \
    }                                                                                      \
    FC_HOOK_DEFINE(void, , sym, FC_LIB_BLAS, FC_SYM_OF(API, 0), FORTRAN_PARAMS(T),         \
                   FORTRAN_ARGS)

/* 'n'/'N' -> 'N', 't'/'T' -> 'T', 'c'/'C' -> 'C', anything else '?'
 * (a table: this runs on every call). */
static const char blas_trans_tab[256] = {['n'] = 'N', ['N'] = 'N', ['t'] = 'T',
                                         ['T'] = 'T', ['c'] = 'C', ['C'] = 'C'};
static inline char fc_blas_trans(const char *t)
{
    char c = t == NULL ? 0 : blas_trans_tab[(unsigned char)*t];
    return c ? c : '?';
}

typedef struct { float re, im; } fc_c32;
typedef struct { double re, im; } fc_c64;

FORTRAN_GEMM(sgemm_, float, FC_API_BLAS_SGEMM, FC_DT_FP32)
FORTRAN_GEMM(dgemm_, double, FC_API_BLAS_DGEMM, FC_DT_FP64)
FORTRAN_GEMM(cgemm_, fc_c32, FC_API_BLAS_CGEMM, FC_DT_COMPLEX64)
FORTRAN_GEMM(zgemm_, fc_c64, FC_API_BLAS_ZGEMM, FC_DT_COMPLEX128)

/* CBLAS enums: 101 row-major, 102 column-major; 111 N, 112 T, 113 C. */
static char cblas_trans(int t)
{
    return t == 111 ? 'N' : t == 112 ? 'T' : t == 113 ? 'C' : '?';
}

#define CBLAS_PARAMS(T, S)                                                                 \
    (int order, int ta, int tb, int m, int n, int k, S alpha, const T *a, int lda,         \
     const T *b, int ldb, S beta, T *c, int ldc)
#define CBLAS_ARGS (order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)

#define CBLAS_GEMM(sym, T, S, API, DT)                                                     \
    typedef void(*sym##_fn) CBLAS_PARAMS(T, S);                                            \
    FC_HOOK_BODY(void, sym, CBLAS_PARAMS(T, S))                                            \
    {                                                                                      \
        FC_BLAS_BEGIN(cp, sym, FC_SYM_OF(API, 0), API);                                    \
        fn_##sym(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);             \
        FC_BLAS_CALLED(cp);                                                                \
        fc_gemm g = {.api = API, .dtype = DT, .out_dtype = DT, .compute = -1,              \
                     .transa = cblas_trans(ta), .transb = cblas_trans(tb), .m = m,         \
                     .n = n, .k = k, .batch = 1, .a = a, .b = b, .c = c};                  \
        fc_hook_end(outer, &g, 1);                                                         \
    }                                                                                      \
    FC_HOOK_DEFINE(void, , sym, FC_LIB_BLAS, FC_SYM_OF(API, 0), CBLAS_PARAMS(T, S),        \
                   CBLAS_ARGS)

CBLAS_GEMM(cblas_sgemm, float, float, FC_API_CBLAS_SGEMM, FC_DT_FP32)
CBLAS_GEMM(cblas_dgemm, double, double, FC_API_CBLAS_DGEMM, FC_DT_FP64)
CBLAS_GEMM(cblas_cgemm, void, const void *, FC_API_CBLAS_CGEMM, FC_DT_COMPLEX64)
CBLAS_GEMM(cblas_zgemm, void, const void *, FC_API_CBLAS_ZGEMM, FC_DT_COMPLEX128)
