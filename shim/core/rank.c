/* SPDX-License-Identifier: Apache-2.0 */
/* rank.c - rank, local rank and world size from the launcher's variables
 * (analysis/launcher.c, the table `flopcount run` reads too), and the host
 * name. */
#include "rank.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

fc_rank_info fc_rank = {-1, -1, -1, "none", ""};

static const char *env(const char *name)
{
    return getenv(name);
}

void fc_rank_load(void)
{
    fc_launcher_rank l;
    fc_launcher_rank_from_env(env, &l);
    fc_rank.rank = l.rank;
    fc_rank.local_rank = l.local_rank;
    fc_rank.world_size = l.world_size;
    fc_rank.launcher = l.launcher;
    if (gethostname(fc_rank.hostname, sizeof fc_rank.hostname - 1) != 0)
        strcpy(fc_rank.hostname, "unknown");
}

int fc_rank_is_leader(void)
{
    return fc_rank.rank <= 0;
}
