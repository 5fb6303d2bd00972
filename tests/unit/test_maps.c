/*
 * test_maps.c: /proc/PID/maps parsing and grouping on fixed strings, and the
 * load-bias rule on a real ELF file.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/maps.h"

static const char sample[] =
	"5581c4a00000-5581c4a02000 r--p 00000000 08:01 1310730                    /usr/bin/prog\n"
	"5581c4a02000-5581c4a07000 r-xp 00002000 08:01 1310730                    /usr/bin/prog\n"
	"5581c4a07000-5581c4a09000 r--p 00007000 08:01 1310730                    /usr/bin/prog\n"
	"5581c4a09000-5581c4a0a000 rw-p 00008000 08:01 1310730                    /usr/bin/prog\n"
	"5581c5e1b000-5581c5e3c000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f3a1c000000-7f3a1c021000 rw-p 00000000 00:00 0 \n"
	"7f3a1e400000-7f3a1e428000 r--p 00000000 08:01 1835099                    /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f3a1e428000-7f3a1e59d000 r-xp 00028000 08:01 1835099                    /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f3a1e59d000-7f3a1e5f5000 r--p 0019d000 08:01 1835099                    /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f3a1e5f5000-7f3a1e5f9000 r--p 001f4000 08:01 1835099                    /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f3a1e5f9000-7f3a1e5fb000 rw-p 001f8000 08:01 1835099                    /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f3a1e5fb000-7f3a1e608000 rw-p 00000000 00:00 0 \n"
	"7f3a1e700000-7f3a1e701000 r--p 00000000 08:01 99 /tmp/with space (deleted)\n"
	"7ffd5b7e1000-7ffd5b802000 rw-p 00000000 00:00 0                          [stack]\n"
	"7ffd5b8f2000-7ffd5b8f6000 r--p 00000000 00:00 0                          [vvar]\n"
	"7ffd5b8f6000-7ffd5b8f8000 r-xp 00000000 00:00 0                          [vdso]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

static int count_cb(void *ctx, const struct maps_entry *e)
{
	struct maps_entry *first = ctx;
	if (first->end == 0)
		*first = *e;
	return 0;
}

Test(maps, parse_fields)
{
	struct maps_entry first = { 0 };
	cr_assert_eq(maps_parse(sample, strlen(sample), count_cb, &first), 0);
	cr_assert_eq(first.start, 0x5581c4a00000);
	cr_assert_eq(first.end, 0x5581c4a02000);
	cr_assert_str_eq(first.perms, "r--p");
	cr_assert_eq(first.dev_major, 8);
	cr_assert_eq(first.dev_minor, 1);
	cr_assert_eq(first.inode, 1310730);
	cr_assert_eq(first.path_len, strlen("/usr/bin/prog"));
	cr_assert(memcmp(first.path, "/usr/bin/prog", first.path_len) == 0);
}

Test(maps, group_files)
{
	struct maps_group *g;
	size_t n;
	uint64_t top;
	cr_assert_eq(maps_group(sample, strlen(sample), &g, &n, &top), 0);
	cr_assert_eq(n, 4);
	cr_assert_str_eq(g[0].path, "/usr/bin/prog");
	cr_assert_eq(g[0].start, 0x5581c4a00000);
	cr_assert_eq(g[0].end, 0x5581c4a0a000);
	cr_assert_eq(g[0].vma_end, 0x5581c4a02000, "the first mapping's, as /proc/PID/map_files names it");
	cr_assert_eq(g[0].offset, 0);
	cr_assert(g[0].executable);
	cr_assert_str_eq(g[1].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	cr_assert_eq(g[1].end, 0x7f3a1e5fb000);
	cr_assert_str_eq(g[2].path, "/tmp/with space (deleted)");
	cr_assert_not(g[2].executable);
	cr_assert_str_eq(g[3].path, "[vdso]");
	cr_assert_eq(top, 0x7ffd5b8f8000, "the top is [vdso]'s end, not [vsyscall]'s");
	maps_groups_free(g, n);
}

/* An arm64 process of a kernel with 39-bit user addresses (as on many
 * Android devices): the top of its map, its stack, says so. */
Test(maps, top_of_a_39_bit_address_space)
{
	static const char t[] =
		"5580000000-5580001000 r-xp 00000000 08:01 5 /system/bin/app\n"
		"7fb8a00000-7fb8a01000 r-xp 00000000 08:01 6 /apex/lib64/libc.so\n"
		"7ff4b24000-7ff4b45000 rw-p 00000000 00:00 0 [stack]\n";
	struct maps_group *g;
	size_t n;
	uint64_t top;
	cr_assert_eq(maps_group(t, strlen(t), &g, &n, &top), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(top, 0x7ff4b45000, "the stack, which is no group, is the top");
	maps_groups_free(g, n);
}

Test(maps, same_file_twice_is_two_images)
{
	static const char t[] =
		"1000-2000 r-xp 00000000 08:01 5 /lib/a.so\n"
		"2000-3000 r-xp 00000000 08:01 6 /lib/b.so\n"
		"3000-4000 r-xp 00000000 08:01 5 /lib/a.so\n"
		"4000-5000 rw-p 00000000 00:00 0\n"
		"5000-6000 rw-p 00001000 08:01 5 /lib/a.so\n";
	struct maps_group *g;
	size_t n;
	uint64_t top;
	cr_assert_eq(maps_group(t, strlen(t), &g, &n, &top), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(g[2].start, 0x3000);
	cr_assert_eq(g[2].end, 0x6000, "an anonymous gap does not split a file");
	cr_assert_eq(g[2].vma_end, 0x4000);
	maps_groups_free(g, n);
}

Test(maps, malformed)
{
	static const char *bad[] = {
		"zz-1000 r-xp 0 08:01 5 /x\n", "1000 r-xp 0 08:01 5 /x\n", "1000-2000 r-xp\n",
		"2000-1000 r-xp 00000000 08:01 5 /x\n", "1000-2000 r-xp 00000000 08-01 5 /x\n",
		"1000-2000 r-xp 00000000 08:01 x /x\n", "11111111111111111111-2 r-xp 0 0:0 0\n",
	};
	struct maps_group *g;
	size_t n;
	uint64_t top;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(maps_group(bad[i], strlen(bad[i]), &g, &n, &top), MAPS_E_PARSE, "%s", bad[i]);
	cr_assert_eq(maps_group("", 0, &g, &n, &top), 0);
	cr_assert_eq(n, 0);
	maps_groups_free(g, n);
	/* every prefix of the sample: an error or a result, never a crash */
	for (size_t k = 0; k < strlen(sample); k++)
		if (maps_group(sample, k, &g, &n, &top) == 0)
			maps_groups_free(g, n);
}

Test(maps, bias_from_load_segment)
{
	struct stat st;
	struct elf_file e;
	struct elf_segment s;
	uint64_t bias = 0;
	int fd = open("/bin/ls", O_RDONLY);
	if (fd < 0)
		cr_skip_test("no /bin/ls");
	cr_assert_eq(fstat(fd, &st), 0);
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	cr_assert_eq(elf_parse(&e, p, (size_t)st.st_size), 0);
	/* Mapping the first PT_LOAD at 0x555500000000 gives bias = that minus
	 * its link address, whichever mapping of the file is asked about. */
	unsigned i, found = 0;
	for (i = 0; i < e.phnum; i++) {
		cr_assert_eq(elf_segment(&e, i, &s), 0);
		if (s.type == 1) {
			uint64_t lo = s.offset & ~UINT64_C(4095);
			uint64_t at = 0x555500000000 + (s.vaddr & ~UINT64_C(4095));
			cr_assert_eq(maps_elf_bias(&e, at, lo, &bias), 0);
			cr_assert_eq(bias, 0x555500000000, "segment %u: bias %#lx", i, (unsigned long)bias);
			found++;
		}
	}
	cr_assert_geq(found, 2);
	cr_assert_eq(maps_elf_bias(&e, 0x1000, UINT64_C(1) << 40, &bias), MAPS_E_NOLOAD);
	munmap(p, (size_t)st.st_size);
}
