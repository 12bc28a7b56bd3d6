/* SPDX-License-Identifier: Apache-2.0 */
/* families.c - a kernel name's family (families.h), in one pass over the
 * name: libtorch_cuda registers tens of thousands of kernels when it is
 * loaded, each name a few hundred characters, so a name not of interest
 * must cost about a nanosecond a character and nothing else.
 *
 * Each SUB pattern is a length-prefixed source name ("16flash_fwd_kernelI")
 * or the start of one ("fmha_cutlassF_"): its anchor is the part after the
 * digits. An identifier in a mangled name starts right after its length
 * (or at the start of an unmangled name), so the pass looks only there:
 * at an identifier whose first character can start an anchor (a fixed
 * set, checked by the unit test against the table), for the anchors
 * starting with it, and checks the digits before; of all matches the
 * first in table order wins. PREFIX patterns are looked at only when no
 * SUB pattern matched. */
#include "families.h"

#include <stddef.h>
#include <string.h>

#include "kernel_class.h"

typedef struct fam {
    uint8_t match, action;
    const char *pattern, *label;
} fam;

static const fam table[FC_KF_COUNT] = {[FC_KF_NONE] = {0, FC_KA_NONE, "", "none"},
#define FC_KF_ROW(id, m, p, a, l) [FC_KF_##id] = {m, a, p, l},
                                       FC_LAUNCH_FAMILY_LIST(FC_KF_ROW)
#undef FC_KF_ROW
};

/* Characters an anchor starts with (the first non-digit of every SUB
 * pattern); tests/launch's unit test checks the table against it. */
static const uint8_t anchor_start[256] = {
    ['f'] = 1, ['F'] = 1, ['c'] = 1, ['d'] = 1, ['m'] = 1, ['l'] = 1, ['a'] = 1, ['G'] = 1};

/* The length of pattern's leading digits (its length prefix). */
static size_t digits_of(const char *pattern)
{
    size_t d = 0;
    while (pattern[d] >= '0' && pattern[d] <= '9')
        d++;
    return d;
}

/* Per SUB family: its digits and anchor; per anchor start character, the
 * families whose anchor starts with it, in table order. Built once, at the
 * first name (possibly inside another library's constructor); a thread
 * that finds it being built by another takes the slow walk meanwhile. */
#define PER_CHAR 16
static struct {
    int state; /* 0 not built, 1 building, 2 ready (atomic) */
    uint8_t digits[FC_KF_COUNT], alen[FC_KF_COUNT];
    char second[FC_KF_COUNT];     /* the anchor's second character */
    char last_digit[FC_KF_COUNT]; /* the digit just before the anchor, '\0' none */
    uint8_t n[256];
    uint8_t fam[256][PER_CHAR];
} idx;

static void build_index(void)
{
    int expect = 0;
    if (!__atomic_compare_exchange_n(&idx.state, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    for (int f = 1; f < FC_KF_COUNT; f++) {
        if (table[f].match != FC_KM_SUB)
            continue;
        const char *a = table[f].pattern;
        uint8_t d = (uint8_t)digits_of(a);
        idx.digits[f] = d;
        idx.alen[f] = (uint8_t)strlen(a + d);
        idx.second[f] = a[d + 1];
        idx.last_digit[f] = d > 0 ? a[d - 1] : '\0';
        uint8_t c = (uint8_t)a[d];
        if (idx.n[c] < PER_CHAR)
            idx.fam[c][idx.n[c]++] = (uint8_t)f;
    }
    __atomic_store_n(&idx.state, 2, __ATOMIC_RELEASE);
}

int fc_kfamily_anchor_ok(void);
int fc_kfamily_anchor_ok(void)
{
    build_index();
    for (int f = 1; f < FC_KF_COUNT; f++) {
        if (table[f].match != FC_KM_SUB)
            continue;
        uint8_t c = (uint8_t)table[f].pattern[idx.digits[f]];
        int listed = 0;
        for (int i = 0; i < idx.n[c]; i++)
            listed |= idx.fam[c][i] == f;
        if (!anchor_start[c] || !listed)
            return 0;
    }
    return 1;
}

/* 1 when family f's SUB pattern matches with its anchor at p (the name
 * begins at start). Two inline comparisons reject almost every
 * candidate: the anchor's second character, the digit before it. */
static inline int matches(int f, const char *start, const char *p)
{
    if (p[1] != idx.second[f] || (idx.last_digit[f] && (p == start || p[-1] != idx.last_digit[f])))
        return 0;
    const char *pat = table[f].pattern;
    size_t d = idx.digits[f];
    if (d > 0 && ((size_t)(p - start) < d || memcmp(p - d, pat, d) != 0))
        return 0;
    return strncmp(p, pat + d, idx.alen[f]) == 0;
}

/* The first family in table order (below best) whose SUB pattern matches
 * with its anchor at p. */
static int match_at(const char *start, const char *p, int best)
{
    uint8_t c = (uint8_t)*p;
    for (int i = 0; i < idx.n[c]; i++) {
        int f = idx.fam[c][i];
        if (f >= best)
            break;
        if (matches(f, start, p))
            return f;
    }
    return best;
}

/* Without the index (being built by another thread): every family. */
static int match_slow(const char *name)
{
    for (int f = 1; f < FC_KF_COUNT; f++) {
        if (table[f].match != FC_KM_SUB)
            continue;
        const char *a = table[f].pattern;
        size_t d = digits_of(a);
        for (const char *p = strstr(name, a + d); p != NULL; p = strstr(p + 1, a + d))
            if ((size_t)(p - name) >= d && memcmp(p - d, a, d) == 0)
                return f;
    }
    return FC_KF_COUNT;
}

static int excluded(int f, const char *name)
{
    if (f == FC_KF_OPTIM_MTA) /* _foreach_copy_ / _foreach_zero_: not an optimizer's */
        return strstr(name, "11CopyFunctor") != NULL || strstr(name, "11ZeroFunctor") != NULL;
    return 0;
}

int fc_kfamily_of_name(const char *name)
{
    if (name == NULL || *name == '\0')
        return FC_KF_NONE;
    if (__atomic_load_n(&idx.state, __ATOMIC_ACQUIRE) != 2)
        build_index();
    int best = FC_KF_COUNT;
    if (__atomic_load_n(&idx.state, __ATOMIC_ACQUIRE) != 2) {
        best = match_slow(name);
    } else {
        /* anchors begin identifiers: at the start of the name (an extern
         * "C" kernel) or right after a length prefix */
        if (anchor_start[(uint8_t)*name])
            best = match_at(name, name, best);
        for (const char *p = name; *p; p++) {
            if ((unsigned)(*p - '0') > 9u)
                continue;
            while ((unsigned)(p[1] - '0') <= 9u)
                p++;
            if (anchor_start[(uint8_t)p[1]])
                best = match_at(name, p + 1, best);
        }
    }
    if (best < FC_KF_COUNT)
        return excluded(best, name) ? FC_KF_NONE : best;
    for (int f = 1; f < FC_KF_COUNT; f++)
        if (table[f].match == FC_KM_PREFIX &&
            strncmp(name, table[f].pattern, strlen(table[f].pattern)) == 0)
            return f;
    return FC_KF_NONE;
}

int fc_kfamily_action(int family)
{
    return family > 0 && family < FC_KF_COUNT ? table[family].action : FC_KA_NONE;
}

const char *fc_kfamily_label(int family)
{
    return family > 0 && family < FC_KF_COUNT ? table[family].label : "none";
}

int fc_kfamily_class(int family, const char *name)
{
    switch (family) {
    case FC_KF_DEEPGEMM:
    case FC_KF_CUTLASS_GROUPED:
    case FC_KF_CUTLASS2_GROUPED:
    case FC_KF_CUTLASS_NS:
    case FC_KF_CUTLASS_C:
    case FC_KF_TRITON_MOE:
    case FC_KF_TRITON_FBGEMM_GROUPED:
    case FC_KF_TRITON_MG_GROUPED:
        return FC_K_GEMM_LIKE;
    case FC_KF_TRITON_TEM:
        /* flex_attention and other attention templates, else mm / bmm */
        return fc_kclass_of_name(name) == FC_K_ATTENTION ? FC_K_ATTENTION : FC_K_GEMM_LIKE;
    case FC_KF_OPTIM_MTA:
    case FC_KF_OPTIM_NORM:
    case FC_KF_OPTIM_SCALE:
        return FC_K_OTHER;
    default:
        return FC_K_ATTENTION;
    }
}
