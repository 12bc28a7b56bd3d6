/* SPDX-License-Identifier: Apache-2.0 */
/* test_iter_random.c - the iteration detector fed random GPT training
 * loops (fixture_gpt_stream.c): 1-4 layers, widths, no / selective / full
 * recompute on random layers, the output layer's backward in either order,
 * either allocator (the block freed last, or the lowest one: every step the
 * same blocks) switching at random steps, evaluation passes of random
 * batch every few steps. Every iteration must be counted, and each must be
 * exact (forward, backward, recompute as gpt_expected works them out from
 * the shapes) or flagged unsure: never silently wrong. With repeats
 * checked, no repeat may differ from labelling in full. With `threads`,
 * every call comes from the thread PyTorch's CUDA run would issue it from
 * (the forward and evaluation from one, the backward and recompute from
 * another): the launching thread is used as evidence (detect/threads.c)
 * and the same must hold.
 *
 * usage: test_iter_random FIRST_SEED END_SEED [0|1|check] [threads]
 * Prints one line per failing seed and a summary; exits 1 on any failure,
 * or when repeats (mode 1) or checks (mode check) never happened. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/segment.h"
#include "detect/steps.h"
#include "feed_detector.h"
#include "fixture_gpt_stream.h"

/* The thread of the call being issued: 1 in the backward (recompute
 * included), 0 in the forward and in evaluation passes. */
static int thread_of(void *ctx)
{
    int p = gpt_phase(ctx);
    return p == GPT_PH_BWD || p == GPT_PH_REC;
}

static unsigned rnd(unsigned *x)
{
    *x = *x * 1103515245u + 12345u;
    return *x >> 16;
}

typedef struct tally {
    int bad_seeds, iterations, flagged, silent;
    int split_only, rec_off; /* flagged, not FC_UNSURE_MFU; of those, recompute not exact */
    unsigned long repeated, checks, mismatches, reasons[FC_UNSURE_COUNT];
} tally;

/* One random loop; 1 when it failed (printed). */
static int run_seed(int seed, int repeat, tally *t)
{
    unsigned x = (unsigned)seed * 2654435761u + 7;
    static const int recs[] = {GPT_NONE, GPT_FULL, GPT_SELECTIVE};
    gpt_cfg c = {.layers = 1 + (int)(rnd(&x) % 4), .hidden = 32 * (1 + (int)(rnd(&x) % 3)),
                 .heads = 2, .vocab = 64 + 32 * (int)(rnd(&x) % 3),
                 .seq = 16 * (1 + (int)(rnd(&x) % 2)), .batch = 1 + (int)(rnd(&x) % 3)};
    c.recompute = recs[rnd(&x) % 3];
    c.ckpt_mask = rnd(&x) % (1u << c.layers);
    c.use_lt = (int)(rnd(&x) % 2);
    c.torch_head = (int)(rnd(&x) % 2);
    c.lowest_block = (int)(rnd(&x) % 2);
    int jitter = (int)(rnd(&x) % 3); /* 0: none; else the other allocator 1 step in 3 * jitter */
    int eval_every = (int)(rnd(&x) % 5), eval_batch = (int)(rnd(&x) % 3);
    int steps = 10 + (int)(rnd(&x) % 20);

    fc_seg_reset();
    fc_steps_reset();
    fc_seg_set_repeat(repeat);
    clock_ticks = 0;
    gpt *g = gpt_new(&c, NULL, 0);
    for (int i = 0; i < steps; i++) {
        int other = jitter && rnd(&x) % (unsigned)(jitter * 3) == 0;
        gpt_set_lowest_block(g, other ? !c.lowest_block : c.lowest_block);
        gpt_train_step(g, push_gemm, g);
        if (eval_every && i % eval_every == 0)
            gpt_eval(g, push_gemm, g, eval_batch);
    }
    fc_seg_flush();
    gpt_free(g);

    fc_steps_view v;
    fc_steps_get(fc_steps_mode(), &v);
    gpt_flops f;
    gpt_expected(&c, &f);
    int bad = 0;
    if (v.count != (uint64_t)steps) {
        printf("seed %d: %lu iterations, %d steps\n", seed, (unsigned long)v.count, steps);
        bad = 1;
    }
    for (uint64_t k = 0; k < v.stored; k++) {
        const fc_iteration *it = &v.list[k];
        t->iterations++;
        if (it->unsure) {
            t->flagged++;
            for (int b = 0; b < FC_UNSURE_COUNT; b++)
                t->reasons[b] += it->unsure >> b & 1u;
            /* a doubt said to move FLOPs between forward and backward
             * only leaves recompute (and so MFU) exact */
            if (!(it->unsure & FC_UNSURE_MFU)) {
                t->split_only++;
                if (it->rec != f.rec) {
                    t->rec_off++;
                    printf("seed %d: iteration %lu flagged forward/backward only, recompute %lu, "
                           "want %lu\n", seed, (unsigned long)k + 1, (unsigned long)it->rec,
                           (unsigned long)f.rec);
                    bad = 1;
                }
            }
            continue;
        }
        if (it->fwd == f.fwd && it->bwd == f.bwd && it->rec == f.rec)
            continue;
        t->silent++;
        if (!bad)
            printf("seed %d: iteration %lu f/b/r %lu %lu %lu, want %lu %lu %lu (layers %d "
                   "hidden %d recompute %d mask %x lt %d torch_head %d lowest %d jitter %d "
                   "eval %d/%d)\n",
                   seed, (unsigned long)k + 1, (unsigned long)it->fwd, (unsigned long)it->bwd,
                   (unsigned long)it->rec, (unsigned long)f.fwd, (unsigned long)f.bwd,
                   (unsigned long)f.rec, c.layers, c.hidden, c.recompute, c.ckpt_mask, c.use_lt,
                   c.torch_head, c.lowest_block, jitter, eval_every, eval_batch);
        bad = 1;
    }
    fc_seg_stats st;
    fc_seg_stats_get(&st);
    t->repeated += st.repeated;
    t->checks += st.repeat_checks;
    t->mismatches += st.repeat_mismatches;
    if (st.repeat_mismatches > 0) {
        printf("seed %d: %lu repeats differ from labelling in full\n", seed,
               (unsigned long)st.repeat_mismatches);
        bad = 1;
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_iter_random FIRST_SEED END_SEED [0|1|check] [threads]\n");
        return 2;
    }
    int from = atoi(argv[1]), to = atoi(argv[2]);
    int repeat = argc < 4 ? 1 : strcmp(argv[3], "check") == 0 ? FC_REPEAT_CHECK : atoi(argv[3]);
    if (argc > 4 && strcmp(argv[4], "threads") == 0)
        feed_thread = thread_of;
    tally t = {0};
    for (int seed = from; seed < to; seed++)
        t.bad_seeds += run_seed(seed, repeat, &t);
    printf("seeds %d: failing %d; iterations %d, flagged %d (%d forward/backward only, %d of them "
           "with recompute off), silently wrong %d; repeated %lu, checked %lu, differing %lu\n"
           "flagged by reason (segment.h bit order):",
           to - from, t.bad_seeds, t.iterations, t.flagged, t.split_only, t.rec_off, t.silent,
           t.repeated, t.checks, t.mismatches);
    for (int b = 0; b < FC_UNSURE_COUNT; b++)
        printf(" %lu", t.reasons[b]);
    printf("\n");
    int ok = t.bad_seeds == 0 && (repeat != 1 || t.repeated > 0) &&
             (repeat != FC_REPEAT_CHECK || t.checks > 0);
    return ok ? 0 : 1;
}
