/* SPDX-License-Identifier: Apache-2.0 */
/* devread.c - a grouped call's placeholder resolved by the drain into one
 * counted record per group (devread.h, docs/moe.md). */
#include "devread.h"

#include <string.h>

#include "core/clock.h"
#include "count/counters.h"
#include "detect/segment.h"
#include "probe/devsizes.h"
#include "probe/grouped_log.h"

typedef struct group_ctx {
    const fc_crec *c;
    int ring;
    fc_grouped_acc load; /* the call's imbalance, for the iterations' (grouped_log.h) */
} group_ctx;

/* One group: counted as a GEMM of its own (batch 1) and pushed to the
 * detector with the call's time, thread and operands. */
static void one_group(void *ctx, int64_t m, int64_t n, int64_t k)
{
    group_ctx *x = ctx;
    fc_grouped_acc_add(&x->load, m, n, k, 1);
    const fc_crec *c = x->c;
    fc_gemm g = {.api = c->api,
                 .flags = c->flags,
                 .dtype = c->dtype,
                 .out_dtype = c->out_dtype,
                 .compute = c->compute,
                 .transa = c->transa,
                 .transb = c->transb,
                 .m = m,
                 .n = n,
                 .k = k,
                 .batch = 1,
                 .a = c->a,
                 .b = c->b,
                 .c = c->c};
    int valid;
    fc_u128 f = fc_gemm_flops(&g, &valid);
    if (!valid)
        return;
    uint32_t sig = fc_gemm_sig(&g);
    fc_counters_add_calls(&g, f, sig, 1);
    fc_irec ir;
    fc_irec_fill(&ir, &g, f > UINT64_MAX ? UINT64_MAX : (uint64_t)f, c->t, sig);
    ir.thread = (uint8_t)x->ring;
    fc_seg_push(&ir);
}

/* The iteration the call was in misses its FLOPs: the detector marks it. */
static void tell_missing(const fc_crec *c)
{
    fc_irec ir;
    memset(&ir, 0, sizeof ir);
    ir.kind = FC_IREC_LOST;
    ir.thread = FC_THREAD_NONE;
    ir.t = c->t;
    fc_seg_push(&ir);
}

/* The final report's poll: FC_DEVREAD_FINAL_MS in all, shared by every
 * placeholder still held (under the drain lock), so an exit never waits
 * longer whatever the GPU does. */
static uint64_t final_deadline;

static int final_wait_ms(void)
{
    uint64_t now = fc_ticks();
    if (final_deadline == 0)
        final_deadline = now + (uint64_t)(fc_ticks_per_second() * FC_DEVREAD_FINAL_MS / 1000.0);
    return now < final_deadline ? (int)(fc_ticks_seconds(final_deadline - now) * 1000.0) : 0;
}

int fc_devread_feed(const fc_crec *c, int ring, int mode)
{
    group_ctx x = {c, ring, {0, 0, 0}};
    int wait_ms = mode == FC_DEVREAD_WAIT ? final_wait_ms() : 0;
    int rc = fc_devsizes_resolve(c->m, wait_ms, one_group, &x);
    if (rc != 0) {
        if (rc < 0)
            tell_missing(c);
        else
            fc_grouped_log_add(c->t, &x.load);
        return 1;
    }
    double age = fc_ticks_seconds(fc_ticks() - c->t);
    if (mode == FC_DEVREAD_HOLD && age < FC_DEVREAD_HOLD_S)
        return 0;
    fc_devsizes_give_up(c->m);
    tell_missing(c);
    return 1;
}
