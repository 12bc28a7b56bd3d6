/* SPDX-License-Identifier: Apache-2.0 */
/* hwflops.c - hardware FLOPs by PM sampling (--hw-flops).
 *
 * Started at the first cuBLAS/cuBLASLt GEMM, on its thread (it has the
 * device's context): the chip's name, its counter availability, the
 * one-pass counter set (hwmetrics.c, with the GEMM's dtype tried first),
 * then PM sampling on a GPU-time trigger every millisecond (a system-clock
 * trigger on chips without the time trigger: GA100, Turing). Nothing is
 * replayed and kernels are not serialized: the counters are read from a
 * hardware buffer while the program runs. Samples are decoded every 0.5 s
 * on the drainer thread (outside the drain lock) and before a report, each
 * into FLOPs by type, and wait in a fixed store until the iterations they
 * cover have a GPU span (kernels.c; --hw-flops turns kernel timing on for
 * that). A sample is then shared among the iterations it overlaps in
 * proportion to time; an iteration that got part of a straddling sample
 * is marked "apportioned", and the part of its span no sample covered is
 * reported as a sampling gap. Sample timestamps and kernel timestamps are
 * both CUPTI GPU timestamps (ns); the GPU validation script checks that
 * they line up. docs/hw-flops.md. */
#include "hwflops.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "core/clock.h"
#include "core/diag.h"
#include "core/lazymem.h"
#include "core/options.h"
#include "cupti_internal.h"
#include "kernels.h"
#include "spans.h"

#define PEND_CAP 65536u
#define ITER_CAP 16384u
#define MAX_SAMPLES 1024u        /* per counter-data image */
#define HW_BUFFER (64u << 20)    /* the hardware buffer CUPTI fills */
#define INTERVAL_NS 1000000u     /* 1 ms */
#define INTERVAL_CLOCKS 1000000u /* about 1 ms at 1 GHz */

typedef struct sample {
    uint64_t start, end;
    double v[FC_HW_COUNT];
} sample;

static fc_spin lock;
static int state, stopped;
static char reason[320], chip[32];
static fc_hw_choice choice;
static CUpti_PmSampling_Object *pm;
static CUpti_Profiler_Host_Object *host;
static uint8_t avail[1 << 16], config[1 << 16];
static uint8_t *cdata;
static size_t cdata_size, next_sample;
static const char *trigger;
static uint64_t interval, last_poll;
static sample *pend; /* PEND_CAP, mapped at the first sample (6 MiB otherwise unmapped) */
static size_t n_pend;
static fc_hw_iter iters[ITER_CAP];
static fc_span spans[ITER_CAP];
static size_t n_iters; /* iterations whose span is taken (in order) */
static struct {
    double total[FC_HW_COUNT], outside;
    uint64_t samples, overflows, decode_errors, dropped;
} agg;

int fc_hwflops_wanted(void)
{
    return __atomic_load_n(&state, __ATOMIC_RELAXED) == FC_HWS_PENDING;
}

void fc_hwflops_reset(void)
{
    lock.v = 0;
    state = fc_opt.hw_flops ? FC_HWS_OFF : FC_HWS_NOT_REQUESTED;
    snprintf(reason, sizeof reason, "a forked child (CUDA state is the parent's)");
    pm = NULL;
    host = NULL;
    n_pend = n_iters = 0;
    memset(&agg, 0, sizeof agg);
}

void fc_hwflops_init(void)
{
    state = fc_opt.hw_flops ? FC_HWS_PENDING : FC_HWS_NOT_REQUESTED;
    snprintf(reason, sizeof reason, "%s", fc_opt.hw_flops ? "no cuBLAS/cuBLASLt GEMM ran" : "");
}

void fc_hwflops_off(const char *why)
{
    fc_spin_lock(&lock);
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == FC_HWS_PENDING) {
        snprintf(reason, sizeof reason, "CUPTI is off: %.300s", why);
        __atomic_store_n(&state, FC_HWS_OFF, __ATOMIC_RELEASE);
    }
    fc_spin_unlock(&lock);
}

static void fail(CUptiResult rc, const char *what)
{
    char e[96] = "";
    fc_spin_lock(&lock);
    if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        snprintf(reason, sizeof reason,
                 "%s: %s: GPU performance counters are restricted to admin "
                 "users (run as root, or set the nvidia module option "
                 "NVreg_RestrictProfilingToAdminUsers=0)",
                 what, fc_cupti_errstr(rc, e, sizeof e));
    else if (rc == CUPTI_ERROR_NOT_SUPPORTED)
        snprintf(reason, sizeof reason,
                 "%s: %s: PM sampling is not supported on this GPU (%s); "
                 "the range-profiler fallback is not built yet",
                 what, fc_cupti_errstr(rc, e, sizeof e), chip[0] ? chip : "unknown chip");
    else if (rc != CUPTI_SUCCESS)
        snprintf(reason, sizeof reason, "%s: %s%s", what, fc_cupti_errstr(rc, e, sizeof e),
                 rc == CUPTI_ERROR_UNKNOWN ? " (counters busy with another profiler, DCGM "
                                             "profiling, or no device?)"
                                           : "");
    else
        snprintf(reason, sizeof reason, "%s", what);
    __atomic_store_n(&state, FC_HWS_OFF, __ATOMIC_RELEASE);
    fc_spin_unlock(&lock);
    fc_warn("hardware FLOPs: %s; counting goes on without them", reason);
}

#define ZERO(p, T) (memset(&(p), 0, sizeof(p)), (p).structSize = T##_STRUCT_SIZE)

static int pm_config(void)
{
    CUpti_Profiler_Host_Initialize_Params hi;
    ZERO(hi, CUpti_Profiler_Host_Initialize_Params);
    hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    hi.pChipName = chip;
    hi.pCounterAvailabilityImage = avail;
    CUptiResult rc = fc_cu.HostInitialize(&hi);
    if (rc != CUPTI_SUCCESS) {
        fail(rc, "cuptiProfilerHostInitialize");
        return -1;
    }
    host = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params am;
    ZERO(am, CUpti_Profiler_Host_ConfigAddMetrics_Params);
    am.pHostObject = host;
    am.ppMetricNames = choice.metric;
    am.numMetrics = (size_t)choice.n_metrics;
    CUpti_Profiler_Host_GetConfigImageSize_Params sz;
    ZERO(sz, CUpti_Profiler_Host_GetConfigImageSize_Params);
    sz.pHostObject = host;
    if ((rc = fc_cu.HostConfigAddMetrics(&am)) != CUPTI_SUCCESS ||
        (rc = fc_cu.HostGetConfigImageSize(&sz)) != CUPTI_SUCCESS ||
        sz.configImageSize > sizeof config) {
        fail(rc, "building the counter configuration");
        return -1;
    }
    CUpti_Profiler_Host_GetConfigImage_Params gi;
    ZERO(gi, CUpti_Profiler_Host_GetConfigImage_Params);
    gi.pHostObject = host;
    gi.configImageSize = sz.configImageSize;
    gi.pConfigImage = config;
    if ((rc = fc_cu.HostGetConfigImage(&gi)) != CUPTI_SUCCESS) {
        fail(rc, "cuptiProfilerHostGetConfigImage");
        return -1;
    }
    CUpti_PmSampling_SetConfig_Params sc;
    ZERO(sc, CUpti_PmSampling_SetConfig_Params);
    sc.pPmSamplingObject = pm;
    sc.configSize = sz.configImageSize;
    sc.pConfig = config;
    sc.hardwareBufferSize = HW_BUFFER;
    sc.samplingInterval = INTERVAL_NS;
    sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    trigger = "gpu_time";
    interval = INTERVAL_NS;
    if (fc_cu.PmSetConfig(&sc) != CUPTI_SUCCESS) { /* GA100, Turing: no time trigger */
        sc.samplingInterval = INTERVAL_CLOCKS;
        sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL;
        trigger = "gpu_sysclk";
        interval = INTERVAL_CLOCKS;
        if ((rc = fc_cu.PmSetConfig(&sc)) != CUPTI_SUCCESS) {
            fail(rc, "cuptiPmSamplingSetConfig");
            return -1;
        }
    }
    return 0;
}

static int counter_data(void)
{
    CUpti_PmSampling_GetCounterDataSize_Params ds;
    ZERO(ds, CUpti_PmSampling_GetCounterDataSize_Params);
    ds.pPmSamplingObject = pm;
    ds.pMetricNames = choice.metric;
    ds.numMetrics = (size_t)choice.n_metrics;
    ds.maxSamples = MAX_SAMPLES;
    CUptiResult rc = fc_cu.PmGetCounterDataSize(&ds);
    if (rc != CUPTI_SUCCESS) {
        fail(rc, "cuptiPmSamplingGetCounterDataSize");
        return -1;
    }
    /* once per process, never per call */
    void *p =
        mmap(NULL, ds.counterDataSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fail(CUPTI_SUCCESS, "no memory for the counter data image");
        return -1;
    }
    cdata = p;
    cdata_size = ds.counterDataSize;
    return 0;
}

static int image_init(void)
{
    CUpti_PmSampling_CounterDataImage_Initialize_Params ii;
    ZERO(ii, CUpti_PmSampling_CounterDataImage_Initialize_Params);
    ii.pPmSamplingObject = pm;
    ii.counterDataSize = cdata_size;
    ii.pCounterData = cdata;
    next_sample = 0;
    return fc_cu.PmCounterDataImageInitialize(&ii) == CUPTI_SUCCESS ? 0 : -1;
}

void fc_hwflops_start(int dtype)
{
    int expect = FC_HWS_PENDING; /* one thread starts it; the others see OFF meanwhile */
    if (!__atomic_compare_exchange_n(&state, &expect, FC_HWS_OFF, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return;
    fc_spin_lock(&lock);
    snprintf(reason, sizeof reason, "starting");
    fc_spin_unlock(&lock);
    if (!fc_cupti_on()) {
        fail(CUPTI_SUCCESS, "CUPTI is off");
        return;
    }
    if (fc_cu.PmEnable == NULL || fc_cu.ProfilerInitialize == NULL ||
        fc_cu.HostInitialize == NULL || fc_cu.DeviceGetChipName == NULL ||
        fc_cu.PmDecodeData == NULL || fc_cu.HostEvaluateToGpuValues == NULL) {
        fail(CUPTI_SUCCESS, "this CUPTI has no PM sampling or profiler host API (CUDA 12.6+)");
        return;
    }
    CUpti_Profiler_Initialize_Params pi;
    ZERO(pi, CUpti_Profiler_Initialize_Params);
    CUptiResult rc = fc_cu.ProfilerInitialize(&pi);
    if (rc != CUPTI_SUCCESS) {
        fail(rc, "cuptiProfilerInitialize");
        return;
    }
    CUdevice dev = 0;
    if (fc_drv.CtxGetDevice == NULL || fc_drv.CtxGetDevice(&dev) != CUDA_SUCCESS)
        dev = 0;
    CUpti_Device_GetChipName_Params cn;
    ZERO(cn, CUpti_Device_GetChipName_Params);
    cn.deviceIndex = (size_t)dev;
    if ((rc = fc_cu.DeviceGetChipName(&cn)) != CUPTI_SUCCESS) {
        fail(rc, "cuptiDeviceGetChipName");
        return;
    }
    fc_spin_lock(&lock);
    snprintf(chip, sizeof chip, "%s", cn.pChipName);
    fc_spin_unlock(&lock);
    CUpti_PmSampling_GetCounterAvailability_Params ca;
    ZERO(ca, CUpti_PmSampling_GetCounterAvailability_Params);
    ca.deviceIndex = (size_t)dev;
    if ((rc = fc_cu.PmGetCounterAvailability(&ca)) != CUPTI_SUCCESS ||
        ca.counterAvailabilityImageSize > sizeof avail) {
        fail(rc, "cuptiPmSamplingGetCounterAvailability");
        return;
    }
    ca.pCounterAvailabilityImage = avail;
    if ((rc = fc_cu.PmGetCounterAvailability(&ca)) != CUPTI_SUCCESS) {
        fail(rc, "cuptiPmSamplingGetCounterAvailability");
        return;
    }
    static fc_hw_choice chosen; /* filled here, published under the lock */
    if (fc_hw_choose(&fc_cu, CUPTI_PROFILER_TYPE_PM_SAMPLING, chip, avail, dtype, &chosen) != 0 ||
        chosen.n_metrics == 0) {
        char why[260];
        snprintf(why, sizeof why, "no FLOP counter of %.31s fits one pass%s%.150s", chip,
                 chosen.error[0] ? ": " : "", chosen.error);
        fail(CUPTI_SUCCESS, why);
        return;
    }
    fc_spin_lock(&lock);
    choice = chosen;
    fc_spin_unlock(&lock);
    CUpti_PmSampling_Enable_Params en;
    ZERO(en, CUpti_PmSampling_Enable_Params);
    en.deviceIndex = (size_t)dev;
    if ((rc = fc_cu.PmEnable(&en)) != CUPTI_SUCCESS) {
        fail(rc, "cuptiPmSamplingEnable");
        return;
    }
    pm = en.pPmSamplingObject;
    if (pm_config() != 0 || counter_data() != 0)
        return;
    if (image_init() != 0) {
        fail(CUPTI_SUCCESS, "cuptiPmSamplingCounterDataImageInitialize failed");
        return;
    }
    CUpti_PmSampling_Start_Params sp;
    ZERO(sp, CUpti_PmSampling_Start_Params);
    sp.pPmSamplingObject = pm;
    if ((rc = fc_cu.PmStart(&sp)) != CUPTI_SUCCESS) {
        fail(rc, "cuptiPmSamplingStart");
        return;
    }
    fc_spin_lock(&lock);
    reason[0] = '\0';
    last_poll = fc_ticks();
    __atomic_store_n(&state, FC_HWS_ON, __ATOMIC_RELEASE);
    fc_spin_unlock(&lock);
}

/* Reads sample s of the image into the store. */
static void read_sample(size_t s)
{
    CUpti_PmSampling_CounterData_GetSampleInfo_Params si;
    ZERO(si, CUpti_PmSampling_CounterData_GetSampleInfo_Params);
    si.pPmSamplingObject = pm;
    si.pCounterDataImage = cdata;
    si.counterDataImageSize = cdata_size;
    si.sampleIndex = s;
    double values[FC_HW_MAX_METRICS] = {0};
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev;
    ZERO(ev, CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    ev.pHostObject = host;
    ev.pCounterDataImage = cdata;
    ev.counterDataImageSize = cdata_size;
    ev.rangeIndex = s;
    ev.ppMetricNames = choice.metric;
    ev.numMetrics = (size_t)choice.n_metrics;
    ev.pMetricValues = values;
    if (fc_cu.PmGetSampleInfo(&si) != CUPTI_SUCCESS ||
        fc_cu.HostEvaluateToGpuValues(&ev) != CUPTI_SUCCESS) {
        __atomic_fetch_add(&agg.decode_errors, 1, __ATOMIC_RELAXED);
        return;
    }
    sample x;
    memset(&x, 0, sizeof x);
    x.start = si.startTimestamp;
    x.end = si.endTimestamp;
    for (int m = 0; m < choice.n_metrics; m++)
        x.v[choice.metric_type[m]] += values[m] * choice.metric_scale[m];
    fc_spin_lock(&lock);
    agg.samples++;
    for (int t = 0; t < FC_HW_COUNT; t++)
        agg.total[t] += x.v[t];
    if (pend == NULL)
        pend = fc_mem_map(PEND_CAP * sizeof *pend);
    if (n_pend < PEND_CAP && pend != NULL)
        pend[n_pend++] = x;
    else
        agg.dropped++;
    fc_spin_unlock(&lock);
}

static void decode(void)
{
    for (int round = 0; round < 64; round++) {
        CUpti_PmSampling_DecodeData_Params dd;
        ZERO(dd, CUpti_PmSampling_DecodeData_Params);
        dd.pPmSamplingObject = pm;
        dd.pCounterDataImage = cdata;
        dd.counterDataImageSize = cdata_size;
        if (fc_cu.PmDecodeData(&dd) != CUPTI_SUCCESS) {
            __atomic_fetch_add(&agg.decode_errors, 1, __ATOMIC_RELAXED);
            return;
        }
        if (dd.overflow)
            __atomic_fetch_add(&agg.overflows, 1, __ATOMIC_RELAXED);
        CUpti_PmSampling_GetCounterDataInfo_Params di;
        ZERO(di, CUpti_PmSampling_GetCounterDataInfo_Params);
        di.pCounterDataImage = cdata;
        di.counterDataImageSize = cdata_size;
        if (fc_cu.PmGetCounterDataInfo(&di) != CUPTI_SUCCESS) {
            __atomic_fetch_add(&agg.decode_errors, 1, __ATOMIC_RELAXED);
            return;
        }
        for (; next_sample < di.numCompletedSamples; next_sample++)
            read_sample(next_sample);
        if (dd.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL)
            return;
        if (image_init() != 0) { /* full: start a fresh image and decode on */
            __atomic_fetch_add(&agg.decode_errors, 1, __ATOMIC_RELAXED);
            return;
        }
    }
}

void fc_hwflops_poll(int final)
{
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != FC_HWS_ON || stopped || fc_cupti_forked())
        return;
    uint64_t now = fc_ticks();
    if (!final && fc_ticks_seconds(now - last_poll) < 0.5)
        return;
    last_poll = now;
    decode();
}

void fc_hwflops_stop(void)
{
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != FC_HWS_ON || stopped || fc_cupti_forked())
        return;
    CUpti_PmSampling_Stop_Params sp;
    ZERO(sp, CUpti_PmSampling_Stop_Params);
    sp.pPmSamplingObject = pm;
    fc_cu.PmStop(&sp);
    decode();
    CUpti_PmSampling_Disable_Params dp;
    ZERO(dp, CUpti_PmSampling_Disable_Params);
    dp.pPmSamplingObject = pm;
    fc_cu.PmDisable(&dp);
    CUpti_Profiler_DeInitialize_Params di;
    ZERO(di, CUpti_Profiler_DeInitialize_Params);
    if (fc_cu.ProfilerDeInitialize != NULL)
        fc_cu.ProfilerDeInitialize(&di);
    stopped = 1; /* the host object stays: the report only reads what was decoded */
}

/* Shares sample x among the known spans by time (spans.h). */
static void share(const sample *x)
{
    size_t lo = 0, hi = n_iters; /* the first span ending after the sample starts */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (spans[mid].end <= x->start)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t to = lo;
    while (to < n_iters && to - lo < 64 && (spans[to].start < x->end || x->end <= x->start))
        to++;
    double frac[64] = {0};
    int touched = 0, whole = 0;
    double left =
        fc_spans_apportion(&spans[lo], to - lo, x->start, x->end, 1.0, frac, &touched, &whole);
    for (size_t i = 0; i < to - lo; i++) {
        if (frac[i] <= 0)
            continue;
        fc_hw_iter *it = &iters[lo + i];
        for (int t = 0; t < FC_HW_COUNT; t++) {
            double part = frac[i] == 1.0 ? x->v[t] : x->v[t] * frac[i];
            it->by_type[t] += part;
            if (fc_hwtype_is_flop(t))
                it->flops += part;
        }
        it->apportioned |= !whole;
        it->sampled_ns += fc_span_overlap(x->start, x->end, spans[lo + i].start, spans[lo + i].end);
    }
    if (left > 0)
        for (int t = 0; t < FC_HW_COUNT; t++)
            if (fc_hwtype_is_flop(t))
                agg.outside += x->v[t] * left;
}

void fc_hwflops_attribute(int final)
{
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != FC_HWS_ON)
        return;
    fc_spin_lock(&lock);
    for (;;) { /* take the spans kernels.c knows by now */
        uint64_t g0 = 0, g1 = 0;
        int r = n_iters < ITER_CAP ? fc_kernels_iter_span(n_iters + 1, &g0, &g1) : -1;
        if (r < 0)
            break;
        fc_hw_iter *it = &iters[n_iters];
        memset(it, 0, sizeof *it);
        it->has = r == 0;
        /* an iteration without kernels keeps an empty span where the last one ended */
        uint64_t at = n_iters ? spans[n_iters - 1].end : 0;
        spans[n_iters] = r == 0 ? (fc_span){g0, g1} : (fc_span){at, at};
        it->span_ns = r == 0 ? g1 - g0 : 0;
        n_iters++;
    }
    uint64_t known_end = n_iters ? spans[n_iters - 1].end : 0;
    size_t kept = 0;
    for (size_t i = 0; i < n_pend; i++) {
        if (!final && pend[i].end > known_end) {
            pend[kept++] = pend[i];
            continue;
        }
        share(&pend[i]);
    }
    n_pend = kept;
    fc_spin_unlock(&lock);
}

uint64_t fc_hwflops_latest(double *flops, double *span_seconds)
{
    uint64_t idx = 0, open_from = UINT64_MAX; /* the earliest sample not shared yet */
    fc_spin_lock(&lock);
    for (size_t i = 0; i < n_pend; i++)
        if (pend[i].start < open_from)
            open_from = pend[i].start;
    for (size_t i = n_iters; i > 0; i--)
        if (iters[i - 1].has && spans[i - 1].end <= open_from) {
            idx = i;
            *flops = iters[i - 1].flops;
            *span_seconds = (double)iters[i - 1].span_ns / 1e9;
            break;
        }
    fc_spin_unlock(&lock);
    return idx;
}

void fc_hwflops_get(fc_hw_view *out)
{
    memset(out, 0, sizeof *out);
    fc_spin_lock(&lock);
    out->state = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    snprintf(out->reason, sizeof out->reason, "%s", reason);
    out->mode = "pm_sampling";
    snprintf(out->chip, sizeof out->chip, "%s", chip);
    out->trigger = trigger;
    out->interval = interval;
    out->choice = &choice;
    memcpy(out->total, agg.total, sizeof out->total);
    out->samples = agg.samples;
    out->overflows = __atomic_load_n(&agg.overflows, __ATOMIC_RELAXED);
    out->decode_errors = __atomic_load_n(&agg.decode_errors, __ATOMIC_RELAXED);
    out->outside_flops = agg.outside;
    out->iters = iters;
    out->n_iters = n_iters;
    fc_spin_unlock(&lock);
}
