/* SPDX-License-Identifier: Apache-2.0 */
/* dlsym_overhead.c - what the shim's dlsym interposer costs a lookup.
 *
 * A child process times dlsym on library handles: two names the shim does
 * not hook, found in libm ("cos", which starts like cublas* names, and
 * "tanh", which does not), and one it does ("sgemm_" on the no-op BLAS of
 * bench/noop_blas.c, answered with a counting hook). Each figure is the
 * median over batches of --calls lookups, in ns per lookup. The parent runs
 * the child --rounds times without the shim and as many times under
 * LD_PRELOAD of it, alternating which goes first, and reports the medians
 * over rounds of each and of the per-round difference (bench/README.md).
 * The last line of output is one JSON object.
 *
 * usage: dlsym_overhead [--rounds N] [--calls N] [--shim PATH] [--blas PATH] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

#ifndef FC_BENCH_SHIM
#define FC_BENCH_SHIM "libflopcount.so"
#endif
#ifndef FC_BENCH_BLAS
#define FC_BENCH_BLAS "libfc_noop_blas.so"
#endif

enum { LOOKUPS = 3, BATCHES = 9, MAX_ROUNDS = 101 };
static const char *const lookup_names[LOOKUPS] = {"cos", "tanh", "sgemm_"};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Medians as everywhere in flopcount: the lower middle (analysis/stats.h). */
static double median(double *v, int n)
{
    return fc_median_double(v, (size_t)n);
}

/* The child: ns per lookup of each name, median over batches. */
static int child(long calls, const char *blas)
{
    void *libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
    void *noop = dlopen(blas, RTLD_NOW | RTLD_LOCAL);
    if (libm == NULL || noop == NULL) {
        fprintf(stderr, "dlsym_overhead: dlopen: %s\n", dlerror());
        return 1;
    }
    void *handles[LOOKUPS] = {libm, libm, noop};
    double out[LOOKUPS];
    for (int l = 0; l < LOOKUPS; l++) {
        void *volatile sink;
        for (long i = 0; i < calls / 10; i++) /* warm-up */
            sink = dlsym(handles[l], lookup_names[l]);
        double per[BATCHES];
        for (int b = 0; b < BATCHES; b++) {
            double t0 = now_ns();
            for (long i = 0; i < calls; i++)
                sink = dlsym(handles[l], lookup_names[l]);
            per[b] = (now_ns() - t0) / (double)calls;
        }
        if (sink == NULL) {
            fprintf(stderr, "dlsym_overhead: %s not found\n", lookup_names[l]);
            return 1;
        }
        out[l] = median(per, BATCHES);
    }
    printf("%.3f %.3f %.3f\n", out[0], out[1], out[2]);
    return 0;
}

/* Runs the child once, under the shim or not; fills ns[LOOKUPS]. */
static int run_child(const char *self, long calls, const char *shim, const char *blas,
                     int under_shim, double *ns)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        if (under_shim) {
            setenv("LD_PRELOAD", shim, 1);
            setenv("FLOPCOUNT_QUIET", "1", 1);
            setenv("FLOPCOUNT_OUTPUT", "/tmp/flopcount-dlsym-bench.json", 1);
        } else {
            unsetenv("LD_PRELOAD");
        }
        char n[32];
        snprintf(n, sizeof n, "%ld", calls);
        execl(self, self, "--child", n, blas, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char buf[256] = {0};
    ssize_t got = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        sscanf(buf, "%lf %lf %lf", &ns[0], &ns[1], &ns[2]) != LOOKUPS)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    long calls = 200000;
    int rounds = 7;
    const char *shim = FC_BENCH_SHIM, *blas = FC_BENCH_BLAS;
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child(atol(argv[2]), argv[3]);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
            calls = atol(argv[++i]);
        else if (strcmp(argv[i], "--shim") == 0 && i + 1 < argc)
            shim = argv[++i];
        else if (strcmp(argv[i], "--blas") == 0 && i + 1 < argc)
            blas = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--rounds N] [--calls N] [--shim PATH] [--blas PATH]\n",
                    argv[0]);
            return 2;
        }
    }
    if (rounds < 1 || rounds > MAX_ROUNDS || calls < 10) {
        fprintf(stderr, "dlsym_overhead: --rounds 1..%d, --calls >= 10\n", MAX_ROUNDS);
        return 2;
    }
    static double plain[LOOKUPS][MAX_ROUNDS], shimmed[LOOKUPS][MAX_ROUNDS],
        added[LOOKUPS][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        double p[LOOKUPS], s[LOOKUPS];
        int first_shim = r % 2;
        for (int k = 0; k < 2; k++) {
            int under = k == 0 ? first_shim : !first_shim;
            if (run_child("/proc/self/exe", calls, shim, blas, under, under ? s : p) != 0) {
                fprintf(stderr, "dlsym_overhead: child run failed (shim %s, blas %s)\n", shim,
                        blas);
                return 1;
            }
        }
        for (int l = 0; l < LOOKUPS; l++) {
            plain[l][r] = p[l];
            shimmed[l][r] = s[l];
            added[l][r] = s[l] - p[l];
        }
        printf("round %d: plain %.1f %.1f %.1f  shim %.1f %.1f %.1f ns\n", r + 1, p[0], p[1],
               p[2], s[0], s[1], s[2]);
    }
    printf("{\"rounds\": %d, \"calls\": %ld", rounds, calls);
    const char *keys[LOOKUPS] = {"cos", "tanh", "hooked_sgemm"};
    for (int l = 0; l < LOOKUPS; l++)
        printf(", \"plain_%s_ns\": %.1f, \"shim_%s_ns\": %.1f, \"added_%s_ns\": %.1f", keys[l],
               median(plain[l], rounds), keys[l], median(shimmed[l], rounds), keys[l],
               median(added[l], rounds));
    printf("}\n");
    return 0;
}
