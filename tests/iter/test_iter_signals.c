/* SPDX-License-Identifier: Apache-2.0 */
/* test_iter_signals.c - what the kernel-launch layer gives the iteration
 * detector on a GPU, fed to the detector alone (shim/detect/):
 *
 *  - optimizer steps: FC_IREC_OPTIM records (optimizer kernels launched:
 *    Adam's multi_tensor_apply, the gradient-norm kernels) after every k
 *    micro-batches of fixture_gpt_stream.c's GPT make an iteration an
 *    optimizer step of k micro-batches (FC_MODE_OPTIM), below
 *    flopcount_step() markers and NVTX step ranges;
 *  - the launching thread: the forward on one thread, the backward
 *    (recompute included) on another, as PyTorch's autograd runs a CUDA
 *    backward; a GAN step (the discriminator run again for the generator's
 *    loss after its own backward), which the GEMMs alone leave unsure, is
 *    exact once the threads part the phases; CPU calls never use them.
 *
 * Expected values come from the shapes (gpt_expected, the GAN's FLOPs
 * below), never from the detector. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "detect/segment.h"
#include "detect/steps.h"
#include "detect/threads.h"
#include "feed_detector.h"
#include "fixture_gpt_stream.h"

static void push_mark(int kind)
{
    fc_irec r;
    memset(&r, 0, sizeof r);
    r.kind = (uint8_t)kind;
    r.t = ++clock_ticks;
    r.thread = FC_THREAD_NONE;
    fc_seg_push(&r);
}

static void reset(void)
{
    fc_seg_reset();
    fc_steps_reset();
    clock_ticks = 0;
    feed_thread = NULL;
    feed_cpu = 0;
}

/* ---- optimizer steps ---- */

/* A step of k micro-batches, then an optimizer step: the gradient norm
 * (one kernel) and Adam over the parameters in three chunks, as
 * multi_tensor_apply launches it; returns the last launch's time. */
static uint64_t accumulate_step(gpt *g, int k)
{
    for (int j = 0; j < k; j++)
        gpt_train_step(g, push_gemm, g);
    for (int j = 0; j < 4; j++)
        push_mark(FC_IREC_OPTIM);
    return clock_ticks;
}

typedef struct optim_run {
    int k, steps, marker, nvtx;
} optim_run;

/* 6 optimizer steps of k micro-batches, an evaluation pass after steps 1
 * and 4; the optimizer step's end times in ends[]. */
static void run_optim(const gpt_cfg *c, const optim_run *o, uint64_t *ends)
{
    reset();
    gpt *g = gpt_new(c, NULL, 0);
    assert_non_null(g);
    for (int i = 0; i < o->steps; i++) {
        if (o->nvtx)
            push_mark(FC_IREC_NVTX_PUSH);
        ends[i] = accumulate_step(g, o->k);
        if (o->marker)
            push_mark(FC_IREC_STEP);
        if (o->nvtx)
            push_mark(FC_IREC_NVTX_POP);
        if (i == 1 || i == 4)
            gpt_eval(g, push_gemm, g, 0);
    }
    fc_seg_flush();
    gpt_free(g);
}

/* Every iteration of mode is one step of k micro-batches: k times the
 * FLOPs of one, exact. */
static void expect_steps(int mode, const gpt_cfg *c, int steps, int k)
{
    gpt_flops f;
    gpt_expected(c, &f);
    fc_steps_view v;
    fc_steps_get(mode, &v);
    assert_int_equal(v.count, steps);
    for (uint64_t i = 0; i < v.stored; i++) {
        const fc_iteration *it = &v.list[i];
        assert_true(it->fwd == (fc_u128)k * f.fwd);
        assert_true(it->bwd == (fc_u128)k * f.bwd);
        assert_true(it->rec == (fc_u128)k * f.rec);
        assert_int_equal(it->micro, k);
    }
    fc_eval_view e;
    fc_steps_eval(&e);
    assert_int_equal(e.count, 2);
    assert_true(e.flops == 2 * (fc_u128)f.eval);
}

static void test_optim_accumulation(void **state)
{
    (void)state;
    gpt_cfg cs[] = {{.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 2},
                    {.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 2,
                     .recompute = GPT_FULL, .ckpt_mask = 1, .lowest_block = 1}};
    for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++)
        for (int k = 1; k <= 3; k++) {
            optim_run o = {k, 6, 0, 0};
            uint64_t ends[6];
            run_optim(&cs[ci], &o, ends);
            assert_int_equal(fc_steps_mode(), FC_MODE_OPTIM);
            expect_steps(FC_MODE_OPTIM, &cs[ci], 6, k);
            fc_steps_view v;
            fc_steps_get(FC_MODE_OPTIM, &v);
            assert_int_equal(v.optim_steps, 6);
            /* each ends with its optimizer step's last kernel; the next
             * starts there */
            for (int i = 0; i < 6; i++) {
                assert_int_equal(v.list[i].t1, ends[i]);
                if (i > 0)
                    assert_int_equal(v.list[i].t0, ends[i - 1]);
            }
            assert_int_equal(v.list[0].t0, 1); /* from the first call */
            /* the automatic iterations are the micro-batches */
            fc_steps_get(FC_MODE_AUTO, &v);
            assert_int_equal(v.count, 6 * k);
            for (uint64_t i = 0; i < v.stored; i++)
                assert_int_equal(v.list[i].micro, 1);
        }
}

/* flopcount_step() markers and NVTX step ranges say what a step is over
 * the optimizer kernels; the micro-batches are counted the same. */
static void test_optim_below_markers(void **state)
{
    (void)state;
    gpt_cfg c = {.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 2};
    uint64_t ends[6];
    optim_run marked = {2, 6, 1, 0}, ranged = {2, 6, 0, 1};
    run_optim(&c, &marked, ends);
    assert_int_equal(fc_steps_mode(), FC_MODE_MARKER);
    expect_steps(FC_MODE_MARKER, &c, 6, 2);
    expect_steps(FC_MODE_OPTIM, &c, 6, 2);
    run_optim(&c, &ranged, ends);
    assert_int_equal(fc_steps_mode(), FC_MODE_NVTX);
    expect_steps(FC_MODE_NVTX, &c, 6, 2);
    expect_steps(FC_MODE_OPTIM, &c, 6, 2);
}

/* An optimizer run per parameter inside the backward (PyTorch's
 * optimizer-in-backward hooks): the runs between backward GEMMs are one
 * step, ended at the last one before the next forward. */
static int in_backward_optim;

static void push_gemm_optim(void *ctx, int api, char ta, char tb, int64_t m, int64_t n, int64_t k,
                            int64_t batch, const float *a, const float *b, float *c)
{
    push_gemm(ctx, api, ta, tb, m, n, k, batch, a, b, c);
    if (in_backward_optim && gpt_phase(ctx) == GPT_PH_BWD && ta == 'N' && tb == 'T')
        push_mark(FC_IREC_OPTIM); /* after each weight gradient */
}

static void test_optim_in_backward(void **state)
{
    (void)state;
    gpt_cfg c = {.layers = 3, .hidden = 32, .heads = 2, .vocab = 64, .seq = 16, .batch = 2};
    reset();
    gpt *g = gpt_new(&c, NULL, 0);
    in_backward_optim = 1;
    for (int i = 0; i < 5; i++)
        gpt_train_step(g, push_gemm_optim, g);
    in_backward_optim = 0;
    fc_seg_flush();
    gpt_free(g);
    assert_int_equal(fc_steps_mode(), FC_MODE_OPTIM);
    fc_steps_view v;
    fc_steps_get(FC_MODE_OPTIM, &v);
    gpt_flops f;
    gpt_expected(&c, &f);
    assert_int_equal(v.count, 5);
    for (uint64_t i = 0; i < v.stored; i++) {
        assert_true(v.list[i].fwd == f.fwd && v.list[i].bwd == f.bwd && v.list[i].rec == 0);
        assert_int_equal(v.list[i].micro, 1);
    }
}

/* Multi-tensor-apply kernels that are not the optimizer's, inside each
 * micro-batch's forward: a _foreach_add_ after its first GEMM (a weight
 * EMA or noise added in the forward) and a _foreach_mul_ in the loss, after
 * the forward's last GEMM, before the backward's first. They are followed
 * by more of the micro-batch's GEMMs, so they end no step: under gradient
 * accumulation of k an iteration is still the real optimizer step's k
 * micro-batches (they were once each cut off as a step of one). */
static int foreach_in_forward, last_phase = -1;

static void push_gemm_foreach(void *ctx, int api, char ta, char tb, int64_t m, int64_t n,
                              int64_t k, int64_t batch, const float *a, const float *b, float *c)
{
    int ph = gpt_phase(ctx);
    if (foreach_in_forward && ph == GPT_PH_BWD && last_phase == GPT_PH_FWD)
        push_mark(FC_IREC_OPTIM); /* the loss's _foreach_mul_ */
    push_gemm(ctx, api, ta, tb, m, n, k, batch, a, b, c);
    if (foreach_in_forward && ph == GPT_PH_FWD && last_phase != GPT_PH_FWD)
        push_mark(FC_IREC_OPTIM); /* _foreach_add_ after the first forward GEMM */
    last_phase = ph;
}

static void test_optim_foreach_in_forward(void **state)
{
    (void)state;
    gpt_cfg c = {.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 2};
    gpt_flops f;
    gpt_expected(&c, &f);
    static const int ks[] = {1, 3, 8};
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        int k = ks[ki];
        reset();
        gpt *g = gpt_new(&c, NULL, 0);
        assert_non_null(g);
        foreach_in_forward = 1;
        last_phase = -1;
        uint64_t ends[5];
        for (int i = 0; i < 5; i++) {
            for (int j = 0; j < k; j++)
                gpt_train_step(g, push_gemm_foreach, g);
            for (int j = 0; j < 4; j++) /* clip_grad_norm_ and AdamW */
                push_mark(FC_IREC_OPTIM);
            ends[i] = clock_ticks;
        }
        foreach_in_forward = 0;
        fc_seg_flush();
        gpt_free(g);
        assert_int_equal(fc_steps_mode(), FC_MODE_OPTIM);
        fc_steps_view v;
        fc_steps_get(FC_MODE_OPTIM, &v);
        assert_int_equal(v.optim_steps, 5);
        assert_int_equal(v.count, 5);
        for (uint64_t i = 0; i < v.stored; i++) {
            const fc_iteration *it = &v.list[i];
            assert_int_equal(it->micro, k);
            assert_true(it->fwd == (fc_u128)k * f.fwd && it->bwd == (fc_u128)k * f.bwd);
            assert_true(it->rec == 0);
            assert_int_equal(it->t1, ends[i]);
        }
    }
    /* with no optimizer kernels after the backward (a per-parameter
     * optimizer, no multi-tensor apply) the forward's foreach kernels alone
     * are no optimizer steps: the automatic cut, one micro-batch each */
    reset();
    gpt *g = gpt_new(&c, NULL, 0);
    foreach_in_forward = 1;
    last_phase = -1;
    for (int i = 0; i < 6; i++)
        gpt_train_step(g, push_gemm_foreach, g);
    foreach_in_forward = 0;
    fc_seg_flush();
    gpt_free(g);
    assert_int_equal(fc_steps_mode(), FC_MODE_AUTO);
    fc_steps_view v;
    fc_steps_get(FC_MODE_AUTO, &v);
    assert_int_equal(v.count, 6);
    fc_steps_get(FC_MODE_OPTIM, &v);
    assert_int_equal(v.optim_steps, 0);
}

/* ---- a GAN step, the discriminator run again after its backward ---- */

/* Column-major as fixture_gpt_stream.c: a Linear y = W x is TN (A = W,
 * m = out, n = T, k = in), its input gradient NN (A = W, B = gy, m = in,
 * n = T, k = out), its weight gradient NT (A = x, B = gy, m = in, n = out,
 * k = T). Generator z (L) -> H -> D; discriminator D -> E -> 1; T samples. */
enum { T = 64, L = 16, H = 32, D = 24, E = 40 };

typedef struct gan {
    float *wg1, *wg2, *wd1, *wd2, *gw; /* weights; gw: their gradients' (one address) */
    uintptr_t next;                  /* fresh activations: a new address each */
    int phase;                       /* GPT_PH_FWD or GPT_PH_BWD: the thread issuing */
} gan;

static float *fresh(gan *g, size_t n)
{
    float *p = (float *)g->next;
    g->next += (n + 16) * sizeof(float);
    return p;
}

static int gan_thread(void *ctx)
{
    return ((gan *)ctx)->phase == GPT_PH_BWD;
}

static float *fwd(gan *g, const float *w, int in, int out, const float *x)
{
    float *y = fresh(g, (size_t)out * T);
    push_gemm(g, GPT_GEMM, 'T', 'N', out, T, in, 1, w, x, y);
    return y;
}

static float *dgrad(gan *g, const float *w, int in, int out, const float *gy)
{
    float *gx = fresh(g, (size_t)in * T);
    push_gemm(g, GPT_GEMM, 'N', 'N', in, T, out, 1, w, gy, gx);
    return gx;
}

static void wgrad(gan *g, int in, int out, const float *x, const float *gy)
{
    push_gemm(g, GPT_GEMM, 'N', 'T', in, out, T, 1, x, gy, g->gw);
}

/* One step: the discriminator's loss on real and detached fake samples,
 * its optimizer, then the generator's loss through the discriminator run
 * again, and the generator's optimizer. */
static void gan_step(gan *g, int optim)
{
    g->phase = GPT_PH_FWD;
    float *z = fresh(g, (size_t)L * T);
    float *h = fwd(g, g->wg1, L, H, z);
    float *fake = fwd(g, g->wg2, H, D, h);
    float *real = fresh(g, (size_t)D * T);
    float *r1 = fwd(g, g->wd1, D, E, real), *f1 = fwd(g, g->wd1, D, E, fake);
    fwd(g, g->wd2, E, 1, r1);
    fwd(g, g->wd2, E, 1, f1);
    g->phase = GPT_PH_BWD; /* loss_d.backward(): no gradient to real or to fake */
    float *g_fo = fresh(g, T), *g_ro = fresh(g, T);
    wgrad(g, E, 1, f1, g_fo);
    wgrad(g, D, E, fake, dgrad(g, g->wd2, E, 1, g_fo));
    wgrad(g, E, 1, r1, g_ro);
    wgrad(g, D, E, real, dgrad(g, g->wd2, E, 1, g_ro));
    if (optim)
        push_mark(FC_IREC_OPTIM); /* opt_d.step() */
    g->phase = GPT_PH_FWD; /* the generator's loss: the discriminator again */
    float *g1 = fwd(g, g->wd1, D, E, fake);
    fwd(g, g->wd2, E, 1, g1);
    g->phase = GPT_PH_BWD; /* loss_g.backward() */
    float *g_go = fresh(g, T);
    wgrad(g, E, 1, g1, g_go);
    float *g_g1 = dgrad(g, g->wd2, E, 1, g_go);
    wgrad(g, D, E, fake, g_g1);
    float *g_fake = dgrad(g, g->wd1, D, E, g_g1);
    wgrad(g, H, D, h, g_fake);
    wgrad(g, L, H, z, dgrad(g, g->wg2, H, D, g_fake));
    if (optim)
        push_mark(FC_IREC_OPTIM); /* opt_g.step() */
}

/* Per step, by hand (2 x m x n x k per GEMM): forward G 2T(LH + HD), the
 * discriminator three times 3 x 2T(DE + E); backward: its loss, twice a
 * weight and an input gradient of D2 and a weight gradient of D1,
 * 2 x 2T(E + E + DE); the generator's: D2 weight and input, D1 weight and
 * input, G2 weight and input, G1 weight: 2T(E + E + DE + DE + HD + HD + LH). */
static void gan_expected(uint64_t *f, uint64_t *b)
{
    *f = 2ull * T * (L * H + H * D) + 3 * 2ull * T * (D * E + E);
    *b = 2 * 2ull * T * (2 * E + D * E) + 2ull * T * (2 * E + 2 * D * E + 2 * H * D + L * H);
}

static gan gan_new(void)
{
    gan g = {.next = 0x7f0000000000u};
    g.wg1 = fresh(&g, L * H), g.wg2 = fresh(&g, H * D);
    g.wd1 = fresh(&g, D * E), g.wd2 = fresh(&g, E);
    g.gw = fresh(&g, D * E);
    return g;
}

typedef struct outcome {
    fc_iteration it[32];
    uint64_t count;
} outcome;

static void take(int mode, outcome *o)
{
    fc_steps_view v;
    fc_steps_get(mode, &v);
    memset(o, 0, sizeof *o);
    o->count = v.count;
    for (uint64_t i = 0; i < v.stored && i < 32; i++)
        o->it[i] = v.list[i];
}

/* 12 GAN steps; threads: the backward from its own thread. */
static void run_gan(int threads, int cpu, int optim, outcome *o)
{
    reset();
    gan g = gan_new();
    feed_thread = threads ? gan_thread : NULL;
    feed_cpu = cpu;
    for (int i = 0; i < 12; i++)
        gan_step(&g, optim);
    fc_seg_flush();
    take(fc_steps_mode(), o);
    feed_thread = NULL;
    feed_cpu = 0;
}

static void same_outcome(const outcome *a, const outcome *b)
{
    assert_int_equal(a->count, b->count);
    for (uint64_t i = 0; i < a->count && i < 32; i++) {
        assert_true(a->it[i].fwd == b->it[i].fwd && a->it[i].bwd == b->it[i].bwd &&
                    a->it[i].rec == b->it[i].rec);
        assert_int_equal(a->it[i].unsure, b->it[i].unsure);
    }
}

/* The GEMMs alone cannot tell the discriminator's second forward from a
 * recompute: every step is flagged. From its own thread, the backward
 * tells it: exact and sure once two steps showed the threads part. */
static void test_threads_gan(void **state)
{
    (void)state;
    uint64_t f, b;
    gan_expected(&f, &b);
    outcome alone, thr;
    run_gan(0, 0, 0, &alone);
    assert_int_equal(alone.count, 12);
    for (int i = 0; i < 12; i++) {
        const fc_iteration *it = &alone.it[i];
        assert_true(it->unsure || (it->fwd == f && it->bwd == b && it->rec == 0));
    }
    assert_true(alone.it[11].unsure & FC_UNSURE_FWD_AFTER_BWD);
    assert_int_equal(fc_threads_state(), FC_THR_OFF);
    run_gan(1, 0, 0, &thr);
    assert_int_equal(thr.count, 12);
    assert_int_equal(fc_threads_state(), FC_THR_ON);
    assert_true(fc_threads_used() > 0);
    for (int i = 0; i < 12; i++) {
        const fc_iteration *it = &thr.it[i];
        assert_true(it->unsure || (it->fwd == f && it->bwd == b && it->rec == 0));
        if (i >= 6) { /* the evidence learned */
            assert_int_equal(it->unsure, 0);
            assert_true(it->fwd == f && it->bwd == b && it->rec == 0);
        }
    }
    /* the two optimizers of a GAN step make one optimizer step */
    outcome opt;
    run_gan(1, 0, 1, &opt);
    assert_int_equal(fc_steps_mode(), FC_MODE_OPTIM);
    assert_int_equal(opt.count, 12);
    for (int i = 6; i < 12; i++)
        assert_true(opt.it[i].fwd == f && opt.it[i].bwd == b && opt.it[i].micro == 1);
}

/* CPU calls never use the threads (CPU PyTorch runs the backward on the
 * calling thread; a CPU BLAS may run calls from its own): the same
 * iterations, doubts included, as without them. */
static void test_threads_cpu(void **state)
{
    (void)state;
    outcome alone, thr;
    run_gan(0, 1, 0, &alone);
    run_gan(1, 1, 0, &thr);
    assert_int_equal(fc_threads_state(), FC_THR_OFF);
    assert_int_equal(fc_threads_used(), 0);
    same_outcome(&alone, &thr);
}

/* The fixture GPT: the forward and the backward on one thread (a GPU
 * program whose backward runs where its forward does) turns the evidence
 * off for good, nothing changes; the threads parting the phases and then
 * no longer (the backward moved): off again, every iteration exact or
 * flagged. */
static int one_thread(void *ctx)
{
    (void)ctx;
    return 0;
}

static int moved_after = 6, steps_done;

static int by_phase_then_one(void *ctx)
{
    int p = gpt_phase(ctx);
    return steps_done < moved_after && (p == GPT_PH_BWD || p == GPT_PH_REC);
}

static void run_gpt(const gpt_cfg *c, int (*thread)(void *), outcome *o)
{
    reset();
    gpt *g = gpt_new(c, NULL, 0);
    feed_thread = thread;
    for (steps_done = 0; steps_done < 12; steps_done++) {
        gpt_train_step(g, push_gemm, g);
        if (steps_done % 3 == 0)
            gpt_eval(g, push_gemm, g, 1);
    }
    fc_seg_flush();
    gpt_free(g);
    take(FC_MODE_AUTO, o);
    feed_thread = NULL;
}

static void test_threads_contradicted(void **state)
{
    (void)state;
    gpt_cfg c = {.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 2,
                 .recompute = GPT_SELECTIVE, .ckpt_mask = 2, .torch_head = 1};
    outcome alone, one, moved;
    run_gpt(&c, NULL, &alone);
    run_gpt(&c, one_thread, &one);
    assert_int_equal(fc_threads_state(), FC_THR_CONTRADICTED);
    same_outcome(&alone, &one);
    run_gpt(&c, by_phase_then_one, &moved);
    assert_int_equal(fc_threads_state(), FC_THR_CONTRADICTED);
    gpt_flops f;
    gpt_expected(&c, &f);
    assert_int_equal(moved.count, 12);
    for (int i = 0; i < 12; i++) {
        const fc_iteration *it = &moved.it[i];
        assert_true(it->unsure || (it->fwd == f.fwd && it->bwd == f.bwd && it->rec == f.rec));
    }
}

/* The first layer checkpointed (full recompute), the backward and the
 * recompute on autograd's thread: the segment cut at the recompute starts
 * on the backward's thread, before its backward (a continuation whose first
 * calls recompute the layer). That is no contradiction: the evidence comes
 * on (it was once turned off there for good) and every iteration is the
 * hand split or flagged. */
static void test_threads_recompute(void **state)
{
    (void)state;
    gpt_cfg c = {.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 2,
                 .recompute = GPT_FULL, .ckpt_mask = 1, .lowest_block = 1};
    outcome o;
    moved_after = 1000; /* by phase throughout */
    run_gpt(&c, by_phase_then_one, &o);
    moved_after = 6;
    assert_int_equal(fc_threads_state(), FC_THR_ON);
    gpt_flops f;
    gpt_expected(&c, &f);
    assert_int_equal(o.count, 12);
    int sure = 0;
    for (uint64_t i = 0; i < o.count; i++) {
        const fc_iteration *it = &o.it[i];
        int exact = it->fwd == f.fwd && it->bwd == f.bwd && it->rec == f.rec;
        assert_true(it->unsure || exact);
        sure += !it->unsure;
    }
    assert_true(sure >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_optim_accumulation),
        cmocka_unit_test(test_optim_below_markers),
        cmocka_unit_test(test_optim_in_backward),
        cmocka_unit_test(test_optim_foreach_in_forward),
        cmocka_unit_test(test_threads_gan),
        cmocka_unit_test(test_threads_cpu),
        cmocka_unit_test(test_threads_contradicted),
        cmocka_unit_test(test_threads_recompute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
