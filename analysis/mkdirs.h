/* SPDX-License-Identifier: Apache-2.0 */
/* mkdirs.h - `mkdir -p` (mkdirs.c), for the directories a user names for
 * output (--prometheus, --tensorboard, FLOPCOUNT_TENSORBOARD). */
#ifndef FC_MKDIRS_H
#define FC_MKDIRS_H

#include <stddef.h>

/* Makes path and every missing directory above it (mode 0777, less the
 * umask). 0 when path is a directory afterwards; -1 with errno set
 * (ENOTDIR when it, or a component, is something else) and `where` (size
 * bytes) holding the part of path that could not be made. No allocation. */
int fc_mkdirs(const char *path, char *where, size_t size);

#endif
