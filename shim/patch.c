// SPDX-License-Identifier: MIT
/* Not written yet (issue 8): nothing is patched. */
#include "patch.h"

void pks_patch_apply(void)
{
}
