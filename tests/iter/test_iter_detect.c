/* SPDX-License-Identifier: Apache-2.0 */
/* test_iter_detect.c - the iteration detector (shim/detect/segment.c, shim/detect/steps.c) fed
 * directly with the GEMM stream of a GPT training loop (fixture_gpt_stream.c):
 * iterations, forward / backward / recompute FLOPs, evaluation passes,
 * markers, NVTX ranges. Expected values come from the model's shapes
 * (gpt_expected, derived in fixture_gpt_stream.c), never from the detector. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "detect/segment.h"
#include "detect/steps.h"
#include "feed_detector.h"
#include "fixture_gpt_stream.h"

static void push_mark(int kind)
{
    fc_irec r;
    memset(&r, 0, sizeof r);
    r.kind = (uint8_t)kind;
    r.t = ++clock_ticks;
    fc_seg_push(&r);
}

/* tiny: l=2 h=64 a=4 V=128 s=32 B=2 (REFERENCE.md section 2) */
static gpt_cfg tiny(int recompute, unsigned mask)
{
    gpt_cfg c = {.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 2,
                 .recompute = recompute, .ckpt_mask = mask};
    return c;
}

static gpt *start(const gpt_cfg *c)
{
    fc_seg_reset();
    fc_steps_reset();
    clock_ticks = 0;
    gpt *g = gpt_new(c, NULL, 0);
    assert_non_null(g);
    return g;
}

/* Every iteration of mode has exactly fwd, bwd, rec FLOPs. */
static void expect_iterations(int mode, uint64_t count, uint64_t fwd, uint64_t bwd, uint64_t rec)
{
    fc_steps_view v;
    fc_steps_get(mode, &v);
    assert_int_equal(v.count, count);
    for (uint64_t i = 0; i < v.stored; i++) {
        assert_true(v.list[i].fwd == fwd);
        assert_true(v.list[i].bwd == bwd);
        assert_true(v.list[i].rec == rec);
    }
}

/* No automatic iteration's split is in doubt but the first's (labelled
 * before weights are confirmed). */
static void expect_sure_after_first(void)
{
    fc_steps_view v;
    fc_steps_get(FC_MODE_AUTO, &v);
    for (uint64_t i = 1; i < v.stored; i++)
        assert_int_equal(v.list[i].unsure, 0);
}

static void expect_eval(uint64_t count, uint64_t flops)
{
    fc_eval_view e;
    fc_steps_eval(&e);
    assert_int_equal(e.count, count);
    assert_true(e.flops == flops);
}

/* The 72/96-form test vectors of REFERENCE.md, from gpt_expected. */
static void test_megatron_totals(void **state)
{
    (void)state;
    gpt_flops f;
    gpt_cfg c = tiny(GPT_NONE, 0);
    gpt_expected(&c, &f);
    assert_true(f.fwd + f.bwd + f.rec == 44040192u);
    c = tiny(GPT_FULL, 3);
    gpt_expected(&c, &f);
    assert_true(f.fwd + f.bwd + f.rec == 57671680u);
    c = tiny(GPT_SELECTIVE, 3);
    gpt_expected(&c, &f);
    assert_true(f.fwd + f.bwd + f.rec == 45088768u);
}

static void run_steps(const gpt_cfg *c, int steps, int eval_every, int eval_batch)
{
    gpt *g = start(c);
    for (int i = 0; i < steps; i++) {
        gpt_train_step(g, push_gemm, NULL);
        if (eval_every && i % eval_every == 0)
            gpt_eval(g, push_gemm, NULL, eval_batch);
    }
    fc_seg_flush();
    gpt_free(g);
}

static void check_auto(const gpt_cfg *c, int steps, int eval_every, int eval_batch)
{
    run_steps(c, steps, eval_every, eval_batch);
    gpt_flops f;
    gpt_expected(c, &f);
    expect_iterations(FC_MODE_AUTO, (uint64_t)steps, f.fwd, f.bwd, f.rec);
    int evals = 0;
    for (int i = 0; eval_every && i < steps; i++)
        evals += i % eval_every == 0;
    gpt_cfg e = *c;
    if (eval_batch > 0)
        e.batch = eval_batch;
    gpt_flops fe;
    gpt_expected(&e, &fe);
    expect_eval((uint64_t)evals, (uint64_t)evals * fe.eval);
    assert_int_equal(fc_steps_mode(), FC_MODE_AUTO);
}

static void test_plain(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_NONE, 0);
    check_auto(&c, 6, 0, 0);
}

static void test_full_recompute_all(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_FULL, 3);
    check_auto(&c, 6, 0, 0);
}

static void test_full_recompute_some(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_FULL, 2); /* the second layer only */
    check_auto(&c, 6, 0, 0);
    c = tiny(GPT_FULL, 1); /* the first only: its recompute repeats the anchor */
    check_auto(&c, 6, 0, 0);
}

static void test_selective(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_SELECTIVE, 3);
    check_auto(&c, 6, 0, 0);
}

static void test_eval_passes(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_NONE, 0);
    check_auto(&c, 6, 1, 0);
    check_auto(&c, 6, 2, 3); /* evaluation on 3 sequences, every other step */
    c = tiny(GPT_FULL, 3);
    check_auto(&c, 6, 2, 1);
    c = tiny(GPT_SELECTIVE, 3);
    check_auto(&c, 5, 1, 2);
}

static void test_deeper(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_FULL, 0x5);
    c.layers = 4;
    check_auto(&c, 5, 2, 2);
    c.hidden = 128;
    c.recompute = GPT_SELECTIVE;
    c.ckpt_mask = 0xf;
    c.use_lt = 1;
    check_auto(&c, 4, 3, 1);
}

/* Gradient accumulation: without markers each micro-batch is an iteration;
 * with flopcount_step() after every optimizer step, one iteration holds
 * both micro-batches. */
static void test_accumulation_and_markers(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_FULL, 1);
    gpt_flops f;
    gpt_expected(&c, &f);
    gpt *g = start(&c);
    for (int step = 0; step < 4; step++) {
        gpt_train_step(g, push_gemm, NULL);
        gpt_train_step(g, push_gemm, NULL);
        push_mark(FC_IREC_STEP);
        gpt_eval(g, push_gemm, NULL, 0);
    }
    fc_seg_flush();
    gpt_free(g);
    expect_iterations(FC_MODE_AUTO, 8, f.fwd, f.bwd, f.rec);
    expect_iterations(FC_MODE_MARKER, 4, 2 * f.fwd, 2 * f.bwd, 2 * f.rec);
    assert_int_equal(fc_steps_mode(), FC_MODE_MARKER);
    expect_eval(4, 4 * f.eval);
    /* The evaluation pass after each marker is not part of the next
     * iteration's time: marker to marker, less the pass. */
    fc_steps_view v;
    fc_steps_get(FC_MODE_MARKER, &v);
    for (uint64_t i = 1; i < v.stored; i++)
        assert_true(v.list[i].excluded > 0 && v.list[i].excluded < v.list[i].t1 - v.list[i].t0);
}

/* flopcount_eval_begin/end: the bracketed forward is evaluation, whatever it
 * looks like; NVTX step ranges make iterations of their own. */
static void test_brackets_and_nvtx(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_NONE, 0);
    gpt_flops f;
    gpt_expected(&c, &f);
    gpt *g = start(&c);
    for (int step = 0; step < 3; step++) {
        push_mark(FC_IREC_NVTX_PUSH);
        gpt_train_step(g, push_gemm, NULL);
        push_mark(FC_IREC_NVTX_POP);
        push_mark(FC_IREC_EVAL_BEGIN);
        gpt_train_step(g, push_gemm, NULL); /* even a backward: it is declared evaluation */
        push_mark(FC_IREC_EVAL_END);
    }
    fc_seg_flush();
    gpt_free(g);
    assert_int_equal(fc_steps_mode(), FC_MODE_NVTX);
    expect_iterations(FC_MODE_NVTX, 3, f.fwd, f.bwd, 0);
    expect_eval(3, 3 * (f.fwd + f.bwd));
}

/* The output layer's backward in PyTorch's CPU order, its loss gradient
 * at one address every step (never written by a GEMM): that address passes
 * for a weight in the first segments, and the weight gradient that first
 * uses it, on the saved input in a new role, must still be backward. */
static void test_torch_head(void **state)
{
    (void)state;
    static const int modes[][2] = {{GPT_NONE, 0}, {GPT_FULL, 1}, {GPT_SELECTIVE, 3}, {GPT_FULL, 3}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        gpt_cfg c = tiny(modes[i][0], (unsigned)modes[i][1]);
        c.torch_head = 1;
        check_auto(&c, 7, 3, 0);
        c.layers = 3;
        c.hidden = 72;
        c.heads = 6;
        c.vocab = 50;
        c.seq = 20;
        c.batch = 7;
        check_auto(&c, 7, 3, 0);
    }
}

/* nanoGPT's train.py on the CPU (issue 29): glibc's malloc puts an
 * activation at the same address in some steps, not in others, so the
 * address passes for a weight candidate not yet confirmed; in the backward
 * its freed block then takes a gradient of its shape, used in the
 * activation's forward role by the layer below's input gradient, whose
 * other operand is a confirmed weight used the backward way (the GELU's
 * input gradient where the GELU's output was, times the up-projection's
 * weight; the fixture's MLP and attention backward allocate the same way).
 * That call is backward whatever the block holds; it made the iteration
 * "unsure" (a weight used the forward way after its backward) in 2-5% of
 * nanoGPT's iterations. Here: the allocator hands out the lowest free
 * blocks (the same ones every step) in one step and the last freed ones in
 * the others, the shape of nanoGPT's smallest run (2 layers, hidden 32,
 * 2 heads, sequence 32, batch 4, PyTorch's CPU order for the output layer);
 * every iteration exact, none flagged after the first (which is labelled
 * before weights are confirmed). Fails on the detector before the fix
 * (iteration 4 flagged). */
static void test_recurring_activation(void **state)
{
    (void)state;
    gpt_cfg c = {.layers = 2, .hidden = 32, .heads = 2, .vocab = 64, .seq = 32, .batch = 4,
                 .torch_head = 1};
    static const unsigned same_blocks[] = {0x2, 0x6, 0x8, 0xa}; /* bit i: step i */
    for (size_t p = 0; p < sizeof same_blocks / sizeof same_blocks[0]; p++) {
        gpt *g = start(&c);
        for (int i = 0; i < 12; i++) {
            gpt_set_lowest_block(g, same_blocks[p] >> i & 1u);
            gpt_train_step(g, push_gemm, NULL);
        }
        fc_seg_flush();
        gpt_free(g);
        gpt_flops f;
        gpt_expected(&c, &f);
        expect_iterations(FC_MODE_AUTO, 12, f.fwd, f.bwd, f.rec);
        expect_sure_after_first();
    }
}

/* The other form of the same (issue 29, nanoGPT's 3-layer configuration
 * with biases, 1 iteration in 600): the address of an activation that
 * recurred in earlier steps (an MLP's input: confirmed as a weight) holds,
 * in a later step, a gradient of its shape first, which the next layer's
 * input gradient uses in the activation's forward role beside its own
 * weight used the backward way. "A confirmed weight's first use" kept the
 * forward going over that call (and the output layer's backward before it),
 * flagged "early backward". Here an MLP (h -> 4h -> h) and a head (h -> V):
 * its input at one address in steps 0-3, and in step 4 at another, while
 * the gradient of the MLP's output (a layer norm's backward, no GEMM)
 * takes that address. Forward per step
 * 2T(4h*h + h*4h + h*V), backward twice that; every iteration exact and,
 * after the first, sure. Fails before the fix (iteration 5 flagged, its
 * forward 2T(hV + hV + 4h*h) too large). */
static void test_recurring_activation_gradient(void **state)
{
    (void)state;
    enum { h = 32, V = 40, T = 48 };
    fc_seg_reset();
    fc_steps_reset();
    clock_ticks = 0;
    uintptr_t next = 0x7f0000000000u;
#define FRESH(n) ((float *)(next += ((size_t)(n) + 64) * sizeof(float)))
    const float *w1 = FRESH(4 * h * h), *w2 = FRESH(4 * h * h), *w3 = FRESH(h * V);
    float *gw = FRESH(4 * h * h), *x_at = FRESH(h * T);
    for (int step = 0; step < 8; step++) {
        float *x = step == 4 ? FRESH(h * T) : x_at; /* the MLP's input */
        float *a = FRESH(4 * h * T), *y = FRESH(h * T), *logits = FRESH(V * T);
        push_gemm(NULL, 0, 'T', 'N', 4 * h, T, h, 1, w1, x, a);
        push_gemm(NULL, 0, 'T', 'N', h, T, 4 * h, 1, w2, a, y);
        push_gemm(NULL, 0, 'T', 'N', V, T, h, 1, w3, y, logits);
        float *g_logits = FRESH(V * T), *g_head = FRESH(h * T);
        push_gemm(NULL, 0, 'N', 'N', h, T, V, 1, w3, g_logits, g_head); /* dgrad */
        push_gemm(NULL, 0, 'N', 'T', h, V, T, 1, y, g_logits, gw);      /* wgrad */
        /* a layer norm's backward (no GEMM) puts the MLP output's gradient
         * where the MLP's input was in the steps before */
        float *g_y = step == 4 ? x_at : FRESH(h * T);
        float *g_a = FRESH(4 * h * T), *g_x = FRESH(h * T);
        push_gemm(NULL, 0, 'N', 'N', 4 * h, T, h, 1, w2, g_y, g_a); /* g_y in x's role */
        push_gemm(NULL, 0, 'N', 'T', 4 * h, h, T, 1, a, g_y, gw);
        push_gemm(NULL, 0, 'N', 'N', h, T, 4 * h, 1, w1, g_a, g_x);
        push_gemm(NULL, 0, 'N', 'T', h, 4 * h, T, 1, x, g_a, gw);
    }
#undef FRESH
    fc_seg_flush();
    const uint64_t fwd = 2ull * T * (4 * h * h + 4 * h * h + h * V);
    expect_iterations(FC_MODE_AUTO, 8, fwd, 2 * fwd, 0);
    expect_sure_after_first();
}

/* Which doubts can move recompute (FC_UNSURE_MFU: MFU unsure too). The
 * first iteration of a loop with PyTorch's CPU order for the output layer
 * is labelled before weights are confirmed and its backward is found where
 * an unconfirmed weight was held back (the loss gradient at one address):
 * in plain training that doubt is between forward and backward only, so
 * recompute (0) and MFU stand; with layer 1 recomputed the forward held
 * back may have run into what was labelled recompute, so MFU is unsure.
 * With the caching allocator (the same blocks every step) and evaluation
 * passes, a gradient lands in a block an activation held at a fixed
 * address, which passes for a weight used the forward way after its
 * backward: forward or recompute, MFU unsure. */
static void test_mfu_doubt(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_NONE, 0);
    c.torch_head = 1;
    run_steps(&c, 8, 3, 0);
    fc_steps_view v;
    fc_steps_get(FC_MODE_AUTO, &v);
    assert_int_equal(v.list[0].unsure, FC_UNSURE_HELD_BACK);
    assert_true(v.list[0].rec == 0);
    assert_int_equal(v.unsure_mfu, 0);
    c = tiny(GPT_FULL, 2);
    c.torch_head = 1;
    run_steps(&c, 8, 3, 0);
    fc_steps_get(FC_MODE_AUTO, &v);
    assert_int_equal(v.list[0].unsure, FC_UNSURE_HELD_BACK | FC_UNSURE_MFU);
    c = tiny(GPT_NONE, 0);
    c.lowest_block = 1;
    run_steps(&c, 8, 3, 0);
    fc_steps_get(FC_MODE_AUTO, &v);
    assert_int_equal(v.list[4].unsure, FC_UNSURE_FWD_AFTER_BWD | FC_UNSURE_MFU);
}

/* Labelling a segment as an earlier one when it repeats it call for call
 * (fc_seg_set_repeat) changes nothing: every iteration's split, its unsure
 * bits and the evaluation passes are those of labelling each in full, over
 * training loops of every kind here (an allocator that hands out the same
 * blocks every step); and it is used: at least half the segments. */
typedef struct outcome {
    fc_iteration it[64];
    uint64_t count, evals, repeated, checks, mismatches;
    fc_u128 eval_flops;
} outcome;

/* 24 steps; jitter: the seed of the steps whose allocator hands on the
 * block freed last (new addresses), 0: none. */
static void run_outcome(const gpt_cfg *c, int repeat, int eval_every, unsigned jitter, outcome *o)
{
    fc_seg_set_repeat(repeat);
    gpt *g = start(c);
    for (unsigned i = 0, x = jitter; i < 24; i++) {
        x = x * 1103515245u + 12345u;
        gpt_set_lowest_block(g, jitter == 0 || (x >> 16) % 5 != 0);
        gpt_train_step(g, push_gemm, NULL);
        if (eval_every && i % eval_every == 0)
            gpt_eval(g, push_gemm, NULL, jitter != 0 && (x >> 8) % 3 == 0 ? 1 : 0);
    }
    fc_seg_flush();
    gpt_free(g);
    fc_steps_view v;
    fc_steps_get(FC_MODE_AUTO, &v);
    memset(o, 0, sizeof *o);
    o->count = v.count;
    for (uint64_t i = 0; i < v.stored && i < 64; i++)
        o->it[i] = v.list[i];
    fc_eval_view e;
    fc_steps_eval(&e);
    o->evals = e.count;
    o->eval_flops = e.flops;
    fc_seg_stats st;
    fc_seg_stats_get(&st);
    o->repeated = st.repeated;
    o->checks = st.repeat_checks;
    o->mismatches = st.repeat_mismatches;
    fc_seg_set_repeat(1);
}

/* The same iterations, splits, unsure bits and evaluation passes. */
static void expect_same(const outcome *a, const outcome *b)
{
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->evals, b->evals);
    assert_true(a->eval_flops == b->eval_flops);
    for (uint64_t k = 0; k < a->count && k < 64; k++) {
        assert_true(a->it[k].fwd == b->it[k].fwd);
        assert_true(a->it[k].bwd == b->it[k].bwd);
        assert_true(a->it[k].rec == b->it[k].rec);
        assert_int_equal(a->it[k].unsure, b->it[k].unsure);
    }
}

static void test_repeat_same_labels(void **state)
{
    (void)state;
    /* recompute, checkpointed layers, evaluation every: where the first
     * layer is recomputed its weight (the anchor) comes back in the
     * backward, and an iteration is two segments, each unlike the one
     * before it */
    static const int modes[][3] = {{GPT_NONE, 0, 0}, {GPT_FULL, 1, 0}, {GPT_SELECTIVE, 3, 5},
                                   {GPT_FULL, 3, 4}, {GPT_NONE, 0, 3}, {GPT_FULL, 2, 0}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        for (int head = 0; head < 2; head++) {
            gpt_cfg c = tiny(modes[i][0], (unsigned)modes[i][1]);
            c.torch_head = head;
            c.lowest_block = 1;
            static outcome full, rep, chk;
            run_outcome(&c, 0, modes[i][2], 0, &full);
            run_outcome(&c, 1, modes[i][2], 0, &rep);
            run_outcome(&c, FC_REPEAT_CHECK, modes[i][2], 0, &chk);
            /* each repeat, labelled in full as well, gave the same */
            assert_int_equal(chk.repeated, 0);
            assert_true(chk.checks >= 12);
            assert_int_equal(chk.mismatches, 0);
            assert_int_equal(full.repeated, 0);
            assert_true(rep.repeated >= 12);
            expect_same(&full, &rep);
        }
}

/* The same, on random loops where a step in five (at random) gets new
 * addresses and some evaluation passes a batch of their own: what
 * labelling reads changes between repeats, and a repeat must see it. */
static void test_repeat_random(void **state)
{
    (void)state;
    uint64_t repeats = 0, checks = 0;
    for (unsigned seed = 1; seed <= 120; seed++) {
        unsigned r = seed * 2654435761u;
        static const int rec[] = {GPT_NONE, GPT_FULL, GPT_SELECTIVE};
        gpt_cfg c = tiny(rec[r % 3], (r >> 4) % 4);
        c.layers = 2 + (int)((r >> 8) % 2);
        c.torch_head = (int)((r >> 10) % 2);
        c.lowest_block = 1;
        int eval_every = (int)((r >> 12) % 5);
        static outcome full, rep, chk;
        run_outcome(&c, 0, eval_every, seed, &full);
        run_outcome(&c, 1, eval_every, seed, &rep);
        run_outcome(&c, FC_REPEAT_CHECK, eval_every, seed, &chk);
        repeats += rep.repeated;
        checks += chk.checks;
        assert_int_equal(chk.mismatches, 0);
        /* and every iteration is exact or flagged: never silently wrong */
        gpt_flops f;
        gpt_expected(&c, &f);
        assert_int_equal(rep.count, 24);
        for (uint64_t k = 0; k < rep.count; k++)
            if (!rep.it[k].unsure) {
                assert_true(rep.it[k].fwd == f.fwd);
                assert_true(rep.it[k].bwd == f.bwd);
                assert_true(rep.it[k].rec == f.rec);
            }
        expect_same(&full, &rep);
    }
    assert_true(repeats > 120 * 6);
    assert_true(checks > 120 * 6);
}

/* An inference loop (no backward ever: the first segments' bootstrap
 * never ends) repeats too, and counts the same passes as labelled in full. */
static void test_repeat_inference(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_NONE, 0);
    c.lowest_block = 1;
    uint64_t passes[3], repeated[3], checks = 0, mismatches = 0;
    fc_u128 flops[3];
    for (int mode = 0; mode < 3; mode++) {
        fc_seg_set_repeat(mode);
        gpt *g = start(&c);
        for (int i = 0; i < 30; i++)
            gpt_eval(g, push_gemm, NULL, 0);
        fc_seg_flush();
        gpt_free(g);
        fc_eval_view e;
        fc_steps_eval(&e);
        fc_seg_stats st;
        fc_seg_stats_get(&st);
        passes[mode] = e.count;
        flops[mode] = e.flops;
        repeated[mode] = st.repeated;
        if (mode == FC_REPEAT_CHECK)
            checks = st.repeat_checks, mismatches = st.repeat_mismatches;
    }
    fc_seg_set_repeat(1);
    gpt_flops f;
    gpt_expected(&c, &f);
    for (int mode = 0; mode < 3; mode++) {
        assert_int_equal(passes[mode], 30);
        assert_true(flops[mode] == (fc_u128)30 * f.eval);
    }
    assert_int_equal(repeated[0], 0);
    assert_true(repeated[1] >= 20);
    assert_true(checks >= 20);
    assert_int_equal(mismatches, 0);
}

/* A stray GEMM before training must not become the anchor. */
static void test_stray_gemm_first(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_FULL, 3);
    gpt_flops f;
    gpt_expected(&c, &f);
    gpt *g = start(&c);
    static float scratch[4];
    push_gemm(NULL, GPT_GEMM, 'N', 'N', 7, 5, 3, 1, scratch, scratch + 1, scratch + 2);
    for (int i = 0; i < 5; i++)
        gpt_train_step(g, push_gemm, NULL);
    fc_seg_flush();
    gpt_free(g);
    fc_steps_view v;
    fc_steps_get(FC_MODE_AUTO, &v);
    assert_int_equal(v.count, 5);
    /* the stray call (2*7*5*3 FLOPs) lands in the first iteration's forward */
    assert_true(v.list[0].fwd == f.fwd + 210);
    for (uint64_t i = 1; i < v.stored; i++)
        assert_true(v.list[i].fwd == f.fwd && v.list[i].bwd == f.bwd && v.list[i].rec == f.rec);
}

/* Only evaluation: no iterations, every pass counted. */
static void test_inference_only(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_NONE, 0);
    gpt_flops f;
    gpt_expected(&c, &f);
    gpt *g = start(&c);
    for (int i = 0; i < 4; i++)
        gpt_eval(g, push_gemm, NULL, 0);
    fc_seg_flush();
    gpt_free(g);
    expect_iterations(FC_MODE_AUTO, 0, 0, 0, 0);
    expect_eval(4, 4 * f.eval);
}

/* Inference in marked steps (issue 38): each NVTX step range or
 * flopcount_step() interval of forwards alone is a forward-only iteration
 * of one forward's FLOPs (gpt_expected: f.eval), no evaluation pass left;
 * the same stream without markers stays 4 evaluation passes (above). */
static void test_marked_inference(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_NONE, 0);
    gpt_flops f;
    gpt_expected(&c, &f);
    for (int nvtx = 0; nvtx < 2; nvtx++) {
        gpt *g = start(&c); /* the detector reset */
        for (int i = 0; i < 4; i++) {
            if (nvtx)
                push_mark(FC_IREC_NVTX_PUSH);
            gpt_eval(g, push_gemm, NULL, 0);
            push_mark(nvtx ? FC_IREC_NVTX_POP : FC_IREC_STEP);
        }
        fc_seg_flush();
        gpt_free(g);
        int mode = nvtx ? FC_MODE_NVTX : FC_MODE_MARKER;
        assert_int_equal(fc_steps_mode(), mode);
        expect_iterations(mode, 4, f.eval, 0, 0);
        fc_steps_view v;
        fc_steps_get(mode, &v);
        assert_int_equal(v.fwd_only, 4);
        for (uint64_t i = 0; i < v.stored; i++) {
            assert_int_equal(v.list[i].fwd_only, 1);
            assert_int_equal(v.list[i].micro, 1); /* one forward pass each */
            assert_int_equal(v.list[i].excluded, 0); /* its time is its own */
        }
        expect_eval(0, 0);
    }
}

/* Auto iterations are timed from one iteration's first call to the next
 * one's: with one tick per call, the span is the call count. */
static void test_auto_timing(void **state)
{
    (void)state;
    gpt_cfg c = tiny(GPT_NONE, 0);
    run_steps(&c, 4, 0, 0);
    fc_steps_view v;
    fc_steps_get(FC_MODE_AUTO, &v);
    assert_int_equal(v.count, 4);
    for (uint64_t i = 0; i + 1 < v.stored; i++) {
        assert_int_equal(v.list[i].t1 - v.list[i].t0, v.list[i].calls);
        assert_int_equal(v.list[i].open_end, 0);
    }
    assert_int_equal(v.list[3].open_end, 1); /* the last one has no successor */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_megatron_totals),
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_full_recompute_all),
        cmocka_unit_test(test_full_recompute_some),
        cmocka_unit_test(test_selective),
        cmocka_unit_test(test_eval_passes),
        cmocka_unit_test(test_deeper),
        cmocka_unit_test(test_accumulation_and_markers),
        cmocka_unit_test(test_brackets_and_nvtx),
        cmocka_unit_test(test_torch_head),
        cmocka_unit_test(test_recurring_activation),
        cmocka_unit_test(test_recurring_activation_gradient),
        cmocka_unit_test(test_mfu_doubt),
        cmocka_unit_test(test_repeat_same_labels),
        cmocka_unit_test(test_repeat_random),
        cmocka_unit_test(test_repeat_inference),
        cmocka_unit_test(test_stray_gemm_first),
        cmocka_unit_test(test_inference_only),
        cmocka_unit_test(test_marked_inference),
        cmocka_unit_test(test_auto_timing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
