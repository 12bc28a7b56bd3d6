/* SPDX-License-Identifier: Apache-2.0 */
/* registry.h - the kernels of interest, learned where they are registered
 * (registry.c): a fixed table from a kernel's host-side identities - the
 * host stub __cudaRegisterFunction names, the cudaKernel_t handle
 * __cudaGetKernel gives for it, a CUfunction or stub a CUPTI launch
 * callback names - to one record per kernel of interest. A kernel not of
 * interest has no record: its launch costs one lookup here
 * (fc_launch_find, inline, no lock, no call). */
#ifndef FC_LAUNCH_REGISTRY_H
#define FC_LAUNCH_REGISTRY_H

#include <stdint.h>

#include "core/base.h"
#include "families.h"

/* Slots of the pointer table (a power of two; filled to 3/4 at most) and
 * records of kernels of interest. PyTorch's libtorch_cuda registers a few
 * thousand FlashAttention-2, memory-efficient attention, CUTLASS and
 * multi-tensor-apply kernels; each takes a record and one or two slots. */
#define FC_LAUNCH_SLOTS 131072u
#define FC_LAUNCH_KERNELS 32768u
/* A slot's value: record index + 1, or this for a pointer a CUPTI launch
 * callback found not to be of interest (learned once, kept). */
#define FC_LAUNCH_NOT_OF_INTEREST 0xffffffffu

typedef struct fc_launch_slot {
    const void *key; /* 0: empty (atomic; written once) */
    uint32_t value;  /* 0 while being written */
} fc_launch_slot;

extern fc_launch_slot fc_launch_slots[FC_LAUNCH_SLOTS];

static inline uint32_t fc_launch_slot_of(const void *key)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 47) & (FC_LAUNCH_SLOTS - 1); /* 17 bits */
}

/* The record index + 1 of the kernel whose identity is key, 0 when none
 * (not of interest, or not known), FC_LAUNCH_NOT_OF_INTEREST when a
 * launch callback learned it is not of interest. */
FC_NO_SANITIZE static inline uint32_t fc_launch_find(const void *key)
{
    uint32_t i = fc_launch_slot_of(key);
    for (;;) {
        const void *k = __atomic_load_n(&fc_launch_slots[i].key, __ATOMIC_ACQUIRE);
        if (FC_LIKELY(k == key))
            return __atomic_load_n(&fc_launch_slots[i].value, __ATOMIC_ACQUIRE);
        if (FC_LIKELY(k == 0))
            return 0;
        i = (i + 1) & (FC_LAUNCH_SLOTS - 1);
    }
}

/* One kernel of interest. The template arguments a decoder needs are read
 * from the name at its first launch (traits), not at registration. */
typedef struct fc_kernel {
    const char *name;   /* the registering module's string (valid while it is loaded) */
    const void *module; /* its fat binary handle; NULL when learned from a callback */
    const void *stub;   /* the host stub (runtime launches; cudaFuncGetParamInfo) */
    uint8_t family;     /* enum fc_kfamily */
    uint8_t kclass;     /* enum fc_kclass for the uncounted list */
    uint8_t dead;       /* its module was unregistered */
    uint8_t parsed;     /* traits read (atomic: 0 no, 1 yes, 2 the name did not parse) */
    int32_t param0;     /* size of parameter 0: 0 not asked, -1 not available (atomic) */
    int32_t nparams;    /* parameters the runtime/driver reports, 0 unknown (atomic) */
    uint32_t unc_id;    /* uncounted id + 1, 0 none yet (atomic) */
    fc_ktraits traits;  /* families.h; valid once parsed == 1 */
} fc_kernel;

extern fc_kernel fc_launch_kernels[FC_LAUNCH_KERNELS];

/* A kernel the runtime registers: stub -> name, from __cudaRegisterFunction
 * (possibly inside another library's constructor, before ours). Kept only
 * when the name is of interest. Never allocates. */
void fc_launch_register(const void *module, const void *stub, const char *name);
/* __cudaGetKernel's handle for a stub (CUDA 13 launch stubs). */
void fc_launch_alias(const void *handle, const void *stub);
/* __cudaUnregisterFatBinary: the module's kernels are dropped (their
 * pointers may be reused by a module loaded later). */
void fc_launch_unregister_module(const void *module);
/* A launch callback's kernel not in the table: classified by name once
 * and kept (of interest or not); the record index + 1, or 0. name NULL:
 * 0 (nothing learned). When the table is full, classified every time. */
uint32_t fc_launch_learn(const void *key, const char *name);

typedef struct fc_launch_reg_stats {
    uint64_t registrations; /* __cudaRegisterFunction calls seen */
    uint64_t of_interest;   /* records */
    uint64_t learned;       /* records learned from launch callbacks */
    uint64_t not_kept;      /* of interest, but the table was full */
    uint64_t unregistered;  /* records dropped with their module */
} fc_launch_reg_stats;
void fc_launch_reg_stats_get(fc_launch_reg_stats *out);

#endif
