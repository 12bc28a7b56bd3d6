/* SPDX-License-Identifier: Apache-2.0 */
/* optim_prog.cu - fixture_gpt_stream.c's GPT trained through the cuBLAS
 * emulation (cublasGemmEx, cublasGemmStridedBatchedEx on the host), with
 * optimizer kernels launched through nvcc's <<<>>> stubs under the names
 * PyTorch 2.x and apex give them (multi_tensor_apply_kernel with
 * FusedAdamMathFunctor, FusedSgdMathFunctor, the _foreach_* functors,
 * _foreach_norm's LpNormFunctor and lpnorm_cleanup, _foreach_zero_'s
 * ZeroFunctor; apex's global multi_tensor_apply_kernel with AdamFunctor),
 * on tests/launch's fake runtime where every launch succeeds. The kernels
 * are empty: only their names matter.
 *   optim_prog K STEPS OPT FLAGS [RECOMPUTE]
 * K micro-batches per optimizer step; OPT adamw | sgd | apex | none; FLAGS
 * any of: c clip_grad_norm_ (_foreach_norm, _foreach_mul_) before the step,
 * E an EMA _foreach_lerp_ after it, l an LR scheduler's fill_, z
 * zero_grad(set_to_none=False) with foreach (_foreach_zero_), f without
 * (three fill_ kernels), e an evaluation pass after steps 2 and 4, F a
 * _foreach_add_ after each micro-batch's first forward GEMM and a
 * _foreach_mul_ in its loss (before the backward's first GEMM), t the
 * backward and recompute GEMMs on a thread of their own (autograd's device
 * thread; the forward on the main thread). RECOMPUTE 1: the first layer
 * checkpointed (full recompute). */
#include <cublas_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "fixture_gpt_stream.h"
}

namespace at {
namespace native {
template <int n, bool b> struct TensorListMetadata {
    const void *addresses[n][110];
    int64_t numel[110];
};
enum class ADAM_MODE : uint8_t { ORIGINAL = 0, ADAMW = 1 };
enum class NormType { L1, L2, LInf };
namespace {
template <typename T, int depth, ADAM_MODE mode, bool amsgrad> struct FusedAdamMathFunctor { int x; };
template <typename T, int depth> struct FusedSgdMathFunctor { int x; };
template <typename T, int depth, int r, int res> struct BinaryOpScalarFunctor { int x; };
template <typename T, int depth, int r, int res> struct TernaryOpScalarFunctor { int x; };
template <typename T, int depth, int r, int res> struct ZeroFunctor { int x; };
template <typename T, int norm, typename O, int d> struct LpNormFunctor { int x; };
template <typename F> struct FillFunctor { F v; };
template <typename T, typename U, typename... A> __global__ void multi_tensor_apply_kernel(T meta, U callable, A... args) {}
template <typename out_t, NormType nt, typename op_t, int SZ>
__global__ void lpnorm_cleanup(const op_t *partial, TensorListMetadata<1, false> meta, int chunks) {}
template <int vec, typename func_t, typename array_t> __global__ void vectorized_elementwise_kernel(int n, func_t f, array_t data) {}
} // namespace
} // namespace native
} // namespace at

template <int n> struct ApexTensorList {
    const void *addresses[n][36];
};
template <typename T> struct AdamFunctor { int x; };
template <typename T, typename U, typename... A>
__global__ void multi_tensor_apply_kernel(int64_t chunk, volatile int *noop, T tl, U callable, A... args) {}

namespace an = at::native;
static an::TensorListMetadata<4, false> m4;
static an::TensorListMetadata<1, false> m1;

static void adamw(void) { an::multi_tensor_apply_kernel<<<1, 1>>>(m4, an::FusedAdamMathFunctor<float, 4, an::ADAM_MODE::ADAMW, false>(), 0.1, 0.9); }
static void sgd(void) { an::multi_tensor_apply_kernel<<<1, 1>>>(m4, an::FusedSgdMathFunctor<float, 3>(), 0.1); }
static void foreach_scalar(void) { an::multi_tensor_apply_kernel<<<1, 1>>>(m1, an::BinaryOpScalarFunctor<float, 1, 1, 0>(), 0.5); }
static void foreach_lerp(void) { an::multi_tensor_apply_kernel<<<1, 1>>>(m4, an::TernaryOpScalarFunctor<float, 2, 2, 0>(), 0.01); }
static void foreach_zero(void) { an::multi_tensor_apply_kernel<<<1, 1>>>(m1, an::ZeroFunctor<float, 1, 1, 0>()); }
static void foreach_norm(void)
{
    an::multi_tensor_apply_kernel<<<1, 1>>>(m1, an::LpNormFunctor<float, 2, float, 1>(), (float *)0, 0);
    an::lpnorm_cleanup<float, an::NormType::L2, float, 1><<<1, 1>>>((const float *)0, m1, 1);
}
static void fill(void) { an::vectorized_elementwise_kernel<4><<<1, 1>>>(1, an::FillFunctor<float>{0.f}, m1); }
static void apex_adam(void)
{
    ApexTensorList<4> t;
    multi_tensor_apply_kernel<<<1, 1>>>((int64_t)65536, (volatile int *)0, t, AdamFunctor<float>(), 0.9f);
}

struct call {
    int api;
    char ta, tb;
    int64_t m, n, k, batch;
    const float *a, *b;
    float *d;
};
static cublasHandle_t handle;
static gpt *model;
static int bwd_thread, foreach_fwd, last_phase = -1;

static cublasOperation_t op(char t) { return t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N; }

static void do_gemm(const struct call *c)
{
    float alpha = 1, beta = 0;
    int lda = (int)(c->ta == 'N' ? c->m : c->k), ldb = (int)(c->tb == 'N' ? c->k : c->n);
    int st;
    if (c->api == GPT_STRIDED)
        st = cublasGemmStridedBatchedEx(handle, op(c->ta), op(c->tb), (int)c->m, (int)c->n, (int)c->k, &alpha,
                                        c->a, CUDA_R_32F, lda, c->m * c->k, c->b, CUDA_R_32F, ldb, c->k * c->n,
                                        &beta, c->d, CUDA_R_32F, (int)c->m, c->m * c->n, (int)c->batch,
                                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    else
        st = cublasGemmEx(handle, op(c->ta), op(c->tb), (int)c->m, (int)c->n, (int)c->k, &alpha, c->a,
                          CUDA_R_32F, lda, c->b, CUDA_R_32F, ldb, &beta, c->d, CUDA_R_32F, (int)c->m,
                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (st != 0) {
        fprintf(stderr, "optim_prog: GEMM failed (%d)\n", st);
        exit(1);
    }
}

/* The backward's thread: runs one handed-over call at a time while the
 * main thread waits, so calls stay in program order. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static const struct call *pending;
static int call_done;

static void *backward_thread(void *unused)
{
    for (;;) {
        pthread_mutex_lock(&mu);
        while (pending == NULL)
            pthread_cond_wait(&cv, &mu);
        const struct call *c = pending;
        pthread_mutex_unlock(&mu);
        do_gemm(c);
        pthread_mutex_lock(&mu);
        pending = NULL;
        call_done = 1;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
    }
    return unused;
}

static void gemm(void *ctx, int api, char ta, char tb, int64_t m, int64_t n, int64_t k, int64_t batch,
                 const float *a, const float *b, float *d)
{
    (void)ctx;
    int ph = gpt_phase(model);
    if (foreach_fwd && ph == GPT_PH_BWD && last_phase == GPT_PH_FWD)
        foreach_scalar(); /* _foreach_mul_ in the loss */
    struct call c = {api, ta, tb, m, n, k, batch, a, b, d};
    if (bwd_thread && (ph == GPT_PH_BWD || ph == GPT_PH_REC)) {
        pthread_mutex_lock(&mu);
        call_done = 0;
        pending = &c;
        pthread_cond_broadcast(&cv);
        while (!call_done)
            pthread_cond_wait(&cv, &mu);
        pthread_mutex_unlock(&mu);
    } else {
        do_gemm(&c);
    }
    if (foreach_fwd && ph == GPT_PH_FWD && last_phase != GPT_PH_FWD)
        foreach_scalar(); /* _foreach_add_ after the forward's first GEMM */
    last_phase = ph;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: optim_prog K STEPS adamw|sgd|apex|none FLAGS [RECOMPUTE]\n");
        return 2;
    }
    int k = atoi(argv[1]), steps = atoi(argv[2]);
    const char *opt = argv[3], *fl = argv[4];
    gpt_cfg cfg = {.layers = 2, .hidden = 64, .heads = 4, .vocab = 128, .seq = 32, .batch = 2};
    if (argc > 5 && atoi(argv[5])) {
        cfg.recompute = GPT_FULL;
        cfg.ckpt_mask = 1;
        cfg.lowest_block = 1;
    }
    bwd_thread = strchr(fl, 't') != NULL;
    foreach_fwd = strchr(fl, 'F') != NULL;
    if (cublasCreate_v2(&handle) != 0)
        return 1;
    size_t n = gpt_arena_floats(&cfg);
    float *arena = (float *)calloc(n, sizeof *arena);
    model = arena ? gpt_new(&cfg, arena, n) : NULL;
    if (model == NULL)
        return 1;
    pthread_t t;
    if (bwd_thread && pthread_create(&t, NULL, backward_thread, NULL) != 0)
        return 1;
    for (int i = 0; i < steps; i++) {
        for (int j = 0; j < k; j++)
            gpt_train_step(model, gemm, NULL);
        if (strchr(fl, 'c')) {
            foreach_norm();
            foreach_scalar();
        }
        if (strcmp(opt, "adamw") == 0)
            adamw();
        else if (strcmp(opt, "sgd") == 0)
            sgd();
        else if (strcmp(opt, "apex") == 0)
            apex_adam();
        if (strchr(fl, 'E'))
            foreach_lerp();
        if (strchr(fl, 'l'))
            fill();
        if (strchr(fl, 'z'))
            foreach_zero();
        if (strchr(fl, 'f')) {
            fill();
            fill();
            fill();
        }
        if (strchr(fl, 'e') && (i == 1 || i == 3))
            gpt_eval(model, gemm, NULL, 0);
    }
    printf("optim_prog: done\n");
    return 0;
}
