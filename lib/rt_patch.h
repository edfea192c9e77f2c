/* rt_patch: (to be written) */
