/* SPDX-License-Identifier: Apache-2.0 */
/* json_infer.c - "inferred_model" of 'flopcount report --json' (the model
 * read off the forward profile, tools/report/report_infer.c). */
#include <stdio.h>
#include <string.h>

#include "render_forms.h"
#include "report_view.h"

static void json_value(fc_jw *w, const fc_inferred *in, int k)
{
    const fc_infer_val *x = &in->v[k];
    const char *name = fc_ik_name(k);
    if (x->status == FC_IS_UNKNOWN)
        fc_jw_null(w, name);
    else if (k == FC_IK_SWIGLU || k == FC_IK_TIED || k == FC_IK_ATTN_GATE)
        fc_jw_bool(w, name, (int)x->value);
    else if (k == FC_IK_RECOMPUTE)
        fc_jw_str(w, name, fc_recompute_name((int)x->value));
    else if (k == FC_IK_CAUSAL)
        fc_jw_str(w, name, fc_causal_name((int)x->value));
    else
        fc_jw_i64(w, name, x->value);
}

void fci_report_infer_json(fc_jw *w, const fc_report_view *v)
{
    const fc_inferred *in = &v->inf;
    static char line[3 * FC_MAX_LAYER_PATTERN];
    if (!v->has_inferred) {
        fc_jw_null(w, "inferred_model");
        return;
    }
    fc_jw_obj_begin(w, "inferred_model");
    fc_jw_str(w, "profile_state", v->rep.profile.state);
    if (v->moe.found)
        fc_moe_grouped_json(w, "grouped_experts", &v->moe);
    fc_jw_u64(w, "training_forward", v->rep.profile.training_forward);
    fc_jw_bool(w, "structure_found", in->f.ok);
    fc_jw_str(w, "structure", in->f.ok ? in->f.structure : NULL);
    fc_jw_str(w, "reason", in->f.ok ? NULL : in->f.why);
    fc_jw_str(w, "layer_pattern", in->f.ok && in->f.mixers[0] ? in->f.mixers : NULL);
    fc_jw_str(w, "mlp_pattern", in->f.ok && in->f.mlps[0] ? in->f.mlps : NULL);
    fc_jw_str(w, "mtp_block", in->f.ok && in->f.mtp_layers ? in->f.mtp_block : NULL);
    fc_jw_obj_begin(w, "model");
    for (int k = 0; k < FC_IK_COUNT; k++)
        json_value(w, in, k);
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "how");
    for (int k = 0; k < FC_IK_COUNT; k++) {
        fc_jw_obj_begin(w, fc_ik_name(k));
        fc_jw_str(w, "status", fc_is_name(in->v[k].status));
        fc_jw_str(w, "note", in->v[k].note);
        fc_jw_obj_end(w);
    }
    fc_jw_obj_end(w);
    fc_jw_arr_begin(w, "disagreements");
    for (int k = 0; k < FC_IK_COUNT; k++)
        if (in->disagree & FC_IK_BIT(k)) {
            fc_jw_obj_begin(w, NULL);
            fc_jw_str(w, "key", fc_ik_name(k));
            fc_jw_i64(w, "given", in->v[k].value);
            fc_jw_i64(w, "stream", in->stream_value[k]);
            fc_jw_obj_end(w);
        }
    fc_jw_arr_end(w);
    fc_jw_bool(w, "complete", in->complete);
    fc_jw_str(w, "missing", in->complete ? NULL : v->formula_reason);
    fc_jw_bool(w, "fits", in->fits);
    fc_jw_bool(w, "fits_forward", in->fits_forward);
    fc_jw_bool(w, "fits_iteration", in->fits_iteration);
    fc_jw_u128(w, "counted_forward_flops", in->f.forward_flops);
    if (in->complete && in->f.ok)
        fc_jw_u128(w, "formula_forward_flops", in->formula_forward);
    else
        fc_jw_null(w, "formula_forward_flops");
    if (in->micro_batches > 0)
        fc_jw_i64(w, "forwards_per_iteration", in->micro_batches);
    else
        fc_jw_null(w, "forwards_per_iteration");
    fc_jw_u128(w, "extra_flops", in->f.extra_flops);
    fc_jw_bool(w, "per_rank_widths", v->rep.world_size > 1);
    fc_report_infer_flags(in, line, sizeof line);
    fc_jw_str(w, "flags", line);
    fc_jw_obj_end(w);
}
