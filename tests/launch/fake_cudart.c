/* SPDX-License-Identifier: Apache-2.0 */
/* fake_cudart.c - a stand-in libcudart.so.13 under which the launch tests'
 * nvcc-built program (prog.cu) launches successfully: the registration
 * entry points nvcc's generated code calls (__cudaRegisterFatBinary,
 * __cudaRegisterFunction, ...), the <<<>>> call configuration,
 * __cudaGetKernel (handles distinct from the stubs, as a real device's
 * are), the launch entry points (cudaSuccess, errno set to 4242 as a
 * real call may leave it), the thread's last error, and
 * cudaFuncGetParamInfo answering from FAKE_PARAM_SIZES
 * ("name-substring=bytes;..."; no match: cudaErrorInvalidDeviceFunction,
 * recorded as the thread's last error, as the real runtime does).
 * Each launch is logged to FAKE_CUDART_LOG: kernel name, grid, block,
 * shared memory, stream and the first 8 bytes of parameter 0, which the
 * check compares between a run under the shim and one without.
 * Exported with the version libcudart.so.13 (fake_cudart.map), which the
 * program's references carry. */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KERNELS 256

static struct {
    const void *stub;
    const char *name;
} kernels[MAX_KERNELS];
static int n_kernels, launches;
static char handles[MAX_KERNELS]; /* &handles[i]: kernel i's cudaKernel_t */
static __thread cudaError_t last_error;
static __thread struct {
    dim3 grid, block;
    size_t smem;
    void *stream;
} config;
static FILE *log_file;

int fake_cudart_launches(void);
int fake_cudart_launches(void)
{
    return launches;
}

static int index_of(const void *func)
{
    for (int i = 0; i < n_kernels; i++)
        if (kernels[i].stub == func || (const void *)&handles[i] == func)
            return i;
    return -1;
}

void **__cudaRegisterFatBinary(void *fatCubin);
void **__cudaRegisterFatBinary(void *fatCubin)
{
    static void *handle;
    handle = fatCubin;
    return &handle;
}

void __cudaRegisterFatBinaryEnd(void **h);
void __cudaRegisterFatBinaryEnd(void **h)
{
    (void)h;
}

void __cudaUnregisterFatBinary(void **h);
void __cudaUnregisterFatBinary(void **h)
{
    (void)h;
}

char __cudaInitModule(void **h);
char __cudaInitModule(void **h)
{
    (void)h;
    return 1;
}

void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                            int *wSize);
void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                            int *wSize)
{
    (void)h, (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim,
        (void)wSize;
    if (n_kernels < MAX_KERNELS) {
        kernels[n_kernels].stub = hostFun;
        kernels[n_kernels].name = deviceName;
        n_kernels++;
    }
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem, void *stream);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem, void *stream)
{
    config.grid = grid;
    config.block = block;
    config.smem = smem;
    config.stream = stream;
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *smem, void *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *smem, void *stream)
{
    *grid = config.grid;
    *block = config.block;
    *smem = config.smem;
    *(void **)stream = config.stream;
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *k, const void *fun);
cudaError_t __cudaGetKernel(cudaKernel_t *k, const void *fun)
{
    int i = index_of(fun);
    if (i < 0)
        return last_error = cudaErrorInvalidDeviceFunction;
    *k = (cudaKernel_t)(void *)&handles[i];
    return cudaSuccess;
}

static cudaError_t launched(const void *func, dim3 g, dim3 b, void **args, size_t smem,
                            cudaStream_t s)
{
    int i = index_of(func);
    launches++;
    if (log_file == NULL && getenv("FAKE_CUDART_LOG") != NULL)
        log_file = fopen(getenv("FAKE_CUDART_LOG"), "w");
    if (log_file != NULL) {
        unsigned long long head = 0;
        if (args != NULL && args[0] != NULL)
            memcpy(&head, args[0], sizeof head);
        fprintf(log_file, "%s grid %u %u %u block %u %u %u smem %zu stream %p head %llx\n",
                i >= 0 ? kernels[i].name : "?", g.x, g.y, g.z, b.x, b.y, b.z, smem, (void *)s,
                head);
        fflush(log_file);
    }
    errno = 4242;
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t smem,
                               cudaStream_t s);
cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t smem,
                               cudaStream_t s)
{
    return launched((const void *)k, g, b, args, smem, s);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t smem,
                                    cudaStream_t s);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t smem,
                                    cudaStream_t s)
{
    return launched((const void *)k, g, b, args, smem, s);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 g, dim3 b, void **args, size_t smem,
                             cudaStream_t s)
{
    return launched(func, g, b, args, smem, s);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *c, const void *func, void **args)
{
    return launched(func, c->gridDim, c->blockDim, args, c->dynamicSmemBytes, c->stream);
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    return last_error;
}

/* FAKE_PARAM_SIZES="substring=bytes;...": the first substring of kernel
 * func's name gives parameter 0's size; there is no parameter 1. */
cudaError_t cudaFuncGetParamInfo(const void *func, size_t index, size_t *offset, size_t *size)
{
    int i = index_of(func);
    const char *spec = getenv("FAKE_PARAM_SIZES");
    if (i >= 0 && spec != NULL && index == 0) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s", spec);
        for (char *tok = strtok(buf, ";"); tok != NULL; tok = strtok(NULL, ";")) {
            char *eq = strrchr(tok, '=');
            if (eq == NULL)
                continue;
            *eq = '\0';
            if (strstr(kernels[i].name, tok) != NULL) {
                *offset = 0;
                *size = (size_t)atol(eq + 1);
                return cudaSuccess;
            }
        }
    }
    return last_error = index == 0 ? cudaErrorInvalidDeviceFunction : cudaErrorInvalidValue;
}
