/* SPDX-License-Identifier: Apache-2.0 */
/* copies.c - the copy slots of each library family and the lazy lookup of
 * each copy's functions (copies.h). */
#include "copies.h"

#include <errno.h>

fc_copy fc_copies[FC_LIB_COUNT][FC_COPIES];
FC_TLS fc_copy *fc_tls_copy;

void *fc_copy_resolve(fc_copy *cp, unsigned sym, const char *name)
{
    void *fn = __atomic_load_n(&cp->real[sym], __ATOMIC_ACQUIRE);
    if (fn == FC_COPY_ABSENT)
        return NULL;
    if (fn != NULL)
        return fn;
    if (fc_copy_index(cp) == 0) {
        /* Missing now, maybe loaded later: asked again next time. */
        fn = fc_resolve(fc_copy_lib(cp), name);
        if (fn != NULL)
            __atomic_store_n(&cp->real[sym], fn, __ATOMIC_RELEASE);
        return fn;
    }
    int saved = errno;
    const void *base = __atomic_load_n(&cp->base, __ATOMIC_ACQUIRE);
    fn = base != NULL ? fc_resolve_in_object(base, name) : NULL;
    void *expect = NULL, *store = fn != NULL ? fn : FC_COPY_ABSENT;
    /* Racing threads find the same answer; the first one stays. */
    if (!__atomic_compare_exchange_n(&cp->real[sym], &expect, store, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        fn = expect == FC_COPY_ABSENT ? NULL : expect;
    errno = saved;
    return fn;
}

fc_copy *fc_copy_claim(int lib, const void *base)
{
    if (lib < 0 || lib >= FC_LIB_COUNT || base == NULL)
        return NULL;
    for (unsigned i = 1; i < FC_COPIES; i++) {
        fc_copy *cp = &fc_copies[lib][i];
        const void *have = __atomic_load_n(&cp->base, __ATOMIC_ACQUIRE);
        /* a failed exchange leaves in have what the slot now holds */
        if (have == NULL && __atomic_compare_exchange_n(&cp->base, &have, base, 0,
                                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return cp;
        if (have == base)
            return cp;
    }
    return NULL;
}

int fc_copy_bind(fc_copy *cp, unsigned sym, void *fn)
{
    void *expect = NULL;
    if (__atomic_compare_exchange_n(&cp->real[sym], &expect, fn, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return 1;
    return expect == fn;
}
