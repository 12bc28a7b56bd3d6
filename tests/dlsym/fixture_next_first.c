/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_next_first.c - defines fc_next_probe (returns 1) and asks
 * dlsym(RTLD_NEXT) for the next definition, which is in its dependency
 * fixture_next_second (returns 2). RTLD_NEXT is relative to the caller:
 * a dlsym interposer that calls the real dlsym from its own code instead of
 * jumping to it would get another answer (NULL here). */
#include <dlfcn.h>

int fc_next_marker(void);

int fc_next_probe(void)
{
    return 1;
}

/* Not a tail call: dlsym must see this library as its caller, so the
 * answer goes through a volatile before it is returned. */
static void *volatile found;

void *fc_next_lookup(void)
{
    found = dlsym(RTLD_NEXT, "fc_next_probe");
    return found;
}

/* Keeps fixture_next_second a dependency under --as-needed. */
int fc_next_use_second(void)
{
    return fc_next_marker();
}
