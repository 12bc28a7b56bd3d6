/* SPDX-License-Identifier: Apache-2.0 */
/* module.c - modules and libraries (cuModuleLoad*, cuLibraryLoad*), their
 * functions / kernels and globals.
 *
 * Images are kept, never run: a function handle is a name, found or made on
 * first request (the name is not checked against the image, which may be
 * compressed); a global is host memory sized from the cubin's symbol table
 * when the image shows it, else 1 MiB. Parameter layouts come from the
 * cubin's .nv.info (image.c) for cuFuncGetParamInfo. A CUkernel is the same
 * object as its CUfunction, as the driver allows casting one to the other. */

#include "nullgpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_GLOBAL_SIZE (1u << 20)

typedef struct ng_global {
    char *name;
    void *ptr;
    size_t size;
    struct ng_global *next;
} ng_global;

struct CUlib_st {
    uint32_t magic;
    struct CUmod_st *mod;
};
#define NG_LIB_MAGIC 0x4e474c49u

static int module_valid(CUmodule m) { return m != NULL && m->magic == NG_MODULE_MAGIC; }
static int func_valid(CUfunction f) { return f != NULL && f->magic == NG_FUNC_MAGIC; }
static struct CUmod_st *lib_mod(CUlibrary l)
{
    return l != NULL && l->magic == NG_LIB_MAGIC ? l->mod : NULL;
}

CUresult ng_module_load(CUmodule *out, const void *image)
{
    NG_CHECK_INIT();
    if (out == NULL || image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUmodule m = calloc(1, sizeof *m);
    if (m == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->magic = NG_MODULE_MAGIC;
    m->image = image;
    *out = m;
    return CUDA_SUCCESS;
}

struct CUfunc_st *ng_module_function(struct CUmod_st *m, const char *name)
{
    ng_lock();
    struct CUfunc_st *f = m->funcs;
    while (f != NULL && strcmp(f->name, name) != 0)
        f = f->next;
    ng_unlock();
    if (f != NULL)
        return f;
    f = calloc(1, sizeof *f);
    if (f == NULL)
        return NULL;
    f->name = strdup(name);
    if (f->name == NULL) {
        free(f);
        return NULL;
    }
    f->magic = NG_FUNC_MAGIC;
    f->module = m;
    f->nparams = NG_PARAMS_UNREAD;
    ng_lock();
    struct CUfunc_st *again = m->funcs; /* another thread may have made it meanwhile */
    while (again != NULL && strcmp(again->name, name) != 0)
        again = again->next;
    if (again == NULL) {
        f->next = m->funcs;
        m->funcs = f;
    }
    ng_unlock();
    if (again != NULL) {
        free(f->name);
        free(f->offsets);
        free(f->sizes);
        free(f);
        return again;
    }
    return f;
}

static CUresult module_global(struct CUmod_st *m, const char *name, CUdeviceptr *dptr, size_t *bytes)
{
    ng_lock();
    ng_global *g = m->globals;
    while (g != NULL && strcmp(g->name, name) != 0)
        g = g->next;
    ng_unlock();
    if (g == NULL) {
        size_t size = m->image != NULL ? ng_image_global_size(m->image, name) : 0;
        g = calloc(1, sizeof *g);
        if (g == NULL)
            return CUDA_ERROR_OUT_OF_MEMORY;
        g->size = size != 0 ? size : DEFAULT_GLOBAL_SIZE;
        g->ptr = ng_map(g->size);
        g->name = strdup(name);
        if (g->ptr == NULL || g->name == NULL) {
            ng_unmap(g->ptr, g->size);
            free(g->name);
            free(g);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        ng_mem_add((uintptr_t)g->ptr, g->size, NG_MEM_GLOBAL, 0);
        ng_lock();
        g->next = m->globals;
        m->globals = g;
        ng_unlock();
    }
    if (dptr != NULL)
        *dptr = (CUdeviceptr)(uintptr_t)g->ptr;
    if (bytes != NULL)
        *bytes = g->size;
    return CUDA_SUCCESS;
}

static void module_free(CUmodule m)
{
    for (ng_global *g = m->globals, *next; g != NULL; g = next) {
        next = g->next;
        ng_mem_remove((uintptr_t)g->ptr, NULL);
        ng_unmap(g->ptr, g->size);
        free(g->name);
        free(g);
    }
    m->globals = NULL;
    /* Functions stay allocated: a launch racing the unload must still find a
     * valid handle rather than freed memory. */
    m->magic = 0;
}

NG_EXPORT CUresult cuModuleLoadData(CUmodule *m, const void *image) { return ng_module_load(m, image); }

NG_EXPORT CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, CUjit_option *o, void **v)
{
    (void)n;
    (void)o;
    (void)v;
    return ng_module_load(m, image);
}

NG_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *m, const void *image) { return ng_module_load(m, image); }

/* A file: read into memory kept with the module. */
static CUresult load_file(CUmodule *m, const char *path)
{
    NG_CHECK_INIT();
    if (path == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return CUDA_ERROR_FILE_NOT_FOUND;
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (cap - len < 65536) {
            char *nb = realloc(buf, cap + 65536 + 1);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
            buf = nb;
            cap += 65536;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
    } while (got > 0);
    fclose(f);
    buf[len] = '\0';
    CUresult rc = ng_module_load(m, buf);
    if (rc != CUDA_SUCCESS)
        free(buf);
    return rc;
}

NG_EXPORT CUresult cuModuleLoad(CUmodule *m, const char *path) { return load_file(m, path); }

NG_EXPORT CUresult cuModuleUnload(CUmodule m)
{
    NG_CHECK_INIT();
    if (!module_valid(m))
        return CUDA_ERROR_INVALID_HANDLE;
    module_free(m);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuModuleGetFunction(CUfunction *pf, CUmodule m, const char *name)
{
    NG_CHECK_INIT();
    if (pf == NULL || name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!module_valid(m))
        return CUDA_ERROR_INVALID_HANDLE;
    CUfunction f = ng_module_function(m, name);
    if (f == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pf = f;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule m, const char *name)
{
    NG_CHECK_INIT();
    if (name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!module_valid(m))
        return CUDA_ERROR_INVALID_HANDLE;
    return module_global(m, name, dptr, bytes);
}

NG_EXPORT CUresult cuModuleGetFunctionCount(unsigned *count, CUmodule m)
{
    NG_CHECK_INIT();
    if (count == NULL || !module_valid(m))
        return CUDA_ERROR_INVALID_VALUE;
    unsigned n = 0;
    ng_lock();
    for (CUfunction f = m->funcs; f != NULL; f = f->next)
        n++;
    ng_unlock();
    *count = n;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
    if (mode == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *mode = CU_MODULE_LAZY_LOADING;
    return CUDA_SUCCESS;
}

/* ---- libraries ---- */
static CUresult lib_wrap(CUlibrary *out, CUmodule m)
{
    struct CUlib_st *l = calloc(1, sizeof *l);
    if (l == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    l->magic = NG_LIB_MAGIC;
    l->mod = m;
    *out = l;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuLibraryLoadData(CUlibrary *lib, const void *code, CUjit_option *jo, void **jv,
                                     unsigned nj, CUlibraryOption *lo, void **lv, unsigned nl)
{
    (void)jo;
    (void)jv;
    (void)nj;
    (void)lo;
    (void)lv;
    (void)nl;
    if (lib == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUmodule m;
    CUresult rc = ng_module_load(&m, code);
    return rc != CUDA_SUCCESS ? rc : lib_wrap(lib, m);
}

NG_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary *lib, const char *path, CUjit_option *jo, void **jv,
                                         unsigned nj, CUlibraryOption *lo, void **lv, unsigned nl)
{
    (void)jo;
    (void)jv;
    (void)nj;
    (void)lo;
    (void)lv;
    (void)nl;
    if (lib == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUmodule m;
    CUresult rc = load_file(&m, path);
    return rc != CUDA_SUCCESS ? rc : lib_wrap(lib, m);
}

NG_EXPORT CUresult cuLibraryUnload(CUlibrary lib)
{
    struct CUmod_st *m = lib_mod(lib);
    if (m == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    module_free(m);
    lib->magic = 0;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuLibraryGetKernel(CUkernel *pk, CUlibrary lib, const char *name)
{
    NG_CHECK_INIT();
    struct CUmod_st *m = lib_mod(lib);
    if (pk == NULL || name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (m == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    CUfunction f = ng_module_function(m, name);
    if (f == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pk = (CUkernel)f;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuLibraryGetModule(CUmodule *pm, CUlibrary lib)
{
    struct CUmod_st *m = lib_mod(lib);
    if (pm == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (m == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    *pm = m;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary lib, const char *name)
{
    NG_CHECK_INIT();
    struct CUmod_st *m = lib_mod(lib);
    if (name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (m == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    return module_global(m, name, dptr, bytes);
}

NG_EXPORT CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary lib, const char *name)
{
    return cuLibraryGetGlobal(dptr, bytes, lib, name);
}

NG_EXPORT CUresult cuLibraryGetKernelCount(unsigned *count, CUlibrary lib)
{
    struct CUmod_st *m = lib_mod(lib);
    if (m == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    return cuModuleGetFunctionCount(count, m);
}

NG_EXPORT CUresult cuKernelGetFunction(CUfunction *pf, CUkernel k)
{
    NG_CHECK_INIT();
    CUfunction f = (CUfunction)k;
    if (pf == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    *pf = f;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuKernelGetLibrary(CUlibrary *pl, CUkernel k)
{
    (void)pl;
    (void)k;
    return CUDA_ERROR_NOT_SUPPORTED;
}

NG_EXPORT CUresult cuFuncGetName(const char **name, CUfunction f)
{
    if (name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    *name = f->name;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuKernelGetName(const char **name, CUkernel k) { return cuFuncGetName(name, (CUfunction)k); }

NG_EXPORT CUresult cuFuncGetModule(CUmodule *pm, CUfunction f)
{
    if (pm == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    *pm = f->module;
    return CUDA_SUCCESS;
}

/* The parameter layout, read from the image on first use (reading can mean
 * decompressing a fatbin, too slow to do for every function a library
 * looks up). Racing readers each read; one result is kept. */
int ng_func_params(CUfunction f)
{
    int n = __atomic_load_n(&f->nparams, __ATOMIC_ACQUIRE);
    if (n != NG_PARAMS_UNREAD)
        return n;
    uint32_t *off = NULL, *sz = NULL;
    n = f->module != NULL && f->module->image != NULL ? ng_image_params(f->module->image, f->name, &off, &sz)
                                                      : -1;
    ng_lock();
    if (f->nparams == NG_PARAMS_UNREAD) {
        f->offsets = off;
        f->sizes = sz;
        __atomic_store_n(&f->nparams, n, __ATOMIC_RELEASE);
        off = sz = NULL;
    }
    n = f->nparams;
    ng_unlock();
    free(off);
    free(sz);
    return n;
}

NG_EXPORT CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset, size_t *size)
{
    if (!func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (ng_func_params(f) < 0)
        return CUDA_ERROR_NOT_SUPPORTED; /* image not readable (compressed) */
    if (index >= (size_t)f->nparams)
        return CUDA_ERROR_INVALID_VALUE;
    if (offset != NULL)
        *offset = f->offsets[index];
    if (size != NULL)
        *size = f->sizes[index];
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuKernelGetParamInfo(CUkernel k, size_t index, size_t *offset, size_t *size)
{
    return cuFuncGetParamInfo((CUfunction)k, index, offset, size);
}

NG_EXPORT CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction f)
{
    if (state == NULL || !func_valid(f))
        return CUDA_ERROR_INVALID_VALUE;
    *state = CU_FUNCTION_LOADING_STATE_LOADED;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuFuncLoad(CUfunction f) { return func_valid(f) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }

/* What the driver reports for a small compiled kernel; set values win. */
static int func_attribute(CUfunction f, CUfunction_attribute a)
{
    const ng_device_kind *k = ng_device();
    int set = (unsigned)a < 16 ? __atomic_load_n(&f->attrs[a], __ATOMIC_RELAXED) : 0;
    if (set != 0)
        return set;
    switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: return 32;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: return k->cc_major * 10 + k->cc_minor;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: return 49152;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: return -1;
    default: return 0;
    }
}

NG_EXPORT CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute a, CUfunction f)
{
    if (pi == NULL || (unsigned)a >= CU_FUNC_ATTRIBUTE_MAX)
        return CUDA_ERROR_INVALID_VALUE;
    if (!func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    *pi = func_attribute(f, a);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{
    if (!func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if ((unsigned)a >= 16)
        return CUDA_ERROR_INVALID_VALUE;
    if (a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES && v > ng_device()->smem_per_block_optin)
        return CUDA_ERROR_INVALID_VALUE;
    __atomic_store_n(&f->attrs[a], v, __ATOMIC_RELAXED); /* libraries set it from every thread */
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute a, CUkernel k, CUdevice dev)
{
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    return cuFuncGetAttribute(pi, a, (CUfunction)k);
}

NG_EXPORT CUresult cuKernelSetAttribute(CUfunction_attribute a, int v, CUkernel k, CUdevice dev)
{
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    return cuFuncSetAttribute((CUfunction)k, a, v);
}

NG_EXPORT CUresult cuFuncSetCacheConfig(CUfunction f, CUfunc_cache c)
{
    (void)c;
    return func_valid(f) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

NG_EXPORT CUresult cuKernelSetCacheConfig(CUkernel k, CUfunc_cache c, CUdevice dev)
{
    (void)dev;
    return cuFuncSetCacheConfig((CUfunction)k, c);
}

NG_EXPORT CUresult cuFuncSetSharedMemConfig(CUfunction f, CUsharedconfig c)
{
    (void)c;
    return func_valid(f) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
