/* SPDX-License-Identifier: Apache-2.0 */
/* sigset.h - a set of shape signatures with the position each was first
 * seen at, for the phase labeller (phase.c): open addressing over 4,096
 * slots, a probe of at most 32, emptied in O(1) by a generation tag. A
 * signature whose probe finds no free slot is not added (sig_has then
 * answers no). */
#ifndef FC_DETECT_SIGSET_H
#define FC_DETECT_SIGSET_H

#include <stdint.h>
#include <string.h>

#define SIG_CAP (1u << 12)

typedef struct sigset {
    uint32_t sig[SIG_CAP], gen_of[SIG_CAP], pos[SIG_CAP], gen;
} sigset;

/* Slot of s in t, or -1. */
static inline int64_t sig_find(const sigset *t, uint32_t s)
{
    for (uint32_t i = s, n = 0; n < 32; n++, i++) {
        uint32_t j = i & (SIG_CAP - 1);
        if (t->gen_of[j] != t->gen)
            return -1;
        if (t->sig[j] == s)
            return j;
    }
    return -1;
}

static inline int sig_has(const sigset *t, uint32_t s)
{
    return sig_find(t, s) >= 0;
}

/* Adds s (first seen at pos) unless present; 1 when it was added. */
static inline int sig_add(sigset *t, uint32_t s, uint32_t pos)
{
    for (uint32_t i = s, n = 0; n < 32; n++, i++) {
        uint32_t j = i & (SIG_CAP - 1);
        if (t->gen_of[j] != t->gen) {
            t->gen_of[j] = t->gen;
            t->sig[j] = s;
            t->pos[j] = pos;
            return 1;
        }
        if (t->sig[j] == s)
            return 0;
    }
    return 0;
}

static inline void sig_clear(sigset *t)
{
    if (++t->gen == 0) {
        memset(t, 0, sizeof *t);
        t->gen = 1;
    }
}

#endif
