/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_next_second.c - the next definition of fc_next_probe after
 * fixture_next_first (see there). */
int fc_next_probe(void)
{
    return 2;
}

int fc_next_marker(void)
{
    return 0;
}
