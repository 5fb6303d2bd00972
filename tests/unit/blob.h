/*
 * blob.h: files written through a real file descriptor (a memfd) and read
 * back as bytes, for the tests of the trace and pack writers. Include it
 * once per test file, after criterion.h.
 */
#ifndef TESTS_UNIT_BLOB_H
#define TESTS_UNIT_BLOB_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct blob {
	uint8_t *p;
	size_t n;
};

/* A new empty memfd; the test closes it. */
static int new_fd(void)
{
	int fd = memfd_create("blob", 0);
	cr_assert_geq(fd, 0);
	return fd;
}

/* Everything written to fd so far; the test frees b.p. */
static struct blob fd_bytes(int fd)
{
	struct blob b;
	off_t end = lseek(fd, 0, SEEK_END);
	cr_assert_geq(end, 0);
	b.n = (size_t)end;
	b.p = malloc(b.n + 1);
	cr_assert_eq(pread(fd, b.p, b.n, 0), (ssize_t)b.n);
	return b;
}

#endif
