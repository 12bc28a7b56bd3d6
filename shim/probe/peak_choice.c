/* SPDX-License-Identifier: Apache-2.0 */
/* peak_choice.c - the peak for HFU/MFU, chosen once and cached. */
#include "peak_choice.h"

#include <stdio.h>
#include <string.h>

#include "cpupeak.h"
#include "device.h"
#include "dtype.h"
#include "peak.h"
#include "core/options.h"

static int dev_state; /* 0 not looked, 1 found, -1 none */
static fc_device_info dev;
static char dev_err[256];
static int cpu_state;
static fc_cpu_info cpu;
static char cpu_err[256];

void fc_peak_choice_reset(void)
{
    dev_state = cpu_state = 0;
}

static int from_device(int dtype, fc_peak_choice *out)
{
    /* Retried until the program has loaded the driver itself. */
    if (dev_state <= 0) {
        dev_state = fc_device_detect_flags(0, FC_DEVICE_NOLOAD, &dev, dev_err, sizeof dev_err) == 0
                        ? 1
                        : -1;
    }
    if (dev_state < 0) {
        snprintf(out->reason, sizeof out->reason, "no peak: %.200s; " FC_PEAK_UNKNOWN_HINT, dev_err);
        return -1;
    }
    snprintf(out->device, sizeof out->device, "%s", dev.name);
    const fc_peak_device *p = fc_peak_find(dev.name);
    if (p == NULL) {
        snprintf(out->reason, sizeof out->reason, "no peak: unknown device '%.100s'; " FC_PEAK_UNKNOWN_HINT,
                 dev.name);
        return -1;
    }
    out->flops = fc_peak_flops(p, dtype);
    if (out->flops <= 0) {
        snprintf(out->reason, sizeof out->reason, "no peak: %s has no dense %s figure; " FC_PEAK_UNKNOWN_HINT,
                 p->display, fc_dtype_name(dtype));
        return -1;
    }
    out->source = "device";
    return 0;
}

static int from_cpu(int dtype, fc_peak_choice *out)
{
    if (cpu_state == 0) {
        int rc = fc_cpu_read(&cpu, cpu_err, sizeof cpu_err);
        if (rc == 0 || rc == -2)
            rc = fc_cpu_env_overrides(&cpu, cpu_err, sizeof cpu_err) == 0 && cpu.mhz > 0 ? 0 : -1;
        cpu_state = rc == 0 ? 1 : -1;
        if (cpu_state < 0 && cpu_err[0] == '\0')
            snprintf(cpu_err, sizeof cpu_err, "the CPU clock is not known (set FLOPCOUNT_CPU_GHZ)");
    }
    if (cpu_state < 0) {
        snprintf(out->reason, sizeof out->reason, "no peak: %.200s; " FC_PEAK_UNKNOWN_HINT, cpu_err);
        return -1;
    }
    snprintf(out->device, sizeof out->device, "%s", cpu.model);
    out->flops = fc_cpu_peak_flops(cpu.isa, cpu.cores, cpu.mhz, dtype);
    if (out->flops <= 0) {
        snprintf(out->reason, sizeof out->reason, "no peak: no CPU figure for %s; " FC_PEAK_UNKNOWN_HINT,
                 fc_dtype_name(dtype));
        return -1;
    }
    out->source = "cpu-estimate";
    return 0;
}

int fc_peak_choose(int dtype, int gpu_work, int may_look, fc_peak_choice *out)
{
    memset(out, 0, sizeof *out);
    out->dtype = dtype;
    if (fc_opt.peak_tflops > 0) {
        out->flops = fc_opt.peak_tflops * 1e12;
        out->source = "FLOPCOUNT_PEAK_TFLOPS";
        return 0;
    }
    if (!may_look && (gpu_work ? dev_state : cpu_state) <= 0) {
        snprintf(out->reason, sizeof out->reason,
                 "no peak: the device was not looked up before the run was interrupted");
        return -1;
    }
    return gpu_work ? from_device(dtype, out) : from_cpu(dtype, out);
}
