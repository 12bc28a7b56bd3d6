/* SPDX-License-Identifier: Apache-2.0 */
/* capture.c - the "capture in progress" flag, and the graph nodes one call
 * adds to a capture.
 *
 * The flag (FC_CUPTI_CAPTURE in fc_cupti_hot) is up while a count of
 * stream captures begun and not ended is above zero. CUPTI's driver
 * callbacks keep the count when they are on (they see every capture,
 * cudart's included); otherwise the interposed cudaStreamBeginCapture* /
 * cudaStreamEndCapture of the CUDA runtime (hooks/stream_capture.c, through
 * calls.c) do, for programs that call the runtime through its shared
 * library. Only while the flag is up does a hook ask the driver
 * (cuStreamGetCaptureInfo, which is not free) whether its stream is
 * capturing. The flag is a filter, not a verdict: the driver's answer
 * decides.
 *
 * Per call, on the calling thread: the graph nodes a capture adds during
 * the call (GRAPHNODE_CREATED arrives on this thread inside the real
 * call), which tie the kernels of a graph launch back to the call.
 * Sub-layer 1 of the layer (tests/layers): it calls only state.c. */
#include "core/base.h"
#include "cupti_internal.h"

typedef struct node_state {
    int collecting; /* graph nodes created now belong to this call */
    int n_nodes;
    uint64_t nodes[FC_NODES_PER_GEMM];
} node_state;

static FC_TLS node_state ns;
static fc_spin cap_lock;
static int capture_count;   /* captures in progress (cap_lock) */
static int cupti_callbacks; /* CUPTI's callbacks keep the count (cap_lock) */
static int unseen;          /* captures began before CUPTI listened (cap_lock) */

void fc_capture_collect(int on)
{
    ns.collecting = on;
    ns.n_nodes = 0;
}

int fc_capture_nodes(const uint64_t **nodes)
{
    *nodes = ns.nodes;
    return ns.n_nodes;
}

void fc_capture_nodes_taken(void)
{
    ns.n_nodes = 0;
}

void fc_capture_note_node(uint64_t node_id)
{
    if (node_id != 0 && ns.collecting && ns.n_nodes < FC_NODES_PER_GEMM)
        ns.nodes[ns.n_nodes++] = node_id;
}

void fc_capture_began(int cupti)
{
    fc_spin_lock(&cap_lock);
    if (cupti)
        cupti_callbacks = 1;
    if (cupti || !cupti_callbacks) {
        capture_count++;
        fc_cupti_hot_set(FC_CUPTI_CAPTURE, 1);
    }
    fc_spin_unlock(&cap_lock);
}

void fc_capture_ended(int cupti)
{
    fc_spin_lock(&cap_lock);
    if ((cupti || !cupti_callbacks) && capture_count > 0 && --capture_count == 0 && !unseen)
        fc_cupti_hot_set(FC_CUPTI_CAPTURE, 0);
    fc_spin_unlock(&cap_lock);
}

/* After the call that found CUPTI asked about its stream. Captured: the
 * capture began before CUPTI listened, and others may be in progress that
 * no callback will announce, so from now on every hooked call asks the
 * driver (a cost, in this case only) and none of them is counted as
 * executed. Not captured: the flag goes back to what the count says. */
void fc_capture_settle(int captured)
{
    fc_spin_lock(&cap_lock);
    if (captured)
        unseen = 1;
    fc_cupti_hot_set(FC_CUPTI_CAPTURE, unseen || capture_count > 0);
    fc_spin_unlock(&cap_lock);
}

int fc_capture_runtime_counts(void)
{
    fc_spin_lock(&cap_lock);
    int ours = !cupti_callbacks;
    fc_spin_unlock(&cap_lock);
    return ours;
}

void fc_capture_reset(void)
{
    cap_lock.v = 0;
    capture_count = 0;
    unseen = 0;
    cupti_callbacks = 0;
    ns.collecting = 0;
    ns.n_nodes = 0;
}
