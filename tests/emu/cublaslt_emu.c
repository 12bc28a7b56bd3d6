/* SPDX-License-Identifier: Apache-2.0 */
/* cublaslt_emu.c - a CPU stand-in for libcublasLt.so.13, for tests on
 * machines without a GPU.
 *
 * It implements the descriptor API (Create/Init/Destroy/Set/GetAttribute of
 * matmul descriptors and matrix layouts) with the real header's ABI, and
 * cublasLtMatmul doing the arithmetic on host memory for fp32 and fp64,
 * and for the mixed-precision forms of FP8 and BF16 training (BF16 or FP8
 * E4M3/E5M2 inputs, fp32 compute, a BF16 or FP32 output): column-major,
 * transposes, strided batches, alpha/beta read in the scale type. Anything
 * else returns the status the real library would give for a bad or
 * unsupported call, so the shim's handling of failures can be tested.
 *
 * Descriptors keep their attributes inside the caller-visible opaque struct
 * (copied with memcpy, never type-punned), tagged with a magic number so a
 * zeroed or foreign descriptor is refused with INVALID_VALUE.
 *
 * Built twice: as the emulation, and with FC_EMU_LT_NO_MATMUL as a library
 * of the same soname that lacks cublasLtMatmul (the "real function cannot
 * be found" case). */
#include <cublasLt.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cublaslt_emu.h"
#include "emu_formats.h"
#include "emu_launch.h"

#define EMU_EXPORT __attribute__((visibility("default")))
#define LAYOUT_MAGIC 0x4c41594fu /* "LAYO" */
#define DESC_MAGIC 0x44455343u   /* "DESC" */
#define HANDLE_MAGIC 0x484e444cu /* "HNDL" */

typedef struct emu_layout {
    uint32_t magic;
    uint32_t type;   /* cudaDataType_t */
    int32_t order;   /* cublasLtOrder_t */
    int32_t batch;   /* batch count */
    uint64_t rows, cols;
    int64_t ld;
    int64_t stride;  /* strided batch offset, elements */
    int64_t plane;   /* planar complex offset, bytes */
    uint32_t batch_mode;
} emu_layout;

typedef struct emu_desc {
    uint32_t magic;
    int32_t compute, scale, pointer_mode;
    int32_t transa, transb, transc, fill_mode;
    uint32_t epilogue;
} emu_desc;

struct cublasLtContext {
    uint32_t magic;
};

_Static_assert(sizeof(emu_layout) <= sizeof(cublasLtMatrixLayoutOpaque_t),
               "emulated layout must fit the header's opaque struct");
_Static_assert(sizeof(emu_desc) <= sizeof(cublasLtMatmulDescOpaque_t),
               "emulated matmul descriptor must fit the header's opaque struct");

/* ---- attribute access shared by Set and Get ---- */

/* Where attribute attr lives in e, and its size; NULL for one we do not
 * emulate. */
static void *layout_field(emu_layout *e, int attr, size_t *size)
{
    switch (attr) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE: *size = sizeof e->type; return &e->type;
    case CUBLASLT_MATRIX_LAYOUT_ORDER: *size = sizeof e->order; return &e->order;
    case CUBLASLT_MATRIX_LAYOUT_ROWS: *size = sizeof e->rows; return &e->rows;
    case CUBLASLT_MATRIX_LAYOUT_COLS: *size = sizeof e->cols; return &e->cols;
    case CUBLASLT_MATRIX_LAYOUT_LD: *size = sizeof e->ld; return &e->ld;
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: *size = sizeof e->batch; return &e->batch;
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: *size = sizeof e->stride; return &e->stride;
    case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET: *size = sizeof e->plane; return &e->plane;
    case CUBLASLT_MATRIX_LAYOUT_BATCH_MODE: *size = sizeof e->batch_mode; return &e->batch_mode;
    default: return NULL;
    }
}

static void *desc_field(emu_desc *e, int attr, size_t *size)
{
    switch (attr) {
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: *size = sizeof e->compute; return &e->compute;
    case CUBLASLT_MATMUL_DESC_SCALE_TYPE: *size = sizeof e->scale; return &e->scale;
    case CUBLASLT_MATMUL_DESC_POINTER_MODE: *size = sizeof e->pointer_mode; return &e->pointer_mode;
    case CUBLASLT_MATMUL_DESC_TRANSA: *size = sizeof e->transa; return &e->transa;
    case CUBLASLT_MATMUL_DESC_TRANSB: *size = sizeof e->transb; return &e->transb;
    case CUBLASLT_MATMUL_DESC_TRANSC: *size = sizeof e->transc; return &e->transc;
    case CUBLASLT_MATMUL_DESC_FILL_MODE: *size = sizeof e->fill_mode; return &e->fill_mode;
    case CUBLASLT_MATMUL_DESC_EPILOGUE: *size = sizeof e->epilogue; return &e->epilogue;
    default: return NULL;
    }
}

static int load_layout(cublasLtMatrixLayout_t l, emu_layout *e)
{
    if (l == NULL)
        return -1;
    memcpy(e, l, sizeof *e);
    return e->magic == LAYOUT_MAGIC ? 0 : -1;
}

static int load_desc(cublasLtMatmulDesc_t d, emu_desc *e)
{
    if (d == NULL)
        return -1;
    memcpy(e, d, sizeof *e);
    return e->magic == DESC_MAGIC ? 0 : -1;
}

/* The documented Get contract: size 0 asks for the size; otherwise the
 * buffer must be exactly the attribute's size. */
static cublasStatus_t get_field(const void *field, size_t size, void *buf, size_t bufsize,
                                size_t *written)
{
    if (field == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (bufsize == 0) {
        if (written == NULL)
            return CUBLAS_STATUS_INVALID_VALUE;
        *written = size;
        return CUBLAS_STATUS_SUCCESS;
    }
    if (buf == NULL || bufsize != size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, field, size);
    if (written != NULL)
        *written = size;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- handle ---- */

EMU_EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
{
    if (handle == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct cublasLtContext *h = malloc(sizeof *h);
    if (h == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = HANDLE_MAGIC;
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

EMU_EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle)
{
    if (handle == NULL || handle->magic != HANDLE_MAGIC)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->magic = 0;
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- matrix layouts ---- */

EMU_EXPORT cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t l, size_t size,
                                                            cudaDataType type, uint64_t rows,
                                                            uint64_t cols, int64_t ld)
{
    if (l == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size < sizeof(emu_layout))
        return CUBLAS_STATUS_ALLOC_FAILED;
    emu_layout e = {.magic = LAYOUT_MAGIC, .type = (uint32_t)type, .order = CUBLASLT_ORDER_COL,
                    .batch = 1, .rows = rows, .cols = cols, .ld = ld};
    memset(l, 0, size);
    memcpy(l, &e, sizeof e);
    return CUBLAS_STATUS_SUCCESS;
}

EMU_EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType type,
                                                     uint64_t rows, uint64_t cols, int64_t ld)
{
    if (l == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatrixLayout_t p = malloc(sizeof *p);
    if (p == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatrixLayoutInit_internal(p, sizeof *p, type, rows, cols, ld);
    *l = p;
    return CUBLAS_STATUS_SUCCESS;
}

EMU_EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l)
{
    if (l != NULL)
        memset(l, 0, sizeof *l); /* a use after destroy then fails loudly */
    free(l);
    return CUBLAS_STATUS_SUCCESS;
}

EMU_EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l,
                                                           cublasLtMatrixLayoutAttribute_t attr,
                                                           const void *buf, size_t size)
{
    emu_layout e;
    size_t want = 0;
    if (load_layout(l, &e))
        return CUBLAS_STATUS_INVALID_VALUE;
    void *field = layout_field(&e, attr, &want);
    if (field == NULL || buf == NULL || size != want)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(field, buf, size);
    memcpy(l, &e, sizeof e);
    return CUBLAS_STATUS_SUCCESS;
}

static atomic_ulong getter_calls;

EMU_EXPORT unsigned long fc_emu_lt_getter_calls(void)
{
    return atomic_load(&getter_calls);
}

EMU_EXPORT cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t l,
                                                           cublasLtMatrixLayoutAttribute_t attr,
                                                           void *buf, size_t size,
                                                           size_t *written)
{
    atomic_fetch_add(&getter_calls, 1);
    emu_layout e;
    size_t have = 0;
    if (load_layout(l, &e))
        return CUBLAS_STATUS_INVALID_VALUE;
    void *field = layout_field(&e, attr, &have);
    return get_field(field, have, buf, size, written);
}

/* ---- matmul descriptors ---- */

EMU_EXPORT cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t d, size_t size,
                                                          cublasComputeType_t compute,
                                                          cudaDataType_t scale)
{
    if (d == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size < sizeof(emu_desc))
        return CUBLAS_STATUS_ALLOC_FAILED;
    emu_desc e = {.magic = DESC_MAGIC, .compute = (int32_t)compute, .scale = (int32_t)scale,
                  .pointer_mode = CUBLASLT_POINTER_MODE_HOST, .transa = CUBLAS_OP_N,
                  .transb = CUBLAS_OP_N, .transc = CUBLAS_OP_N, .fill_mode = CUBLAS_FILL_MODE_FULL,
                  .epilogue = CUBLASLT_EPILOGUE_DEFAULT};
    memset(d, 0, size);
    memcpy(d, &e, sizeof e);
    return CUBLAS_STATUS_SUCCESS;
}

EMU_EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d,
                                                   cublasComputeType_t compute,
                                                   cudaDataType_t scale)
{
    if (d == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulDesc_t p = malloc(sizeof *p);
    if (p == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulDescInit_internal(p, sizeof *p, compute, scale);
    *d = p;
    return CUBLAS_STATUS_SUCCESS;
}

EMU_EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d)
{
    if (d != NULL)
        memset(d, 0, sizeof *d);
    free(d);
    return CUBLAS_STATUS_SUCCESS;
}

EMU_EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
                                                         cublasLtMatmulDescAttributes_t attr,
                                                         const void *buf, size_t size)
{
    emu_desc e;
    size_t want = 0;
    if (load_desc(d, &e))
        return CUBLAS_STATUS_INVALID_VALUE;
    void *field = desc_field(&e, attr, &want);
    if (field == NULL || buf == NULL || size != want)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(field, buf, size);
    memcpy(d, &e, sizeof e);
    return CUBLAS_STATUS_SUCCESS;
}

EMU_EXPORT cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t d,
                                                         cublasLtMatmulDescAttributes_t attr,
                                                         void *buf, size_t size, size_t *written)
{
    atomic_fetch_add(&getter_calls, 1);
    emu_desc e;
    size_t have = 0;
    if (load_desc(d, &e))
        return CUBLAS_STATUS_INVALID_VALUE;
    void *field = desc_field(&e, attr, &have);
    return get_field(field, have, buf, size, written);
}

#ifndef FC_EMU_LT_NO_MATMUL

/* ---- cublasLtMatmul ---- */

static atomic_ulong matmul_calls;

EMU_EXPORT unsigned long fc_emu_lt_matmul_calls(void)
{
    return atomic_load(&matmul_calls);
}

/* One GEMM of the batch, as the arithmetic needs it. */
typedef struct emu_call {
    const emu_layout *a, *b, *c, *d;
    int ta, tb;            /* transposed? */
    uint64_t m, n, k;
    uint32_t at, bt, dt;   /* element types of A, B and C/D (cudaDataType_t) */
    uint32_t st;           /* scale type: alpha and beta */
    double alpha, beta;
} emu_call;

static double load(const void *p, uint32_t type, int64_t i)
{
    switch (type) {
    case CUDA_R_32F: return (double)((const float *)p)[i];
    case CUDA_R_16BF: return bf16_to_float(((const uint16_t *)p)[i]);
    case CUDA_R_8F_E4M3: return fp8_to_double(((const uint8_t *)p)[i], 4, 7);
    case CUDA_R_8F_E5M2: return fp8_to_double(((const uint8_t *)p)[i], 5, 15);
    default: return ((const double *)p)[i];
    }
}

static void store(void *p, uint32_t type, int64_t i, double v)
{
    if (type == CUDA_R_32F)
        ((float *)p)[i] = (float)v;
    else if (type == CUDA_R_16BF)
        ((uint16_t *)p)[i] = float_to_bf16((float)v);
    else
        ((double *)p)[i] = v;
}

static int is_t(int32_t op)
{
    return op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

static int is_fp8(uint32_t t)
{
    return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2;
}

/* The mixed-precision forms: BF16 A and B, or FP8 A and B (E4M3 or E5M2,
 * not both E5M2, as cuBLASLt has it), into a BF16 or FP32 C = D, computed
 * in fp32 with fp32 scalars. FP8 scale factors are not emulated (1). */
static int mixed_ok(const emu_desc *op, const emu_layout *const l[4])
{
    uint32_t a = l[0]->type, b = l[1]->type, d = l[3]->type;
    int bf16 = a == CUDA_R_16BF && b == CUDA_R_16BF;
    int fp8 = is_fp8(a) && is_fp8(b) && !(a == CUDA_R_8F_E5M2 && b == CUDA_R_8F_E5M2);
    return (bf16 || fp8) && (d == CUDA_R_16BF || d == CUDA_R_32F) && l[2]->type == d &&
           op->compute == CUBLAS_COMPUTE_32F && op->scale == CUDA_R_32F;
}

/* What this emulation runs: host scalars, no epilogue, column-major
 * strided layouts; fp32 or fp64 throughout with a matching compute type,
 * or one of the mixed-precision forms above. */
static cublasStatus_t check_support(const emu_desc *op, const emu_layout *l[4])
{
    if (op->pointer_mode != CUBLASLT_POINTER_MODE_HOST ||
        op->epilogue != CUBLASLT_EPILOGUE_DEFAULT || op->transc != CUBLAS_OP_N)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    for (int i = 0; i < 4; i++)
        if (l[i]->order != CUBLASLT_ORDER_COL || l[i]->plane != 0 ||
            l[i]->batch_mode != CUBLASLT_BATCH_MODE_STRIDED)
            return CUBLAS_STATUS_NOT_SUPPORTED;
    if (mixed_ok(op, l))
        return CUBLAS_STATUS_SUCCESS;
    uint32_t type = l[0]->type;
    for (int i = 0; i < 4; i++)
        if (l[i]->type != type)
            return CUBLAS_STATUS_NOT_SUPPORTED;
    int c = op->compute;
    if (type == CUDA_R_32F && op->scale == CUDA_R_32F &&
        (c == CUBLAS_COMPUTE_32F || c == CUBLAS_COMPUTE_32F_PEDANTIC ||
         c == CUBLAS_COMPUTE_32F_FAST_TF32 || c == CUBLAS_COMPUTE_32F_FAST_16F ||
         c == CUBLAS_COMPUTE_32F_FAST_16BF))
        return CUBLAS_STATUS_SUCCESS;
    if (type == CUDA_R_64F && op->scale == CUDA_R_64F &&
        (c == CUBLAS_COMPUTE_64F || c == CUBLAS_COMPUTE_64F_PEDANTIC))
        return CUBLAS_STATUS_SUCCESS;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

static int ld_ok(const emu_layout *l)
{
    return l->ld >= 1 && (uint64_t)l->ld >= l->rows;
}

/* op(A) m x k, op(B) k x n, C and D m x n, one batch count for all. */
static cublasStatus_t check_shapes(const emu_desc *op, const emu_layout *l[4], emu_call *e)
{
    const emu_layout *a = l[0], *b = l[1], *c = l[2], *d = l[3];
    e->ta = is_t(op->transa);
    e->tb = is_t(op->transb);
    e->m = d->rows;
    e->n = d->cols;
    e->k = e->ta ? a->rows : a->cols;
    uint64_t am = e->ta ? a->cols : a->rows;
    uint64_t bk = e->tb ? b->cols : b->rows, bn = e->tb ? b->rows : b->cols;
    if (am != e->m || bk != e->k || bn != e->n || c->rows != e->m || c->cols != e->n)
        return CUBLAS_STATUS_INVALID_VALUE;
    for (int i = 0; i < 4; i++)
        if (!ld_ok(l[i]) || l[i]->batch != d->batch || l[i]->batch < 1)
            return CUBLAS_STATUS_INVALID_VALUE;
    if ((op->transa != CUBLAS_OP_N && !e->ta) || (op->transb != CUBLAS_OP_N && !e->tb))
        return CUBLAS_STATUS_INVALID_VALUE; /* CONJG and unknown values */
    return CUBLAS_STATUS_SUCCESS;
}

/* D = alpha * op(A) op(B) + beta * C for batch entry z. C is not read when
 * beta is 0 (as in cuBLAS), so C may then be anything. */
static void run_one(const emu_call *e, const void *A, const void *B, const void *C, void *D,
                    int64_t z)
{
    int64_t oa = z * e->a->stride, ob = z * e->b->stride;
    int64_t oc = z * e->c->stride, od = z * e->d->stride;
    for (uint64_t j = 0; j < e->n; j++)
        for (uint64_t i = 0; i < e->m; i++) {
            double sum = 0;
            for (uint64_t p = 0; p < e->k; p++) {
                int64_t ia = e->ta ? (int64_t)(p + i * e->a->ld) : (int64_t)(i + p * e->a->ld);
                int64_t ib = e->tb ? (int64_t)(j + p * e->b->ld) : (int64_t)(p + j * e->b->ld);
                sum += load(A, e->at, oa + ia) * load(B, e->bt, ob + ib);
            }
            double v = e->alpha * sum;
            if (e->beta != 0)
                v += e->beta * load(C, e->dt, oc + (int64_t)(i + j * e->c->ld));
            store(D, e->dt, od + (int64_t)(i + j * e->d->ld), v);
        }
}

static cublasStatus_t prepare(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t descs[4],
                              emu_desc *op, emu_layout lay[4], emu_call *e)
{
    const emu_layout *l[4] = {&lay[0], &lay[1], &lay[2], &lay[3]};
    if (load_desc(desc, op))
        return CUBLAS_STATUS_INVALID_VALUE;
    for (int i = 0; i < 4; i++)
        if (load_layout(descs[i], &lay[i]))
            return CUBLAS_STATUS_INVALID_VALUE;
    cublasStatus_t st = check_support(op, l);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = check_shapes(op, l, e);
    e->a = l[0];
    e->b = l[1];
    e->c = l[2];
    e->d = l[3];
    e->at = lay[0].type;
    e->bt = lay[1].type;
    e->dt = lay[3].type;
    e->st = (uint32_t)op->scale;
    return st;
}

EMU_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                         const void *alpha, const void *A,
                                         cublasLtMatrixLayout_t Adesc, const void *B,
                                         cublasLtMatrixLayout_t Bdesc, const void *beta,
                                         const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                                         cublasLtMatrixLayout_t Ddesc,
                                         const cublasLtMatmulAlgo_t *algo, void *workspace,
                                         size_t workspaceSize, cudaStream_t stream)
{
    (void)algo, (void)workspace, (void)workspaceSize;
    atomic_fetch_add(&matmul_calls, 1);
    if (handle == NULL || handle->magic != HANDLE_MAGIC)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    /* Every layout is needed: the real library (13.1, on the null GPU)
     * answers INVALID_VALUE to a NULL D layout, even in place on C. */
    if (Cdesc == NULL || Ddesc == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatrixLayout_t descs[4] = {Adesc, Bdesc, Cdesc, Ddesc};
    emu_desc op;
    emu_layout lay[4];
    emu_call e = {0};
    cublasStatus_t st = prepare(desc, descs, &op, lay, &e);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (alpha == NULL || beta == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    e.alpha = load(alpha, e.st, 0);
    e.beta = load(beta, e.st, 0);
    int empty = e.m == 0 || e.n == 0;
    if (!empty && (D == NULL || (e.k > 0 && (A == NULL || B == NULL)) ||
                   (e.beta != 0 && C == NULL)))
        return CUBLAS_STATUS_INVALID_VALUE;
    for (int64_t z = 0; !empty && z < lay[3].batch; z++)
        run_one(&e, A, B, C, D, z);
    emu_launch((void *)stream, "emu_cublaslt_gemm_kernel",
               2.0 * (double)e.m * (double)e.n * (double)e.k * (double)lay[3].batch);
    return CUBLAS_STATUS_SUCCESS;
}

#endif /* FC_EMU_LT_NO_MATMUL */
