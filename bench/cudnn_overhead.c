/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn_overhead.c - what the shim adds to one cudnnBackendExecute of a
 * causal attention plan, and that it allocates nothing there.
 *
 * The fake cuDNN of the tests (tests/cudnn/fake_cudnn*.c: an execute
 * returns at once) is called two ways, interleaved in batches: direct
 * (its functions, dlsym on its handle) and shim (libflopcount.so dlopen'ed,
 * its hooks taken with dlsym: they find the fake library as the real one).
 * Each way has its own plans (12 attention problems, forward and
 * backward, executed in turn like a model's layers), built through it (the
 * shim's through the hooks, so the shim knows them). Two cases: an execute with one variant
 * pack kept for good (the hook alone), and an execute as cudnn-frontend
 * makes it (a variant pack created, set, finalized, executed, destroyed
 * per call: six hooked calls). Allocations are counted by interposing
 * malloc and friends in this executable, only during the shim's batches of
 * the first case after warm-up (the fake library allocates the packs of
 * the second). The last line is one JSON object.
 *
 * usage: cudnn_overhead [--batch N] [--rounds N] [--shim PATH] [--lib PATH] [--check]
 * --check: exit 1 unless the shim's executes allocated nothing (the ctest
 * run; timings are never checked). */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sdpa_build.h"
#include "stats.h"

/* ---- allocation counter ---- */
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);

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

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Plans per way, executed in turn like the layers of a model (one plan
 * repeated back to back makes every call a whole "iteration" to the
 * iteration detector: its worst case, not a model's). */
#define PLANS 12

typedef struct way {
    cb_api api;
    cb_graph g[PLANS];
    cudnnBackendDescriptor_t vp[PLANS]; /* kept for the first case */
} way;

static void *open_or_die(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "cudnn_overhead: %s\n", dlerror());
        exit(2);
    }
    return h;
}

static void prepare(way *w, void *handle_lib, cudnnHandle_t handle)
{
    if (cb_api_dlsym(&w->api, handle_lib) != 0) {
        fprintf(stderr, "cudnn_overhead: backend functions missing\n");
        exit(2);
    }
    for (int p = 0; p < PLANS; p++) {
        cb_sdpa s = {.b = 1 + p, .h = 8, .h_k = 2, .s_q = 128, .s_k = 128, .d = 64, .d_v = 64,
                     .causal = 1, .bwd = p & 1, .dt = CUDNN_DATA_BFLOAT16};
        cb_graph *g = &w->g[p];
        cb_init(g, &w->api, handle);
        cb_build_sdpa(g, &s);
        cb_plan(g);
        w->api.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &w->vp[p]);
        w->api.set(w->vp[p], CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, g->n_vp,
                   g->vp_uid);
        w->api.set(w->vp[p], CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, g->n_vp,
                   g->vp_ptr);
        w->api.finalize(w->vp[p]);
        if (w->api.execute(handle, g->plan, w->vp[p]) != CUDNN_STATUS_SUCCESS ||
            cb_execute(g) != CUDNN_STATUS_SUCCESS) {
            fprintf(stderr, "cudnn_overhead: an execute failed\n");
            exit(2);
        }
    }
}

/* ns per call of one batch: the kept packs (0) or a pack per call (1). */
static double batch(way *w, cudnnHandle_t handle, long n, int per_call_pack)
{
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        int p = (int)(i % PLANS);
        if (per_call_pack)
            cb_execute(&w->g[p]);
        else
            w->api.execute(handle, w->g[p].plan, w->vp[p]);
    }
    return (now_ns() - t0) / (double)n;
}

int main(int argc, char **argv)
{
    long n = 20000, rounds = 40;
    int check = 0;
    const char *shim_path = FC_BENCH_SHIM, *lib_path = FC_BENCH_CUDNN;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc)
            n = atol(argv[++i]);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atol(argv[++i]);
        else if (strcmp(argv[i], "--shim") == 0 && i + 1 < argc)
            shim_path = argv[++i];
        else if (strcmp(argv[i], "--lib") == 0 && i + 1 < argc)
            lib_path = argv[++i];
        else if (strcmp(argv[i], "--check") == 0)
            check = 1;
    }
    if (n < 1 || rounds < 1) {
        fprintf(stderr, "cudnn_overhead: --batch and --rounds must be at least 1\n");
        return 2;
    }
    void *lib = open_or_die(lib_path);
    void *shim = open_or_die(shim_path);
    cudnnStatus_t (*mk)(cudnnHandle_t *) = NULL;
    *(void **)&mk = dlsym(lib, "cudnnCreate");
    cudnnHandle_t handle = NULL;
    if (mk == NULL || mk(&handle) != CUDNN_STATUS_SUCCESS)
        return 2;
    static way direct, hooked;
    prepare(&direct, lib, handle);
    prepare(&hooked, shim, handle);
    double *v = calloc((size_t)rounds * 4, sizeof *v);
    if (v == NULL)
        return 2;
    for (long r = 0; r < rounds; r++) {
        int shim_first = r & 1; /* the order alternates: drift falls on both */
        for (int k = 0; k < 2; k++) {
            int s = k ^ !shim_first;
            if (s)
                atomic_store(&counting, r > 0);
            v[r * 4 + s] = batch(s ? &hooked : &direct, handle, n, 0);
            atomic_store(&counting, 0);
        }
        v[r * 4 + 2] = batch(&direct, handle, n / 10 + 1, 1);
        v[r * 4 + 3] = batch(&hooked, handle, n / 10 + 1, 1);
    }
    double col[4][1024];
    long m = rounds < 1024 ? rounds : 1024;
    for (int c = 0; c < 4; c++)
        for (long r = 0; r < m; r++)
            col[c][r] = v[r * 4 + c];
    double d = fc_median_double(col[0], (size_t)m), s = fc_median_double(col[1], (size_t)m);
    double fd = fc_median_double(col[2], (size_t)m), fs = fc_median_double(col[3], (size_t)m);
    unsigned long allocs = atomic_load(&allocations);
    printf("{\"execute_direct_ns\": %.1f, \"execute_shim_ns\": %.1f, \"execute_added_ns\": %.1f, "
           "\"frontend_direct_ns\": %.1f, \"frontend_shim_ns\": %.1f, \"frontend_added_ns\": %.1f, "
           "\"allocations_after_warmup\": %lu, \"batch\": %ld, \"rounds\": %ld}\n",
           d, s, s - d, fd, fs, fs - fd, allocs, n, rounds);
    free(v);
    return check && allocs != 0 ? 1 : 0;
}
