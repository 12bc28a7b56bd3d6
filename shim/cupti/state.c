/* SPDX-License-Identifier: Apache-2.0 */
/* state.c - what every file of the cupti layer reads: the tables of CUPTI
 * and driver functions (filled by loader.c), the hot bits the hooks test,
 * whether CUPTI is on, whether this is a fork child, the subscriber
 * handle, the bookkeeping spin lock, and the driver the process loaded.
 * The bottom of the layer (sub-layer 0, tests/layers): it calls nothing
 * else of it, so every other file may call it. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/dlsym_real.h"
#include "core/resolve.h"
#include "cupti_internal.h"

fc_cupti_fns fc_cu;
fc_driver_fns fc_drv;
unsigned fc_cupti_hot;

static int state = FC_CUPTI_NOT_TRIED;
static int forked;
static CUpti_SubscriberHandle subscriber;

void fc_spin_lock(fc_spin *s)
{
    while (__atomic_exchange_n(&s->v, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

void fc_spin_unlock(fc_spin *s)
{
    __atomic_store_n(&s->v, 0, __ATOMIC_RELEASE);
}

void fc_cupti_hot_set(unsigned bits, int on)
{
    if (on)
        __atomic_fetch_or(&fc_cupti_hot, bits, __ATOMIC_RELAXED);
    else
        __atomic_fetch_and(&fc_cupti_hot, ~bits, __ATOMIC_RELAXED);
}

int fc_cupti_on(void)
{
    return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == FC_CUPTI_ON;
}

int fc_cupti_state(void)
{
    return __atomic_load_n(&state, __ATOMIC_ACQUIRE);
}

void fc_cupti_state_set(int s)
{
    __atomic_store_n(&state, s, __ATOMIC_RELEASE);
}

int fc_cupti_forked(void)
{
    return forked;
}

void fc_cupti_forked_set(void)
{
    forked = 1;
}

CUpti_SubscriberHandle fc_cupti_subscriber(void)
{
    return subscriber;
}

CUpti_SubscriberHandle *fc_cupti_subscriber_slot(void)
{
    return &subscriber;
}

const char *fc_cupti_errstr(CUptiResult rc, char *buf, size_t size)
{
    const char *s = NULL;
    if (fc_cu.GetResultString == NULL || fc_cu.GetResultString(rc, &s) != CUPTI_SUCCESS)
        s = NULL;
    snprintf(buf, size, "%s (%d)", s ? s : "CUPTI error", (int)rc);
    return buf;
}

const char *fc_driver_path(void)
{
    const char *p = getenv("FLOPCOUNT_LIBCUDA");
    return p != NULL && *p != '\0' ? p : "libcuda.so.1";
}

int fc_driver_resolve(void)
{
    static int done; /* 1 found, -1 not loaded (looked once: the first capture or GEMM) */
    int d = __atomic_load_n(&done, __ATOMIC_ACQUIRE);
    if (d != 0)
        return d > 0 ? 0 : -1;
    void *drv = forked ? NULL : fc_resolve_loaded_lib(fc_driver_path());
    if (drv != NULL) {
        *(void **)&fc_drv.StreamGetCaptureInfo = fc_dlsym(drv, "cuStreamGetCaptureInfo");
        *(void **)&fc_drv.DriverGetVersion = fc_dlsym(drv, "cuDriverGetVersion");
        *(void **)&fc_drv.CtxGetDevice = fc_dlsym(drv, "cuCtxGetDevice");
    }
    __atomic_store_n(&done, drv != NULL ? 1 : -1, __ATOMIC_RELEASE);
    return drv != NULL ? 0 : -1;
}
