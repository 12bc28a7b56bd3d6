/* SPDX-License-Identifier: Apache-2.0 */
/* spans.c - interval union and proportional sharing (spans.h). */
#include "spans.h"

uint64_t fc_span_overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
    uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

/* Shell sort by start: no allocation, no recursion. */
static void sort_by_start(fc_span *v, size_t n)
{
    for (size_t gap = n / 2; gap > 0; gap /= 2)
        for (size_t i = gap; i < n; i++) {
            fc_span t = v[i];
            size_t j = i;
            for (; j >= gap && v[j - gap].start > t.start; j -= gap)
                v[j] = v[j - gap];
            v[j] = t;
        }
}

uint64_t fc_spans_union(fc_span *v, size_t n)
{
    sort_by_start(v, n);
    uint64_t total = 0, cur_s = 0, cur_e = 0;
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].end <= v[i].start)
            continue;
        if (open && v[i].start <= cur_e) {
            if (v[i].end > cur_e)
                cur_e = v[i].end;
            continue;
        }
        if (open)
            total += cur_e - cur_s;
        cur_s = v[i].start;
        cur_e = v[i].end;
        open = 1;
    }
    if (open)
        total += cur_e - cur_s;
    return total;
}

double fc_spans_apportion(const fc_span *it, size_t n, uint64_t s, uint64_t e, double v,
                          double *out, int *touched, int *whole)
{
    *touched = 0;
    *whole = 0;
    if (e <= s) {
        for (size_t i = 0; i < n; i++)
            if (s >= it[i].start && s < it[i].end) {
                out[i] += v;
                *touched = 1;
                *whole = 1;
                return 0;
            }
        return v;
    }
    double len = (double)(e - s), given = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t ov = fc_span_overlap(s, e, it[i].start, it[i].end);
        if (ov == 0)
            continue;
        double part = ov == e - s ? v : v * ((double)ov / len);
        out[i] += part;
        given += part;
        (*touched)++;
        if (ov == e - s)
            *whole = 1;
    }
    return *whole ? 0 : v - given;
}
