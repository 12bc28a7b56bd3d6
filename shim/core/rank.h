/* SPDX-License-Identifier: Apache-2.0 */
/* rank.h - which rank of a distributed job this process is, from the
 * launcher's environment (torchrun, Slurm, Open MPI, MPICH/PMI). */
#ifndef FC_RANK_H
#define FC_RANK_H

typedef struct fc_rank_info {
    long rank, local_rank, world_size; /* -1 when the launcher did not say */
    const char *launcher;              /* "torchrun", "slurm", "openmpi", "pmi", "none" */
    char hostname[256];
} fc_rank_info;

extern fc_rank_info fc_rank;
void fc_rank_load(void);
/* 1 when this process should print live lines (rank 0, or no rank). */
int fc_rank_is_leader(void);

#endif
