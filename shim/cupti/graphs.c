/* SPDX-License-Identifier: Apache-2.0 */
/* graphs.c - CUDA graphs: calls issued on a capturing stream are recorded,
 * not counted; each launch of a graph exec counts them.
 *
 * A GEMM, a decoded attention launch, a named uncounted kernel or an
 * optimizer kernel issued on a capturing stream (the hook or launch
 * callback asks the driver) goes into the list of its capture, found by
 * the driver's capture id, so a call on a stream that joined the capture
 * (a forked capture stream, cudaStreamWaitEvent on a capturing stream's
 * event) lands in the same list. At the end of the capture the list
 * becomes the graph's (CUPTI's graph id); work a library puts into a
 * graph outside any capture (cudnnBackendPopulateCudaGraph) is added to
 * the graph's list directly (fc_graphs_add_attn/_gemm); cloning a graph
 * copies its list; instantiating gives the exec a snapshot of it
 * (cuGraphExecUpdate gives it the new graph's); and each successful
 * cuGraphLaunch of the exec replays the snapshot (graph_items.c) as if the
 * program had issued it again on the launch stream. A graph never
 * launched counts nothing.
 *
 * Storage is static: the item pool (graph_items.c), fixed tables of
 * graphs, execs and captures found through idmaps. Bookkeeping runs in
 * CUPTI callbacks on the program's threads, rarely, under one spin lock;
 * nothing here runs in a hook unless a capture is in progress. Not
 * handled: child-graph nodes, graphs built node by node with
 * cuGraphAddKernelNode (no hooked call), kernel-node parameter changes
 * (cuGraphExecKernelNodeSetParams): docs/cupti.md. */
#include <stdio.h>
#include <string.h>

#include "core/base.h"
#include "core/diag.h"
#include "core/lazymem.h"
#include "cupti_internal.h"
#include "graph_items.h"
#include "idmap.h"

#define GRAPHS_CAP 4096u
#define EXECS_CAP 4096u
#define CAPTURES_CAP 64u
#define NODES_SLOTS 262144u
#define NODE_FIRST 0x80000000u /* node map value: the GEMM's first node */

typedef struct graph_rec {
    uint64_t id;     /* 0: free */
    uint32_t number; /* shown in the report: CUPTI's id, else the order made */
    fc_glist l;
} graph_rec;

typedef struct exec_rec {
    uint64_t id;               /* 0: free */
    uint32_t number, graph_id; /* as graph_rec.number */
    fc_glist l;
    uint64_t launches;
} exec_rec;

typedef struct capture_rec {
    uint64_t id; /* driver capture id; 0: free */
    fc_glist l;
} capture_rec;

static fc_spin lock;
static graph_rec graphs[GRAPHS_CAP];
static exec_rec execs[EXECS_CAP];
static uint32_t execs_hi; /* slots execs[0, execs_hi) ever held an exec (lock held) */
static capture_rec captures[CAPTURES_CAP];
static fc_idmap_slot graph_slots[GRAPHS_CAP * 2], exec_slots[EXECS_CAP * 2];

static fc_idmap graph_map = {graph_slots, GRAPHS_CAP * 2, 0};
static fc_idmap exec_map = {exec_slots, EXECS_CAP * 2, 0};
/* node slots mapped at the first captured call (4 MiB a process that
 * captures no graph never maps) */
static fc_idmap node_map = {NULL, NODES_SLOTS, 0};
static FC_TLS uint64_t ending_capture; /* capture id noted at cuStreamEndCapture entry */
static FC_TLS uint64_t launch_t;       /* stamp of this thread's graph launch, 0 none */

static struct {
    int visible, runtime; /* CUPTI's callbacks follow graphs; the runtime's calls do */
    char reason[320];
    uint64_t captures, captured_calls, invalidated_calls, dropped_calls;
    fc_u128 captured_flops;
    uint64_t instantiations, clones, exec_updates, launches, launched_calls, unknown_launches;
    fc_u128 launched_flops;
    uint32_t graphs_made, execs_made; /* numbers of graphs and execs keyed by handle */
    uint64_t captured_attn, launched_attn, added_calls, added_attn;
    fc_u128 captured_attn_flops, launched_attn_flops;
    fc_graph_exec_row gone[FC_GRAPH_EXEC_ROWS]; /* destroyed execs, most launched kept */
    size_t n_gone;
    uint64_t more_gone;
    int warned_table, warned_status;
} st;

void fc_graphs_set_visible(int visible, const char *reason)
{
    fc_spin_lock(&lock);
    st.visible = visible;
    snprintf(st.reason, sizeof st.reason, "%s", reason);
    fc_spin_unlock(&lock);
}

void fc_graphs_runtime_seen(void)
{
    if (__atomic_load_n(&st.runtime, __ATOMIC_RELAXED))
        return;
    fc_spin_lock(&lock);
    st.runtime = 1;
    fc_spin_unlock(&lock);
}

/* A fork child's reset: the tables are large, so only what was used is
 * cleared (touching untouched pages would cost every DataLoader worker). */
void fc_graphs_reset(void)
{
    lock.v = 0;
    if (fc_gitems_used() > 0 || graph_map.used || exec_map.used || node_map.used) {
        memset(graphs, 0, sizeof graphs);
        memset(execs, 0, sizeof execs);
        execs_hi = 0;
        memset(captures, 0, sizeof captures);
        fc_idmap_clear(&graph_map);
        fc_idmap_clear(&exec_map);
        fc_idmap_clear(&node_map);
    }
    fc_gitems_reset();
    int visible = st.visible;
    char reason[320];
    memcpy(reason, st.reason, sizeof reason);
    memset(&st, 0, sizeof st);
    st.visible = visible;
    memcpy(st.reason, reason, sizeof reason);
}

/* ---- tables (lock held) ---- */

static capture_rec *capture_find(uint64_t id, int add)
{
    capture_rec *free_rec = NULL;
    for (uint32_t i = 0; i < CAPTURES_CAP; i++) {
        if (captures[i].id == id)
            return &captures[i];
        if (captures[i].id == 0 && free_rec == NULL)
            free_rec = &captures[i];
    }
    if (!add || free_rec == NULL)
        return NULL;
    memset(free_rec, 0, sizeof *free_rec);
    free_rec->id = id;
    st.captures++;
    return free_rec;
}

static graph_rec *graph_find(uint64_t id)
{
    uint32_t v = fc_idmap_get(&graph_map, id);
    return v ? &graphs[v - 1] : NULL;
}

static graph_rec *graph_set(uint64_t id, const fc_glist *l)
{
    graph_rec *g = graph_find(id);
    if (g == NULL) {
        for (uint32_t i = 0; i < GRAPHS_CAP && g == NULL; i++)
            if (graphs[i].id == 0 && fc_idmap_put(&graph_map, id, i + 1) == 0)
                g = &graphs[i];
        if (g == NULL) {
            fc_warn_once(&st.warned_table,
                         "more than %u CUDA graphs alive; launches of later "
                         "ones are not counted",
                         GRAPHS_CAP);
            return NULL;
        }
        g->id = id;
        g->number = fc_cupti_on() ? (uint32_t)(id - 1) : ++st.graphs_made;
    }
    g->l = *l;
    return g;
}

static exec_rec *exec_find(uint64_t id)
{
    uint32_t v = fc_idmap_get(&exec_map, id);
    return v ? &execs[v - 1] : NULL;
}

/* Graphs and execs are keyed by CUPTI's ids while CUPTI is on (its
 * callbacks follow them); without it by their handles (the runtime's graph
 * calls follow them, and their destroy calls free the keys before a handle
 * can be reused). */
static uint64_t graph_id_of(CUgraph g)
{
    if (!fc_cupti_on())
        return (uint64_t)(uintptr_t)g;
    uint32_t id = 0;
    return g != NULL && fc_cu.GetGraphId != NULL && fc_cu.GetGraphId(g, &id) == CUPTI_SUCCESS
               ? (uint64_t)id + 1 /* idmap keys are nonzero; CUPTI ids start at 0 or 1 */
               : 0;
}

static uint64_t exec_id_of(CUgraphExec x)
{
    if (!fc_cupti_on())
        return (uint64_t)(uintptr_t)x;
    uint32_t id = 0;
    return x != NULL && fc_cu.GetGraphExecId != NULL &&
                   fc_cu.GetGraphExecId(x, &id) == CUPTI_SUCCESS
               ? (uint64_t)id + 1
               : 0;
}

static uint64_t node_id_of(CUgraphNode n)
{
    uint64_t id = 0;
    return n != NULL && fc_cu.GetGraphNodeId != NULL &&
                   fc_cu.GetGraphNodeId(n, &id) == CUPTI_SUCCESS
               ? id + 1
               : 0;
}

/* ---- the capture side ---- */

/* The capture stream's status and id from the driver; -1 when it cannot
 * be asked. */
static int capture_status(CUstream s, CUstreamCaptureStatus *status, uint64_t *id)
{
    if (fc_drv.StreamGetCaptureInfo == NULL && fc_driver_resolve() != 0)
        return -1;
    cuuint64_t cid = 0;
    if (fc_drv.StreamGetCaptureInfo(s, status, &cid) != CUDA_SUCCESS)
        return -1;
    *id = cid;
    return 0;
}

static void count_captured(const fc_gitem *x)
{
    if (x->kind == FC_GI_GEMM) {
        st.captured_calls++;
        st.captured_flops = fc_u128_sat_add(st.captured_flops, x->flops);
    } else if (x->kind == FC_GI_ATTN) {
        st.captured_attn++;
        st.captured_attn_flops = fc_u128_sat_add(st.captured_attn_flops, x->flops);
    }
}

/* x issued on stream: 1 when recorded against the stream's capture (or
 * dropped with an invalidated one), 0 when the stream is not capturing. */
static int divert_entry(const fc_gitem *x, CUstream stream, const uint64_t *nodes, int n_nodes)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    uint64_t id = 0;
    if (capture_status(stream, &status, &id) != 0) {
        fc_warn_once(&st.warned_status,
                     "a stream capture is in progress but the driver cannot "
                     "tell which streams capture; GEMMs and attention launches are "
                     "counted as executed");
        return 0;
    }
    if (status == CU_STREAM_CAPTURE_STATUS_NONE)
        return 0;
    fc_spin_lock(&lock);
    if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE) { /* invalidated: it will never run */
        st.invalidated_calls++;
        fc_spin_unlock(&lock);
        return 1;
    }
    capture_rec *c = capture_find(id + 1, 1);
    uint32_t e = c ? fc_glist_append(&c->l, x) : 0;
    if (e == 0) {
        st.dropped_calls++;
    } else {
        count_captured(x);
        if (node_map.slot == NULL)
            node_map.slot = fc_mem_map(NODES_SLOTS * sizeof *node_map.slot);
        for (int i = 0; i < n_nodes; i++)
            fc_idmap_put(&node_map, nodes[i], e | (i == 0 ? NODE_FIRST : 0));
    }
    fc_spin_unlock(&lock);
    return 1;
}

int fc_graphs_divert(const fc_gemm *g, CUstream stream, const uint64_t *nodes, int n_nodes)
{
    fc_gitem x;
    if (fc_gitem_gemm(&x, g) != 0)
        return 0;
    return divert_entry(&x, stream, nodes, n_nodes);
}

int fc_graphs_divert_other(int kind, const fc_attn *a, uint32_t id, CUstream stream)
{
    fc_gitem x;
    if (fc_gitem_other(&x, kind, a, id) != 0)
        return 0;
    return divert_entry(&x, stream, NULL, 0);
}

int fc_graphs_add(void *cugraph, int kind, const fc_gemm *g, const fc_attn *a)
{
    fc_gitem x;
    if ((kind == FC_GI_GEMM ? fc_gitem_gemm(&x, g) : fc_gitem_other(&x, kind, a, 0)) != 0)
        return -1;
    uint64_t gid = graph_id_of((CUgraph)cugraph);
    if (gid == 0)
        return -1;
    fc_spin_lock(&lock);
    graph_rec *r = graph_find(gid);
    if (r == NULL) {
        fc_glist empty;
        memset(&empty, 0, sizeof empty);
        r = graph_set(gid, &empty);
    }
    uint32_t e = r != NULL ? fc_glist_append(&r->l, &x) : 0;
    if (e != 0) {
        if (kind == FC_GI_GEMM)
            st.added_calls++;
        else
            st.added_attn++;
    }
    fc_spin_unlock(&lock);
    return e != 0 ? 0 : -1;
}

void fc_graphs_capture_begin(CUstream stream, CUgraph into)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    uint64_t id = 0;
    int known =
        capture_status(stream, &status, &id) == 0 && status == CU_STREAM_CAPTURE_STATUS_ACTIVE;
    uint64_t gid = graph_id_of(into);
    fc_spin_lock(&lock);
    if (!known)
        st.captures++; /* no record without its id (capture_find counts the others) */
    capture_rec *c = known ? capture_find(id + 1, 1) : NULL;
    graph_rec *g = gid ? graph_find(gid) : NULL;
    if (c != NULL && g != NULL)
        c->l = g->l; /* capturing into an existing graph extends its GEMMs */
    fc_spin_unlock(&lock);
}

void fc_graphs_capture_end_enter(CUstream stream)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    uint64_t id = 0;
    ending_capture = 0;
    if (capture_status(stream, &status, &id) == 0 && status != CU_STREAM_CAPTURE_STATUS_NONE)
        ending_capture = id + 1;
}

int fc_graphs_capture_end_exit(CUgraph graph, int ok)
{
    uint64_t cid = ending_capture, gid = ok ? graph_id_of(graph) : 0;
    ending_capture = 0;
    if (cid == 0)
        return 0;
    fc_spin_lock(&lock);
    capture_rec *c = capture_find(cid, 0);
    if (c != NULL) {
        if (gid != 0)
            graph_set(gid, &c->l);
        c->id = 0; /* an invalidated capture's GEMMs stay in the pool, never launched */
    }
    fc_spin_unlock(&lock);
    return 1;
}

/* ---- graphs, execs, nodes ---- */

void fc_graphs_cloned(CUgraph clone, CUgraph original)
{
    uint64_t cid = graph_id_of(clone), oid = graph_id_of(original);
    fc_spin_lock(&lock);
    st.clones++;
    graph_rec *o = oid ? graph_find(oid) : NULL;
    if (o != NULL && cid != 0) {
        fc_glist l = o->l;
        graph_set(cid, &l);
    }
    fc_spin_unlock(&lock);
}

void fc_graphs_destroyed(CUgraph graph)
{
    uint64_t id = graph_id_of(graph);
    fc_spin_lock(&lock);
    graph_rec *g = id ? graph_find(id) : NULL;
    if (g != NULL) {
        g->id = 0;
        fc_idmap_del(&graph_map, id);
    }
    fc_spin_unlock(&lock);
}

void fc_graphs_node_cloned(CUgraphNode node, CUgraphNode original)
{
    uint64_t nid = node_id_of(node), oid = node_id_of(original);
    if (nid == 0 || oid == 0)
        return;
    fc_spin_lock(&lock);
    uint32_t v = fc_idmap_get(&node_map, oid);
    if (v != 0)
        fc_idmap_put(&node_map, nid, v);
    fc_spin_unlock(&lock);
}

uint64_t fc_graphs_node_id(CUgraphNode node)
{
    return node_id_of(node);
}

uint32_t fc_graphs_node_key(uint64_t node_id, int *first)
{
    fc_spin_lock(&lock);
    uint32_t v = fc_idmap_get(&node_map, node_id + 1);
    fc_spin_unlock(&lock);
    *first = (v & NODE_FIRST) != 0;
    v &= ~NODE_FIRST;
    return fc_gitem_key(v);
}

/* A graph's number for an exec's row (CUPTI's id even when the graph is
 * not in the table). */
static uint32_t graph_number(const graph_rec *g, uint64_t gid)
{
    if (g != NULL)
        return g->number;
    return fc_cupti_on() && gid != 0 ? (uint32_t)(gid - 1) : 0;
}

void fc_graphs_exec_created(CUgraphExec exec, CUgraph graph)
{
    uint64_t xid = exec_id_of(exec), gid = graph_id_of(graph);
    if (xid == 0)
        return;
    fc_spin_lock(&lock);
    st.instantiations++;
    exec_rec *x = exec_find(xid);
    for (uint32_t i = 0; i < EXECS_CAP && x == NULL; i++)
        if (execs[i].id == 0 && fc_idmap_put(&exec_map, xid, i + 1) == 0)
            x = &execs[i];
    if (x != NULL) {
        graph_rec *g = gid ? graph_find(gid) : NULL;
        if ((uint32_t)(x - execs) + 1 > execs_hi)
            execs_hi = (uint32_t)(x - execs) + 1;
        memset(x, 0, sizeof *x);
        x->id = xid;
        x->number = fc_cupti_on() ? (uint32_t)(xid - 1) : ++st.execs_made;
        x->graph_id = graph_number(g, gid);
        if (g != NULL)
            x->l = g->l;
    } else {
        fc_warn_once(&st.warned_table,
                     "more than %u CUDA graph execs alive; launches of later "
                     "ones are not counted",
                     EXECS_CAP);
    }
    fc_spin_unlock(&lock);
}

static void row_of(const exec_rec *x, fc_graph_exec_row *r)
{
    r->exec_id = x->number;
    r->graph_id = x->graph_id;
    r->gemms = x->l.gemms;
    r->flops = x->l.flops;
    r->launches = x->launches;
}

/* Keeps a destroyed exec's row among the most launched. */
static void keep_gone(const exec_rec *x)
{
    fc_graph_exec_row r;
    row_of(x, &r);
    if (st.n_gone < FC_GRAPH_EXEC_ROWS) {
        st.gone[st.n_gone++] = r;
        return;
    }
    size_t least = 0;
    for (size_t i = 1; i < st.n_gone; i++)
        if (st.gone[i].launches < st.gone[least].launches)
            least = i;
    st.more_gone++;
    if (r.launches > st.gone[least].launches)
        st.gone[least] = r;
}

void fc_graphs_exec_destroyed(CUgraphExec exec)
{
    uint64_t xid = exec_id_of(exec);
    fc_spin_lock(&lock);
    exec_rec *x = xid ? exec_find(xid) : NULL;
    if (x != NULL) {
        keep_gone(x);
        x->id = 0;
        fc_idmap_del(&exec_map, xid);
    }
    fc_spin_unlock(&lock);
}

void fc_graphs_exec_updated(CUgraphExec exec, CUgraph graph)
{
    uint64_t xid = exec_id_of(exec), gid = graph_id_of(graph);
    fc_spin_lock(&lock);
    st.exec_updates++;
    exec_rec *x = xid ? exec_find(xid) : NULL;
    graph_rec *g = gid ? graph_find(gid) : NULL;
    if (x != NULL) {
        fc_glist empty;
        memset(&empty, 0, sizeof empty);
        x->l = g != NULL ? g->l : empty;
        x->graph_id = graph_number(g, gid);
    }
    fc_spin_unlock(&lock);
}

void fc_graphs_launch_enter(CUgraphExec exec, uint64_t t)
{
    (void)exec;
    launch_t = t;
}

void fc_graphs_launch_exit(CUgraphExec exec, CUstream stream, int ok)
{
    uint64_t t = launch_t;
    launch_t = 0;
    if (!ok)
        return;
    uint64_t xid = exec_id_of(exec);
    fc_spin_lock(&lock);
    exec_rec *x = xid ? exec_find(xid) : NULL;
    if (x == NULL) {
        st.unknown_launches++;
        fc_spin_unlock(&lock);
        return;
    }
    fc_glist l = x->l;
    x->launches++;
    st.launches++;
    st.launched_calls += l.gemms;
    st.launched_flops = fc_u128_sat_add(st.launched_flops, l.flops);
    st.launched_attn += l.attns;
    st.launched_attn_flops = fc_u128_sat_add(st.launched_attn_flops, l.attn_flops);
    fc_spin_unlock(&lock);
    /* the items are immutable and never freed: replayed without the lock */
    fc_glist_replay(&l, stream, t);
}

/* ---- report ---- */

static int more_launched(const fc_graph_exec_row *a, const fc_graph_exec_row *b)
{
    return a->launches != b->launches ? a->launches > b->launches : a->exec_id < b->exec_id;
}

void fc_graphs_get(fc_graphs_view *out)
{
    memset(out, 0, sizeof *out);
    fc_spin_lock(&lock);
    out->replays_visible = st.visible || st.runtime;
    out->seen_by = st.visible ? "CUPTI" : st.runtime ? "CUDA runtime" : NULL;
    snprintf(out->reason, sizeof out->reason, "%s", out->replays_visible ? "" : st.reason);
    out->captures = st.captures;
    out->captured_calls = st.captured_calls;
    out->captured_flops = st.captured_flops;
    out->invalidated_calls = st.invalidated_calls;
    out->dropped_calls = st.dropped_calls;
    out->instantiations = st.instantiations;
    out->clones = st.clones;
    out->exec_updates = st.exec_updates;
    out->launches = st.launches;
    out->launched_calls = st.launched_calls;
    out->launched_flops = st.launched_flops;
    out->unknown_launches = st.unknown_launches;
    out->captured_attn = st.captured_attn;
    out->captured_attn_flops = st.captured_attn_flops;
    out->launched_attn = st.launched_attn;
    out->launched_attn_flops = st.launched_attn_flops;
    out->added_calls = st.added_calls;
    out->added_attn = st.added_attn;
    fc_gitems_never_launched(&out->never_launched_calls, &out->never_launched_flops);
    /* live execs and destroyed ones: the most launched rows. Only the
     * slots ever used are read: reading the rest would fault in pages of
     * a table a program without CUDA graphs never touched. */
    out->more_execs = st.more_gone;
    for (size_t i = 0; i < st.n_gone + execs_hi; i++) {
        fc_graph_exec_row r;
        if (i < st.n_gone) {
            r = st.gone[i];
        } else {
            const exec_rec *x = &execs[i - st.n_gone];
            if (x->id == 0)
                continue;
            row_of(x, &r);
        }
        if (out->n_execs < FC_GRAPH_EXEC_ROWS) {
            out->execs[out->n_execs++] = r;
            continue;
        }
        out->more_execs++;
        size_t least = 0;
        for (size_t j = 1; j < out->n_execs; j++)
            if (more_launched(&out->execs[least], &out->execs[j]))
                least = j;
        if (more_launched(&r, &out->execs[least]))
            out->execs[least] = r;
    }
    fc_spin_unlock(&lock);
    for (size_t i = 1; i < out->n_execs; i++) /* most launched first */
        for (size_t j = i; j > 0 && more_launched(&out->execs[j], &out->execs[j - 1]); j--) {
            fc_graph_exec_row t = out->execs[j];
            out->execs[j] = out->execs[j - 1];
            out->execs[j - 1] = t;
        }
}
