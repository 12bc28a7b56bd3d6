/* SPDX-License-Identifier: Apache-2.0 */
/* resolve.h - finding the real definition of an interposed function, and
 * every other symbol lookup the shim makes (resolve.c), all through the
 * real dlsym (dlsym_real.h), never the shim's own. */
#ifndef FC_RESOLVE_H
#define FC_RESOLVE_H

#include "base.h"

/* Libraries whose functions we forward to. */
enum fc_lib {
    FC_LIB_CUBLAS,
    FC_LIB_CUBLASLT,
    FC_LIB_BLAS,
    FC_LIB_CUDART,
    FC_LIB_CUDNN, /* libcudnn.so.9 (the dispatcher) and libcudnn_graph.so.9 (the backend API) */
    FC_LIB_COUNT
};

/* The next definition of name after ours: RTLD_NEXT first, then any loaded
 * object of lib's family (libraries loaded RTLD_LOCAL too), then dlopen by
 * soname (never for FC_LIB_CUDART: the CUDA runtime is only ever found
 * loaded, by the program; in a fork child: the loader's list walked without
 * its locks, no new library loaded, resolve.c says why). Never our own
 * hook. NULL, with one flopcount: line per name, when there is none. Safe
 * before the constructor ran, from several threads, and in a fork child
 * whose parent had threads inside the loader at fork. */
void *fc_resolve(int lib, const char *name);

/* dlsym(RTLD_NEXT, name) and nothing else: for the signal functions, which
 * a sanitizer runtime may call before any constructor, so this path must
 * not warn, allocate or take our locks. */
void *fc_resolve_next(const char *name);

/* A library this process has already loaded (dlopen RTLD_NOLOAD of path),
 * or NULL; and a symbol of it (the first of a and b that exists, b may be
 * NULL). For the CUDA driver, which the shim never loads itself. */
void *fc_resolve_loaded_lib(const char *path);
void *fc_resolve_lib_sym(void *lib, const char *a, const char *b);

/* 1 when the file at path (its base name) belongs to lib's family:
 * libcublas.so*, libcublasLt.so*, a CPU BLAS (*blas*, *mkl*, *blis*), or
 * cuDNN (libcudnn*: libcudnn.so.9 forwards the backend API to
 * libcudnn_graph.so.9, which defines it too). */
int fc_resolve_in_family(int lib, const char *path);

/* name as the object loaded at base and its dependencies define it (dlsym
 * on a handle of that object; in a fork child the object's own symbol
 * table only, with no loader call), or NULL; never one of our hooks. */
void *fc_resolve_in_object(const void *base, const char *name);

/* Keeps the object at path loaded for good (RTLD_NODELETE): a pointer into
 * it is kept for the life of the process. Nothing in a fork child (no
 * loader call there, resolve.c). */
void fc_resolve_pin(const char *path);

/* Resolves into a function-local static once, then costs a load and a test
 * (the CUDA runtime's capture hooks; the GEMM hooks resolve per library
 * copy: copies.h). */
#define FC_REAL(lib, type, sym)                                                    \
    static type real_##sym;                                                        \
    type fn_##sym = __atomic_load_n(&real_##sym, __ATOMIC_ACQUIRE);                \
    if (FC_UNLIKELY(fn_##sym == NULL)) {                                           \
        fn_##sym = (type)fc_resolve(lib, #sym);                                    \
        __atomic_store_n(&real_##sym, fn_##sym, __ATOMIC_RELEASE);                 \
    }

#endif
