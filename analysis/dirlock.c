/* SPDX-License-Identifier: Apache-2.0 */
/* dirlock.c - flock(2) on a file's directory (dirlock.h). */
#include "dirlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

int fc_dirlock_take(const char *path, int wait_ms)
{
    int saved = errno;
    char dir[4352];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = '\0';
    else if (slash != NULL)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int waited = 0; fd >= 0; waited++) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            break;
        if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= wait_ms) {
            close(fd);
            fd = -1;
            break;
        }
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    errno = saved;
    return fd;
}

void fc_dirlock_release(int fd)
{
    if (fd >= 0) {
        int saved = errno;
        close(fd); /* the only descriptor: closing it releases the lock */
        errno = saved;
    }
}
