/* SPDX-License-Identifier: Apache-2.0 */
/* live_attention.c - " attn N%" on the live line (live_attention.h). The
 * iteration keeps its attention FLOPs beyond the model convention (xs),
 * not its attention FLOPs; the table's backward shapes give the head dims
 * that turn one into the other exactly. Runs where the live line does (the
 * drainer thread, after a drain): no allocation. */
#include "live_attention.h"

#include <stdio.h>

#include "count/attn_table.h"

char *fc_live_attn_share(fc_u128 fwd, fc_u128 bwd, fc_u128 rec, fc_u128 xs, int64_t d,
                         int64_t dv, int bound, char *out, size_t size)
{
    out[0] = '\0';
    if (xs == 0)
        return out;
    fc_u128 all = fc_u128_sat_add(fwd, fc_u128_sat_add(bwd, rec));
    if (d <= 0 || dv <= 0 || xs % (fc_u128)d != 0 || all == 0 || (bound && rec)) {
        snprintf(out, size, " attn n/a");
        return out;
    }
    fc_u128 f = fc_u128_sat_mul(xs / (fc_u128)d, (fc_u128)(d + dv));
    fc_u128 a = fc_u128_sat_add(fc_u128_sat_mul(3, f), xs); /* forward, backward 2f + xs */
    snprintf(out, size, " attn %s%.1f%%", rec ? ">=" : bound ? "<=" : "",
             100.0 * fc_u128_to_double(a) / fc_u128_to_double(all));
    return out;
}

typedef struct dims {
    int64_t d, dv;
    int mixed, bound;
} dims;

static void backward_dims(const fc_attn_view *v, void *ctx)
{
    dims *x = ctx;
    if (v->calls == 0)
        return;
    x->bound |= (v->key.flags & FC_ATTN_BOUND) != 0;
    if (v->key.dir != FC_ATTN_BWD)
        return;
    if (v->key.b < 0 || (x->d && (v->key.d != x->d || v->key.d_v != x->dv))) {
        x->mixed = 1; /* an overflow bucket (no shape), or a second pair of head dims */
        return;
    }
    x->d = v->key.d, x->dv = v->key.d_v;
}

char *fc_live_attention(const fc_iteration *it, char *out, size_t size)
{
    fc_attn_totals t;
    out[0] = '\0';
    fc_attn_table_totals(&t);
    if (t.calls == 0)
        return out;
    dims x = {0, 0, 0, 0};
    fc_attn_table_foreach(backward_dims, &x);
    return fc_live_attn_share(it->fwd, it->bwd, it->rec, it->xs, x.mixed ? 0 : x.d, x.dv, x.bound,
                              out, size);
}
