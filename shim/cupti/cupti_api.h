/* SPDX-License-Identifier: Apache-2.0 */
/* cupti_api.h - the CUPTI and CUDA driver functions the cupti layer calls,
 * as one table of pointers filled by loader.c from libraries the process
 * loads (CUPTI: dlopen'ed by us, never linked; the driver: only the one the
 * process loaded itself). Types come from the CUDA toolkit's own headers. */
#ifndef FC_CUPTI_API_H
#define FC_CUPTI_API_H

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

typedef struct fc_cupti_fns {
    /* callbacks and graphs */
    CUptiResult (*GetVersion)(uint32_t *);
    CUptiResult (*GetResultString)(CUptiResult, const char **);
    CUptiResult (*Subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
    CUptiResult (*Subscribe_v2)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *,
                                CUpti_SubscriberParams *); /* optional (CUDA 12.6+) */
    CUptiResult (*Unsubscribe)(CUpti_SubscriberHandle);
    CUptiResult (*EnableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                  CUpti_CallbackId);
    CUptiResult (*GetGraphId)(CUgraph, uint32_t *);
    CUptiResult (*GetGraphExecId)(CUgraphExec, uint32_t *);
    CUptiResult (*GetGraphNodeId)(CUgraphNode, uint64_t *);
    CUptiResult (*Finalize)(void);
    /* activity */
    CUptiResult (*ActivityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
                                             CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*ActivityEnable)(CUpti_ActivityKind);
    CUptiResult (*ActivityDisable)(CUpti_ActivityKind);
    CUptiResult (*ActivityFlushAll)(uint32_t);
    CUptiResult (*ActivityGetNextRecord)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*ActivityGetNumDroppedRecords)(CUcontext, uint32_t, size_t *);
    CUptiResult (*ActivityPushExternalCorrelationId)(CUpti_ExternalCorrelationKind, uint64_t);
    CUptiResult (*ActivityPopExternalCorrelationId)(CUpti_ExternalCorrelationKind, uint64_t *);
    /* hardware counters (optional: --hw-flops only) */
    CUptiResult (*ProfilerInitialize)(CUpti_Profiler_Initialize_Params *);
    CUptiResult (*ProfilerDeInitialize)(CUpti_Profiler_DeInitialize_Params *);
    CUptiResult (*DeviceGetChipName)(CUpti_Device_GetChipName_Params *);
    CUptiResult (*PmGetCounterAvailability)(CUpti_PmSampling_GetCounterAvailability_Params *);
    CUptiResult (*PmEnable)(CUpti_PmSampling_Enable_Params *);
    CUptiResult (*PmSetConfig)(CUpti_PmSampling_SetConfig_Params *);
    CUptiResult (*PmGetCounterDataSize)(CUpti_PmSampling_GetCounterDataSize_Params *);
    CUptiResult (*PmCounterDataImageInitialize)(
        CUpti_PmSampling_CounterDataImage_Initialize_Params *);
    CUptiResult (*PmStart)(CUpti_PmSampling_Start_Params *);
    CUptiResult (*PmStop)(CUpti_PmSampling_Stop_Params *);
    CUptiResult (*PmDecodeData)(CUpti_PmSampling_DecodeData_Params *);
    CUptiResult (*PmGetCounterDataInfo)(CUpti_PmSampling_GetCounterDataInfo_Params *);
    CUptiResult (*PmGetSampleInfo)(CUpti_PmSampling_CounterData_GetSampleInfo_Params *);
    CUptiResult (*PmDisable)(CUpti_PmSampling_Disable_Params *);
    CUptiResult (*HostInitialize)(CUpti_Profiler_Host_Initialize_Params *);
    CUptiResult (*HostDeinitialize)(CUpti_Profiler_Host_Deinitialize_Params *);
    CUptiResult (*HostConfigAddMetrics)(CUpti_Profiler_Host_ConfigAddMetrics_Params *);
    CUptiResult (*HostGetConfigImageSize)(CUpti_Profiler_Host_GetConfigImageSize_Params *);
    CUptiResult (*HostGetConfigImage)(CUpti_Profiler_Host_GetConfigImage_Params *);
    CUptiResult (*HostGetNumOfPasses)(CUpti_Profiler_Host_GetNumOfPasses_Params *);
    CUptiResult (*HostEvaluateToGpuValues)(CUpti_Profiler_Host_EvaluateToGpuValues_Params *);
    CUptiResult (*HostGetBaseMetrics)(CUpti_Profiler_Host_GetBaseMetrics_Params *);
} fc_cupti_fns;

/* The driver functions, from the libcuda.so.1 the process loaded. */
typedef struct fc_driver_fns {
    /* the CUDA 10.1 ABI of cuStreamGetCaptureInfo (status and capture id),
     * which every later driver still exports under this name */
    CUresult (*StreamGetCaptureInfo)(CUstream, CUstreamCaptureStatus *, cuuint64_t *);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*CtxGetDevice)(CUdevice *);
} fc_driver_fns;

extern fc_cupti_fns fc_cu;
extern fc_driver_fns fc_drv;

/* "CUPTI_ERROR_UNKNOWN (999)" into buf; never fails. */
const char *fc_cupti_errstr(CUptiResult rc, char *buf, size_t size);

#endif
