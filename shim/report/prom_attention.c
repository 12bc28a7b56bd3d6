/* SPDX-License-Identifier: Apache-2.0 */
/* prom_attention.c - the attention metrics of the Prometheus file
 * (prom_attention.h): exact integers, as the JSON report's
 * attention.by_source; formatted into the caller's fixed buffer. */
#include "prom_attention.h"

#include <stdarg.h>
#include <stdio.h>

static int put(char *buf, size_t size, size_t *o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int put(char *buf, size_t size, size_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *o, size - *o, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size - *o)
        return -1;
    *o += (size_t)n;
    return 0;
}

int fc_prom_attention(const fc_attn_totals *t, const char *labels, char *buf, size_t size,
                      size_t *used)
{
    size_t o = *used;
    char v[FC_U128_DIGITS];
    const char *sep = labels[0] ? "," : "";
    if (t->calls + t->failed_calls == 0)
        return 0;
    int bad = put(buf, size, &o,
                  "# HELP flopcount_attention_flops_total Fused-attention FLOPs counted as the "
                  "kernels execute them (the backward's five products, 2.5x the forward; upper "
                  "bounds for lengths that are maxima: varlen, padding), every phase; source: flash (FlashAttention-2), efficient (memory-efficient "
                  "attention), cudnn (cuDNN SDPA).\n"
                  "# TYPE flopcount_attention_flops_total counter\n");
    for (int s = 1; s < FC_ATTN_SRC_COUNT && !bad; s++)
        if (t->calls_by_source[s] || t->executed_by_source[s])
            bad = put(buf, size, &o, "flopcount_attention_flops_total{%s%ssource=\"%s\"} %s\n",
                      labels, sep, fc_attn_source_name(s),
                      fc_u128_to_str(t->executed_by_source[s], v));
    bad = bad || put(buf, size, &o,
                     "# HELP flopcount_attention_calls_total Successful fused-attention calls "
                     "counted, by source.\n"
                     "# TYPE flopcount_attention_calls_total counter\n");
    for (int s = 1; s < FC_ATTN_SRC_COUNT && !bad; s++)
        if (t->calls_by_source[s] || t->executed_by_source[s])
            bad = put(buf, size, &o, "flopcount_attention_calls_total{%s%ssource=\"%s\"} %llu\n",
                      labels, sep, fc_attn_source_name(s),
                      (unsigned long long)t->calls_by_source[s]);
    if (bad)
        return -1;
    *used = o;
    return 0;
}
