/*
 * mapper: a target that does to its own mappings what a hostile or
 * careless program may, for the recorder to survive. "mapper SECONDS MODE
 * FILE" maps FILE executable, then:
 *   fifo      replaces FILE's path with a FIFO (a reader that opens it
 *             blocking would wait for ever);
 *   mem       replaces it with a symbolic link to /proc/self/mem;
 *   truncate  truncates the file to one page, under the mapping;
 * and "mapper SECONDS device" maps /dev/zero executable. Then it spins,
 * in spin(), until SECONDS have passed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"

static volatile unsigned long sink;

static NOINLINE void spin(uint64_t deadline)
{
	while (fixture_now_ns() < deadline)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
}

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);
	const char *mode = argc > 2 ? argv[2] : "", *file = argc > 3 ? argv[3] : "/dev/zero";
	int fd = open(strcmp(mode, "device") ? file : "/dev/zero", O_RDWR);
	struct stat st;
	void *p;

	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(file);
		return 1;
	}
	p = mmap(NULL, S_ISREG(st.st_mode) ? (size_t)st.st_size : 65536, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (!strcmp(mode, "fifo") && (unlink(file) < 0 || mkfifo(file, 0644) < 0))
		perror("fifo");
	if (!strcmp(mode, "mem") && (unlink(file) < 0 || symlink("/proc/self/mem", file) < 0))
		perror("mem");
	if (!strcmp(mode, "truncate") && ftruncate(fd, 4096) < 0)
		perror("truncate");
	close(fd);
	spin(deadline);
	return 0;
}
