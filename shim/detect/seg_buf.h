/* SPDX-License-Identifier: Apache-2.0 */
/* seg_buf.h - the detector's record buffer (seg_buf.c): the GEMM stream's
 * records held while segments wait to be labelled, a ring of fc_segbuf_cap
 * records mapped at the first GEMM and doubled (up to FC_SEG_CAP) when
 * what waits would not fit. The one file the detector's others read
 * records from (segment.c fills it; phase.c, profile.c and threads.c read
 * it), so the folder has no circle of more than two files. */
#ifndef FC_SEG_BUF_H
#define FC_SEG_BUF_H

#include <stdint.h>

#include "irec.h"

extern fc_irec *fc_segbuf_rec; /* FC_SEG_CAP records mapped, the first fc_segbuf_cap used */
extern uint64_t fc_segbuf_cap; /* a power of two */

static inline fc_irec *fc_segbuf_at(uint64_t idx)
{
    return &fc_segbuf_rec[idx & (fc_segbuf_cap - 1)];
}

/* Maps the buffer once: 0, or -1 when nothing could be mapped. */
int fc_segbuf_map(void);
/* Doubles the ring holding records [tail, head): 1, or 0 when it is at
 * FC_SEG_CAP already. */
int fc_segbuf_grow(uint64_t tail, uint64_t head);
/* Clears what was used and goes back to the first size. */
void fc_segbuf_reset(void);

/* The record at buffer index idx. */
const fc_irec *fc_seg_rec(uint64_t idx);

#endif
