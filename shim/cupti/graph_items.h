/* SPDX-License-Identifier: Apache-2.0 */
/* graph_items.h - what a CUDA graph replays (graph_items.c): the GEMMs,
 * decoded attention launches, named uncounted kernels and optimizer
 * markers recorded against a capture or added to a graph, in order, as
 * chains in one static pool. The caller (graphs.c) holds its lock around
 * every call except fc_glist_replay, which reads entries that never
 * change once written. */
#ifndef FC_GRAPH_ITEMS_H
#define FC_GRAPH_ITEMS_H

#include <stdint.h>

#include "attention.h"
#include "cupti_api.h"
#include "core/gemm.h"
#include "u128.h"

enum { FC_GI_GEMM = 0, FC_GI_ATTN, FC_GI_UNCOUNTED, FC_GI_MARK };

typedef struct fc_gitem {
    union {
        fc_gemm g; /* as the hook described it; stream fields cleared */
        fc_attn a; /* as the launch layer decoded it */
        uint32_t unc; /* count/uncounted.h id */
        int mark;     /* enum fc_irec_kind */
    } u;
    fc_u128 flops;    /* GEMM: its FLOPs; attention: executed FLOPs */
    uint32_t next;    /* next item of its chain; 0 none */
    uint32_t origin;  /* the captured item this one copies (itself when captured) */
    uint32_t key;     /* GEMM: fc_site_key(&g) */
    uint8_t kind;     /* FC_GI_* */
    uint8_t launched; /* set (on origin) by the first launch that replays it */
} fc_gitem;

/* A chain read for `count` items, so a snapshot (an exec's) stays what it
 * was when its graph later grows. */
typedef struct fc_glist {
    uint32_t head, tail, count; /* items of every kind */
    uint32_t gemms, attns;
    fc_u128 flops, attn_flops;
} fc_glist;

/* The item of a GEMM (-1: its shape is not valid), of an attention call
 * (kind FC_GI_ATTN, a; -1 when a is not a countable shape), of an
 * uncounted kernel (FC_GI_UNCOUNTED, id) or of a marker (FC_GI_MARK, id:
 * the marker's kind). */
int fc_gitem_gemm(fc_gitem *x, const fc_gemm *g);
int fc_gitem_other(fc_gitem *x, int kind, const fc_attn *a, uint32_t id);
/* Appends a copy of x to l (copying l's chain first when another list
 * extended its tail); the new item's index, or 0 when the pool is full. */
uint32_t fc_glist_append(fc_glist *l, const fc_gitem *x);
/* Each item of l as if issued again on stream (t: the launch's stamp). */
void fc_glist_replay(const fc_glist *l, void *stream, uint64_t t);
/* The shape key of item idx (0 none). */
uint32_t fc_gitem_key(uint32_t idx);
/* GEMM items captured or added and never replayed. */
void fc_gitems_never_launched(uint64_t *calls, fc_u128 *flops);
/* Items in use (a fork child's reset clears only what was used). */
uint32_t fc_gitems_used(void);
void fc_gitems_reset(void);

#endif
