/* SPDX-License-Identifier: Apache-2.0 */
/* marker_prog.c - a C program of a user of the installed package, built
 * with `cc marker_prog.c $(pkg-config --cflags --libs flopcount) -lblas`:
 * it calls the marker API of flopcount.h (linked, not looked up), runs
 * STEPS steps of 3 sgemm_ calls of m = n = k = 32 (2*32^3 = 65,536 FLOPs
 * each), and checks what flopcount_snapshot_get says against that count.
 * Linked with -lflopcount, the library is loaded (and counts) with or
 * without LD_PRELOAD. Exit 0 and "ok" when every figure is the hand
 * count. scripts/ci/package.sh runs it. */
#include <stdio.h>
#include <string.h>

#include <flopcount.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

#define N 32
#define STEPS 5
static float a[N * N], b[N * N], c[N * N];

int main(void)
{
    int n = N;
    float one = 1, zero = 0;
    for (int i = 0; i < N * N; i++)
        a[i] = b[i] = 1.0f;
    for (int s = 0; s < STEPS; s++) {
        flopcount_forward_begin();
        sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
        flopcount_backward_begin();
        sgemm_("T", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
        sgemm_("N", "T", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
        flopcount_step();
    }
    flopcount_snapshot snap;
    memset(&snap, 0, sizeof snap);
    snap.size = sizeof snap;
    if (flopcount_snapshot_get(&snap) != 0) {
        fprintf(stderr, "marker_prog: flopcount_snapshot_get failed\n");
        return 1;
    }
    unsigned long long calls = 3 * STEPS, flops = calls * 2ull * N * N * N;
    int ok = (snap.flags & FLOPCOUNT_SNAPSHOT_COUNTING) && snap.gemm_calls == calls &&
             snap.gemm_flops_lo == flops && snap.gemm_flops_hi == 0 && snap.iterations == STEPS &&
             snap.detected_by == FLOPCOUNT_DETECTED_MARKER && c[0] == (float)N;
    printf("%s: %llu calls, %llu FLOPs, %llu iterations (want %llu, %llu, %d) %s\n",
           flopcount_version(), (unsigned long long)snap.gemm_calls,
           (unsigned long long)snap.gemm_flops_lo, (unsigned long long)snap.iterations, calls, flops,
           STEPS, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
