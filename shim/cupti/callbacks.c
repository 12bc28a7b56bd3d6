/* SPDX-License-Identifier: Apache-2.0 */
/* callbacks.c - the CUPTI callbacks graphs need, and their dispatch.
 *
 * Driver API (the path cudart takes too, through cuGetProcAddress):
 * stream capture begin (every variant) and end, cuGraphLaunch, and
 * cuGraphExecUpdate. Resource domain: graphs cloned and destroyed, graph
 * nodes created (inside a GEMM call being captured: the GEMM's kernels)
 * and cloned (instantiation and cloning copy nodes), graph execs created
 * and destroyed. Callbacks run on the program's thread inside the CUDA
 * call, synchronously; none of them counts a call except a launch's exit.
 * Ids from cupti_driver_cbid.h and cupti_callbacks.h (CUDA 13 headers;
 * the same values in CUDA 12). */
#include <errno.h>
#include <stdio.h>

#include "core/clock.h"
#include "cupti_internal.h"

static const CUpti_CallbackId driver_ids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2,
};

static const CUpti_CallbackId resource_ids[] = {
    CUPTI_CBID_RESOURCE_GRAPH_CLONED,      CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING,
    CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED,
    CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING,
};

int fc_callbacks_enable(CUpti_SubscriberHandle s, char *why, size_t n)
{
    char e[96];
    for (size_t i = 0; i < sizeof driver_ids / sizeof driver_ids[0]; i++) {
        CUptiResult rc = fc_cu.EnableCallback(1, s, CUPTI_CB_DOMAIN_DRIVER_API, driver_ids[i]);
        if (rc != CUPTI_SUCCESS) {
            snprintf(why, n, "cuptiEnableCallback(driver API %u) failed: %s",
                     (unsigned)driver_ids[i], fc_cupti_errstr(rc, e, sizeof e));
            return -1;
        }
    }
    for (size_t i = 0; i < sizeof resource_ids / sizeof resource_ids[0]; i++) {
        CUptiResult rc = fc_cu.EnableCallback(1, s, CUPTI_CB_DOMAIN_RESOURCE, resource_ids[i]);
        if (rc != CUPTI_SUCCESS) {
            snprintf(why, n, "cuptiEnableCallback(resource %u) failed: %s",
                     (unsigned)resource_ids[i], fc_cupti_errstr(rc, e, sizeof e));
            return -1;
        }
    }
    return 0;
}

static int returned_ok(const CUpti_CallbackData *d)
{
    return d->functionReturnValue != NULL &&
           *(const CUresult *)d->functionReturnValue == CUDA_SUCCESS;
}

static void on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *d)
{
    int enter = d->callbackSite == CUPTI_API_ENTER;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
        /* every variant's parameters start with the stream */
        if (!enter && returned_ok(d)) {
            fc_capture_began(1);
            fc_graphs_capture_begin(
                ((const cuStreamBeginCapture_params *)d->functionParams)->hStream, NULL);
        }
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
        if (!enter && returned_ok(d)) {
            const cuStreamBeginCaptureToGraph_params *p = d->functionParams;
            fc_capture_began(1);
            fc_graphs_capture_begin(p->hStream, p->hGraph);
        }
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz: {
        const cuStreamEndCapture_params *p = d->functionParams;
        if (enter) {
            fc_graphs_capture_end_enter(p->hStream);
        } else {
            int ok = returned_ok(d);
            if (fc_graphs_capture_end_exit(ok && p->phGraph ? *p->phGraph : NULL, ok))
                fc_capture_ended(1);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz: {
        const cuGraphLaunch_params *p = d->functionParams; /* _ptsz: same layout */
        if (enter) {
            uint64_t t = 0;
            if (fc_cupti_hot_get() & FC_CUPTI_KERNELS) {
                /* the launch's kernels carry its correlation id: tie it to the stamp */
                t = fc_ticks();
                fc_activity_note_correlation(d->correlationId, t | FC_EXT_GRAPH);
            }
            fc_graphs_launch_enter(p->hGraph, t);
        } else
            fc_graphs_launch_exit(p->hGraph, p->hStream, returned_ok(d));
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2:
        /* both start with hGraphExec, hGraph */
        if (!enter && returned_ok(d)) {
            const cuGraphExecUpdate_v2_params *p = d->functionParams;
            fc_graphs_exec_updated(p->hGraphExec, p->hGraph);
        }
        break;
    default:
        break;
    }
}

static void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *r)
{
    const CUpti_GraphData *g = r->resourceDescriptor;
    if (g == NULL)
        return;
    switch (cbid) {
    case CUPTI_CBID_RESOURCE_GRAPH_CLONED:
        fc_graphs_cloned(g->graph, g->originalGraph);
        break;
    case CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING:
        fc_graphs_destroyed(g->graph);
        break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
        fc_capture_note_node(fc_graphs_node_id(g->node));
        break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
        fc_graphs_node_cloned(g->node, g->originalNode);
        break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED:
        fc_graphs_exec_created(g->graphExec, g->graph);
        break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING:
        fc_graphs_exec_destroyed(g->graphExec);
        break;
    default:
        break;
    }
}

void CUPTIAPI fc_callbacks_dispatch(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                    const void *data)
{
    (void)user;
    if (data == NULL || fc_cupti_forked())
        return;
    int saved = errno; /* inside the program's CUDA call */
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
        on_driver(cbid, data);
    else if (domain == CUPTI_CB_DOMAIN_RESOURCE)
        on_resource(cbid, data);
    errno = saved;
}
