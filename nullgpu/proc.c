/* SPDX-License-Identifier: Apache-2.0 */
/* proc.c - cuGetProcAddress (how the CUDA runtime reaches every driver entry
 * point: by name and the CUDA version it was built for), cuGetErrorName /
 * cuGetErrorString, and the log of what the null GPU does not do
 * (FLOPCOUNT_NULLGPU_LOG=1 or a file path: one line per unsupported entry
 * point, private table or slot, the first time it is used). */
#include "nullgpu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *ng_proc_find(const char *name, int version, int per_thread, int *too_new);

static int log_fd = -2;

static int log_target(void)
{
    int fd = __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
    if (fd != -2)
        return fd;
    const char *v = getenv("FLOPCOUNT_NULLGPU_LOG");
    int nfd = -1;
    if (v != NULL && *v != '\0' && strcmp(v, "0") != 0)
        nfd = strcmp(v, "1") == 0 ? 2 : open(v, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    int expected = -2;
    if (!__atomic_compare_exchange_n(&log_fd, &expected, nfd, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (nfd > 2)
            close(nfd);
        return expected;
    }
    return nfd;
}

void ng_log(const char *fmt, ...)
{
    int saved = errno;
    int fd = log_target();
    if (fd >= 0) {
        char line[512];
        int n = snprintf(line, sizeof line, "flopcount: nullgpu: ");
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
        va_end(ap);
        if (m < 0)
            m = 0;
        size_t len = (size_t)n + (size_t)m;
        if (len > sizeof line - 2)
            len = sizeof line - 2;
        line[len++] = '\n';
        ssize_t w = write(fd, line, len);
        (void)w;
    }
    errno = saved;
}

void ng_log_unsupported(const char *name, int *once)
{
    if (!__atomic_exchange_n(once, 1, __ATOMIC_RELAXED))
        ng_log("%s not supported", name);
}

static CUresult get_proc(const char *symbol, void **pfn, int version, cuuint64_t flags,
                         CUdriverProcAddressQueryResult *status)
{
    if (pfn == NULL || symbol == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pfn = NULL;
    int too_new = 0;
    /* cuda.h maps cuGraphInstantiate to cuGraphInstantiateWithFlags since 12.0 */
    if (strcmp(symbol, "cuGraphInstantiate") == 0 && version >= 12000)
        symbol = "cuGraphInstantiateWithFlags";
    void *fn = ng_proc_find(symbol, version, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0,
                            &too_new);
    if (status != NULL)
        *status = fn != NULL ? CU_GET_PROC_ADDRESS_SUCCESS
                  : too_new  ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                             : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (fn == NULL) {
        if (*symbol != '\0') /* the runtime probes an empty name: not a missing piece */
            ng_log("cuGetProcAddress(%s, %d) not found", symbol, version);
        return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = fn;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                       CUdriverProcAddressQueryResult *status)
{
    return get_proc(symbol, pfn, version, flags, status);
}

NG_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    return get_proc(symbol, pfn, version, flags, NULL);
}

typedef struct err_text {
    CUresult code;
    const char *name, *text;
} err_text;

#define E(c, t) {c, #c, t}
static const err_text errors[] = {
    E(CUDA_SUCCESS, "no error"),
    E(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
    E(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
    E(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
    E(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
    E(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
    E(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
    E(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
    E(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
    E(CUDA_ERROR_FILE_NOT_FOUND, "file not found"),
    E(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
    E(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
    E(CUDA_ERROR_NOT_READY, "device not ready"),
    E(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state"),
    E(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
    E(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing"),
    E(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "operation would make the legacy stream depend on a capturing blocking stream"),
    E(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "capture was not initiated in this stream"),
    E(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"),
    E(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "peer access is not supported between these two devices"),
    E(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled"),
    E(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "part or all of the requested memory range is already mapped"),
    E(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "pointer does not correspond to a registered memory region"),
    E(CUDA_ERROR_UNSUPPORTED_LIMIT, "limit is not supported on this architecture"),
    E(CUDA_ERROR_OPERATING_SYSTEM, "OS call failed or operation not supported on this OS"),
    E(CUDA_ERROR_UNKNOWN, "unknown error"),
};

static const err_text *find_error(CUresult e)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == e)
            return &errors[i];
    return NULL;
}

NG_EXPORT CUresult cuGetErrorName(CUresult e, const char **s)
{
    if (s == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    const err_text *t = find_error(e);
    *s = t != NULL ? t->name : NULL;
    return t != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

NG_EXPORT CUresult cuGetErrorString(CUresult e, const char **s)
{
    if (s == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    const err_text *t = find_error(e);
    *s = t != NULL ? t->text : NULL;
    return t != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

NG_EXPORT CUresult cuProfilerStart(void) { return CUDA_SUCCESS; }
NG_EXPORT CUresult cuProfilerStop(void) { return CUDA_SUCCESS; }
