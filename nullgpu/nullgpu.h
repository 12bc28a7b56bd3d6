/* SPDX-License-Identifier: Apache-2.0 */
/* nullgpu.h - shared state of the null GPU, the project's own libcuda.so.1:
 * one device whose memory is host memory and whose kernels are no-ops, so the
 * real CUDA runtime, cuBLAS, cuBLASLt and cuDNN run on a machine without one.
 *
 * Locking: one process-wide mutex (ng_lock) guards the registries (memory,
 * handles). pthread_atfork takes it before fork and re-creates it in the
 * child, so a fork from a threaded process never leaves it held. Handles are
 * heap objects that start with a magic word; validation reads that word. */
#ifndef NULLGPU_H
#define NULLGPU_H

/* Every entry point by its exact exported name (cuMemAlloc_v2, not the
 * header's cuMemAlloc macro), old unversioned ones included. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#define NG_EXPORT __attribute__((visibility("default")))

/* ---- device kinds (device.c) ---- */
typedef struct ng_device_kind {
    const char *key;  /* FLOPCOUNT_NULLGPU_DEVICE value: h100, h200, ... */
    const char *name; /* what cuDeviceGetName gives */
    int cc_major, cc_minor;
    int sm_count;
    int clock_khz;     /* max SM clock */
    int mem_clock_khz; /* memory clock */
    int bus_width;     /* bits */
    size_t total_mem;  /* bytes */
    int l2_bytes;
    int smem_per_block_optin;
    int smem_per_sm;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int pci_device_id; /* 0x2330 ... for the UUID and PCI id */
} ng_device_kind;

const ng_device_kind *ng_device(void);
int ng_device_attribute(CUdevice_attribute attr, int *value);

/* ---- logging (proc.c) ---- */
/* One line "flopcount: nullgpu: <name> not supported" the first time an
 * unimplemented entry point is called, when FLOPCOUNT_NULLGPU_LOG is set. */
void ng_log_unsupported(const char *name, int *once);
void ng_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- lock and initialisation (context.c) ---- */
void ng_lock(void);
void ng_unlock(void);
int ng_initialised(void);
/* CUDA_ERROR_NOT_INITIALIZED unless cuInit ran. */
#define NG_CHECK_INIT()                                                                            \
    do {                                                                                           \
        if (!ng_initialised())                                                                     \
            return CUDA_ERROR_NOT_INITIALIZED;                                                     \
    } while (0)

/* ---- contexts (context.c) ---- */
typedef struct ng_storage {
    void *key, *value;
    void (*dtor)(CUcontext, void *, void *);
} ng_storage;

struct CUctx_st {
    uint32_t magic;
    int primary;
    unsigned flags;
    unsigned long long id;
    int refcount;
    int destroyed;
    ng_storage *storage; /* context-local storage of the runtime (export table) */
    int nstorage, capstorage;
    size_t limits[16];
    int cache_config, shared_config;
};
#define NG_CTX_MAGIC 0x4e47435au

CUcontext ng_primary_ctx(void);
CUcontext ng_current_ctx(void); /* current, or NULL */
int ng_ctx_valid(CUcontext c);

/* ---- memory registry (memory.c) ---- */
enum ng_mem_kind { NG_MEM_DEVICE = 1, NG_MEM_HOST = 2, NG_MEM_MANAGED = 3, NG_MEM_REGISTERED = 4,
                   NG_MEM_VMM = 5, NG_MEM_GLOBAL = 6 };
typedef struct ng_alloc {
    uintptr_t base;
    size_t size;
    int kind;
    unsigned flags;
    unsigned long long id;
    int mapped; /* host memory that is mmap'ed by us (freed with munmap) */
} ng_alloc;

/* host-backed storage for size bytes, zeroed, 512-byte aligned, or NULL */
void *ng_map(size_t size);
void ng_unmap(void *p, size_t size);
/* register / find / drop a range; find fills *out and returns 1 when p is in one */
int ng_mem_add(uintptr_t base, size_t size, int kind, unsigned flags);
int ng_mem_find(uintptr_t p, ng_alloc *out);
int ng_mem_remove(uintptr_t base, ng_alloc *out);
size_t ng_mem_in_use(void);

/* ---- streams and capture (stream.c, graph.c) ---- */
typedef struct ng_graph ng_graph;
typedef struct ng_capture {
    ng_graph *graph;
    unsigned long long id;
    int mode;
    volatile int ended;
} ng_capture;

struct CUstream_st {
    uint32_t magic;
    unsigned flags;
    int priority;
    unsigned long long id;
    CUcontext ctx;
    ng_capture *capture; /* active capture this stream belongs to, or NULL */
    int capture_origin;  /* 1 on the stream that began it */
    int capture_invalid;
};
#define NG_STREAM_MAGIC 0x4e475354u

struct CUevent_st {
    uint32_t magic;
    unsigned flags;
    int64_t ns; /* host clock at the last record, -1 never recorded */
    ng_capture *capture;
};
#define NG_EVENT_MAGIC 0x4e474556u

int64_t ng_now_ns(void);
/* the stream's active capture, or NULL; stream handles 0/legacy/per-thread too */
ng_capture *ng_stream_capture(CUstream s);
int ng_stream_valid(CUstream s);

/* ---- graphs (graph.c) ---- */
typedef enum ng_node_op {
    NG_OP_KERNEL,
    NG_OP_MEMCPY,
    NG_OP_MEMSET,
    NG_OP_HOST,
    NG_OP_EMPTY,
    NG_OP_EVENT_RECORD,
    NG_OP_EVENT_WAIT,
    NG_OP_MEM_ALLOC,
    NG_OP_MEM_FREE,
} ng_node_op;

/* Record into a capture instead of executing; 0 when recorded. */
CUresult ng_capture_kernel(ng_capture *cap, const CUDA_KERNEL_NODE_PARAMS *p);
CUresult ng_capture_memcpy(ng_capture *cap, void *dst, const void *src, size_t n);
CUresult ng_capture_memset(ng_capture *cap, void *dst, unsigned value, unsigned elem, size_t width,
                           size_t height, size_t pitch);
CUresult ng_capture_host(ng_capture *cap, CUhostFn fn, void *data);
CUresult ng_capture_simple(ng_capture *cap, ng_node_op op);
ng_graph *ng_graph_new(void);

/* ---- modules, functions, launches (module.c, launch.c) ---- */
struct CUmod_st {
    uint32_t magic;
    const void *image;
    size_t image_size; /* 0 when unknown */
    struct ng_global *globals;
    struct CUfunc_st *funcs;
};
#define NG_MODULE_MAGIC 0x4e474d4fu

struct CUfunc_st {
    uint32_t magic;
    struct CUmod_st *module;
    struct CUfunc_st *next;
    char *name;
    int nparams;       /* -1 unknown, NG_PARAMS_UNREAD not read yet */
    uint32_t *offsets; /* parameter offsets / sizes from the cubin, if found */
    uint32_t *sizes;
    int attrs[16];
};
#define NG_FUNC_MAGIC 0x4e474655u

#define NG_PARAMS_UNREAD (-2)
/* number of parameters from the image (-1 unknown), read on first use */
int ng_func_params(struct CUfunc_st *f);
struct CUfunc_st *ng_module_function(struct CUmod_st *m, const char *name);
CUresult ng_module_load(CUmodule *out, const void *image);
/* Launch bookkeeping: the optional launch log (FLOPCOUNT_NULLGPU_LAUNCH_LOG). */
void ng_launch_log(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned smem, void **params, void **extra, const char *how);

/* ---- copies (copy.c) ---- */
/* A copy that a capture records or that runs now. */
CUresult ng_copy(CUstream s, void *dst, const void *src, size_t n);
CUresult ng_memset(CUstream s, void *dst, unsigned value, unsigned elem, size_t width,
                   size_t height, size_t pitch);

/* ---- fatbin / cubin reading (image.c) ---- */
/* Size of the global called name in the image, or 0 when not found. */
size_t ng_image_global_size(const void *image, const char *name);
/* Parameter layout of the kernel called name: count (or -1), offsets and sizes
 * malloc'ed into *offsets / *sizes. */
int ng_image_params(const void *image, const char *name, uint32_t **offsets, uint32_t **sizes);

/* ---- export tables (export.c) ---- */
CUresult ng_export_table(const void **table, const CUuuid *id);

#endif
