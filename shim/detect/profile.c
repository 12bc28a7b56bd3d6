/* SPDX-License-Identifier: Apache-2.0 */
/* profile.c - the forward profile (profile.h): the forward-labelled calls of
 * training segments, copied in order as runs of one shape, until a forward
 * labelled with confirmed weights (after the detector's first three
 * segments, where an activation copied to the same address every step can
 * pass for a weight) follows a forward of the same sequence (shapes and
 * weight operands) or the same FLOPs (a mixture of experts routes tokens
 * differently every step, to the same total): that one is steady and
 * kept. Until then the latest forward is held (a short run has only the
 * first ones). Runs
 * merge calls of one shape without weights (a bmm issued per head) or with
 * the same weight; separate weights of one shape (Q, K and V projections)
 * stay separate entries. After MAX_TRIES forwards that never repeat, the
 * latest is kept as unsteady and nothing more is looked at. */
#include "profile.h"

#include <string.h>

#define MAX_TRIES 32

static fc_profile_ent ents[FC_PROFILE_CAP];
static const void *ent_w[FC_PROFILE_CAP]; /* the weight of each entry, for merging */
static fc_profile_view cur;
static uint64_t prev_hash, prev_calls, tries, training_segments;
static fc_u128 prev_flops;
static int have_prev, done;

void fc_profile_reset(void)
{
    memset(&cur, 0, sizeof cur);
    cur.ent = ents;
    prev_hash = prev_calls = tries = training_segments = 0;
    prev_flops = 0;
    have_prev = done = 0;
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x100000001b3ull;
}

void fc_profile_segment(const fc_pend *s, int kind)
{
    if (kind != FC_SEG_NEW)
        return;
    training_segments++;
    if (done)
        return;
    uint64_t h = 0xcbf29ce484222325ull, calls = 0;
    uint32_t n = 0;
    int truncated = 0;
    fc_u128 flops = 0;
    for (uint64_t x = s->start; x < s->end; x++) {
        const fc_irec *r = fc_seg_rec(x);
        if (!(fc_irec_is_call(r) || (r->kind == FC_IREC_ATTN && !(r->flags & FC_IREC_XEVAL))) ||
            fc_phase_class(x - s->start) != FC_CLS_FWD)
            continue;
        uint8_t wb = fc_phase_weighted(x - s->start);
        const void *w = (wb & 1) ? r->a : (wb & 2) ? r->b : NULL;
        h = mix(mix(h, r->sig), wb);
        calls++;
        flops = fc_u128_sat_add(flops, r->flops);
        if (n > 0 && ents[n - 1].sig == r->sig && ents[n - 1].kind == r->kind &&
            ents[n - 1].weight == wb && ent_w[n - 1] == w &&
            ents[n - 1].count < UINT32_MAX) {
            ents[n - 1].count++;
            continue;
        }
        if (n == FC_PROFILE_CAP) {
            truncated = 1;
            continue;
        }
        ents[n] = (fc_profile_ent){.sig = r->sig, .count = 1, .flops = r->flops, .weight = wb,
                                   .kind = r->kind};
        ent_w[n] = w;
        n++;
    }
    if (calls == 0)
        return;
    int warmup = fc_phase_bootstrapping();
    int steady =
        !warmup && have_prev && ((h == prev_hash && calls == prev_calls) || flops == prev_flops);
    tries += !warmup;
    cur.state = warmup ? FC_PROFILE_WARMUP : steady ? FC_PROFILE_STEADY : FC_PROFILE_UNSTEADY;
    cur.segment = training_segments;
    cur.calls = calls;
    cur.flops = flops;
    cur.n = n;
    cur.truncated = truncated;
    cur.ent = ents;
    cur.generation++;
    prev_hash = h;
    prev_calls = calls;
    prev_flops = flops;
    have_prev = 1;
    done = steady || tries >= MAX_TRIES;
}

void fc_profile_get(fc_profile_view *out)
{
    *out = cur;
    out->ent = ents;
}
