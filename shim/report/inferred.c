/* SPDX-License-Identifier: Apache-2.0 */
/* inferred.c - the model read off the forward profile inside the shim, for
 * the live line and the exit summary: the profile's runs with their shapes
 * from the shape table, analysis/infer.h on them (once per profile, on the
 * drainer thread or at exit, never on the GEMM path), and the formula's
 * model FLOPs of an iteration when the formula fits the count exactly.
 * Static buffers, no allocation; the drain lock serializes callers. */
#include "inferred.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/api.h"
#include "count/attn_table.h"
#include "count/counters.h"
#include "detect/profile.h"
#include "infer_internal.h" /* fc_infer_work's size, for a static one */

static fc_fwd_gemm gemms[FC_PROFILE_CAP];
static fc_infer_work work;
static fc_infer_facts facts;
static uint64_t facts_generation; /* the profile's generation the facts are of; 0: none */
static int facts_state;
static fc_moe_grouped moe; /* the experts of the grouped calls of that profile */

/* The facts of the current profile (recomputed when it changed); NULL
 * without a profile. */
static const fc_infer_facts *current(int *state)
{
    fc_profile_view p;
    fc_profile_get(&p);
    if (p.state == FC_PROFILE_NONE)
        return NULL;
    if (p.generation != facts_generation) {
        for (uint32_t i = 0; i < p.n; i++) {
            fc_gemm g;
            fc_fwd_gemm *x = &gemms[i];
            memset(x, 0, sizeof *x);
            if (p.ent[i].kind == FC_IREC_ATTN) { /* a fused-attention call: its shape */
                x->attention = 1;
                x->m = x->n = x->k = x->batch = -1;
                x->transa = x->transb = '?';
                if (fc_attn_table_get(FC_ATTN_ID_OF_SIG(p.ent[i].sig), &x->attn, NULL) != 0)
                    x->attn.b = -1;
            } else if (fc_counters_shape_of(p.ent[i].sig, &g) == 0) {
                x->m = g.m, x->n = g.n, x->k = g.k, x->batch = g.batch;
                x->transa = g.transa, x->transb = g.transb;
                x->grouped = g.api == FC_API_CUBLAS_SGEMM_GROUPED ||
                             g.api == FC_API_CUBLAS_DGEMM_GROUPED ||
                             g.api == FC_API_CUBLAS_GEMM_GROUPED_EX ||
                             g.api == FC_API_CUBLASLT_GROUPED_READ ||
                             g.api == FC_API_CUTLASS_GROUPED_READ;
            } else {
                x->m = x->n = x->k = x->batch = -1;
                x->transa = x->transb = '?';
            }
            x->count = p.ent[i].count;
            x->weight = p.ent[i].weight;
            x->flops = (fc_u128)p.ent[i].flops * p.ent[i].count;
        }
        fc_fwd_profile fp = {gemms, p.n, p.truncated, p.flops};
        fc_infer_shapes(&fp, &work, &facts);
        fc_moe_grouped_read(&fp, &moe);
        facts_generation = p.generation;
        facts_state = p.state;
    }
    *state = facts_state;
    return &facts;
}

const fc_moe_grouped *fc_inferred_moe(void)
{
    int state;
    return current(&state) != NULL && moe.found ? &moe : NULL;
}

/* The inference for iterations like `it` (forward, all, recompute FLOPs
 * and attention beyond the model convention of one iteration); 0 when the
 * formula fits them exactly. */
static int fitted(fc_u128 fwd, fc_u128 flops, fc_u128 rec, fc_u128 xs, int need_steady,
                  fc_inferred *in)
{
    int state;
    const fc_infer_facts *f = current(&state);
    if (f == NULL || !f->ok || (need_steady && state != FC_PROFILE_STEADY))
        return -1;
    fc_infer_iter it = {.have = 1,
                        .flops = flops,
                        .forward_flops = fwd,
                        .recompute_flops = rec,
                        .attention_excess_flops = xs,
                        .ranks = 1};
    fc_infer_resolve(f, NULL, &it, in);
    return in->complete && in->fits ? 0 : -1;
}

int fc_inferred_iteration_model(const fc_iteration *it, fc_u128 *model)
{
    static fc_inferred in;
    fc_u128 all = fc_u128_sat_add(it->fwd, fc_u128_sat_add(it->bwd, it->rec));
    if (fitted(it->fwd, all, it->rec, it->xs, 1, &in) != 0)
        return -1;
    return fc_infer_iteration_flops(&in, it->fwd, model) == 0 ? 0 : -1;
}

void fc_inferred_live(const fc_iteration *it, double secs, double peak, char *out, size_t size)
{
    fc_u128 model;
    out[0] = '\0';
    if (secs <= 0 || peak <= 0 || fc_inferred_iteration_model(it, &model) != 0)
        return;
    snprintf(out, size, " formula MFU %.1f%%", 100.0 * fc_u128_to_double(model) / (secs * peak));
}

static void say(int fd, const char *line, int n)
{
    if (n > 0) {
        ssize_t w = write(fd, line, (size_t)n < 600 ? (size_t)n : 599);
        (void)w;
    }
}

void fc_inferred_text(int fd, const fc_figures *x)
{
    static fc_inferred in;
    char line[600], mfu[64] = "";
    int state;
    const fc_infer_facts *f = current(&state);
    if (f == NULL || x->steady == 0)
        return;
    if (!f->ok) {
        say(fd, line,
            snprintf(line, sizeof line, "flopcount: model not inferred from the GEMMs: %.400s\n",
                     f->why));
        return;
    }
    if (fitted(x->fwd, x->flops, x->rec, x->xs, 0, &in) != 0) {
        say(fd, line,
            snprintf(line, sizeof line,
                     "flopcount: inferred model not exact (%.300s); 'flopcount "
                     "report' shows what is known\n",
                     in.complete ? "the formula does not fit the count" : in.missing));
        return;
    }
    const fc_model *m = &in.model;
    fc_u128 model;
    if (x->util_ok && fc_infer_iteration_flops(&in, x->fwd, &model) == 0)
        snprintf(mfu, sizeof mfu, "; formula MFU %.1f%%",
                 100.0 * fc_u128_to_double(model) / (x->pc.flops * x->median_seconds));
    say(fd, line,
        snprintf(line, sizeof line,
                 "flopcount: inferred model l=%lld h=%lld a=%lld kv=%lld d=%lld ffn=%lld%s V=%lld "
                 "s=%lld "
                 "B=%lld%s, exact from the GEMM%s shapes%s\n",
                 (long long)m->layers, (long long)m->hidden, (long long)m->heads,
                 (long long)fc_model_kv_heads(m), (long long)m->head_dim,
                 (long long)fc_model_ffn(m), m->swiglu ? " gated" : "", (long long)m->vocab,
                 (long long)m->seq, (long long)m->batch, m->experts ? " MoE" : "",
                 f->attn_layers ? " and attention" : "", mfu));
}
