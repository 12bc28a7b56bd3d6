/* SPDX-License-Identifier: Apache-2.0 */
/* guard.c - the definition of the per-thread recursion depth (guard.h). */
#include "guard.h"

FC_TLS int fc_tls_depth;
