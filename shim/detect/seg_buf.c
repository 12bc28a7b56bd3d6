/* SPDX-License-Identifier: Apache-2.0 */
/* seg_buf.c - the detector's record buffer (seg_buf.h): mapped at the
 * process's first GEMM and used as a ring, doubled when what waits would
 * not fit, so its pages grow with the longest stretch of calls held, not
 * with how many calls went through. Nothing allocates. */
#include "seg_buf.h"

#include "core/lazymem.h"
#include "phase.h"

#define SEG_MIN 1024u /* records of the buffer at first */

fc_irec *fc_segbuf_rec;
uint64_t fc_segbuf_cap = SEG_MIN;

int fc_segbuf_map(void)
{
    if (fc_segbuf_rec == NULL &&
        (fc_segbuf_rec = fc_mem_map(FC_SEG_CAP * sizeof *fc_segbuf_rec)) == NULL)
        return -1;
    return 0;
}

/* A record at index x moves from x mod cap to x mod 2 cap, the same slot
 * or one in the new half, which nothing else uses. */
int fc_segbuf_grow(uint64_t tail, uint64_t head)
{
    if (fc_segbuf_cap >= FC_SEG_CAP)
        return 0;
    uint64_t cap = fc_segbuf_cap * 2;
    for (uint64_t x = tail; x < head; x++)
        if ((x & (cap - 1)) != (x & (fc_segbuf_cap - 1)))
            fc_segbuf_rec[x & (cap - 1)] = fc_segbuf_rec[x & (fc_segbuf_cap - 1)];
    fc_segbuf_cap = cap;
    return 1;
}

void fc_segbuf_reset(void)
{
    fc_mem_clear(fc_segbuf_rec, fc_segbuf_cap * sizeof *fc_segbuf_rec);
    fc_segbuf_cap = SEG_MIN;
}

const fc_irec *fc_seg_rec(uint64_t idx)
{
    return fc_segbuf_at(idx);
}
