/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_gemm_loop.c - a small training loop in sgemm_ calls for the
 * Prometheus writer and the snapshot to run against while the drainer
 * ticks. Two 16x16 layers, each GEMM 2*16^3 = 8,192 FLOPs:
 *   forward   H = W1 X, Y = W2 H                       2 calls
 *   backward  dH = W2^T dY, dW2 = dY H^T,
 *             dX = W1^T dH, dW1 = dH X^T               4 calls
 * so 6 calls and 49,152 FLOPs per step; then flopcount_step() and
 * flopcount_snapshot_get() (looked up with dlsym: absent without the
 * library), 10 ms apart. After the last step it waits (at most 60 s) for
 * the file WAIT to exist, so a test can read the periodic output first.
 *
 * usage: fixture_gemm_loop STEPS WAIT */
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "fixture_sgemm16.h"
#include "flopcount.h"
static float w1[N * N], w2[N * N], x[N * N], h[N * N], y[N * N];
static float dy[N * N], dh[N * N], dx[N * N], dw1[N * N], dw2[N * N];

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int steps = atoi(argv[1]);
    void (*step)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "flopcount_step");
    int (*get)(flopcount_snapshot *) =
        (int (*)(flopcount_snapshot *))dlsym(RTLD_DEFAULT, "flopcount_snapshot_get");
    for (int i = 0; i < N * N; i++)
        w1[i] = w2[i] = x[i] = dy[i] = 1.0f / N;
    struct timespec nap = {0, 10000000};
    for (int s = 0; s < steps; s++) {
        mm("N", "N", w1, x, h);
        mm("N", "N", w2, h, y);
        mm("T", "N", w2, dy, dh);
        mm("N", "T", dy, h, dw2);
        mm("T", "N", w1, dh, dx);
        mm("N", "T", dh, x, dw1);
        if (step != NULL)
            step();
        if (get != NULL) {
            flopcount_snapshot snap = {.size = sizeof snap};
            if (get(&snap) != 0)
                return 1;
        }
        nanosleep(&nap, NULL);
    }
    for (int i = 0; i < 6000 && access(argv[2], F_OK) != 0; i++)
        nanosleep(&nap, NULL);
    /* every entry of H is 16 * (1/16)^2 = 1/16, so every entry of Y is 1/16 too */
    return y[0] == 1.0f / N ? 0 : 1;
}
