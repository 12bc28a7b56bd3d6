/* SPDX-License-Identifier: Apache-2.0 */
/* cublas_emu_check.h - what the cuBLAS tests share (tests/cublas/cublas_check.c):
 * reading the counts of the preloaded libflopcount.so in-process (snapshot
 * and the JSON report written on demand), and the one small GEMM whose
 * result was worked out by hand.
 *
 * Every helper fails the current cmocka test on a mismatch; none of them
 * passes when the shim is absent. */
#ifndef CUBLAS_EMU_CHECK_H
#define CUBLAS_EMU_CHECK_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

/* ---- counts ---- */

typedef struct ck_totals {
    uint64_t calls, flops, failed, invalid;
} ck_totals;

/* The shim's totals now (flopcount_snapshot_get, found with dlsym). */
ck_totals ck_totals_now(void);
/* Fails the test unless now - before is exactly (calls, flops, failed, invalid). */
void ck_expect_delta(const ck_totals *before, uint64_t calls, uint64_t flops, uint64_t failed,
                     uint64_t invalid);

/* Writes the report now (flopcount_write_report, to FLOPCOUNT_OUTPUT) and
 * parses it. Release with json_object_put. */
struct json_object *ck_report(void);
/* totals.<key>. */
uint64_t ck_total(struct json_object *report, const char *key);
/* by_api.<api>.calls, 0 when the report has no such group. */
uint64_t ck_api_calls(struct json_object *report, const char *api);

/* One "shapes" entry: its key fields and the counts it must hold. compute
 * NULL means the report says null. */
typedef struct ck_want {
    const char *api;
    int64_t m, n, k, batch;
    char transa, transb;
    const char *dtype, *out_dtype, *compute;
    uint64_t calls, failed, flops;
} ck_want;

/* Fails unless exactly one entry has w's key fields and w's counts. */
void ck_expect_shape(struct json_object *report, const ck_want *w);
/* Entries of api with these dimensions, whatever their other fields. */
int ck_count_shapes(struct json_object *report, const char *api, int64_t m, int64_t n,
                    int64_t k);
/* Writes and reads the report, then ck_expect_shape. */
void ck_expect(const ck_want *w);

/* 1 when the test runs on the null GPU (FLOPCOUNT_TEST_NULLGPU set by its
 * twin's environment): the real cuBLAS computes nothing there (kernels are
 * no-ops), so result checks become checks that C was left as it was. */
int ck_null_gpu(void);

/* The preloaded shim's function name, or NULL: proves it is there. */
void *ck_shim_symbol(const char *name);

/* ---- the hand-worked GEMM ----
 * op(A) (2x3) = [1 2 3; 4 5 6], op(B) (3x4) = [1 0 2 1; 0 1 1 2; 1 1 0 3].
 * op(A) op(B) = [4 5 4 14; 10 11 13 32]. With alpha = 2, beta = 1 and C
 * all ones: C = [9 11 9 29; 21 23 27 65]. Column-major, so:
 *   A as N (lda 2): 1 4 2 5 3 6      A as T (3x2, lda 3): 1 2 3 4 5 6
 *   B as N (ldb 3): 1 0 1 0 1 1 2 1 0 1 2 3
 *   B as T (4x3, ldb 4): 1 0 2 1 0 1 1 2 1 1 0 3
 *   product: 4 10 5 11 4 13 14 32      C: 9 21 11 23 9 27 29 65
 * FLOPs: 2*m*n*k = 2*2*4*3 = 48 real; 8*2*4*3 = 192 complex. */
enum { CK_M = 2, CK_N = 4, CK_K = 3 };
extern const double ck_a_n[6], ck_a_t[6], ck_b_n[12], ck_b_t[12];
extern const double ck_product[8], ck_c_expect[8];

/* fp16 / bf16 bits of small integers and back (exact in both formats). */
uint16_t ck_half(double v);
double ck_from_half(uint16_t h);
uint16_t ck_bf16(double v);
double ck_from_bf16(uint16_t b);

/* Element i of an array of cudaDataType t (R_16F, R_16BF, R_32F, R_64F,
 * C_32F, C_64F, R_8I, R_32I) as (re, im), and back. */
void ck_put(void *x, int t, size_t i, double re, double im);
void ck_get(const void *x, int t, size_t i, double *re, double *im);

/* Operands of the hand-worked GEMM: A in type at laid out for op ta, B in
 * bt for op tb, C (type ct) all ones. imag_b puts B's values in the
 * imaginary part, making op(A) op(B) i times the product (-i under op C). */
typedef struct ck_ops {
    double A[12], B[24], C[16]; /* room for complex double, aligned */
} ck_ops;
void ck_fill(ck_ops *o, int at, int bt, int ct, char ta, char tb, int imag_b);
/* Checks C after alpha = 2, beta = 1: ck_c_expect when im_sign is 0, else
 * re = 1 and im = im_sign * 2 * ck_product. On the null GPU: C untouched. */
void ck_check_c(const ck_ops *o, int ct, int im_sign);
/* Checks C still holds the ones ck_fill put there. */
void ck_check_untouched(const ck_ops *o, int ct);

#endif
