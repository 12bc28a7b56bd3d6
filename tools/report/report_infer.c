/* SPDX-License-Identifier: Apache-2.0 */
/* report_infer.c - 'flopcount report' without model flags: the model read
 * off the report's forward profile (analysis/infer.h), flags laid over it
 * (a flag the stream contradicts is reported), and the command-line
 * flags it amounts to (fc_report_infer_flags); the forms write its block
 * (tools/render/text/text_infer.c, json/json_infer.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_view.h"

static void profile_of(const fc_report *r, fc_fwd_profile *p)
{
    memset(p, 0, sizeof *p);
    p->g = r->profile.gemms;
    p->n = r->profile.n_gemms;
    p->truncated = r->profile.truncated;
    p->flops = r->profile.flops;
}

/* The MoE keys the GEMM reader left unknown and the grouped calls read
 * exactly (analysis/infer_grouped.h), laid over as values the formula
 * uses (like flags, then relabelled as read off the stream); 1 when any. */
static const int moe_keys[] = {FC_IK_EXPERTS, FC_IK_TOPK, FC_IK_MOE_FFN, FC_IK_SHARED_EXPERTS,
                               FC_IK_SHARED_FFN};
static uint64_t moe_laid; /* FC_IK_BIT of the keys laid over */

static const fc_moe_val *moe_val(const fc_moe_grouped *m, int key)
{
    return key == FC_IK_EXPERTS          ? &m->experts
           : key == FC_IK_TOPK           ? &m->topk
           : key == FC_IK_MOE_FFN        ? &m->moe_ffn
           : key == FC_IK_SHARED_EXPERTS ? &m->shared
                                         : &m->shared_ffn;
}

static int moe_from_grouped(fc_report_view *v, fc_infer_given *g)
{
    moe_laid = 0;
    if (!v->moe.found)
        return 0;
    for (size_t i = 0; i < sizeof moe_keys / sizeof moe_keys[0]; i++) {
        int k = moe_keys[i];
        const fc_moe_val *x = moe_val(&v->moe, k);
        if ((g->given & FC_IK_BIT(k)) || v->inf.v[k].status != FC_IS_UNKNOWN ||
            x->status != FC_MOE_EXACT)
            continue;
        int64_t *field = k == FC_IK_EXPERTS          ? &g->m.experts
                         : k == FC_IK_TOPK           ? &g->m.topk
                         : k == FC_IK_MOE_FFN        ? &g->m.moe_ffn
                         : k == FC_IK_SHARED_EXPERTS ? &g->m.shared_experts
                                                     : &g->m.shared_ffn;
        if (k == FC_IK_SHARED_FFN && x->value == 0)
            continue;
        *field = x->value;
        g->given |= FC_IK_BIT(k);
        moe_laid |= FC_IK_BIT(k);
    }
    return moe_laid != 0;
}

static void moe_relabel(fc_report_view *v, fc_infer_given *g)
{
    for (size_t i = 0; i < sizeof moe_keys / sizeof moe_keys[0]; i++) {
        int k = moe_keys[i];
        if (!(moe_laid & FC_IK_BIT(k)))
            continue;
        v->inf.v[k].status = FC_IS_EXACT;
        snprintf(v->inf.v[k].note, sizeof v->inf.v[k].note, "grouped calls: %s",
                 moe_val(&v->moe, k)->note);
        g->given &= ~FC_IK_BIT(k);
    }
}

int fc_report_infer(fc_report_view *v, const fc_model_opts *mo, char *err, size_t n)
{
    fc_infer_given g;
    memset(&g, 0, sizeof g);
    if (fc_model_opts_collect(mo, &g.m, &g.given, err, n) != 0)
        return -1;
    fc_infer_facts facts;
    memset(&facts, 0, sizeof facts);
    if (strcmp(v->rep.profile.state, "none") == 0 || v->rep.profile.n_gemms == 0) {
        snprintf(facts.why, sizeof facts.why, "no training forward was seen (%s)",
                 strcmp(v->rep.iterations.kind, "forward-only") == 0
                     ? "the iterations are forward-only: the model is read off a training "
                       "forward, one followed by its backward"
                     : "no iterations");
    } else {
        fc_infer_work *w = malloc(fc_infer_work_size());
        if (w == NULL) {
            snprintf(err, n, "out of memory");
            return -1;
        }
        fc_fwd_profile p;
        profile_of(&v->rep, &p);
        fc_infer_shapes(&p, w, &facts);
        free(w);
        fc_moe_grouped_read(&p, &v->moe);
    }
    fc_infer_iter it = {.have = v->has_iterations,
                        .flops = v->file_flops,
                        .forward_flops = v->file_forward,
                        .recompute_flops = v->file_recompute,
                        .attention_excess_flops = v->file_xs,
                        .ranks = v->scale};
    fc_infer_resolve(&facts, &g, &it, &v->inf);
    if (moe_from_grouped(v, &g))
        fc_infer_resolve(&facts, &g, &it, &v->inf);
    moe_relabel(v, &g);
    v->has_inferred = 1;
    if (!v->inf.complete) {
        snprintf(v->formula_reason, sizeof v->formula_reason, "%s%s",
                 strncmp(v->inf.missing, "--", 2) == 0 ? "not known, give " : "", v->inf.missing);
        return 0;
    }
    v->model = v->inf.model;
    v->has_model = 1;
    v->model_from = g.given ? "the stream and flags" : "the stream";
    return 0;
}

/* ---- phrases ---- */

/* The layer kinds' flags: what is known and not the formula's default. */
static void kind_flags(const fc_inferred *in, char *out, size_t size, size_t o)
{
    int v2 = in->v[FC_IK_MAMBA_VERSION].value != 1;
    for (int k = FC_IK_FIRST_KIND; k < FC_IK_COUNT && o < size; k++) {
        int64_t x = in->v[k].value;
        if (in->v[k].status == FC_IS_UNKNOWN || x == 0 || (k == FC_IK_MAMBA_VERSION && x == 2) ||
            (k == FC_IK_MAMBA_INNER && v2))
            continue;
        if (k == FC_IK_ATTN_GATE)
            o += (size_t)snprintf(out + o, size - o, " %s", fc_ik_flag(k));
        else
            o += (size_t)snprintf(out + o, size - o, " %s %lld", fc_ik_flag(k), (long long)x);
    }
    const char *mix = in->complete ? in->model.mixers : in->f.mixers;
    const char *mlp = in->complete ? in->model.mlps : in->f.mlps;
    if (mix[0] && o < size)
        o += (size_t)snprintf(out + o, size - o, " --layer-pattern %s", mix);
    if (mlp[0] && o < size)
        o += (size_t)snprintf(out + o, size - o, " --mlp-pattern %s", mlp);
    const char *b = in->complete ? in->model.mtp_block : in->f.mtp_block;
    if (b[0] && o < size && in->v[FC_IK_MTP_LAYERS].value > 0)
        snprintf(out + o, size - o, " --mtp-block %s", b);
}

void fc_report_infer_flags(const fc_inferred *in, char *out, size_t size)
{
    static const int keys[] = {
        FC_IK_LAYERS,         FC_IK_HIDDEN,     FC_IK_HEADS,     FC_IK_KV_HEADS,
        FC_IK_HEAD_DIM,       FC_IK_FFN,        FC_IK_VOCAB,     FC_IK_SEQ,
        FC_IK_BATCH,          FC_IK_EXPERTS,    FC_IK_TOPK,      FC_IK_MOE_FFN,
        FC_IK_SHARED_EXPERTS, FC_IK_SHARED_FFN, FC_IK_MOE_EVERY, FC_IK_MOE_FIRST_DENSE};
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && o < size; i++) {
        int k = keys[i];
        int64_t x = in->v[k].value;
        if (in->v[k].status == FC_IS_UNKNOWN ||
            (k > FC_IK_EXPERTS && in->v[FC_IK_EXPERTS].value == 0) ||
            (k == FC_IK_EXPERTS && x == 0) || (k == FC_IK_MOE_EVERY && x == 1) ||
            ((k == FC_IK_HEADS || k == FC_IK_KV_HEADS || k == FC_IK_HEAD_DIM) && x == 0) ||
            ((k == FC_IK_SHARED_EXPERTS || k == FC_IK_SHARED_FFN || k == FC_IK_MOE_FIRST_DENSE) &&
             x == 0))
            continue; /* a default, or not a model with experts */
        o += (size_t)snprintf(out + o, size - o, "%s%s %lld", o ? " " : "", fc_ik_flag(k),
                              (long long)in->v[k].value);
    }
    if (o < size && in->v[FC_IK_SWIGLU].status != FC_IS_UNKNOWN && in->v[FC_IK_SWIGLU].value)
        o += (size_t)snprintf(out + o, size - o, " --swiglu");
    if (o < size && in->v[FC_IK_RECOMPUTE].status != FC_IS_UNKNOWN && in->v[FC_IK_RECOMPUTE].value)
        o += (size_t)snprintf(out + o, size - o, " --recompute %s",
                              fc_recompute_name((int)in->v[FC_IK_RECOMPUTE].value));
    kind_flags(in, out, size, o);
}
