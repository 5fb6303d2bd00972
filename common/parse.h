/*
 * parse.h: checked parsing of numeric command-line arguments.
 *
 * These are for option parsing in main/cmd_* only: on bad input they print
 * "prog: option 'OPT' ..." to stderr and exit 2 (bad usage).
 */
#ifndef COMMON_PARSE_H
#define COMMON_PARSE_H

#include <stdint.h>

/* Parses arg as a decimal unsigned integer in [min, max] for option opt. */
uint64_t parse_uint_opt(const char *opt, const char *arg, uint64_t min, uint64_t max);
/* Parses arg as a non-negative decimal number (fractions allowed, at most
 * max) for option opt. */
double parse_decimal_opt(const char *opt, const char *arg, double max);
/* Parses arg as a non-negative decimal number of seconds (fractions allowed,
 * at most max) for option opt, and returns nanoseconds. */
uint64_t parse_seconds_opt(const char *opt, const char *arg, double max);

#endif
