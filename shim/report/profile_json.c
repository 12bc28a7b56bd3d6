/* SPDX-License-Identifier: Apache-2.0 */
/* profile_json.c - the "forward_profile" member of the report: the forward
 * GEMMs of one steady training iteration (detect/profile.c), each run of
 * calls with its shape read back from the shape table. Field meanings:
 * docs/report-schema.md. Drain lock held by the caller; static buffers. */
#include "profile_json.h"

#include "core/api.h"
#include "count/attn_table.h"
#include "count/counters.h"
#include "detect/profile.h"
#include "dtype.h"
#include "inferred.h"

static const char *state_name(int state)
{
    switch (state) {
    case FC_PROFILE_STEADY:
        return "steady";
    case FC_PROFILE_UNSTEADY:
        return "unsteady";
    case FC_PROFILE_WARMUP:
        return "warm-up";
    default:
        return "none";
    }
}

/* An attention call of the forward: its shape from the attention table
 * (kind "attention"; the inference reads heads, sequence and batch off it). */
static void write_attention(fc_jw *w, const fc_profile_ent *e)
{
    fc_attn a;
    fc_jw_obj_begin(w, NULL);
    fc_jw_str(w, "kind", "attention");
    if (fc_attn_table_get(FC_ATTN_ID_OF_SIG(e->sig), &a, NULL) == 0) {
        fc_jw_str(w, "source", fc_attn_source_name(a.source));
        fc_jw_i64(w, "batch", a.b);
        fc_jw_i64(w, "heads", a.h);
        fc_jw_i64(w, "kv_heads", a.h_k);
        fc_jw_i64(w, "seq_q", a.s_q);
        fc_jw_i64(w, "seq_k", a.s_k);
        fc_jw_i64(w, "head_dim", a.d);
        fc_jw_i64(w, "head_dim_v", a.d_v);
        fc_jw_str(w, "mask", fc_attn_mask_name(&a));
        fc_jw_i64(w, "window_left", a.window_left);
        fc_jw_i64(w, "window_right", a.window_right);
        fc_jw_bool(w, "bound", (a.flags & FC_ATTN_BOUND) != 0);
        fc_jw_str(w, "dtype", fc_dtype_name(a.dtype));
    } else {
        fc_jw_bool(w, "unresolved", 1);
    }
    fc_jw_u64(w, "count", e->count);
    fc_jw_u128(w, "flops", (fc_u128)e->flops * e->count);
    fc_jw_obj_end(w);
}

static void write_gemm(fc_jw *w, const fc_profile_ent *e)
{
    if (e->kind == FC_IREC_ATTN) {
        write_attention(w, e);
        return;
    }
    static const char *const weight[4] = {NULL, "A", "B", "AB"};
    fc_gemm g;
    fc_jw_obj_begin(w, NULL);
    if (fc_counters_shape_of(e->sig, &g) == 0) {
        char ta[2] = {g.transa, 0}, tb[2] = {g.transb, 0};
        fc_jw_str(w, "api", fc_api_name(g.api, g.flags & FC_API_64));
        fc_jw_i64(w, "m", g.m);
        fc_jw_i64(w, "n", g.n);
        fc_jw_i64(w, "k", g.k);
        fc_jw_i64(w, "batch", g.batch);
        fc_jw_str(w, "transa", ta);
        fc_jw_str(w, "transb", tb);
        fc_jw_str(w, "dtype", fc_dtype_name(g.dtype));
    } else {
        fc_jw_bool(w, "unresolved", 1);
    }
    fc_jw_u64(w, "count", e->count);
    fc_jw_u128(w, "flops", (fc_u128)e->flops * e->count);
    if (weight[e->weight & 3])
        fc_jw_str(w, "weight", weight[e->weight & 3]);
    else
        fc_jw_null(w, "weight");
    fc_jw_obj_end(w);
}

void fc_profile_report_json(fc_jw *w)
{
    fc_profile_view p;
    fc_profile_get(&p);
    fc_jw_obj_begin(w, "forward_profile");
    fc_jw_str(w, "state", state_name(p.state));
    if (p.state != FC_PROFILE_NONE) {
        fc_jw_u64(w, "training_forward", p.segment);
        fc_jw_u64(w, "calls", p.calls);
        fc_jw_u128(w, "flops", p.flops);
        fc_jw_bool(w, "truncated", p.truncated);
        fc_jw_arr_begin(w, "gemms");
        for (uint32_t i = 0; i < p.n; i++)
            write_gemm(w, &p.ent[i]);
        fc_jw_arr_end(w);
        const fc_moe_grouped *moe = fc_inferred_moe();
        if (moe != NULL)
            fc_moe_grouped_json(w, "grouped_experts", moe);
    }
    fc_jw_obj_end(w);
}
