/* SPDX-License-Identifier: Apache-2.0 */
/* launch_hooks.h - what the dlsym hook asks of the launch hooks
 * (launch.c). */
#ifndef FC_LAUNCH_HOOKS_H
#define FC_LAUNCH_HOOKS_H

/* The answer to a lookup of name on a library handle that found found:
 * the launch hook when name is a launch entry point and found is the real
 * function the hook forwards to, else found. */
void *fc_launch_dlsym_answer(const char *name, void *found);

#endif
