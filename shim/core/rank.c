/* SPDX-License-Identifier: Apache-2.0 */
/* rank.c - rank, local rank and world size from the launcher's variables.
 * First launcher whose rank variable is set wins, in the order below: a
 * torchrun job started under srun sets both, and RANK is the one PyTorch uses. */
#include "rank.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"

fc_rank_info fc_rank = {-1, -1, -1, "none", ""};

static const struct {
    const char *launcher, *rank, *local, *size;
} launchers[] = {
    {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
    {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"pmi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
};

static long env_long(const char *name)
{
    uint64_t v;
    const char *s = getenv(name);
    if (s == NULL || fc_parse_u64(s, 1u << 30, &v) != 0)
        return -1;
    return (long)v;
}

void fc_rank_load(void)
{
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        long r = env_long(launchers[i].rank);
        if (r < 0)
            continue;
        fc_rank.rank = r;
        fc_rank.local_rank = env_long(launchers[i].local);
        fc_rank.world_size = env_long(launchers[i].size);
        fc_rank.launcher = launchers[i].launcher;
        break;
    }
    if (gethostname(fc_rank.hostname, sizeof fc_rank.hostname - 1) != 0)
        strcpy(fc_rank.hostname, "unknown");
}

int fc_rank_is_leader(void)
{
    return fc_rank.rank <= 0;
}
