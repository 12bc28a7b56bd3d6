/* SPDX-License-Identifier: Apache-2.0 */
/* weights.c - the detector's weight table (weights.h): a bounded open
 * addressing table with a trust score per address, and the changes the
 * segment being labelled makes to it, kept so that a segment repeating it
 * can make them again without being labelled (repeat.c, fc_repeat_take).
 * Everything is bounded; nothing allocates. The table is mapped at the
 * process's first GEMM and its pages become resident as they are used. */
#include "weights.h"

#include <string.h>

#include "core/lazymem.h"
#include "irec.h"
#include "phase.h"

#define W_CAP (1u << 16)   /* weight candidates */
#define FWD_CAP FC_SEG_CAP /* weight uses of one forward kept for a repeat */

/* What a segment did to an entry (wop.ops). */
#define WOP_COUNT 0x01u  /* its first use agreed with the key: count + 1 */
#define WOP_DEC 0x02u    /* its first use disagreed, count >= 2: count - 1 */
#define WOP_RESET 0x04u  /* its first use disagreed, count < 2: key = wop.key, count = 1 */
#define WOP_LAST 0x08u   /* last_seg = the segment */
#define WOP_NOTW 0x10u   /* a GEMM wrote it: notweight */
#define WOP_UP 0x20u     /* judged a weight: trust + 1 (at most 3), judged_seg = the segment */
#define WOP_DOWN 0x40u   /* judged no weight: trust - 1 (at least -3) */
#define WOP_BWD 0x80u    /* bwd_seg = the segment */

int fc_weights_bootstrap = 1;

/* One entry a recorded segment changed, and how. */
typedef struct wop {
    fc_went *w;
    uint32_t ops, key;
} wop;

/* How an entry a recorded segment read stood before the segment changed
 * it: what labelling reads of it (count only as 0, 1, 2 or more). */
typedef struct wread {
    const fc_went *w;
    uint32_t key;
    int8_t trust;
    uint8_t notweight, count;
} wread;

/* What labelling one segment read and changed. */
typedef struct wslot {
    uint32_t seg; /* the segment recorded, 0: none */
    int valid;    /* it can be repeated ... */
    int boot;     /* ... while fc_weights_bootstrap is what it was then */
    uint32_t n_touched, n_read, n_fwd;
} wslot;

typedef struct wmem {
    fc_went wtab[W_CAP];
    uint32_t wlist[W_CAP];                       /* slots ever used, in the order taken */
    wop touched[FC_WSLOTS][W_CAP];               /* entries each recorded segment changed */
    wread read[FC_WSLOTS][W_CAP];                /* ... and read, as they stood */
    const fc_went *fwd_uses[FC_WSLOTS][FWD_CAP]; /* weights its forward calls used */
    fc_went expect[W_CAP];                       /* a check: entries as a repeat would leave them */
    const fc_went *expect_of[W_CAP];             /* ... which entry */
    const fc_went *check_fwd[FWD_CAP];           /* ... and the forward's weights */
} wmem;
static wmem *mem;
static uint32_t n_wlist;
static uint32_t newest_seg; /* the last segment learned */
static wslot slots[FC_WSLOTS];
static uint32_t n_expect, n_check_fwd; /* a check's entries and forward uses */
static int rec = -1;    /* the slot recording, -1: none */
static int rec_broken;  /* ... and its segment cannot be repeated */

int fc_weights_init(void)
{
    if (mem == NULL && (mem = fc_mem_map(sizeof *mem)) == NULL)
        return -1;
    return 0;
}

void fc_weights_reset(void)
{
    fc_weights_bootstrap = 1;
    newest_seg = 0;
    n_wlist = 0;
    memset(slots, 0, sizeof slots);
    rec = -1;
    rec_broken = 0;
    if (mem != NULL)
        fc_mem_clear(mem, sizeof *mem);
}

static void invalidate_all(void)
{
    for (int j = 0; j < FC_WSLOTS; j++)
        slots[j].valid = 0;
    rec_broken = 1;
}

static uint8_t count_class(uint16_t count)
{
    return (uint8_t)(count < 3 ? count : 3);
}

/* Notes how w stood when the recorded segment first read it. */
static void note_read(fc_went *w)
{
    wslot *sl = &slots[rec];
    if (w->read_seg == sl->seg)
        return;
    w->read_seg = sl->seg;
    if (sl->n_read == W_CAP) {
        rec_broken = 1;
        return;
    }
    mem->read[rec][sl->n_read++] =
        (wread){w, w->key, w->trust, w->notweight, count_class(w->count)};
}

fc_went *fc_weights_get(const void *p, int create)
{
    uint32_t i = fc_mix32((uint64_t)(uintptr_t)p);
    fc_went *victim = NULL;
    for (uint32_t probe = 0; probe < 16; probe++, i++) {
        fc_went *w = &mem->wtab[i & (W_CAP - 1)];
        if (w->addr == p) {
            if (rec >= 0)
                note_read(w);
            return w;
        }
        if (w->addr == NULL) {
            victim = victim ? victim : w;
            break;
        }
        if (victim == NULL && w->count < 2 && w->last_seg + 4 <= newest_seg)
            victim = w; /* a one-off address seen long ago */
    }
    if (!create || victim == NULL)
        return NULL;
    if (victim->addr == NULL)
        mem->wlist[n_wlist++] = (uint32_t)(victim - mem->wtab);
    memset(victim, 0, sizeof *victim);
    victim->addr = p;
    /* an address found where none was, or an entry taken over: what the
     * recorded segments read is gone */
    invalidate_all();
    return victim;
}

const fc_went *fc_weights_of(const void *p, uint32_t key)
{
    const fc_went *w = p ? fc_weights_get(p, 0) : NULL;
    if (w == NULL || w->notweight || w->count < 2 || FC_MAT(w->key) != FC_MAT(key))
        return NULL;
    if (w->trust < 0 || (w->trust == 0 && !fc_weights_bootstrap))
        return NULL;
    return w;
}

uint64_t fc_weights_count(void)
{
    uint64_t n = 0;
    for (uint32_t j = 0; j < n_wlist; j++) {
        const fc_went *w = &mem->wtab[mem->wlist[j]];
        if (w->addr && !w->notweight && w->count >= 2 && w->trust > 0)
            n++;
    }
    return n;
}

/* ---- what the segment being labelled reads and changes ---- */

void fc_weights_segment_begin(uint32_t seg, int slot)
{
    newest_seg = seg;
    /* a segment learned before the one recording was labelled: the changes
     * of the two interleave, neither can be repeated */
    rec_broken = rec >= 0;
    rec = slot;
    slots[slot] = (wslot){.seg = seg, .boot = fc_weights_bootstrap};
}

void fc_weights_changed(void)
{
    invalidate_all(); /* the recorded segments were labelled without it */
}

/* Notes that the recorded segment did op to w (key: for WOP_RESET). */
static void did(fc_went *w, unsigned op, uint32_t key)
{
    if (rec < 0)
        return;
    wslot *sl = &slots[rec];
    if (w->op_seg != sl->seg) {
        if (sl->n_touched == W_CAP) {
            rec_broken = 1;
            return;
        }
        w->op_seg = sl->seg;
        w->op_at = sl->n_touched;
        mem->touched[rec][sl->n_touched++] = (wop){w, 0, 0};
    }
    wop *o = &mem->touched[rec][w->op_at];
    o->ops |= op;
    if (op == WOP_RESET)
        o->key = key;
}

void fc_weights_written(fc_went *w)
{
    if (!w->notweight)
        did(w, WOP_NOTW, 0);
    w->notweight = 1;
}

void fc_weights_first_use(fc_went *w, uint32_t key, uint32_t seg)
{
    if (w->notweight || w->last_seg == seg)
        return;
    if (w->count == 0 || w->key == key) {
        if (w->count == 0)
            did(w, WOP_RESET, key); /* key = key, count = 1 */
        else
            did(w, WOP_COUNT, 0);
        w->key = key;
        if (w->count < 0xffff)
            w->count++;
    } else if (w->count >= 2) {
        w->count--; /* a weight keeps its role through one odd segment */
        did(w, WOP_DEC, 0);
    } else {
        w->key = key;
        w->count = 1;
        did(w, WOP_RESET, key);
    }
    w->last_seg = seg;
    did(w, WOP_LAST, 0);
}

void fc_weights_judge(const void *p, uint32_t key, int fresh, uint32_t i, uint32_t t_bwd,
                      uint32_t seg)
{
    fc_went *w = fresh ? fc_weights_get(p, 0) : NULL;
    if (w == NULL || w->notweight || w->count < 2 || FC_MAT(w->key) != FC_MAT(key))
        return;
    if (i >= t_bwd) {
        w->trust = (int8_t)(w->trust > -3 ? w->trust - 1 : -3);
        did(w, WOP_DOWN, 0);
    } else if (w->judged_seg != seg) {
        w->judged_seg = seg; /* agreement counts once a segment */
        w->trust = (int8_t)(w->trust < 3 ? w->trust + 1 : 3);
        did(w, WOP_UP, 0);
    }
}

void fc_weights_bwd_use(fc_went *w, uint32_t seg)
{
    w->bwd_seg = seg;
    did(w, WOP_BWD, 0);
}

void fc_weights_fwd_use(const fc_went *w)
{
    if (rec < 0)
        return;
    wslot *sl = &slots[rec];
    if (sl->n_fwd == FWD_CAP)
        rec_broken = 1;
    else
        mem->fwd_uses[rec][sl->n_fwd++] = w;
}

int fc_weights_segment_end(uint32_t seg)
{
    int ok = rec >= 0 && slots[rec].seg == seg && !rec_broken;
    if (rec >= 0)
        slots[rec].valid = ok;
    rec = -1;
    return ok;
}

int fc_weights_slot_valid(int slot)
{
    if (!slots[slot].valid || slots[slot].boot != fc_weights_bootstrap)
        return 0;
    /* every entry it read stands as it did then */
    const wslot *sl = &slots[slot];
    for (uint32_t j = 0; j < sl->n_read; j++) {
        const wread *r = &mem->read[slot][j];
        const fc_went *w = r->w;
        if (w->trust != r->trust || w->key != r->key || w->notweight != r->notweight ||
            count_class(w->count) != r->count)
            return 0;
    }
    return 1;
}

/* What the changes in wop o do to entry w, made by segment seg. */
static void apply(fc_went *w, const wop *o, uint32_t seg)
{
    if (o->ops & WOP_RESET)
        w->key = o->key, w->count = 1;
    if ((o->ops & WOP_COUNT) && w->count < 0xffff)
        w->count++;
    if (o->ops & WOP_DEC)
        w->count--;
    if (o->ops & WOP_LAST)
        w->last_seg = seg;
    if (o->ops & WOP_NOTW)
        w->notweight = 1;
    if (o->ops & WOP_UP) {
        w->judged_seg = seg;
        w->trust = (int8_t)(w->trust < 3 ? w->trust + 1 : 3);
    }
    if (o->ops & WOP_DOWN)
        w->trust = (int8_t)(w->trust > -3 ? w->trust - 1 : -3);
    if (o->ops & WOP_BWD)
        w->bwd_seg = seg;
}

void fc_weights_check_begin(int slot, uint32_t seg)
{
    const wslot *sl = &slots[slot];
    n_expect = sl->n_touched;
    for (uint32_t j = 0; j < n_expect; j++) {
        const wop *o = &mem->touched[slot][j];
        mem->expect[j] = *o->w;
        mem->expect_of[j] = o->w;
        apply(&mem->expect[j], o, seg);
    }
    n_check_fwd = sl->n_fwd;
    memcpy(mem->check_fwd, mem->fwd_uses[slot], n_check_fwd * sizeof *mem->check_fwd);
}

uint64_t fc_weights_check_redone(int group_open, uint32_t group_first)
{
    uint64_t redone = 0;
    for (uint32_t j = 0; group_open && j < n_check_fwd; j++)
        redone += mem->check_fwd[j]->bwd_seg >= group_first;
    return redone;
}

uint64_t fc_weights_check_end(int slot)
{
    uint64_t bad = slots[slot].n_touched != n_expect; /* it changed others, or fewer */
    for (uint32_t j = 0; j < n_expect; j++) {
        const fc_went *w = mem->expect_of[j], *e = &mem->expect[j];
        bad += w->addr != e->addr || w->key != e->key || w->count != e->count ||
               w->notweight != e->notweight || w->trust != e->trust || w->last_seg != e->last_seg ||
               w->judged_seg != e->judged_seg || w->bwd_seg != e->bwd_seg;
    }
    return bad;
}

uint64_t fc_weights_repeat(int slot, uint32_t seg, int group_open, uint32_t group_first)
{
    const wslot *sl = &slots[slot];
    uint64_t redone = 0;
    /* the forward's uses come before any backward use of the segment */
    for (uint32_t j = 0; group_open && j < sl->n_fwd; j++)
        redone += mem->fwd_uses[slot][j]->bwd_seg >= group_first;
    newest_seg = seg;
    for (uint32_t j = 0; j < sl->n_touched; j++)
        apply(mem->touched[slot][j].w, &mem->touched[slot][j], seg);
    return redone;
}
