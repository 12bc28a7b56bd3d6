/* SPDX-License-Identifier: Apache-2.0 */
/* test_cudnn_fork.c - fork while other threads are inside the cuDNN
 * hooks (run under the shim, over the fake cuDNN).
 *
 * Two threads create, set, destroy descriptors and execute a plan in a
 * loop, so the descriptor table's lock is taken all the time; the main
 * thread forks FORKS times meanwhile. Each child, which has only the
 * forking thread, must get through the hooks at once - create, destroy,
 * an execute of the parent's plan - and exit 0 within a few seconds
 * (alarm): a lock left held at fork would hang it. */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sdpa_build.h"

#define FORKS 80

static cb_api api;
static cudnnHandle_t handle;
static cb_graph g, copies[2]; /* a copy per thread: cb_execute notes its status */
static _Atomic int stop;

static void *churn(void *arg)
{
    cb_graph *mine = arg;
    while (!stop) {
        cudnnBackendDescriptor_t d;
        if (api.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d) == CUDNN_STATUS_SUCCESS) {
            int64_t uid = 7;
            api.set(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
            api.destroy(d);
        }
        cb_execute(mine);
    }
    return NULL;
}

static void test_fork_in_hooks(void **state)
{
    (void)state;
    cb_init(&g, &api, handle);
    cb_sdpa s = {.b = 1, .h = 2, .h_k = 2, .s_q = 16, .s_k = 16, .d = 8, .d_v = 8, .causal = 1,
                 .dt = CUDNN_DATA_HALF};
    cb_build_sdpa(&g, &s);
    cb_plan(&g);
    assert_int_equal(cb_execute(&g), CUDNN_STATUS_SUCCESS);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        copies[i] = g;
        assert_int_equal(pthread_create(&t[i], NULL, churn, &copies[i]), 0);
    }
    int hung = 0, failed = 0;
    for (int i = 0; i < FORKS; i++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            alarm(5);
            cudnnBackendDescriptor_t d;
            int ok = api.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d) == CUDNN_STATUS_SUCCESS &&
                     api.destroy(d) == CUDNN_STATUS_SUCCESS &&
                     cb_execute(&g) == CUDNN_STATUS_SUCCESS;
            _exit(ok ? 0 : 1);
        }
        int st = 0;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        hung += WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM;
        failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    stop = 1;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(hung, 0);
    assert_int_equal(failed, 0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s LIBCUDNN\n", argv[0]);
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL || cb_api_dlsym(&api, h) != 0)
        return 1;
    cudnnStatus_t (*mk)(cudnnHandle_t *) = NULL;
    *(void **)&mk = dlsym(h, "cudnnCreate");
    if (mk == NULL || mk(&handle) != CUDNN_STATUS_SUCCESS)
        return 1;
    const struct CMUnitTest t[] = {cmocka_unit_test(test_fork_in_hooks)};
    return cmocka_run_group_tests(t, NULL, NULL);
}
