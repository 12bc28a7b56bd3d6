/* SPDX-License-Identifier: Apache-2.0 */
/* idmap.c - open addressing with linear probing (idmap.h). Deleting shifts
 * the entries after the hole back (Knuth's algorithm R), so no tombstones
 * pile up over a long run of graphs made and destroyed. A map 3/4 full
 * refuses new keys; its users count what they could not keep. */
#include "idmap.h"

#include <string.h>

static uint32_t home(const fc_idmap *m, uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (uint32_t)key & (m->cap - 1);
}

/* The slot holding key, or the empty slot where its probe ends. */
static uint32_t find(const fc_idmap *m, uint64_t key)
{
    uint32_t i = home(m, key);
    while (m->slot[i].key != 0 && m->slot[i].key != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

uint32_t fc_idmap_get(const fc_idmap *m, uint64_t key)
{
    if (key == 0 || m->slot == NULL)
        return 0;
    uint32_t i = find(m, key);
    return m->slot[i].key == key ? m->slot[i].value : 0;
}

int fc_idmap_put(fc_idmap *m, uint64_t key, uint32_t value)
{
    if (key == 0 || m->slot == NULL)
        return -1;
    uint32_t i = find(m, key);
    if (m->slot[i].key == 0) {
        if (m->used + 1 > m->cap / 4 * 3)
            return -1;
        m->used++;
        m->slot[i].key = key;
    }
    m->slot[i].value = value;
    return 0;
}

void fc_idmap_del(fc_idmap *m, uint64_t key)
{
    if (key == 0 || m->slot == NULL)
        return;
    uint32_t i = find(m, key), mask = m->cap - 1;
    if (m->slot[i].key != key)
        return;
    for (uint32_t j = (i + 1) & mask; m->slot[j].key != 0; j = (j + 1) & mask) {
        uint32_t k = home(m, m->slot[j].key);
        /* the entry at j stays when its home lies cyclically in (i, j] */
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            m->slot[i] = m->slot[j];
            i = j;
        }
    }
    m->slot[i].key = 0;
    m->used--;
}

void fc_idmap_clear(fc_idmap *m)
{
    if (m->slot != NULL)
        memset(m->slot, 0, sizeof *m->slot * m->cap);
    m->used = 0;
}
