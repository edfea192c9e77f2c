/* rt_trial: (being written) */
#include "rt_trial.h"
typedef int rt_trial_unused;
