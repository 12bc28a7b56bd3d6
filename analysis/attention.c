/* SPDX-License-Identifier: Apache-2.0 */
/* attention.c - FLOPs of a fused-attention call from its shape
 * (attention.h): visible pairs in closed form, tiles by block, and the
 * executed, model and tile figures. */
#include "attention.h"


typedef __int128 i128;

int fc_attn_valid(const fc_attn *a)
{
    if (a == NULL || a->source >= FC_ATTN_SRC_COUNT || a->dir > FC_ATTN_BWD ||
        a->align > FC_ATTN_BOTTOM_RIGHT)
        return 0;
    if (a->b <= 0 || a->h <= 0 || a->h_k <= 0 || a->s_q <= 0 || a->s_k <= 0 || a->d <= 0 ||
        a->d_v <= 0)
        return 0;
    if (a->h % a->h_k != 0)
        return 0;
    /* every figure stays far below 2^127 when each dimension fits 31 bits */
    const int64_t lim = INT32_MAX;
    return a->b <= lim && a->h <= lim && a->s_q <= lim && a->s_k <= lim && a->d <= lim &&
           a->d_v <= lim;
}

/* Offset of the band's diagonal: key j = i + off is the diagonal's. */
static i128 diag_off(const fc_attn *a)
{
    return a->align == FC_ATTN_BOTTOM_RIGHT ? (i128)a->s_k - a->s_q : 0;
}

/* Pairs (i, j) of the s_q x s_k rectangle with j - i <= x:
 * sum over rows of clamp(i + x + 1, 0, s_k). Rows i < -x see nothing,
 * rows i >= s_k - x - 1 see all s_k keys, the rows between see i + x + 1. */
static i128 pairs_upto(i128 x, i128 s_q, i128 s_k)
{
    i128 low_end = -x < 0 ? 0 : (-x > s_q ? s_q : -x);
    i128 high = s_k - x - 1;
    i128 high_start = high < low_end ? low_end : (high > s_q ? s_q : high);
    i128 n = high_start - low_end;
    /* sum of (i + x + 1) over [low_end, high_start): n terms, first + last */
    i128 mid = n > 0 ? n * ((low_end + x + 1) + (high_start - 1 + x + 1)) / 2 : 0;
    return mid + (s_q - high_start) * s_k;
}

fc_u128 fc_attn_pairs(const fc_attn *a)
{
    if (!fc_attn_valid(a))
        return 0;
    i128 s_q = a->s_q, s_k = a->s_k, off = diag_off(a);
    i128 upper = a->window_right < 0 ? s_q * s_k : pairs_upto(off + a->window_right, s_q, s_k);
    i128 lower = a->window_left < 0 ? 0 : pairs_upto(off - a->window_left - 1, s_q, s_k);
    return upper > lower ? (fc_u128)(upper - lower) : 0;
}

static i128 floor_div(i128 x, i128 y)
{
    i128 q = x / y;
    return (x % y != 0 && (x < 0) != (y < 0)) ? q - 1 : q;
}

/* Tiles of one outer block: the inner indices [lo, hi] (clipped to
 * [0, n_inner)) in blocks of `blk`. */
static i128 inner_tiles(i128 lo, i128 hi, i128 n_inner, i128 blk)
{
    if (lo < 0)
        lo = 0;
    if (hi > n_inner - 1)
        hi = n_inner - 1;
    return lo <= hi ? floor_div(hi, blk) - floor_div(lo, blk) + 1 : 0;
}

/* Most outer blocks walked; beyond, the tiles are not worked out. */
#define MAX_OUTER_BLOCKS (1 << 22)

/* Block-skipping kernels (FlashAttention-2, memory-efficient attention)
 * walk outer blocks - query blocks in the forward, key blocks in the
 * backward - and, inside each, the inner blocks from the first to the last
 * one that a row (column) of the outer block can see, taking the outer
 * block's nominal end (m + 1) x block, not clipped to the sequence: so does
 * FlashAttention-2's n_block_max and the memory-efficient kernel's causal
 * key limit. A band with no bound on a side starts (ends) at the edge. */
fc_u128 fc_attn_tiles(const fc_attn *a)
{
    if (!fc_attn_valid(a) || a->block_m <= 0 || a->block_n <= 0)
        return 0;
    i128 s_q = a->s_q, s_k = a->s_k, off = diag_off(a);
    i128 bm = a->block_m, bn = a->block_n;
    int has_l = a->window_left >= 0, has_r = a->window_right >= 0;
    i128 lo_d = off - a->window_left, hi_d = off + a->window_right; /* j - i in [lo_d, hi_d] */
    i128 total = 0;
    if (a->dir == FC_ATTN_FWD) {
        i128 nb = (s_q + bm - 1) / bm;
        if (nb > MAX_OUTER_BLOCKS)
            return 0;
        for (i128 m = 0; m < nb; m++) {
            i128 r0 = m * bm, r1 = (m + 1) * bm - 1;
            total += inner_tiles(has_l ? r0 + lo_d : 0, has_r ? r1 + hi_d : s_k - 1, s_k, bn);
        }
    } else {
        i128 nb = (s_k + bn - 1) / bn;
        if (nb > MAX_OUTER_BLOCKS)
            return 0;
        for (i128 n = 0; n < nb; n++) {
            i128 c0 = n * bn, c1 = (n + 1) * bn - 1;
            /* rows that see a key of [c0, c1]: i + hi_d >= c0 and i + lo_d <= c1 */
            total += inner_tiles(has_r ? c0 - hi_d : 0, has_l ? c1 - lo_d : s_q - 1, s_q, bm);
        }
    }
    return (fc_u128)total;
}

int fc_attn_flops_of(const fc_attn *a, fc_attn_flops *out)
{
    fc_attn_flops z = {0, 0, 0, 0};
    *out = z;
    if (!fc_attn_valid(a))
        return -1;
    fc_u128 heads = (fc_u128)a->b * (fc_u128)a->h;
    fc_u128 p = fc_attn_pairs(a);
    fc_u128 d = (fc_u128)a->d, dv = (fc_u128)a->d_v;
    fc_u128 fwd = 2 * p * (d + dv); /* QK^T and PV */
    out->pairs = p * heads;
    if (a->dir == FC_ATTN_FWD) {
        out->executed = fwd * heads;
        out->model = fwd * heads;
    } else {
        /* QK^T again, dV = P^T dO, dP = dO V^T, dQ = dS K, dK = dS^T Q */
        out->executed = 2 * p * (3 * d + 2 * dv) * heads;
        out->model = 2 * fwd * heads;
    }
    if (a->block_m > 0 && a->block_n > 0 && a->d_pad > 0 && a->d_v_pad > 0) {
        fc_u128 t = fc_attn_tiles(a);
        fc_u128 per = 2 * (fc_u128)a->block_m * (fc_u128)a->block_n;
        fc_u128 dp = (fc_u128)a->d_pad, dvp = (fc_u128)a->d_v_pad;
        per *= a->dir == FC_ATTN_FWD ? dp + dvp : 3 * dp + 2 * dvp;
        out->tiles = t * per * heads;
    }
    return 0;
}

const char *fc_attn_source_name(int source)
{
    static const char *const names[FC_ATTN_SRC_COUNT] = {
        [FC_ATTN_SRC_UNKNOWN] = "unknown", [FC_ATTN_SRC_FLASH] = "flash",
        [FC_ATTN_SRC_EFFICIENT] = "efficient", [FC_ATTN_SRC_CUDNN] = "cudnn"};
    return source >= 0 && source < FC_ATTN_SRC_COUNT ? names[source] : "unknown";
}

const char *fc_attn_mask_name(const fc_attn *a)
{
    if (a->window_left < 0 && a->window_right < 0)
        return "none";
    if (a->window_left < 0 && a->window_right == 0)
        return "causal";
    return "window";
}
