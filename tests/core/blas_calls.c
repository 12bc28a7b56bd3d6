/* SPDX-License-Identifier: Apache-2.0 */
/* blas_calls.c - drives the CPU BLAS hooks with shapes whose FLOPs the test
 * script works out by hand, and checks the BLAS results themselves so that
 * any change the shim made to them fails the run.
 *
 * usage: blas_calls MODE
 *   fortran  sgemm_ 2x3x4 NN, dgemm_ 5x6x7 TN, cgemm_ 2x2x2 NC, zgemm_ 3x1x2 NN
 *   cblas    cblas_sgemm 4x5x6 (row-major), cblas_dgemm 3x3x3, cblas_cgemm 2x3x4,
 *            cblas_zgemm 1x2x3; reference CBLAS calls sgemm_ inside (counted once)
 *   zero     sgemm_ with k = 0 and m = 0 (valid, no FLOPs)
 *   invalid  sgemm_ with m = -1 (BLAS xerbla would exit: we use cblas on
 *            a no-op path instead, see below)
 *   fork     parent sgemm_ 8x8x8 once, child sgemm_ 2x2x2 once, then both exit */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);
void cgemm_(const char *, const char *, const int *, const int *, const int *, const void *,
            const void *, const int *, const void *, const int *, const void *, void *,
            const int *, size_t, size_t);
void zgemm_(const char *, const char *, const int *, const int *, const int *, const void *,
            const void *, const int *, const void *, const int *, const void *, void *,
            const int *, size_t, size_t);
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int,
                 double, double *, int);
void cblas_cgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_zgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);

static int failures;

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "blas_calls: wrong result: %s\n", what);
        failures++;
    }
}

static float ones_f[4096], out_f[4096];
static double ones_d[4096], out_d[4096];

/* With A and B all ones, every element of C = A.B is k. */
static void sg(const char *ta, const char *tb, int m, int n, int k)
{
    float one = 1, zero = 0;
    int lda = ta[0] == 'N' ? m : k, ldb = tb[0] == 'N' ? k : n, ldc = m;
    if (lda < 1) lda = 1;
    if (ldb < 1) ldb = 1;
    if (ldc < 1) ldc = 1;
    memset(out_f, 0, sizeof out_f);
    sgemm_(ta, tb, &m, &n, &k, &one, ones_f, &lda, ones_f, &ldb, &zero, out_f, &ldc, 1, 1);
    if (m > 0 && n > 0)
        expect(out_f[0] == (float)k && out_f[m * n - 1] == (float)k, "sgemm_");
}

static void fortran(void)
{
    double one = 1, zero = 0;
    float cone[2] = {1, 0}, czero[2] = {0, 0};
    double zone[2] = {1, 0}, zzero[2] = {0, 0};
    sg("N", "N", 2, 3, 4);
    int m = 5, n = 6, k = 7, lda = 7, ldb = 7, ldc = 5;
    dgemm_("T", "N", &m, &n, &k, &one, ones_d, &lda, ones_d, &ldb, &zero, out_d, &ldc, 1, 1);
    expect(out_d[0] == 7.0 && out_d[29] == 7.0, "dgemm_");
    int c2 = 2;
    float ca[8] = {1, 0, 1, 0, 1, 0, 1, 0}, cc[8];
    cgemm_("N", "C", &c2, &c2, &c2, cone, ca, &c2, ca, &c2, czero, cc, &c2, 1, 1);
    expect(cc[0] == 2.0f && cc[1] == 0.0f, "cgemm_");
    int zm = 3, zn = 1, zk = 2;
    double za[12] = {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}, zc[6];
    zgemm_("N", "N", &zm, &zn, &zk, zone, za, &zm, za, &zk, zzero, zc, &zm, 1, 1);
    expect(zc[0] == 2.0 && zc[4] == 2.0, "zgemm_");
}

static void cblas(void)
{
    float cone[2] = {1, 0}, czero[2] = {0, 0};
    double zone[2] = {1, 0}, zzero[2] = {0, 0};
    static float ca[64], cc[64];
    static double za[64], zc[64];
    for (int i = 0; i < 64; i += 2) {
        ca[i] = 1;
        za[i] = 1;
    }
    /* 101 row-major, 102 column-major, 111 no transpose, 112 transpose */
    cblas_sgemm(101, 111, 111, 4, 5, 6, 1.0f, ones_f, 6, ones_f, 5, 0.0f, out_f, 5);
    expect(out_f[0] == 6.0f && out_f[19] == 6.0f, "cblas_sgemm");
    cblas_dgemm(102, 112, 111, 3, 3, 3, 1.0, ones_d, 3, ones_d, 3, 0.0, out_d, 3);
    expect(out_d[8] == 3.0, "cblas_dgemm");
    cblas_cgemm(102, 111, 111, 2, 3, 4, cone, ca, 2, ca, 4, czero, cc, 2);
    expect(cc[0] == 4.0f, "cblas_cgemm");
    cblas_zgemm(102, 111, 111, 1, 2, 3, zone, za, 1, za, 3, zzero, zc, 1);
    expect(zc[0] == 3.0, "cblas_zgemm");
}

int main(int argc, char **argv)
{
    for (int i = 0; i < 4096; i++) {
        ones_f[i] = 1;
        ones_d[i] = 1;
    }
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "fortran") == 0) {
        fortran();
    } else if (strcmp(mode, "cblas") == 0) {
        cblas();
    } else if (strcmp(mode, "zero") == 0) {
        sg("N", "N", 3, 3, 0);
        sg("N", "N", 0, 3, 3);
    } else if (strcmp(mode, "fork") == 0) {
        sg("N", "N", 8, 8, 8);
        pid_t pid = fork();
        if (pid == 0) {
            if (argc > 2 && strcmp(argv[2], "child-gemm") == 0)
                sg("N", "N", 2, 2, 2);
            exit(0); /* runs destructors: the child's report logic is what is tested */
        }
        int st;
        waitpid(pid, &st, 0);
        expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child exit");
    } else {
        fprintf(stderr, "usage: blas_calls fortran|cblas|zero|fork [child-gemm]\n");
        return 2;
    }
    return failures ? 1 : 0;
}
