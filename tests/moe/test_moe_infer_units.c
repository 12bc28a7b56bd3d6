/* SPDX-License-Identifier: Apache-2.0 */
/* test_moe_infer_units.c - the experts read off grouped calls
 * (analysis/infer_grouped.c) on forward profiles written by hand: a gated
 * fused up projection over two MoE layers routed differently (imbalance per
 * layer, its max and mean), top-k a bound when the routed rows are no
 * whole number of tokens, gate and up as two grouped calls of one shape,
 * no down projection (experts a bound), no dense GEMM (tokens unknown), and
 * a profile without grouped calls. Every number is worked out in the
 * comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "infer_grouped.h"

static fc_fwd_gemm G[64];
static size_t nG;

/* A weight GEMM, A the weight: m = out, n = tokens, k = in. */
static void add(int grouped, int64_t out, int64_t tok, int64_t in, uint64_t count)
{
    fc_fwd_gemm *g = &G[nG++];
    memset(g, 0, sizeof *g);
    g->m = out, g->n = tok, g->k = in, g->batch = 1, g->count = count;
    g->transa = g->transb = 'N';
    g->weight = 1;
    g->grouped = grouped;
    g->flops = (fc_u128)2 * out * tok * in * count;
}

static void read_it(fc_moe_grouped *m)
{
    fc_fwd_profile p = {G, nG, 0, 0};
    fc_moe_grouped_read(&p, m);
}

/* Two layers, H = 16, E = 4, F = 24, gate+up fused (48 wide), T = 32,
 * top-2: 64 rows a layer. Layer 1 rows {16,16,16,16}: imbalance 1.0;
 * layer 2 {8,24,16,16}: max 24 / mean 16 = 1.5. Max 1.5, mean 1.25, rows
 * 8..24. Router 16 -> 4 on 32 tokens before each; no shared expert. */
static void two_layers_gated(void **state)
{
    (void)state;
    nG = 0;
    const int64_t rows[2][4] = {{16, 16, 16, 16}, {8, 24, 16, 16}};
    for (int l = 0; l < 2; l++) {
        add(0, 48, 32, 16, 1); /* attention-ish projection on the tokens */
        add(0, 4, 32, 16, 1);  /* router */
        for (int e = 0; e < 4; e++)
            add(1, 48, rows[l][e], 16, 1);
        for (int e = 0; e < 4; e++)
            add(1, 16, rows[l][e], 24, 1);
    }
    fc_moe_grouped m;
    read_it(&m);
    assert_true(m.found);
    assert_int_equal(m.calls, 4);
    assert_int_equal(m.layers, 2);
    assert_int_equal(m.experts.status, FC_MOE_EXACT);
    assert_int_equal(m.experts.value, 4);
    assert_non_null(strstr(m.experts.note, "router"));
    assert_int_equal(m.moe_ffn.value, 24);
    assert_true(m.gated);
    assert_int_equal(m.tokens.value, 32);
    assert_int_equal(m.topk.status, FC_MOE_EXACT);
    assert_int_equal(m.topk.value, 2);
    assert_int_equal(m.shared.status, FC_MOE_EXACT);
    assert_int_equal(m.shared.value, 0);
    assert_int_equal(m.rows_min, 8);
    assert_int_equal(m.rows_max, 24);
    assert_true(m.imbalance_max > 1.5 - 1e-12 && m.imbalance_max < 1.5 + 1e-12);
    assert_true(m.imbalance_mean > 1.25 - 1e-12 && m.imbalance_mean < 1.25 + 1e-12);
}

/* Balanced experts as runs of equal shapes (count 3), gate and up two
 * calls of one shape (merged: 6 groups), down 3 groups: experts 3, gated,
 * width 8. T = 10, rows 7 each: routed 21, 21 / 10 is no whole number: top-k
 * at least 3 (a bound). A shared gated expert (gate, up, down of width 20)
 * after the down projection. */
static void merged_gate_up_bound(void **state)
{
    (void)state;
    nG = 0;
    add(0, 3, 10, 12, 1);  /* router */
    add(1, 8, 7, 12, 3);   /* gate */
    add(1, 8, 7, 12, 3);   /* up: same shape, a separate entry */
    add(1, 12, 7, 8, 3);   /* down */
    add(0, 20, 10, 12, 1); /* shared gate */
    add(0, 20, 10, 12, 1); /* shared up */
    add(0, 12, 10, 20, 1); /* shared down */
    fc_moe_grouped m;
    read_it(&m);
    assert_int_equal(m.calls, 2);
    assert_int_equal(m.experts.value, 3);
    assert_true(m.gated);
    assert_int_equal(m.moe_ffn.value, 8);
    assert_int_equal(m.topk.status, FC_MOE_BOUND);
    assert_int_equal(m.topk.value, 3);
    assert_int_equal(m.shared.value, 1);
    assert_int_equal(m.shared_ffn.value, 20);
    assert_true(m.imbalance_max > 1.0 - 1e-12 && m.imbalance_max < 1.0 + 1e-12);
}

/* Only up projections (no call returns to the hidden width): experts at
 * most the groups, the rest unknown. */
static void no_down(void **state)
{
    (void)state;
    nG = 0;
    add(0, 4, 32, 16, 1);
    add(1, 24, 9, 16, 1);
    add(1, 24, 7, 16, 1);
    fc_moe_grouped m;
    read_it(&m);
    assert_int_equal(m.experts.status, FC_MOE_BOUND);
    assert_int_equal(m.experts.value, 2);
    assert_int_equal(m.moe_ffn.status, FC_MOE_UNKNOWN);
    assert_int_equal(m.topk.status, FC_MOE_UNKNOWN);
    assert_int_equal(m.layers, 0);
}

/* Grouped calls alone: experts and width exact, tokens (and so top-k and
 * shared) unknown; imbalance 9 / 8 = 1.125. */
static void no_dense(void **state)
{
    (void)state;
    nG = 0;
    add(1, 24, 9, 16, 1);
    add(1, 24, 7, 16, 1);
    add(1, 16, 9, 24, 1);
    add(1, 16, 7, 24, 1);
    fc_moe_grouped m;
    read_it(&m);
    assert_int_equal(m.experts.value, 2);
    assert_int_equal(m.moe_ffn.value, 24);
    assert_false(m.gated);
    assert_int_equal(m.tokens.status, FC_MOE_UNKNOWN);
    assert_int_equal(m.topk.status, FC_MOE_UNKNOWN);
    assert_int_equal(m.shared.status, FC_MOE_UNKNOWN);
    assert_true(m.imbalance_max > 1.125 - 1e-12 && m.imbalance_max < 1.125 + 1e-12);
}

static void none(void **state)
{
    (void)state;
    nG = 0;
    add(0, 4, 32, 16, 1);
    fc_moe_grouped m;
    read_it(&m);
    assert_false(m.found);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_layers_gated),
        cmocka_unit_test(merged_gate_up_bound),
        cmocka_unit_test(no_down),
        cmocka_unit_test(no_dense),
        cmocka_unit_test(none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
