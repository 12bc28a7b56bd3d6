/* SPDX-License-Identifier: Apache-2.0 */
/* memory.c - "device" memory that is host memory: the registry of ranges
 * (device, pinned host, managed, registered, module globals, VMM mappings),
 * cuMemAlloc* / cuMemHostAlloc / cuMemFree*, cuMemGetInfo, the pointer
 * attributes, and stream-ordered allocation with memory pools.
 *
 * A device pointer is the host address of its storage (unified addressing
 * holds trivially), mmap'ed with MAP_NORESERVE so an 80 GB device costs only
 * the pages a program touches. The registry is a sorted array searched by
 * binary search under ng_lock. */
#include "nullgpu.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static ng_alloc *ranges;
static size_t nranges, capranges;
static size_t device_bytes; /* device + managed + VMM bytes, for cuMemGetInfo */
static unsigned long long next_id = 1;

void *ng_map(size_t size)
{
    if (size == 0)
        size = 1;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void ng_unmap(void *p, size_t size)
{
    if (p != NULL)
        munmap(p, size == 0 ? 1 : size);
}

/* index of the first range with base > p */
static size_t upper(uintptr_t p)
{
    size_t lo = 0, hi = nranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ranges[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int counts_as_device(int kind)
{
    return kind == NG_MEM_DEVICE || kind == NG_MEM_MANAGED || kind == NG_MEM_VMM;
}

int ng_mem_add(uintptr_t base, size_t size, int kind, unsigned flags)
{
    ng_lock();
    if (nranges == capranges) {
        size_t cap = capranges ? capranges * 2 : 256;
        ng_alloc *n = realloc(ranges, cap * sizeof *n);
        if (n == NULL) {
            ng_unlock();
            return 0;
        }
        ranges = n;
        capranges = cap;
    }
    size_t i = upper(base);
    memmove(&ranges[i + 1], &ranges[i], (nranges - i) * sizeof *ranges);
    ranges[i] = (ng_alloc){.base = base, .size = size, .kind = kind, .flags = flags,
                           .id = next_id++};
    nranges++;
    if (counts_as_device(kind))
        device_bytes += size;
    ng_unlock();
    return 1;
}

int ng_mem_find(uintptr_t p, ng_alloc *out)
{
    int found = 0;
    ng_lock();
    size_t i = upper(p);
    if (i > 0 && p - ranges[i - 1].base < (ranges[i - 1].size ? ranges[i - 1].size : 1)) {
        if (out != NULL)
            *out = ranges[i - 1];
        found = 1;
    }
    ng_unlock();
    return found;
}

int ng_mem_remove(uintptr_t base, ng_alloc *out)
{
    int found = 0;
    ng_lock();
    size_t i = upper(base);
    if (i > 0 && ranges[i - 1].base == base) {
        if (out != NULL)
            *out = ranges[i - 1];
        if (counts_as_device(ranges[i - 1].kind))
            device_bytes -= ranges[i - 1].size;
        memmove(&ranges[i - 1], &ranges[i], (nranges - i) * sizeof *ranges);
        nranges--;
        found = 1;
    }
    ng_unlock();
    return found;
}

size_t ng_mem_in_use(void)
{
    ng_lock();
    size_t n = device_bytes;
    ng_unlock();
    return n;
}

static CUresult alloc_kind(void **out, size_t size, int kind, unsigned flags)
{
    NG_CHECK_INIT();
    if (out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (kind != NG_MEM_HOST && ng_mem_in_use() + size > ng_device()->total_mem)
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *p = ng_map(size);
    if (p == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (!ng_mem_add((uintptr_t)p, size, kind, flags)) {
        ng_unmap(p, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = p;
    return CUDA_SUCCESS;
}

static CUresult free_kind(uintptr_t p, int host)
{
    NG_CHECK_INIT();
    if (p == 0)
        return CUDA_SUCCESS;
    ng_alloc a;
    if (!ng_mem_find(p, &a) || a.base != p || (host != (a.kind == NG_MEM_HOST)) ||
        a.kind == NG_MEM_VMM || a.kind == NG_MEM_GLOBAL || a.kind == NG_MEM_REGISTERED)
        return CUDA_ERROR_INVALID_VALUE;
    ng_mem_remove(p, &a);
    ng_unmap((void *)a.base, a.size);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t size)
{
    return alloc_kind((void **)dptr, size, NG_MEM_DEVICE, 0);
}

NG_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
                                      unsigned elem)
{
    if (pitch == NULL || (elem != 4 && elem != 8 && elem != 16))
        return CUDA_ERROR_INVALID_VALUE;
    size_t p = (width + 511) / 512 * 512;
    CUresult rc = alloc_kind((void **)dptr, p * (height ? height : 1), NG_MEM_DEVICE, 0);
    if (rc == CUDA_SUCCESS)
        *pitch = p;
    return rc;
}

NG_EXPORT CUresult cuMemFree_v2(CUdeviceptr p) { return free_kind((uintptr_t)p, 0); }

NG_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned flags)
{
    return alloc_kind((void **)dptr, size, NG_MEM_MANAGED, flags);
}

NG_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t size)
{
    return alloc_kind(pp, size, NG_MEM_HOST, 0);
}

NG_EXPORT CUresult cuMemHostAlloc(void **pp, size_t size, unsigned flags)
{
    return alloc_kind(pp, size, NG_MEM_HOST, flags);
}

NG_EXPORT CUresult cuMemFreeHost(void *p) { return free_kind((uintptr_t)p, 1); }

NG_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned flags)
{
    NG_CHECK_INIT();
    ng_alloc a;
    if (dptr == NULL || flags != 0 || !ng_mem_find((uintptr_t)p, &a) ||
        (a.kind != NG_MEM_HOST && a.kind != NG_MEM_REGISTERED))
        return CUDA_ERROR_INVALID_VALUE;
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemHostGetFlags(unsigned *flags, void *p)
{
    NG_CHECK_INIT();
    ng_alloc a;
    if (flags == NULL || !ng_mem_find((uintptr_t)p, &a) ||
        (a.kind != NG_MEM_HOST && a.kind != NG_MEM_REGISTERED))
        return CUDA_ERROR_INVALID_VALUE;
    *flags = a.flags;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t size, unsigned flags)
{
    NG_CHECK_INIT();
    if (p == NULL || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (ng_mem_find((uintptr_t)p, NULL))
        return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    return ng_mem_add((uintptr_t)p, size, NG_MEM_REGISTERED, flags) ? CUDA_SUCCESS
                                                                     : CUDA_ERROR_OUT_OF_MEMORY;
}

NG_EXPORT CUresult cuMemHostUnregister(void *p)
{
    NG_CHECK_INIT();
    ng_alloc a;
    if (!ng_mem_find((uintptr_t)p, &a) || a.kind != NG_MEM_REGISTERED || a.base != (uintptr_t)p)
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    ng_mem_remove(a.base, NULL);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    NG_CHECK_INIT();
    size_t t = ng_device()->total_mem, used = ng_mem_in_use();
    if (free_bytes != NULL)
        *free_bytes = used < t ? t - used : 0;
    if (total != NULL)
        *total = t;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr p)
{
    NG_CHECK_INIT();
    ng_alloc a;
    if (!ng_mem_find((uintptr_t)p, &a) || a.kind == NG_MEM_HOST || a.kind == NG_MEM_REGISTERED)
        return CUDA_ERROR_NOT_FOUND;
    if (base != NULL)
        *base = (CUdeviceptr)a.base;
    if (size != NULL)
        *size = a.size;
    return CUDA_SUCCESS;
}

static CUmemorytype memory_type(int kind)
{
    return kind == NG_MEM_HOST || kind == NG_MEM_REGISTERED ? CU_MEMORYTYPE_HOST
                                                            : CU_MEMORYTYPE_DEVICE;
}

/* One attribute of a known range; CUDA_ERROR_INVALID_VALUE for the rest.
 * Booleans are written as 4-byte unsigned: the runtime reads IS_MANAGED that
 * wide (a 1-byte write left it reading pinned memory as managed). */
static CUresult pointer_attribute(void *data, CUpointer_attribute attr, uintptr_t p, const ng_alloc *a)
{
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data = ng_primary_ctx(); break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)data = memory_type(a->kind); break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data = (CUdeviceptr)p; break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (a->kind == NG_MEM_DEVICE || a->kind == NG_MEM_VMM || a->kind == NG_MEM_GLOBAL)
            return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = (void *)p;
        break;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: *(unsigned *)data = 1; break;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data = a->id; break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(unsigned *)data = a->kind == NG_MEM_MANAGED; break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = 0; break;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        *(unsigned *)data = a->kind == NG_MEM_DEVICE;
        break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data = (CUdeviceptr)a->base; break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = a->size; break;
    case CU_POINTER_ATTRIBUTE_MAPPED: *(unsigned *)data = 1; break;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        *(unsigned long long *)data = a->kind == NG_MEM_VMM ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : 0;
        break;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: *(unsigned *)data = 0; break;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        *(int *)data = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
        break;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(CUmemoryPool *)data = NULL; break;
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: *(unsigned long long *)data = a->id; break;
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: *(unsigned *)data = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr p)
{
    NG_CHECK_INIT();
    ng_alloc a;
    if (data == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!ng_mem_find((uintptr_t)p, &a))
        return CUDA_ERROR_INVALID_VALUE; /* pageable host memory, unknown to the driver */
    return pointer_attribute(data, attr, (uintptr_t)p, &a);
}

/* The runtime's cudaPointerGetAttributes: unknown pointers are not an error,
 * they read as unregistered host memory (type 0, context NULL). */
NG_EXPORT CUresult cuPointerGetAttributes(unsigned n, CUpointer_attribute *attrs, void **data,
                                          CUdeviceptr p)
{
    NG_CHECK_INIT();
    if (attrs == NULL || data == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    ng_alloc a;
    int known = ng_mem_find((uintptr_t)p, &a);
    for (unsigned i = 0; i < n; i++) {
        if (data[i] == NULL)
            continue;
        if (known) {
            if (pointer_attribute(data[i], attrs[i], (uintptr_t)p, &a) == CUDA_SUCCESS)
                continue;
            if (attrs[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER) {
                *(void **)data[i] = NULL;
                continue;
            }
        }
        switch (attrs[i]) {
        case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data[i] = NULL; break;
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data[i] = -2; break;
        case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(void **)data[i] = NULL; break;
        case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
        case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(unsigned long long *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: *(int *)data[i] = 0; break;
        default: *(unsigned *)data[i] = 0; break;
        }
    }
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute attr, CUdeviceptr p)
{
    (void)value;
    NG_CHECK_INIT();
    if (attr != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS || !ng_mem_find((uintptr_t)p, NULL))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemPrefetchAsync_v2(CUdeviceptr p, size_t n, CUmemLocation loc, unsigned flags,
                                         CUstream s)
{
    (void)p;
    (void)n;
    (void)loc;
    (void)flags;
    (void)s;
    NG_CHECK_INIT();
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemAdvise_v2(CUdeviceptr p, size_t n, CUmem_advise advice, CUmemLocation loc)
{
    (void)p;
    (void)n;
    (void)advice;
    (void)loc;
    NG_CHECK_INIT();
    return CUDA_SUCCESS;
}

/* ---- stream-ordered allocation: every pool hands out fresh mappings ---- */
typedef struct ng_pool {
    uint32_t magic;
    unsigned long long threshold;
    int reuse[3];
} ng_pool;
#define NG_POOL_MAGIC 0x4e47504fu
static ng_pool default_pool = {.magic = NG_POOL_MAGIC};
static CUmemoryPool current_pool = (CUmemoryPool)&default_pool;

static int pool_valid(CUmemoryPool p) { return p != NULL && ((ng_pool *)p)->magic == NG_POOL_MAGIC; }

NG_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev)
{
    NG_CHECK_INIT();
    if (pool == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *pool = (CUmemoryPool)&default_pool;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    NG_CHECK_INIT();
    if (pool == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *pool = __atomic_load_n(&current_pool, __ATOMIC_ACQUIRE);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    NG_CHECK_INIT();
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!pool_valid(pool))
        return CUDA_ERROR_INVALID_VALUE;
    __atomic_store_n(&current_pool, pool, __ATOMIC_RELEASE);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
    NG_CHECK_INIT();
    if (pool == NULL || props == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    ng_pool *p = calloc(1, sizeof *p);
    if (p == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->magic = NG_POOL_MAGIC;
    *pool = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    NG_CHECK_INIT();
    if (!pool_valid(pool) || pool == (CUmemoryPool)&default_pool)
        return CUDA_ERROR_INVALID_VALUE;
    ((ng_pool *)pool)->magic = 0;
    free(pool);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    NG_CHECK_INIT();
    if (!pool_valid(pool) || value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    ng_pool *p = (ng_pool *)pool;
    if (attr == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
        p->threshold = *(unsigned long long *)value;
    else if (attr >= CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES &&
             attr <= CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES)
        p->reuse[attr - 1] = *(int *)value;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    NG_CHECK_INIT();
    if (!pool_valid(pool) || value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    ng_pool *p = (ng_pool *)pool;
    if (attr == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
        *(unsigned long long *)value = p->threshold;
    else if (attr >= CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES &&
             attr <= CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES)
        *(int *)value = p->reuse[attr - 1];
    else
        *(unsigned long long *)value = 0;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
    (void)keep;
    NG_CHECK_INIT();
    return pool_valid(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

NG_EXPORT CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t n)
{
    (void)map;
    (void)n;
    NG_CHECK_INIT();
    return pool_valid(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

NG_EXPORT CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool pool, CUmemLocation *loc)
{
    (void)loc;
    NG_CHECK_INIT();
    if (flags == NULL || !pool_valid(pool))
        return CUDA_ERROR_INVALID_VALUE;
    *flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t size, CUstream s)
{
    if (!ng_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    return alloc_kind((void **)dptr, size, NG_MEM_DEVICE, 0);
}

NG_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t size, CUmemoryPool pool, CUstream s)
{
    if (!pool_valid(pool))
        return CUDA_ERROR_INVALID_VALUE;
    return cuMemAllocAsync(dptr, size, s);
}

NG_EXPORT CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s)
{
    if (!ng_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    return free_kind((uintptr_t)p, 0);
}
