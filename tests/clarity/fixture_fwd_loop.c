/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_fwd_loop.c - a benchmark loop as people write one to check a
 * kernel's utilization: fixed operands, no backward, one fp32 and one fp64
 * GEMM per step through the Fortran BLAS:
 *   sgemm_ 64x64x64  2*64^3 = 524,288 FLOPs
 *   dgemm_ 32x32x32  2*32^3 =  65,536 FLOPs
 * so 589,824 FLOPs a step (fp32 share 8/9). With MARK=1 it calls
 * flopcount_step() after each step (looked up with dlsym: absent without
 * the library); with MARK=0 it does not; STEPS 0: no GEMM at all. A 20 ms
 * nap per step keeps the step's time well above the GEMMs'.
 *
 * MARK=2: a training run first - 4 steps of two 16x16 layers (forward
 * H = W1 X, Y = W2 H; backward dH = W2^T dY, dW2 = dY H^T, dX = W1^T dH,
 * dW1 = dH X^T: 6 sgemm_ of 2*16^3 = 8,192 FLOPs, 49,152 a step), each
 * followed by flopcount_step() - then STEPS evaluation steps of its
 * forward (2 calls, 16,384 FLOPs), each marked off by flopcount_step().
 *
 * usage: fixture_fwd_loop STEPS MARK */
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);

#define N16 16
static float w1[N16 * N16], w2[N16 * N16], x[N16 * N16], h[N16 * N16], y[N16 * N16];
static float dy[N16 * N16], dh[N16 * N16], dx[N16 * N16], dw1[N16 * N16], dw2[N16 * N16];

static void mm16(const char *ta, const char *tb, const float *a, const float *b, float *c)
{
    int n = N16;
    float one = 1, zero = 0;
    sgemm_(ta, tb, &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
}

/* a training run, then its evaluation in marked steps of their own */
static int train_then_evaluate(int steps, void (*step)(void))
{
    for (int i = 0; i < N16 * N16; i++)
        w1[i] = w2[i] = x[i] = dy[i] = 1.0f / N16;
    struct timespec nap = {0, 5000000};
    for (int s = 0; s < 4; s++) {
        mm16("N", "N", w1, x, h);
        mm16("N", "N", w2, h, y);
        mm16("T", "N", w2, dy, dh);
        mm16("N", "T", dy, h, dw2);
        mm16("T", "N", w1, dh, dx);
        mm16("N", "T", dh, x, dw1);
        nanosleep(&nap, NULL);
        if (step != NULL)
            step();
    }
    for (int s = 0; s < steps; s++) {
        mm16("N", "N", w1, x, h);
        mm16("N", "N", w2, h, y);
        nanosleep(&nap, NULL);
        if (step != NULL)
            step();
    }
    return y[0] == 1.0f / N16 ? 0 : 1;
}

#define NS 64
#define ND 32
static float sa[NS * NS], sb[NS * NS], sc[NS * NS];
static double da[ND * ND], db[ND * ND], dc[ND * ND];

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int steps = atoi(argv[1]), mark = atoi(argv[2]);
    void (*step)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "flopcount_step");
    if (mark == 2)
        return train_then_evaluate(steps, step);
    for (int i = 0; i < NS * NS; i++)
        sa[i] = sb[i] = 1.0f / NS;
    for (int i = 0; i < ND * ND; i++)
        da[i] = db[i] = 1.0 / ND;
    int ns = NS, nd = ND;
    float one = 1, zero = 0;
    double done = 1, dzero = 0;
    struct timespec nap = {0, 20000000};
    for (int s = 0; s < steps; s++) {
        sgemm_("N", "N", &ns, &ns, &ns, &one, sa, &ns, sb, &ns, &zero, sc, &ns, 1, 1);
        dgemm_("N", "N", &nd, &nd, &nd, &done, da, &nd, db, &nd, &dzero, dc, &nd, 1, 1);
        nanosleep(&nap, NULL);
        if (mark && step != NULL)
            step();
    }
    /* every entry of A B is 64 * (1/64)^2 = 1/64 */
    return steps == 0 || (sc[0] == 1.0f / NS && dc[0] == 1.0 / ND) ? 0 : 1;
}
