/* SPDX-License-Identifier: Apache-2.0 */
/* live_attention.h - counted fused attention on the live line (live.c):
 * " attn 4.5%", attention's share of the iteration's FLOPs. */
#ifndef FC_LIVE_ATTENTION_H
#define FC_LIVE_ATTENTION_H

#include <stddef.h>
#include <stdint.h>

#include "detect/steps.h"
#include "u128.h"

/* The share for an iteration of fwd + bwd + rec FLOPs whose attention
 * backward ran xs beyond the model convention, every backward shape of
 * head dims d (Q, K) and dv (V): its attention forward is xs (d + dv) / d
 * (a call's excess is 2 P d per head, its forward 2 P (d + dv)), its
 * backward twice that plus xs. " attn >=N%" when the iteration recomputed
 * (a recomputed attention forward is in rec, not told apart), " attn <=N%"
 * when some shape's lengths are maxima (bound: its FLOPs are an upper
 * bound); " attn n/a" when both, when d is 0 (head dims not one pair) or
 * xs does not divide; "" when xs is 0 (no attention backward in it).
 * Returns out. */
char *fc_live_attn_share(fc_u128 fwd, fc_u128 bwd, fc_u128 rec, fc_u128 xs, int64_t d,
                         int64_t dv, int bound, char *out, size_t size);
/* The same for a finished iteration, the head dims read off the attention
 * table's backward shapes; "" when no attention was counted. */
char *fc_live_attention(const fc_iteration *it, char *out, size_t size);

#endif
