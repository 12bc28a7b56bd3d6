/* SPDX-License-Identifier: Apache-2.0 */
/* api.h - ids of the interposed entry point families, generated from
 * api_list.h, and their exported names. _64 twins share the id of their
 * 32-bit sibling and are told apart by FC_API_64 in fc_gemm.flags. */
#ifndef FC_API_H
#define FC_API_H

#include "api_list.h"

#define FC_API_ENUM(id, name, name64) FC_API_##id,
enum fc_api { FC_API_UNKNOWN = 0, FC_API_LIST(FC_API_ENUM) FC_API_COUNT };
#undef FC_API_ENUM

#define FC_API_64 0x1u /* the call came through a _64 entry point */

/* "cublasSgemm_v2", "sgemm_"; is64 picks the _64 twin; "unknown" for an id
 * out of range. */
const char *fc_api_name(int api, int is64);

/* 1 for cuBLAS and cuBLASLt entry points (work queued on a GPU). */
static inline int fc_api_is_gpu(int api)
{
    return api > FC_API_UNKNOWN && api < FC_API_BLAS_SGEMM;
}

#endif
