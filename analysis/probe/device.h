/* SPDX-License-Identifier: Apache-2.0 */
/* device.h - the local GPU, read through the CUDA driver API loaded at run
 * time (libcuda.so.1; nothing links against it). */
#ifndef FC_DEVICE_H
#define FC_DEVICE_H

#include <stddef.h>

typedef struct fc_device_info {
    char name[256];
    int sm_count;
    int cc_major, cc_minor;
    int clock_khz;
    int count; /* devices visible */
} fc_device_info;

/* 0 and *out filled for device ordinal; -1 with a plain reason in err
 * ("no CUDA driver (libcuda.so.1 not found)", "no CUDA device", ...). */
int fc_device_detect(int ordinal, fc_device_info *out, char *err, size_t errlen);

/* FC_DEVICE_NOLOAD: use the driver only if this process has loaded it
 * already (dlopen RTLD_NOLOAD), so a report written at exit of a CPU-only
 * process does not start the CUDA driver just to name a GPU. */
#define FC_DEVICE_NOLOAD 1

/* fc_device_detect with flags. The library is env FLOPCOUNT_LIBCUDA when set
 * (tests point it at a fake), else "libcuda.so.1". No global state, errno
 * kept, safe from a destructor; the handle is never closed (unloading the
 * CUDA driver under a live process is not safe). */
int fc_device_detect_flags(int ordinal, int flags, fc_device_info *out, char *err, size_t errlen);

/* SMs x dense FLOP/clock/SM x clock, in FLOP/s; 0 when unknown. Exact for
 * every real device (the integer product stays below 2^53). */
double fc_device_clock_peak(const fc_device_info *d, int flop_per_clk_per_sm);

#endif
