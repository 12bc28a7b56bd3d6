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

/* SMs x dense FLOP/clock/SM x clock, in FLOP/s; 0 when unknown. */
double fc_device_clock_peak(const fc_device_info *d, int flop_per_clk_per_sm);

#endif
