/* SPDX-License-Identifier: Apache-2.0 */
/* api.c - the exported name of each interposed entry point (api_list.h). */
#include "api.h"

#include <stddef.h>

#define FC_API_NAME(id, name, name64) [FC_API_##id] = {name, name64},
static const char *const names[FC_API_COUNT][2] = {FC_API_LIST(FC_API_NAME)};
#undef FC_API_NAME

const char *fc_api_name(int api, int is64)
{
    if (api <= FC_API_UNKNOWN || api >= FC_API_COUNT || names[api][0] == NULL)
        return "unknown";
    return names[api][is64 ? 1 : 0];
}
