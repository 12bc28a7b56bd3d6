/* SPDX-License-Identifier: Apache-2.0 */
/* loader.c - finding, loading and starting CUPTI, once per process.
 *
 * Only when the process loaded the CUDA driver itself (libcuda.so.1, or
 * FLOPCOUNT_LIBCUDA, opened with RTLD_NOLOAD): the shim never starts CUDA.
 * The CUPTI loaded is the one matching the process's CUDA: a libcupti the
 * process already loaded (torch does), else libcupti.so.<major> where
 * <major> is that of the libcublas (or libcudart) the process loaded,
 * looked for next to that libcublas, in pip's nvidia/cuda_cupti/lib beside
 * it, in $CUDA_HOME, $CUDA_PATH and /usr/local/cuda (extras/CUPTI/lib64,
 * lib64), then by the loader's search path. FLOPCOUNT_CUPTI=PATH names it;
 * FLOPCOUNT_CUPTI=0 keeps CUPTI out. Never linked: dlopen RTLD_LOCAL.
 *
 * Then: the version check, one subscriber (cuptiSubscribe_v2 when present,
 * which names the client that holds CUPTI already), the graph callbacks,
 * and on request kernel activity and hardware counters. Any failure is one
 * flopcount: line (when the driver is loaded or the feature was asked
 * for) and a reason in the report; the shim counts on as without CUPTI. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/dlsym_real.h"
#include "core/options.h"
#include "core/resolve.h"
#include "cupti_internal.h"

static int probe_state; /* 0 not yet, 1 in progress, 2 done (__atomic) */
static char reason[320], library[512], kernels_reason[340];
static uint32_t version;
static int kernels_on;
/* The status strings: written by whichever thread probes, read by the
 * report's; the probe itself runs once (probe_state). */
static fc_spin status_lock;

/* ---- where CUPTI is ---- */

struct loaded {
    char cublas_dir[512];
    int major;       /* CUDA major of the loaded libcublas / libcudart, 0 unknown */
    char cupti[512]; /* a libcupti already loaded, "" none */
};

/* "libcublas.so.12" -> 12; 0 for anything else. */
static int soname_major(const char *base, const char *stem)
{
    size_t n = strlen(stem);
    if (strncmp(base, stem, n) != 0 || base[n] < '0' || base[n] > '9')
        return 0;
    return atoi(base + n);
}

static int visit(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    struct loaded *l = ctx;
    const char *path = info->dlpi_name;
    if (path == NULL || *path == '\0')
        return 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strncmp(base, "libcupti.so", 11) == 0 && l->cupti[0] == '\0')
        snprintf(l->cupti, sizeof l->cupti, "%s", path);
    int m = soname_major(base, "libcublas.so.");
    if (m == 0)
        m = soname_major(base, "libcublasLt.so.");
    if (m > 0 && l->cublas_dir[0] == '\0') {
        size_t dir = (size_t)(base - path);
        snprintf(l->cublas_dir, sizeof l->cublas_dir, "%.*s", (int)(dir ? dir - 1 : 0), path);
        l->major = m;
    }
    if (l->major == 0)
        l->major = soname_major(base, "libcudart.so.");
    return 0;
}

/* CUDA major a CUPTI API version stands for: 130001 -> 13 (CUDA 13 counts
 * major*10000+minor), 18..99 -> 12 (CUDA 12.x counted 18 upwards), 0 when
 * not known. */
static int cupti_major(uint32_t v)
{
    if (v >= 10000)
        return (int)(v / 10000);
    if (v >= 18 && v < 100)
        return 12;
    if (v >= 13 && v < 18)
        return 11;
    return 0;
}

/* Appends text to the diagnostic string dst (size n) when it fits whole,
 * else ends dst with "..." once: a path cut in the middle would name a
 * file that does not exist. */
static void append_shown(char *dst, size_t n, const char *sep, const char *text)
{
    size_t used = strlen(dst), seplen = strlen(sep), len = strlen(text);
    if (used >= 3 && strcmp(dst + used - 3, "...") == 0)
        return;
    if (used + seplen + len >= n) {
        text = "...";
        len = 3;
    }
    if (used + seplen + len < n) {
        memcpy(dst + used, sep, seplen);
        memcpy(dst + used + seplen, text, len + 1);
    }
}

/* dlopen of one candidate; 0 with the handle, or -1. */
static void *try_open(const char *path, char *tried, size_t n)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h != NULL) {
        fc_spin_lock(&status_lock);
        library[0] = '\0';
        append_shown(library, sizeof library, "", path);
        fc_spin_unlock(&status_lock);
        return h;
    }
    append_shown(tried, n, tried[0] != '\0' ? ", " : "", path);
    return NULL;
}

static void *find_library(const struct loaded *l, char *tried, size_t n)
{
    const char *opt = fc_opt.cupti;
    if (opt[0] != '\0')
        return try_open(opt, tried, n);
    if (l->cupti[0] != '\0')
        return try_open(l->cupti, tried, n);
    int majors[2] = {l->major, 0}, n_majors = 1;
    if (l->major == 0) {
        majors[0] = 13;
        majors[1] = 12;
        n_majors = 2;
    }
    const char *roots[3] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    char path[1200];
    for (int mi = 0; mi < n_majors; mi++) {
        int m = majors[mi];
        void *h;
        if (l->cublas_dir[0] != '\0') {
            snprintf(path, sizeof path, "%s/libcupti.so.%d", l->cublas_dir, m);
            if ((h = try_open(path, tried, n)) != NULL)
                return h;
            /* pip: site-packages/nvidia/cublas/lib -> nvidia/cuda_cupti/lib */
            snprintf(path, sizeof path, "%s/../../cuda_cupti/lib/libcupti.so.%d", l->cublas_dir, m);
            if (access(path, R_OK) == 0 && (h = try_open(path, tried, n)) != NULL)
                return h;
        }
        for (int r = 0; r < 3; r++) {
            if (roots[r] == NULL || roots[r][0] == '\0')
                continue;
            snprintf(path, sizeof path, "%s/extras/CUPTI/lib64/libcupti.so.%d", roots[r], m);
            if (access(path, R_OK) == 0 && (h = try_open(path, tried, n)) != NULL)
                return h;
            snprintf(path, sizeof path, "%s/lib64/libcupti.so.%d", roots[r], m);
            if (access(path, R_OK) == 0 && (h = try_open(path, tried, n)) != NULL)
                return h;
        }
        snprintf(path, sizeof path, "libcupti.so.%d", m);
        if ((h = try_open(path, tried, n)) != NULL)
            return h;
    }
    return NULL;
}

/* ---- the table ---- */

#define NEED(field, name)                                                                          \
    do {                                                                                           \
        *(void **)&fc_cu.field = fc_dlsym(h, name);                                                \
        if (fc_cu.field == NULL)                                                                   \
            missing = name;                                                                        \
    } while (0)
#define OPT(field, name) (*(void **)&fc_cu.field = fc_dlsym(h, name))

/* NULL when every function graphs and kernels need is there, else the
 * name of a missing one. Hardware-counter functions are optional. */
static const char *fill_table(void *h)
{
    const char *missing = NULL;
    NEED(GetVersion, "cuptiGetVersion");
    NEED(GetResultString, "cuptiGetResultString");
    NEED(Subscribe, "cuptiSubscribe");
    OPT(Subscribe_v2, "cuptiSubscribe_v2");
    NEED(Unsubscribe, "cuptiUnsubscribe");
    NEED(EnableCallback, "cuptiEnableCallback");
    NEED(GetGraphId, "cuptiGetGraphId");
    NEED(GetGraphExecId, "cuptiGetGraphExecId");
    NEED(GetGraphNodeId, "cuptiGetGraphNodeId");
    NEED(Finalize, "cuptiFinalize");
    NEED(ActivityRegisterCallbacks, "cuptiActivityRegisterCallbacks");
    NEED(ActivityEnable, "cuptiActivityEnable");
    NEED(ActivityDisable, "cuptiActivityDisable");
    NEED(ActivityFlushAll, "cuptiActivityFlushAll");
    NEED(ActivityGetNextRecord, "cuptiActivityGetNextRecord");
    NEED(ActivityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords");
    NEED(ActivityPushExternalCorrelationId, "cuptiActivityPushExternalCorrelationId");
    NEED(ActivityPopExternalCorrelationId, "cuptiActivityPopExternalCorrelationId");
    OPT(ProfilerInitialize, "cuptiProfilerInitialize");
    OPT(ProfilerDeInitialize, "cuptiProfilerDeInitialize");
    OPT(DeviceGetChipName, "cuptiDeviceGetChipName");
    OPT(PmGetCounterAvailability, "cuptiPmSamplingGetCounterAvailability");
    OPT(PmEnable, "cuptiPmSamplingEnable");
    OPT(PmSetConfig, "cuptiPmSamplingSetConfig");
    OPT(PmGetCounterDataSize, "cuptiPmSamplingGetCounterDataSize");
    OPT(PmCounterDataImageInitialize, "cuptiPmSamplingCounterDataImageInitialize");
    OPT(PmStart, "cuptiPmSamplingStart");
    OPT(PmStop, "cuptiPmSamplingStop");
    OPT(PmDecodeData, "cuptiPmSamplingDecodeData");
    OPT(PmGetCounterDataInfo, "cuptiPmSamplingGetCounterDataInfo");
    OPT(PmGetSampleInfo, "cuptiPmSamplingCounterDataGetSampleInfo");
    OPT(PmDisable, "cuptiPmSamplingDisable");
    OPT(HostInitialize, "cuptiProfilerHostInitialize");
    OPT(HostDeinitialize, "cuptiProfilerHostDeinitialize");
    OPT(HostConfigAddMetrics, "cuptiProfilerHostConfigAddMetrics");
    OPT(HostGetConfigImageSize, "cuptiProfilerHostGetConfigImageSize");
    OPT(HostGetConfigImage, "cuptiProfilerHostGetConfigImage");
    OPT(HostGetNumOfPasses, "cuptiProfilerHostGetNumOfPasses");
    OPT(HostEvaluateToGpuValues, "cuptiProfilerHostEvaluateToGpuValues");
    OPT(HostGetBaseMetrics, "cuptiProfilerHostGetBaseMetrics");
    return missing;
}

static int wanted_loudly(void)
{
    return fc_opt.kernels || fc_opt.hw_flops;
}

/* Gives up: state OFF with why; one line when it matters to the user (the
 * driver is loaded, or kernels / hardware FLOPs were asked for). */
static void give_up(int loud, const char *why)
{
    fc_spin_lock(&status_lock);
    snprintf(reason, sizeof reason, "%s", why);
    if (kernels_reason[0] == '\0')
        snprintf(kernels_reason, sizeof kernels_reason, "CUPTI is off: %s", reason);
    fc_cupti_state_set(FC_CUPTI_OFF);
    fc_spin_unlock(&status_lock);
    fc_graphs_set_visible(0, why);
    fc_hwflops_off(why);
    if (loud || wanted_loudly())
        fc_warn("CUPTI: %s; counting goes on without it (CUDA-graph replays are followed "
                "through the shared CUDA runtime only%s)",
                reason,
                fc_opt.kernels || fc_opt.hw_flops ? "; kernels, hardware FLOPs cannot be seen" : "");
}

static void at_exit_flush(void)
{
    fc_cupti_before_report(1, 0);
}

static const char *subscribe_failure(CUptiResult rc, const char *holder)
{
    static char buf[300];
    char e[96];
    fc_cupti_errstr(rc, e, sizeof e);
    if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        snprintf(buf, sizeof buf,
                 "another CUPTI client holds CUPTI (%s%s%s): torch.profiler/Kineto, "
                 "Nsight Systems/Compute or a debugger; %s",
                 holder && holder[0] ? holder : "", holder && holder[0] ? ", " : "",
                 "one subscriber per process", e);
    else if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        snprintf(buf, sizeof buf,
                 "%s: profiling is restricted to admin users (run as root, or set "
                 "the nvidia module option NVreg_RestrictProfilingToAdminUsers=0)",
                 e);
    else
        snprintf(buf, sizeof buf, "cuptiSubscribe failed: %s", e);
    return buf;
}

static int subscribe(void)
{
    char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = "";
    CUptiResult rc;
    if (fc_cu.Subscribe_v2 != NULL) {
        CUpti_SubscriberParams p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
        p.subscriberName = "flopcount";
        p.oldSubscriberName = holder;
        p.oldSubscriberSize = sizeof holder - 1;
        rc = fc_cu.Subscribe_v2(fc_cupti_subscriber_slot(), fc_callbacks_dispatch, NULL, &p);
    } else {
        rc = fc_cu.Subscribe(fc_cupti_subscriber_slot(), fc_callbacks_dispatch, NULL);
    }
    if (rc != CUPTI_SUCCESS) {
        give_up(1, subscribe_failure(rc, holder));
        return -1;
    }
    return 0;
}

static int check_version(const struct loaded *l)
{
    uint32_t v = 0;
    if (fc_cu.GetVersion(&v) != CUPTI_SUCCESS)
        v = 0;
    fc_spin_lock(&status_lock);
    version = v;
    fc_spin_unlock(&status_lock);
    const char *base = strrchr(library, '/');
    base = base ? base + 1 : library;
    int file_major = soname_major(base, "libcupti.so."), api_major = cupti_major(version);
    int m = file_major ? file_major : api_major;
    char why[320];
    if (l->major != 0 && m != 0 && m != l->major) {
        snprintf(why, sizeof why,
                 "version mismatch: %.200s is CUDA %d, the process's cuBLAS/runtime "
                 "is CUDA %d",
                 library, m, l->major);
        give_up(1, why);
        return -1;
    }
    int drv = 0;
    if (fc_drv.DriverGetVersion != NULL && fc_drv.DriverGetVersion(&drv) == 0 && drv > 0 &&
        m != 0 && drv / 1000 < m) {
        snprintf(why, sizeof why,
                 "version mismatch: %.200s is CUDA %d but the driver supports "
                 "CUDA %d.%d",
                 library, m, drv / 1000, drv % 1000 / 10);
        give_up(1, why);
        return -1;
    }
    return 0;
}

static int load(void)
{
    char why[320];
    if (fc_driver_resolve() != 0) {
        snprintf(why, sizeof why, "no CUDA driver (%.200s) loaded by this process",
                 fc_driver_path());
        give_up(0, why);
        return -1;
    }
    struct loaded l;
    memset(&l, 0, sizeof l);
    dl_iterate_phdr(visit, &l);
    char tried[600] = "";
    void *h = find_library(&l, tried, sizeof tried);
    if (h == NULL) {
        snprintf(why, sizeof why, "no CUPTI library found (tried %.250s); set FLOPCOUNT_CUPTI=PATH",
                 tried);
        give_up(1, why);
        return -1;
    }
    const char *missing = fill_table(h);
    if (missing != NULL) {
        snprintf(why, sizeof why, "%.250s lacks %s", library, missing);
        give_up(1, why);
        return -1;
    }
    if (check_version(&l) != 0 || subscribe() != 0)
        return -1;
    if (fc_callbacks_enable(fc_cupti_subscriber(), why, sizeof why) != 0) {
        fc_cu.Unsubscribe(fc_cupti_subscriber());
        give_up(1, why);
        return -1;
    }
    return 0;
}

int fc_cupti_probe(void)
{
    int expect = 0;
    if (!__atomic_compare_exchange_n(&probe_state, &expect, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        /* another thread is at it, or it is done */
        return fc_cupti_on();
    }
    int ok = !fc_cupti_forked() && load() == 0;
    if (ok) {
        fc_graphs_set_visible(1, "");
        fc_cupti_state_set(FC_CUPTI_ON);
        if (fc_opt.kernels || fc_opt.hw_flops) {
            char why[256] = "";
            if (fc_activity_start(why, sizeof why) == 0) {
                __atomic_store_n(&kernels_on, 1, __ATOMIC_RELEASE);
                fc_cupti_hot_set(FC_CUPTI_KERNELS, 1);
            } else {
                fc_cupti_kernels_off(why);
            }
        }
        atexit(at_exit_flush);
    }
    fc_cupti_hot_set(FC_CUPTI_PROBE, 0);
    __atomic_store_n(&probe_state, 2, __ATOMIC_RELEASE);
    return ok;
}

void fc_cupti_kernels_off(const char *why)
{
    fc_spin_lock(&status_lock);
    snprintf(kernels_reason, sizeof kernels_reason, "%s", why);
    kernels_on = 0;
    fc_spin_unlock(&status_lock);
    fc_cupti_hot_set(FC_CUPTI_KERNELS, 0);
    fc_warn("CUPTI kernel activity: %s; kernel figures are not collected", why);
}

void fc_cupti_init(void)
{
    fc_hwflops_init();
    fc_cupti_lifecycle_init();
    if (!fc_is_enabled() || strcmp(fc_opt.cupti, "0") == 0) {
        snprintf(reason, sizeof reason, "%s",
                 fc_is_enabled() ? "FLOPCOUNT_CUPTI=0" : "FLOPCOUNT_DISABLE=1");
        fc_cupti_state_set(FC_CUPTI_OFF);
        fc_graphs_set_visible(0, reason);
        fc_hwflops_off(reason);
        if (fc_is_enabled() && wanted_loudly())
            fc_warn("FLOPCOUNT_CUPTI=0: kernel figures and hardware FLOPs are not collected");
        snprintf(kernels_reason, sizeof kernels_reason, "CUPTI is off: %s", reason);
        __atomic_store_n(&probe_state, 2, __ATOMIC_RELEASE);
        return;
    }
    fc_graphs_set_visible(0, "no cuBLAS/cuBLASLt GEMM ran (CUPTI is looked for at the first one)");
    fc_cupti_hot_set(FC_CUPTI_PROBE, 1);
}

void fc_cupti_after_fork_child(void)
{
    /* CUDA does not survive fork: the child never calls CUPTI or the driver */
    fc_cupti_forked_set();
    status_lock.v = 0;
    __atomic_store_n(&fc_cupti_hot, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&probe_state, 2, __ATOMIC_RELEASE);
    fc_cupti_state_set(FC_CUPTI_OFF);
    snprintf(reason, sizeof reason, "a forked child (CUDA state is the parent's)");
    kernels_on = 0;
    fc_graphs_reset();
    fc_capture_reset();
    fc_graphs_set_visible(0, reason);
    fc_activity_reset();
    fc_kernels_reset();
    fc_hwflops_reset();
    fc_cupti_lifecycle_reset();
}

void fc_cupti_status_get(fc_cupti_status *out)
{
    memset(out, 0, sizeof *out);
    fc_spin_lock(&status_lock);
    out->state = fc_cupti_state();
    snprintf(out->reason, sizeof out->reason, "%s", reason);
    snprintf(out->library, sizeof out->library, "%s", library);
    out->version = version;
    out->kernels_wanted = fc_opt.kernels || fc_opt.hw_flops;
    out->kernels_on = kernels_on;
    if (out->kernels_wanted && !kernels_on && kernels_reason[0] == '\0')
        snprintf(out->kernels_reason, sizeof out->kernels_reason, "%s",
                 out->state == FC_CUPTI_NOT_TRIED ? "no cuBLAS/cuBLASLt GEMM ran" : reason);
    else
        snprintf(out->kernels_reason, sizeof out->kernels_reason, "%s", kernels_reason);
    fc_spin_unlock(&status_lock);
}
