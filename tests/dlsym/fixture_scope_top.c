/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_scope_top.c - loaded with dlopen(RTLD_LOCAL), asks
 * dlsym(RTLD_DEFAULT) for fc_scope_probe, which only its own dependency
 * fixture_scope_dep defines. RTLD_DEFAULT searches the caller's scope,
 * which includes that dependency; from the program (or from a dlsym
 * interposer calling the real dlsym from its own code) it is not found. */
#include <dlfcn.h>

int fc_scope_probe(void);

/* Not a tail call: dlsym must see this library as its caller, so the
 * answer goes through a volatile before it is returned. */
static void *volatile found;

void *fc_scope_lookup(void)
{
    found = dlsym(RTLD_DEFAULT, "fc_scope_probe");
    return found;
}

/* Keeps fixture_scope_dep a dependency under --as-needed. */
int fc_scope_direct(void)
{
    return fc_scope_probe();
}
