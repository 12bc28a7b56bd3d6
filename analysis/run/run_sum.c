/* SPDX-License-Identifier: Apache-2.0 */
/* run_sum.c - the sum of N runs (run_sum.h): totals, by_api / by_dtype
 * rows by name, GEMM shapes by their whole key through an open-addressing
 * index (FNV-1a of the key, at most half full). */
#include "run_sum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_totals(fc_run_sum *s, const fc_run_part *p)
{
    fc_totals_rec *t = &s->totals;
    const fc_totals_rec *a = p->totals;
    t->gemm_calls += a->gemm_calls;
    t->failed_calls += a->failed_calls;
    t->invalid_calls += a->invalid_calls;
    t->unresolved_calls += a->unresolved_calls;
    t->attention_calls += a->attention_calls;
    t->gemm_flops = fc_u128_sat_add(t->gemm_flops, a->gemm_flops);
    t->attention_flops = fc_u128_sat_add(t->attention_flops, a->attention_flops);
    t->counted_flops = fc_u128_sat_add(t->counted_flops, a->counted_flops);
    if (p->has_recompute)
        s->recompute_flops = fc_u128_sat_add(s->recompute_flops, p->recompute_flops);
    if (!isnan(p->wall_seconds) && p->wall_seconds > s->wall_seconds)
        s->wall_seconds = p->wall_seconds;
}

static int add_groups(fc_report_group **arr, size_t *n, const fc_report_group *add, size_t n_add)
{
    for (size_t i = 0; i < n_add; i++) {
        size_t j = 0;
        while (j < *n && strcmp((*arr)[j].name, add[i].name) != 0)
            j++;
        if (j == *n) {
            fc_report_group *g = realloc(*arr, (*n + 1) * sizeof **arr);
            if (g == NULL)
                return -1;
            *arr = g;
            memset(&g[j], 0, sizeof g[j]);
            snprintf(g[j].name, sizeof g[j].name, "%s", add[i].name);
            (*n)++;
        }
        fc_schema_add(fc_group_fields, FC_GROUP_N, &(*arr)[j], &add[i]);
    }
    return 0;
}

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

/* Slot for sh: where it is, or the empty one where it belongs. */
static size_t probe(const fc_run_sum *s, const fc_report_shape *sh)
{
    size_t mask = s->fc_n_slots - 1;
    size_t i = (size_t)hash_shape(sh) & mask;
    while (s->fc_slots[i] != 0 && !same_shape(&s->shapes[s->fc_slots[i] - 1], sh))
        i = (i + 1) & mask;
    return i;
}

/* Keeps the index at most half full. */
static int grow_slots(fc_run_sum *s)
{
    if (s->fc_n_slots != 0 && (s->n_shapes + 1) * 2 <= s->fc_n_slots)
        return 0;
    size_t n = s->fc_n_slots ? s->fc_n_slots * 2 : 1024;
    while ((s->n_shapes + 1) * 2 > n)
        n *= 2;
    size_t *slots = calloc(n, sizeof *slots);
    if (slots == NULL)
        return -1;
    free(s->fc_slots);
    s->fc_slots = slots;
    s->fc_n_slots = n;
    for (size_t i = 0; i < s->n_shapes; i++)
        s->fc_slots[probe(s, &s->shapes[i])] = i + 1;
    return 0;
}

static int add_shape(fc_run_sum *s, const fc_report_shape *sh)
{
    if (grow_slots(s) != 0)
        return -1;
    size_t slot = probe(s, sh);
    if (s->fc_slots[slot] != 0) {
        fc_report_shape *t = &s->shapes[s->fc_slots[slot] - 1];
        t->calls += sh->calls;
        t->failed_calls += sh->failed_calls;
        t->flops = fc_u128_sat_add(t->flops, sh->flops);
        return 0;
    }
    if (s->n_shapes == s->fc_cap_shapes) {
        size_t cap = s->fc_cap_shapes ? s->fc_cap_shapes * 2 : 256;
        fc_report_shape *arr = realloc(s->shapes, cap * sizeof *arr);
        if (arr == NULL)
            return -1;
        s->shapes = arr;
        s->fc_cap_shapes = cap;
    }
    s->shapes[s->n_shapes] = *sh;
    s->fc_slots[slot] = ++s->n_shapes;
    return 0;
}

int fc_run_sum_add(fc_run_sum *s, const fc_run_part *run)
{
    add_totals(s, run);
    s->n_runs++;
    if (add_groups(&s->by_api, &s->n_by_api, run->by_api, run->n_by_api) != 0 ||
        add_groups(&s->by_dtype, &s->n_by_dtype, run->by_dtype, run->n_by_dtype) != 0)
        return -1;
    for (size_t i = 0; i < run->n_shapes; i++)
        if (add_shape(s, &run->shapes[i]) != 0)
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

void fc_run_sum_finish(fc_run_sum *s)
{
    free(s->fc_slots);
    s->fc_slots = NULL;
    s->fc_n_slots = 0;
    if (s->n_shapes > 1)
        qsort(s->shapes, s->n_shapes, sizeof *s->shapes, larger_first);
}

void fc_run_sum_free(fc_run_sum *s)
{
    free(s->by_api);
    free(s->by_dtype);
    free(s->shapes);
    free(s->fc_slots);
    memset(s, 0, sizeof *s);
}
