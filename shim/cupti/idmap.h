/* SPDX-License-Identifier: Apache-2.0 */
/* idmap.h - a fixed-size map from nonzero 64-bit ids (graph, exec, node and
 * capture ids) to 32-bit values, by open addressing over storage the
 * caller owns (static arrays, or mapped when first needed: a map whose
 * slot is still NULL holds nothing and takes nothing). Not thread-safe:
 * the callers hold their own lock. */
#ifndef FC_IDMAP_H
#define FC_IDMAP_H

#include <stdint.h>

typedef struct fc_idmap_slot {
    uint64_t key; /* 0: empty */
    uint32_t value;
} fc_idmap_slot;

typedef struct fc_idmap {
    fc_idmap_slot *slot;
    uint32_t cap;  /* a power of two */
    uint32_t used; /* keys held */
} fc_idmap;

/* The value of key, or 0 when absent (values are never 0 by convention). */
uint32_t fc_idmap_get(const fc_idmap *m, uint64_t key);
/* Sets key to value (value != 0); -1 when the map is full (kept at 3/4). */
int fc_idmap_put(fc_idmap *m, uint64_t key, uint32_t value);
void fc_idmap_del(fc_idmap *m, uint64_t key);
void fc_idmap_clear(fc_idmap *m);

#endif
