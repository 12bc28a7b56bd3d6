/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_scope_dep.c - the dependency of fixture_scope_top that defines
 * fc_scope_probe (returns 3). */
int fc_scope_probe(void)
{
    return 3;
}
