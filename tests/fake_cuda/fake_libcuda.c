/* SPDX-License-Identifier: Apache-2.0 */
/* fake_libcuda.c - a stand-in libcuda.so.1 for the device-detection tests,
 * built with that SONAME into its own directory and reached only through
 * FLOPCOUNT_LIBCUDA. It answers the five driver calls flopcount makes from
 * environment variables read at call time, so one test process can be an
 * H100, then a machine whose cuInit fails, then one with no devices:
 *   FAKE_CUDA_INIT_ERROR  CUresult cuInit returns (default 0)
 *   FAKE_CUDA_COUNT       devices visible (default 1)
 *   FAKE_CUDA_NAME        cuDeviceGetName (default "NVIDIA H100 80GB HBM3")
 *   FAKE_CUDA_SMS         MULTIPROCESSOR_COUNT (default 132)
 *   FAKE_CUDA_CLOCK_KHZ   CLOCK_RATE in kHz (default 1980000)
 *   FAKE_CUDA_CC          "major.minor" (default "9.0")
 *   FAKE_CUDA_NO_CLOCK    when set, CLOCK_RATE fails (CUDA_ERROR_INVALID_VALUE)
 * Built a second time with FAKE_CUDA_PARTIAL defined, it lacks
 * cuDeviceGetName: a driver too old or too broken to use.
 * Functions take int where cuda.h has CUdevice/CUresult/enums: same ABI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? atoi(v) : dflt;
}

static int initialised;

int cuInit(unsigned flags)
{
    int rc = env_int("FAKE_CUDA_INIT_ERROR", 0);
    if (flags != 0)
        return 1; /* CUDA_ERROR_INVALID_VALUE: the real driver wants 0 */
    initialised = rc == 0;
    return rc;
}

int cuDeviceGetCount(int *count)
{
    if (!initialised)
        return 3; /* CUDA_ERROR_NOT_INITIALIZED */
    *count = env_int("FAKE_CUDA_COUNT", 1);
    return 0;
}

int cuDeviceGet(int *dev, int ordinal)
{
    if (!initialised)
        return 3;
    if (ordinal < 0 || ordinal >= env_int("FAKE_CUDA_COUNT", 1))
        return 101; /* CUDA_ERROR_INVALID_DEVICE */
    *dev = ordinal;
    return 0;
}

#ifndef FAKE_CUDA_PARTIAL
int cuDeviceGetName(char *name, int len, int dev)
{
    const char *v = getenv("FAKE_CUDA_NAME");
    if (!initialised)
        return 3;
    if (name == NULL || len <= 0 || dev < 0)
        return 1;
    snprintf(name, (size_t)len, "%s", v != NULL ? v : "NVIDIA H100 80GB HBM3");
    return 0;
}
#endif

int cuDeviceGetAttribute(int *value, int attr, int dev)
{
    if (!initialised)
        return 3;
    if (value == NULL || dev < 0)
        return 1;
    const char *cc = getenv("FAKE_CUDA_CC");
    int major = 9, minor = 0;
    if (cc != NULL && sscanf(cc, "%d.%d", &major, &minor) != 2)
        major = minor = 0;
    switch (attr) {
    case 13:
        if (getenv("FAKE_CUDA_NO_CLOCK") != NULL)
            return 1;
        *value = env_int("FAKE_CUDA_CLOCK_KHZ", 1980000);
        return 0;
    case 16:
        *value = env_int("FAKE_CUDA_SMS", 132);
        return 0;
    case 75:
        *value = major;
        return 0;
    case 76:
        *value = minor;
        return 0;
    default:
        return 1;
    }
}
