/* SPDX-License-Identifier: Apache-2.0 */
/* test_report_read_attn.c - the reader of counted fused attention
 * (analysis/io/report_attention.c): the "attention" section, the
 * "uncounted" list, totals.attention_*, iterations' attention_excess_flops
 * and the attention entries of the forward profile, from a report written
 * here by hand; each figure worked out in the comments. Reports without
 * them read as before; a known field of the wrong type is one line naming
 * the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_read.h"

/* Shapes, by hand (attention.h's figures):
 *  A flash forward, b=2 h=4 kv=4, 32 x 32, d=16, causal: 32*33/2 = 528
 *    pairs per head; per call 2*528*(16+16) x 8 heads = 270,336 executed
 *    and model; tiles 16 x 16 at d 32: 3 tiles x 2*16*16*64 x 8 = 786,432;
 *    10 calls: 2,703,360 and 7,864,320.
 *  B its backward: 2*528*(3*16+2*16) x 8 = 675,840 executed, 540,672
 *    model (2x forward); tiles 3 x 2*16*16*(96+64) x 8 = 1,966,080; 10
 *    calls: 6,758,400, 5,406,720, 19,660,800.
 *  C cuDNN forward, b=1 h=8 kv=2, 64 x 64, d=64, unmasked, lengths a
 *    bound: 2*4096*128 x 8 = 8,388,608 per call, no tiles; 3 calls (and 1
 *    failed): 25,165,824.
 *  D shapes beyond the shim's table (efficient backward): 2 calls, 1,000
 *    executed, 800 model.
 * Totals: 25 calls, 1 failed; executed 34,628,584, model 33,276,704,
 * tiles 27,525,120, 5 calls without tiles; by source flash 20 calls
 * 9,461,760, cudnn 3 calls 25,165,824, efficient 2 calls 1,000. */
static const char *const attention_json =
    "\"attention\": {\"calls\": 25, \"failed_calls\": 1, \"flops\": 34628584,"
    " \"model_flops\": 33276704, \"tile_flops\": 27525120, \"tile_unknown_calls\": 5,"
    " \"distinct_shapes\": 3, \"overflow_calls\": 2,"
    " \"by_source\": {\"flash\": {\"calls\": 20, \"flops\": 9461760},"
    "   \"efficient\": {\"calls\": 2, \"flops\": 1000},"
    "   \"cudnn\": {\"calls\": 3, \"flops\": 25165824}},"
    " \"shapes\": ["
    "  {\"source\": \"flash\", \"direction\": \"forward\", \"dtype\": \"bf16\", \"batch\": 2,"
    "   \"heads\": 4, \"kv_heads\": 4, \"seq_q\": 32, \"seq_k\": 32, \"head_dim\": 16,"
    "   \"head_dim_v\": 16, \"mask\": \"causal\", \"align\": \"bottom_right\", \"window_left\": -1,"
    "   \"window_right\": 0, \"bound\": false, \"dropout\": true, \"softcap\": false,"
    "   \"bias\": false, \"block_m\": 16, \"block_n\": 16, \"head_dim_padded\": 32,"
    "   \"head_dim_v_padded\": 32, \"per_call\": {\"flops\": 270336, \"model_flops\": 270336,"
    "   \"tile_flops\": 786432, \"pairs\": 4224}, \"calls\": 10, \"failed_calls\": 0,"
    "   \"flops\": 2703360, \"model_flops\": 2703360, \"tile_flops\": 7864320},"
    "  {\"source\": \"flash\", \"direction\": \"backward\", \"dtype\": \"bf16\", \"batch\": 2,"
    "   \"heads\": 4, \"kv_heads\": 4, \"seq_q\": 32, \"seq_k\": 32, \"head_dim\": 16,"
    "   \"head_dim_v\": 16, \"mask\": \"causal\", \"align\": \"bottom_right\", \"window_left\": -1,"
    "   \"window_right\": 0, \"bound\": false, \"dropout\": true, \"softcap\": false,"
    "   \"bias\": false, \"block_m\": 16, \"block_n\": 16, \"head_dim_padded\": 32,"
    "   \"head_dim_v_padded\": 32, \"per_call\": {\"flops\": 675840, \"model_flops\": 540672,"
    "   \"tile_flops\": 1966080, \"pairs\": 4224}, \"calls\": 10, \"failed_calls\": 0,"
    "   \"flops\": 6758400, \"model_flops\": 5406720, \"tile_flops\": 19660800},"
    "  {\"source\": \"cudnn\", \"direction\": \"forward\", \"dtype\": \"fp16\", \"batch\": 1,"
    "   \"heads\": 8, \"kv_heads\": 2, \"seq_q\": 64, \"seq_k\": 64, \"head_dim\": 64,"
    "   \"head_dim_v\": 64, \"mask\": \"none\", \"align\": \"top_left\", \"window_left\": -1,"
    "   \"window_right\": -1, \"bound\": true, \"dropout\": false, \"softcap\": false,"
    "   \"bias\": false, \"block_m\": null, \"block_n\": null, \"head_dim_padded\": null,"
    "   \"head_dim_v_padded\": null, \"per_call\": {\"flops\": 8388608, \"model_flops\": 8388608,"
    "   \"tile_flops\": null, \"pairs\": 32768}, \"calls\": 3, \"failed_calls\": 1,"
    "   \"flops\": 25165824, \"model_flops\": 25165824, \"tile_flops\": null},"
    "  {\"source\": \"efficient\", \"direction\": \"backward\", \"overflow\": true, \"calls\": 2,"
    "   \"failed_calls\": 0, \"flops\": 1000, \"model_flops\": 800, \"tile_flops\": null}]},"
    "\"uncounted\": ["
    "  {\"name\": \"_ZN5flash3fa3\", \"class\": \"attention\", \"reason\": \"opaque_parameters\","
    "   \"detail\": \"FlashAttention-3 kernel\", \"calls\": 40, \"failed_calls\": 0},"
    "  {\"name\": \"cudnn plan 7\", \"class\": \"gemm_like_uncounted\","
    "   \"reason\": \"unresolved_graph\", \"detail\": \"\", \"calls\": 2, \"failed_calls\": 1}]";

/* One process: 7 GEMM calls of 2*64*32*16 = 65,536 FLOPs, 458,752 in all;
 * counted = 458,752 + 34,628,584 = 35,087,336. Two iterations, the second
 * with 675,840 - 540,672 = 135,168 of attention beyond the model
 * convention. The forward profile: QKV, the flash forward (A, one call),
 * the output projection. */
static char *report(const char *attention, const char *profile_extra)
{
    static char buf[16384];
    snprintf(buf, sizeof buf,
             "{\"schema\": 1, \"tool\": {\"name\": \"flopcount\", \"version\": \"0.1.0\"},\n"
             " \"process\": {\"pid\": 42, \"command\": \"train\", \"hostname\": \"n\","
             " \"rank\": null, \"local_rank\": null, \"world_size\": null,"
             " \"launcher\": \"none\", \"fork_child\": false},\n"
             " \"status\": \"complete\", \"wall_seconds\": 3.0,\n"
             " \"totals\": {\"gemm_calls\": 7, \"gemm_flops\": 458752, \"failed_calls\": 0,"
             " \"invalid_calls\": 0, \"unresolved_calls\": 0, \"distinct_shapes\": 1,"
             " \"overflow_calls\": 0, \"attention_calls\": 25, \"attention_flops\": 34628584,"
             " \"counted_flops\": 35087336},\n"
             " \"by_api\": {}, \"by_dtype\": {}, \"shapes\": [],\n%s%s"
             " \"iterations\": {\"count\": 2, \"detected_by\": \"auto\", \"flops\": 2000000,"
             " \"forward_flops\": 600000, \"backward_flops\": 1400000, \"recompute_flops\": 0,"
             " \"attention_excess_flops\": 135168, \"list\": ["
             "  {\"index\": 1, \"seconds\": 1.0, \"flops\": 1000000, \"attention_excess_flops\": 0},"
             "  {\"index\": 2, \"seconds\": 1.0, \"flops\": 1000000,"
             "   \"attention_excess_flops\": 135168}]},\n"
             " \"forward_profile\": {\"state\": \"steady\", \"training_forward\": 2, \"calls\": 3,"
             " \"flops\": 1000000, \"truncated\": false, \"gemms\": ["
             "  {\"api\": \"cublasGemmEx\", \"m\": 192, \"n\": 64, \"k\": 64, \"batch\": 1,"
             "   \"transa\": \"T\", \"transb\": \"N\", \"count\": 1, \"flops\": 1572864,"
             "   \"weight\": \"A\"},"
             "  {\"kind\": \"attention\", \"source\": \"flash\", \"batch\": 2, \"heads\": 4,"
             "   \"kv_heads\": 4, \"seq_q\": 32, \"seq_k\": 32, \"head_dim\": 16,"
             "   \"head_dim_v\": 16, \"mask\": \"causal\", \"window_left\": -1,"
             "   \"window_right\": 0, \"bound\": false, \"dtype\": \"bf16\", \"count\": 1,"
             "   \"flops\": 270336%s},"
             "  {\"kind\": \"attention\", \"unresolved\": true, \"count\": 2, \"flops\": 5}]}}\n",
             attention ? attention : "", attention ? ",\n" : "", profile_extra ? profile_extra : "");
    return buf;
}

static int parse(const char *text, fc_report *r, char *err, size_t n)
{
    return fc_report_parse(text, strlen(text), r, err, n);
}

static void test_sections(void **state)
{
    (void)state;
    fc_report r;
    char err[256];
    if (parse(report(attention_json, NULL), &r, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(r.totals.attention_calls, 25);
    assert_true(r.totals.attention_flops == 34628584u);
    assert_true(r.totals.counted_flops == 35087336u);
    const fc_report_attention *a = &r.attn;
    assert_true(a->has && a->has_uncounted);
    assert_int_equal(a->calls, 25);
    assert_int_equal(a->failed_calls, 1);
    assert_true(a->flops == 34628584u);
    assert_true(a->model_flops == 33276704u);
    assert_true(a->tile_flops == 27525120u);
    assert_int_equal(a->tile_unknown_calls, 5);
    assert_int_equal(a->distinct_shapes, 3);
    assert_int_equal(a->overflow_calls, 2);
    assert_int_equal(a->n_by_source, 3);
    assert_int_equal(fc_report_attn_source_of(a, "flash")->calls, 20);
    assert_true(fc_report_attn_source_of(a, "flash")->flops == 9461760u);
    assert_true(fc_report_attn_source_of(a, "cudnn")->flops == 25165824u);
    assert_true(fc_report_attn_source_of(a, "efficient")->flops == 1000u);
    assert_null(fc_report_attn_source_of(a, "fa3"));
    assert_int_equal(a->n_shapes, 4);
    const fc_report_attn_shape *s = &a->shapes[0];
    assert_string_equal(s->source, "flash");
    assert_false(s->backward);
    assert_string_equal(s->mask, "causal");
    assert_int_equal(s->batch, 2);
    assert_int_equal(s->heads, 4);
    assert_int_equal(s->seq_q, 32);
    assert_int_equal(s->window_left, -1);
    assert_int_equal(s->window_right, 0);
    assert_true(s->dropout);
    assert_int_equal(s->block_m, 16);
    assert_int_equal(s->head_dim_padded, 32);
    assert_true(s->per_call_flops == 270336u && s->per_call_pairs == 4224u);
    assert_true(s->per_call_tile_flops == 786432u);
    assert_true(s->tiles_known && s->tile_flops == 7864320u);
    s = &a->shapes[1];
    assert_true(s->backward);
    assert_true(s->flops == 6758400u && s->model_flops == 5406720u);
    assert_true(s->per_call_model_flops == 540672u);
    s = &a->shapes[2];
    assert_string_equal(s->source, "cudnn");
    assert_true(s->bound);
    assert_int_equal(s->kv_heads, 2);
    assert_int_equal(s->block_m, -1); /* null: not known */
    assert_false(s->tiles_known);
    assert_int_equal(s->failed_calls, 1);
    s = &a->shapes[3];
    assert_true(s->overflow && s->backward);
    assert_int_equal(s->batch, -1);
    assert_true(s->flops == 1000u && s->model_flops == 800u);
    assert_int_equal(a->n_uncounted, 2);
    assert_string_equal(a->uncounted[0].reason, "opaque_parameters");
    assert_string_equal(a->uncounted[0].kclass, "attention");
    assert_string_equal(a->uncounted[0].detail, "FlashAttention-3 kernel");
    assert_int_equal(a->uncounted[0].calls, 40);
    assert_string_equal(a->uncounted[1].name, "cudnn plan 7");
    assert_int_equal(a->uncounted[1].failed_calls, 1);
    assert_true(fc_report_attention_any(a));
    /* iterations */
    assert_true(r.iterations.attention_excess_flops == 135168u);
    assert_int_equal(r.iterations.n_list, 2);
    assert_true(r.iterations.list[0].attention_excess_flops == 0);
    assert_true(r.iterations.list[1].attention_excess_flops == 135168u);
    /* the forward profile: a GEMM, the call with its shape, one unresolved */
    assert_int_equal(r.profile.n_gemms, 3);
    assert_false(r.profile.gemms[0].attention);
    assert_int_equal(r.profile.gemms[0].m, 192);
    const fc_fwd_gemm *g = &r.profile.gemms[1];
    assert_true(g->attention);
    assert_int_equal(g->m, -1);
    assert_int_equal(g->attn.source, FC_ATTN_SRC_FLASH);
    assert_int_equal(g->attn.b, 2);
    assert_int_equal(g->attn.h, 4);
    assert_int_equal(g->attn.h_k, 4);
    assert_int_equal(g->attn.s_q, 32);
    assert_int_equal(g->attn.s_k, 32);
    assert_int_equal(g->attn.d, 16);
    assert_int_equal(g->attn.d_v, 16);
    assert_int_equal(g->attn.window_left, -1);
    assert_int_equal(g->attn.window_right, 0);
    assert_int_equal(g->attn.flags & FC_ATTN_BOUND, 0);
    assert_true(g->flops == 270336u);
    assert_true(r.profile.gemms[2].attention);
    assert_int_equal(r.profile.gemms[2].attn.b, -1); /* unresolved */
    assert_int_equal(r.profile.gemms[2].count, 2);
    fc_report_free(&r);
}

/* A report from before attention was counted: nothing there, and the
 * counted FLOPs are the GEMMs'. */
static void test_absent(void **state)
{
    (void)state;
    fc_report r;
    char err[256];
    const char *old = "{\"schema\": 1, \"tool\": {\"name\": \"flopcount\", \"version\": \"0.1.0\"},"
                      " \"process\": {\"pid\": 1}, \"status\": \"complete\","
                      " \"totals\": {\"gemm_calls\": 1, \"gemm_flops\": 123}}";
    assert_int_equal(parse(old, &r, err, sizeof err), 0);
    assert_false(r.attn.has);
    assert_false(r.attn.has_uncounted);
    assert_false(fc_report_attention_any(&r.attn));
    assert_true(r.totals.counted_flops == 123);
    assert_int_equal(r.totals.attention_calls, 0);
    fc_report_free(&r);
}

/* 2^64 + 1 attention FLOPs stay exact. */
static void test_big(void **state)
{
    (void)state;
    fc_report r;
    char err[256];
    assert_int_equal(parse(report("\"attention\": {\"calls\": 1, \"flops\": 18446744073709551617,"
                                  " \"model_flops\": 18446744073709551617}",
                                  NULL),
                           &r, err, sizeof err),
                     0);
    assert_true(r.attn.flops == ((fc_u128)1 << 64) + 1);
    fc_report_free(&r);
}

static void expect_error(const char *attention, const char *profile_extra, const char *words)
{
    fc_report r;
    char err[256];
    if (parse(report(attention, profile_extra), &r, err, sizeof err) == 0) {
        fc_report_free(&r);
        fail_msg("accepted; expected an error with '%s'", words);
    }
    if (strstr(err, words) == NULL)
        fail_msg("error '%s' does not say '%s'", err, words);
    assert_null(strchr(err, '\n'));
}

static void test_wrong_types(void **state)
{
    (void)state;
    expect_error("\"attention\": {\"calls\": \"many\", \"flops\": 1}", NULL,
                 "attention.calls: expected a non-negative integer");
    expect_error("\"attention\": {\"calls\": 1}", NULL, "attention.flops: missing");
    expect_error("\"attention\": [1]", NULL, "attention: expected an object");
    expect_error("\"attention\": {\"calls\": 1, \"flops\": 1, \"by_source\": {\"flash\": 3}}",
                 NULL, "attention.by_source.flash: expected an object");
    expect_error("\"attention\": {\"calls\": 1, \"flops\": 1, \"shapes\": [{\"source\": \"flash\","
                 " \"direction\": \"sideways\", \"calls\": 1, \"flops\": 1}]}",
                 NULL, "attention.shapes[].direction: expected \"forward\" or \"backward\"");
    expect_error("\"attention\": {\"calls\": 1, \"flops\": 1, \"shapes\": [{\"source\": \"flash\","
                 " \"direction\": \"forward\", \"batch\": 0, \"heads\": 1, \"kv_heads\": 1,"
                 " \"seq_q\": 1, \"seq_k\": 1, \"head_dim\": 1, \"head_dim_v\": 1, \"calls\": 1,"
                 " \"flops\": 1}]}",
                 NULL, "attention.shapes[]: batch, heads");
    expect_error("\"attention\": {\"calls\": 1, \"flops\": 1, \"shapes\": [{\"source\": \"flash\","
                 " \"direction\": \"forward\", \"overflow\": true, \"mask\": \"diagonal\","
                 " \"calls\": 1, \"flops\": 1}]}",
                 NULL, "attention.shapes[].mask: expected \"none\", \"causal\" or \"window\"");
    expect_error("\"uncounted\": [{\"name\": \"k\", \"class\": \"attention\", \"calls\": 1}]", NULL,
                 "uncounted[0].reason: missing");
    expect_error("\"uncounted\": {\"name\": \"k\"}", NULL, "uncounted: expected an array");
    expect_error("\"uncounted\": [{\"name\": 7, \"reason\": \"x\", \"calls\": 1}]", NULL,
                 "uncounted[].name: expected a string");
    expect_error(NULL, ", \"heads\": \"four\"", "forward_profile.gemms[].heads: expected an integer");
    expect_error(NULL, ", \"bound\": 1", "forward_profile.gemms[].bound: expected true or false");
    expect_error(NULL, ", \"mask\": \"upper\"", "forward_profile.gemms[].mask: expected");
}

/* An entry of a kind the reader does not know, and an attention entry
 * without its shape. */
static void test_profile_kinds(void **state)
{
    (void)state;
    fc_report r;
    char err[256];
    char *text = report(NULL, NULL);
    char *kind = strstr(text, "\"kind\": \"attention\"");
    assert_non_null(kind);
    memcpy(kind, "\"kind\": \"convoluti\"", strlen("\"kind\": \"convoluti\""));
    assert_int_equal(parse(text, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "forward_profile.gemms[1].kind: expected \"gemm\" or \"attention\""));
    text = report(NULL, NULL);
    char *heads = strstr(text, "\"heads\": 4,");
    memcpy(heads, "\"hxxds\"", 7);
    assert_int_equal(parse(text, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "an attention entry needs positive batch, heads"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sections),    cmocka_unit_test(test_absent),
        cmocka_unit_test(test_big),         cmocka_unit_test(test_wrong_types),
        cmocka_unit_test(test_profile_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
