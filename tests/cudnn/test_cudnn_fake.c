/* SPDX-License-Identifier: Apache-2.0 */
/* test_cudnn_fake.c - the cuDNN hooks end to end over the fake cuDNN 9
 * (fake_cudnn.c forwarding through dlsym to fake_cudnn_graph.c, as the
 * real libcudnn.so.9 does to libcudnn_graph.so.9), where plans finalize
 * and executes succeed: the same call sequences as test_cudnn_real.c,
 * run to the end, and the defence cases.
 *
 *   test_cudnn_fake run linked|dlopen LIBCUDNN     (under the shim)
 *   test_cudnn_fake --check REPORT
 *
 * What the report must hold, worked out here:
 *  - every attention graph of cudnn_cases.c executed RUNS times: RUNS
 *    calls of its shape, the hand-counted FLOPs each; graph 0 once more
 *    without a variant pack, which the library refuses (a failed call);
 *  - the matmul graph: RUNS + 1 calls of its GEMM shape;
 *  - an SDPA graph with no handle on its operation graph gets no engine
 *    config and no plan (as the real 9.19 answers);
 *  - a backward GQA graph whose tensors and operations were destroyed
 *    before its plan was made: counted all the same (2 calls);
 *  - named, not counted, one call each: a convolution, a tensor attribute
 *    and an operation type the 9.19 header does not have, a plan built
 *    from JSON, a plan the shim never saw created (made with the
 *    library's own functions, past the hooks), a PopulateCudaGraph; and a
 *    plan made while 100,000 live descriptors filled the table.
 *
 * The program is a correct cuDNN program (a live handle on each operation
 * graph, the tensors and the plan's workspace in device memory of the
 * sizes they need: cudnn_cases.c's cc_device), so its twins
 * (cudnn_fake_*_nullgpu, FLOPCOUNT_TEST_NULLGPU=1) run it on the real
 * cuDNN 9 of the toolkit on the null GPU: every attention and matmul
 * graph plans and executes there, with the same expected counts; the
 * PopulateCudaGraph goes into a graph the real runtime made (followed by
 * the shim, not named); the defence cases, which hand cuDNN graphs only an
 * emulation accepts, run on the fake alone. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "cudnn_cases.h"
#include "emu/real_symbol.h"

#define RUNS 3
#define HUNDRED_K 100000

static cb_api api;
/* the real cuDNN on the null GPU (FLOPCOUNT_TEST_NULLGPU=1, the _nullgpu
 * twins): the defence cases, made-up graphs that only an emulation
 * accepts, are not run (the real library refuses them before any plan) */
static int real_library;
static void *graph_lib; /* libcudnn_graph.so.9: its functions, past the hooks */
static cudnnHandle_t handle;

static const cb_sdpa destroyed_early = {.b = 1,
                                        .h = 6,
                                        .h_k = 3,
                                        .s_q = 40,
                                        .s_k = 40,
                                        .d = 16,
                                        .d_v = 16,
                                        .causal = 1,
                                        .bwd = 1,
                                        .dt = CUDNN_DATA_HALF};

static void run_graph(cb_graph *g, int runs)
{
    static int nth;
    nth++;
    cb_plan(g);
    assert_non_null(g->plan);
    for (int i = 0; i < runs; i++) {
        cudnnStatus_t st = cb_execute(g);
        if (st != CUDNN_STATUS_SUCCESS)
            fprintf(stderr,
                    "graph %d, execute %d: %d (graph %d heuristics %d, %lld configs, plan %d, "
                    "workspace %lld bytes)\n",
                    nth, i, st, g->st.graph, g->st.heur, (long long)g->st.heur_filled, g->st.plan,
                    (long long)g->ws_size);
        assert_int_equal(st, CUDNN_STATUS_SUCCESS);
    }
}

static void attention_graphs(void)
{
    static cb_graph g;
    for (int i = 0; i < CC_N_SDPA; i++) {
        cb_init(&g, &api, handle);
        cb_build_sdpa(&g, &cc_sdpa[i]);
        run_graph(&g, RUNS);
        if (i == 0) /* no variant pack: the library refuses, a failed call */
            assert_int_not_equal(api.execute(handle, g.plan, NULL), CUDNN_STATUS_SUCCESS);
        if (i == 1) { /* a plan's kernels put into a CUDA graph */
            cudaGraph_t cg = cc_cuda_graph();
            assert_non_null(cg);
            assert_int_equal(cb_populate(&g, cg), 0);
        }
        cb_destroy_all(&g);
    }
    /* with no handle on its operation graph an SDPA graph gets no engine:
     * no engine config from heuristics, none by index, no plan (9.19 on
     * the null GPU; the fake answers the same) */
    cb_init(&g, &api, NULL);
    cb_build_sdpa(&g, &cc_sdpa[0]);
    cb_plan(&g);
    assert_int_equal(g.st.graph, CUDNN_STATUS_SUCCESS);
    assert_int_equal(g.st.heur_results, 0);
    assert_int_equal(g.st.engcfg, CUDNN_STATUS_NOT_SUPPORTED);
    assert_int_not_equal(g.st.plan, CUDNN_STATUS_SUCCESS);
    cb_destroy_all(&g);
    cb_init(&g, &api, handle);
    g.keep_tensors = 0;
    cb_build_sdpa(&g, &destroyed_early);
    run_graph(&g, 2);
    cb_destroy_all(&g);
    cb_init(&g, &api, handle);
    cc_build_matmul(&g);
    run_graph(&g, RUNS);
    cb_destroy_all(&g);
}

static void uncounted_graphs(void)
{
    static cb_graph g;
    cb_init(&g, &api, handle);
    cb_bare_op(&g, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    run_graph(&g, 1);
    cb_destroy_all(&g);

    cb_init(&g, &api, handle);
    int64_t dims[] = {4, 8};
    g.extra_tensor_attr = 911; /* not in the 9.19 header: a newer cuDNN's */
    cb_tensor A = cb_tensor_make(&g, 2, dims, NULL, CUDNN_DATA_HALF, 0);
    assert_int_equal(g.st.tensors, CUDNN_STATUS_SUCCESS);
    cb_matmul(&g, A, A, A, NULL, NULL, NULL);
    run_graph(&g, 1);
    cb_destroy_all(&g);

    cb_init(&g, &api, handle);
    cb_bare_op(&g, (cudnnBackendDescriptorType_t)57);
    run_graph(&g, 1);
    cb_destroy_all(&g);
}

/* A finalized plan built from JSON, made through a's functions. */
static cudnnBackendDescriptor_t json_plan(const cb_api *a)
{
    const char json[] = "{\"plan\": 1}";
    cudnnBackendDescriptor_t plan;
    assert_int_equal(a->create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan), 0);
    assert_int_equal(a->set(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                            (int64_t)sizeof json, json),
                     0);
    assert_int_equal(a->finalize(plan), 0);
    return plan;
}

/* A plan from JSON, and one made past the hooks (the library's own
 * functions, read from its symbol table). */
static void plans_unseen(void)
{
    cudnnBackendDescriptor_t plan, vp;
    assert_int_equal(api.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp), 0);
    assert_int_equal(api.finalize(vp), 0);
    plan = json_plan(&api);
    assert_int_equal(api.execute(handle, plan, vp), 0);
    api.destroy(plan);

    cb_api raw;
    assert_non_null(graph_lib);
    *(void **)&raw.create = real_symbol(graph_lib, "cudnnBackendCreateDescriptor", NULL);
    *(void **)&raw.set = real_symbol(graph_lib, "cudnnBackendSetAttribute", NULL);
    *(void **)&raw.finalize = real_symbol(graph_lib, "cudnnBackendFinalize", NULL);
    *(void **)&raw.destroy = real_symbol(graph_lib, "cudnnBackendDestroyDescriptor", NULL);
    plan = json_plan(&raw);
    assert_int_equal(api.execute(handle, plan, vp), 0);
    raw.destroy(plan);
    api.destroy(vp);
}

/* 100,000 live descriptors: the plan made meanwhile is not tracked (named,
 * not counted); once they are destroyed, the next one is counted. */
static void hundred_thousand(void)
{
    cudnnBackendDescriptor_t *d = calloc(HUNDRED_K, sizeof *d);
    assert_non_null(d);
    for (int i = 0; i < HUNDRED_K; i++)
        assert_int_equal(api.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d[i]), 0);
    static cb_graph g;
    cb_init(&g, &api, handle);
    cc_build_matmul(&g);
    run_graph(&g, 1);
    cb_destroy_all(&g);
    for (int i = 0; i < HUNDRED_K; i++)
        api.destroy(d[i]);
    free(d);
    cb_init(&g, &api, handle);
    cc_build_matmul(&g);
    run_graph(&g, 1);
    cb_destroy_all(&g);
}

static void test_run(void **state)
{
    (void)state;
    cudnnStatus_t (*mk)(cudnnHandle_t *) = NULL;
    cudnnStatus_t (*set_stream)(cudnnHandle_t, cudaStream_t) = NULL;
    *(void **)&mk = real_symbol(graph_lib, "cudnnCreate", NULL);
    *(void **)&set_stream = real_symbol(graph_lib, "cudnnSetStream", NULL);
    cudaStream_t stream;
    assert_int_equal(cc_device(&api, &stream), 0);
    assert_int_equal(mk(&handle), 0);
    assert_int_equal(set_stream(handle, stream), 0);
    attention_graphs();
    if (!real_library) {
        uncounted_graphs();
        plans_unseen();
    }
    hundred_thousand();
}

static void test_check(void **state)
{
    (void)state;
    json_object *r = cc_load(cc_report);
    for (int i = 0; i < CC_N_SDPA; i++)
        cc_expect_attention(r, &cc_sdpa[i], RUNS, i == 0, 0);
    cc_expect_attention(r, &destroyed_early, 2, 0, 0);
    cc_expect_attention_totals(r, (uint64_t)CC_N_SDPA * RUNS + 2, 1);
    cc_expect_matmul(r, RUNS + 1, 0);
    /* the plan made while the table was full */
    cc_expect_uncounted(r, "cudnn plan: not seen created", "unresolved_graph", real_library ? 1 : 2,
                        0);
    if (real_library) {
        /* and nothing else: the populate went into a graph made by the
         * real runtime, which the shim follows (counted at its launches,
         * none here) */
        json_object *u = NULL;
        assert_true(json_object_object_get_ex(r, "uncounted", &u));
        assert_int_equal(json_object_array_length(u), 1);
        json_object_put(r);
        return;
    }
    /* a made-up graph the shim never saw: named, not counted */
    cc_expect_uncounted(r, "cudnnBackendPopulateCudaGraph: attention", "unresolved_graph", 1, 0);
    cc_expect_uncounted(r, "cudnn graph: convolution", "not_counted_operation", 1, 0);
    cc_expect_uncounted(r, "cudnn graph: attribute unknown to flopcount", "unresolved_graph", 1, 0);
    cc_expect_uncounted(r, "cudnn graph: operation type unknown to flopcount", "unresolved_graph",
                        1, 0);
    cc_expect_uncounted(r, "cudnn plan: deserialized", "unresolved_graph", 1, 0);
    json_object_put(r);
}

int main(int argc, char **argv)
{
    const char *ng = getenv("FLOPCOUNT_TEST_NULLGPU");
    real_library = ng != NULL && strcmp(ng, "1") == 0;
    int checked = cc_check_mode(argc, argv, test_check);
    if (checked >= 0)
        return checked;
    if (cc_open(argc, argv, &api, CC_LINKED) == NULL)
        return 2;
    graph_lib = dlopen("libcudnn_graph.so.9", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (graph_lib == NULL)
        graph_lib = dlopen("libcudnn_graph.so.9", RTLD_NOW | RTLD_LOCAL);
    return cc_run_test(test_run);
}
