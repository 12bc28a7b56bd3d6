/* SPDX-License-Identifier: Apache-2.0 */
/* repeat.c - the slots of the segments labelled in full, and finding the
 * one a new segment repeats (repeat.h; method: docs/iterations.md, "Cost").
 * The label arrays are mapped at the process's first GEMM; their pages
 * become resident as they are used. */
#include "repeat.h"

#include <string.h>

#include "core/lazymem.h"
#include "weights.h"

/* Per slot: its segment's records (hash, length, cut or not), where its
 * backward started and what labelling found. */
static struct {
    uint64_t hash, len;
    uint8_t truncated;
    int64_t t_bwd;
    fc_seg_result res;
} slot[FC_WSLOTS];
static uint64_t used_at[FC_WSLOTS], uses; /* when each slot was used last, 0: never */
static int taken; /* the slot fc_repeat_take_slot gave last */

typedef struct repeat_mem {
    uint8_t cls[FC_WSLOTS][FC_SEG_CAP], weighted[FC_WSLOTS][FC_SEG_CAP];
    uint8_t check_cls[FC_SEG_CAP], check_weighted[FC_SEG_CAP]; /* a repeat's, to check */
} repeat_mem;
static repeat_mem *mem;

/* What the repeat being checked would give. */
static struct {
    int64_t t_bwd;
    fc_seg_result res;
} check;

int fc_repeat_init(void)
{
    if (mem == NULL && (mem = fc_mem_map(sizeof *mem)) == NULL)
        return -1;
    return 0;
}

void fc_repeat_reset(void)
{
    memset(slot, 0, sizeof slot);
    memset(used_at, 0, sizeof used_at);
    uses = 0;
    taken = 0;
    if (mem != NULL)
        fc_mem_clear(mem, sizeof *mem);
}

int fc_repeat_take_slot(void)
{
    int j = 0;
    for (int k = 1; k < FC_WSLOTS; k++)
        if (used_at[k] < used_at[j])
            j = k;
    return taken = j;
}

uint8_t *fc_repeat_classes(int j)
{
    return mem->cls[j];
}

uint8_t *fc_repeat_weighted(int j)
{
    return mem->weighted[j];
}

void fc_repeat_labelled(int j, const fc_pend *s, int64_t t_bwd, const fc_seg_result *res)
{
    int ok = fc_weights_segment_end(s->id);
    if (ok) {
        slot[j].hash = s->hash;
        slot[j].len = s->end - s->start;
        slot[j].truncated = s->truncated;
        slot[j].t_bwd = t_bwd;
        slot[j].res = *res;
    }
    used_at[j] = ok ? ++uses : 0;
}

int fc_repeat_find(const fc_pend *s)
{
    for (int j = 0; j < FC_WSLOTS; j++)
        if (slot[j].hash == s->hash && slot[j].len == s->end - s->start &&
            slot[j].truncated == s->truncated && fc_weights_slot_valid(j))
            return j;
    return -1;
}

int64_t fc_repeat_take(int j, const fc_pend *s, const fc_phase_ctx *ctx, fc_seg_result *res)
{
    *res = slot[j].res;
    res->fwd_redone = fc_weights_repeat(j, s->id, ctx->group_open, ctx->group_first);
    used_at[j] = ++uses;
    return slot[j].t_bwd;
}

/* ---- checking a repeat against labelling in full ---- */

void fc_repeat_check_begin(const fc_pend *s)
{
    int j = s->check_of;
    uint64_t n = s->end - s->start;
    memcpy(mem->check_cls, mem->cls[j], n);
    memcpy(mem->check_weighted, mem->weighted[j], n);
    check.t_bwd = slot[j].t_bwd;
    check.res = slot[j].res;
    fc_weights_check_begin(j, s->id);
}

uint64_t fc_repeat_check_redone(const fc_phase_ctx *ctx)
{
    return fc_weights_check_redone(ctx->group_open, ctx->group_first);
}

uint64_t fc_repeat_check_end(const fc_pend *s, int64_t t_bwd, const fc_seg_result *res,
                             uint64_t redone)
{
    int j = taken;
    uint64_t n = s->end - s->start, bad = 0;
    const fc_seg_result *e = &check.res;
    bad += t_bwd != check.t_bwd;
    bad += res->has_bwd != e->has_bwd || res->declared != e->declared || res->unsure != e->unsure ||
           res->anchor_bwd != e->anchor_bwd || res->fwd_redone != redone;
    bad += memcmp(mem->cls[j], mem->check_cls, n) != 0;
    bad += memcmp(mem->weighted[j], mem->check_weighted, n) != 0;
    return bad + fc_weights_check_end(j);
}
