/* SPDX-License-Identifier: Apache-2.0 */
/* decoders.h - the family decoders of the launch layer: FlashAttention-2
 * (fa2.c) and memory-efficient attention (memeff.c). Each reads a
 * kernel's template arguments off its name once (traits), then decodes a
 * launch from the host copy of its parameter struct: the struct's size
 * picks the layout when the runtime or driver says it (size > 0), else the
 * layouts the name implies are all tried; every field read must be in
 * range and consistent with the name and the grid, or the launch is not
 * decoded and why says what did not check out (for the uncounted list). */
#ifndef FC_LAUNCH_DECODERS_H
#define FC_LAUNCH_DECODERS_H

#include <stddef.h>
#include <stdint.h>

#include "attention.h"
#include "families.h"

/* FlashAttention-2's namespaces (fc_ktraits.ns): the structs and kernels
 * at global scope (flash-attn up to 2.7.3), in flash (2.7.4 on), in
 * pytorch_flash (PyTorch's copy). */
enum fc_fa2_ns { FC_FA2_NS_GLOBAL = 1, FC_FA2_NS_FLASH, FC_FA2_NS_PYTORCH };

/* fc_ktraits.bools */
#define FC_FA2_DROPOUT 0x01u
#define FC_FA2_CAUSAL 0x02u
#define FC_FA2_LOCAL 0x04u
#define FC_FA2_ALIBI 0x08u
#define FC_FA2_SOFTCAP 0x10u
#define FC_FA2_SPLIT 0x20u
#define FC_FA2_APPEND_KV 0x40u
#define FC_FA2_EVEN_MN 0x80u
#define FC_FA2_EVEN_K 0x100u

/* A launch as the decoders see it: parameter 0's host copy (avail bytes
 * of it readable, 0 unknown) and its size as the runtime/driver reports
 * it (0 unknown), the number of parameters (0 unknown), the grid. */
typedef struct fc_kparams {
    const void *p;
    int64_t avail;
    int64_t size;
    int nparams;
    unsigned grid[3];
} fc_kparams;

int fc_fa2_traits(int family, const char *name, fc_ktraits *t, char *why, size_t n);
int fc_fa2_decode(int family, const fc_ktraits *t, const fc_kparams *k, fc_attn *a, char *why,
                  size_t n);

int fc_memeff_traits(int family, const char *name, fc_ktraits *t, char *why, size_t n);
int fc_memeff_decode(int family, const fc_ktraits *t, const fc_kparams *k, fc_attn *a, char *why,
                     size_t n);

/* Little-endian field reads from a parameter copy (x86-64 and aarch64,
 * the ABI the kernel parameters share with the host). */
static inline int32_t fc_kp_i32(const void *p, int off)
{
    int32_t v;
    __builtin_memcpy(&v, (const uint8_t *)p + off, sizeof v);
    return v;
}

static inline float fc_kp_f32(const void *p, int off)
{
    float v;
    __builtin_memcpy(&v, (const uint8_t *)p + off, sizeof v);
    return v;
}

static inline const void *fc_kp_ptr(const void *p, int off)
{
    const void *v;
    __builtin_memcpy(&v, (const uint8_t *)p + off, sizeof v);
    return v;
}

static inline uint8_t fc_kp_u8(const void *p, int off)
{
    return ((const uint8_t *)p)[off];
}

static inline int64_t fc_kp_ceil(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

#endif
