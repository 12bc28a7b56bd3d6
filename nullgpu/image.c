/* SPDX-License-Identifier: Apache-2.0 */
/* image.c - reading what the null GPU needs from a module image: the size of
 * a global (the cubin's symbol table) and a kernel's parameter layout (its
 * .nv.info section). Images are fatbins, cubins (ELF) or PTX text. */
#include "nullgpu.h"

size_t ng_image_global_size(const void *image, const char *name)
{
    (void)image;
    (void)name;
    return 0;
}

int ng_image_params(const void *image, const char *name, uint32_t **offsets, uint32_t **sizes)
{
    (void)image;
    (void)name;
    *offsets = NULL;
    *sizes = NULL;
    return -1;
}
