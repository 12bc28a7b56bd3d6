/* SPDX-License-Identifier: Apache-2.0 */
/* kernel_class.h - the classes GPU kernel time is split into (the --kernels
 * report): kernels launched inside a counted cuBLAS/cuBLASLt call, and the
 * rest told apart by name. docs/cupti.md, "Kernel classes". */
#ifndef FC_KERNEL_CLASS_H
#define FC_KERNEL_CLASS_H

enum fc_kclass {
    FC_K_GEMM = 0,  /* launched inside a counted cuBLAS/cuBLASLt call (or its graph node) */
    FC_K_GEMM_LIKE, /* a GEMM-like name, not launched through a counted call */
    FC_K_ATTENTION, /* flash / fmha / sdpa / attention kernels */
    FC_K_COMM,      /* NCCL communication */
    FC_K_OTHER,
    FC_K_COUNT
};

/* "gemm", "gemm_like_uncounted", "attention", "communication", "other";
 * "unknown" out of range. The report's keys. */
const char *fc_kclass_name(int cls);
/* The class of a kernel that was NOT launched by a counted call, by its
 * (mangled or plain) name, case-insensitively: attention names first (an
 * "fmha_cutlass..." kernel is attention), then NCCL, then GEMM-like, else
 * other. NULL or "" is other. */
int fc_kclass_of_name(const char *name);

#endif
