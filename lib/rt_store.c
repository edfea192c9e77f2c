/* rt_store: (to be written) */
#include "rt_store.h"
typedef int rt_store_unused;
