/* SPDX-License-Identifier: Apache-2.0 */
/* fa2.c - FlashAttention-2 launches decoded (decoders.h).
 *
 * The kernels take one parameter, Flash_fwd_params / Flash_bwd_params (a
 * copy of flash.h's struct, passed by value). Its layout by version, the
 * offsets computed from the structs of flash-attn v2.5.6, v2.6.0, v2.6.3,
 * v2.7.4, HEAD (0251105a) and PyTorch's vendored copy (the 2.5.x struct
 * with extragraph_offset and seed); fields every layout shares: h 96,
 * h_k 100, b 176, seqlen_q 180, seqlen_k 184, d 192, seqlen_q_rounded 196,
 * seqlen_k_rounded 200, d_rounded 204, cu_seqlens_q 224, cu_seqlens_k 232.
 * The name says which layouts can be: its namespace (global up to
 * flash-attn 2.7.3, flash from 2.7.4, pytorch_flash for PyTorch) and how
 * many boolean template arguments follow the kernel traits (Is_softcap
 * came with 2.6: 7 -> 8 in the forward, 6 -> 7 in the backward from
 * 2.6.2). Causal, local window, ALiBi, softcap, dropout come from the
 * template arguments (the struct's own is_causal is only checked); the
 * tiles (kBlockM, kBlockN) and the padded head dim the MMAs run (kHeadDim)
 * from the traits in the name.
 *
 * Checks, all of which must hold: dimensions in range, h a multiple of
 * h_k; d a multiple of 8 above the next smaller kernel head dim and at
 * most kHeadDim, d == kHeadDim for an Is_even_K kernel; d_rounded,
 * seqlen_q/k_rounded what some version's flash_api computes from them;
 * the keep probability consistent with Is_dropout; the window consistent
 * with Is_causal / Is_local (flash_api's normalisation: causal =
 * (seqlen_k or -1, 0), local in [0, seqlen_k]); the softcap with
 * Is_softcap; an Is_even_MN kernel's lengths multiples of its blocks; and
 * the grid: forward (ceil(seqlen_q/kBlockM), b, h); split-KV
 * the same, or (.., num_splits, b*h) when split; backward (.., b, h) with
 * ceil(seqlen_k/kBlockN) blocks (any number in deterministic mode). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "decoders.h"
#include "dtype.h"
#include "mangled.h"

enum { L_FA25, L_PT25, L_F260, L_F26, L_FH, L_COUNT };

typedef struct layout {
    const char *what;
    int16_t fwd_size, bwd_size;
    /* -1: no such field */
    int16_t total_q, leftpad, seqused, knew, cache_idx, block_table, p_dropout, win_l, win_r,
        softcap;
    int16_t is_bf16, is_causal, swapped, deterministic; /* the tail: past the common part */
} layout;

static const layout L[L_COUNT] = {
    [L_FA25] = {"flash-attn 2.5", 448, 624, -1, -1, 240, 256, 336, 344, 364, 380, 384, -1, 424, 425,
                -1, 608},
    [L_PT25] = {"PyTorch 2.3-2.6 (FlashAttention 2.5 copy)", 456, 632, -1, -1, 240, 256, 336, 344,
                364, 380, 384, -1, 432, 433, -1, 616},
    [L_F260] = {"flash-attn 2.6.0", 456, 632, 212, -1, 240, 256, 336, 344, 364, 380, 384, 388, 424,
                425, 449, 616},
    [L_F26] = {"flash-attn 2.6.1-2.8, PyTorch 2.7+", 464, 640, 212, 240, 248, 264, 344, 352, 372,
               388, 392, 396, 432, 433, 457, 624},
    [L_FH] = {"FlashAttention after 2026-07 (uint64 philox)", 472, 648, 212, 240, 248, 264, 344,
              352, 372, 388, 392, 396, 440, 441, 465, 632},
};

enum { K_FWD, K_SPLIT, K_BWD };

static int kind_of(int family)
{
    return family == FC_KF_FA2_SPLITKV ? K_SPLIT : family == FC_KF_FA2_BWD ? K_BWD : K_FWD;
}

/* The layouts a name can be: n of them into out. */
static int candidates(const fc_ktraits *t, int kind, int out[3])
{
    int n = 0, b = t->nbools;
    int old = kind == K_BWD ? b == 6 : b == 7; /* before Is_softcap */
    int new = kind == K_BWD ? b == 7 : b == 8;
    switch (t->ns) {
    case FC_FA2_NS_GLOBAL:
        if (old)
            out[n++] = L_FA25;
        if (old && kind == K_BWD) { /* 2.6.0 and 2.6.1 had no softcap in the backward */
            out[n++] = L_F260;
            out[n++] = L_F26;
        }
        if (new &&kind != K_BWD)
            out[n++] = L_F260;
        if (new)
            out[n++] = L_F26;
        break;
    case FC_FA2_NS_FLASH:
    case FC_FA2_NS_PYTORCH:
        if (old && t->ns == FC_FA2_NS_PYTORCH)
            out[n++] = L_PT25;
        if (new) {
            out[n++] = L_F26;
            out[n++] = L_FH;
        }
        break;
    default:
        break;
    }
    return n;
}

static int layout_size(int l, int kind)
{
    return kind == K_BWD ? L[l].bwd_size : L[l].fwd_size;
}

/* ---- the name ---- */

/* The boolean template arguments by position, per kernel and era. */
static const uint16_t fwd_old[] = {FC_FA2_DROPOUT,
                                   FC_FA2_CAUSAL,
                                   FC_FA2_LOCAL,
                                   FC_FA2_ALIBI,
                                   FC_FA2_EVEN_MN,
                                   FC_FA2_EVEN_K,
                                   0 /* Return_softmax */};
static const uint16_t fwd_new[] = {FC_FA2_DROPOUT, FC_FA2_CAUSAL, FC_FA2_LOCAL,   FC_FA2_ALIBI,
                                   FC_FA2_EVEN_MN, FC_FA2_EVEN_K, FC_FA2_SOFTCAP, 0};
static const uint16_t split_old[] = {FC_FA2_CAUSAL, FC_FA2_LOCAL, FC_FA2_ALIBI,    FC_FA2_EVEN_MN,
                                     FC_FA2_EVEN_K, FC_FA2_SPLIT, FC_FA2_APPEND_KV};
static const uint16_t split_new[] = {FC_FA2_CAUSAL, FC_FA2_LOCAL,   FC_FA2_ALIBI, FC_FA2_EVEN_MN,
                                     FC_FA2_EVEN_K, FC_FA2_SOFTCAP, FC_FA2_SPLIT, FC_FA2_APPEND_KV};
static const uint16_t bwd_old[] = {FC_FA2_DROPOUT, FC_FA2_CAUSAL,  FC_FA2_LOCAL,
                                   FC_FA2_ALIBI,   FC_FA2_EVEN_MN, FC_FA2_EVEN_K};
static const uint16_t bwd_new[] = {FC_FA2_DROPOUT, FC_FA2_CAUSAL, FC_FA2_LOCAL,  FC_FA2_ALIBI,
                                   FC_FA2_EVEN_MN, FC_FA2_EVEN_K, FC_FA2_SOFTCAP};

static const char *const source_of[] = {[K_FWD] = "16flash_fwd_kernel",
                                        [K_SPLIT] = "24flash_fwd_splitkv_kernel",
                                        [K_BWD] = "44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel"};

/* 1 when the kernel's parameter list, the end of its mangled name, is the
 * one type `type` (a length-prefixed source name): "...v16Flash_fwd_params"
 * at global scope, "...vNS_16Flash_fwd_paramsE" in a namespace. */
static int takes_only(const char *name, const char *type)
{
    size_t ln = strlen(name), lt = strlen(type);
    if (ln > lt && strcmp(name + ln - lt, type) == 0)
        return 1;
    return ln > lt + 1 && name[ln - 1] == 'E' && strncmp(name + ln - 1 - lt, type, lt) == 0;
}

int fc_fa2_traits(int family, const char *name, fc_ktraits *t, char *why, size_t n)
{
    memset(t, 0, sizeof *t);
    if (family == FC_KF_FA2_OTHER) {
        snprintf(why, n,
                 "a FlashAttention-2 kernel flopcount does not decode (the supported "
                 "backward is the seqk-parallel one)");
        return -1;
    }
    int kind = kind_of(family);
    /* every layout below describes Flash_fwd_params / Flash_bwd_params, at
     * least 448 bytes: a kernel of FlashAttention's name that takes anything
     * else is not read (its argument may be smaller than what is read) */
    const char *ptype = kind == K_BWD ? "16Flash_bwd_params" : "16Flash_fwd_params";
    if (!takes_only(name, ptype)) {
        snprintf(why, n, "the kernel's parameter is not %s", ptype + 2);
        return -1;
    }
    fc_targ a[16];
    int na = fc_mangled_targs(name, NULL, source_of[kind], a, 16);
    if (na < 2 || na > 16 || a[0].kind != FC_TARG_TYPE) {
        snprintf(why, n, "the kernel's template arguments do not parse");
        return -1;
    }
    t->ns = strncmp(name, "_ZN13pytorch_flash", 18) == 0                      ? FC_FA2_NS_PYTORCH
            : strncmp(name, "_ZN5flash", 9) == 0                              ? FC_FA2_NS_FLASH
            : strncmp(name, "_Z", 2) == 0 && name[2] >= '0' && name[2] <= '9' ? FC_FA2_NS_GLOBAL
                                                                              : 0;
    /* the traits: kHeadDim, kBlockM, kBlockN, kNWarps and the element type */
    const char *traits = kind == K_BWD ? "23Flash_bwd_kernel_traits" : "23Flash_fwd_kernel_traits";
    fc_targ tr[12];
    int nt = fc_mangled_targs(a[0].begin, a[0].end, traits, tr, 12);
    if (nt < 4 || tr[0].kind != FC_TARG_INT || tr[1].kind != FC_TARG_INT ||
        tr[2].kind != FC_TARG_INT) {
        snprintf(why, n, "the kernel traits do not parse");
        return -1;
    }
    t->head_dim = (int16_t)tr[0].value;
    t->block_m = (int16_t)tr[1].value;
    t->block_n = (int16_t)tr[2].value;
    int bf = fc_mangled_has(a[0].begin, a[0].end, "10bfloat16_t");
    int hf = fc_mangled_has(a[0].begin, a[0].end, "6half_t");
    if (bf == hf || t->head_dim < 32 || t->head_dim > 256 || t->block_m < 16 || t->block_n < 16) {
        snprintf(why, n, "the kernel traits are not FlashAttention-2's (kHeadDim %d, blocks %dx%d)",
                 t->head_dim, t->block_m, t->block_n);
        return -1;
    }
    t->dtype = bf ? FC_DT_BF16 : FC_DT_FP16;
    const uint16_t *map = NULL;
    int nb = na - 1;
    for (int i = 1; i < na; i++)
        if (a[i].kind != FC_TARG_BOOL) {
            snprintf(why, n, "template argument %d is not a boolean", i);
            return -1;
        }
    if (kind == K_FWD)
        map = nb == 7 ? fwd_old : nb == 8 ? fwd_new : NULL;
    else if (kind == K_SPLIT)
        map = nb == 7 ? split_old : nb == 8 ? split_new : NULL;
    else
        map = nb == 6 ? bwd_old : nb == 7 ? bwd_new : NULL;
    t->nbools = (uint8_t)nb;
    int cand[3];
    if (map == NULL || t->ns == 0 || candidates(t, kind, cand) == 0) {
        snprintf(why, n,
                 "%d boolean template arguments%s: a FlashAttention-2 version before 2.5 "
                 "(PyTorch 2.2 and earlier) or after the known ones; no layout known",
                 nb, t->ns == 0 ? " in an unknown namespace" : "");
        return -1;
    }
    for (int i = 0; i < nb; i++)
        if (a[i + 1].value)
            t->bools |= map[i];
    if ((t->bools & FC_FA2_CAUSAL) && (t->bools & FC_FA2_LOCAL)) {
        snprintf(why, n, "both Is_causal and Is_local set");
        return -1;
    }
    return 0;
}

/* ---- one layout ---- */

static int64_t round_up(int64_t x, int64_t m)
{
    return (x + m - 1) / m * m;
}

/* The largest head dim below kHeadDim that some version's HEADDIM_SWITCH
 * dispatches to: a d above it runs this kernel. 160 and 224 are not in
 * every version (224 dropped in 2.6.2, 160 in 2.8.0), so kHeadDim 192
 * runs d of 129..192 and 256 runs 193..256 in the versions without them;
 * -1: not one of FlashAttention-2's head dims. */
static int64_t head_dim_below(int64_t kd)
{
    static const int16_t kernel[8] = {32, 64, 96, 128, 160, 192, 224, 256};
    static const int16_t below[8] = {0, 32, 64, 96, 128, 128, 192, 192};
    for (int i = 0; i < 8; i++)
        if (kernel[i] == kd)
            return below[i];
    return -1;
}

/* d_rounded as some version's flash_api computes it from d: round_multiple
 * (d, 32) up to 2.6.1 and in PyTorch's 2.5 copy; d <= 192 ? round_multiple
 * (d, 32) : 256 in 2.6.2 .. 2.7.4; round_multiple(d, d <= 128 ? 32 : 64)
 * from 2.8.0. They differ only for d > 128. */
static int d_rounded_ok(int64_t d, int64_t d_r)
{
    return d_r == round_up(d, 32) || d_r == (d <= 192 ? round_up(d, 32) : 256) ||
           d_r == round_up(d, d <= 128 ? 32 : 64);
}

/* Decodes p as layout l (tail: its size is known, the fields past the
 * common part may be read); 0, or -1 with why. */
static int decode_as(int l, int kind, const fc_ktraits *t, const fc_kparams *k, fc_attn *a,
                     char *why, size_t n)
{
    const layout *y = &L[l];
    const void *p = k->p;
    int tail = k->size == layout_size(l, kind);
    int64_t h = fc_kp_i32(p, 96), h_k = fc_kp_i32(p, 100), b = fc_kp_i32(p, 176);
    int64_t s_q = fc_kp_i32(p, 180), s_k = fc_kp_i32(p, 184), d = fc_kp_i32(p, 192);
    int64_t sq_r = fc_kp_i32(p, 196), sk_r = fc_kp_i32(p, 200), d_r = fc_kp_i32(p, 204);
    const void *cu_q = fc_kp_ptr(p, 224), *cu_k = fc_kp_ptr(p, 232);
    const void *seqused = fc_kp_ptr(p, y->seqused);
    const void *leftpad = y->leftpad >= 0 ? fc_kp_ptr(p, y->leftpad) : NULL;
    const void *knew = fc_kp_ptr(p, y->knew), *cache_idx = fc_kp_ptr(p, y->cache_idx);
    const void *table = fc_kp_ptr(p, y->block_table);
    float keep = fc_kp_f32(p, y->p_dropout);
    int64_t wl = fc_kp_i32(p, y->win_l), wr = fc_kp_i32(p, y->win_r);
    float softcap = y->softcap >= 0 ? fc_kp_f32(p, y->softcap) : 0.0f;
    uint16_t bits = t->bools;
    int64_t kd = t->head_dim;
    if (b < 1 || b > (1 << 24) || h < 1 || h > 4096 || h_k < 1 || h_k > h || h % h_k != 0 ||
        s_q < 1 || s_q > (1 << 28) || s_k < 1 || s_k > (1 << 28)) {
        snprintf(why, n, "%s layout: b %lld, h %lld, h_k %lld, seqlen %lld x %lld out of range",
                 y->what, (long long)b, (long long)h, (long long)h_k, (long long)s_q,
                 (long long)s_k);
        return -1;
    }
    if (d % 8 != 0 || d <= head_dim_below(kd) || d > kd || ((bits & FC_FA2_EVEN_K) && d != kd) ||
        !d_rounded_ok(d, d_r) || sq_r != round_up(s_q, 128) || sk_r != round_up(s_k, 128)) {
        snprintf(why, n,
                 "%s layout: head dim %lld (rounded %lld) does not fit kHeadDim %lld, or "
                 "rounded lengths %lld/%lld do not fit %lld x %lld",
                 y->what, (long long)d, (long long)d_r, (long long)kd, (long long)sq_r,
                 (long long)sk_r, (long long)s_q, (long long)s_k);
        return -1;
    }
    int dropout = keep < 1.0f;
    if (!(keep > 0.0f && keep <= 1.0f) ||
        (kind != K_SPLIT && dropout != !!(bits & FC_FA2_DROPOUT)) || (kind == K_SPLIT && dropout)) {
        snprintf(why, n, "%s layout: keep probability %g does not fit the kernel's Is_dropout",
                 y->what, (double)keep);
        return -1;
    }
    int win_ok;
    if (bits & FC_FA2_CAUSAL)
        win_ok = wr == 0 && (wl < 0 || wl >= s_k);
    else if (bits & FC_FA2_LOCAL)
        win_ok = wl >= 0 && wl <= s_k && wr >= 0 && wr <= s_k;
    else
        win_ok = wl < 0 && wr < 0;
    if (!win_ok) {
        snprintf(why, n, "%s layout: window (%lld, %lld) does not fit the kernel's %s", y->what,
                 (long long)wl, (long long)wr,
                 bits & FC_FA2_CAUSAL  ? "Is_causal"
                 : bits & FC_FA2_LOCAL ? "Is_local"
                                       : "no mask");
        return -1;
    }
    if (y->softcap >= 0 &&
        !(isfinite(softcap) && softcap >= 0.0f && (softcap > 0.0f) == !!(bits & FC_FA2_SOFTCAP))) {
        snprintf(why, n, "%s layout: softcap %g does not fit the kernel's Is_softcap", y->what,
                 (double)softcap);
        return -1;
    }
    int varlen = cu_q != NULL || cu_k != NULL;
    if ((bits & FC_FA2_EVEN_MN) && (varlen || s_q % t->block_m || s_k % t->block_n)) {
        snprintf(why, n,
                 "%s layout: lengths %lld x %lld are not multiples of the kernel's blocks "
                 "(Is_even_MN)",
                 y->what, (long long)s_q, (long long)s_k);
        return -1;
    }
    if (tail) {
        uint8_t bf16 = fc_kp_u8(p, y->is_bf16), causal = fc_kp_u8(p, y->is_causal);
        if (bf16 > 1 || causal > 1 || bf16 != (t->dtype == FC_DT_BF16) ||
            (causal != 0) != !!(bits & FC_FA2_CAUSAL)) {
            snprintf(why, n, "%s layout: is_bf16 %u / is_causal %u do not fit the kernel", y->what,
                     bf16, causal);
            return -1;
        }
    }
    /* the grid */
    int64_t gx = k->grid[0], gy = k->grid[1], gz = k->grid[2];
    int grid_ok;
    if (kind == K_FWD)
        grid_ok = gx == fc_kp_ceil(s_q, t->block_m) && gy == b && gz == h;
    else if (kind == K_SPLIT)
        grid_ok = gx == fc_kp_ceil(s_q, t->block_m) &&
                  ((bits & FC_FA2_SPLIT) ? gy >= 2 && gz == b * h : gy == b && gz == h);
    else {
        int det = tail ? fc_kp_u8(p, y->deterministic) : -1;
        grid_ok = gy == b && gz == h && gx >= 1 &&
                  (gx == fc_kp_ceil(s_k, t->block_n) || det == 1 || det == -1) && det <= 1;
    }
    if (!grid_ok) {
        snprintf(why, n,
                 "%s layout: grid (%lld, %lld, %lld) does not fit b %lld, h %lld, "
                 "seqlen %lld x %lld",
                 y->what, (long long)gx, (long long)gy, (long long)gz, (long long)b, (long long)h,
                 (long long)s_q, (long long)s_k);
        return -1;
    }
    const int64_t dims[7] = {b, h, h_k, s_q, s_k, d, d};
    fc_kp_shape(a, FC_ATTN_SRC_FLASH, kind == K_BWD ? FC_ATTN_BWD : FC_ATTN_FWD, t, dims);
    a->align = FC_ATTN_BOTTOM_RIGHT; /* FlashAttention >= 2.1 */
    a->window_left = (bits & FC_FA2_LOCAL) ? wl : -1;
    a->window_right = (bits & (FC_FA2_CAUSAL | FC_FA2_LOCAL)) ? wr : -1;
    if (bits & FC_FA2_CAUSAL)
        a->window_right = 0;
    a->d_pad = a->d_v_pad = (int32_t)kd;
    /* lengths the host cannot see (device arrays): the maxima, a bound */
    if (varlen || seqused || leftpad || knew || cache_idx || table || (bits & FC_FA2_APPEND_KV))
        a->flags |= FC_ATTN_BOUND;
    if (dropout)
        a->flags |= FC_ATTN_DROPOUT;
    if (bits & FC_FA2_SOFTCAP)
        a->flags |= FC_ATTN_SOFTCAP;
    if (bits & FC_FA2_ALIBI)
        a->flags |= FC_ATTN_BIAS;
    /* varlen without a mask: total_q (2.6 on) bounds the query rows more
     * tightly than b x max_seqlen_q: sum_i len_q,i x len_k,i <= total_q x max
     * len_k, written as one sequence of total_q queries */
    if (y->total_q >= 0 && cu_q != NULL && !(bits & (FC_FA2_CAUSAL | FC_FA2_LOCAL))) {
        int64_t total_q = fc_kp_i32(p, y->total_q);
        if (total_q >= 1 && total_q < b * s_q) {
            a->b = 1;
            a->s_q = total_q;
        }
    }
    return 0;
}

const char *fc_fa2_layout_name(int variant)
{
    return variant >= 1 && variant <= L_COUNT ? L[variant - 1].what : NULL;
}

int fc_fa2_decode(int family, const fc_ktraits *t, const fc_kparams *k, fc_attn *a, char *why,
                  size_t n)
{
    int kind = kind_of(family), cand[3];
    int nc = candidates(t, kind, cand);
    if (fc_kp_check_call(k, "FlashAttention-2", why, n) != 0)
        return -1;
    /* the size the runtime/driver reports picks the layout */
    if (k->size > 0) {
        int picked = 0;
        for (int i = 0; i < nc; i++)
            if (layout_size(cand[i], kind) == k->size)
                cand[picked++] = cand[i];
        if (picked == 0) {
            char known[64] = "";
            for (int i = 0; i < nc; i++) {
                size_t u = strlen(known);
                snprintf(known + u, sizeof known - u, "%s%d", i ? ", " : "",
                         layout_size(cand[i], kind));
            }
            snprintf(why, n,
                     "param 0 is %lld bytes; FlashAttention-2 layouts known for this "
                     "kernel: %s",
                     (long long)k->size, known);
            return -1;
        }
        nc = picked;
    }
    /* never read past what is there: without the size, only the part
     * every candidate has (the fields read end at 400, below the smallest
     * struct, 448 bytes) */
    int64_t need = k->size > 0 ? k->size : 400;
    if (k->avail > 0 && k->avail < need) {
        snprintf(why, n, "only %lld bytes of parameters passed", (long long)k->avail);
        return -1;
    }
    fc_attn got[3];
    int ok = 0, layout = -1;
    char first[256] = "";
    for (int i = 0; i < nc; i++) {
        char w[256];
        if (decode_as(cand[i], kind, t, k, &got[ok], w, sizeof w) == 0)
            ok++, layout = cand[i];
        else if (first[0] == '\0')
            snprintf(first, sizeof first, "%s", w);
    }
    int rc = fc_kp_pick(got, ok, first, "FlashAttention-2", a, why, n);
    /* the layout it was read as, when one alone fit (several giving the
     * same shape: the shape is sure, the layout is not) */
    if (rc == 0 && ok == 1)
        a->variant = (uint8_t)(layout + 1);
    return rc;
}
