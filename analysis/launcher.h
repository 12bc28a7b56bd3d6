/* SPDX-License-Identifier: Apache-2.0 */
/* launcher.h - which rank of a distributed job a process is, from its
 * launcher's environment variables (torchrun, Slurm, Open MPI, MPICH/PMI).
 * The first launcher whose rank variable is set wins, in the order of the
 * table: a torchrun job started under srun sets both, and RANK is the one
 * PyTorch uses. Pure: the caller passes its own getenv. */
#ifndef FC_LAUNCHER_H
#define FC_LAUNCHER_H

typedef struct fc_launcher_rank {
    long rank, local_rank, world_size; /* -1 when the launcher did not say */
    const char *launcher;              /* "torchrun", "slurm", "openmpi", "pmi", "none" */
} fc_launcher_rank;

typedef const char *(*fc_getenv_fn)(const char *name);

void fc_launcher_rank_from_env(fc_getenv_fn get, fc_launcher_rank *out);

#endif
