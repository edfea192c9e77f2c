/* rt_store: (to be written) */
