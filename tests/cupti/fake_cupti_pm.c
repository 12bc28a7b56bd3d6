/* SPDX-License-Identifier: Apache-2.0 */
/* fake_cupti_pm.c - the hardware-counter half of the fake libcupti.so.13
 * (fake_cupti.c): the profiler host API over a GH100-like list of FLOP
 * counters, and PM sampling that replays the samples a test scripts.
 *
 * Passes: every tensor-pipe counter costs one unit, ..._src_fp16 two,
 * SASS instruction counters none, two units per pass - so with bf16 tried
 * first the one-pass set is bf16 + fp8 + the CUDA-core counters, and tf32,
 * fp16, fp64 tensor and int8 are left out (what the tests expect). The
 * real host API decides on a real run; tests/cupti/test_hw_metrics.c
 * checks the shim's table against it. */
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCRIPT 65536
#define MAX_METRICS 32

static const char *const base[] = {"sm__ops_path_tensor_src_bf16_dst_fp32",
                                   "sm__ops_path_tensor_src_fp16",
                                   "sm__ops_path_tensor_op_hgmma_src_fp16",
                                   "sm__ops_path_tensor_src_tf32_dst_fp32",
                                   "sm__ops_path_tensor_src_fp8",
                                   "sm__ops_path_tensor_src_fp64",
                                   "sm__ops_path_tensor_src_int8",
                                   "sm__sass_thread_inst_executed_op_ffma_pred_on",
                                   "sm__sass_thread_inst_executed_op_fadd_pred_on",
                                   "sm__sass_thread_inst_executed_op_fmul_pred_on",
                                   "sm__sass_thread_inst_executed_op_dfma_pred_on",
                                   "sm__sass_thread_inst_executed_op_dadd_pred_on",
                                   "sm__sass_thread_inst_executed_op_dmul_pred_on",
                                   "sm__sass_thread_inst_executed_op_hfma_pred_on",
                                   "sm__sass_thread_inst_executed_op_hadd_pred_on",
                                   "sm__sass_thread_inst_executed_op_hmul_pred_on"};
#define N_BASE (sizeof base / sizeof base[0])

struct CUpti_Profiler_Host_Object {
    char chip[32];
    int n;
    char metric[MAX_METRICS][96];
};

struct CUpti_PmSampling_Object {
    int started;
};

typedef struct sample {
    uint64_t start, end;
    int n;
    char metric[MAX_METRICS][96];
    double value[MAX_METRICS];
} sample;

typedef struct image {
    unsigned magic;
    size_t cap, n;
    sample s[];
} image;

static sample script[MAX_SCRIPT];
static size_t n_script, next_script;
static pthread_mutex_t script_mu =
    PTHREAD_MUTEX_INITIALIZER; /* the test's thread writes, the decoder reads */
static struct CUpti_PmSampling_Object pm_object;

/* Scripted by the test program (dlsym on this library): one sample over
 * [start, end) with n metrics ("...sum") and their counted values, decoded
 * in the order scripted. */
void fake_cupti_pm_sample(uint64_t start, uint64_t end, int n, const char *const *metrics,
                          const double *values)
{
    pthread_mutex_lock(&script_mu);
    if (n_script < MAX_SCRIPT) {
        sample *s = &script[n_script++];
        memset(s, 0, sizeof *s);
        s->start = start;
        s->end = end;
        for (int i = 0; i < n && i < MAX_METRICS; i++) {
            strncpy(s->metric[i], metrics[i], sizeof s->metric[0] - 1);
            s->value[s->n++] = values[i];
        }
    }
    pthread_mutex_unlock(&script_mu);
}

static CUptiResult forced(const char *var)
{
    const char *v = getenv(var);
    return v != NULL ? (CUptiResult)atoi(v) : CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
    (void)p;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params *p)
{
    (void)p;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
    p->pChipName = "GH100";
    return CUPTI_SUCCESS;
}

/* ---- host API ---- */

CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p)
{
    if (p->pChipName == NULL)
        return CUPTI_ERROR_INVALID_PARAMETER;
    struct CUpti_Profiler_Host_Object *o = calloc(1, sizeof *o);
    strncpy(o->chip, p->pChipName, sizeof o->chip - 1);
    p->pHostObject = o;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p)
{
    free(p->pHostObject);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetBaseMetrics(CUpti_Profiler_Host_GetBaseMetrics_Params *p)
{
    p->ppMetricNames = (const char **)base;
    p->numMetrics = N_BASE;
    return CUPTI_SUCCESS;
}

static int known(const char *m)
{
    size_t len = strlen(m);
    if (len < 5 || strcmp(m + len - 4, ".sum") != 0)
        return 0;
    for (size_t i = 0; i < N_BASE; i++)
        if (strlen(base[i]) == len - 4 && strncmp(base[i], m, len - 4) == 0)
            return 1;
    return 0;
}

CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p)
{
    struct CUpti_Profiler_Host_Object *o = p->pHostObject;
    for (size_t i = 0; i < p->numMetrics; i++) {
        if (!known(p->ppMetricNames[i]) || o->n == MAX_METRICS)
            return CUPTI_ERROR_INVALID_METRIC_NAME;
        strncpy(o->metric[o->n++], p->ppMetricNames[i], sizeof o->metric[0] - 1);
    }
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p)
{
    p->configImageSize = sizeof(struct CUpti_Profiler_Host_Object);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p)
{
    if (p->configImageSize < sizeof(struct CUpti_Profiler_Host_Object))
        return CUPTI_ERROR_INVALID_PARAMETER;
    memcpy(p->pConfigImage, p->pHostObject, sizeof(struct CUpti_Profiler_Host_Object));
    return CUPTI_SUCCESS;
}

static int cost(const char *m)
{
    if (strncmp(m, "sm__sass_", 9) == 0)
        return 0;
    return strcmp(m, "sm__ops_path_tensor_src_fp16.sum") == 0 ? 2 : 1;
}

CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p)
{
    const struct CUpti_Profiler_Host_Object *o = (const void *)p->pConfigImage;
    int units = 0;
    for (int i = 0; i < o->n; i++)
        units += cost(o->metric[i]);
    p->numOfPasses = units <= 2 ? 1 : (size_t)(units + 1) / 2;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
    const image *im = (const void *)p->pCounterDataImage;
    if (p->rangeIndex >= im->n)
        return CUPTI_ERROR_INVALID_PARAMETER;
    const sample *s = &im->s[p->rangeIndex];
    for (size_t m = 0; m < p->numMetrics; m++) {
        p->pMetricValues[m] = 0;
        for (int j = 0; j < s->n; j++)
            if (strcmp(s->metric[j], p->ppMetricNames[m]) == 0)
                p->pMetricValues[m] = s->value[j];
    }
    return CUPTI_SUCCESS;
}

/* ---- PM sampling ---- */

CUptiResult cuptiPmSamplingGetCounterAvailability(CUpti_PmSampling_GetCounterAvailability_Params *p)
{
    if (p->pCounterAvailabilityImage == NULL)
        p->counterAvailabilityImageSize = 16;
    else
        memset(p->pCounterAvailabilityImage, 0, 16);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiPmSamplingEnable(CUpti_PmSampling_Enable_Params *p)
{
    CUptiResult r = forced("FAKE_CUPTI_PM_RESULT");
    if (r != CUPTI_SUCCESS)
        return r;
    p->pPmSamplingObject = &pm_object;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiPmSamplingSetConfig(CUpti_PmSampling_SetConfig_Params *p)
{
    if (p->triggerMode == CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL &&
        getenv("FAKE_PM_NO_TIME_TRIGGER") != NULL)
        return CUPTI_ERROR_NOT_SUPPORTED;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiPmSamplingGetCounterDataSize(CUpti_PmSampling_GetCounterDataSize_Params *p)
{
    p->counterDataSize = sizeof(image) + sizeof(sample) * p->maxSamples;
    return CUPTI_SUCCESS;
}

CUptiResult
cuptiPmSamplingCounterDataImageInitialize(CUpti_PmSampling_CounterDataImage_Initialize_Params *p)
{
    image *im = (image *)p->pCounterData;
    im->magic = 0x5a5a;
    im->cap = (p->counterDataSize - sizeof(image)) / sizeof(sample);
    im->n = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiPmSamplingStart(CUpti_PmSampling_Start_Params *p)
{
    p->pPmSamplingObject->started = 1;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiPmSamplingStop(CUpti_PmSampling_Stop_Params *p)
{
    p->pPmSamplingObject->started = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiPmSamplingDisable(CUpti_PmSampling_Disable_Params *p)
{
    (void)p;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiPmSamplingDecodeData(CUpti_PmSampling_DecodeData_Params *p)
{
    image *im = (image *)p->pCounterDataImage;
    pthread_mutex_lock(&script_mu);
    while (next_script < n_script && im->n < im->cap)
        im->s[im->n++] = script[next_script++];
    p->decodeStopReason = next_script < n_script
                              ? CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL
                              : CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
    pthread_mutex_unlock(&script_mu);
    p->overflow = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiPmSamplingGetCounterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params *p)
{
    const image *im = (const void *)p->pCounterDataImage;
    p->numTotalSamples = im->cap;
    p->numPopulatedSamples = p->numCompletedSamples = im->n;
    return CUPTI_SUCCESS;
}

CUptiResult
cuptiPmSamplingCounterDataGetSampleInfo(CUpti_PmSampling_CounterData_GetSampleInfo_Params *p)
{
    const image *im = (const void *)p->pCounterDataImage;
    if (p->sampleIndex >= im->n)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->startTimestamp = im->s[p->sampleIndex].start;
    p->endTimestamp = im->s[p->sampleIndex].end;
    return CUPTI_SUCCESS;
}
