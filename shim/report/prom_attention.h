/* SPDX-License-Identifier: Apache-2.0 */
/* prom_attention.h - counted fused attention in the Prometheus file
 * (prometheus.c): flopcount_attention_flops_total and
 * flopcount_attention_calls_total, one series per source. */
#ifndef FC_PROM_ATTENTION_H
#define FC_PROM_ATTENTION_H

#include <stddef.h>

#include "count/attn_table.h"

/* Appends both metrics (HELP, TYPE, a series per source with calls or
 * FLOPs; each series' labels: `labels`, then source="...") to buf from
 * *used, advancing it; nothing when no attention call was seen. Returns
 * -1 (and leaves *used) when they do not fit in size. */
int fc_prom_attention(const fc_attn_totals *t, const char *labels, char *buf, size_t size,
                      size_t *used);

#endif
