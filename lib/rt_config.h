/* rt_config: the repository's one config file (.retrial.yml), read by
 * libyaml, turned into a tool's options. Values go in front of the
 * command line's, so the command line wins (retrial(7), CONFIGURATION). */
#ifndef RT_CONFIG_H
#define RT_CONFIG_H

#include <getopt.h>

/* Put inside a tool's struct option array (it is handled by
 * rt_config_apply before getopt_long sees it). */
#define RT_CONFIG_LONGOPT { "print-config", no_argument, NULL, 998 }

/* Find the config file ($RETRIAL_CONFIG; set and empty means none; else
 * the first .retrial.yml from the working directory up to the repository's
 * root), and put "--OPTION=VALUE" after argv[0] for each value this tool
 * (lo, its getopt_long table) takes: top-level keys through the shared
 * table, then the tool's own section ("rt-collect:"). --print-config
 * prints every value this run gets, with where it came from, and exits 0.
 * A malformed file or an unknown key exits 2 with FILE:LINE. */
void rt_config_apply(const char *tool, const struct option *lo,
    int *argc, char ***argv);

/* How many arguments rt_config_apply put after argv[0] (each one word,
 * "--OPTION=VALUE"): an option getopt_long returns while optind is at most
 * this + 1 came from the file, not the command line. A tool that refuses
 * an option by subcommand refuses the command line's only: a file's value
 * never fails a subcommand that does not take it. */
int rt_config_args(void);

#endif
