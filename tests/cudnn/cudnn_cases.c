/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn_cases.c - the graphs and report checks of cudnn_cases.h. */
#include "cudnn_cases.h"

#include <dlfcn.h>
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Causal and not, GQA and MHA, forward and backward, d != d_v, the
 * unified node; on the real library every one of them is built. */
const cb_sdpa cc_sdpa[CC_N_SDPA] = {
    {.b = 2, .h = 8, .h_k = 2, .s_q = 128, .s_k = 128, .d = 64, .d_v = 64, .causal = 1,
     .dt = CUDNN_DATA_BFLOAT16},
    {.b = 2, .h = 8, .h_k = 2, .s_q = 128, .s_k = 128, .d = 64, .d_v = 64, .causal = 1, .bwd = 1,
     .dt = CUDNN_DATA_BFLOAT16},
    {.b = 3, .h = 4, .h_k = 4, .s_q = 96, .s_k = 96, .d = 32, .d_v = 32, .dt = CUDNN_DATA_HALF},
    {.b = 3, .h = 4, .h_k = 4, .s_q = 96, .s_k = 96, .d = 32, .d_v = 32, .bwd = 1,
     .dt = CUDNN_DATA_HALF},
    {.b = 1, .h = 16, .h_k = 4, .s_q = 64, .s_k = 256, .d = 128, .d_v = 64, .unified = 1,
     .dt = CUDNN_DATA_BFLOAT16},
    {.b = 2, .h = 4, .h_k = 1, .s_q = 80, .s_k = 80, .d = 64, .d_v = 64, .causal = 1, .left = 24,
     .dt = CUDNN_DATA_HALF},
    {.b = 2, .h = 4, .h_k = 4, .s_q = 32, .s_k = 112, .d = 64, .d_v = 64, .causal = 2,
     .dt = CUDNN_DATA_HALF},
};

void cc_build_matmul(cb_graph *g)
{
    int64_t da[] = {CC_MM_BATCH, CC_MM_M, CC_MM_K}, db[] = {CC_MM_BATCH, CC_MM_K, CC_MM_N},
            dc[] = {CC_MM_BATCH, CC_MM_M, CC_MM_N};
    cb_tensor A = cb_tensor_make(g, 3, da, NULL, CUDNN_DATA_HALF, 0);
    cb_tensor B = cb_tensor_make(g, 3, db, NULL, CUDNN_DATA_HALF, 0);
    cb_tensor C = cb_tensor_make(g, 3, dc, NULL, CUDNN_DATA_HALF, 0);
    cb_matmul(g, A, B, C, NULL, NULL, NULL);
}

const char *cc_report;

int cc_check_mode(int argc, char **argv, void (*check)(void **))
{
    if (argc < 3 || strcmp(argv[1], "--check") != 0)
        return -1;
    cc_report = argv[2];
    return cc_run_test(check);
}

int cc_run_test(void (*test)(void **))
{
    const struct CMUnitTest t[] = {cmocka_unit_test(test)};
    return cmocka_run_group_tests(t, NULL, NULL);
}

void *cc_open(int argc, char **argv, cb_api *api, void (*linked)(cb_api *))
{
    if (argc < 4 || strcmp(argv[1], "run") != 0) {
        fprintf(stderr, "usage: %s run linked|dlopen LIBCUDNN | --check REPORT\n", argv[0]);
        return NULL;
    }
    void *h = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "%s: %s\n", argv[0], dlerror());
        return NULL;
    }
    if (strcmp(argv[2], "dlopen") == 0 ? cb_api_dlsym(api, h) != 0 : linked == NULL) {
        fprintf(stderr, "%s: no backend functions (%s)\n", argv[0], argv[2]);
        return NULL;
    }
    if (strcmp(argv[2], "dlopen") != 0)
        linked(api);
    return h;
}

static int (*rt_malloc)(void **, size_t);
static int (*rt_free)(void *);
static int (*rt_graph_create)(cudaGraph_t *, unsigned);

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    return rt_malloc(&p, bytes) == 0 ? p : NULL;
}

static void dev_free(void *p)
{
    rt_free(p);
}

static void *host_alloc(size_t bytes)
{
    return calloc(1, bytes);
}

int cc_device(cb_api *api, cudaStream_t *stream)
{
    const char *ng = getenv("FLOPCOUNT_TEST_NULLGPU");
    if (ng == NULL || strcmp(ng, "1") != 0) {
        api->dev_alloc = host_alloc;
        api->dev_free = free;
        *stream = (cudaStream_t)0x5000;
        return 0;
    }
    int (*mk_stream)(cudaStream_t *) = NULL;
    void *rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (rt != NULL) {
        *(void **)&rt_malloc = dlsym(rt, "cudaMalloc");
        *(void **)&rt_free = dlsym(rt, "cudaFree");
        *(void **)&mk_stream = dlsym(rt, "cudaStreamCreate");
        *(void **)&rt_graph_create = dlsym(rt, "cudaGraphCreate");
    }
    if (rt_malloc == NULL || rt_free == NULL || mk_stream == NULL || rt_graph_create == NULL) {
        fprintf(stderr, "cc_device: no cudaMalloc / cudaStreamCreate (%s)\n",
                rt ? "dlsym" : dlerror());
        return -1;
    }
    int st = mk_stream(stream);
    if (st != 0) {
        fprintf(stderr, "cc_device: cudaStreamCreate: %d\n", st);
        return -1;
    }
    api->dev_alloc = dev_alloc;
    api->dev_free = dev_free;
    return 0;
}

cudaGraph_t cc_cuda_graph(void)
{
    cudaGraph_t g = NULL;
    if (rt_graph_create == NULL)
        return (cudaGraph_t)0x1000;
    return rt_graph_create(&g, 0) == 0 ? g : NULL;
}

json_object *cc_load(const char *path)
{
    json_object *r = json_object_from_file(path);
    if (r == NULL)
        fail_msg("cannot read report %s: %s", path, json_util_get_last_err());
    return r;
}

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (o == NULL || !json_object_object_get_ex(o, key, &v))
        fail_msg("report: no field \"%s\"", key);
    return v;
}

static int64_t get_i(json_object *o, const char *key)
{
    return json_object_get_int64(get(o, key));
}

static uint64_t get_u(json_object *o, const char *key)
{
    return json_object_get_uint64(get(o, key));
}

static const char *get_s(json_object *o, const char *key)
{
    return json_object_get_string(get(o, key));
}

static const char *dtype_name(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_BFLOAT16 ? "bf16" : dt == CUDNN_DATA_HALF ? "fp16" : "fp32";
}

void cc_expect_attention(json_object *r, const cb_sdpa *s, uint64_t calls, uint64_t failed,
                         int bound)
{
    json_object *shapes = get(get(r, "attention"), "shapes");
    cb_want w;
    cb_expect(s, &w);
    /* the path the graph took, as the report names it (issue 38) */
    const char *path = s->unified ? "unified SDPA node" : "composite graph (matmul nodes)";
    for (size_t i = 0; i < json_object_array_length(shapes); i++) {
        json_object *x = json_object_array_get_idx(shapes, i);
        if (strcmp(get_s(x, "source"), "cudnn") != 0 || strcmp(get_s(x, "path"), path) != 0 ||
            strcmp(get_s(x, "direction"), s->bwd ? "backward" : "forward") != 0 ||
            get_i(x, "batch") != s->b || get_i(x, "heads") != s->h || get_i(x, "seq_q") != s->s_q ||
            get_i(x, "seq_k") != s->s_k || get_i(x, "head_dim") != s->d ||
            get_i(x, "head_dim_v") != s->d_v)
            continue;
        assert_string_equal(get_s(x, "dtype"), dtype_name(s->dt));
        assert_int_equal(get_i(x, "kv_heads"), s->h_k);
        const char *mask = s->left ? "window" : s->causal ? "causal" : "none";
        assert_string_equal(get_s(x, "mask"), mask);
        assert_string_equal(get_s(x, "align"), s->causal == 2 ? "bottom_right" : "top_left");
        assert_int_equal(json_object_get_boolean(get(x, "bound")), bound);
        assert_int_equal(get_u(x, "calls"), calls);
        assert_int_equal(get_u(x, "failed_calls"), failed);
        json_object *pc = get(x, "per_call");
        assert_int_equal(get_u(pc, "pairs"), w.pairs);
        assert_int_equal(get_u(pc, "flops"), w.flops);
        assert_int_equal(get_u(pc, "model_flops"), w.model);
        assert_int_equal(get_u(x, "flops"), w.flops * calls);
        assert_int_equal(get_u(x, "model_flops"), w.model * calls);
        return;
    }
    fail_msg("report: no cudnn attention shape b=%lld h=%lld s_q=%lld s_k=%lld d=%lld d_v=%lld %s, "
             "path %s",
             (long long)s->b, (long long)s->h, (long long)s->s_q, (long long)s->s_k,
             (long long)s->d, (long long)s->d_v, s->bwd ? "backward" : "forward", path);
}

void cc_expect_attention_totals(json_object *r, uint64_t calls, uint64_t failed)
{
    json_object *a = get(r, "attention");
    assert_int_equal(get_u(a, "calls"), calls);
    assert_int_equal(get_u(a, "failed_calls"), failed);
    if (calls > 0)
        assert_int_equal(get_u(get(get(a, "by_source"), "cudnn"), "calls"), calls);
}

void cc_expect_matmul(json_object *r, uint64_t calls, uint64_t failed)
{
    json_object *shapes = get(r, "shapes");
    for (size_t i = 0; i < json_object_array_length(shapes); i++) {
        json_object *x = json_object_array_get_idx(shapes, i);
        if (strcmp(get_s(x, "api"), "cudnnBackendExecute:matmul") != 0)
            continue;
        assert_int_equal(get_i(x, "m"), CC_MM_M);
        assert_int_equal(get_i(x, "n"), CC_MM_N);
        assert_int_equal(get_i(x, "k"), CC_MM_K);
        assert_int_equal(get_i(x, "batch"), CC_MM_BATCH);
        assert_string_equal(get_s(x, "dtype"), "fp16");
        assert_int_equal(get_u(x, "calls"), calls);
        assert_int_equal(get_u(x, "failed_calls"), failed);
        assert_int_equal(get_u(x, "flops"),
                         2ull * CC_MM_M * CC_MM_N * CC_MM_K * CC_MM_BATCH * calls);
        return;
    }
    fail_msg("report: no cudnnBackendExecute:matmul shape");
}

void cc_expect_uncounted(json_object *r, const char *name, const char *reason, uint64_t calls,
                         uint64_t failed)
{
    json_object *u = get(r, "uncounted");
    for (size_t i = 0; i < json_object_array_length(u); i++) {
        json_object *x = json_object_array_get_idx(u, i);
        if (strcmp(get_s(x, "name"), name) != 0)
            continue;
        assert_string_equal(get_s(x, "reason"), reason);
        assert_int_equal(get_u(x, "calls"), calls);
        assert_int_equal(get_u(x, "failed_calls"), failed);
        return;
    }
    fail_msg("report: no uncounted entry \"%s\"", name);
}
