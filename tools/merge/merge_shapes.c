/* SPDX-License-Identifier: Apache-2.0 */
/* merge_shapes.c - GEMM shapes summed over ranks: an open-addressing hash
 * on the full shape key, so 1,024 ranks of thousands of shapes each stay
 * linear in the input. */
#include <stdlib.h>
#include <string.h>

#include "merge.h"

static int same_shape(const fc_report_shape *a, const fc_report_shape *b)
{
    return a->overflow == b->overflow && a->m == b->m && a->n == b->n && a->k == b->k &&
           a->batch == b->batch && a->transa == b->transa && a->transb == b->transb &&
           strcmp(a->api, b->api) == 0 && strcmp(a->dtype, b->dtype) == 0 &&
           strcmp(a->out_dtype, b->out_dtype) == 0 && strcmp(a->compute, b->compute) == 0;
}

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull; /* FNV-1a */
    return h;
}

static uint64_t hash_shape(const fc_report_shape *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    int64_t dims[4] = {s->m, s->n, s->k, s->batch};
    char tr[3] = {s->transa, s->transb, (char)s->overflow};
    h = mix(h, dims, sizeof dims);
    h = mix(h, tr, sizeof tr);
    h = mix(h, s->api, strlen(s->api));
    h = mix(h, s->dtype, strlen(s->dtype));
    h = mix(h, s->out_dtype, strlen(s->out_dtype));
    return mix(h, s->compute, strlen(s->compute));
}

/* Slot for s: where it is, or the empty one where it belongs. */
static size_t probe(const fc_merge *m, const fc_report_shape *s)
{
    size_t mask = m->n_slots - 1;
    size_t i = (size_t)hash_shape(s) & mask;
    while (m->shape_slots[i] != 0 && !same_shape(&m->shapes[m->shape_slots[i] - 1], s))
        i = (i + 1) & mask;
    return i;
}

/* Keeps the table at most half full. */
static int grow_slots(fc_merge *m)
{
    if (m->n_slots != 0 && (m->n_shapes + 1) * 2 <= m->n_slots)
        return 0;
    size_t n = m->n_slots ? m->n_slots * 2 : 1024;
    size_t *slots = calloc(n, sizeof *slots);
    if (slots == NULL)
        return -1;
    free(m->shape_slots);
    m->shape_slots = slots;
    m->n_slots = n;
    for (size_t i = 0; i < m->n_shapes; i++)
        m->shape_slots[probe(m, &m->shapes[i])] = i + 1;
    return 0;
}

static int add_shape(fc_merge *m, const fc_report_shape *s)
{
    if (grow_slots(m) != 0)
        return -1;
    size_t slot = probe(m, s);
    if (m->shape_slots[slot] != 0) {
        fc_report_shape *t = &m->shapes[m->shape_slots[slot] - 1];
        t->calls += s->calls;
        t->failed_calls += s->failed_calls;
        t->flops = fc_u128_sat_add(t->flops, s->flops);
        return 0;
    }
    if (m->n_shapes == m->cap_shapes) {
        size_t cap = m->cap_shapes ? m->cap_shapes * 2 : 256;
        fc_report_shape *arr = realloc(m->shapes, cap * sizeof *arr);
        if (arr == NULL)
            return -1;
        m->shapes = arr;
        m->cap_shapes = cap;
    }
    m->shapes[m->n_shapes] = *s;
    m->shape_slots[slot] = ++m->n_shapes;
    return 0;
}

int fc_merge_sum_shapes(fc_merge *m, const fc_report *r)
{
    for (size_t i = 0; i < r->n_shapes; i++)
        if (add_shape(m, &r->shapes[i]) != 0)
            return -1;
    return 0;
}

static int larger_first(const void *a, const void *b)
{
    const fc_report_shape *x = a, *y = b;
    if (x->flops != y->flops)
        return x->flops < y->flops ? 1 : -1;
    return (x->calls < y->calls) - (x->calls > y->calls);
}

/* Final order; the hash index is no longer needed. */
void fc_merge_sort_shapes(fc_merge *m)
{
    free(m->shape_slots);
    m->shape_slots = NULL;
    m->n_slots = 0;
    if (m->n_shapes > 1)
        qsort(m->shapes, m->n_shapes, sizeof *m->shapes, larger_first);
}
