/* SPDX-License-Identifier: Apache-2.0 */
/* vmm.c - the virtual memory management API (cuMemAddressReserve, cuMemCreate,
 * cuMemMap, cuMemSetAccess, cuMemUnmap, cuMemRelease, ...), which PyTorch's
 * expandable segments use: reserve a large range, map 2 MB / 20 MB physical
 * handles into it as the segment grows.
 *
 * A reservation is a PROT_NONE MAP_NORESERVE mapping; cuMemMap replaces its
 * part with fresh read-write anonymous memory. A physical handle holds no
 * storage of its own: mapping one handle at two addresses gives two separate
 * zeroed ranges (no program this library serves maps a handle twice). */
#include "nullgpu.h"

#include <stdlib.h>
#include <sys/mman.h>

#define GRANULARITY (2u << 20)

typedef struct ng_phys {
    uint32_t magic;
    size_t size;
    CUmemAllocationProp prop;
    int refs; /* 1 for the handle, +1 per mapping */
} ng_phys;
#define NG_PHYS_MAGIC 0x4e475048u

/* which handle each mapped range holds: a small list under ng_lock */
typedef struct mapping {
    uintptr_t base;
    size_t size;
    ng_phys *phys;
    struct mapping *next;
} mapping;
static mapping *mappings;

static ng_phys *phys_of(CUmemGenericAllocationHandle h)
{
    ng_phys *p = (ng_phys *)(uintptr_t)h;
    return p != NULL && p->magic == NG_PHYS_MAGIC ? p : NULL;
}

NG_EXPORT CUresult cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *prop,
                                                 CUmemAllocationGranularity_flags option)
{
    (void)option;
    NG_CHECK_INIT();
    if (g == NULL || prop == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *g = GRANULARITY;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t align, CUdeviceptr addr,
                                       unsigned long long flags)
{
    (void)flags;
    NG_CHECK_INIT();
    if (ptr == NULL || size == 0 || size % GRANULARITY != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (align < GRANULARITY)
        align = GRANULARITY;
    /* over-reserve to align, then trim the ends */
    size_t span = size + align;
    char *p = mmap((void *)(uintptr_t)addr, span, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    uintptr_t start = ((uintptr_t)p + align - 1) / align * align;
    if (start > (uintptr_t)p)
        munmap(p, start - (uintptr_t)p);
    uintptr_t end = (uintptr_t)p + span;
    if (end > start + size)
        munmap((void *)(start + size), end - (start + size));
    *ptr = (CUdeviceptr)start;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    NG_CHECK_INIT();
    if (ptr == 0 || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    munmap((void *)(uintptr_t)ptr, size);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                               const CUmemAllocationProp *prop, unsigned long long flags)
{
    (void)flags;
    NG_CHECK_INIT();
    if (handle == NULL || prop == NULL || size == 0 || size % GRANULARITY != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (ng_mem_in_use() + size > ng_device()->total_mem)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ng_phys *p = calloc(1, sizeof *p);
    if (p == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->magic = NG_PHYS_MAGIC;
    p->size = size;
    p->prop = *prop;
    p->refs = 1;
    *handle = (CUmemGenericAllocationHandle)(uintptr_t)p;
    return CUDA_SUCCESS;
}

static void phys_put(ng_phys *p)
{
    if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        p->magic = 0;
        free(p);
    }
}

NG_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    NG_CHECK_INIT();
    ng_phys *p = phys_of(handle);
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    phys_put(p);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                            CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    (void)flags;
    NG_CHECK_INIT();
    ng_phys *p = phys_of(handle);
    if (p == NULL || ptr == 0 || size == 0 || offset + size > p->size)
        return CUDA_ERROR_INVALID_VALUE;
    mapping *m = malloc(sizeof *m);
    if (m == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *q = mmap((void *)(uintptr_t)ptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (q == MAP_FAILED) {
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (!ng_mem_add((uintptr_t)ptr, size, NG_MEM_VMM, 0)) {
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    __atomic_add_fetch(&p->refs, 1, __ATOMIC_ACQ_REL);
    *m = (mapping){.base = (uintptr_t)ptr, .size = size, .phys = p};
    ng_lock();
    m->next = mappings;
    mappings = m;
    ng_unlock();
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    NG_CHECK_INIT();
    if (ptr == 0 || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    /* every mapping inside [ptr, ptr + size) goes */
    for (;;) {
        mapping *found = NULL;
        ng_lock();
        for (mapping **pp = &mappings; *pp != NULL; pp = &(*pp)->next)
            if ((*pp)->base >= (uintptr_t)ptr && (*pp)->base < (uintptr_t)ptr + size) {
                found = *pp;
                *pp = found->next;
                break;
            }
        ng_unlock();
        if (found == NULL)
            break;
        ng_mem_remove(found->base, NULL);
        phys_put(found->phys);
        free(found);
    }
    /* back to reserved, inaccessible address space */
    mmap((void *)(uintptr_t)ptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
         -1, 0);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t n)
{
    NG_CHECK_INIT();
    if (ptr == 0 || size == 0 || (desc == NULL && n > 0))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS; /* mapped read-write already */
}

NG_EXPORT CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *loc, CUdeviceptr ptr)
{
    (void)loc;
    NG_CHECK_INIT();
    if (flags == NULL || !ng_mem_find((uintptr_t)ptr, NULL))
        return CUDA_ERROR_INVALID_VALUE;
    *flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    NG_CHECK_INIT();
    if (handle == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    ng_phys *p = NULL;
    ng_lock();
    for (mapping *m = mappings; m != NULL; m = m->next)
        if ((uintptr_t)addr >= m->base && (uintptr_t)addr < m->base + m->size) {
            p = m->phys;
            break;
        }
    if (p != NULL)
        __atomic_add_fetch(&p->refs, 1, __ATOMIC_ACQ_REL);
    ng_unlock();
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *handle = (CUmemGenericAllocationHandle)(uintptr_t)p;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                          CUmemGenericAllocationHandle handle)
{
    NG_CHECK_INIT();
    ng_phys *p = phys_of(handle);
    if (p == NULL || prop == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *prop = p->prop;
    return CUDA_SUCCESS;
}
