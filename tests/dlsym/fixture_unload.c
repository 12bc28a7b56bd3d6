/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_unload.c - a library the pass-through test loads, looks a name
 * up in, and closes: it must then be gone, as it is without the shim. */
int fc_unload_probe(void)
{
    return 4;
}
