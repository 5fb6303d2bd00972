/*
 * parse.h: checked parsing of numeric command-line arguments.
 *
 * The *_opt functions are for option parsing in main/cmd_* only: on bad
 * input they print "prog: option 'OPT' ..." to stderr and exit 2 (bad
 * usage). parse_uint() and parse_decimal() are the same checks, for a
 * parser that reports by itself (opt.h).
 */
#ifndef COMMON_PARSE_H
#define COMMON_PARSE_H

#include <stdint.h>

/* The size of the why of parse_uint() and parse_decimal(). */
#define PARSE_WHY_MAX 96

/* Parses arg as a decimal unsigned integer in [min, max]. Returns 0 and
 * sets *v, or -1 with the reason, said of arg ("is not a number"), in why
 * (PARSE_WHY_MAX bytes). */
int parse_uint(const char *arg, uint64_t min, uint64_t max, uint64_t *v, char *why);
/* Parses arg as a non-negative decimal number (fractions allowed, at most
 * max), as parse_uint() reports. */
int parse_decimal(const char *arg, double max, double *v, char *why);

/* Returns the value of the hexadecimal digit c (either case), or -1. */
int parse_hex_digit(int c);

/* Parses arg as a decimal unsigned integer in [min, max] for option opt. */
uint64_t parse_uint_opt(const char *opt, const char *arg, uint64_t min, uint64_t max);
/* Parses arg as a non-negative decimal number (fractions allowed, at most
 * max) for option opt. */
double parse_decimal_opt(const char *opt, const char *arg, double max);
/* Parses arg as a non-negative decimal number of seconds (fractions allowed,
 * at most max) for option opt, and returns nanoseconds. */
uint64_t parse_seconds_opt(const char *opt, const char *arg, double max);

#endif
