// SPDX-License-Identifier: Apache-2.0
// The CPU executor of the kernels: calls the csrc/kern/ stages for one world.
#include "kern/prelude_c.h"

#include "kern/kinematics.h"

void px_kinematics(const pxModel* m, pxData* d) {
  pxk_kinematics(m, d);
}
