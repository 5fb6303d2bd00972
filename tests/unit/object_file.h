/*
 * object_file.h: object files on disk as the unit tests read them: mapped
 * whole and read-only, their symbols' addresses as nm(1) lists them, and
 * the DWARF fixtures that mk/dwarf.mk builds.
 * Include it once per test file, after criterion.h.
 */
#ifndef TESTS_UNIT_OBJECT_FILE_H
#define TESTS_UNIT_OBJECT_FILE_H

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct mapped {
	uint8_t *p;
	size_t n;
};

/* Maps the file at path: returns 0, or -1 (m->p NULL) if it cannot be
 * opened or is empty. The test unmaps it: munmap(m->p, m->n). */
__attribute__((unused)) static int map_file(const char *path, struct mapped *m)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	m->p = NULL;
	m->n = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_size == 0) {
		close(fd);
		return -1;
	}
	m->n = (size_t)st.st_size;
	m->p = mmap(NULL, m->n, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m->p == MAP_FAILED) {
		m->p = NULL;
		return -1;
	}
	return 0;
}

/* map_file(), failing the test if the file cannot be mapped. */
__attribute__((unused)) static struct mapped must_map(const char *path)
{
	struct mapped m;

	cr_assert_eq(map_file(path, &m), 0, "cannot map %s", path);
	return m;
}

/* The address nm(1) gives sym in the file at path, and in *size (if not
 * NULL) its size as nm -S gives it (0 if none); the test fails if nm
 * lists no such symbol. */
__attribute__((unused)) static uint64_t nm_symbol(const char *path, const char *sym,
						  uint64_t *size)
{
	char cmd[PATH_MAX + 128], line[256], f[4][128];
	uint64_t found = 0;
	FILE *p;
	int k;

	snprintf(cmd, sizeof(cmd), "nm -S %s", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	/* ADDRESS [SIZE] TYPE NAME */
	while (fgets(line, sizeof(line), p)) {
		k = sscanf(line, "%127s %127s %127s %127s", f[0], f[1], f[2], f[3]);
		if (k >= 3 && !strcmp(f[k - 1], sym)) {
			found = strtoull(f[0], NULL, 16);
			if (size)
				*size = k == 4 ? strtoull(f[1], NULL, 16) : 0;
		}
	}
	pclose(p);
	cr_assert_neq(found, 0, "nm does not list %s in %s", sym, path);
	return found;
}

/* The address nm(1) gives sym in the file at path. */
__attribute__((unused)) static uint64_t nm_addr(const char *path, const char *sym)
{
	return nm_symbol(path, sym, NULL);
}

/* The path of fixture dwarf/name (mk/dwarf.mk) under the build directory
 * build, in out: returns 0, or -1 with why (if not NULL) the reason make
 * gave for not building it. */
__attribute__((unused)) static int dwarf_fixture(const char *build, const char *name, char *out,
						 size_t n, char *why, size_t nwhy)
{
	char skipped[PATH_MAX + 64];
	FILE *f;

	snprintf(out, n, "%s/testdata/dwarf/%s", build, name);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(skipped, sizeof(skipped), "%.*s.skipped", PATH_MAX, out);
	f = fopen(skipped, "r");
	cr_assert_not_null(f, "no fixture %s, and no %s saying why (make fixtures)", out, skipped);
	if (why && !fgets(why, (int)nwhy, f))
		why[0] = 0;
	if (why)
		why[strcspn(why, "\n")] = 0;
	fclose(f);
	return -1;
}

#endif
