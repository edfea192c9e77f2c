/* rt_patch: (to be written) */
#include "rt_patch.h"
typedef int rt_patch_unused;
