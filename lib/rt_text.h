/* rt_text: (to be written) */
