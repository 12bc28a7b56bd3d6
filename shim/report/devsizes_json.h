/* SPDX-License-Identifier: Apache-2.0 */
/* devsizes_json.h - the "read_from_device" object of an uncounted entry. */
#ifndef FC_DEVSIZES_JSON_H
#define FC_DEVSIZES_JSON_H

#include <stdint.h>

#include "jsonw.h"

/* Writes it for uncounted entry id when its sizes were asked for. */
void fc_devsizes_json(fc_jw *w, uint32_t id);

#endif
