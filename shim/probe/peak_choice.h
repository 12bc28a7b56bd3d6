/* SPDX-License-Identifier: Apache-2.0 */
/* peak_choice.h - which peak FLOP/s HFU and MFU are measured against:
 * FLOPCOUNT_PEAK_TFLOPS, else the GPU this process already drives (never
 * starting the CUDA driver for it) and the dominant dtype, else an
 * estimate for CPU BLAS runs. */
#ifndef FC_PEAK_CHOICE_H
#define FC_PEAK_CHOICE_H

typedef struct fc_peak_choice {
    double flops;        /* per device, FLOP/s; 0 when none */
    const char *source;  /* "FLOPCOUNT_PEAK_TFLOPS", "device", "cpu-estimate" */
    char device[256];    /* device or CPU name; "" when not known */
    int dtype;           /* the dtype the figure is for */
    char reason[512];    /* why there is no peak, when flops is 0 */
} fc_peak_choice;

/* 0 with out filled; -1 with out->reason when no peak applies. gpu_work:
 * 1 when the counted FLOPs ran on a GPU (cuBLAS), 0 for CPU BLAS. Caches
 * the lookup. may_look: 0 from a signal handler - then only the variable
 * or an earlier lookup answer (looking opens files and libraries). */
int fc_peak_choose(int dtype, int gpu_work, int may_look, fc_peak_choice *out);
/* Forgets the cached lookup (fork). */
void fc_peak_choice_reset(void);

#endif
