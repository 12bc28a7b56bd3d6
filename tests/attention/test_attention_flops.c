/* SPDX-License-Identifier: Apache-2.0 */
/* test_attention_flops.c - analysis/attention.c: visible pairs, tiles and the
 * three FLOP figures, against hand counts and against a brute-force walk of
 * every (query, key) pair and every tile, written here independently of
 * the closed forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "attention.h"
#include "dtype.h"

static fc_attn shape(int64_t s_q, int64_t s_k, int64_t wl, int64_t wr, int align)
{
    fc_attn a = {.source = FC_ATTN_SRC_FLASH, .dir = FC_ATTN_FWD, .align = (uint8_t)align,
                 .dtype = FC_DT_BF16, .b = 1, .h = 1, .h_k = 1, .s_q = s_q, .s_k = s_k,
                 .d = 64, .d_v = 64, .window_left = wl, .window_right = wr};
    return a;
}

/* Query i sees key j: the band of attention.h, checked pair by pair. */
static int sees(const fc_attn *a, int64_t i, int64_t j)
{
    int64_t off = a->align == FC_ATTN_BOTTOM_RIGHT ? a->s_k - a->s_q : 0;
    if (a->window_left >= 0 && j < i + off - a->window_left)
        return 0;
    if (a->window_right >= 0 && j > i + off + a->window_right)
        return 0;
    return 1;
}

static uint64_t brute_pairs(const fc_attn *a)
{
    uint64_t n = 0;
    for (int64_t i = 0; i < a->s_q; i++)
        for (int64_t j = 0; j < a->s_k; j++)
            n += (uint64_t)sees(a, i, j);
    return n;
}

/* Tiles as a block-skipping kernel walks them: for each outer block, the
 * inner blocks between the first and the last inner index that any
 * nominal row (column) of the outer block - up to (m + 1) x block, past the
 * sequence's end too - can see, found by scanning. */
static uint64_t brute_tiles(const fc_attn *a)
{
    int64_t bm = a->block_m, bn = a->block_n;
    uint64_t n = 0;
    if (a->dir == FC_ATTN_FWD) {
        for (int64_t m = 0; m * bm < a->s_q; m++) {
            int64_t lo = -1, hi = -1;
            for (int64_t i = m * bm; i < (m + 1) * bm; i++)
                for (int64_t j = 0; j < a->s_k; j++)
                    if (sees(a, i, j)) {
                        if (lo < 0 || j < lo)
                            lo = j;
                        if (j > hi)
                            hi = j;
                    }
            if (lo >= 0)
                n += (uint64_t)(hi / bn - lo / bn + 1);
        }
    } else {
        for (int64_t c = 0; c * bn < a->s_k; c++) {
            int64_t lo = -1, hi = -1;
            for (int64_t j = c * bn; j < (c + 1) * bn; j++)
                for (int64_t i = 0; i < a->s_q; i++)
                    if (sees(a, i, j)) {
                        if (lo < 0 || i < lo)
                            lo = i;
                        if (i > hi)
                            hi = i;
                    }
            if (lo >= 0)
                n += (uint64_t)(hi / bm - lo / bm + 1);
        }
    }
    return n;
}

static void test_hand_counts(void **st)
{
    (void)st;
    /* no mask: s_q x s_k */
    fc_attn a = shape(5, 7, -1, -1, FC_ATTN_TOP_LEFT);
    assert_true(fc_attn_pairs(&a) == 35);
    /* causal, square, either alignment: 1 + 2 + 3 + 4 = 10 */
    a = shape(4, 4, -1, 0, FC_ATTN_TOP_LEFT);
    assert_true(fc_attn_pairs(&a) == 10);
    a.align = FC_ATTN_BOTTOM_RIGHT;
    assert_true(fc_attn_pairs(&a) == 10);
    /* causal top-left, 3 queries over 5 keys: 1 + 2 + 3 */
    a = shape(3, 5, -1, 0, FC_ATTN_TOP_LEFT);
    assert_true(fc_attn_pairs(&a) == 6);
    /* bottom-right: query i sees keys 0..i+2: 3 + 4 + 5 */
    a.align = FC_ATTN_BOTTOM_RIGHT;
    assert_true(fc_attn_pairs(&a) == 12);
    /* bottom-right, more queries than keys: 5 queries over 3 keys see
     * 0, 0, 1, 2, 3 keys */
    a = shape(5, 3, -1, 0, FC_ATTN_BOTTOM_RIGHT);
    assert_true(fc_attn_pairs(&a) == 6);
    /* a sliding window of 3 keys (left 2, right 0), 6 x 6: 1 + 2 + 3 x 4 */
    a = shape(6, 6, 2, 0, FC_ATTN_TOP_LEFT);
    assert_true(fc_attn_pairs(&a) == 15);
    /* a symmetric band (left 1, right 1), 4 x 4: 2 + 3 + 3 + 2 */
    a = shape(4, 4, 1, 1, FC_ATTN_TOP_LEFT);
    assert_true(fc_attn_pairs(&a) == 10);
    /* a window larger than the sequence is causal */
    a = shape(8, 8, 100, 0, FC_ATTN_TOP_LEFT);
    assert_true(fc_attn_pairs(&a) == 36);
}

static void test_flops_figures(void **st)
{
    (void)st;
    /* b 2, h 8 (kv 2: GQA leaves the products alone), s 128 causal, d 64:
     * pairs per head 128 x 129 / 2 = 8256 */
    fc_attn a = shape(128, 128, -1, 0, FC_ATTN_TOP_LEFT);
    a.b = 2;
    a.h = 8;
    a.h_k = 2;
    fc_attn_flops f;
    assert_int_equal(fc_attn_flops_of(&a, &f), 0);
    uint64_t heads = 16, p = 8256;
    assert_true(f.pairs == (fc_u128)(p * heads));
    assert_true(f.executed == (fc_u128)(4 * 64 * p * heads)); /* 2 products of 2 d per pair */
    assert_true(f.model == f.executed);
    assert_true(f.tiles == 0); /* no tile shape given */
    a.dir = FC_ATTN_BWD;
    fc_attn_flops_of(&a, &f);
    assert_true(f.executed == (fc_u128)(10 * 64 * p * heads)); /* 2.5 x the forward */
    assert_true(f.model == (fc_u128)(8 * 64 * p * heads));     /* 2 x the forward */
    /* d != d_v (MLA: 192 and 128): forward 2P(d + d_v), backward 2P(3d + 2d_v) */
    a = shape(16, 16, -1, -1, FC_ATTN_TOP_LEFT);
    a.d = 192;
    a.d_v = 128;
    fc_attn_flops_of(&a, &f);
    assert_true(f.executed == (fc_u128)(2 * 256 * (192 + 128)));
    a.dir = FC_ATTN_BWD;
    fc_attn_flops_of(&a, &f);
    assert_true(f.executed == (fc_u128)(2 * 256 * (3 * 192 + 2 * 128)));
    assert_true(f.model == (fc_u128)(4 * 256 * (192 + 128)));
    /* tiles: s 200 causal, 128 x 64 blocks, d 80 padded to 96: query block 0
     * (rows 0..127) sees keys 0..127: 2 tiles; block 1 (nominal rows
     * 128..255) keys 0..199 (clipped): 4 tiles; 6 tiles of 2 x 128 x 64 x
     * (96 + 96) FLOPs each */
    a = shape(200, 200, -1, 0, FC_ATTN_TOP_LEFT);
    a.d = a.d_v = 80;
    a.block_m = 128;
    a.block_n = 64;
    a.d_pad = a.d_v_pad = 96;
    assert_true(fc_attn_tiles(&a) == 6);
    fc_attn_flops_of(&a, &f);
    assert_true(f.tiles == (fc_u128)6 * 2 * 128 * 64 * 192);
    /* backward walks key blocks: block 0 (keys 0..63) is seen by rows
     * 0..199: 2 query blocks; 1 (64..127): rows 64..199: 2; 2 (128..191):
     * rows 128..199: 1; 3 (192..255): rows 192..199: 1; 6 tiles of
     * 2 x 128 x 64 x (3 x 96 + 2 x 96) */
    a.dir = FC_ATTN_BWD;
    assert_true(fc_attn_tiles(&a) == 6);
    fc_attn_flops_of(&a, &f);
    assert_true(f.tiles == (fc_u128)6 * 2 * 128 * 64 * 480);
}

static void test_against_brute_force(void **st)
{
    (void)st;
    srand(12345);
    for (int t = 0; t < 4000; t++) {
        int64_t s_q = 1 + rand() % 70, s_k = 1 + rand() % 70;
        int64_t wl = rand() % 3 == 0 ? -1 : rand() % 40;
        int64_t wr = rand() % 3 == 0 ? -1 : rand() % 40;
        fc_attn a = shape(s_q, s_k, wl, wr, rand() % 2);
        assert_true(fc_attn_pairs(&a) == brute_pairs(&a));
        a.block_m = 1 + rand() % 33;
        a.block_n = 1 + rand() % 33;
        a.dir = (uint8_t)(rand() % 2);
        assert_true(fc_attn_tiles(&a) == brute_tiles(&a));
    }
}

static void test_invalid(void **st)
{
    (void)st;
    fc_attn a = shape(8, 8, -1, 0, FC_ATTN_TOP_LEFT);
    fc_attn_flops f;
    a.h = 6;
    a.h_k = 4; /* heads not a multiple of kv heads */
    assert_int_equal(fc_attn_flops_of(&a, &f), -1);
    assert_true(f.executed == 0 && f.model == 0);
    a = shape(0, 8, -1, 0, FC_ATTN_TOP_LEFT);
    assert_false(fc_attn_valid(&a));
    assert_true(fc_attn_pairs(&a) == 0);
    a = shape(8, 8, -1, 0, 7); /* alignment out of range */
    assert_false(fc_attn_valid(&a));
    a = shape(8, 8, -1, 0, FC_ATTN_TOP_LEFT);
    a.d = (int64_t)1 << 40;
    assert_false(fc_attn_valid(&a));
}

static void test_names(void **st)
{
    (void)st;
    fc_attn a = shape(4, 4, -1, -1, 0);
    assert_string_equal(fc_attn_mask_name(&a), "none");
    a.window_right = 0;
    assert_string_equal(fc_attn_mask_name(&a), "causal");
    a.window_left = 127;
    assert_string_equal(fc_attn_mask_name(&a), "window");
    assert_string_equal(fc_attn_source_name(FC_ATTN_SRC_CUDNN), "cudnn");
    assert_string_equal(fc_attn_source_name(99), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_counts),
        cmocka_unit_test(test_flops_figures),
        cmocka_unit_test(test_against_brute_force),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
