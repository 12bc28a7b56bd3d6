/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_ctor_cudnn.c - a library whose constructor, linked into a
 * program, runs before the preloaded shim's (dependencies first): it
 * builds the matmul graph of cudnn_cases.c through the (fake) cuDNN it
 * links and executes it once. So the cuDNN hooks must work before the
 * shim's constructor. (An attention execute there is read as well, but
 * the ring layer drops attention records made before its init:
 * fc_attn_record.) fc_ctor_cudnn_result: 1 when the execute succeeded. */
#include "cudnn_cases.h"

int fc_ctor_cudnn_result;

__attribute__((constructor)) static void ctor_cudnn(void)
{
    static cb_api api;
    static cb_graph g;
    cudnnHandle_t h = NULL;
    cb_api_linked(&api);
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS)
        return;
    cb_init(&g, &api, h);
    cc_build_matmul(&g);
    cb_plan(&g);
    int ok = cb_execute(&g) == CUDNN_STATUS_SUCCESS;
    cb_destroy_all(&g);
    fc_ctor_cudnn_result = ok;
}
