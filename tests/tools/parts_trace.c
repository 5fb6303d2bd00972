/*
 * parts_trace.c: writes a file of the synthetic recording of
 * tests/unit/parts.h: the whole of it, one of the rotated parts it is cut
 * into, or a snapshot of it, as prof-record --switch-output and --ring
 * write them, so the tests can hold several files reported as one to the
 * one file of the same samples.
 */
#include "common/diag.h"
#include "tests/unit/parts.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: parts_trace FILE whole\n"
	"       parts_trace FILE rotated I N [RECORDING]\n"
	"       parts_trace FILE snapshot K AT WINDOW [RECORDING]\n"
	"\n"
	"Writes to FILE the whole recording (3 s), its part I of N rotated parts,\n"
	"or its snapshot number K of the WINDOW ms before AT ms. RECORDING is the\n"
	"recording's id (default 1).\n";

static uint64_t number(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (!*s || *end) {
		fputs(usage_text, stderr);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct parts_file f;
	int fd, r;

	diag_set_progname("parts_trace");
	if (argc == 3 && !strcmp(argv[2], "whole"))
		f = parts_whole();
	else if ((argc == 5 || argc == 6) && !strcmp(argv[2], "rotated") && number(argv[3]) >= 1 &&
		 number(argv[3]) <= number(argv[4]))
		f = parts_rotated(argc == 6 ? number(argv[5]) : 1, (unsigned)number(argv[3]) - 1,
				  (unsigned)number(argv[4]));
	else if ((argc == 6 || argc == 7) && !strcmp(argv[2], "snapshot"))
		f = parts_snapshot(argc == 7 ? number(argv[6]) : 1, (uint32_t)number(argv[3]), number(argv[4]),
				   number(argv[5]));
	else {
		fputs(usage_text, stderr);
		return 2;
	}
	if ((fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		die_errno("cannot create '%s'", argv[1]);
	if ((r = parts_write(fd, &f)) < 0)
		die("cannot write '%s': %s", argv[1], prof_strerror(r));
	if (close(fd) < 0)
		die_errno("cannot write '%s'", argv[1]);
	return 0;
}
