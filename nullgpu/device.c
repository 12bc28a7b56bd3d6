/* SPDX-License-Identifier: Apache-2.0 */
/* device.c - the one device the null GPU presents: its kind (env
 * FLOPCOUNT_NULLGPU_DEVICE = h100 | h200 | b200 | a100 | l40s, default h100),
 * its name, attributes, UUID and PCI id, and the cuDevice* entry points.
 *
 * Figures are what the real driver reports for these parts (deviceQuery /
 * cudaGetDeviceProperties on the SXM boards): the name is what flopcount's
 * peak table matches, SMs and clock what its clock-derived peak uses. */
#include "nullgpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const ng_device_kind kinds[] = {
    {"h100", "NVIDIA H100 80GB HBM3", 9, 0, 132, 1980000, 2619000, 5120, 84942979072ull, 52428800,
     232448, 233472, 2048, 32, 0x2330},
    {"h200", "NVIDIA H200", 9, 0, 132, 1980000, 3201000, 6144, 150754820096ull, 62914560, 232448,
     233472, 2048, 32, 0x2335},
    {"b200", "NVIDIA B200", 10, 0, 148, 1965000, 3996000, 8192, 191537102848ull, 132120576, 232448,
     233472, 2048, 32, 0x2901},
    {"a100", "NVIDIA A100-SXM4-80GB", 8, 0, 108, 1410000, 1593000, 5120, 84974239744ull, 41943040,
     166912, 167936, 2048, 32, 0x20b2},
    {"l40s", "NVIDIA L40S", 8, 9, 142, 2520000, 9001000, 384, 47697362944ull, 100663296, 101376,
     102400, 1536, 24, 0x26b9},
};

static const ng_device_kind *chosen;

const ng_device_kind *ng_device(void)
{
    const ng_device_kind *k = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
    if (k != NULL)
        return k;
    k = &kinds[0];
    const char *v = getenv("FLOPCOUNT_NULLGPU_DEVICE");
    if (v != NULL && *v != '\0') {
        size_t n = sizeof kinds / sizeof kinds[0], i;
        for (i = 0; i < n; i++)
            if (strcasecmp(v, kinds[i].key) == 0)
                break;
        if (i < n)
            k = &kinds[i];
        else
            fprintf(stderr, "flopcount: nullgpu: unknown FLOPCOUNT_NULLGPU_DEVICE '%s' (h100, h200, "
                            "b200, a100, l40s); using h100\n", v);
    }
    __atomic_store_n(&chosen, k, __ATOMIC_RELEASE);
    return k;
}

/* The attributes a program can ask about; unknown ones are 0 (as the real
 * driver answers for features a device lacks). */
int ng_device_attribute(CUdevice_attribute attr, int *value)
{
    const ng_device_kind *k = ng_device();
    int v = 0;
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: v = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: v = 49152; break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: v = k->clock_khz; break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: v = 512; break;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: v = k->sm_count; break;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: v = CU_COMPUTEMODE_DEFAULT; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: v = 131072; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: v = 131072; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH: v = 16384; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT: v = 16384; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: v = 16384; break;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: v = 512; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: v = k->cc_minor == 9 ? 0 : 1; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: v = 0x18; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: v = k->mem_clock_khz; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: v = k->bus_width; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: v = k->l2_bytes; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: v = k->max_threads_per_sm; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: v = 2; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: v = k->cc_major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: v = k->cc_minor; break;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: v = k->smem_per_sm; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: v = 2; break;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: v = k->smem_per_block_optin; break;
    case CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: v = k->max_blocks_per_sm; break;
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: v = k->l2_bytes / 4 * 3; break;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: v = 134213632; break;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: v = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR; break;
    case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: v = k->cc_major >= 9; break;
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: v = k->cc_major >= 9 ? 4 : 1; break;
    case CU_DEVICE_ATTRIBUTE_NUMA_CONFIG: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_NUMA_ID: v = -1; break;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID: v = (k->pci_device_id << 16) | 0x10de; break;
    case CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID: v = (0x16c1 << 16) | 0x10de; break;
    default:
        if ((int)attr <= 0 || attr >= CU_DEVICE_ATTRIBUTE_MAX)
            return 0;
        v = 0;
    }
    *value = v;
    return 1;
}

/* The UUID: fixed per kind, so reports from two runs agree. */
static void device_uuid(CUuuid *u)
{
    const ng_device_kind *k = ng_device();
    static const unsigned char base[16] = {0x4e, 0x55, 0x4c, 0x4c, 0x47, 0x50, 0x55, 0x00,
                                           0x6e, 0x75, 0x6c, 0x6c, 0x67, 0x70, 0x75, 0x00};
    memcpy(u->bytes, base, 16);
    u->bytes[7] = (char)(k->pci_device_id >> 8);
    u->bytes[15] = (char)(k->pci_device_id & 0xff);
}

NG_EXPORT CUresult cuDriverGetVersion(int *version)
{
    if (version == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *version = CUDA_VERSION;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceGetCount(int *count)
{
    NG_CHECK_INIT();
    if (count == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    NG_CHECK_INIT();
    if (dev == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return CUDA_SUCCESS;
}

#define CHECK_DEV(d)                                                                               \
    do {                                                                                           \
        NG_CHECK_INIT();                                                                           \
        if ((d) != 0)                                                                              \
            return CUDA_ERROR_INVALID_DEVICE;                                                      \
    } while (0)

NG_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CHECK_DEV(dev);
    if (name == NULL || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", ng_device()->name);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    CHECK_DEV(dev);
    if (uuid == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    device_uuid(uuid);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid_v2(uuid, dev);
}

NG_EXPORT CUresult cuDeviceGetLuid(char *luid, unsigned *mask, CUdevice dev)
{
    (void)luid;
    (void)mask;
    CHECK_DEV(dev);
    return CUDA_ERROR_NOT_SUPPORTED; /* Windows only, as on the real driver */
}

NG_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CHECK_DEV(dev);
    if (bytes == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = ng_device()->total_mem;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CHECK_DEV(dev);
    if (pi == NULL || !ng_device_attribute(attrib, pi))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    CHECK_DEV(dev);
    if (major == NULL || minor == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *major = ng_device()->cc_major;
    *minor = ng_device()->cc_minor;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceGetProperties(CUdevprop *p, CUdevice dev)
{
    CHECK_DEV(dev);
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    memset(p, 0, sizeof *p);
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->sharedMemPerBlock = 49152;
    p->totalConstantMemory = 65536;
    p->SIMDWidth = 32;
    p->memPitch = 2147483647;
    p->regsPerBlock = 65536;
    p->clockRate = ng_device()->clock_khz;
    p->textureAlign = 512;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice dev)
{
    CHECK_DEV(dev);
    if (id == NULL || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(id, (size_t)len, "0000:18:00.0");
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *id)
{
    NG_CHECK_INIT();
    if (dev == NULL || id == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (strcasecmp(id, "0000:18:00.0") != 0 && strcasecmp(id, "00000000:18:00.0") != 0 &&
        strcasecmp(id, "18:00.0") != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer)
{
    CHECK_DEV(dev);
    if (can == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (peer != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *can = 0;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib, CUdevice a,
                                           CUdevice b)
{
    (void)attrib;
    CHECK_DEV(a);
    (void)b;
    if (value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_ERROR_INVALID_DEVICE; /* one device: no peer */
}

NG_EXPORT CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *w, CUarray_format f, unsigned n,
                                                      CUdevice dev)
{
    (void)f;
    (void)n;
    CHECK_DEV(dev);
    if (w == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *w = 268435456;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuDeviceGetExecAffinitySupport(int *pi, CUexecAffinityType type, CUdevice dev)
{
    (void)type;
    CHECK_DEV(dev);
    if (pi == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pi = 0;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuFlushGPUDirectRDMAWrites(CUflushGPUDirectRDMAWritesTarget t,
                                              CUflushGPUDirectRDMAWritesScope s)
{
    (void)t;
    (void)s;
    return CUDA_SUCCESS;
}
