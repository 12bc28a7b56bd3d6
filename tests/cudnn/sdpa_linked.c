/* SPDX-License-Identifier: Apache-2.0 */
/* sdpa_linked.c - the backend functions a program links (sdpa_build.h),
 * apart so that the recorder test links no cuDNN. */
#include "sdpa_build.h"

void cb_api_linked(cb_api *api)
{
    api->create = cudnnBackendCreateDescriptor;
    api->destroy = cudnnBackendDestroyDescriptor;
    api->set = cudnnBackendSetAttribute;
    api->get = cudnnBackendGetAttribute;
    api->finalize = cudnnBackendFinalize;
    api->execute = cudnnBackendExecute;
    api->populate = cudnnBackendPopulateCudaGraph;
    api->dev_alloc = NULL; /* made-up addresses until a program gives an allocator */
    api->dev_free = NULL;
}

