/* SPDX-License-Identifier: Apache-2.0 */
/* memeff.c - memory-efficient attention launches decoded (decoders.h):
 * PyTorch's CUTLASS fmha kernels (xformers-derived), fmha_cutlassF_* and
 * fmha_cutlassB_*, each taking one AttentionKernel<...>::Params /
 * AttentionBackwardKernel<...>::Params by value.
 *
 * The forward struct (kernel_forward.h, PyTorch 2.3 on) is 272 bytes:
 * query/key/value 0/8/16, attn_bias 24, seqstart_q/k 32/40, causal
 * diagonal 48, seqlen_k 56, head_dim 100, head_dim_value 104, num_queries
 * 108, num_keys 112, custom_mask_type 120 (u8: 0 none, 1 causal from the
 * top left, 2 from the bottom right), num_batches 200, num_heads 204,
 * use_dropout 208; PyTorch 2.15's, 280 bytes, has a window_size at 88
 * before the scale and no causal_diagonal_ptr: seqlen_k 48, head_dim 96,
 * head_dim_value 100, num_queries 104, num_keys 108, custom_mask_type 116,
 * num_batches 192, num_heads 204, q_heads_per_kv 208, use_dropout 212 (read off its real
 * launches on the null GPU, the size from its cubin's parameter info;
 * the size picks the layout, or without it both are tried and the grid
 * decides). The
 * backward struct (kernel_backward.h) in two
 * versions: 456 bytes (head_dim 144, head_dim_value 148, num_queries 152,
 * num_keys 156, num_heads 160, custom_mask_type 164, num_batches 368,
 * num_splits_key 372) and, with grouped-query support, 464 bytes
 * (q_heads_per_kv 164 and everything after it 4 or 8 bytes on), and
 * PyTorch 2.15's, 480 bytes (as the latter to the mask, num_batches 384,
 * num_splits_key 396); all:
 * bias 24, cu_seqlens_q/k 64/72, window_size 136 (0: none). The tile
 * (queries x keys per block) and kMaxK, the bound on both head dims, come
 * from the template arguments in the name. Grids: forward
 * (ceil(num_queries / kQueriesPerBlock), num_heads, num_batches), backward
 * (num_splits_key, num_heads, num_batches). An attention bias is computed
 * on every tile: flagged. Variable lengths (seqstart / cu_seqlens in
 * device memory) give the maxima: a bound. */
#include <stdio.h>
#include <string.h>

#include "decoders.h"
#include "dtype.h"
#include "mangled.h"

static int dtype_of(const fc_targ *a)
{
    if (a->kind != FC_TARG_TYPE)
        return FC_DT_UNKNOWN;
    if (fc_mangled_has(a->begin, a->end, "10bfloat16_t"))
        return FC_DT_BF16;
    if (fc_mangled_has(a->begin, a->end, "6half_t"))
        return FC_DT_FP16;
    if (a->end - a->begin == 1 && a->begin[0] == 'f')
        return FC_DT_FP32;
    return FC_DT_UNKNOWN;
}

int fc_memeff_traits(int family, const char *name, fc_ktraits *t, char *why, size_t n)
{
    memset(t, 0, sizeof *t);
    fc_targ a[12];
    int fwd = family == FC_KF_MEMEFF_FWD;
    /* AttentionKernel<scalar_t, Arch, isAligned, kQueriesPerBlock,
     * kKeysPerBlock, kMaxK, kSupportsDropout, kSupportsBias> and
     * AttentionBackwardKernel<Arch, scalar_t, kIsAligned, kApplyDropout,
     * kPreload, kBlockSizeI, kBlockSizeJ, kMaxK[, kKeysQueriesAligned]> */
    int na = fc_mangled_targs(name, NULL, fwd ? "15AttentionKernel" : "23AttentionBackwardKernel",
                              a, 12);
    int ok =
        fwd ? na == 8 && a[2].kind == FC_TARG_BOOL && a[3].kind == FC_TARG_INT &&
                  a[4].kind == FC_TARG_INT && a[5].kind == FC_TARG_INT && a[6].kind == FC_TARG_BOOL
            : (na == 8 || na == 9) && a[2].kind == FC_TARG_BOOL && a[3].kind == FC_TARG_BOOL &&
                  a[5].kind == FC_TARG_INT && a[6].kind == FC_TARG_INT && a[7].kind == FC_TARG_INT;
    if (!ok) {
        snprintf(why, n, "the kernel's Params type arguments do not parse");
        return -1;
    }
    /* the one parameter is that kernel's nested Params (N...6ParamsE, the
     * end of the name): anything else is not the struct the offsets describe */
    size_t ln = strlen(name);
    if (ln < 9 || strcmp(name + ln - 9, "E6ParamsE") != 0) {
        snprintf(why, n, "the kernel's parameter is not its AttentionKernel's Params");
        return -1;
    }
    t->dtype = (uint8_t)dtype_of(&a[fwd ? 0 : 1]);
    t->mem_aligned = (uint8_t)(a[2].value != 0);
    if (fwd) {
        t->block_m = (int16_t)a[3].value;
        t->block_n = (int16_t)a[4].value;
        t->head_dim = (int16_t)(a[5].value > 32767 ? 32767 : a[5].value);
        t->mem_dropout = (uint8_t)(a[6].value != 0); /* kSupportsDropout */
    } else {
        t->mem_dropout = (uint8_t)(a[3].value != 0); /* kApplyDropout */
        t->block_m = (int16_t)a[5].value;
        t->block_n = (int16_t)a[6].value;
        t->head_dim = (int16_t)(a[7].value > 32767 ? 32767 : a[7].value);
    }
    if (t->dtype == FC_DT_UNKNOWN || t->block_m < 8 || t->block_n < 8 || t->head_dim < 8) {
        snprintf(why, n,
                 "the kernel's template arguments are not memory-efficient attention's "
                 "(blocks %dx%d, kMaxK %d)",
                 t->block_m, t->block_n, t->head_dim);
        return -1;
    }
    return 0;
}

static void shape(fc_attn *a, int dir, const fc_ktraits *t, int64_t b, int64_t h, int64_t h_k,
                  int64_t s_q, int64_t s_k, int64_t d, int64_t dv, int mask)
{
    const int64_t dims[7] = {b, h, h_k, s_q, s_k, d, dv};
    fc_kp_shape(a, FC_ATTN_SRC_EFFICIENT, dir, t, dims);
    a->align = mask == 2 ? FC_ATTN_BOTTOM_RIGHT : FC_ATTN_TOP_LEFT;
    a->window_right = mask ? 0 : -1;
    /* the tile is known, not the head dims its products run at (CUTLASS's
     * k-loop and output tiles differ per product): no tile figure (d_pad 0) */
}

static int dims_ok(const fc_ktraits *t, int64_t b, int64_t h, int64_t s_q, int64_t s_k, int64_t d,
                   int64_t dv, int mask)
{
    return b >= 1 && b <= (1 << 24) && h >= 1 && h <= 4096 && s_q >= 1 && s_q <= (1 << 28) &&
           s_k >= 1 && s_k <= (1 << 28) && d >= 1 && dv >= 1 && d <= t->head_dim &&
           dv <= t->head_dim && mask >= 0 && mask <= 2;
}

/* The forward layouts: the struct's size, head_dim, head_dim_value,
 * num_queries, num_keys, custom_mask_type (u8), num_batches, num_heads,
 * q_heads_per_kv (-1: none), use_dropout (u8), causal_diagonal_ptr (-1:
 * none), seqlen_k_ptr, window_size (-1: none). */
typedef struct fwd_layout {
    int16_t size, d, dv, s_q, s_k, mask, batches, heads, qhpk, drop, diag, seqlen_k, window;
} fwd_layout;
static const fwd_layout FW[2] = {
    {272, 100, 104, 108, 112, 120, 200, 204, -1, 208, 48, 56, -1},
    /* PyTorch 2.15: a window_size before the scale, no causal_diagonal_ptr
     * (measured on the null GPU with distinct b, h, s_q, s_k, mask, dropout;
     * 280 bytes as cuFuncGetParamInfo reads its cubin there) */
    {280, 96, 100, 104, 108, 116, 192, 204, 208, 212, -1, 48, 88},
};

static int decode_fwd_as(const fwd_layout *y, const fc_ktraits *t, const fc_kparams *k, fc_attn *a,
                         char *why, size_t n)
{
    const void *p = k->p;
    int64_t d = fc_kp_i32(p, y->d), dv = fc_kp_i32(p, y->dv), s_q = fc_kp_i32(p, y->s_q);
    int64_t s_k = fc_kp_i32(p, y->s_k), b = fc_kp_i32(p, y->batches), h = fc_kp_i32(p, y->heads);
    int mask = fc_kp_u8(p, y->mask), drop = fc_kp_u8(p, y->drop);
    int64_t win = y->window >= 0 ? fc_kp_i32(p, y->window) : 0;
    int64_t qhpk = y->qhpk >= 0 ? fc_kp_i32(p, y->qhpk) : 1;
    if (!dims_ok(t, b, h, s_q, s_k, d, dv, mask) || drop > 1 || (drop && !t->mem_dropout) ||
        qhpk < 1 || h % qhpk != 0) {
        snprintf(why, n,
                 "b %lld, h %lld (%lld per kv head), %lld x %lld, head dims %lld/%lld (kMaxK "
                 "%d), mask %d, dropout %d out of range",
                 (long long)b, (long long)h, (long long)qhpk, (long long)s_q, (long long)s_k,
                 (long long)d, (long long)dv, t->head_dim, mask, drop);
        return -1;
    }
    if (k->grid[0] != fc_kp_ceil(s_q, t->block_m) || k->grid[1] != h || k->grid[2] != b) {
        snprintf(why, n, "grid (%u, %u, %u) does not fit b %lld, h %lld, %lld queries", k->grid[0],
                 k->grid[1], k->grid[2], (long long)b, (long long)h, (long long)s_q);
        return -1;
    }
    if (win != 0) { /* -2: the layout fits, the call is not decoded */
        snprintf(why, n, "a sliding window (window_size %lld) flopcount does not decode",
                 (long long)win);
        return -2;
    }
    const void *diag = y->diag >= 0 ? fc_kp_ptr(p, y->diag) : NULL;
    shape(a, FC_ATTN_FWD, t, b, h, h / qhpk, s_q, s_k, d, dv, diag ? 0 : mask);
    if (fc_kp_ptr(p, 32) || fc_kp_ptr(p, 40) || fc_kp_ptr(p, y->seqlen_k) || diag)
        a->flags |= FC_ATTN_BOUND; /* lengths (or diagonals) in device memory */
    if (fc_kp_ptr(p, 24))
        a->flags |= FC_ATTN_BIAS;
    if (drop)
        a->flags |= FC_ATTN_DROPOUT;
    return 0;
}

static int decode_fwd(const fc_ktraits *t, const fc_kparams *k, fc_attn *a, char *why, size_t n)
{
    fc_attn got[2];
    int ok = 0;
    char first[256] = "";
    int fits = 0;
    for (int i = 0; i < 2; i++) {
        if ((k->size > 0 && k->size != FW[i].size) || (k->avail > 0 && k->avail < FW[i].size))
            continue;
        char w[256];
        int rc = decode_fwd_as(&FW[i], t, k, &got[ok], w, sizeof w);
        if (rc == 0)
            ok++;
        else if (first[0] == '\0' || (rc == -2 && !fits)) /* the fitting layout's reason first */
            snprintf(first, sizeof first, "%s", w);
        fits |= rc == -2;
    }
    return fc_kp_pick(got, ok, first, "memory-efficient forward", a, why, n);
}

/* the backward versions: size, q_heads_per_kv (-1 none), mask,
 * num_batches, num_splits_key offsets; the third is PyTorch 2.15's
 * (measured on the null GPU; its size as cuFuncGetParamInfo reads it
 * there) */
typedef struct bwd_layout {
    int16_t size, qhpk, mask, batches, splits;
} bwd_layout;
#define BW_COUNT 3
static const bwd_layout BW[BW_COUNT] = {
    {456, -1, 164, 368, 372}, {464, 164, 168, 376, 380}, {480, 164, 168, 384, 396}};

static int decode_bwd_as(const bwd_layout *y, const fc_ktraits *t, const fc_kparams *k, fc_attn *a,
                         char *why, size_t n)
{
    const void *p = k->p;
    int64_t d = fc_kp_i32(p, 144), dv = fc_kp_i32(p, 148), s_q = fc_kp_i32(p, 152);
    int64_t s_k = fc_kp_i32(p, 156), h = fc_kp_i32(p, 160), win = fc_kp_i32(p, 136);
    int64_t qhpk = y->qhpk >= 0 ? fc_kp_i32(p, y->qhpk) : 1;
    int64_t b = fc_kp_i32(p, y->batches);
    int16_t splits;
    __builtin_memcpy(&splits, (const uint8_t *)p + y->splits, sizeof splits);
    int mask = fc_kp_u8(p, y->mask);
    if (!dims_ok(t, b, h, s_q, s_k, d, dv, mask) || qhpk < 1 || h % qhpk != 0) {
        snprintf(why, n,
                 "%d-byte layout: b %lld, h %lld (%lld per kv head), %lld x %lld, head "
                 "dims %lld/%lld (kMaxK %d), mask %d out of range",
                 y->size, (long long)b, (long long)h, (long long)qhpk, (long long)s_q,
                 (long long)s_k, (long long)d, (long long)dv, t->head_dim, mask);
        return -1;
    }
    if (win != 0) {
        snprintf(why, n, "a sliding window (window_size %lld) flopcount does not decode",
                 (long long)win);
        return -1;
    }
    if (splits < 1 || k->grid[0] != (unsigned)splits || k->grid[1] != h || k->grid[2] != b) {
        snprintf(why, n,
                 "%d-byte layout: grid (%u, %u, %u) does not fit %d key splits, h %lld, "
                 "b %lld",
                 y->size, k->grid[0], k->grid[1], k->grid[2], splits, (long long)h, (long long)b);
        return -1;
    }
    shape(a, FC_ATTN_BWD, t, b, h, h / qhpk, s_q, s_k, d, dv, mask);
    if (fc_kp_ptr(p, 64) || fc_kp_ptr(p, 72))
        a->flags |= FC_ATTN_BOUND;
    if (fc_kp_ptr(p, 24))
        a->flags |= FC_ATTN_BIAS;
    if (t->mem_dropout)
        a->flags |= FC_ATTN_DROPOUT;
    return 0;
}

int fc_memeff_decode(int family, const fc_ktraits *t, const fc_kparams *k, fc_attn *a, char *why,
                     size_t n)
{
    if (fc_kp_check_call(k, "memory-efficient attention", why, n) != 0)
        return -1;
    if (family == FC_KF_MEMEFF_FWD) {
        if ((k->size > 0 && k->size != 272 && k->size != 280) || (k->avail > 0 && k->avail < 272)) {
            snprintf(why, n,
                     "param 0 is %lld bytes; the memory-efficient forward layouts known: 272, 280",
                     (long long)(k->size > 0 ? k->size : k->avail));
            return -1;
        }
        return decode_fwd(t, k, a, why, n);
    }
    /* without the size, the fields read end below 400 bytes */
    int64_t need = k->size > 0 ? k->size : 400;
    if (k->avail > 0 && k->avail < need) {
        snprintf(why, n, "only %lld bytes of parameters passed", (long long)k->avail);
        return -1;
    }
    fc_attn got[BW_COUNT];
    int ok = 0, tried = 0;
    char first[256] = "";
    for (int i = 0; i < BW_COUNT; i++) {
        if (k->size > 0 && k->size != BW[i].size)
            continue;
        tried++;
        char w[256];
        if (decode_bwd_as(&BW[i], t, k, &got[ok], w, sizeof w) == 0)
            ok++;
        else if (first[0] == '\0')
            snprintf(first, sizeof first, "%s", w);
    }
    if (tried == 0) {
        snprintf(why, n,
                 "param 0 is %lld bytes; memory-efficient backward layouts known: 456, 464, 480",
                 (long long)k->size);
        return -1;
    }
    return fc_kp_pick(got, ok, first, "memory-efficient backward", a, why, n);
}
