/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_tb_loop.c - a training loop in sgemm_ calls with every phase
 * declared (markers looked up with dlsym: absent without the library), for
 * the TensorBoard writer's tests. Two 16x16 layers, each GEMM 2*16^3 =
 * 8,192 FLOPs:
 *   forward    H = W1 X, Y = W2 H                          2 calls
 *   backward   recompute H = W1 X (declared), then
 *              dH = W2^T dY, dW2 = dY H^T,
 *              dX = W1^T dH, dW1 = dH X^T                  1 + 4 calls
 * so 7 calls, 57,344 FLOPs per iteration, 8,192 of them recompute (1/7);
 * after every EVAL_EVERY-th step an evaluation pass (2 calls, 16,384
 * FLOPs). Steps are 10 ms apart. Then "done" on stdout, and it waits (at
 * most 60 s) for the file WAIT to exist, so a test can read the event file
 * of a process still alive, or kill it.
 *
 * With a fourth argument "auto" it declares nothing (no marker at all):
 * iterations are the detector's, the last one ends with the stream. With
 * "fast" the steps are not spaced: the whole loop runs within one drain of
 * the library, so its iterations and evaluation passes reach the writer
 * together (the figures must still be each iteration's own).
 *
 * usage: fixture_tb_loop STEPS EVAL_EVERY WAIT [auto|fast] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fixture_sgemm16.h"
static float w1[N * N], w2[N * N], x[N * N], h[N * N], y[N * N];
static float dy[N * N], dh[N * N], dx[N * N], dw1[N * N], dw2[N * N];

static int no_markers;

static void (*marker(const char *name))(void)
{
    return no_markers ? NULL : (void (*)(void))dlsym(RTLD_DEFAULT, name);
}

static void call(void (*f)(void))
{
    if (f != NULL)
        f();
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5)
        return 2;
    no_markers = argc == 5 && strcmp(argv[4], "auto") == 0;
    int fast = argc == 5 && strcmp(argv[4], "fast") == 0;
    int steps = atoi(argv[1]), eval_every = atoi(argv[2]);
    void (*step)(void) = marker("flopcount_step");
    void (*fwd)(void) = marker("flopcount_forward_begin");
    void (*bwd)(void) = marker("flopcount_backward_begin");
    void (*rec0)(void) = marker("flopcount_recompute_begin");
    void (*rec1)(void) = marker("flopcount_recompute_end");
    void (*ev0)(void) = marker("flopcount_eval_begin");
    void (*ev1)(void) = marker("flopcount_eval_end");
    for (int i = 0; i < N * N; i++)
        w1[i] = w2[i] = x[i] = dy[i] = 1.0f / N;
    struct timespec nap = {0, 10000000};
    for (int s = 1; s <= steps; s++) {
        call(fwd);
        mm("N", "N", w1, x, h);
        mm("N", "N", w2, h, y);
        call(bwd);
        call(rec0);
        mm("N", "N", w1, x, h);
        call(rec1);
        mm("T", "N", w2, dy, dh);
        mm("N", "T", dy, h, dw2);
        mm("T", "N", w1, dh, dx);
        mm("N", "T", dh, x, dw1);
        call(step);
        if (!fast)
            nanosleep(&nap, NULL);
        if (eval_every > 0 && s % eval_every == 0) {
            call(ev0);
            mm("N", "N", w1, x, h);
            mm("N", "N", w2, h, y);
            call(ev1);
        }
    }
    printf("done\n");
    fflush(stdout);
    for (int i = 0; i < 6000 && access(argv[3], F_OK) != 0; i++)
        nanosleep(&nap, NULL);
    /* every entry of H is 16 * (1/16)^2 = 1/16, so every entry of Y is 1/16 too */
    return y[0] == 1.0f / N ? 0 : 1;
}
