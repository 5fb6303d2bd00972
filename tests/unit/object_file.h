/*
 * object_file.h: object files on disk as the unit tests read them: mapped
 * whole and read-only, and their symbols' addresses as nm(1) lists them.
 * Include it once per test file, after criterion.h.
 */
#ifndef TESTS_UNIT_OBJECT_FILE_H
#define TESTS_UNIT_OBJECT_FILE_H

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
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

/* The address nm(1) gives sym in the file at path; the test fails if nm
 * lists no such symbol. */
__attribute__((unused)) static uint64_t nm_addr(const char *path, const char *sym)
{
	char cmd[PATH_MAX + 128], line[256], name[128], type;
	unsigned long long a;
	uint64_t found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %c %127s", &a, &type, name) == 3 && !strcmp(name, sym))
			found = a;
	pclose(p);
	cr_assert_neq(found, 0, "nm does not list %s in %s", sym, path);
	return found;
}

#endif
