/* SPDX-License-Identifier: Apache-2.0 */
/* copy.c - cuMemcpy* and cuMemset*, done for real on the host memory that
 * backs the device, so data a program copies to the device is there when it
 * copies it back. Every operation is finished when the call returns; on a
 * stream under capture it is recorded into the graph instead, and done when
 * the graph is launched. */
#include "nullgpu.h"

#include <string.h>

CUresult ng_copy(CUstream s, void *dst, const void *src, size_t n)
{
    NG_CHECK_INIT();
    if (!ng_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    ng_capture *cap = ng_stream_capture(s);
    if (cap != NULL)
        return ng_capture_memcpy(cap, dst, src, n);
    if (n == 0)
        return CUDA_SUCCESS;
    if (dst == NULL || src == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    memmove(dst, src, n);
    return CUDA_SUCCESS;
}

static void fill(void *dst, unsigned value, unsigned elem, size_t width, size_t height, size_t pitch)
{
    for (size_t y = 0; y < height; y++) {
        char *row = (char *)dst + y * pitch;
        if (elem == 1) {
            memset(row, (int)(value & 0xff), width);
        } else if (elem == 2) {
            uint16_t v = (uint16_t)value;
            for (size_t i = 0; i < width; i++)
                memcpy(row + 2 * i, &v, 2);
        } else {
            uint32_t v = value;
            for (size_t i = 0; i < width; i++)
                memcpy(row + 4 * i, &v, 4);
        }
    }
}

/* width in elements; pitch in bytes */
CUresult ng_memset(CUstream s, void *dst, unsigned value, unsigned elem, size_t width, size_t height,
                   size_t pitch)
{
    NG_CHECK_INIT();
    if (!ng_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    ng_capture *cap = ng_stream_capture(s);
    if (cap != NULL)
        return ng_capture_memset(cap, dst, value, elem, width, height, pitch);
    if (width == 0 || height == 0)
        return CUDA_SUCCESS;
    if (dst == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    fill(dst, value, elem, width, height, pitch);
    return CUDA_SUCCESS;
}

void ng_memset_now(void *dst, unsigned value, unsigned elem, size_t width, size_t height, size_t pitch);
void ng_memset_now(void *dst, unsigned value, unsigned elem, size_t width, size_t height, size_t pitch)
{
    fill(dst, value, elem, width, height, pitch);
}

#define P(x) ((void *)(uintptr_t)(x))

NG_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) { return ng_copy(NULL, P(dst), P(src), n); }
NG_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { return ng_copy(s, P(dst), P(src), n); }
NG_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) { return ng_copy(NULL, P(dst), src, n); }
NG_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) { return ng_copy(NULL, dst, P(src), n); }
NG_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) { return ng_copy(NULL, P(dst), P(src), n); }
NG_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) { return ng_copy(s, P(dst), src, n); }
NG_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) { return ng_copy(s, dst, P(src), n); }
NG_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { return ng_copy(s, P(dst), P(src), n); }

NG_EXPORT CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n)
{
    (void)dc;
    (void)sc;
    return ng_copy(NULL, P(dst), P(src), n);
}

NG_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc,
                                     size_t n, CUstream s)
{
    (void)dc;
    (void)sc;
    return ng_copy(s, P(dst), P(src), n);
}

static const char *side(CUmemorytype t, const void *host, CUdeviceptr dev)
{
    return t == CU_MEMORYTYPE_HOST ? host : (const char *)P(dev);
}

/* 3D copy as rows; arrays are not supported. */
static CUresult copy3d(CUstream s, const CUDA_MEMCPY3D *c)
{
    if (c == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (c->srcMemoryType == CU_MEMORYTYPE_ARRAY || c->dstMemoryType == CU_MEMORYTYPE_ARRAY)
        return CUDA_ERROR_NOT_SUPPORTED;
    const char *src = side(c->srcMemoryType, c->srcHost, c->srcDevice);
    char *dst = (char *)side(c->dstMemoryType, c->dstHost, c->dstDevice);
    size_t sp = c->srcPitch ? c->srcPitch : c->WidthInBytes, dp = c->dstPitch ? c->dstPitch : c->WidthInBytes;
    size_t sh = c->srcHeight ? c->srcHeight : c->Height, dh = c->dstHeight ? c->dstHeight : c->Height;
    size_t depth = c->Depth ? c->Depth : 1;
    for (size_t z = 0; z < depth; z++)
        for (size_t y = 0; y < c->Height; y++) {
            const char *from = src + ((c->srcZ + z) * sh + c->srcY + y) * sp + c->srcXInBytes;
            char *to = dst + ((c->dstZ + z) * dh + c->dstY + y) * dp + c->dstXInBytes;
            CUresult rc = ng_copy(s, to, from, c->WidthInBytes);
            if (rc != CUDA_SUCCESS)
                return rc;
        }
    return CUDA_SUCCESS;
}

static CUresult copy2d(CUstream s, const CUDA_MEMCPY2D *c)
{
    if (c == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_MEMCPY3D d;
    memset(&d, 0, sizeof d);
    d.srcXInBytes = c->srcXInBytes;
    d.srcY = c->srcY;
    d.srcMemoryType = c->srcMemoryType;
    d.srcHost = c->srcHost;
    d.srcDevice = c->srcDevice;
    d.srcArray = c->srcArray;
    d.srcPitch = c->srcPitch;
    d.dstXInBytes = c->dstXInBytes;
    d.dstY = c->dstY;
    d.dstMemoryType = c->dstMemoryType;
    d.dstHost = c->dstHost;
    d.dstDevice = c->dstDevice;
    d.dstArray = c->dstArray;
    d.dstPitch = c->dstPitch;
    d.WidthInBytes = c->WidthInBytes;
    d.Height = c->Height;
    d.Depth = 1;
    return copy3d(s, &d);
}

NG_EXPORT CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *c) { return copy2d(NULL, c); }
NG_EXPORT CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *c) { return copy2d(NULL, c); }
NG_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *c, CUstream s) { return copy2d(s, c); }
NG_EXPORT CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *c) { return copy3d(NULL, c); }
NG_EXPORT CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *c, CUstream s) { return copy3d(s, c); }

NG_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { return ng_memset(NULL, P(d), v, 1, n, 1, n); }
NG_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n) { return ng_memset(NULL, P(d), v, 2, n, 1, 2 * n); }
NG_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned v, size_t n) { return ng_memset(NULL, P(d), v, 4, n, 1, 4 * n); }
NG_EXPORT CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { return ng_memset(s, P(d), v, 1, n, 1, n); }
NG_EXPORT CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) { return ng_memset(s, P(d), v, 2, n, 1, 2 * n); }
NG_EXPORT CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream s) { return ng_memset(s, P(d), v, 4, n, 1, 4 * n); }
NG_EXPORT CUresult cuMemsetD2D8_v2(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h) { return ng_memset(NULL, P(d), v, 1, w, h, pitch); }
NG_EXPORT CUresult cuMemsetD2D16_v2(CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h) { return ng_memset(NULL, P(d), v, 2, w, h, pitch); }
NG_EXPORT CUresult cuMemsetD2D32_v2(CUdeviceptr d, size_t pitch, unsigned v, size_t w, size_t h) { return ng_memset(NULL, P(d), v, 4, w, h, pitch); }
NG_EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h, CUstream s) { return ng_memset(s, P(d), v, 1, w, h, pitch); }
NG_EXPORT CUresult cuMemsetD2D16Async(CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h, CUstream s) { return ng_memset(s, P(d), v, 2, w, h, pitch); }
NG_EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr d, size_t pitch, unsigned v, size_t w, size_t h, CUstream s) { return ng_memset(s, P(d), v, 4, w, h, pitch); }

/* CUDA 12.8+: a batch of 1D copies (cudaMemcpyBatchAsync). */
NG_EXPORT CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                         CUmemcpyAttributes *attrs, size_t *attrIdxs, size_t numAttrs,
                                         CUstream s)
{
    (void)attrs;
    (void)attrIdxs;
    (void)numAttrs;
    for (size_t i = 0; i < count; i++) {
        CUresult rc = ng_copy(s, P(dsts[i]), P(srcs[i]), sizes[i]);
        if (rc != CUDA_SUCCESS)
            return rc;
    }
    return CUDA_SUCCESS;
}
