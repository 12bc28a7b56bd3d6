/* SPDX-License-Identifier: Apache-2.0 */
/* test_attention_figures.c - counted fused attention on the live line
 * (shim/report/live_attention.c) and in the Prometheus file
 * (shim/report/prom_attention.c), from hand-made shapes and totals.
 *
 * The iteration (tests/attention/report_attention.py's model): l=2, one
 * causal flash call each way per layer of b=2 h=4, 32 x 32, d=16: forward
 * 270,336 per call, backward 675,840 executed (540,672 at the model
 * convention). Per iteration: forward 13,910,016, backward 28,090,368,
 * excess 2 x 135,168 = 270,336; attention 2 x (270,336 + 675,840) =
 * 1,892,352 of the 42,000,384: 4.5055...%. argv[1]: where the Prometheus
 * text goes (promtool checks it after this program). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "count/attn_table.h"
#include "live_attention.h"
#include "prom_attention.h"

static const char *prom_path;

static void test_share(void **st)
{
    (void)st;
    char b[32];
    assert_string_equal(
        fc_live_attn_share(13910016u, 28090368u, 0, 270336u, 16, 16, 0, b, sizeof b), " attn 4.5%");
    /* recompute in the iteration: a recomputed forward is not told apart */
    assert_string_equal(fc_live_attn_share(13910016u, 28090368u, 1000000u, 270336u, 16, 16, 0, b,
                                           sizeof b),
                        " attn >=4.4%"); /* 1,892,352 / 43,000,384 */
    /* lengths that are maxima: an upper bound; with recompute as well, nothing can be said */
    assert_string_equal(
        fc_live_attn_share(13910016u, 28090368u, 0, 270336u, 16, 16, 1, b, sizeof b), " attn <=4.5%");
    assert_string_equal(
        fc_live_attn_share(13910016u, 28090368u, 1u, 270336u, 16, 16, 1, b, sizeof b), " attn n/a");
    /* MLA-like d 192, dv 128: excess 2 P 192, forward 2 P 320 per head;
     * P = 100 pairs, 1 head: excess 38,400, forward 64,000, backward
     * 2 x 64,000 + 38,400: attention 230,400 of 1,000,000 */
    assert_string_equal(fc_live_attn_share(500000u, 500000u, 0, 38400u, 192, 128, 0, b, sizeof b),
                        " attn 23.0%");
    assert_string_equal(fc_live_attn_share(1u, 2u, 0, 270336u, 0, 0, 0, b, sizeof b), " attn n/a");
    assert_string_equal(fc_live_attn_share(1u, 2u, 0, 0, 16, 16, 0, b, sizeof b), "");
}

static fc_attn shape(int bwd, int64_t d)
{
    fc_attn a = {.source = FC_ATTN_SRC_FLASH, .dir = (uint8_t)bwd, .align = FC_ATTN_BOTTOM_RIGHT,
                 .b = 2, .h = 4, .h_k = 4, .s_q = 32, .s_k = 32, .d = d, .d_v = d,
                 .window_left = -1, .window_right = 0};
    return a;
}

static void add(fc_attn a, int calls)
{
    fc_attn_flops f;
    assert_int_equal(fc_attn_flops_of(&a, &f), 0);
    for (int i = 0; i < calls; i++)
        fc_attn_table_add(&a, &f, 1);
}

/* The head dims from the table: one pair, then a second */
static void test_from_table(void **st)
{
    (void)st;
    char b[32];
    fc_iteration it = {.fwd = 13910016u, .bwd = 28090368u, .xs = 270336u};
    fc_attn_table_reset();
    assert_string_equal(fc_live_attention(&it, b, sizeof b), ""); /* nothing counted */
    add(shape(0, 16), 2);
    add(shape(1, 16), 2);
    fc_attn_totals t;
    fc_attn_table_totals(&t);
    assert_true(t.executed == 2u * 270336u + 2u * 675840u); /* the figures above */
    assert_string_equal(fc_live_attention(&it, b, sizeof b), " attn 4.5%");
    fc_attn bound = shape(0, 16);
    bound.flags = FC_ATTN_BOUND;
    add(bound, 1); /* a forward whose lengths are maxima: the share is an upper bound */
    assert_string_equal(fc_live_attention(&it, b, sizeof b), " attn <=4.5%");
    add(shape(1, 32), 1); /* a second pair of head dims: the share cannot be had */
    assert_string_equal(fc_live_attention(&it, b, sizeof b), " attn n/a");
    fc_attn_table_reset();
}

/* The overflow lump of shapes beyond the table keeps the bound apart:
 * FC_ATTN_CAPACITY exact shapes fill it (s_q 1 .. 1024 over 32 keys, no
 * mask), then a varlen call (lengths are maxima) and an exact one of
 * shapes not in it go to two lumps; the varlen one stays marked a bound,
 * with its figures: b 2 x h 4, 2000 x 32, d 16, no mask: 8 heads x 64,000
 * pairs x 2 x (16 + 16) = 32,768,000; the exact one 2001 x 32: 8 x 64,032
 * x 64 = 32,784,384. */
static fc_attn_view lumps[2];
static void copy_lump(const fc_attn_view *v, void *ctx)
{
    (void)ctx;
    if (v->key.b < 0)
        lumps[(v->key.flags & FC_ATTN_BOUND) != 0] = *v;
}

static void test_overflow_bound(void **st)
{
    (void)st;
    fc_attn_table_reset();
    fc_attn a = shape(0, 16);
    a.window_right = -1;
    for (int i = 1; i <= FC_ATTN_CAPACITY; i++) {
        a.s_q = i;
        add(a, 1);
    }
    fc_attn varlen = a, exact = a;
    varlen.s_q = 2000;
    varlen.flags = FC_ATTN_BOUND;
    exact.s_q = 2001;
    add(varlen, 1);
    add(exact, 1);
    memset(lumps, 0, sizeof lumps);
    fc_attn_table_foreach(copy_lump, NULL);
    assert_int_equal(lumps[1].calls, 1);
    assert_true(lumps[1].key.flags & FC_ATTN_BOUND);
    assert_true(lumps[1].executed == 32768000u);
    assert_int_equal(lumps[0].calls, 1);
    assert_false(lumps[0].key.flags & FC_ATTN_BOUND);
    assert_true(lumps[0].executed == 32784384u);
    fc_attn_totals t;
    fc_attn_table_totals(&t);
    assert_int_equal(t.overflow_calls, 2);
    fc_attn_table_reset();
}

static void test_prometheus(void **st)
{
    (void)st;
    char buf[2048] = "";
    size_t used = 0;
    fc_attn_totals t;
    memset(&t, 0, sizeof t);
    assert_int_equal(fc_prom_attention(&t, "rank=\"0\"", buf, sizeof buf, &used), 0);
    assert_int_equal(used, 0); /* no attention: no metric */
    t.calls = 24;
    t.calls_by_source[FC_ATTN_SRC_FLASH] = 16;
    t.executed_by_source[FC_ATTN_SRC_FLASH] = 7569408u;
    t.calls_by_source[FC_ATTN_SRC_CUDNN] = 8;
    t.executed_by_source[FC_ATTN_SRC_CUDNN] = ((fc_u128)1 << 64) + 1; /* exact past 2^64 */
    assert_int_equal(fc_prom_attention(&t, "rank=\"0\",pid=\"7\"", buf, sizeof buf, &used), 0);
    assert_int_equal(used, strlen(buf));
    assert_non_null(strstr(buf, "\nflopcount_attention_flops_total{rank=\"0\",pid=\"7\","
                                "source=\"flash\"} 7569408\n"));
    assert_non_null(strstr(buf, "\nflopcount_attention_flops_total{rank=\"0\",pid=\"7\","
                                "source=\"cudnn\"} 18446744073709551617\n"));
    assert_non_null(strstr(buf, "\nflopcount_attention_calls_total{rank=\"0\",pid=\"7\","
                                "source=\"flash\"} 16\n"));
    assert_non_null(strstr(buf, "source=\"cudnn\"} 8\n"));
    assert_null(strstr(buf, "source=\"efficient\"")); /* no call of it */
    assert_non_null(strstr(buf, "# TYPE flopcount_attention_calls_total counter\n"));
    /* too small a buffer: refused whole, nothing half written counted */
    size_t small = 0;
    char tiny[64];
    assert_int_equal(fc_prom_attention(&t, "", tiny, sizeof tiny, &small), -1);
    assert_int_equal(small, 0);
    FILE *f = fopen(prom_path, "w");
    assert_non_null(f);
    fputs(buf, f);
    fclose(f);
}

int main(int argc, char **argv)
{
    prom_path = argc > 1 ? argv[1] : "/dev/null";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_share),
        cmocka_unit_test(test_from_table),
        cmocka_unit_test(test_overflow_bound),
        cmocka_unit_test(test_prometheus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
