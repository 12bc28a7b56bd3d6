/* SPDX-License-Identifier: Apache-2.0 */
/* cupti_internal.h - what the files of the cupti layer share among
 * themselves (cupti_layer.h is what the layers above see).
 *
 * The files call one another only downwards, in sub-layers that
 * tests/layers/check_layers.py checks (a call to a file of the same
 * sub-layer or a higher one fails the build's tests):
 *   0  state.c idmap.c hwmetrics.c   function tables, hot bits, on/off,
 *                                    fork flag, spin lock; pure helpers
 *   1  kernels.c capture.c           kernel figures; the capture flag and
 *      graph_items.c                 a call's graph nodes; what graphs replay
 *   2  graphs.c hwflops.c            CUDA graphs; hardware counters
 *   3  activity.c                    kernel activity records
 *   4  launches.c                    kernel-launch callbacks
 *   5  callbacks.c lifecycle.c       the callback dispatch; ticks, flushes
 *   6  loader.c                      finding and starting CUPTI
 *   7  calls.c                       what the hooks ask around a call */
#ifndef FC_CUPTI_INTERNAL_H
#define FC_CUPTI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_api.h"
#include "cupti_layer.h"
#include "hwflops.h"
#include "kernels.h"

/* A short spin lock for bookkeeping that is never on a hook's counting
 * path: graph tables, activity aggregates. Held for microseconds; reset in
 * a fork child (fork may leave it held). */
typedef struct fc_spin {
    int v;
} fc_spin;
void fc_spin_lock(fc_spin *s);
void fc_spin_unlock(fc_spin *s);

/* state.c (sub-layer 0) */
int fc_cupti_on(void);
/* enum fc_cupti_state, and setting it (loader.c) */
int fc_cupti_state(void);
void fc_cupti_state_set(int s);
/* Sets or clears bits of fc_cupti_hot. */
void fc_cupti_hot_set(unsigned bits, int on);
/* 1 in a fork child: CUPTI and the driver are never called there. */
int fc_cupti_forked(void);
void fc_cupti_forked_set(void);
CUpti_SubscriberHandle fc_cupti_subscriber(void);
CUpti_SubscriberHandle *fc_cupti_subscriber_slot(void);
/* Enables the callbacks ids[0..n) of domain; 0, or -1 with why (what
 * names the domain in it). */
int fc_cupti_enable_ids(CUpti_SubscriberHandle s, CUpti_CallbackDomain domain,
                        const CUpti_CallbackId *ids, size_t n, const char *what, char *why,
                        size_t wn);
/* FLOPCOUNT_LIBCUDA or libcuda.so.1 */
const char *fc_driver_path(void);
/* Resolves fc_drv from the driver the process loaded; 0, or -1 when it
 * did not load one. */
int fc_driver_resolve(void);

/* loader.c (sub-layer 6) */
/* Looks for CUPTI once (the first GPU call, or a runtime capture begin);
 * 1 when it is on. */
int fc_cupti_probe(void);
void fc_cupti_kernels_off(const char *why);

/* launches.c (sub-layer 4): the kernel-launch callbacks (runtime and
 * driver domains); enable: 0, or -1 with why. */
int fc_launches_enable(CUpti_SubscriberHandle s, char *why, size_t n);
int fc_launches_is_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
void fc_launches_dispatch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const CUpti_CallbackData *d);

/* callbacks.c (sub-layer 5): enables the driver and resource callbacks graphs need;
 * 0, or -1 with why. */
int fc_callbacks_enable(CUpti_SubscriberHandle s, char *why, size_t n);
void CUPTIAPI fc_callbacks_dispatch(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                    const void *data);

/* capture.c (sub-layer 1) */
/* The capture-in-progress count, from CUPTI's callbacks (cupti 1) or the
 * runtime hooks (cupti 0, ignored once CUPTI's callbacks are on). */
void fc_capture_began(int cupti);
void fc_capture_ended(int cupti);
/* After the call that found CUPTI: whether it was captured (calls.c). */
void fc_capture_settle(int captured);
/* 1 while the runtime hooks keep the count (CUPTI's callbacks do not). */
int fc_capture_runtime_counts(void);
/* Graph nodes created on this thread during the current call: collected
 * from fc_capture_collect(1) to fc_capture_collect(0); note_node ignores
 * id 0; nodes_taken empties the list (a grouped call's later groups). */
#define FC_NODES_PER_GEMM 8
void fc_capture_collect(int on);
void fc_capture_note_node(uint64_t node_id);
int fc_capture_nodes(const uint64_t **nodes);
void fc_capture_nodes_taken(void);
void fc_capture_reset(void);

/* graphs.c (sub-layer 2) */
void fc_graphs_reset(void);
void fc_graphs_set_visible(int visible, const char *reason);
/* The runtime's graph calls are followed (CUPTI's callbacks are not on):
 * replays are visible, seen through them. */
void fc_graphs_runtime_seen(void);
/* A GEMM issued on a capturing stream: 1 when recorded against its capture
 * (or dropped with an invalidated one), 0 when the stream is not
 * capturing (count it as executed). */
int fc_graphs_divert(const fc_gemm *g, CUstream stream, const uint64_t *nodes, int n_nodes);
/* The same for an attention call, an uncounted kernel or a marker (kind
 * FC_GI_*, graph_items.h). */
int fc_graphs_divert_other(int kind, const fc_attn *a, uint32_t id, CUstream stream);
/* Adds a GEMM (g) or an attention call (a) to a graph outside any
 * capture: 0, or -1 (graph unknown, shape not countable, tables full). */
int fc_graphs_add(void *cugraph, int kind, const fc_gemm *g, const fc_attn *a);
void fc_graphs_capture_begin(CUstream stream, CUgraph into);
void fc_graphs_capture_end_enter(CUstream stream);
/* 1 when a capture ended (one was in progress on the stream at entry). */
int fc_graphs_capture_end_exit(CUgraph graph, int ok);
void fc_graphs_cloned(CUgraph clone, CUgraph original);
void fc_graphs_destroyed(CUgraph graph);
void fc_graphs_node_cloned(CUgraphNode node, CUgraphNode original);
/* CUPTI's id of a graph node, plus one (0: none). */
uint64_t fc_graphs_node_id(CUgraphNode node);
void fc_graphs_exec_created(CUgraphExec exec, CUgraph graph);
void fc_graphs_exec_destroyed(CUgraphExec exec);
void fc_graphs_exec_updated(CUgraphExec exec, CUgraph graph);
/* cuGraphLaunch: enter (t: the launch's stamp when kernels are timed, its
 * correlation id tied to it by the caller; else 0) and exit (ok: counts
 * the graph's GEMMs). */
void fc_graphs_launch_enter(CUgraphExec exec, uint64_t t);
void fc_graphs_launch_exit(CUgraphExec exec, CUstream stream, int ok);
/* For kernel records: the shape key of the GEMM a graph node belongs to;
 * 0 when the node is no GEMM's. *first: the node is its GEMM's first. */
uint32_t fc_graphs_node_key(uint64_t node_id, int *first);

/* activity.c (sub-layer 3) */
int fc_activity_start(char *why, size_t n);
void fc_activity_flush(int final);
void fc_activity_reset(void);
/* External ids: a cuBLAS call's stamp (pushed as external correlation id
 * around the call), or a graph launch's stamp with FC_EXT_GRAPH set. */
#define FC_EXT_GRAPH (1ull << 63)
void fc_activity_push(uint64_t id);
void fc_activity_pop(void);
/* Ties a CUPTI correlation id to an external id directly (graph launches,
 * whose callback knows the launch's correlation id). */
void fc_activity_note_correlation(uint32_t corr, uint64_t ext);
/* The shape key of the call stamped t (0: not known any more). */
void fc_activity_note_call(uint64_t t, uint32_t key);
uint32_t fc_activity_call_key(uint64_t t, int *first);

/* lifecycle.c (sub-layer 5): the drainer's ticks (constructor), the fork child's reset. */
void fc_cupti_lifecycle_init(void);
void fc_cupti_lifecycle_reset(void);

/* kernels.c (sub-layer 1) */
/* One kernel record. host_t: the stamp of the call or launch that issued
 * it (0 unknown); key: its GEMM shape (0 none or unknown); gemm: launched
 * by a counted call; first: the first kernel of its call (calls timed). */
typedef struct fc_kernel_in {
    uint64_t start, end, host_t;
    const char *name;
    uint32_t key, device;
    int gemm, first;
} fc_kernel_in;
void fc_kernels_add(const fc_kernel_in *k);
void fc_kernels_dropped(uint64_t n);
void fc_kernels_reset(void);

/* hwflops.c (sub-layer 2) */
void fc_hwflops_init(void);
/* CUPTI is off: hardware FLOPs cannot be measured (why). */
void fc_hwflops_off(const char *why);
void fc_hwflops_start(int dtype);
void fc_hwflops_poll(int final);
void fc_hwflops_stop(void);
void fc_hwflops_reset(void);
int fc_hwflops_wanted(void);

#endif
