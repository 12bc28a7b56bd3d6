/* SPDX-License-Identifier: Apache-2.0 */
/* graph_items.c - the pool of what CUDA graphs replay (graph_items.h).
 *
 * Items are never freed: lists share them, and a launch reads them
 * without the lock. Appending to a list whose tail another list already
 * extended (a snapshot's graph grew) copies the list first. A replay
 * counts each item through the layers below as if the program had issued
 * it again on the launch stream: a GEMM through the ring (calls, FLOPs,
 * shape, operand addresses: a replay uses the captured memory), an
 * attention call through fc_attn_record, an uncounted kernel in its named
 * entry, an optimizer marker through fc_ring_mark - so the iteration
 * detector sees a graphed training loop as it sees an eager one.
 * Sub-layer 1 of the cupti layer (tests/layers). */
#include "graph_items.h"

#include <string.h>

#include "core/diag.h"
#include "core/lazymem.h"
#include "count/uncounted.h"
#include "detect/irec.h"
#include "ring/hotpath.h"
#include "ring/ring.h"

#define POOL_CAP 65536u

/* POOL_CAP + 1 items, item 0 unused (0 means "none"); mapped at the first
 * item taken (8 MiB a process that captures no graph never maps), before
 * any list holds an index into it */
static fc_gitem *pool;
static uint32_t pool_used;
static int warned_pool;

static uint32_t pool_take(void)
{
    if (pool == NULL && (pool = fc_mem_map((POOL_CAP + 1) * sizeof *pool)) == NULL) {
        fc_warn_once(&warned_pool, "no memory for the CUDA graph item pool; calls captured "
                                   "into CUDA graphs are not counted at launch%s", "");
        return 0;
    }
    if (pool_used >= POOL_CAP) {
        fc_warn_once(&warned_pool,
                     "more than %u calls captured into CUDA graphs; later ones "
                     "are not counted at launch",
                     POOL_CAP);
        return 0;
    }
    return ++pool_used;
}

static int list_copy(fc_glist *l)
{
    fc_glist n = *l;
    n.head = n.tail = n.count = 0;
    uint32_t idx = l->head;
    for (uint32_t i = 0; i < l->count; i++) {
        uint32_t e = pool_take();
        if (e == 0)
            return -1;
        pool[e] = pool[idx];
        pool[e].next = 0;
        if (n.count == 0)
            n.head = e;
        else
            pool[n.tail].next = e;
        n.tail = e;
        n.count++;
        idx = pool[idx].next;
    }
    *l = n;
    return 0;
}

uint32_t fc_glist_append(fc_glist *l, const fc_gitem *x)
{
    if (l->count > 0 && pool[l->tail].next != 0 && list_copy(l) != 0)
        return 0;
    uint32_t e = pool_take();
    if (e == 0)
        return 0;
    pool[e] = *x;
    pool[e].next = 0;
    pool[e].origin = e;
    pool[e].launched = 0;
    if (l->count == 0)
        l->head = e;
    else
        pool[l->tail].next = e;
    l->tail = e;
    l->count++;
    if (x->kind == FC_GI_GEMM) {
        l->gemms++;
        l->flops = fc_u128_sat_add(l->flops, x->flops);
    } else if (x->kind == FC_GI_ATTN) {
        l->attns++;
        l->attn_flops = fc_u128_sat_add(l->attn_flops, x->flops);
    }
    return e;
}

int fc_gitem_gemm(fc_gitem *x, const fc_gemm *g)
{
    int valid;
    fc_u128 flops = fc_gemm_flops(g, &valid);
    if (!valid)
        return -1;
    memset(x, 0, sizeof *x);
    x->kind = FC_GI_GEMM;
    x->u.g = *g;
    x->u.g.stream_handle = NULL;
    x->u.g.stream_kind = FC_STREAM_NONE;
    x->u.g.t = 0;
    x->flops = flops;
    x->key = fc_site_key(g);
    return 0;
}

int fc_gitem_other(fc_gitem *x, int kind, const fc_attn *a, uint32_t id)
{
    memset(x, 0, sizeof *x);
    x->kind = (uint8_t)kind;
    if (kind == FC_GI_ATTN) {
        fc_attn_flops f;
        if (a == NULL || fc_attn_flops_of(a, &f) != 0)
            return -1;
        x->u.a = *a;
        x->flops = f.executed;
    } else if (kind == FC_GI_UNCOUNTED) {
        x->u.unc = id;
    } else if (kind == FC_GI_MARK) {
        x->u.mark = (int)id;
    } else {
        return -1;
    }
    return 0;
}

static void replay(const fc_gitem *e, void *stream, uint64_t t)
{
    switch (e->kind) {
    case FC_GI_GEMM: {
        fc_gemm g = e->u.g;
        g.stream_handle = stream;
        g.stream_kind = FC_STREAM_DIRECT;
        g.t = t;
        fc_ring_count(&g, 1);
        break;
    }
    case FC_GI_ATTN:
        fc_attn_record(&e->u.a, stream, 1);
        break;
    case FC_GI_UNCOUNTED:
        fc_uncounted_count(e->u.unc, 1);
        break;
    default:
        fc_ring_mark(e->u.mark);
        break;
    }
}

void fc_glist_replay(const fc_glist *l, void *stream, uint64_t t)
{
    uint32_t idx = l->head;
    for (uint32_t i = 0; i < l->count && idx != 0; i++) {
        const fc_gitem *e = &pool[idx];
        replay(e, stream, t);
        __atomic_store_n(&pool[e->origin].launched, 1, __ATOMIC_RELAXED);
        idx = e->next;
    }
}

uint32_t fc_gitem_key(uint32_t idx)
{
    return idx != 0 && idx <= POOL_CAP ? pool[idx].key : 0;
}

void fc_gitems_never_launched(uint64_t *calls, fc_u128 *flops)
{
    *calls = 0;
    *flops = 0;
    for (uint32_t i = 1; i <= pool_used; i++)
        if (pool[i].origin == i && pool[i].kind == FC_GI_GEMM &&
            !__atomic_load_n(&pool[i].launched, __ATOMIC_RELAXED)) {
            (*calls)++;
            *flops = fc_u128_sat_add(*flops, pool[i].flops);
        }
}

uint32_t fc_gitems_used(void)
{
    return pool_used;
}

void fc_gitems_reset(void)
{
    pool_used = 0;
    warned_pool = 0;
}
