/* SPDX-License-Identifier: Apache-2.0 */
/* early_main.c - checks that the GEMM in early_lib's constructor ran right. */
#include <stdio.h>

extern float early_result;

int main(void)
{
    if (early_result != 3.0f) {
        fprintf(stderr, "early_main: wrong result %g\n", early_result);
        return 1;
    }
    return 0;
}
