/* SPDX-License-Identifier: Apache-2.0 */
/* shim_overhead.c - what the shim adds to one intercepted GEMM call.
 *
 * sgemm_ of a no-op BLAS (libfc_noop_blas.so) is called three ways,
 * interleaved in batches (the order rotates each round, so drift and cache
 * state fall on all three alike):
 *   direct  through a function pointer from dlopen of the no-op BLAS;
 *   shim    through libflopcount.so's sgemm_ (dlopen'ed, it finds the no-op
 *           BLAS as its real function), which counts and forwards;
 *   logger  through a naive per-call logger (naive_logger.c).
 * What the whole process pays, not only the caller: rounds alternating a
 * direct batch and a shim batch, the CPU time of every thread of the process
 * (user + system: the caller and the shim's drainer) and its context
 * switches over each, and the calling thread's CPU time alone, which a
 * loaded machine disturbs less than the timed rounds' wall time
 * (cost_rounds).
 * Then 10 million shim calls spread over 100,000 distinct shapes, far more
 * than the shim's table holds, to see that memory stays bounded and that
 * the shapes beyond the table are still counted exactly (with the first
 * weight coming back every 1,000 calls, as in training: many_shapes).
 * Allocations are counted by interposing malloc and friends in this
 * executable; counting is on only while the shim is being called, after
 * warm-up. The last line of output is one JSON object (bench/README.md).
 * Pinned to one core: run it under `taskset -c 0` (the shim's thread
 * inherits the affinity).
 *
 * usage: shim_overhead [--batch N] [--rounds N] [--period N] [--shape-calls N]
 *                      [--shapes N] [--shim PATH] [--blas PATH] [--log PATH]
 *                      [--work-ns N] [--cost-rounds N] [--cost-batch N]
 *                      [--api blas|cublas] [--cublas PATH] [--driver PATH] [--check]
 * --api cublas: cublasSgemm_v2 of a no-op libcublas.so.13 (noop_cublas.c)
 * instead of sgemm_, through the shim's cuBLAS hook (no logger then).
 * --driver PATH: dlopen a (fake) libcuda.so.1 first, so that the shim finds
 * a driver and, with FLOPCOUNT_CUPTI set, loads CUPTI: "present but idle".
 * --work-ns N: each backend call spins N ns of CPU time first (a fixed
 * count of loop iterations, calibrated at start), as a real cuBLAS call
 * spends 3-5 us of host time enqueueing its kernel; the shim's drainer
 * then keeps up on its own thread, as it would in real training. 0
 * (default): the backend returns at once (worst case).
 * --cost-rounds N, --cost-batch N: rounds and calls per batch of the
 * whole-process measurement (default 30 and 20,000).
 * --period N: the timed calls cycle over N weight matrices (default 64), like
 * a training loop over N layers; --period 1 repeats one call, which makes
 * every call look like a whole training iteration to the shim.
 * --check: exit 1 unless allocations are 0, every count is exact and RSS
 * grew at most 8 MiB (the ctest smoke run; timings are never checked). */
#include <dlfcn.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

#include "../include/flopcount.h"
#include "naive_logger.h"

#ifndef FC_BENCH_SHIM
#define FC_BENCH_SHIM "libflopcount.so"
#endif
#ifndef FC_BENCH_BLAS
#define FC_BENCH_BLAS "libfc_noop_blas.so"
#endif
#ifndef FC_BENCH_CUBLAS
#define FC_BENCH_CUBLAS "libcublas.so.13"
#endif

/* ---- allocation counter ---- */
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);

static atomic_int counting;
static atomic_ulong allocations;

static void count(void)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}

void *malloc(size_t n)
{
    count();
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    count();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    count();
    return __libc_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n)
{
    count();
    return __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    count();
    void *p = __libc_memalign(align, n);
    if (p == NULL)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}

/* ---- set-up ---- */
static long period = 64; /* --period, see ns_per_call */
static long work_ns;     /* --work-ns: CPU time of each backend call, timed and cost rounds */
static int api_cublas;   /* --api cublas */
typedef int (*cublas_sgemm_fn)(void *, int, int, int, int, int, const float *, const float *, int,
                               const float *, int, const float *, float *, int);
static cublas_sgemm_fn cublas_direct, cublas_shim;
typedef struct bench {
    long batch, rounds, shape_calls, shapes, cost_rounds, cost_batch;
    const char *shim_path, *blas_path, *log_path, *cublas_path, *driver_path, *api;
    int check;
    bench_sgemm_fn direct, shim;
    unsigned long *noop_calls;
    int (*snapshot)(flopcount_snapshot *);
} bench;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static int parse_args(bench *b, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long *num = strcmp(a, "--batch") == 0         ? &b->batch
                    : strcmp(a, "--period") == 0      ? &period
                    : strcmp(a, "--rounds") == 0      ? &b->rounds
                    : strcmp(a, "--shape-calls") == 0 ? &b->shape_calls
                    : strcmp(a, "--shapes") == 0      ? &b->shapes
                    : strcmp(a, "--work-ns") == 0     ? &work_ns
                    : strcmp(a, "--cost-rounds") == 0 ? &b->cost_rounds
                    : strcmp(a, "--cost-batch") == 0  ? &b->cost_batch
                                                      : NULL;
        const char **str = strcmp(a, "--shim") == 0     ? &b->shim_path
                           : strcmp(a, "--blas") == 0   ? &b->blas_path
                           : strcmp(a, "--log") == 0    ? &b->log_path
                           : strcmp(a, "--api") == 0    ? &b->api
                           : strcmp(a, "--driver") == 0 ? &b->driver_path
                           : strcmp(a, "--cublas") == 0 ? &b->cublas_path
                                                        : NULL;
        if (strcmp(a, "--check") == 0) {
            b->check = 1;
        } else if (num != NULL && v != NULL &&
                   ((*num = strtol(v, NULL, 10)) > 0 || (num == &work_ns && *num == 0))) {
            i++;
        } else if (str != NULL && v != NULL) {
            *str = v;
            i++;
        } else {
            fprintf(stderr,
                    "shim_overhead: bad argument '%s' (see the header of shim_overhead.c)\n", a);
            return -1;
        }
    }
    api_cublas = strcmp(b->api, "cublas") == 0;
    if (!api_cublas && strcmp(b->api, "blas") != 0) {
        fprintf(stderr, "shim_overhead: --api blas or cublas, not '%s'\n", b->api);
        return -1;
    }
    return 0;
}

/* The no-op BLAS first and global, so the shim (loaded second) finds it as
 * the real sgemm_; FLOPCOUNT_QUIET unless the caller set it. */
static int load(bench *b)
{
    setenv("FLOPCOUNT_QUIET", "1", 0);
    void *blas = dlopen(b->blas_path, RTLD_NOW | RTLD_GLOBAL);
    void *shim = blas ? dlopen(b->shim_path, RTLD_NOW | RTLD_GLOBAL) : NULL;
    if (shim == NULL) {
        fprintf(stderr, "shim_overhead: %s\n", dlerror());
        return -1;
    }
    b->direct = (bench_sgemm_fn)dlsym(blas, "sgemm_");
    b->noop_calls = (unsigned long *)dlsym(blas, "noop_blas_calls");
    b->shim = (bench_sgemm_fn)dlsym(shim, "sgemm_");
    b->snapshot = (int (*)(flopcount_snapshot *))dlsym(shim, "flopcount_snapshot_get");
    if (!b->direct || !b->noop_calls || !b->shim || !b->snapshot || b->shim == b->direct) {
        fprintf(stderr, "shim_overhead: %s or %s lacks sgemm_ / counters\n", b->blas_path,
                b->shim_path);
        return -1;
    }
    if (naive_logger_open(b->log_path, b->direct) != 0) {
        fprintf(stderr, "shim_overhead: cannot open %s\n", b->log_path);
        return -1;
    }
    if (b->driver_path && dlopen(b->driver_path, RTLD_NOW | RTLD_GLOBAL) == NULL) {
        fprintf(stderr, "shim_overhead: %s\n", dlerror());
        return -1;
    }
    if (api_cublas) {
        /* global, so the shim finds it as the real cublasSgemm_v2 */
        void *cu = dlopen(b->cublas_path, RTLD_NOW | RTLD_GLOBAL);
        cublas_direct = cu ? (cublas_sgemm_fn)dlsym(cu, "cublasSgemm_v2") : NULL;
        cublas_shim = (cublas_sgemm_fn)dlsym(shim, "cublasSgemm_v2");
        b->noop_calls = cu ? (unsigned long *)dlsym(cu, "noop_cublas_calls") : NULL;
        if (!cublas_direct || !cublas_shim || !b->noop_calls || cublas_shim == cublas_direct) {
            fprintf(stderr, "shim_overhead: %s or %s lacks cublasSgemm_v2 / counters\n",
                    b->cublas_path, b->shim_path);
            return -1;
        }
    }
    return 0;
}

/* ---- measuring ---- */
#define MAX_PERIOD 4096
static float alpha = 1, beta = 0, mat[64], weights[MAX_PERIOD];
static const int ld = 64, dim = 64; /* timed shape 64x64x64: 2*64^3 = 524,288 FLOPs */

enum path { DIRECT, SHIM, LOGGER };

/* Call i passes weights + i % period as A: a training loop over `period`
 * layers, each with its own weight matrix, as the shim's iteration
 * detector sees one (period 1 repeats one call: its worst case). With
 * --api cublas the same loop calls cublasSgemm_v2 (0 is CUBLAS_OP_N); it
 * has no logger, LOGGER runs the direct path. */
static double ns_per_call(const bench *b, enum path p, long calls)
{
    uint64_t t0 = now_ns();
    if (api_cublas) {
        cublas_sgemm_fn c = p == SHIM ? cublas_shim : cublas_direct;
        for (long i = 0; i < calls; i++)
            c(NULL, 0, 0, dim, dim, dim, &alpha, weights + i % period, ld, mat, ld, &beta, mat, ld);
        return (double)(now_ns() - t0) / (double)calls;
    }
    bench_sgemm_fn fn = p == SHIM ? b->shim : p == DIRECT ? b->direct : naive_logger_sgemm;
    for (long i = 0; i < calls; i++)
        fn("N", "N", &dim, &dim, &dim, &alpha, weights + i % period, &ld, mat, &ld, &beta, mat, &ld,
           1, 1);
    return (double)(now_ns() - t0) / (double)calls;
}

/* Iterations of the no-op libraries' spin (noop_blas_spin, the same loop
 * in noop_cublas.c) that take ns of CPU time: the fastest of five timings
 * of a long spin, in this thread's CPU time (preemption does not count). */
static unsigned long work_iters(long ns)
{
    if (ns <= 0)
        return 0;
    unsigned long (*spin)(unsigned long) =
        (unsigned long (*)(unsigned long))dlsym(RTLD_DEFAULT, "noop_blas_spin");
    if (spin == NULL)
        return 0;
    const unsigned long n = 4000000;
    double best = 0;
    for (int i = 0; i < 5; i++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
        spin(n);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        double per = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n;
        if (i == 0 || per < best)
            best = per;
    }
    return best > 0 ? (unsigned long)((double)ns / best + 0.5) : 0;
}

/* Medians as everywhere in flopcount: the lower middle (analysis/stats.h). */
static double median(double *v, long n)
{
    return fc_median_double(v, (size_t)n);
}

typedef struct timing {
    double direct, shim, added, logger, logger_added;
} timing;

/* Interleaved rounds; medians of per-call times, and of the per-round
 * differences (added cost), which cancels slow drift between rounds. */
static void time_rounds(const bench *b, timing *t)
{
    long n = b->rounds;
    double *v = calloc((size_t)n * 5, sizeof *v);
    double *d = v, *s = v + n, *l = v + 2 * n, *sd = v + 3 * n, *ld_ = v + 4 * n;
    for (long r = 0; r < n; r++) {
        for (int j = 0; j < 3; j++) {
            switch ((r + j) % 3) {
            case 0:
                d[r] = ns_per_call(b, DIRECT, b->batch);
                break;
            case 1:
                atomic_store(&counting, 1);
                s[r] = ns_per_call(b, SHIM, b->batch);
                atomic_store(&counting, 0);
                break;
            default:
                l[r] = ns_per_call(b, LOGGER, b->batch);
                break;
            }
        }
        sd[r] = s[r] - d[r];
        ld_[r] = l[r] - d[r];
    }
    t->added = median(sd, n);
    t->logger_added = median(ld_, n);
    t->direct = median(d, n);
    t->shim = median(s, n);
    t->logger = median(l, n);
    free(v);
}

/* ---- whole-process cost ---- */
static uint64_t cpu_ns(clockid_t which)
{
    struct timespec t;
    clock_gettime(which, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static long switches(int who)
{
    struct rusage u;
    getrusage(who, &u);
    return u.ru_nvcsw + u.ru_nivcsw;
}

typedef struct cost {
    double cpu_ns_per_call;     /* median over rounds: process CPU (shim) - thread CPU (direct) */
    double caller_cpu_ns;       /* median over rounds: the calling thread's alone */
    double switches_per_1000;   /* median over rounds, per 1,000 calls, same difference */
} cost;

/* Rounds of one direct batch and one shim batch (order alternating). The
 * direct batch is measured on the calling thread alone (its CPU time and
 * context switches: the call without the shim; the shim's drainer thread,
 * if it wakes meanwhile, is the shim's cost and must not be subtracted).
 * The shim batch is measured over the whole process - every thread, user +
 * system - and ends with flopcount_snapshot_get, which drains what the
 * batch left in the rings, so the drainer's work for these calls is inside
 * the window whenever it happens. */
static void cost_rounds(const bench *b, cost *c)
{
    long n = b->cost_rounds, calls = b->cost_batch;
    double *cpu = calloc((size_t)n * 3, sizeof *cpu), *sw = cpu + n, *own = cpu + 2 * n;
    flopcount_snapshot snap = {.size = sizeof snap};
    for (long r = 0; r < n; r++) {
        uint64_t d_cpu = 0, s_cpu = 0, s_own = 0;
        long d_sw = 0, s_sw = 0;
        for (int j = 0; j < 2; j++) {
            if ((r + j) % 2 == 0) {
                uint64_t c0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
                long w0 = switches(RUSAGE_THREAD);
                ns_per_call(b, DIRECT, calls);
                d_cpu = cpu_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
                d_sw = switches(RUSAGE_THREAD) - w0;
            } else {
                uint64_t c0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
                uint64_t t0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
                long w0 = switches(RUSAGE_SELF);
                ns_per_call(b, SHIM, calls);
                s_own = cpu_ns(CLOCK_THREAD_CPUTIME_ID) - t0; /* before the snapshot's drain */
                b->snapshot(&snap);
                s_cpu = cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
                s_sw = switches(RUSAGE_SELF) - w0;
            }
        }
        cpu[r] = ((double)s_cpu - (double)d_cpu) / (double)calls;
        own[r] = ((double)s_own - (double)d_cpu) / (double)calls;
        sw[r] = (double)(s_sw - d_sw) * 1000.0 / (double)calls;
    }
    c->cpu_ns_per_call = median(cpu, n);
    c->caller_cpu_ns = median(own, n);
    c->switches_per_1000 = median(sw, n);
    free(cpu);
}

static int cpus_allowed(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

/* b->shape_calls shim calls cycling over b->shapes shapes m x 8 x 8,
 * m = 1..shapes, and before every ANCHOR_EVERY of them one call of the
 * timed shape on the first weight matrix: a training loop whose shapes
 * keep changing (variable sequence lengths) while its first layer's weight
 * comes back, so the shim's iteration detector sees iterations of about
 * that many calls, as it would in training. Returns ns per call; *flops
 * and *calls get the exact sums by hand: each shape call 2*m*8*8 = 128*m
 * FLOPs, each weight call 524,288. */
#define ANCHOR_EVERY 1000
static double many_shapes(const bench *b, unsigned __int128 *flops, long *calls)
{
    const int eight = 8;
    *flops = 0;
    *calls = 0;
    atomic_store(&counting, 1);
    uint64_t t0 = now_ns();
    for (long i = 0; i < b->shape_calls; i++) {
        int m = (int)(1 + i % b->shapes);
        if (api_cublas) {
            if (i % ANCHOR_EVERY == 0)
                cublas_shim(NULL, 0, 0, dim, dim, dim, &alpha, weights, ld, mat, ld, &beta, mat, ld);
            cublas_shim(NULL, 0, 0, m, eight, eight, &alpha, mat, ld, mat, ld, &beta, mat, ld);
        } else {
            if (i % ANCHOR_EVERY == 0)
                b->shim("N", "N", &dim, &dim, &dim, &alpha, weights, &ld, mat, &ld, &beta, mat, &ld,
                        1, 1);
            b->shim("N", "N", &m, &eight, &eight, &alpha, mat, &ld, mat, &ld, &beta, mat, &ld, 1, 1);
        }
    }
    long anchors = (b->shape_calls + ANCHOR_EVERY - 1) / ANCHOR_EVERY;
    double ns = (double)(now_ns() - t0) / (double)(b->shape_calls + anchors);
    atomic_store(&counting, 0);
    for (long i = 0; i < b->shape_calls; i++)
        *flops += 128u * (unsigned __int128)(1 + i % b->shapes);
    *flops += (unsigned __int128)anchors * 524288u;
    *calls = b->shape_calls + anchors;
    return ns;
}

int main(int argc, char **argv)
{
    bench b = {.batch = 10000,
               .rounds = 300,
               .shape_calls = 10000000,
               .shapes = 100000,
               .cost_rounds = 30,
               .cost_batch = 20000,
               .shim_path = FC_BENCH_SHIM,
               .blas_path = FC_BENCH_BLAS,
               .cublas_path = FC_BENCH_CUBLAS,
               .api = "blas",
               .log_path = "/dev/null"};
    if (parse_args(&b, argc, argv) != 0 || load(&b) != 0)
        return 2;
    if (period > MAX_PERIOD) {
        fprintf(stderr, "shim_overhead: --period at most %d\n", MAX_PERIOD);
        return 2;
    }
    const long warm = 20000;
    ns_per_call(&b, DIRECT, warm); /* warm-up: lazy symbol lookup, first table slot, */
    ns_per_call(&b, SHIM, warm);   /* the logger's stdio buffer, CUPTI's probe */
    ns_per_call(&b, LOGGER, warm);

    unsigned long *work = (unsigned long *)dlsym(RTLD_DEFAULT, api_cublas ? "noop_cublas_work_iters"
                                                                        : "noop_blas_work_iters");
    if (work != NULL)
        *work = work_iters(work_ns);
    timing t;
    time_rounds(&b, &t);
    cost c;
    cost_rounds(&b, &c);
    if (work != NULL)
        *work = 0;
    long rss0 = rss_kib();
    unsigned __int128 shape_flops;
    long shape_phase_calls;
    double shape_ns = many_shapes(&b, &shape_flops, &shape_phase_calls);
    long rss_growth = rss_kib() - rss0;

    /* Exact counts: every shim call counted, every call forwarded. */
    long timed = warm + b.rounds * b.batch + b.cost_rounds * b.cost_batch;
    long shim_calls = timed + shape_phase_calls;
    unsigned __int128 want = (unsigned __int128)timed * 524288u + shape_flops;
    flopcount_snapshot s = {.size = sizeof s};
    int exact = b.snapshot(&s) == 0 && s.gemm_calls == (uint64_t)shim_calls &&
                s.gemm_flops_lo == (uint64_t)want && s.gemm_flops_hi == (uint64_t)(want >> 64) &&
                /* direct, shim and logger each forward warm + rounds*batch,
                 * direct and shim cost_rounds*cost_batch more */
                *b.noop_calls == (unsigned long)(3 * (warm + b.rounds * b.batch) +
                                                 2 * b.cost_rounds * b.cost_batch + shape_phase_calls);
    naive_logger_close();
    unsigned long allocs = atomic_load(&allocations);

    printf("direct %.2f ns, shim %.2f ns (+%.2f), naive logger %.2f ns (+%.2f) per call\n",
           t.direct, t.shim, t.added, t.logger, t.logger_added);
    printf("whole process: %.1f ns CPU (calling thread: %.1f) and %.3f context switches per 1,000 "
           "calls added (%d CPUs allowed)\n",
           c.cpu_ns_per_call, c.caller_cpu_ns, c.switches_per_1000, cpus_allowed());
    printf("%ld calls over %ld shapes: %.2f ns per shim call, RSS +%ld KiB, counts %s\n",
           b.shape_calls, b.shapes, shape_ns, rss_growth, exact ? "exact" : "WRONG");
    printf("{\"direct_ns\": %.2f, \"shim_ns\": %.2f, \"added_ns\": %.2f, "
           "\"allocations_after_warmup\": %lu, \"rss_growth_kib\": %ld, "
           "\"logger_ns\": %.2f, \"logger_added_ns\": %.2f, \"logger_to_shim_added_ratio\": %.1f, "
           "\"cpu_ns_per_call\": %.1f, \"caller_cpu_ns_per_call\": %.1f, "
           "\"context_switches_per_1000_calls\": %.3f, \"cpus\": %d, "
           "\"many_shapes_ns\": %.2f, \"calls_per_batch\": %ld, \"rounds\": %ld, \"period\": %ld, "
           "\"work_ns\": %ld, \"cost_rounds\": %ld, \"cost_batch\": %ld, \"shape_calls\": %ld, "
           "\"shapes\": %ld, \"counts_exact\": %s}\n",
           t.direct, t.shim, t.added, allocs, rss_growth, t.logger, t.logger_added,
           t.added > 0 ? t.logger_added / t.added : 0.0, c.cpu_ns_per_call, c.caller_cpu_ns,
           c.switches_per_1000, cpus_allowed(), shape_ns, b.batch, b.rounds, period, work_ns,
           b.cost_rounds, b.cost_batch, b.shape_calls, b.shapes, exact ? "true" : "false");
    if (b.check && (allocs != 0 || !exact || rss_growth > 8192))
        return 1;
    return 0;
}
