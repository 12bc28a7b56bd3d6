/* SPDX-License-Identifier: Apache-2.0 */
/* lazymem.c - mapping and clearing the shim's tables (lazymem.h). */
#include "lazymem.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_round(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (bytes + page - 1) / page * page;
}

void *fc_mem_map(size_t bytes)
{
    int saved = errno;
    void *p = mmap(NULL, page_round(bytes), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        errno = saved;
        return NULL;
    }
#ifdef MADV_NOHUGEPAGE
    /* where transparent huge pages are "always", one write into a hashed
     * table would make 2 MiB of it resident */
    madvise(p, page_round(bytes), MADV_NOHUGEPAGE);
#endif
    errno = saved;
    return p;
}

void fc_mem_clear(void *p, size_t bytes)
{
    if (p == NULL || bytes == 0)
        return;
    int saved = errno;
    size_t whole = page_round(bytes);
    /* private anonymous pages read back as zeros after MADV_DONTNEED */
    if (madvise(p, whole, MADV_DONTNEED) != 0)
        memset(p, 0, bytes);
    errno = saved;
}

void *fc_mem_map_once(void *_Atomic *slot, size_t bytes)
{
    void *p = atomic_load_explicit(slot, memory_order_acquire);
    if (p != NULL)
        return p;
    void *mine = fc_mem_map(bytes);
    if (mine == NULL)
        return NULL;
    void *expect = NULL;
    if (atomic_compare_exchange_strong_explicit(slot, &expect, mine, memory_order_acq_rel,
                                                memory_order_acquire))
        return mine;
    int saved = errno;
    munmap(mine, page_round(bytes)); /* another thread mapped it first */
    errno = saved;
    return expect;
}
