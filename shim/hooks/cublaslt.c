/* SPDX-License-Identifier: Apache-2.0 */
/* cublaslt.c - the cublasLtMatmul hook.
 *
 * cuBLASLt passes the shape of a GEMM inside opaque descriptors, which the
 * caller may have built with cublasLt*Create, with the inline *Init helpers
 * on its own memory, or long ago and then changed with *SetAttribute. So the
 * hook never tracks descriptor creation: at every call it asks the real
 * library's own getters what the descriptors hold right now. It never reads
 * descriptor memory itself, whose layout is private to each cuBLAS version.
 *
 * Shape rules (layouts describe matrices as stored):
 *   m = rows(D), n = cols(D), batch = batch count of D (C when D is NULL),
 *   k = cols(A) when A is not transposed, rows(A) when it is;
 * and op(A) must be m x k, op(B) k x n. Descriptors that cannot be read or
 * that disagree give an unknown shape: the call is still forwarded untouched
 * and is counted as invalid, never with FLOPs we cannot explain.
 *
 * dtype is A's element type, except fp32 inputs under the compute types
 * 32F_FAST_TF32, _FAST_16F and _FAST_16BF, recorded as tf32, fp16 and bf16
 * (see docs/cublaslt.md). Block-scaled GEMMs (A/B_SCALE_MODE: MXFP8, FP8
 * 1x128 / 128x128 blocks, NVFP4) need nothing more: their element types
 * are fp8 and fp4, and the scales change no FLOP count.
 *
 * Grouped layouts (cuBLAS 13.2+, BATCH_MODE 2: one GEMM per group, every
 * group's rows and columns in device arrays) hold no extent on the host:
 * the library answers 0 rows and 0 columns and the group count as the
 * batch count. Such a call is never counted as a GEMM (it would be a
 * silent 0): it is listed as uncounted, "sizes_in_device_memory", with its
 * group count (docs/moe.md). */
#include <cublasLt.h>
#include <stdio.h>

#include "core/diag.h"
#include "count/uncounted.h"
#include "hook.h"
#include "kernel_class.h"
#include "probe/devsizes.h"

/* cublasLtBatchMode_t's grouped mode: cuBLAS 13.2+, absent from the 13.0
 * header this builds against (value from 13.4.1's cublasLt.h, and what
 * its getter answers for a cublasLtGroupedMatrixLayoutCreate layout). */
#define FC_LT_BATCH_MODE_GROUPED 2u
/* Its layout attributes (cublasLtMatrixLayoutAttribute_t, 13.2+): the
 * device arrays of rows and columns, and the width of their integers. */
#define FC_LT_GROUPED_ROWS_ARRAY 9
#define FC_LT_GROUPED_COLS_ARRAY 10
#define FC_LT_GROUPED_RC_WIDTH 12

typedef cublasStatus_t (*lt_matmul_fn)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
                                       const void *, cublasLtMatrixLayout_t, const void *,
                                       cublasLtMatrixLayout_t, const void *, const void *,
                                       cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                                       const cublasLtMatmulAlgo_t *, void *, size_t,
                                       cudaStream_t);
typedef cublasStatus_t (*lt_layout_get_fn)(cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t,
                                           void *, size_t, size_t *);
typedef cublasStatus_t (*lt_desc_get_fn)(cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t,
                                         void *, size_t, size_t *);

/* What the hook needs from one layout. */
typedef struct lt_layout {
    uint32_t type; /* cudaDataType_t */
    uint64_t rows, cols;
    int32_t batch;
} lt_layout;

/* The getters insist that the buffer size equals the attribute's size, so
 * every read names its exact type. A getter that fails means the descriptor
 * is NULL, destroyed or not one of this library's: the shape is unknown. */
static int lay_get(lt_layout_get_fn get, cublasLtMatrixLayout_t l,
                   cublasLtMatrixLayoutAttribute_t attr, void *buf, size_t size)
{
    size_t written = 0;
    return get(l, attr, buf, size, &written) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}

static int desc_get_i32(lt_desc_get_fn get, cublasLtMatmulDesc_t d,
                        cublasLtMatmulDescAttributes_t attr, int32_t *out)
{
    size_t written = 0;
    return get(d, attr, out, sizeof *out, &written) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}

/* Reads rows and cols, plus the type and batch count when asked for (each
 * read is a call into the library, so B's unused ones are skipped). */
static int read_layout(lt_layout_get_fn get, cublasLtMatrixLayout_t l, int want_type,
                       int want_batch, lt_layout *out)
{
    if (lay_get(get, l, CUBLASLT_MATRIX_LAYOUT_ROWS, &out->rows, sizeof out->rows) ||
        lay_get(get, l, CUBLASLT_MATRIX_LAYOUT_COLS, &out->cols, sizeof out->cols))
        return -1;
    if (want_type && lay_get(get, l, CUBLASLT_MATRIX_LAYOUT_TYPE, &out->type, sizeof out->type))
        return -1;
    if (want_batch &&
        lay_get(get, l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &out->batch, sizeof out->batch))
        return -1;
    return 0;
}

/* cublasOperation_t: N 0, T 1, C 2 (conjugate transpose), CONJG 3
 * (conjugate, not transposed). Returns the report letter, or 0 for a value
 * we do not know. */
static char op_letter(int32_t op)
{
    switch (op) {
    case CUBLAS_OP_N: return 'N';
    case CUBLAS_OP_T: return 'T';
    case CUBLAS_OP_C: return 'C';
    case CUBLAS_OP_CONJG: return '?';
    default: return 0;
    }
}

static int is_transposed(int32_t op)
{
    return op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

/* Input dtype: A's element type; fp32 inputs under a fast compute type run
 * on tensor cores in another dtype: FAST_TF32 as tf32, FAST_16F and
 * FAST_16BF as fp16 and bf16 (cuBLAS may pick TF32 instead; the 16-bit
 * rate is the faster, so its peak is the one no run can beat). */
static uint8_t input_dtype(uint32_t a_type, int32_t compute)
{
    int dt = fc_dtype_from_cuda((int)a_type);
    if (dt == FC_DT_FP32 && compute == CUBLAS_COMPUTE_32F_FAST_TF32)
        dt = FC_DT_TF32;
    else if (dt == FC_DT_FP32 && compute == CUBLAS_COMPUTE_32F_FAST_16F)
        dt = FC_DT_FP16;
    else if (dt == FC_DT_FP32 && compute == CUBLAS_COMPUTE_32F_FAST_16BF)
        dt = FC_DT_BF16;
    return (uint8_t)dt;
}

/* Fills g's shape from op(A) (m x k), op(B) (k x n) and D (m x n); -1 when
 * they disagree, which the real library rejects anyway. */
static int fill_dims(fc_gemm *g, int32_t ta, int32_t tb, const lt_layout *a,
                     const lt_layout *b, const lt_layout *d)
{
    static int warned;
    uint64_t am = is_transposed(ta) ? a->cols : a->rows;
    uint64_t ak = is_transposed(ta) ? a->rows : a->cols;
    uint64_t bk = is_transposed(tb) ? b->cols : b->rows;
    uint64_t bn = is_transposed(tb) ? b->rows : b->cols;
    if (am != d->rows || bn != d->cols || ak != bk || d->rows > INT64_MAX ||
        d->cols > INT64_MAX || ak > INT64_MAX || d->batch < 0) {
        fc_warn_once(&warned,
                     "cublasLtMatmul: layouts disagree (op(A) %llux%llu, op(B) %llux%llu, "
                     "D %llux%llu); such calls are counted as invalid",
                     (unsigned long long)am, (unsigned long long)ak, (unsigned long long)bk,
                     (unsigned long long)bn, (unsigned long long)d->rows,
                     (unsigned long long)d->cols);
        return -1;
    }
    g->m = (int64_t)d->rows;
    g->n = (int64_t)d->cols;
    g->k = (int64_t)ak;
    g->batch = d->batch;
    return 0;
}

/* The group count when D's layout is grouped, else -1. A library without
 * the BATCH_MODE attribute (before cuBLAS 11.x's) has no grouped mode. */
static int32_t lt_groups(lt_layout_get_fn get, cublasLtMatrixLayout_t dl)
{
    uint32_t mode = 0;
    int32_t groups = -1;
    if (lay_get(get, dl, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, &mode, sizeof mode) ||
        mode != FC_LT_BATCH_MODE_GROUPED)
        return -1;
    if (lay_get(get, dl, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &groups, sizeof groups) || groups < 0)
        return 0; /* grouped all the same: never a shape */
    return groups;
}

/* Decodes the call into g with copy cp's getters (the descriptors are that
 * library's). On any failure g keeps m = n = k = -1, which fc_record
 * counts as an invalid call. A grouped D sets *groups (else -1) and leaves
 * the shape unknown, with g's dtypes read. */
static void lt_decode(fc_copy *cp, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t al,
                      cublasLtMatrixLayout_t bl, cublasLtMatrixLayout_t dl, fc_gemm *g,
                      int32_t *groups)
{
    FC_COPY_REAL(cp, lt_desc_get_fn, cublasLtMatmulDescGetAttribute, FC_SYM_LT_DESC_GET);
    FC_COPY_REAL(cp, lt_layout_get_fn, cublasLtMatrixLayoutGetAttribute, FC_SYM_LT_LAYOUT_GET);
    lt_desc_get_fn dget = fn_cublasLtMatmulDescGetAttribute;
    lt_layout_get_fn lget = fn_cublasLtMatrixLayoutGetAttribute;
    if (dget == NULL || lget == NULL)
        return;
    int32_t compute = 0, ta = 0, tb = 0;
    if (desc_get_i32(dget, desc, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &compute) ||
        desc_get_i32(dget, desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta) ||
        desc_get_i32(dget, desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb))
        return;
    char la = op_letter(ta), lb = op_letter(tb);
    if (la == 0 || lb == 0 || compute < INT16_MIN || compute > INT16_MAX)
        return;
    *groups = lt_groups(lget, dl);
    if (*groups >= 0) {
        g->transa = la;
        g->transb = lb;
        g->compute = (int16_t)compute;
        uint32_t at = 0, dt = 0;
        if (!lay_get(lget, al, CUBLASLT_MATRIX_LAYOUT_TYPE, &at, sizeof at) &&
            !lay_get(lget, dl, CUBLASLT_MATRIX_LAYOUT_TYPE, &dt, sizeof dt)) {
            g->dtype = input_dtype(at, compute);
            g->out_dtype = (uint8_t)fc_dtype_from_cuda((int)dt);
        }
        return;
    }
    lt_layout a = {0}, b = {0}, d = {0};
    if (read_layout(lget, al, 1, 0, &a) || read_layout(lget, bl, 0, 0, &b) ||
        read_layout(lget, dl, 1, 1, &d))
        return;
    fc_gemm shape = *g;
    if (fill_dims(&shape, ta, tb, &a, &b, &d))
        return;
    shape.compute = (int16_t)compute;
    shape.transa = la;
    shape.transb = lb;
    shape.dtype = input_dtype(a.type, compute);
    shape.out_dtype = (uint8_t)fc_dtype_from_cuda((int)d.type);
    *g = shape;
}

/* A grouped call (lt_groups): listed as uncounted by name with its dtype;
 * the first one's group count is the detail. Interned at each call (a
 * short hash and a scan): grouped calls are a few per MoE layer. */
static uint32_t lt_grouped_uncounted(const fc_gemm *g, int32_t groups)
{
    char name[64], detail[FC_UNCOUNTED_DETAIL];
    snprintf(name, sizeof name, "cublasLtMatmul grouped %s", fc_dtype_name(g->dtype));
    snprintf(detail, sizeof detail,
             "%d groups; every group's rows and columns are in device memory "
             "(cuBLASLt grouped layouts), %s",
             (int)groups,
             fc_opt.read_device_sizes ? "read back: counted when the copy lands (read_from_device)"
                                      : "no host extent bounds them");
    return fc_uncounted_intern(name, FC_K_GEMM_LIKE, FC_UNC_DEVICE_SIZES, detail);
}

/* A grouped layout's device array (attribute 9 rows, 10 columns) and the
 * width of its integers; -1 when the library does not say. */
static int lt_array(lt_layout_get_fn get, cublasLtMatrixLayout_t l, int attr, const void **arr,
                    uint8_t *width)
{
    int32_t w = 0;
    if (lay_get(get, l, (cublasLtMatrixLayoutAttribute_t)attr, (void *)arr, sizeof *arr) ||
        lay_get(get, l, (cublasLtMatrixLayoutAttribute_t)FC_LT_GROUPED_RC_WIDTH, &w, sizeof w) ||
        (w != 0 && w != 1))
        return -1;
    *width = (uint8_t)w;
    return 0;
}

/* --read-device-sizes: the copies of a successful grouped call's m, n and
 * k arrays (D's rows and columns, A's columns - rows when A is
 * transposed), queued on its stream after it (probe/devsizes.h), and its
 * placeholder in the ring, which the drain counts group by group once the
 * copies land (ring/devread.h). */
static void lt_grouped_read(fc_copy *cp, cublasLtMatrixLayout_t al, cublasLtMatrixLayout_t dl,
                            const fc_gemm *g, int32_t groups, uint32_t id, cudaStream_t stream)
{
    FC_COPY_REAL(cp, lt_layout_get_fn, cublasLtMatrixLayoutGetAttribute, FC_SYM_LT_LAYOUT_GET);
    lt_layout_get_fn lget = fn_cublasLtMatrixLayoutGetAttribute;
    fc_devsizes_req r = {.stream = stream, .groups = groups, .unc_id = id};
    int k_attr = g->transa == 'N' ? FC_LT_GROUPED_COLS_ARRAY : FC_LT_GROUPED_ROWS_ARRAY;
    if (lget == NULL || lt_array(lget, dl, FC_LT_GROUPED_ROWS_ARRAY, &r.m, &r.m_width) ||
        lt_array(lget, dl, FC_LT_GROUPED_COLS_ARRAY, &r.n, &r.n_width) ||
        lt_array(lget, al, k_attr, &r.k, &r.k_width))
        r.m = r.n = r.k = NULL; /* counted as not read: no_arrays */
    int slot = -1;
    fc_gemm read = *g;
    read.api = FC_API_CUBLASLT_GROUPED_READ;
    if (fc_devsizes_submit(&r, &slot) == FC_DEVSIZES_QUEUED &&
        fc_ring_put_devread(&read, slot, groups) != 0)
        fc_devsizes_give_up(slot); /* read into the entry only */
}

#define FC_LT_MATMUL_PARAMS                                                               \
    (cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void *alpha, const void *A,    \
     cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc,               \
     const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc, void *D,                  \
     cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo, void *workspace,         \
     size_t workspaceSize, cudaStream_t stream)
#define FC_LT_MATMUL_ARGS                                                                 \
    (handle, desc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace,  \
     workspaceSize, stream)
#define FC_SYM_LT_MATMUL FC_SYM_OF(FC_API_CUBLASLT_MATMUL, 0)

FC_HOOK_BODY(cublasStatus_t, cublasLtMatmul, FC_LT_MATMUL_PARAMS)
{
    FC_COPY_REAL_OR(cp, lt_matmul_fn, cublasLtMatmul, FC_SYM_LT_MATMUL,
                    fc_record_unresolved(FC_API_CUBLASLT_MATMUL);
                    return CUBLAS_STATUS_NOT_INITIALIZED);
    int outer = fc_hook_begin_gpu();
    fc_copy *prev_copy;
    if (!outer) { /* called from inside another counted call (libcublas int8 GemmEx) */
        FC_COPY_NESTED(cp, outer, lt_matmul_fn, cublasLtMatmul, FC_SYM_LT_MATMUL);
        prev_copy = fc_copy_enter(cp);
        cublasStatus_t st = fn_cublasLtMatmul(handle, desc, alpha, A, Adesc, B, Bdesc, beta, C,
                                              Cdesc, D, Ddesc, algo, workspace, workspaceSize,
                                              stream);
        fc_copy_leave(cp, prev_copy);
        fc_leave();
        return st;
    }
    fc_gemm g = {.api = FC_API_CUBLASLT_MATMUL, .compute = -1, .transa = '?', .transb = '?',
                 .m = -1, .n = -1, .k = -1, .batch = -1, .a = A, .b = B, .c = D,
                 .stream_handle = stream, .stream_kind = FC_STREAM_DIRECT};
    int32_t groups = -1;
    if (FC_LIKELY(fc_is_enabled())) {
        /* Read before forwarding: the shape as it was when the GEMM was
         * issued. The getters may touch errno; the caller must not see it. */
        int saved = errno;
        lt_decode(cp, desc, Adesc, Bdesc, Ddesc != NULL ? Ddesc : Cdesc, &g, &groups);
        errno = saved;
    }
    prev_copy = fc_copy_enter(cp);
    cublasStatus_t st = fn_cublasLtMatmul(handle, desc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc,
                                          D, Ddesc, algo, workspace, workspaceSize, stream);
    fc_copy_leave(cp, prev_copy);
    if (FC_UNLIKELY(groups >= 0)) {
        int saved = errno;
        (void)fc_hook_diverted_gpu(outer, &g, 0); /* only the kernel-timing pop */
        uint32_t id = lt_grouped_uncounted(&g, groups);
        int ok = st == CUBLAS_STATUS_SUCCESS;
        if (ok && fc_cupti_launch_captured(FC_CUPTI_ITEM_UNCOUNTED, NULL, id, stream)) {
            /* recorded against a stream capture: each launch of its graph
             * lists one call (graphs_rt.c), none of them read (a copy
             * would change the user's graph) */
            if (fc_opt.read_device_sizes)
                fc_devsizes_not_read(id, FC_DEVSIZES_CAPTURING);
        } else {
            fc_uncounted_count(id, ok);
            if (fc_opt.read_device_sizes && ok)
                lt_grouped_read(cp, Adesc, Ddesc != NULL ? Ddesc : Cdesc, &g, groups, id, stream);
        }
        errno = saved;
        fc_leave();
        return st;
    }
    fc_hook_end_gpu(outer, &g, st == CUBLAS_STATUS_SUCCESS);
    return st;
}

FC_HOOK_DEFINE(cublasStatus_t, return, cublasLtMatmul, FC_LIB_CUBLASLT, FC_SYM_LT_MATMUL,
               FC_LT_MATMUL_PARAMS, FC_LT_MATMUL_ARGS)
