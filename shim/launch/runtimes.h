/* SPDX-License-Identifier: Apache-2.0 */
/* runtimes.h - which CUDA runtime the process's device code registers
 * through (runtimes.c): the shared libcudart the launch hooks interpose,
 * or a runtime linked statically into an object (nvcc's default,
 * -cudart static), whose registrations and launches the hooks never see.
 * For the report's launch section. */
#ifndef FC_LAUNCH_RUNTIMES_H
#define FC_LAUNCH_RUNTIMES_H

#include <stddef.h>
#include <stdint.h>

/* __cudaRegisterFatBinary seen by the hooks: the wrapper's address (it lies
 * in the registering object's .nvFatBinSegment). No allocation, no lock. */
void fc_launch_note_fatbin(const void *wrapper);

#define FC_RT_OBJECTS 16
typedef struct fc_runtimes_view {
    char shared[512];          /* the libcudart loaded ("" none) */
    int driver_loaded;         /* libcuda.so.1 is loaded */
    uint64_t fatbins;          /* __cudaRegisterFatBinary calls seen */
    int wrappers_complete;     /* every one of them was kept (else: no object can be said static) */
    /* objects holding device code (.nvFatBinSegment) of which no fat binary
     * was registered through the hooks: a statically linked runtime (the
     * CUDA libraries' own, libcu* / libnv* / libnccl*, are left out) */
    size_t n_static;
    char static_objects[FC_RT_OBJECTS][256];
    size_t more_static;
} fc_runtimes_view;

/* Fills v: reads the loaded objects' section headers from their files
 * (cached until the set of loaded objects changes). */
void fc_runtimes_get(fc_runtimes_view *v);

#endif
