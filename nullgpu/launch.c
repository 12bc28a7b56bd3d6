/* SPDX-License-Identifier: Apache-2.0 */
/* launch.c - kernel launches (successful no-ops, or graph nodes while the
 * stream is captured), occupancy queries, and the optional launch log.
 *
 * FLOPCOUNT_NULLGPU_LAUNCH_LOG=path appends one line per kernel run, from a
 * launch or a graph replay:
 *   <how> <name> grid=X,Y,Z block=X,Y,Z smem=N params=B
 * with B the parameter bytes (from the cubin's layout or the launch's
 * CU_LAUNCH_PARAM_BUFFER_SIZE; -1 when neither tells). Each line is one
 * write(2) on an O_APPEND descriptor, so threads and forked children do not
 * interleave within a line. */
#include "nullgpu.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int log_fd = -2; /* -2 not opened yet, -1 off */

static int launch_log_fd(void)
{
    int fd = __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
    if (fd != -2)
        return fd;
    const char *path = getenv("FLOPCOUNT_NULLGPU_LAUNCH_LOG");
    int nfd = path != NULL && *path != '\0' ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    int expected = -2;
    if (!__atomic_compare_exchange_n(&log_fd, &expected, nfd, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (nfd >= 0)
            close(nfd);
        return expected;
    }
    return nfd;
}

static long param_bytes(CUfunction f, void **extra)
{
    for (int i = 0; extra != NULL && extra[i] != CU_LAUNCH_PARAM_END && i < 16; i += 2)
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1] != NULL)
            return (long)*(size_t *)extra[i + 1];
    if (f != NULL && f->magic == NG_FUNC_MAGIC && ng_func_params(f) >= 0) {
        long end = 0;
        for (int i = 0; i < f->nparams; i++)
            if ((long)(f->offsets[i] + f->sizes[i]) > end)
                end = (long)(f->offsets[i] + f->sizes[i]);
        return end;
    }
    return -1;
}

void ng_launch_log(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned smem, void **params, void **extra, const char *how)
{
    (void)params;
    int fd = launch_log_fd();
    if (fd < 0)
        return;
    const char *name = f != NULL && f->magic == NG_FUNC_MAGIC ? f->name : "?";
    char line[1024];
    int n = snprintf(line, sizeof line, "%s %s grid=%u,%u,%u block=%u,%u,%u smem=%u params=%ld\n", how,
                     name, gx, gy, gz, bx, by, bz, smem, param_bytes(f, extra));
    if (n >= (int)sizeof line) { /* a very long name: keep the line whole, name cut */
        n = snprintf(line, sizeof line, "%s %.700s... grid=%u,%u,%u block=%u,%u,%u smem=%u params=%ld\n",
                     how, name, gx, gy, gz, bx, by, bz, smem, param_bytes(f, extra));
    }
    if (n > 0) {
        ssize_t w = write(fd, line, (size_t)n);
        (void)w;
    }
}

static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                       unsigned bz, unsigned smem, CUstream s, void **params, void **extra, const char *how)
{
    NG_CHECK_INIT();
    if (f == NULL || f->magic != NG_FUNC_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!ng_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || (gy > 65535 || gz > 65535) ||
        (unsigned long long)bx * by * bz > 1024 || bz > 64)
        return CUDA_ERROR_INVALID_VALUE;
    if (smem > (unsigned)ng_device()->smem_per_block_optin)
        return CUDA_ERROR_INVALID_VALUE;
    ng_capture *cap = ng_stream_capture(s);
    if (cap != NULL) {
        CUDA_KERNEL_NODE_PARAMS p = {.func = f, .gridDimX = gx, .gridDimY = gy, .gridDimZ = gz,
                                     .blockDimX = bx, .blockDimY = by, .blockDimZ = bz,
                                     .sharedMemBytes = smem};
        return ng_capture_kernel(cap, &p);
    }
    ng_launch_log(f, gx, gy, gz, bx, by, bz, smem, params, extra, how);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                  unsigned by, unsigned bz, unsigned smem, CUstream s, void **params,
                                  void **extra)
{
    return launch(f, gx, gy, gz, bx, by, bz, smem, s, params, extra, "launch");
}

NG_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra)
{
    if (c == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return launch(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                  c->sharedMemBytes, c->hStream, params, extra, "launch");
}

NG_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                             unsigned bx, unsigned by, unsigned bz, unsigned smem,
                                             CUstream s, void **params)
{
    return launch(f, gx, gy, gz, bx, by, bz, smem, s, params, NULL, "launch");
}

/* ---- occupancy: the limits of the device's SM, no register limit ---- */
static int blocks_per_sm(int block, size_t smem)
{
    const ng_device_kind *k = ng_device();
    if (block <= 0)
        return 0;
    int by_threads = k->max_threads_per_sm / block;
    int by_smem = smem > 0 ? (int)((size_t)k->smem_per_sm / (smem + 1024)) : k->max_blocks_per_sm;
    int n = by_threads < k->max_blocks_per_sm ? by_threads : k->max_blocks_per_sm;
    return n < by_smem ? n : by_smem;
}

NG_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int block, size_t smem)
{
    if (n == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (f == NULL || f->magic != NG_FUNC_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    *n = blocks_per_sm(block, smem);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, CUfunction f, int block,
                                                                        size_t smem, unsigned flags)
{
    (void)flags;
    return cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, smem);
}

NG_EXPORT CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid, int *block, CUfunction f,
                                                             CUoccupancyB2DSize to_smem, size_t smem,
                                                             int limit, unsigned flags)
{
    (void)flags;
    if (min_grid == NULL || block == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (f == NULL || f->magic != NG_FUNC_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    int b = limit > 0 && limit < 1024 ? limit : 1024;
    size_t s = to_smem != NULL ? to_smem(b) : smem;
    *block = b;
    *min_grid = blocks_per_sm(b, s) * ng_device()->sm_count;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block, CUfunction f,
                                                    CUoccupancyB2DSize to_smem, size_t smem, int limit)
{
    return cuOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block, f, to_smem, smem, limit, 0);
}

NG_EXPORT CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *smem, CUfunction f, int blocks, int block)
{
    (void)block;
    if (smem == NULL || blocks <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (f == NULL || f->magic != NG_FUNC_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    size_t per = (size_t)ng_device()->smem_per_sm / (size_t)blocks;
    per = per > 1024 ? per - 1024 : 0;
    size_t optin = (size_t)ng_device()->smem_per_block_optin;
    *smem = per < optin ? per : optin;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuOccupancyMaxPotentialClusterSize(int *size, CUfunction f, const CUlaunchConfig *c)
{
    (void)c;
    if (size == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (f == NULL || f->magic != NG_FUNC_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    *size = ng_device()->cc_major >= 9 ? 8 : 1;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuOccupancyMaxActiveClusters(int *n, CUfunction f, const CUlaunchConfig *c)
{
    (void)c;
    if (n == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (f == NULL || f->magic != NG_FUNC_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    *n = ng_device()->sm_count / 2;
    return CUDA_SUCCESS;
}
