/* SPDX-License-Identifier: Apache-2.0 */
/* device.c - name, SM count, compute capability and clock of the local GPU
 * through the CUDA driver API, found with dlopen at run time.
 *
 * Called by the CLI and by the shim at exit, so: no global state, errno is
 * restored, every failure becomes one plain sentence in err, nothing aborts.
 * The driver is reached by name only (cuInit, cuDeviceGetCount, ...); these
 * five entry points have had the same unversioned names since CUDA 2. */
#include "device.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cuda.h values, restated so this file builds without the CUDA headers. */
enum {
    ATTR_CLOCK_RATE = 13, /* kHz */
    ATTR_MULTIPROCESSOR_COUNT = 16,
    ATTR_CC_MAJOR = 75,
    ATTR_CC_MINOR = 76,
};

typedef int (*cu_init_fn)(unsigned flags);
typedef int (*cu_count_fn)(int *count);
typedef int (*cu_get_fn)(int *dev, int ordinal);
typedef int (*cu_name_fn)(char *name, int len, int dev);
typedef int (*cu_attr_fn)(int *value, int attr, int dev);

typedef struct driver {
    cu_init_fn init;
    cu_count_fn count;
    cu_get_fn get;
    cu_name_fn name;
    cu_attr_fn attr;
} driver;

__attribute__((format(printf, 3, 4))) static void say(char *err, size_t errlen, const char *fmt,
                                                      ...)
{
    if (err == NULL || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* The meaning of the CUresult values a machine without a usable GPU gives. */
static const char *cu_error_text(int code)
{
    switch (code) {
    case 3:
        return "driver not initialised";
    case 34:
        return "stub libcuda found instead of the real driver";
    case 35:
        return "driver older than the CUDA runtime";
    case 46:
        return "device busy or unavailable";
    case 100:
        return "no CUDA device";
    case 101:
        return "invalid device";
    case 304:
        return "operating system call failed";
    case 800:
        return "operation not permitted";
    case 803:
        return "driver and kernel module versions differ";
    case 804:
        return "forward compatibility not supported on this device";
    case 999:
        return "unknown driver error";
    default:
        return "driver error";
    }
}

static void *load(int flags, char *err, size_t errlen)
{
    const char *path = getenv("FLOPCOUNT_LIBCUDA");
    int from_env = path != NULL && *path != '\0';
    if (!from_env)
        path = "libcuda.so.1";
    int mode = RTLD_NOW | RTLD_LOCAL | ((flags & FC_DEVICE_NOLOAD) ? RTLD_NOLOAD : 0);
    void *h = dlopen(path, mode);
    if (h != NULL)
        return h;
    if (flags & FC_DEVICE_NOLOAD)
        say(err, errlen, "CUDA driver (%s) not loaded by this process", path);
    else if (from_env)
        say(err, errlen, "no CUDA driver (FLOPCOUNT_LIBCUDA=%s cannot be loaded)", path);
    else
        say(err, errlen, "no CUDA driver (%s not found)", path);
    return NULL;
}

static int resolve(void *h, driver *d, char *err, size_t errlen)
{
    static const char *const names[] = {"cuInit", "cuDeviceGetCount", "cuDeviceGet",
                                        "cuDeviceGetName", "cuDeviceGetAttribute"};
    void *p[5];
    for (int i = 0; i < 5; i++) {
        p[i] = dlsym(h, names[i]);
        if (p[i] == NULL) {
            say(err, errlen, "CUDA driver lacks %s", names[i]);
            return -1;
        }
    }
    /* POSIX guarantees a dlsym result converts to a function pointer. */
    d->init = (cu_init_fn)p[0];
    d->count = (cu_count_fn)p[1];
    d->get = (cu_get_fn)p[2];
    d->name = (cu_name_fn)p[3];
    d->attr = (cu_attr_fn)p[4];
    return 0;
}

/* An attribute the device does not report reads as 0 ("unknown"). */
static int attribute(const driver *d, int attr, int dev)
{
    int v = 0;
    if (d->attr(&v, attr, dev) != 0 || v < 0)
        return 0;
    return v;
}

static int query(const driver *d, int ordinal, fc_device_info *out, char *err, size_t errlen)
{
    int rc = d->init(0);
    if (rc != 0) {
        say(err, errlen, "CUDA driver failed to initialise: %s (cuInit error %d)",
            cu_error_text(rc), rc);
        return -1;
    }
    int count = 0;
    rc = d->count(&count);
    if (rc != 0 || count <= 0) {
        say(err, errlen, "%s (cuDeviceGetCount error %d)",
            rc ? cu_error_text(rc) : "no CUDA device", rc);
        return -1;
    }
    out->count = count;
    int dev = 0;
    if (ordinal < 0 || ordinal >= count || d->get(&dev, ordinal) != 0) {
        say(err, errlen, "GPU %d not present (%d visible)", ordinal, count);
        return -1;
    }
    rc = d->name(out->name, (int)sizeof out->name, dev);
    out->name[sizeof out->name - 1] = '\0';
    if (rc != 0 || out->name[0] == '\0') {
        say(err, errlen, "cuDeviceGetName failed: %s (error %d)", cu_error_text(rc), rc);
        return -1;
    }
    out->sm_count = attribute(d, ATTR_MULTIPROCESSOR_COUNT, dev);
    out->clock_khz = attribute(d, ATTR_CLOCK_RATE, dev);
    out->cc_major = attribute(d, ATTR_CC_MAJOR, dev);
    out->cc_minor = attribute(d, ATTR_CC_MINOR, dev);
    return 0;
}

int fc_device_detect_flags(int ordinal, int flags, fc_device_info *out, char *err, size_t errlen)
{
    int saved = errno;
    int rc = -1;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (out == NULL) {
        say(err, errlen, "no place for the device information");
        return -1;
    }
    memset(out, 0, sizeof *out);
    void *h = load(flags, err, errlen);
    driver d;
    if (h != NULL && resolve(h, &d, err, errlen) == 0)
        rc = query(&d, ordinal, out, err, errlen);
    /* The handle stays open: the shim may still run CUDA code after us, and
     * the driver does not support being unloaded from a live process. */
    errno = saved;
    return rc;
}

int fc_device_detect(int ordinal, fc_device_info *out, char *err, size_t errlen)
{
    return fc_device_detect_flags(ordinal, 0, out, err, errlen);
}

double fc_device_clock_peak(const fc_device_info *d, int flop_per_clk_per_sm)
{
    if (d == NULL || d->sm_count <= 0 || d->clock_khz <= 0 || flop_per_clk_per_sm <= 0)
        return 0;
    /* In integers: 132 x 4096 x 1,830,000 kHz x 1000 = 989,429,760,000,000,
     * well inside uint64 and below 2^53, so the double is exact. */
    uint64_t v = (uint64_t)d->sm_count * (uint64_t)flop_per_clk_per_sm;
    v *= (uint64_t)d->clock_khz;
    v *= 1000u;
    return (double)v;
}
