/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_ctor_dlsym.c - a library whose constructor loads the cuBLAS
 * emulation named by FC_DLSYM_CTOR_CUBLAS with dlopen(RTLD_LOCAL), finds
 * cublasSgemm_v2 with dlsym and runs one 1x1x1 GEMM (C = 2 * 3 = 6, 2 FLOPs).
 *
 * Built twice. Linked into a program, its constructor runs before the
 * preloaded shim's (dependencies first), so the shim's dlsym must work
 * before its own constructor. dlopen()ed at run time, the constructor runs
 * with the dynamic loader's lock held, so the shim's dlsym must not wait
 * for anything another thread could hold while calling the loader. */
#include <dlfcn.h>
#include <stdlib.h>

typedef int (*create_fn)(void **);
typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const float *, int,
                        const float *, int, const float *, float *, int);

/* What the constructor saw: 1 when the GEMM ran and gave 6; negative steps
 * say where it stopped. Read by the test program with dlsym. */
int fc_ctor_dlsym_result;
/* The handle it made, kept (a test fixture: it lives as long as the process). */
void *fc_ctor_dlsym_handle;

__attribute__((constructor)) static void ctor_gemm(void)
{
    const char *path = getenv("FC_DLSYM_CTOR_CUBLAS");
    void *lib = path != NULL ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (lib == NULL) {
        fc_ctor_dlsym_result = -1;
        return;
    }
    create_fn create = (create_fn)dlsym(lib, "cublasCreate_v2");
    sgemm_fn sgemm = (sgemm_fn)dlsym(lib, "cublasSgemm_v2");
    void *handle = NULL;
    if (create == NULL || sgemm == NULL || create(&fc_ctor_dlsym_handle) != 0) {
        fc_ctor_dlsym_result = -2;
        return;
    }
    float a = 2, b = 3, c = 0, one = 1, zero = 0;
    handle = fc_ctor_dlsym_handle;
    if (sgemm(handle, 0, 0, 1, 1, 1, &one, &a, 1, &b, 1, &zero, &c, 1) != 0) {
        fc_ctor_dlsym_result = -3;
        return;
    }
    fc_ctor_dlsym_result = c == 6 ? 1 : -4;
}
