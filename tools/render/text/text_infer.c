/* SPDX-License-Identifier: Apache-2.0 */
/* text_infer.c - the "inferred model" block of 'flopcount report' (the
 * model read off the forward profile, tools/report/report_infer.c). */
#include <stdio.h>
#include <string.h>

#include "render_forms.h"
#include "report_view.h"

void fci_report_infer_text(const fc_report_view *v)
{
    const fc_inferred *in = &v->inf;
    const fc_report *r = &v->rep;
    char buf[48], e1[FC_U128_DIGITS], e2[FC_U128_DIGITS];
    static char line[3 * FC_MAX_LAYER_PATTERN];
    printf("inferred model (forward GEMMs of training forward %llu, %s%s)\n",
           (unsigned long long)r->profile.training_forward, r->profile.state,
           r->world_size > 1 || r->is_merge
               ? "; this rank's widths: tensor-parallel shards look narrower"
               : "");
    if (!in->f.ok)
        printf("  %-17s %s\n", "not inferred", in->f.why);
    for (int k = 0; k < FC_IK_COUNT; k++) {
        const fc_infer_val *x = &in->v[k];
        if (k > FC_IK_EXPERTS && k <= FC_IK_MOE_FIRST_DENSE &&
            in->v[FC_IK_EXPERTS].status == FC_IS_EXACT && in->v[FC_IK_EXPERTS].value == 0 &&
            x->status == FC_IS_EXACT)
            continue; /* dense: the MoE keys say nothing */
        if (!in->f.ok && x->status == FC_IS_UNKNOWN && k != FC_IK_TIED && k != FC_IK_RECOMPUTE)
            continue; /* said once above */
        if (k >= FC_IK_FIRST_KIND && (!in->f.ok || x->status == FC_IS_EXACT) && x->value == 0)
            continue; /* a kind the model does not have */
        const char *note = x->note;
        char ran[200];
        if (k == FC_IK_CAUSAL && !in->f.ok && r->attn.has && r->attn.calls > 0) {
            /* no training forward to read, but attention ran and was counted */
            const fc_report_attn_source *c = fc_report_attn_source_of(&r->attn, "cudnn");
            snprintf(ran, sizeof ran,
                     "the formula's convention ('half' the other); what ran: %llu attention calls "
                     "(%s), counted pair by pair as their masks show (attn shapes above)",
                     (unsigned long long)r->attn.calls,
                     c && c->calls == r->attn.calls ? "cuDNN plans"
                     : c && c->calls                ? "cuDNN plans and fused kernels"
                                                    : "fused kernels");
            note = ran;
        }
        printf("  %-17s %-9s %-10s %s\n", fc_ik_name(k),
               fc_infer_value_text(in, k, buf, sizeof buf), fc_is_name(x->status), note);
    }
    if (in->f.ok)
        printf("  %-17s %s\n", in->f.kinds ? "layers" : "one layer", in->f.structure);
    if (in->f.ok && in->f.mixers[0])
        printf("  %-17s %s\n", "layer pattern", in->f.mixers);
    if (in->f.ok && in->f.mlps[0])
        printf("  %-17s %s\n", "mlp pattern", in->f.mlps);
    if (in->f.ok && in->f.extra_flops)
        printf("  %-17s %s\n", "not modelled", in->f.extra);
    for (int k = 0; k < FC_IK_COUNT; k++)
        if (in->disagree & FC_IK_BIT(k))
            printf("  %-17s %s %lld given, the stream says %lld\n", "disagreement", fc_ik_flag(k),
                   (long long)in->v[k].value, (long long)in->stream_value[k]);
    if (in->complete && in->f.ok) {
        const char *core = !in->f.core         ? "; attention core left out"
                           : in->f.attn_layers ? "; attention core at the band the calls ran"
                                               : "";
        if (in->fits_forward)
            printf(
                "  %-17s the formula's forward equals the counted forward exactly (%s FLOPs%s)\n",
                "check", fc_u128_to_str(in->f.forward_flops, e1), core);
        else
            printf(
                "  %-17s the formula's forward (%s FLOPs) differs from the counted forward (%s)\n",
                "check", fc_u128_to_str(in->formula_forward, e1),
                fc_u128_to_str(in->f.forward_flops, e2));
        if (in->fits_iteration && !in->fits_forward)
            printf("  %-17s but equals an iteration's FLOPs less recompute exactly%s\n", "", core);
    }
    if (!in->complete)
        printf("  %-17s not computed: %s\n", "formula", v->formula_reason);
    fc_report_infer_flags(in, line, sizeof line);
    if (line[0])
        printf("  %-17s %s\n", "as flags", line);
}
