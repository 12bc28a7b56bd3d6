/* SPDX-License-Identifier: Apache-2.0 */
/* desc_table.c - the table of live cuDNN backend descriptors, the pool of
 * works (what a graph's plans count) and the pool of variant-pack records.
 *
 * One block of memory mapped at the first descriptor (core/lazymem.h:
 * pages become resident only when written), laid out as fixed arrays:
 * entries taken from a free list (so the resident part follows the number
 * of live descriptors, not the capacity), an open-addressing index from
 * descriptor address to entry (linear probing, deletion by backward shift,
 * so no tombstones pile up however many descriptors come and go), works
 * and packs with free lists of their own. A full table takes nothing more:
 * the descriptor is not tracked, counted in fc_ct_untracked, and a graph
 * naming it later is reported unresolved with that reason.
 *
 * One spin lock guards it all, held for table work only - never across a
 * call into cuDNN or out of the layer. fork: the prepare handler takes the
 * lock and both sides release it, so a child never inherits it held by a
 * thread that is not there (the handlers are registered when the table is
 * first mapped, from whichever hook comes first). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "core/base.h"
#include "core/lazymem.h"
#include "cudnn_internal.h"

#define INDEX_MASK (FC_CUDNN_INDEX - 1u)
_Static_assert((FC_CUDNN_INDEX & INDEX_MASK) == 0, "the index is a power of two");

typedef struct table {
    fc_cent ent[FC_CUDNN_CAPACITY];
    uint32_t index[FC_CUDNN_INDEX]; /* entry index + 1; 0 empty */
    fc_cwork work[FC_CUDNN_WORKS];
    fc_cvp vp[FC_CUDNN_VPACKS];
    uint32_t ent_free, ent_hw, live; /* free list head (index + 1), high water, in use */
    uint32_t work_free, work_hw;
    uint32_t vp_free, vp_hw;
} table;

static void *_Atomic mem;
static table *T;
static atomic_int lock_word;
static atomic_int forks_registered;
static _Atomic uint64_t untracked;
static _Atomic uint32_t generation; /* bumped when the uncounted ids go stale */

uint32_t fc_ct_generation(void)
{
    return atomic_load_explicit(&generation, memory_order_relaxed);
}

void fc_ct_lock(void)
{
    for (;;) {
        if (!atomic_exchange_explicit(&lock_word, 1, memory_order_acquire))
            return;
        for (int i = 0; atomic_load_explicit(&lock_word, memory_order_relaxed); i++)
            if (i > 64)
                sched_yield(); /* a holder preempted mid-update */
    }
}

void fc_ct_unlock(void)
{
    atomic_store_explicit(&lock_word, 0, memory_order_release);
}

static void fork_prepare(void)
{
    fc_ct_lock();
}

static void fork_release(void)
{
    fc_ct_unlock();
}

/* The child keeps the table (its descriptors are still the process's),
 * but the report tables below were emptied: uncounted ids are stale. */
static void fork_child(void)
{
    atomic_fetch_add_explicit(&generation, 1, memory_order_relaxed);
    fc_ct_unlock();
}

int fc_ct_ready(void)
{
    if (FC_LIKELY(__atomic_load_n(&T, __ATOMIC_ACQUIRE) != NULL))
        return 0;
    table *t = fc_mem_map_once(&mem, sizeof(table));
    if (t == NULL)
        return -1;
    /* the fork handlers before the table is used (a thread that sees T set
     * finds them registered) */
    if (!atomic_exchange(&forks_registered, 1))
        (void)pthread_atfork(fork_prepare, fork_release, fork_child);
    table *none = NULL; /* every thread maps the same block: the first sets T, once */
    __atomic_compare_exchange_n(&T, &none, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    return 0;
}

static uint32_t home_of(const void *key)
{
    uint64_t h = ((uint64_t)(uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32) & INDEX_MASK;
}

/* The index slot holding key, or the empty slot where it would go. */
static uint32_t slot_of(const void *key)
{
    uint32_t i = home_of(key);
    while (T->index[i] != 0 && T->ent[T->index[i] - 1].key != key)
        i = (i + 1) & INDEX_MASK;
    return i;
}

fc_cent *fc_ct_find(const void *key)
{
    if (T == NULL || key == NULL)
        return NULL;
    uint32_t s = slot_of(key);
    return T->index[s] ? &T->ent[T->index[s] - 1] : NULL;
}

static int is_link(int type)
{
    return type == FC_CD_OPERATIONGRAPH || type == FC_CD_ENGINEHEUR || type == FC_CD_ENGINE ||
           type == FC_CD_ENGINECFG || type == FC_CD_EXECUTION_PLAN;
}

/* Backward-shift deletion: later members of the probe run move up into
 * the hole when their home slot does not lie after it. */
static void index_delete(uint32_t i)
{
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & INDEX_MASK;
        if (T->index[j] == 0)
            break;
        uint32_t k = home_of(T->ent[T->index[j] - 1].key);
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            T->index[i] = T->index[j];
            i = j;
        }
    }
    T->index[i] = 0;
}

void fc_ct_remove(const void *key)
{
    if (T == NULL || key == NULL)
        return;
    uint32_t s = slot_of(key);
    if (T->index[s] == 0)
        return;
    uint32_t idx = T->index[s] - 1;
    fc_cent *e = &T->ent[idx];
    if (is_link(e->type))
        fc_ct_work_unref(e->u.link.work);
    else if (e->type == FC_CD_OP_SDPA_FWD)
        fc_ct_work_unref(e->u.sdpa.sub_work);
    else if (e->type == FC_CD_VARIANT_PACK)
        fc_ct_vp_free(e->u.vpack.vp);
    memset(e, 0, sizeof *e);
    e->next_free = T->ent_free;
    T->ent_free = idx + 1;
    T->live--;
    index_delete(s);
}

fc_cent *fc_ct_insert(const void *key, int type)
{
    if (T == NULL || key == NULL)
        return NULL;
    fc_ct_remove(key);
    uint32_t idx;
    if (T->ent_free != 0) {
        idx = T->ent_free - 1;
        T->ent_free = T->ent[idx].next_free;
    } else if (T->ent_hw < FC_CUDNN_CAPACITY) {
        idx = T->ent_hw++;
    } else {
        atomic_fetch_add_explicit(&untracked, 1, memory_order_relaxed);
        return NULL;
    }
    fc_cent *e = &T->ent[idx];
    memset(e, 0, sizeof *e);
    e->key = key;
    e->type = (uint16_t)(type < 0 || type > UINT16_MAX ? UINT16_MAX : type);
    T->index[slot_of(key)] = idx + 1;
    T->live++;
    return e;
}

fc_cwork *fc_ct_work(uint32_t idx1)
{
    return T != NULL && idx1 >= 1 && idx1 <= FC_CUDNN_WORKS && T->work[idx1 - 1].refs
               ? &T->work[idx1 - 1]
               : NULL;
}

uint32_t fc_ct_work_new(void)
{
    uint32_t idx;
    if (T->work_free != 0) {
        idx = T->work_free - 1;
        T->work_free = T->work[idx].next_free;
    } else if (T->work_hw < FC_CUDNN_WORKS) {
        idx = T->work_hw++;
    } else {
        return 0;
    }
    memset(&T->work[idx], 0, sizeof T->work[idx]);
    T->work[idx].refs = 1;
    return idx + 1;
}

void fc_ct_work_ref(uint32_t idx1)
{
    fc_cwork *w = fc_ct_work(idx1);
    if (w != NULL)
        w->refs++;
}

void fc_ct_work_unref(uint32_t idx1)
{
    fc_cwork *w = fc_ct_work(idx1);
    if (w == NULL || --w->refs != 0)
        return;
    w->next_free = T->work_free;
    T->work_free = idx1;
}

fc_cvp *fc_ct_vp(uint32_t idx1)
{
    return T != NULL && idx1 >= 1 && idx1 <= FC_CUDNN_VPACKS && T->vp[idx1 - 1].used
               ? &T->vp[idx1 - 1]
               : NULL;
}

uint32_t fc_ct_vp_new(void)
{
    uint32_t idx;
    if (T->vp_free != 0) {
        idx = T->vp_free - 1;
        T->vp_free = T->vp[idx].n_pairs; /* a free record's n_pairs links the list */
    } else if (T->vp_hw < FC_CUDNN_VPACKS) {
        idx = T->vp_hw++;
    } else {
        return 0;
    }
    fc_cvp *v = &T->vp[idx];
    /* the arrays are read only up to the counts, so only the head is cleared */
    v->n_pairs = v->n_ptrs = v->n_over = 0;
    v->over_shapes = 0;
    v->used = 1;
    return idx + 1;
}

void fc_ct_vp_free(uint32_t idx1)
{
    if (fc_ct_vp(idx1) == NULL)
        return;
    T->vp[idx1 - 1].used = 0;
    T->vp[idx1 - 1].n_pairs = T->vp_free;
    T->vp_free = idx1;
}

uint64_t fc_ct_untracked(void)
{
    return atomic_load_explicit(&untracked, memory_order_relaxed);
}

uint32_t fc_cudnn_live(void)
{
    if (fc_ct_ready() != 0)
        return 0;
    fc_ct_lock();
    uint32_t n = T->live;
    fc_ct_unlock();
    return n;
}

uint64_t fc_cudnn_untracked(void)
{
    return fc_ct_untracked();
}

void fc_cudnn_reset(void)
{
    if (fc_ct_ready() != 0)
        return;
    fc_ct_lock();
    fc_mem_clear(T, sizeof(table));
    atomic_store(&untracked, 0);
    /* the tests reset the uncounted table with it */
    atomic_fetch_add_explicit(&generation, 1, memory_order_relaxed);
    fc_ct_unlock();
}
