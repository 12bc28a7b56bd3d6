/* SPDX-License-Identifier: Apache-2.0 */
/* launch_overhead.c - what the launch hooks add to a kernel launch and to
 * a kernel registration, against a runtime whose entry points return at
 * once (bench/noop_cudart.c, linked: the shim interposes it as it does
 * libcudart).
 *
 * A child process first registers --kernels kernels through
 * __cudaRegisterFunction (synthetic mangled names of PyTorch's lengths,
 * one in ten a FlashAttention-2 kernel of interest, as libtorch_cuda
 * registers thousands at load), timing that, then times launches, each the
 * median over batches of --calls launches, in ns per launch: a kernel not
 * of interest through __cudaLaunchKernel (CUDA 13's stubs) and through
 * cudaLaunchKernel (older stubs, PyTorch's own launches), and a
 * FlashAttention-2 forward through __cudaLaunchKernel, decoded and counted
 * each time (batches of 1,000, the drainer given time between them: what
 * the calling thread pays, not the detector's throughput). The parent runs the child --rounds times
 * without the shim and as many under LD_PRELOAD of it, alternating which goes first, and reports
 * the medians over rounds of each and of the per-round difference (bench/README.md). The last line
 * of output is one JSON object.
 *
 * usage: launch_overhead [--rounds N] [--calls N] [--kernels N] [--shim PATH]
 *        launch_overhead --register-only N   (registers N kernels, exits:
 *                                             bench/footprint.py's case) */
#include <cuda_runtime_api.h>
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

void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                            int *wSize);
cudaError_t __cudaGetKernel(cudaKernel_t *k, const void *fun);
cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t smem,
                               cudaStream_t s);

enum { FIGURES = 4, BATCHES = 9, MAX_ROUNDS = 101, MAX_KERNELS = 100000, NAME = 320 };
/* decoded launches per batch: a quarter of a thread's ring (4,096
 * records), drained between batches */
#define DECODED 1000

static char names[MAX_KERNELS][NAME];
static char stubs[MAX_KERNELS];

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* PyTorch-like names: one in ten a FlashAttention-2 forward (distinct
 * traits), the rest elementwise kernels of about 200 characters. */
static void make_names(int n)
{
    for (int i = 0; i < n; i++) {
        if (i % 10 == 0)
            snprintf(
                names[i], NAME,
                "_ZN13pytorch_flash16flash_fwd_kernelINS_23Flash_fwd_kernel_traitsILi128ELi%dELi"
                "64ELi4ELb0ELb0EN7cutlass10bfloat16_tENS_19Flash_kernel_traitsILi128ELi%dELi64ELi"
                "4ES3_EEEELb0ELb1ELb0ELb0ELb1ELb1ELb0EEEvNS_16Flash_fwd_paramsE",
                1000 + i, 1000 + i);
        else
            snprintf(
                names[i], NAME,
                "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_%d_add_kernel_cudaERNS_1"
                "8TensorIteratorBaseERKN3c106ScalarEENKUlvE_clEvENKUlvE%d_clEvEUlfE_NS_6detail5Ar"
                "rayIPcLi3EEEEEviT0_T1_",
                i, i % 7);
    }
}

/* ns per registration; the first one (where the shim resolves the real
 * function, once per process) is not timed */
static double register_all(int n)
{
    static void *fatbin;
    if (n < 2)
        return 0;
    __cudaRegisterFunction(&fatbin, &stubs[0], names[0], names[0], -1, NULL, NULL, NULL, NULL,
                           NULL);
    double t0 = now_ns();
    for (int i = 1; i < n; i++)
        __cudaRegisterFunction(&fatbin, &stubs[i], names[i], names[i], -1, NULL, NULL, NULL, NULL,
                               NULL);
    return (now_ns() - t0) / (n - 1);
}

#define PT25_FWD                                                                                   \
    "_ZN13pytorch_flash16flash_fwd_kernelINS_23Flash_fwd_kernel_traitsILi128ELi128ELi64ELi4ELb0E"  \
    "Lb0EN7cutlass10bfloat16_tENS_19Flash_kernel_traitsILi128ELi128ELi64ELi4ES3_EEEELb0ELb1ELb0E"  \
    "Lb0ELb1ELb1ELb0EEEvNS_16Flash_fwd_paramsE"

/* PyTorch 2.3-2.6's Flash_fwd_params (456 bytes): the fields the decoder
 * reads, at their offsets (tests/launch/params.h has the struct) */
static void flash_params(unsigned char *p)
{
    memset(p, 0, 456);
    int32_t v[][2] = {{96, 8},    {100, 2},   {176, 2},   {180, 512}, {184, 512}, {192, 128},
                      {196, 512}, {200, 512}, {204, 128}, {380, 512}, {384, 0}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        memcpy(p + v[i][0], &v[i][1], 4);
    float keep = 1.0f;
    memcpy(p + 364, &keep, 4);
    p[432] = p[433] = 1; /* is_bf16, is_causal */
}

/* pause: between batches, untimed (the decoded launches' records must
 * not fill the thread's ring: a real attention kernel runs for tens of
 * microseconds, so they never come back to back at this rate) */
static double time_launches(long calls, cudaKernel_t k, const void *stub, void **args, dim3 grid,
                            int runtime_api, int pause)
{
    double per[BATCHES];
    dim3 block = {128, 1, 1};
    for (long i = 0; i < calls / 10; i++) /* warm-up */
        __cudaLaunchKernel(k, grid, block, args, 0, NULL);
    for (int b = 0; b < BATCHES; b++) {
        if (pause) {
            struct timespec ms = {0, 30 * 1000000};
            nanosleep(&ms, NULL);
        }
        double t0 = now_ns();
        if (runtime_api)
            for (long i = 0; i < calls; i++)
                cudaLaunchKernel(stub, grid, block, args, 0, NULL);
        else
            for (long i = 0; i < calls; i++)
                __cudaLaunchKernel(k, grid, block, args, 0, NULL);
        per[b] = (now_ns() - t0) / (double)calls;
    }
    return fc_median_double(per, BATCHES);
}

static int child(long calls, int kernels)
{
    make_names(kernels);
    double reg = register_all(kernels);
    static void *fatbin;
    static char plain_stub, flash_stub;
    __cudaRegisterFunction(&fatbin, &plain_stub, (char *)"_Z10vector_addPfPKfi",
                           "_Z10vector_addPfPKfi", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(&fatbin, &flash_stub, (char *)PT25_FWD, PT25_FWD, -1, NULL, NULL, NULL,
                           NULL, NULL);
    cudaKernel_t plain = NULL, flash = NULL;
    __cudaGetKernel(&plain, &plain_stub);
    __cudaGetKernel(&flash, &flash_stub);
    float *ptrs[3] = {NULL, NULL, NULL};
    void *plain_args[] = {&ptrs[0], &ptrs[1], &ptrs[2]};
    static unsigned char params[456];
    flash_params(params);
    void *flash_args[] = {params};
    dim3 g1 = {1, 1, 1}, gf = {4, 2, 8};
    double a = time_launches(calls, plain, &plain_stub, plain_args, g1, 0, 0);
    double b = time_launches(calls, plain, &plain_stub, plain_args, g1, 1, 0);
    double c = time_launches(DECODED, flash, &flash_stub, flash_args, gf, 0, 1);
    printf("%.3f %.3f %.3f %.3f\n", a, b, c, reg);
    return 0;
}

static int run_child(long calls, int kernels, const char *shim, int under_shim, double *ns)
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
            setenv("FLOPCOUNT_OUTPUT", "/tmp/flopcount-launch-bench.json", 1);
        } else {
            unsetenv("LD_PRELOAD");
        }
        char c[32], k[32];
        snprintf(c, sizeof c, "%ld", calls);
        snprintf(k, sizeof k, "%d", kernels);
        execl("/proc/self/exe", "launch_overhead", "--child", c, k, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char buf[256] = {0};
    ssize_t got = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        sscanf(buf, "%lf %lf %lf %lf", &ns[0], &ns[1], &ns[2], &ns[3]) != FIGURES)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    long calls = 1000000;
    int rounds = 7, kernels = 10000;
    const char *shim = FC_BENCH_SHIM;
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child(atol(argv[2]), atoi(argv[3]));
    if (argc == 3 && strcmp(argv[1], "--register-only") == 0) {
        int n = atoi(argv[2]);
        if (n < 0 || n > MAX_KERNELS)
            return 2;
        make_names(n);
        register_all(n);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
            calls = atol(argv[++i]);
        else if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc)
            kernels = atoi(argv[++i]);
        else if (strcmp(argv[i], "--shim") == 0 && i + 1 < argc)
            shim = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--rounds N] [--calls N] [--kernels N] [--shim PATH]\n",
                    argv[0]);
            return 2;
        }
    }
    if (rounds < 1 || rounds > MAX_ROUNDS || calls < 10 || kernels < 0 || kernels > MAX_KERNELS) {
        fprintf(stderr, "launch_overhead: --rounds 1..%d, --calls >= 10, --kernels 0..%d\n",
                MAX_ROUNDS, MAX_KERNELS);
        return 2;
    }
    static double bare[FIGURES][MAX_ROUNDS], shimmed[FIGURES][MAX_ROUNDS],
        added[FIGURES][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        double p[FIGURES], s[FIGURES];
        int first_shim = r % 2;
        for (int k = 0; k < 2; k++) {
            int under = k == 0 ? first_shim : !first_shim;
            if (run_child(calls, kernels, shim, under, under ? s : p) != 0) {
                fprintf(stderr, "launch_overhead: child run failed (shim %s)\n", shim);
                return 1;
            }
        }
        for (int f = 0; f < FIGURES; f++) {
            bare[f][r] = p[f];
            shimmed[f][r] = s[f];
            added[f][r] = s[f] - p[f];
        }
        printf("round %d: bare %.1f %.1f %.1f %.1f  shim %.1f %.1f %.1f %.1f ns\n", r + 1, p[0],
               p[1], p[2], p[3], s[0], s[1], s[2], s[3]);
    }
    printf("{\"rounds\": %d, \"calls\": %ld, \"kernels_registered\": %d", rounds, calls, kernels);
    const char *keys[FIGURES] = {"plain_cuda13", "plain_runtime", "flash_decoded", "register"};
    for (int f = 0; f < FIGURES; f++)
        printf(", \"bare_%s_ns\": %.1f, \"shim_%s_ns\": %.1f, \"added_%s_ns\": %.1f", keys[f],
               fc_median_double(bare[f], (size_t)rounds), keys[f],
               fc_median_double(shimmed[f], (size_t)rounds), keys[f],
               fc_median_double(added[f], (size_t)rounds));
    printf("}\n");
    return 0;
}
