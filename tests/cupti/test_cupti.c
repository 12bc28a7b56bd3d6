/* SPDX-License-Identifier: Apache-2.0 */
/* test_cupti.c - CUDA-graph, kernel-timing and hardware-counter scenarios on
 * the fake GPU (fake_gpu.h), with GEMMs from the CPU emulations of cuBLAS
 * and cuBLASLt, run under the shim; cupti_check.py then compares the report
 * with figures worked out by hand from the shapes below.
 *   test_cupti MODE
 * MODE: basic interleaved threads forked mixed train kernels hwflops
 *       runtime (the capture through the CUDA runtime: with or without
 *       CUPTI, as the environment says), rtgraphs (graphs through the
 *       runtime's graph calls), signal (kernels, then SIGTERM).
 * Shapes (sgemm NN, m n k):  G1 64 32 16   G2 32 48 64   G3 16 16 128
 *   G4 24 40 8 (cublasLtMatmul)  G5 8 8 8   G6 40 8 24   G7 128 8 8
 * and the GPT training step of tests/iter/fixture_gpt_stream.c (train,
 * mixed, kernels, hwflops), whose FLOPs the fixture works out from its
 * shapes.
 * Streams are plain addresses (the fake driver takes any). FAKE_TRUTH names
 * a file for figures the program knows (train: FLOPs and calls per step;
 * hwflops: the scripted samples' rule). */
#include <cublasLt.h>
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_gpu.h"
#include "fixture_gpt_stream.h"

#undef cuStreamBeginCapture
#undef cuStreamEndCapture
#undef cuGraphLaunch
#undef cuGraphExecUpdate
CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode);
CUresult cuStreamEndCapture(CUstream s, CUgraph *g);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *x, CUgraph g, unsigned long long flags);
CUresult cuGraphClone(CUgraph *out, CUgraph g);
CUresult cuGraphLaunch(CUgraphExec x, CUstream s);
CUresult cuGraphExecUpdate_v2(CUgraphExec x, CUgraph g, CUgraphExecUpdateResultInfo *info);
CUresult cuGraphExecDestroy(CUgraphExec x);
CUresult cuGraphDestroy(CUgraph g);

#define S(i) ((CUstream)(uintptr_t)(0x5100u + (i)))

typedef struct shape {
    int m, n, k;
} shape;
static const shape G[8] = {{0, 0, 0},   {64, 32, 16}, {32, 48, 64}, {16, 16, 128},
                           {24, 40, 8}, {8, 8, 8},    {40, 8, 24},  {128, 8, 8}};

static float A[128 * 128], B[128 * 128], C[4][128 * 128];
static cublasHandle_t h[4];
static cublasLtHandle_t lt;

static void die(const char *what, int st)
{
    fprintf(stderr, "test_cupti: %s failed (%d)\n", what, st);
    exit(1);
}

#define OK(call)                                                                                   \
    do {                                                                                           \
        int st_ = (int)(call);                                                                     \
        if (st_ != 0)                                                                              \
            die(#call, st_);                                                                       \
    } while (0)

/* Gi on handle hi (its stream), into its own output buffer. */
static void gemm(int hi, int i)
{
    float one = 1, zero = 0;
    const shape *s = &G[i];
    OK(cublasSgemm_v2(h[hi], CUBLAS_OP_N, CUBLAS_OP_N, s->m, s->n, s->k, &one, A, s->m, B, s->k,
                      &zero, C[hi], s->m));
}

/* G4 through cublasLtMatmul on stream s. */
static void lt_gemm(CUstream s)
{
    const shape *g = &G[4];
    cublasLtMatmulDesc_t d;
    cublasLtMatrixLayout_t la, lb, lc;
    OK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    OK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, g->m, g->k, g->m));
    OK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, g->k, g->n, g->k));
    OK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, g->m, g->n, g->m));
    float one = 1, zero = 0;
    OK(cublasLtMatmul(lt, d, &one, A, la, B, lb, &zero, C[3], lc, C[3], lc, NULL, NULL, 0,
                      (cudaStream_t)s));
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(d);
}

static void begin(CUstream s)
{
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
}

static CUgraph end(CUstream s)
{
    CUgraph g = NULL;
    OK(cuStreamEndCapture(s, &g));
    return g;
}

static CUgraphExec inst(CUgraph g)
{
    CUgraphExec x = NULL;
    OK(cuGraphInstantiateWithFlags(&x, g, 0));
    return x;
}

static void step_marker(void)
{
    void (*step)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "flopcount_step");
    if (step == NULL)
        die("dlsym flopcount_step", -1);
    step();
}

/* capture G1 G2 G3 G4 -> instantiate, clone -> instantiate; 5 + 2 launches;
 * exec update to G5 G6 G5 G6; 3 launches; a graph never launched (G7);
 * destroy all; one eager G1. */
static void basic(void)
{
    begin(S(0));
    gemm(0, 1);
    gemm(0, 2);
    gemm(0, 3);
    lt_gemm(S(0));
    CUgraph g = end(S(0)), gc = NULL;
    CUgraphExec e1 = inst(g);
    OK(cuGraphClone(&gc, g));
    CUgraphExec e2 = inst(gc);
    for (int i = 0; i < 5; i++)
        OK(cuGraphLaunch(e1, S(0)));
    for (int i = 0; i < 2; i++)
        OK(cuGraphLaunch(e2, S(0)));
    begin(S(0));
    gemm(0, 5);
    gemm(0, 6);
    gemm(0, 5);
    gemm(0, 6);
    CUgraph g3 = end(S(0));
    CUgraphExecUpdateResultInfo info;
    OK(cuGraphExecUpdate_v2(e1, g3, &info));
    for (int i = 0; i < 3; i++)
        OK(cuGraphLaunch(e1, S(0)));
    begin(S(0));
    gemm(0, 7);
    CUgraph gn = end(S(0));
    OK(cuGraphExecDestroy(e1));
    OK(cuGraphExecDestroy(e2));
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(gc));
    OK(cuGraphDestroy(g3));
    OK(cuGraphDestroy(gn));
    gemm(0, 1);
}

/* two captures at once on two streams; launches interleaved */
static void interleaved(void)
{
    begin(S(0));
    begin(S(1));
    gemm(0, 1);
    gemm(1, 2);
    gemm(0, 3);
    CUgraph gb = end(S(1));
    gemm(0, 5);
    CUgraph ga = end(S(0));
    CUgraphExec ea = inst(ga), eb = inst(gb);
    CUgraphExec order[5] = {ea, eb, eb, ea, eb};
    for (int i = 0; i < 5; i++)
        OK(cuGraphLaunch(order[i], S(2)));
}

static CUgraphExec shared_exec;

static void *launcher(void *arg)
{
    CUstream s = (CUstream)arg;
    for (int i = 0; i < 50; i++)
        OK(cuGraphLaunch(shared_exec, s));
    return NULL;
}

/* one exec launched 50 times from each of two threads at once */
static void threads(void)
{
    begin(S(0));
    gemm(0, 1);
    gemm(0, 2);
    shared_exec = inst(end(S(0)));
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, launcher, (void *)S(1 + i)) != 0)
            die("pthread_create", -1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
}

/* S1 joins the capture of S0 (a forked capture stream); S2 stays eager */
static void forked(void)
{
    begin(S(0));
    gemm(0, 1);
    fake_cuda_stream_join(S(0), S(1));
    gemm(1, 2);
    gemm(2, 3);
    CUgraphExec e = inst(end(S(0)));
    OK(cuGraphLaunch(e, S(0)));
}

/* The GPT of tests/iter (fixture_gpt_stream.c): 2 layers, hidden 64. */
static gpt_cfg gcfg = {.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 2};
static gpt *model;
static float *arena;

static void gpt_gemm(void *ctx, int api, char ta, char tb, int64_t m, int64_t n, int64_t k,
                     int64_t batch, const float *a, const float *b, float *c)
{
    (void)ctx;
    float one = 1, zero = 0;
    cublasOperation_t oa = ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    cublasOperation_t ob = tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    int lda = (int)(ta == 'N' ? m : k), ldb = (int)(tb == 'N' ? k : n);
    if (api == GPT_STRIDED)
        OK(cublasSgemmStridedBatched(h[0], oa, ob, (int)m, (int)n, (int)k, &one, a, lda, m * k, b,
                                     ldb, k * n, &zero, c, (int)m, m * n, (int)batch));
    else
        OK(cublasSgemm_v2(h[0], oa, ob, (int)m, (int)n, (int)k, &one, a, lda, b, ldb, &zero, c,
                          (int)m));
}

/* Builds the model; FLOPs of one of its training steps, which the fixture
 * works out from its shapes. */
static uint64_t gpt_setup(void)
{
    size_t n = gpt_arena_floats(&gcfg);
    arena = calloc(n, sizeof *arena);
    model = arena ? gpt_new(&gcfg, arena, n) : NULL;
    if (model == NULL)
        die("gpt_new", -1);
    gpt_flops f;
    gpt_expected(&gcfg, &f);
    return f.fwd + f.bwd + f.rec;
}

static void truth_flops(FILE *truth, uint64_t step)
{
    if (truth)
        fprintf(truth, "{\"step_flops\": %llu}\n", (unsigned long long)step);
}

/* a training step captured into a graph; each of 4 marked steps: an eager
 * G1, then the graph */
static void mixed(FILE *truth)
{
    uint64_t step = gpt_setup();
    begin(S(0));
    gpt_train_step(model, gpt_gemm, NULL);
    CUgraphExec e = inst(end(S(0)));
    for (int i = 0; i < 4; i++) {
        gemm(0, 1);
        OK(cuGraphLaunch(e, S(0)));
        step_marker();
    }
    truth_flops(truth, step);
}

/* a graphed training loop: 2 eager steps, one captured, 6 launches */
static void train(FILE *truth)
{
    uint64_t step = gpt_setup();
    for (int i = 0; i < 2; i++)
        gpt_train_step(model, gpt_gemm, NULL);
    begin(S(0));
    gpt_train_step(model, gpt_gemm, NULL);
    CUgraphExec e = inst(end(S(0)));
    for (int i = 0; i < 6; i++)
        OK(cuGraphLaunch(e, S(0)));
    truth_flops(truth, step);
}

/* kernel timing. Each step: an eager G1, attention on S1, a graph of G2,
 * G3 and an elementwise kernel, NCCL on S2, a Triton matmul and an
 * elementwise kernel on S0, an eager GPT training step (its GEMMs on S0),
 * a marker, and 1 us of idle GPU. The kernel log marks each step. */
static uint64_t kernels(int steps)
{
    uint64_t step = gpt_setup();
    begin(S(0));
    gemm(0, 2);
    gemm(0, 3);
    fake_cuda_launch(S(0), "vectorized_elementwise_kernel_graph", 64);
    CUgraphExec e = inst(end(S(0)));
    for (int i = 0; i < steps; i++) {
        fake_cuda_log_mark("step");
        gemm(0, 1);
        fake_cuda_launch(S(1), "flash_fwd_kernel", 300);
        OK(cuGraphLaunch(e, S(0)));
        fake_cuda_launch(S(2), "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 200);
        fake_cuda_launch(S(0), "triton_tem_fused_mm_0", 128);
        fake_cuda_launch(S(0), "vectorized_elementwise_kernel", 32);
        gpt_train_step(model, gpt_gemm, NULL);
        step_marker();
        fake_cuda_advance(1000);
    }
    return step;
}

/* hardware counters: the kernels scenario, then samples of 500 ns from
 * 250 ns before the first kernel past the last, sample k valued
 * (k + 1) * 1000 bf16 ops and 10 FFMA instructions, sample 5 missing (a
 * gap). cupti_check.py computes the same samples from the kernel log. */
static void hwflops(FILE *truth)
{
    uint64_t t0 = fake_cuda_now();
    uint64_t step = kernels(3);
    uint64_t t1 = fake_cuda_now();
    void *self = dlopen(getenv("FLOPCOUNT_CUPTI"), RTLD_NOW | RTLD_NOLOAD);
    typedef void (*sample_fn)(uint64_t, uint64_t, int, const char *const *, const double *);
    sample_fn sample = self ? (sample_fn)dlsym(self, "fake_cupti_pm_sample") : NULL;
    static const char *const metrics[2] = {"sm__ops_path_tensor_src_bf16_dst_fp32.sum",
                                           "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"};
    if (sample == NULL)
        die("dlsym fake_cupti_pm_sample", -1);
    uint64_t base = t0 - 250;
    for (uint64_t k = 0; base + k * 500 < t1; k++) {
        if (k == 5)
            continue;
        uint64_t s = base + k * 500;
        double values[2] = {(double)(k + 1) * 1000, 10};
        sample(s, s + 500, 2, metrics, values);
    }
    if (truth)
        fprintf(truth, "{\"sample_base\": %llu, \"sample_end\": %llu, \"step_flops\": %llu}\n",
                (unsigned long long)base, (unsigned long long)t1, (unsigned long long)step);
}

static void on_term(int sig)
{
    (void)sig;
    _exit(0); /* after the shim's handler wrote the report */
}

/* the kernels scenario, then SIGTERM: the report is written from the
 * signal handler, which never calls CUPTI; the drainer thread flushes the
 * kernel records for it */
static void signal_mode(void)
{
    kernels(2);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    raise(SIGTERM);
}

/* the capture through the CUDA runtime: 3 eager G1, G2 captured, the
 * graph launched twice */
static void runtime(void)
{
    for (int i = 0; i < 3; i++)
        gemm(0, 1);
    OK(cudaStreamBeginCapture((cudaStream_t)S(0), cudaStreamCaptureModeGlobal));
    gemm(0, 2);
    cudaGraph_t g = NULL;
    OK(cudaStreamEndCapture((cudaStream_t)S(0), &g));
    CUgraphExec e = inst((CUgraph)g);
    for (int i = 0; i < 2; i++)
        OK(cuGraphLaunch(e, S(0)));
}

/* the graphs through the CUDA runtime's graph calls (PyTorch's path):
 * 3 eager G1; capture G2 G3 -> instantiate, 2 launches; clone ->
 * instantiate with flags, 1 launch; a second capture (G5 G5: the same
 * topology) updates the first exec, 3 launches; a third capture (G7)
 * instantiated, never launched; all destroyed; then a fourth capture (G6),
 * its graph destroyed once instantiated (as PyTorch does), 1 launch. */
static void rtgraphs(void)
{
    cudaStream_t s = (cudaStream_t)S(0);
    cudaGraph_t g[4], clone = NULL;
    cudaGraphExec_t x[4], xc = NULL;
    for (int i = 0; i < 3; i++)
        gemm(0, 1);
    OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    gemm(0, 2);
    gemm(0, 3);
    OK(cudaStreamEndCapture(s, &g[0]));
    OK(cudaGraphInstantiate(&x[0], g[0], 0));
    for (int i = 0; i < 2; i++)
        OK(cudaGraphLaunch(x[0], s));
    OK(cudaGraphClone(&clone, g[0]));
    OK(cudaGraphInstantiateWithFlags(&xc, clone, 0));
    OK(cudaGraphLaunch(xc, s));
    OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    gemm(0, 5);
    gemm(0, 5);
    OK(cudaStreamEndCapture(s, &g[1]));
    cudaGraphExecUpdateResultInfo info;
    OK(cudaGraphExecUpdate(x[0], g[1], &info));
    for (int i = 0; i < 3; i++)
        OK(cudaGraphLaunch(x[0], s));
    OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    gemm(0, 7);
    OK(cudaStreamEndCapture(s, &g[2]));
    OK(cudaGraphInstantiate(&x[2], g[2], 0));
    OK(cudaGraphExecDestroy(x[0]));
    OK(cudaGraphExecDestroy(xc));
    OK(cudaGraphExecDestroy(x[2]));
    for (int i = 0; i < 3; i++)
        OK(cudaGraphDestroy(g[i]));
    OK(cudaGraphDestroy(clone));
    OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    gemm(0, 6);
    OK(cudaStreamEndCapture(s, &g[3]));
    OK(cudaGraphInstantiate(&x[3], g[3], 0));
    OK(cudaGraphDestroy(g[3]));
    OK(cudaGraphLaunch(x[3], s));
    OK(cudaGraphExecDestroy(x[3]));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_cupti MODE\n");
        return 2;
    }
    for (int i = 0; i < 128 * 128; i++) {
        A[i] = (float)(i % 7) - 3;
        B[i] = (float)(i % 5) - 2;
    }
    for (int i = 0; i < 4; i++) {
        OK(cublasCreate_v2(&h[i]));
        OK(cublasSetStream_v2(h[i], (cudaStream_t)S(i)));
    }
    OK(cublasLtCreate(&lt));
    const char *tp = getenv("FAKE_TRUTH");
    FILE *truth = tp ? fopen(tp, "w") : NULL;
    const char *m = argv[1];
    if (strcmp(m, "basic") == 0)
        basic();
    else if (strcmp(m, "interleaved") == 0)
        interleaved();
    else if (strcmp(m, "threads") == 0)
        threads();
    else if (strcmp(m, "forked") == 0)
        forked();
    else if (strcmp(m, "mixed") == 0)
        mixed(truth);
    else if (strcmp(m, "train") == 0)
        train(truth);
    else if (strcmp(m, "kernels") == 0)
        truth_flops(truth, kernels(3));
    else if (strcmp(m, "hwflops") == 0)
        hwflops(truth);
    else if (strcmp(m, "runtime") == 0)
        runtime();
    else if (strcmp(m, "rtgraphs") == 0)
        rtgraphs();
    else if (strcmp(m, "signal") == 0)
        signal_mode();
    else
        die("unknown mode", 2);
    if (truth)
        fclose(truth);
    for (int i = 0; i < 4; i++)
        cublasDestroy_v2(h[i]);
    cublasLtDestroy(lt);
    return 0;
}
