/* SPDX-License-Identifier: Apache-2.0 */
/* test_cudnn_graphs.c - cuDNN plans in CUDA graphs, on the fake GPU of
 * tests/cupti (fake libcuda.so.1 and libcupti.so.13) and the fake cuDNN:
 *  - a forward attention plan executed once eagerly, then on a capturing
 *    stream: not counted there, counted at each of the graph's 3 launches;
 *  - a backward attention plan and the matmul plan put into graphs with
 *    cudnnBackendPopulateCudaGraph: counted at each of 2 launches;
 *  - the matmul plan executed on a capturing stream: 1 launch.
 *   test_cudnn_graphs run LIBCUDNN    (under the shim)
 *   test_cudnn_graphs --check REPORT */
#include <cuda.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "cudnn_cases.h"

#undef cuStreamBeginCapture
#undef cuGraphLaunch
CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode);
CUresult cuStreamEndCapture(CUstream s, CUgraph *g);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *x, CUgraph g, unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec x, CUstream s);

#define S0 ((CUstream)(uintptr_t)0x5100u)
#define S1 ((CUstream)(uintptr_t)0x5101u)

static cb_api api;
static cudnnHandle_t handle;

static CUgraph capture(CUstream s, cb_graph *g)
{
    CUgraph out = NULL;
    assert_int_equal(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    if (g != NULL)
        assert_int_equal(cb_execute(g), CUDNN_STATUS_SUCCESS);
    assert_int_equal(cuStreamEndCapture(s, &out), CUDA_SUCCESS);
    return out;
}

static void launch(CUgraph graph, int n)
{
    CUgraphExec x = NULL;
    assert_int_equal(cuGraphInstantiateWithFlags(&x, graph, 0), CUDA_SUCCESS);
    for (int i = 0; i < n; i++)
        assert_int_equal(cuGraphLaunch(x, S0), CUDA_SUCCESS);
}

static void populate(cb_graph *g, CUgraph graph)
{
    cudnnBackendDescriptor_t vp;
    assert_int_equal(api.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp), 0);
    assert_int_equal(api.finalize(vp), 0);
    assert_int_equal(api.populate(handle, g->plan, vp, (cudaGraph_t)graph), 0);
    api.destroy(vp);
}

static void test_run(void **state)
{
    (void)state;
    static cb_graph fwd, bwd, mm;
    cb_init(&fwd, &api, handle);
    cb_build_sdpa(&fwd, &cc_sdpa[0]);
    cb_plan(&fwd);
    assert_int_equal(cb_execute(&fwd), CUDNN_STATUS_SUCCESS); /* eager: counted now */
    launch(capture(S0, &fwd), 3);

    cb_init(&bwd, &api, handle);
    cb_build_sdpa(&bwd, &cc_sdpa[1]);
    cb_plan(&bwd);
    CUgraph gb = capture(S1, NULL); /* an empty graph to populate */
    populate(&bwd, gb);
    launch(gb, 2);

    cb_init(&mm, &api, handle);
    cc_build_matmul(&mm);
    cb_plan(&mm);
    CUgraph gm = capture(S1, NULL);
    populate(&mm, gm);
    launch(gm, 2);
    launch(capture(S0, &mm), 1);
}

static void test_check(void **state)
{
    (void)state;
    json_object *r = cc_load(cc_report);
    cc_expect_attention(r, &cc_sdpa[0], 4, 0, 0);
    cc_expect_attention(r, &cc_sdpa[1], 2, 0, 0);
    cc_expect_matmul(r, 3, 0);
    json_object *u = NULL;
    assert_true(json_object_object_get_ex(r, "uncounted", &u));
    assert_int_equal(json_object_array_length(u), 0); /* nothing went past the graphs */
    json_object_put(r);
}

int main(int argc, char **argv)
{
    int checked = cc_check_mode(argc, argv, test_check);
    if (checked >= 0)
        return checked;
    if (argc < 3 || strcmp(argv[1], "run") != 0) {
        fprintf(stderr, "usage: %s run LIBCUDNN | --check REPORT\n", argv[0]);
        return 2;
    }
    void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL || cb_api_dlsym(&api, h) != 0)
        return 1;
    cudnnStatus_t (*mk)(cudnnHandle_t *) = NULL;
    cudnnStatus_t (*set_stream)(cudnnHandle_t, cudaStream_t) = NULL;
    *(void **)&mk = dlsym(h, "cudnnCreate");
    *(void **)&set_stream = dlsym(h, "cudnnSetStream");
    if (mk == NULL || set_stream == NULL || mk(&handle) != 0 ||
        set_stream(handle, (cudaStream_t)S0) != 0)
        return 1;
    return cc_run_test(test_run);
}
