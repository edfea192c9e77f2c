/* rt_text: (to be written) */
#include "rt_text.h"
typedef int rt_text_unused;
