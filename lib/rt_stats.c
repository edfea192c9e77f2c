/* rt_stats: (being written) */
#include "rt_stats.h"
typedef int rt_stats_unused;
