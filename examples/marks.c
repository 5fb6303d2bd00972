/*
 * marks.c: a program that marks its phases for prof-record. Run under
 * `prof-record -- ./marks`, it finds $PROF_MARKS in its environment, a
 * file to write one mark's name a line to; `prof-report info` lists the
 * marks and `--from mark:a --to mark:b` reports what ran between them.
 * Run on its own, it marks nothing. prof_mark() is all a program needs.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void prof_mark(const char *name)
{
	const char *path = getenv("PROF_MARKS");
	int fd = path ? open(path, O_WRONLY | O_APPEND) : -1;

	if (fd >= 0) {
		dprintf(fd, "%s\n", name);
		close(fd);
	}
}

/* The work of one phase: about a third of a second of arithmetic. */
static double __attribute__((noinline)) spin(double x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}

static double __attribute__((noinline)) phase_one(void) { return 2 * spin(1, 200000000); }
static double __attribute__((noinline)) phase_two(void) { return 2 * spin(2, 200000000); }

int main(void)
{
	double x;

	prof_mark("one");
	x = phase_one();
	prof_mark("two");
	x += phase_two();
	prof_mark("done");
	printf("%g\n", x);
	return 0;
}
