/* SPDX-License-Identifier: Apache-2.0 */
/* fake_cudnn_graph.c - a fake libcudnn_graph.so.9, built against the real
 * cudnn_graph.h: the backend API with the behaviour the shim relies on
 * and a GPU would give - descriptors of any type (newer ones included),
 * attributes accepted, heuristics that fill the engine configs they are
 * handed when the operation graph carries a handle (the real 9.19 has no
 * engine for an SDPA graph without one: none here for any graph), plans that finalize once they
 * have an engine config, executes that succeed on a finalized plan and variant pack - so the call
 * sequences the real library refuses without a device (tests/cudnn/
 * test_cudnn_real.c) run to the end here. Nothing is computed. The
 * handle functions (cudnnCreate, cudnnSetStream, cudnnGetStream) keep a
 * stream per handle. */
#include <cudnn_graph.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC 0xC0DEu

typedef struct fdesc {
    unsigned magic;
    int type;
    int finalized;
    void *config; /* plan: its engine config */
    void *graph;  /* heuristics, engine: their operation graph; engine config: its engine */
    int has_handle; /* operation graph: CUDNN_ATTR_OPERATIONGRAPH_HANDLE set */
} fdesc;

typedef struct fhandle {
    unsigned magic;
    cudaStream_t stream;
} fhandle;

static fdesc *desc_of(cudnnBackendDescriptor_t d)
{
    fdesc *f = d;
    return f != NULL && f->magic == MAGIC ? f : NULL;
}

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type,
                                           cudnnBackendDescriptor_t *d)
{
    if (d == NULL)
        return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    fdesc *f = calloc(1, sizeof *f);
    if (f == NULL)
        return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    f->magic = MAGIC;
    f->type = (int)type;
    *d = f;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t d)
{
    fdesc *f = desc_of(d);
    if (f == NULL)
        return CUDNN_STATUS_BAD_PARAM;
    f->magic = 0;
    free(f);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendInitialize(cudnnBackendDescriptor_t d)
{
    fdesc *f = desc_of(d);
    if (f == NULL)
        return CUDNN_STATUS_BAD_PARAM;
    f->finalized = 0;
    f->config = NULL;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t a,
                                       cudnnBackendAttributeType_t t, int64_t n, const void *el)
{
    fdesc *f = desc_of(d);
    if (f == NULL || (n > 0 && el == NULL))
        return CUDNN_STATUS_BAD_PARAM;
    if (f->finalized)
        return CUDNN_STATUS_BAD_PARAM; /* as cuDNN: a finalized descriptor is frozen */
    if (f->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR && t == CUDNN_TYPE_BACKEND_DESCRIPTOR &&
        a == CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG)
        f->config = *(void *const *)el;
    if (f->type == CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR &&
        a == CUDNN_ATTR_OPERATIONGRAPH_HANDLE && t == CUDNN_TYPE_HANDLE && n == 1 &&
        *(void *const *)el != NULL)
        f->has_handle = 1;
    if (t == CUDNN_TYPE_BACKEND_DESCRIPTOR && n == 1 &&
        ((f->type == CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR &&
          a == CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH) ||
         (f->type == CUDNN_BACKEND_ENGINE_DESCRIPTOR && a == CUDNN_ATTR_ENGINE_OPERATION_GRAPH) ||
         (f->type == CUDNN_BACKEND_ENGINECFG_DESCRIPTOR && a == CUDNN_ATTR_ENGINECFG_ENGINE)))
        f->graph = *(void *const *)el;
    if (f->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR &&
        a == CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION)
        f->config = f; /* a plan from JSON needs no engine config */
    return CUDNN_STATUS_SUCCESS;
}

/* The operation graph of heuristics or an engine carries a handle. */
static int on_device(const fdesc *f)
{
    const fdesc *g = f != NULL ? desc_of(f->graph) : NULL;
    return g != NULL && g->type == CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR && g->has_handle;
}

/* Heuristics on a graph with a handle have two engine configs and fill
 * those the caller hands in; on one without, none. */
cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const d,
                                       cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t,
                                       int64_t requested, int64_t *n, void *el)
{
    fdesc *f = desc_of(d);
    if (f == NULL || n == NULL)
        return CUDNN_STATUS_BAD_PARAM;
    *n = 0;
    if (f->type == CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR && a == CUDNN_ATTR_ENGINEHEUR_RESULTS &&
        t == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
        if (!on_device(f))
            return CUDNN_STATUS_SUCCESS;
        if (el == NULL || requested == 0) {
            *n = 2;
            return CUDNN_STATUS_SUCCESS;
        }
        for (int64_t i = 0; i < requested && i < 2; i++) {
            fdesc *c = desc_of(((void **)el)[i]);
            if (c == NULL || c->type != CUDNN_BACKEND_ENGINECFG_DESCRIPTOR)
                return CUDNN_STATUS_BAD_PARAM;
            c->finalized = 1;
            *n = i + 1;
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t d)
{
    fdesc *f = desc_of(d);
    if (f == NULL || f->finalized)
        return CUDNN_STATUS_BAD_PARAM;
    if (f->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR && f->config == NULL)
        return CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED;
    const fdesc *cfg = f->config != f ? desc_of(f->config) : NULL;
    if (f->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR && cfg != NULL && !cfg->finalized)
        return CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED; /* as 9.19 */
    /* an engine config by hand needs an engine of a graph with a handle */
    if (f->type == CUDNN_BACKEND_ENGINECFG_DESCRIPTOR && !on_device(desc_of(f->graph)))
        return CUDNN_STATUS_NOT_SUPPORTED;
    f->finalized = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t h, cudnnBackendDescriptor_t plan,
                                  cudnnBackendDescriptor_t vp)
{
    fdesc *p = desc_of(plan), *v = desc_of(vp);
    if (h == NULL || p == NULL || v == NULL || !p->finalized || !v->finalized ||
        p->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR)
        return CUDNN_STATUS_BAD_PARAM;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendPopulateCudaGraph(cudnnHandle_t h, cudnnBackendDescriptor_t plan,
                                            cudnnBackendDescriptor_t vp, cudaGraph_t g)
{
    (void)g;
    return cudnnBackendExecute(h, plan, vp);
}

cudnnStatus_t cudnnBackendUpdateCudaGraph(cudnnHandle_t h, cudnnBackendDescriptor_t plan,
                                          cudnnBackendDescriptor_t vp, cudaGraph_t g)
{
    (void)g;
    return cudnnBackendExecute(h, plan, vp);
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *h)
{
    fhandle *f = calloc(1, sizeof *f);
    if (h == NULL || f == NULL) {
        free(f);
        return CUDNN_STATUS_BAD_PARAM;
    }
    f->magic = MAGIC;
    *h = (cudnnHandle_t)f;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t h)
{
    free(h);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t h, cudaStream_t s)
{
    if (h == NULL)
        return CUDNN_STATUS_BAD_PARAM;
    ((fhandle *)h)->stream = s;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetStream(cudnnHandle_t h, cudaStream_t *s)
{
    if (h == NULL || s == NULL)
        return CUDNN_STATUS_BAD_PARAM;
    *s = ((fhandle *)h)->stream;
    return CUDNN_STATUS_SUCCESS;
}

size_t cudnnGetVersion(void)
{
    return CUDNN_VERSION;
}

const char *cudnnGetErrorString(cudnnStatus_t s)
{
    return s == CUDNN_STATUS_SUCCESS ? "CUDNN_STATUS_SUCCESS" : "fake cuDNN error";
}
