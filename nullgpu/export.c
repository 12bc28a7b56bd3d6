/* SPDX-License-Identifier: Apache-2.0 */
/* export.c - cuGetExportTable: the driver's private tables of function
 * pointers that the CUDA runtime (shared and static, so cuBLAS, cuBLASLt and
 * cuDNN too) asks for by UUID. Their layout is undocumented; what is known
 * publicly comes from the ZLUDA project and Wine's nvcuda, and what these
 * libraries needed was measured (docs/nullgpu.md lists it).
 *
 * Every table is an array of pointers; slot 0 holds the table's size in bytes
 * except in the context-local-storage table. Slots we give no meaning to
 * point at a function that logs "table T slot N" once (FLOPCOUNT_NULLGPU_LOG)
 * and returns 0 (success), which is what the libraries needed from them.
 * NVRTC's table (DA9151D3) is refused: with it NVRTC hands cuDNN an empty
 * cubin; without it NVRTC compiles on the CPU. CUPTI's (7cb63f9b) is given
 * with no slots (its size slot says 8 bytes): CUPTI 13.2 then takes its own
 * defaults where it would call the table, and cuptiSubscribe fails with
 * CUPTI_ERROR_UNKNOWN; refused, the table sent CUPTI into endless
 * recursion (tests/nullgpu/cupti_refused.c). */
#include "nullgpu.h"

#include <stdlib.h>
#include <string.h>

#define NSLOTS 128

enum { T_CUDART, T_HOOKS, T_TLS, T_CLS, T_CHECKS, T_INTEGRITY, T_CTX_ID, T_1734, T_BYPASS, T_HEAP,
       T_DEVEXT, T_CUPTI, NTABLES };

static const char *const table_names[NTABLES] = {
    "CUDART_INTERFACE 6bd5fb6c", "TOOLS_RUNTIME_CALLBACK_HOOKS a094798c", "TOOLS_TLS 42d85a81",
    "CONTEXT_LOCAL_STORAGE c693336e", "CONTEXT_CHECKS 263e8860", "INTEGRITY_CHECK d4082055",
    "CONTEXT_IDENTITY 21318c60", "1734dc26", "CTX_CREATE_BYPASS 0ca50b8c", "HEAP_ACCESS 195bcbf4",
    "DEVICE_EXTENDED_RT b10541e1", "CUPTI 7cb63f9b"};

static const unsigned char uuids[NTABLES][16] = {
    {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9},
    {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66},
    {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc},
    {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93},
    {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e},
    {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2},
    {0x21, 0x31, 0x8c, 0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* matched on 4 bytes */
    {0x17, 0x34, 0xdc, 0x26, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* matched on 4 bytes */
    {0x0c, 0xa5, 0x0b, 0x8c, 0x10, 0x04, 0x92, 0x9a, 0x89, 0xa7, 0xd0, 0xdf, 0x10, 0xe7, 0x72, 0x86},
    {0x19, 0x5b, 0xcb, 0xf4, 0xd6, 0x7d, 0x02, 0x4a, 0xac, 0xc5, 0x1d, 0x29, 0xce, 0xa6, 0x31, 0xae},
    {0xb1, 0x05, 0x41, 0xe1, 0xf7, 0xc7, 0xc7, 0x4a, 0x9f, 0x64, 0xf2, 0x23, 0xbe, 0x99, 0xf1, 0xe2},
    {0x7c, 0xb6, 0x3f, 0x9b, 0x9c, 0xa4, 0x8e, 0x42, 0xa4, 0x84, 0xbe, 0xb6, 0x6e, 0x6a, 0xed, 0x7f},
};
/* how many leading bytes identify the table (full UUID where we know it) */
static const int uuid_len[NTABLES] = {16, 16, 16, 16, 16, 16, 4, 4, 16, 16, 16, 16};
/* table sizes in slots, as the real driver's; CUPTI's: the size slot alone */
static const int table_slots[NTABLES] = {13, 7, 4, 4, 4, 3, NSLOTS, 16, 2, 3, 26, 1};
/* what an unknown slot answers: 0 (success, what the runtime and the
 * libraries needed); CUDA_ERROR_NOT_SUPPORTED in CUPTI's table, should a
 * CUPTI call past its size (slot 67 of a full table answering an error sent
 * 13.2 into the same recursion as a refused table) */
static const uintptr_t slot_answer[NTABLES] = {[T_CUPTI] = CUDA_ERROR_NOT_SUPPORTED};

/* ---- the unknown-slot functions: one per (table, slot), logging once ---- */
static int slot_once[NTABLES][NSLOTS];

static uintptr_t unknown_slot(int t, int s)
{
    if (!__atomic_exchange_n(&slot_once[t][s], 1, __ATOMIC_RELAXED))
        ng_log("export table %s slot %d called (answered %d)", table_names[t], s,
               (int)slot_answer[t]);
    return slot_answer[t];
}

#define SLOT_FN(t, g, k)                                                                           \
    static uintptr_t slot_##t##_##g##_##k(void) { return unknown_slot(t, g * 8 + k); }
#define SLOT_PTR(t, g, k) (void *)slot_##t##_##g##_##k,
#define R8(X, t, g) X(t, g, 0) X(t, g, 1) X(t, g, 2) X(t, g, 3) X(t, g, 4) X(t, g, 5) X(t, g, 6) X(t, g, 7)
#define R128(X, t)                                                                                 \
    R8(X, t, 0) R8(X, t, 1) R8(X, t, 2) R8(X, t, 3) R8(X, t, 4) R8(X, t, 5) R8(X, t, 6) R8(X, t, 7)   \
    R8(X, t, 8) R8(X, t, 9) R8(X, t, 10) R8(X, t, 11) R8(X, t, 12) R8(X, t, 13) R8(X, t, 14) R8(X, t, 15)

#define TABLE_FNS(t) R128(SLOT_FN, t)
TABLE_FNS(0)
TABLE_FNS(1)
TABLE_FNS(2)
TABLE_FNS(3)
TABLE_FNS(4)
TABLE_FNS(5)
TABLE_FNS(6)
TABLE_FNS(7)
TABLE_FNS(8)
TABLE_FNS(9)
TABLE_FNS(10)
TABLE_FNS(11)

static void *tables[NTABLES][NSLOTS] = {
    {R128(SLOT_PTR, 0)}, {R128(SLOT_PTR, 1)}, {R128(SLOT_PTR, 2)}, {R128(SLOT_PTR, 3)},
    {R128(SLOT_PTR, 4)}, {R128(SLOT_PTR, 5)}, {R128(SLOT_PTR, 6)}, {R128(SLOT_PTR, 7)},
    {R128(SLOT_PTR, 8)}, {R128(SLOT_PTR, 9)}, {R128(SLOT_PTR, 10)}, {R128(SLOT_PTR, 11)},
};

/* ---- CUDART_INTERFACE ---- */
typedef struct fatbin_wrapper {
    int magic, version;
    const void *data;
    const void *filename_or_fatbins;
} fatbin_wrapper;

static CUresult cudart_module_from_wrapper(CUmodule *m, const fatbin_wrapper *w)
{
    if (m == NULL || w == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return ng_module_load(m, w->data);
}

static CUresult cudart_primary_ctx(CUcontext *pctx, CUdevice dev)
{
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *pctx = ng_primary_ctx();
    return CUDA_SUCCESS;
}

static CUresult cudart_module_ext1(CUmodule *m, const fatbin_wrapper *w, void *a3, void *a4, unsigned a5)
{
    (void)a3;
    (void)a4;
    (void)a5;
    return cudart_module_from_wrapper(m, w);
}

static void cudart_fn7(uintptr_t a) { (void)a; }

static CUresult cudart_module_ext2(const void *fatbin, CUmodule *m, void *a3, void *a4, unsigned a5)
{
    (void)a3;
    (void)a4;
    (void)a5;
    if (m == NULL || fatbin == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return ng_module_load(m, fatbin);
}

static CUresult cudart_load_compilers(void) { return CUDA_SUCCESS; }

/* ---- TOOLS_RUNTIME_CALLBACK_HOOKS: two scratch buffers the runtime fills ---- */
static uint64_t hook_buffer1[1024], hook_buffer2[64];

static void hooks_buffer1(void **p, size_t *n)
{
    *p = hook_buffer1;
    *n = 1024;
}

static void hooks_buffer2(void **p, size_t *n)
{
    *p = hook_buffer2;
    *n = 14;
}

/* ---- TOOLS_TLS: slot 2 gives the calling thread's current context, or the
 * primary context on a thread that has none yet: cuBLAS called from a thread
 * where nothing made a context current (PyTorch's autograd thread) answered
 * NOT_SUPPORTED to every GEMM when this gave NULL. ---- */
static CUresult tls_current_ctx(CUcontext *out)
{
    if (out != NULL) {
        CUcontext c = ng_current_ctx();
        *out = c != NULL ? c : ng_primary_ctx();
    }
    return CUDA_SUCCESS;
}

/* ---- CONTEXT_LOCAL_STORAGE: (context, key) -> value ---- */
static CUcontext cls_ctx(CUcontext c)
{
    if (c == NULL)
        c = ng_current_ctx();
    return ng_ctx_valid(c) ? c : NULL;
}

static CUresult cls_put(CUcontext c, void *key, void *value, void (*dtor)(CUcontext, void *, void *))
{
    c = cls_ctx(c);
    if (c == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult rc = CUDA_SUCCESS;
    ng_lock();
    int i;
    for (i = 0; i < c->nstorage && c->storage[i].key != key; i++)
        ;
    if (i == c->nstorage) {
        if (c->nstorage == c->capstorage) {
            int cap = c->capstorage ? c->capstorage * 2 : 8;
            ng_storage *n = realloc(c->storage, (size_t)cap * sizeof *n);
            if (n == NULL)
                rc = CUDA_ERROR_OUT_OF_MEMORY;
            else {
                c->storage = n;
                c->capstorage = cap;
            }
        }
        if (rc == CUDA_SUCCESS)
            c->nstorage++;
    }
    if (rc == CUDA_SUCCESS)
        c->storage[i] = (ng_storage){.key = key, .value = value, .dtor = dtor};
    ng_unlock();
    return rc;
}

static CUresult cls_delete(CUcontext c, void *key)
{
    c = cls_ctx(c);
    if (c == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    ng_lock();
    for (int i = 0; i < c->nstorage; i++)
        if (c->storage[i].key == key) {
            c->storage[i] = c->storage[--c->nstorage];
            break;
        }
    ng_unlock();
    return CUDA_SUCCESS;
}

static CUresult cls_get(void **value, CUcontext c, void *key)
{
    c = cls_ctx(c);
    if (c == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult rc = CUDA_ERROR_INVALID_HANDLE;
    ng_lock();
    for (int i = 0; i < c->nstorage; i++)
        if (c->storage[i].key == key) {
            *value = c->storage[i].value;
            rc = CUDA_SUCCESS;
            break;
        }
    ng_unlock();
    return rc;
}

/* ---- CONTEXT_CHECKS ---- */
static CUresult checks_context(CUcontext c, uint32_t *r1, const void **r2)
{
    (void)c;
    (void)r2;
    if (r1 != NULL)
        *r1 = 0;
    return CUDA_SUCCESS;
}

static uint32_t checks_fn3(void) { return 0; }

/* ---- INTEGRITY_CHECK (integrity.c computes the answer) ---- */
CUresult ng_integrity_answer(uint32_t version, uint64_t seconds, const void *cudart_table,
                             const void *integrity_table, const void *fn, uint64_t out[2]);

static CUresult integrity_check(uint32_t version, uint64_t seconds, uint64_t out[2])
{
    if (out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return ng_integrity_answer(version, seconds, tables[T_CUDART], tables[T_INTEGRITY],
                               tables[T_INTEGRITY][1], out);
}

/* ---- context identity (cuBLAS, cuBLASLt, cuDNN): slot 4 is cuCtxGetId ---- */
static CUresult ctxid_get(CUcontext c, unsigned long long *id)
{
    if (c == NULL)
        c = ng_current_ctx();
    if (!ng_ctx_valid(c) || id == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    *id = c->id;
    return CUDA_SUCCESS;
}

/* ---- DEVICE_EXTENDED_RT ---- */
static CUresult devext_attribute(CUdevice dev, unsigned attr, int unknown, size_t out[2])
{
    (void)unknown;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    int v = 0;
    if (out == NULL || !ng_device_attribute((CUdevice_attribute)attr, &v))
        return CUDA_ERROR_INVALID_VALUE;
    out[0] = (size_t)v;
    out[1] = 0;
    return CUDA_SUCCESS;
}

static CUresult devext_something(unsigned char *out, CUdevice dev)
{
    (void)dev;
    if (out != NULL)
        *out = 0;
    return CUDA_SUCCESS;
}

static CUresult bypass_ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev)
{
    return cuCtxCreate_v4(pctx, NULL, flags, dev);
}

static int filled;

static void fill_tables(void)
{
    for (int t = 0; t < NTABLES; t++)
        if (t != T_CLS)
            tables[t][0] = (void *)(uintptr_t)(table_slots[t] * sizeof(void *));
    tables[T_CUDART][1] = (void *)cudart_module_from_wrapper;
    tables[T_CUDART][2] = (void *)cudart_primary_ctx;
    tables[T_CUDART][6] = (void *)cudart_module_ext1;
    tables[T_CUDART][7] = (void *)cudart_fn7;
    tables[T_CUDART][8] = (void *)cudart_module_ext2;
    tables[T_CUDART][12] = (void *)cudart_load_compilers;
    tables[T_HOOKS][2] = (void *)hooks_buffer1;
    tables[T_HOOKS][6] = (void *)hooks_buffer2;
    tables[T_TLS][2] = (void *)tls_current_ctx;
    tables[T_CLS][0] = (void *)cls_put;
    tables[T_CLS][1] = (void *)cls_delete;
    tables[T_CLS][2] = (void *)cls_get;
    tables[T_CHECKS][2] = (void *)checks_context;
    tables[T_CHECKS][3] = (void *)checks_fn3;
    tables[T_INTEGRITY][1] = (void *)integrity_check;
    tables[T_CTX_ID][4] = (void *)ctxid_get;
    tables[T_BYPASS][1] = (void *)bypass_ctx_create;
    tables[T_DEVEXT][5] = (void *)devext_attribute;
    tables[T_DEVEXT][13] = (void *)devext_something;
    __atomic_store_n(&filled, 1, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void export_ctor(void) { fill_tables(); }

CUresult ng_export_table(const void **table, const CUuuid *id)
{
    if (!__atomic_load_n(&filled, __ATOMIC_ACQUIRE))
        fill_tables(); /* idempotent: the same values every time */
    for (int t = 0; t < NTABLES; t++)
        if (memcmp(id->bytes, uuids[t], (size_t)uuid_len[t]) == 0) {
            *table = tables[t];
            return CUDA_SUCCESS;
        }
    const unsigned char *b = (const unsigned char *)id->bytes;
    ng_log("export table %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x refused",
           b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
           b[15]);
    *table = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

NG_EXPORT CUresult cuGetExportTable(const void **table, const CUuuid *id)
{
    if (table == NULL || id == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return ng_export_table(table, id);
}
