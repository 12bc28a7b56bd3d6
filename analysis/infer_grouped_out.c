/* SPDX-License-Identifier: Apache-2.0 */
/* infer_grouped_out.c - the experts read off the grouped calls
 * (infer_grouped.h) as a JSON object ("grouped_experts", written by the
 * shim in forward_profile and by 'flopcount report --json') and as the
 * text report's lines. Field meanings: docs/report-schema.md. */
#include <stdio.h>

#include "infer_grouped.h"
#include "jsonw.h"

static void val(fc_jw *w, const char *key, const fc_moe_val *v)
{
    fc_jw_obj_begin(w, key);
    if (v->status == FC_MOE_UNKNOWN)
        fc_jw_null(w, "value");
    else
        fc_jw_i64(w, "value", v->value);
    fc_jw_str(w, "status", fc_moe_st_name(v->status));
    fc_jw_str(w, "note", v->note);
    fc_jw_obj_end(w);
}

void fc_moe_grouped_json(fc_jw *w, const char *key, const fc_moe_grouped *m)
{
    fc_jw_obj_begin(w, key);
    fc_jw_i64(w, "calls", m->calls);
    fc_jw_i64(w, "moe_layers", m->layers);
    fc_jw_i64(w, "hidden", m->hidden);
    fc_jw_bool(w, "gated", m->gated);
    val(w, "experts", &m->experts);
    val(w, "moe_ffn", &m->moe_ffn);
    val(w, "tokens", &m->tokens);
    val(w, "top_k", &m->topk);
    val(w, "shared_experts", &m->shared);
    val(w, "shared_ffn", &m->shared_ffn);
    fc_jw_obj_begin(w, "imbalance");
    if (m->layers > 0) {
        fc_jw_i64(w, "routed_rows", m->routed);
        fc_jw_i64(w, "group_rows_min", m->rows_min);
        fc_jw_i64(w, "group_rows_max", m->rows_max);
        fc_jw_double(w, "max", m->imbalance_max);
        fc_jw_double(w, "mean", m->imbalance_mean);
    }
    fc_jw_obj_end(w);
    fc_jw_obj_end(w);
}

static const char *vtext(const fc_moe_val *v, char *buf, size_t n)
{
    if (v->status == FC_MOE_UNKNOWN)
        snprintf(buf, n, "?");
    else
        snprintf(buf, n, "%s%lld", v->status == FC_MOE_BOUND ? "~" : "", (long long)v->value);
    return buf;
}

int fc_moe_grouped_text(const fc_moe_grouped *m, char *out, size_t size)
{
    char e[24], f[24], k[24], s[24], sf[24];
    int n = snprintf(out, size,
                     "grouped experts: experts=%s moe_ffn=%s%s top_k=%s shared=%s (ffn %s) over "
                     "%lld MoE layer%s\n",
                     vtext(&m->experts, e, sizeof e), vtext(&m->moe_ffn, f, sizeof f),
                     m->gated ? " gated" : "", vtext(&m->topk, k, sizeof k),
                     vtext(&m->shared, s, sizeof s), vtext(&m->shared_ffn, sf, sizeof sf),
                     (long long)m->layers, m->layers == 1 ? "" : "s");
    if (m->layers > 0 && n > 0 && (size_t)n < size)
        n += snprintf(out + n, size - (size_t)n,
                      "  load imbalance (max group rows / mean): max %.3f, mean %.3f; group rows "
                      "%lld..%lld\n",
                      m->imbalance_max, m->imbalance_mean, (long long)m->rows_min,
                      (long long)m->rows_max);
    const fc_moe_val *v[] = {&m->experts, &m->moe_ffn, &m->tokens, &m->topk, &m->shared};
    const char *name[] = {"experts", "moe_ffn", "tokens", "top_k", "shared"};
    for (size_t i = 0; i < sizeof v / sizeof v[0] && n > 0 && (size_t)n < size; i++)
        n += snprintf(out + n, size - (size_t)n, "  %s (%s): %s\n", name[i],
                      fc_moe_st_name(v[i]->status), v[i]->note);
    return n;
}
