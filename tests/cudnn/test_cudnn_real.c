/* SPDX-License-Identifier: Apache-2.0 */
/* test_cudnn_real.c - the cuDNN hooks over the REAL cuDNN 9 of the CUDA
 * toolkit, on a machine without a GPU.
 *
 * Without a device the backend API still creates, sets and finalizes
 * tensors, operations, operation graphs, heuristics and engines; it
 * refuses a handle (cudnnCreate), an engine config's finalize for these
 * graphs, the plan's finalize and the execute (docs/cudnn.md lists each
 * status; `test_cudnn_real statuses` prints them). So every graph of
 * cudnn_cases.c is built through the real library exactly as
 * sdpa_build.c does it, and executed twice: each execute fails, and the
 * report must hold it as a failed cuDNN attention call (or matmul) with
 * the FLOPs it would have run - the shim's reading of the real library's
 * descriptors, against the hand count.
 *
 *   test_cudnn_real run linked|dlopen LIBCUDNN   (under the shim)
 *   test_cudnn_real statuses                      (the real statuses, without it)
 *   test_cudnn_real --check REPORT
 * "dlopen" loads LIBCUDNN RTLD_LOCAL and takes every function with dlsym,
 * as cudnn-frontend's dynamic loading (TransformerEngine) does; that
 * build (test_cudnn_real_dl) links no cuDNN at all. Each
 * execute's status is compared with the real function's, called at its
 * address in the library's symbol table (emu/real_symbol.c). */
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

#define EXECUTES 2

static cb_api api;
static cudnnStatus_t (*real_execute)(cudnnHandle_t, cudnnBackendDescriptor_t,
                                     cudnnBackendDescriptor_t);

static void print_status(const char *what, const cb_status *s)
{
    printf("%-24s tensors %d ops %d graph %d heur %d (results %lld, filled %lld) engine %d "
           "engcfg %d plan %d execute %d\n",
           what, s->tensors, s->ops, s->graph, s->heur, (long long)s->heur_results,
           (long long)s->heur_filled, s->engine, s->engcfg, s->plan, s->execute);
}

/* The status of the real function for the same arguments. */
static void same_as_real(cudnnHandle_t h, cudnnBackendDescriptor_t plan,
                         cudnnBackendDescriptor_t vp, cudnnStatus_t got)
{
    assert_int_not_equal(got, CUDNN_STATUS_SUCCESS);
    assert_int_equal(got, real_execute(h, plan, vp));
}

/* One graph: built, planned, executed EXECUTES times (each fails, with the
 * real function's status). */
static void one(cb_graph *g, const char *what, int print)
{
    cb_plan(g);
    g->after_execute = print ? NULL : same_as_real;
    for (int i = 0; i < EXECUTES; i++)
        assert_int_not_equal(cb_execute(g), CUDNN_STATUS_SUCCESS);
    if (print)
        print_status(what, &g->st);
    cb_destroy_all(g);
}

static void build_all(int print)
{
    static cb_graph g;
    char what[64];
    for (int i = 0; i < CC_N_SDPA; i++) {
        cb_init(&g, &api, NULL);
        cb_build_sdpa(&g, &cc_sdpa[i]);
        snprintf(what, sizeof what, "sdpa %d %s%s", i,
                 cc_sdpa[i].unified ? "unified" : cc_sdpa[i].bwd ? "backward" : "forward",
                 cc_sdpa[i].causal ? " causal" : "");
        one(&g, what, print);
    }
    cb_init(&g, &api, NULL);
    cc_build_matmul(&g);
    one(&g, "matmul", print);
}

static void test_run(void **state)
{
    (void)state;
    build_all(0);
}

static void test_check(void **state)
{
    (void)state;
    json_object *r = cc_load(cc_report);
    for (int i = 0; i < CC_N_SDPA; i++)
        cc_expect_attention(r, &cc_sdpa[i], 0, EXECUTES, 0);
    cc_expect_attention_totals(r, 0, (uint64_t)CC_N_SDPA * EXECUTES);
    cc_expect_matmul(r, 0, EXECUTES);
    json_object_put(r);
}

int main(int argc, char **argv)
{
    int checked = cc_check_mode(argc, argv, test_check);
    if (checked >= 0)
        return checked;
#ifndef FC_CUDNN_DLOPEN_ONLY
    if (argc >= 2 && strcmp(argv[1], "statuses") == 0) {
        cb_api_linked(&api);
        build_all(1);
        return 0;
    }
#endif
    if (cc_open(argc, argv, &api, CC_LINKED) == NULL)
        return 2;
    /* libcudnn.so.9 forwards to libcudnn_graph.so.9 through pointers it
     * took with dlsym (the shim's hooks): the real function is the graph
     * library's own */
    char graph[4096];
    const char *slash = strrchr(argv[3], '/');
    snprintf(graph, sizeof graph, "%.*s/libcudnn_graph.so.9", slash ? (int)(slash - argv[3]) : 1,
             slash ? argv[3] : ".");
    void *gh = dlopen(graph, RTLD_NOW | RTLD_LOCAL);
    if (gh != NULL)
        *(void **)&real_execute = real_symbol(gh, "cudnnBackendExecute", NULL);
    if (real_execute == NULL) {
        fprintf(stderr, "%s: no cudnnBackendExecute in %s\n", argv[0], graph);
        return 1;
    }
    return cc_run_test(test_run);
}
