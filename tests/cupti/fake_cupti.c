/* SPDX-License-Identifier: Apache-2.0 */
/* fake_cupti.c - a stand-in libcupti.so.13 for the cupti tests
 * (fake_gpu.h), loaded by the shim through FLOPCOUNT_CUPTI.
 *
 * Callbacks: one subscriber; cuptiEnableCallback per (domain, id); the
 * fake driver reports its API calls and resource events and they reach
 * the subscriber only when enabled, with CUpti_CallbackData /
 * CUpti_ResourceData + CUpti_GraphData as CUPTI passes them; kernel
 * launches in the runtime and driver domains with symbolName set.
 * Activity: the client's buffers, filled with CUpti_ActivityKernel10 and
 * CUpti_ActivityExternalCorrelation records (8-byte aligned, read back
 * with cuptiActivityGetNextRecord); an API call writes one external
 * correlation record per kind whose per-thread stack is not empty; a
 * flush hands over the current buffer.
 * Hardware counters: the profiler host API over a small GH100-like metric
 * list (a pass holds two counter "units"; ..._src_fp16 costs two) and PM
 * sampling replaying samples the test scripts with fake_cupti_pm_sample
 * (reached by dlsym on this library: the shim loads it RTLD_LOCAL).
 * FAKE_CUPTI_SUBSCRIBE_RESULT, FAKE_CUPTI_PM_RESULT: make cuptiSubscribe /
 * cuptiPmSamplingEnable fail with that CUptiResult. */
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"

#define KINDS 8
#define STACK 16
#define MAX_SAMPLES 4096
#define MAX_METRICS 32

static CUpti_CallbackFunc sub_fn;
static void *sub_user;
static int subscribed;
static unsigned char enabled[8][1024]; /* [domain][cbid] */
static CUpti_BuffersCallbackRequestFunc req_fn;
static CUpti_BuffersCallbackCompleteFunc done_fn;
static int act_kernel, act_ext;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *buf;
static size_t buf_size, buf_used;
static uint32_t next_corr = 1;
static __thread uint64_t stack[KINDS][STACK];
static __thread int depth[KINDS];

/* ---- basics ---- */

CUptiResult cuptiGetVersion(uint32_t *v)
{
    *v = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
    switch (r) {
    case CUPTI_SUCCESS:
        *s = "CUPTI_SUCCESS";
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        *s = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
        break;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        *s = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
        break;
    case CUPTI_ERROR_NOT_SUPPORTED:
        *s = "CUPTI_ERROR_NOT_SUPPORTED";
        break;
    default:
        *s = "CUPTI_ERROR_UNKNOWN";
        break;
    }
    return CUPTI_SUCCESS;
}

static CUptiResult forced(const char *var)
{
    const char *v = getenv(var);
    return v != NULL ? (CUptiResult)atoi(v) : CUPTI_SUCCESS;
}

/* ---- the bridge from the fake driver ---- */

static void put(const void *rec, size_t size);

static uint32_t op_api_call(void)
{
    pthread_mutex_lock(&mu);
    uint32_t c = next_corr++;
    for (int k = 0; k < KINDS && act_ext; k++)
        if (depth[k] > 0) {
            CUpti_ActivityExternalCorrelation x;
            memset(&x, 0, sizeof x);
            x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
            x.externalKind = (CUpti_ExternalCorrelationKind)k;
            x.externalId = stack[k][depth[k] - 1];
            x.correlationId = c;
            put(&x, sizeof x);
        }
    pthread_mutex_unlock(&mu);
    return c;
}

static void op_api(CUpti_CallbackId cbid, int site, const char *name, const void *params,
                   const CUresult *rc, uint32_t corr)
{
    if (!subscribed || cbid >= 1024 || !enabled[CUPTI_CB_DOMAIN_DRIVER_API][cbid])
        return;
    CUpti_CallbackData d;
    memset(&d, 0, sizeof d);
    d.callbackSite = (CUpti_ApiCallbackSite)site;
    d.functionName = name;
    d.functionParams = params;
    d.functionReturnValue = (void *)rc;
    d.correlationId = corr;
    sub_fn(sub_user, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &d);
}

static void op_resource(CUpti_CallbackId cbid, const CUpti_GraphData *g)
{
    if (!subscribed || cbid >= 1024 || !enabled[CUPTI_CB_DOMAIN_RESOURCE][cbid])
        return;
    CUpti_ResourceData r;
    memset(&r, 0, sizeof r);
    r.resourceDescriptor = (void *)g;
    sub_fn(sub_user, CUPTI_CB_DOMAIN_RESOURCE, cbid, &r);
}

static void op_kernel(const char *name, uint64_t start, uint64_t end, uint32_t stream,
                      uint32_t corr, uint64_t node, uint32_t graph)
{
    if (!act_kernel)
        return;
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = start;
    k.end = end;
    k.streamId = stream;
    k.correlationId = corr;
    k.name = strdup(name); /* CUPTI owns record names for the process's life */
    k.graphNodeId = node;
    k.graphId = graph;
    pthread_mutex_lock(&mu);
    put(&k, sizeof k);
    pthread_mutex_unlock(&mu);
}

static void op_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, int site,
                      const char *name, const char *symbol, const void *params, const void *rc,
                      uint32_t corr)
{
    if (!subscribed || (unsigned)domain >= 8 || cbid >= 1024 || !enabled[domain][cbid])
        return;
    CUpti_CallbackData d;
    memset(&d, 0, sizeof d);
    d.callbackSite = (CUpti_ApiCallbackSite)site;
    d.functionName = name;
    d.symbolName = symbol;
    d.functionParams = params;
    d.functionReturnValue = (void *)rc;
    d.correlationId = corr;
    sub_fn(sub_user, domain, cbid, &d);
}

static const fake_cupti_ops ops = {op_api_call, op_api, op_resource, op_kernel, op_launch};

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc fn, void *user)
{
    CUptiResult r = forced("FAKE_CUPTI_SUBSCRIBE_RESULT");
    if (r != CUPTI_SUCCESS)
        return r;
    if (subscribed)
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    void (*attach)(const fake_cupti_ops *) =
        (void (*)(const fake_cupti_ops *))dlsym(RTLD_DEFAULT, "fake_cuda_attach_cupti");
    if (attach == NULL)
        return CUPTI_ERROR_NOT_INITIALIZED; /* no (fake) driver to attach to */
    attach(&ops);
    sub_fn = fn;
    sub_user = user;
    subscribed = 1;
    *s = (CUpti_SubscriberHandle)&sub_fn;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s)
{
    (void)s;
    subscribed = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableCallback(uint32_t on, CUpti_SubscriberHandle s, CUpti_CallbackDomain d,
                                CUpti_CallbackId cbid)
{
    (void)s;
    if ((unsigned)d >= 8 || cbid >= 1024)
        return CUPTI_ERROR_INVALID_PARAMETER;
    enabled[d][cbid] = (unsigned char)(on != 0);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetGraphId(CUgraph g, uint32_t *id)
{
    *id = fake_cuda_graph_id(g);
    return *id ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult cuptiGetGraphExecId(CUgraphExec x, uint32_t *id)
{
    *id = fake_cuda_exec_id(x);
    return *id ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult cuptiGetGraphNodeId(CUgraphNode n, uint64_t *id)
{
    *id = fake_cuda_node_id(n);
    return *id ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult cuptiFinalize(void)
{
    return CUPTI_SUCCESS;
}

/* ---- activity ---- */

static size_t rec_size(const CUpti_Activity *r)
{
    return r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
               ? sizeof(CUpti_ActivityKernel10)
               : sizeof(CUpti_ActivityExternalCorrelation);
}

static void hand_over(void) /* mu held */
{
    if (buf != NULL && done_fn != NULL)
        done_fn(NULL, 0, buf, buf_size, buf_used);
    buf = NULL;
    buf_used = 0;
}

static void put(const void *rec, size_t size) /* mu held */
{
    size_t need = (size + 7) & ~(size_t)7;
    if (buf != NULL && buf_used + need > buf_size)
        hand_over();
    if (buf == NULL) {
        size_t max = 0;
        req_fn(&buf, &buf_size, &max);
        if (buf == NULL || buf_size < need)
            return; /* dropped */
    }
    memcpy(buf + buf_used, rec, size);
    buf_used += need;
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r,
                                           CUpti_BuffersCallbackCompleteFunc c)
{
    req_fn = r;
    done_fn = c;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind k)
{
    if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
        act_kernel = 1;
    else if (k == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)
        act_ext = 1;
    else
        return CUPTI_ERROR_NOT_SUPPORTED;
    return req_fn ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_OPERATION;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind k)
{
    if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
        act_kernel = 0;
    else if (k == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)
        act_ext = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    (void)flag;
    pthread_mutex_lock(&mu);
    hand_over();
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *b, size_t valid, CUpti_Activity **rec)
{
    size_t at = 0;
    if (*rec != NULL)
        at = (size_t)((uint8_t *)*rec - b) + ((rec_size(*rec) + 7) & ~(size_t)7);
    if (at >= valid)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = (CUpti_Activity *)(b + at);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t *n)
{
    (void)c, (void)s;
    *n = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind k, uint64_t id)
{
    if ((unsigned)k >= KINDS || depth[k] == STACK)
        return CUPTI_ERROR_INVALID_PARAMETER;
    stack[k][depth[k]++] = id;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind k, uint64_t *last)
{
    if ((unsigned)k >= KINDS || depth[k] == 0)
        return CUPTI_ERROR_QUEUE_EMPTY;
    *last = stack[k][--depth[k]];
    return CUPTI_SUCCESS;
}
