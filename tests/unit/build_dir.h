/*
 * build_dir.h: where make put the build, for the tests that read its
 * fixtures. Include it once per test file.
 */
#ifndef TESTS_UNIT_BUILD_DIR_H
#define TESTS_UNIT_BUILD_DIR_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char build_dir[PATH_MAX];

/* This binary is BUILD/tests/test_X, so BUILD is two levels up; the
 * BUILD variable that tests/run.sh exports is the fallback. */
static void find_build_dir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n > 0) {
		exe[n] = 0;
		for (int up = 0; up < 2 && (slash = strrchr(exe, '/')); up++)
			*slash = 0;
		if (strchr(exe, '/')) {
			snprintf(build_dir, sizeof(build_dir), "%s", exe);
			return;
		}
	}
	snprintf(build_dir, sizeof(build_dir), "%s", getenv("BUILD") ? getenv("BUILD") : "build");
}

#endif
