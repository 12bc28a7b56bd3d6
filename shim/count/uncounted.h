/* SPDX-License-Identifier: Apache-2.0 */
/* uncounted.h - kernels and library calls seen doing matrix work whose
 * FLOPs are not counted, named with the reason: FlashAttention-3, Triton,
 * CUTLASS and DeepGEMM kernels (parameters not readable on the host), a
 * decodable family's launch whose parameters did not check out, a cuDNN
 * plan whose graph could not be resolved. The report lists them so that
 * what is missing from the count is said, never guessed. A bounded table
 * (names beyond it share one bucket), lock-free, never allocating. */
#ifndef FC_UNCOUNTED_H
#define FC_UNCOUNTED_H

#include <stdint.h>

#define FC_UNCOUNTED_CAPACITY 256
#define FC_UNCOUNTED_NAME 128  /* bytes kept of a name, NUL included */
#define FC_UNCOUNTED_DETAIL 160 /* bytes kept of the first reason's detail */
#define FC_UNCOUNTED_NONE UINT32_MAX /* the id of the shared bucket */

/* Why (the report's "reason" keys). Values only grow. */
enum fc_unc_reason {
    FC_UNC_OPAQUE = 1, /* a family whose parameters cannot be read on the host */
    FC_UNC_LAYOUT,     /* a decodable family whose parameters did not check out */
    FC_UNC_VARLEN,     /* lengths in device memory, and no bound could be had */
    FC_UNC_GRAPH,      /* a cuDNN plan whose operation graph could not be resolved */
    FC_UNC_NOT_MATMUL, /* a cuDNN graph of operations flopcount does not count (convolutions) */
    FC_UNC_DEVICE_SIZES, /* grouped GEMMs whose group sizes are in device memory, no bound */
    FC_UNC_REASON_COUNT
};

typedef struct fc_uncounted_view {
    const char *name;   /* as seen (a mangled kernel name, a cuDNN plan's label) */
    const char *detail; /* the first occurrence's detail, "" when none */
    uint8_t kclass;     /* enum fc_kclass (analysis/kernel_class.h) */
    uint8_t reason;     /* enum fc_unc_reason */
    uint64_t calls, failed_calls;
    uint32_t id; /* the entry's id; FC_UNCOUNTED_NONE for the shared bucket */
} fc_uncounted_view;

/* The id of (name, reason), created on first use with kclass and detail
 * (either may be empty); FC_UNCOUNTED_NONE when the table is full. Not for
 * a hot path: it hashes the name; keep the id and count with
 * fc_uncounted_count. */
uint32_t fc_uncounted_intern(const char *name, int kclass, int reason, const char *detail);
/* One call of id (ok 0: it failed). Lock-free. */
void fc_uncounted_count(uint32_t id, int ok);
void fc_uncounted_foreach(void (*fn)(const fc_uncounted_view *, void *), void *ctx);
/* "opaque_parameters", "layout_mismatch", "varlen_unbounded",
 * "unresolved_graph", "not_counted_operation", "sizes_in_device_memory";
 * "unknown" out of range. */
const char *fc_unc_reason_name(int reason);
void fc_uncounted_reset(void);

#endif
