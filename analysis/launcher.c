/* SPDX-License-Identifier: Apache-2.0 */
/* launcher.c - rank, local rank and world size from the launcher's
 * variables (launcher.h). */
#include "launcher.h"

#include <stddef.h>
#include <stdint.h>

#include "parse.h"

static const struct {
    const char *launcher, *rank, *local, *size;
} launchers[] = {
    {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
    {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"pmi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
};

static long env_long(fc_getenv_fn get, const char *name)
{
    uint64_t v;
    const char *s = get(name);
    if (s == NULL || fc_parse_u64(s, 1u << 30, &v) != 0)
        return -1;
    return (long)v;
}

void fc_launcher_rank_from_env(fc_getenv_fn get, fc_launcher_rank *out)
{
    out->rank = out->local_rank = out->world_size = -1;
    out->launcher = "none";
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        long r = env_long(get, launchers[i].rank);
        if (r < 0)
            continue;
        out->rank = r;
        out->local_rank = env_long(get, launchers[i].local);
        out->world_size = env_long(get, launchers[i].size);
        out->launcher = launchers[i].launcher;
        return;
    }
}
