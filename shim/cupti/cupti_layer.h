/* SPDX-License-Identifier: Apache-2.0 */
/* cupti_layer.h - the cupti layer (between ring/ and hooks/): CUPTI loaded at run
 * time, never linked, only when the process loaded the CUDA driver itself.
 *   graphs   CUDA-graph captures, instantiations and launches: a GEMM issued
 *            on a capturing stream is not counted as executed but recorded
 *            against its capture; each launch counts the graph's GEMMs
 *            (graphs.c, capture.c, callbacks.c). On when CUPTI is usable.
 *   kernels  kernel activity: GPU busy time, GEMM kernel time per shape,
 *            the rest by class (activity.c, kernels.c). FLOPCOUNT_KERNELS=1.
 *   hw flops hardware FLOP counters by PM sampling (hwmetrics.c,
 *            hwflops.c). FLOPCOUNT_HW_FLOPS=1.
 * Every failure is one flopcount: line and a status in the report; the
 * counting of calls goes on as without CUPTI. docs/cupti.md,
 * docs/hw-flops.md. */
#ifndef FC_CUPTI_LAYER_H
#define FC_CUPTI_LAYER_H

#include <stddef.h>
#include <stdint.h>

#include "attention.h"
#include "core/gemm.h"
#include "u128.h"

/* What the GPU hooks must do besides counting; one relaxed load per call
 * (fc_cupti_hot_get), zero when nothing is on. */
enum {
    FC_CUPTI_PROBE = 1u,   /* CUPTI not looked for yet: the next GPU call does it */
    FC_CUPTI_CAPTURE = 2u, /* a stream capture is (or may be) in progress */
    FC_CUPTI_KERNELS = 4u, /* push an external correlation id around each call */
};
extern unsigned fc_cupti_hot;

static inline unsigned fc_cupti_hot_get(void)
{
    return __atomic_load_n(&fc_cupti_hot, __ATOMIC_RELAXED);
}

/* Constructor: reads the options, registers the drainer tick. */
void fc_cupti_init(void);
/* The forked child's reset: the parent's CUDA state is not the child's. */
void fc_cupti_after_fork_child(void);

/* Around an outermost cuBLAS/cuBLASLt call, only while fc_cupti_hot_get()
 * is nonzero. begin: before forwarding (looks for CUPTI once; stamps the
 * call and pushes its external correlation id; starts collecting the graph
 * nodes a capture adds). end: after forwarding, once per described GEMM
 * (grouped calls: per group): pops the id (once per call), sets g->t to the
 * stamp and, for a successful call on a capturing stream, records g
 * against its capture and returns 1 - the caller then does not count it. */
void fc_cupti_call_begin(void);
int fc_cupti_call_end(fc_gemm *g, int ok);

/* After a kernel launch of interest was forwarded (the launch hooks, with
 * the launch decoded by shim/launch/): 1 when its stream is capturing and
 * it was recorded against the capture instead - the caller then does not
 * count it; each launch of the graph counts it (graphs.c); 0 otherwise
 * (count it now). kind: FC_CUPTI_ITEM_*; a: the decoded attention call
 * (ATTN), id: the uncounted kernel's id (UNCOUNTED) or the marker's kind
 * (MARK). Looks for CUPTI first when it was not looked for yet (the
 * process may have run no GEMM). One load and test while no capture is in
 * progress. */
enum { FC_CUPTI_ITEM_ATTN = 1, FC_CUPTI_ITEM_UNCOUNTED = 2, FC_CUPTI_ITEM_MARK = 3 };
int fc_cupti_launch_captured(int kind, const fc_attn *a, uint32_t id, void *stream);

/* The driver called the injection entry point (hooks/injection.c, inside
 * cuInit): CUPTI is looked for now. */
void fc_cupti_injected(void);

/* Work put into a CUDA graph outside any capture (cuDNN's
 * cudnnBackendPopulateCudaGraph): an attention call or a GEMM recorded
 * against that graph (a cudaGraph_t / CUgraph), counted at each launch of
 * the execs instantiated from it afterwards. 0, or -1 when graphs are not
 * followed (CUPTI off), the graph is unknown to CUPTI, the shape is not
 * countable, or the tables are full. */
int fc_graphs_add_attn(void *cugraph, const fc_attn *a);
int fc_graphs_add_gemm(void *cugraph, const fc_gemm *g);

/* From the interposed cudaStreamBeginCapture* / cudaStreamEndCapture of
 * the CUDA runtime (hooks/stream_capture.c): before forwarding (a begin looks for
 * CUPTI first, so that its callbacks see the capture; an end notes which
 * capture ends), and after, with the result. They keep the "capture in
 * progress" flag when CUPTI's own callbacks do not. */
void fc_cupti_runtime_capture_before(int begin, void *stream);
/* graph: the graph a capture began into (cudaStreamBeginCaptureToGraph;
 * else NULL) or the one it ended with. */
void fc_cupti_runtime_capture_after(int begin, int ok, void *stream, void *graph);

/* The shared CUDA runtime's graph calls (hooks/graphs_rt.c), after the
 * real call with its result: while CUPTI's callbacks are not on (not
 * found, turned off, or held by another subscriber), they follow the
 * graphs instead, keyed by handle, so each replay counts its captured
 * work. a, b: per op below; stream: the launch's. */
enum {
    FC_RTG_INSTANTIATE = 1, /* a exec, b graph */
    FC_RTG_LAUNCH,          /* a exec */
    FC_RTG_UPDATE,          /* a exec, b graph */
    FC_RTG_EXEC_DESTROY,    /* a exec (before the real call) */
    FC_RTG_DESTROY,         /* a graph (before the real call) */
    FC_RTG_CLONE,           /* a clone, b original */
};
void fc_cupti_runtime_graph(int op, void *a, void *b, void *stream);

/* Before a report is written: flushes the activity buffers (final: and
 * disables CUPTI for good). from_signal: from a signal handler, where
 * CUPTI is not called; the drainer thread is asked to flush instead and
 * waited for briefly. */
void fc_cupti_before_report(int final, int from_signal);
/* The drainer's tick (ring layer, drain lock held): periodic flush,
 * per-iteration attribution. */
void fc_cupti_tick(void);

/* ---- report views (read with the drain lock held) ---- */

enum fc_cupti_state {
    FC_CUPTI_NOT_TRIED = 0, /* no cuBLAS/cuBLASLt GEMM ran (or none yet) */
    FC_CUPTI_OFF,           /* looked for and not usable: reason says why */
    FC_CUPTI_ON,
};

typedef struct fc_cupti_status {
    int state;         /* enum fc_cupti_state */
    char reason[320];  /* why not ON */
    char library[512]; /* the libcupti loaded ("" none) */
    uint32_t version;  /* cuptiGetVersion, 0 unknown */
    int kernels_wanted, kernels_on;
    char kernels_reason[340];
} fc_cupti_status;
void fc_cupti_status_get(fc_cupti_status *out);

#define FC_GRAPH_EXEC_ROWS 32
typedef struct fc_graph_exec_row {
    uint32_t exec_id, graph_id;
    uint64_t gemms, launches;
    fc_u128 flops; /* per launch */
} fc_graph_exec_row;

typedef struct fc_graphs_view {
    int replays_visible; /* CUPTI callbacks or the runtime's graph calls saw launches */
    char reason[320];    /* why launches cannot be seen */
    const char *seen_by; /* "CUPTI", "CUDA runtime" (its graph calls), NULL */
    uint64_t captures, captured_calls, invalidated_calls, dropped_calls;
    fc_u128 captured_flops;
    uint64_t instantiations, clones, exec_updates, launches, launched_calls;
    fc_u128 launched_flops;
    uint64_t unknown_launches; /* of graph execs made before flopcount saw them */
    uint64_t never_launched_calls;
    fc_u128 never_launched_flops;
    /* decoded attention launches captured, and replayed by launches
     * (executed FLOPs); GEMMs and attention calls added to graphs outside
     * a capture (fc_graphs_add_*) */
    uint64_t captured_attn, launched_attn;
    fc_u128 captured_attn_flops, launched_attn_flops;
    uint64_t added_calls, added_attn;
    size_t n_execs;      /* rows below (the most launched first) */
    uint64_t more_execs; /* execs beyond the rows */
    fc_graph_exec_row execs[FC_GRAPH_EXEC_ROWS];
} fc_graphs_view;
void fc_graphs_get(fc_graphs_view *out);

#endif
