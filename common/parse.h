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

/* A unit a number may be given in, such as { "ms", 1e6 } for a time in
 * ns; a list of them ends with a NULL name. */
struct parse_unit {
	const char *name;
	double scale;
};
/* Parses arg as a non-negative decimal number directly followed by one of
 * units (a name matched whole, case sensitive), and sets *v to the number
 * times its scale, at most max, and *unit to its index; reports as
 * parse_uint(). */
int parse_scaled(const char *arg, const struct parse_unit *units, double max, uint64_t *v, int *unit,
		 char *why);

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
