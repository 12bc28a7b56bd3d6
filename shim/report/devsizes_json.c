/* SPDX-License-Identifier: Apache-2.0 */
/* devsizes_json.c - an uncounted entry's "read_from_device" object: what
 * the opt-in read of its group sizes found (probe/devsizes.h, docs/moe.md).
 * Written only for entries whose sizes were asked for. */
#include "devsizes_json.h"

#include "probe/devsizes.h"

/* "host_bound": the FLOPs PyTorch's setup kernel's host values give
 * (launch/grouped_fill.h): "kind" upper_bound (a bound, never in the
 * totals) or exact (3D x 3D calls only), with the first call's reason. */
static void host_json(fc_jw *w, uint32_t id)
{
    fc_devsizes_host_view h;
    if (!fc_devsizes_host_get(id, &h))
        return;
    fc_jw_obj_begin(w, "host_bound");
    fc_jw_str(w, "kind", h.bound_calls > 0 ? "upper_bound" : "exact");
    fc_jw_u64(w, "calls", h.bound_calls + h.exact_calls);
    fc_jw_u64(w, "bound_calls", h.bound_calls);
    fc_jw_u128(w, "flops", ((fc_u128)h.flops_hi << 64) | h.flops_lo);
    fc_jw_str(w, "reason", h.why);
    fc_jw_obj_end(w);
}

void fc_devsizes_json(fc_jw *w, uint32_t id)
{
    host_json(w, id);
    fc_devsizes_view v;
    if (!fc_devsizes_get(id, &v))
        return;
    fc_jw_obj_begin(w, "read_from_device");
    fc_jw_u64(w, "calls", v.read_calls);
    fc_jw_u128(w, "flops", ((fc_u128)v.flops_hi << 64) | v.flops_lo);
    /* of calls: counted into the totals and iterations at their place, and
     * read only after the drain gave their place up (not counted) */
    fc_jw_u64(w, "counted_calls", v.counted_calls);
    fc_jw_u64(w, "late_calls", v.late_calls);
    fc_jw_u64(w, "groups", v.groups);
    if (v.groups > 0) {
        fc_jw_i64(w, "group_rows_min", v.rows_min);
        fc_jw_i64(w, "group_rows_max", v.rows_max);
    } else {
        fc_jw_null(w, "group_rows_min");
        fc_jw_null(w, "group_rows_max");
    }
    /* the largest group's work over the mean group's, per call */
    if (v.read_calls > 0) {
        fc_jw_double(w, "imbalance_mean", v.imbalance_sum / (double)v.read_calls);
        fc_jw_double(w, "imbalance_max", v.imbalance_max);
    } else {
        fc_jw_null(w, "imbalance_mean");
        fc_jw_null(w, "imbalance_max");
    }
    fc_jw_u64(w, "pending_calls", v.pending_calls);
    fc_jw_obj_begin(w, "not_read");
    for (int i = 1; i < FC_DEVSIZES_OUTCOMES; i++)
        fc_jw_u64(w, fc_devsizes_outcome_name(i), v.not_read[i]);
    fc_jw_obj_end(w);
    fc_jw_obj_end(w);
}
