/* SPDX-License-Identifier: Apache-2.0 */
/* registry.c - the table of kernels of interest (registry.h).
 *
 * Registration runs where the runtime runs it: in the constructors of
 * libraries being loaded (libtorch_cuda registers its kernels from its own
 * static initializers, possibly before this library's constructor), on
 * any thread, before main. So everything here is static storage, needs no
 * initialization, takes no lock and allocates nothing: a record is claimed
 * by an atomic add, a slot by a compare-and-swap of its key (keys are only
 * ever added; a dropped module's records are marked dead, their slots stay
 * and answer "not of interest"). A reader that sees a key whose value is
 * not written yet takes the kernel as not of interest for that one launch.
 * Names are matched against the family table (families.c); a name not of
 * interest costs that match and nothing else. */
#include "registry.h"

#include <string.h>

#include "core/diag.h"
#include "kernel_class.h"

fc_launch_slot fc_launch_slots[FC_LAUNCH_SLOTS];
fc_kernel fc_launch_kernels[FC_LAUNCH_KERNELS];

static uint32_t n_kernels; /* records claimed (atomic) */
static uint32_t n_keys;    /* slots taken (atomic) */
static uint64_t registrations, learned, not_kept, unregistered;
static int warned_full;

/* 1 when a slot's value may be replaced: a dead record's (its module was
 * unloaded and the pointer reused) or a learned "not of interest". */
static int replaceable(uint32_t v)
{
    return v == FC_LAUNCH_NOT_OF_INTEREST ||
           (v != 0 && v <= FC_LAUNCH_KERNELS &&
            __atomic_load_n(&fc_launch_kernels[v - 1].dead, __ATOMIC_ACQUIRE));
}

/* Puts key -> value; 1 when put (or the key was there already with a live
 * value, which is kept), 0 when the table is full. */
static int put(const void *key, uint32_t value)
{
    if (key == NULL)
        return 0;
    uint32_t i = fc_launch_slot_of(key);
    for (uint32_t probes = 0; probes < FC_LAUNCH_SLOTS; probes++) {
        const void *k = __atomic_load_n(&fc_launch_slots[i].key, __ATOMIC_ACQUIRE);
        if (k == key) {
            uint32_t v = __atomic_load_n(&fc_launch_slots[i].value, __ATOMIC_ACQUIRE);
            if (replaceable(v) && value != FC_LAUNCH_NOT_OF_INTEREST)
                __atomic_store_n(&fc_launch_slots[i].value, value, __ATOMIC_RELEASE);
            return 1;
        }
        if (k == NULL) {
            if (__atomic_add_fetch(&n_keys, 1, __ATOMIC_RELAXED) > FC_LAUNCH_SLOTS / 4 * 3) {
                __atomic_sub_fetch(&n_keys, 1, __ATOMIC_RELAXED);
                return 0;
            }
            const void *expect = NULL;
            if (__atomic_compare_exchange_n(&fc_launch_slots[i].key, &expect, key, 0,
                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&fc_launch_slots[i].value, value, __ATOMIC_RELEASE);
                return 1;
            }
            __atomic_sub_fetch(&n_keys, 1, __ATOMIC_RELAXED);
            if (expect == key)
                return 1; /* another thread put the same key */
        }
        i = (i + 1) & (FC_LAUNCH_SLOTS - 1);
    }
    return 0;
}

static void full(void)
{
    __atomic_fetch_add(&not_kept, 1, __ATOMIC_RELAXED);
    fc_warn_once(&warned_full,
                 "more than %u kernels of interest (or %u kernel identities) registered: "
                 "launches of later ones are not decoded (the report's launch section "
                 "counts them)",
                 FC_LAUNCH_KERNELS, FC_LAUNCH_SLOTS / 4 * 3);
}

/* A record for (name, family); its index + 1, or 0 when full. */
static uint32_t new_record(const void *module, const void *stub, const char *name, int family)
{
    uint32_t n = __atomic_fetch_add(&n_kernels, 1, __ATOMIC_RELAXED);
    if (n >= FC_LAUNCH_KERNELS) {
        __atomic_store_n(&n_kernels, FC_LAUNCH_KERNELS, __ATOMIC_RELAXED);
        full();
        return 0;
    }
    fc_kernel *k = &fc_launch_kernels[n];
    k->name = name;
    k->module = module;
    k->stub = stub;
    k->family = (uint8_t)family;
    k->kclass = (uint8_t)fc_kfamily_class(family, name);
    return n + 1;
}

void fc_launch_register(const void *module, const void *stub, const char *name)
{
    __atomic_fetch_add(&registrations, 1, __ATOMIC_RELAXED);
    if (stub == NULL || name == NULL)
        return;
    int f = fc_kfamily_of_name(name);
    int a = fc_kfamily_action(f);
    if (a == FC_KA_NONE || a == FC_KA_NOFLOP)
        return;
    uint32_t v = fc_launch_find(stub);
    if (v != 0 && v != FC_LAUNCH_NOT_OF_INTEREST && !fc_launch_kernels[v - 1].dead)
        return; /* registered twice (the same module's callback run again) */
    uint32_t r = new_record(module, stub, name, f);
    if (r != 0 && !put(stub, r))
        full();
}

void fc_launch_alias(const void *handle, const void *stub)
{
    if (handle == NULL || handle == stub)
        return;
    uint32_t v = fc_launch_find(stub);
    if (v == 0 || v == FC_LAUNCH_NOT_OF_INTEREST)
        return;
    if (!put(handle, v))
        full();
}

void fc_launch_unregister_module(const void *module)
{
    if (module == NULL)
        return;
    uint32_t n = __atomic_load_n(&n_kernels, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < FC_LAUNCH_KERNELS; i++)
        if (fc_launch_kernels[i].module == module && !fc_launch_kernels[i].dead) {
            __atomic_store_n(&fc_launch_kernels[i].dead, 1, __ATOMIC_RELEASE);
            __atomic_fetch_add(&unregistered, 1, __ATOMIC_RELAXED);
        }
}

uint32_t fc_launch_learn(const void *key, const char *name)
{
    if (key == NULL || name == NULL)
        return 0;
    int f = fc_kfamily_of_name(name);
    int a = fc_kfamily_action(f);
    if (a == FC_KA_NONE || a == FC_KA_NOFLOP) {
        put(key, FC_LAUNCH_NOT_OF_INTEREST); /* full: classified again next time */
        return 0;
    }
    /* CUPTI's symbolName lives as long as the kernel's module is loaded,
     * as a registered name does */
    uint32_t r = new_record(NULL, NULL, name, f);
    if (r == 0)
        return 0;
    __atomic_fetch_add(&learned, 1, __ATOMIC_RELAXED);
    if (!put(key, r))
        full();
    return r;
}

void fc_launch_reg_stats_get(fc_launch_reg_stats *out)
{
    memset(out, 0, sizeof *out);
    out->registrations = __atomic_load_n(&registrations, __ATOMIC_RELAXED);
    uint32_t n = __atomic_load_n(&n_kernels, __ATOMIC_RELAXED);
    out->of_interest = n < FC_LAUNCH_KERNELS ? n : FC_LAUNCH_KERNELS;
    out->learned = __atomic_load_n(&learned, __ATOMIC_RELAXED);
    out->not_kept = __atomic_load_n(&not_kept, __ATOMIC_RELAXED);
    out->unregistered = __atomic_load_n(&unregistered, __ATOMIC_RELAXED);
}
