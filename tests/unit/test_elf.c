/*
 * test_elf.c: the ELF reader against real files and against damage.
 *
 * The fixtures make built: a small program with a build-id, which is
 * cross-checked with what readelf -n prints, and a program whose debug
 * information objcopy moved to a file named by its .gnu_debuglink. /bin/ls
 * gives a real stripped, distribution-built file. Then every truncation
 * of the file is parsed, and random bytes are flipped, to show that
 * damage gives an error and never a bad read. The reader's own ELF
 * constants are checked against glibc's <elf.h>.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "common/elf.h"
#include "build_dir.h"
#include "object_file.h"

static char prog[PATH_MAX + 64], linked[PATH_MAX + 64], linked_debug[PATH_MAX + 64];

/* The fixtures make built (mk/dwarf.mk, mk/debugfiles.mk): a program, and
 * one whose debug information was moved to a file it links to. */
static void find_fixtures(void)
{
	find_build_dir();
	snprintf(prog, sizeof(prog), "%s/testdata/symbols", build_dir);
	snprintf(linked, sizeof(linked), "%s/testdata/stripped/split", build_dir);
	snprintf(linked_debug, sizeof(linked_debug), "%s/testdata/stripped/.debug/split.debug", build_dir);
	cr_assert_eq(access(prog, R_OK), 0, "no fixture %s (make fixtures)", prog);
	cr_assert_eq(access(linked, R_OK), 0, "no fixture %s (make fixtures)", linked);
}

/* The hex build-id that readelf -n prints for path. */
static void readelf_build_id(const char *path, char *out, size_t max)
{
	char cmd[512];
	FILE *p;
	snprintf(cmd, sizeof(cmd), "readelf -n %s | sed -n 's/.*Build ID: *\\([0-9a-f]*\\).*/\\1/p'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	if (!fgets(out, (int)max, p))
		out[0] = 0;
	pclose(p);
	out[strcspn(out, "\n")] = 0;
}

static void hex(const uint8_t *id, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

static void check_build_id(const char *path)
{
	struct mapped m = must_map(path);
	struct elf_file e;
	const uint8_t *id;
	size_t n;
	char want[256], got[256];

	cr_assert_eq(elf_parse(&e, m.p, m.n), 0);
	cr_assert_eq(e.machine, 62 /* EM_X86_64 */);
	cr_assert_eq(elf_build_id(&e, &id, &n), 0);
	readelf_build_id(path, want, sizeof(want));
	cr_assert_gt(strlen(want), 0, "readelf found no build-id in %s", path);
	hex(id, n, got);
	cr_assert_str_eq(got, want);
	munmap(m.p, m.n);
}

TestSuite(elf, .init = find_fixtures);

Test(elf, build_id_matches_readelf)
{
	check_build_id(prog);
}

Test(elf, build_id_of_bin_ls)
{
	if (access("/bin/ls", R_OK) != 0)
		cr_skip_test("no /bin/ls");
	check_build_id("/bin/ls");
}

Test(elf, load_segments)
{
	struct mapped m = must_map(prog);
	struct elf_file e;
	struct elf_segment s;
	int loads = 0, exec = 0;

	cr_assert_eq(elf_parse(&e, m.p, m.n), 0);
	cr_assert_gt(e.phnum, 0);
	for (unsigned i = 0; i < e.phnum; i++) {
		cr_assert_eq(elf_segment(&e, i, &s), 0);
		if (s.type == 1 /* PT_LOAD */) {
			loads++;
			cr_assert_geq(s.memsz, s.filesz);
			if (s.flags & 1 /* PF_X */)
				exec++;
		}
	}
	cr_assert_geq(loads, 2);
	cr_assert_eq(exec, 1);
	cr_assert_eq(elf_segment(&e, e.phnum, &s), ELF_E_CORRUPT);
	munmap(m.p, m.n);
}

Test(elf, sections_by_name)
{
	struct mapped m = must_map(prog);
	struct elf_file e;
	struct elf_section s;

	cr_assert_eq(elf_parse(&e, m.p, m.n), 0);
	cr_assert_eq(elf_section_by_name(&e, ".text", &s), 0);
	cr_assert_str_eq(s.name, ".text");
	cr_assert_not_null(s.data);
	cr_assert_eq(elf_section_by_name(&e, ".bss", &s), 0);
	cr_assert_null(s.data);
	cr_assert_eq(elf_section_by_name(&e, ".no_such_section", &s), ELF_E_NOTFOUND);
	munmap(m.p, m.n);
}

struct found {
	int function, global, count;
	uint64_t function_size;
};

static int on_symbol(void *ctx, const struct elf_symbol *sym)
{
	struct found *f = ctx;
	f->count++;
	if (strcmp(sym->name, "alpha") == 0 && sym->type == 2 /* STT_FUNC */) {
		f->function = 1;
		f->function_size = sym->size;
	}
	if (strcmp(sym->name, "symbols_global") == 0 && sym->type == 1 /* STT_OBJECT */)
		f->global = 1;
	return 0;
}

static int stop_at_second(void *ctx, const struct elf_symbol *sym)
{
	int *n = ctx;
	return ++*n == 2 ? 42 : 0;
}

Test(elf, symbols)
{
	struct mapped m = must_map(prog);
	struct elf_file e;
	struct found f = { 0 };
	int n = 0;

	cr_assert_eq(elf_parse(&e, m.p, m.n), 0);
	cr_assert_eq(elf_symbols(&e, on_symbol, &f), 0);
	cr_assert(f.function && f.global, "symbols: function %d global %d", f.function, f.global);
	cr_assert_gt(f.function_size, 0);
	cr_assert_eq(elf_symbols(&e, stop_at_second, &n), 42);
	cr_assert_eq(n, 2);
	munmap(m.p, m.n);
}

Test(elf, dynsym_of_stripped_binary)
{
	struct mapped m;
	struct elf_file e;
	struct found f = { 0 };
	struct elf_section s;

	if (access("/bin/ls", R_OK) != 0)
		cr_skip_test("no /bin/ls");
	m = must_map("/bin/ls");
	cr_assert_eq(elf_parse(&e, m.p, m.n), 0);
	cr_assert_eq(elf_section_by_name(&e, ".symtab", &s), ELF_E_NOTFOUND);
	cr_assert_eq(elf_symbols(&e, on_symbol, &f), 0);
	cr_assert_gt(f.count, 10, "only %d dynamic symbols", f.count);
	munmap(m.p, m.n);
}

Test(elf, debuglink)
{
	struct mapped m = must_map(linked), d = must_map(linked_debug);
	struct elf_file e;
	const char *name;
	uint32_t crc;

	cr_assert_eq(elf_parse(&e, m.p, m.n), 0);
	cr_assert_eq(elf_debuglink(&e, &name, &crc), 0);
	cr_assert_str_eq(name, "split.debug");
	/* The zlib CRC-32 of the debug file, as objcopy computed it. */
	cr_assert_eq(crc, (uint32_t)crc32(0, d.p, (uInt)d.n), "crc %#x", crc);
	munmap(m.p, m.n);
	munmap(d.p, d.n);
}

Test(elf, no_debuglink)
{
	struct mapped m;
	struct elf_file e;
	const char *name;
	uint32_t crc;
	if (access("/bin/ls", R_OK) != 0)
		cr_skip_test("no /bin/ls");
	m = must_map("/bin/ls");
	cr_assert_eq(elf_parse(&e, m.p, m.n), 0);
	int r = elf_debuglink(&e, &name, &crc);
	cr_assert(r == 0 || r == ELF_E_NOTFOUND);
	munmap(m.p, m.n);
}

Test(elf, not_elf_and_unsupported)
{
	struct elf_file e;
	uint8_t b[64] = "\177ELF";
	cr_assert_eq(elf_parse(&e, "hello", 5), ELF_E_NOTELF);
	cr_assert_eq(elf_parse(&e, b, 3), ELF_E_NOTELF);
	cr_assert_eq(elf_parse(&e, b, 10), ELF_E_CORRUPT);
	b[4] = 1; /* ELFCLASS32 */
	b[5] = 1;
	cr_assert_eq(elf_parse(&e, b, sizeof(b)), ELF_E_UNSUPPORTED);
	b[4] = 2;
	b[5] = 2; /* big-endian */
	cr_assert_eq(elf_parse(&e, b, sizeof(b)), ELF_E_UNSUPPORTED);
	cr_assert_str_eq(prof_strerror(ELF_E_NOTELF), "not an ELF file");
}

static int count_symbol(void *ctx, const struct elf_symbol *sym)
{
	(*(int *)ctx)++;
	cr_assert_not_null(sym->name);
	return 0;
}

/* Everything the reader offers, on a damaged copy: must never fault. */
static void exercise(const uint8_t *p, size_t n)
{
	struct elf_file e;
	struct elf_segment seg;
	struct elf_section sec;
	const uint8_t *id;
	size_t idn;
	const char *name;
	uint32_t crc;
	int count = 0;

	if (elf_parse(&e, p, n) < 0)
		return;
	for (unsigned i = 0; i < e.phnum; i++)
		elf_segment(&e, i, &seg);
	for (unsigned i = 0; i < e.shnum; i++)
		elf_section(&e, i, &sec);
	elf_build_id(&e, &id, &idn);
	elf_debuglink(&e, &name, &crc);
	elf_symbols(&e, count_symbol, &count);
}

Test(elf, every_truncation)
{
	struct mapped m = must_map(prog);
	for (size_t n = 0; n <= m.n; n += (n < 4096 ? 1 : 61)) {
		/* A heap copy of exactly n bytes, so ASan sees any overrun. */
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, m.p, n);
		exercise(copy, n);
		free(copy);
	}
	munmap(m.p, m.n);
}

Test(elf, flipped_bytes)
{
	struct mapped m = must_map(prog);
	uint8_t *copy = malloc(m.n);
	srand(12345);
	for (int round = 0; round < 2000; round++) {
		memcpy(copy, m.p, m.n);
		for (int k = 0; k < 8; k++) {
			size_t at = (size_t)rand() % (round % 2 ? m.n : 512);
			copy[at] = (uint8_t)rand();
		}
		exercise(copy, m.n);
	}
	free(copy);
	munmap(m.p, m.n);
}

/* common/elf.h defines the ELF values it uses so that no program needs a
 * host <elf.h>; here, where there is one, each must be the system's. */
Test(elf, constants_are_the_system_ones)
{
	cr_assert_eq(ELF_MAGIC_LEN, SELFMAG);
	cr_assert_eq(memcmp(ELF_MAGIC, ELFMAG, SELFMAG), 0);
	cr_assert_eq(ELF_CLASS64, ELFCLASS64);
	cr_assert_eq(ELF_DATA2LSB, ELFDATA2LSB);
	cr_assert_eq(ELF_PT_NOTE, PT_NOTE);
	cr_assert_eq(ELF_SHT_SYMTAB, SHT_SYMTAB);
	cr_assert_eq(ELF_SHT_NOTE, SHT_NOTE);
	cr_assert_eq(ELF_SHT_NOBITS, SHT_NOBITS);
	cr_assert_eq(ELF_SHT_DYNSYM, SHT_DYNSYM);
	cr_assert_eq(ELF_SHF_COMPRESSED, SHF_COMPRESSED);
	cr_assert_eq(ELF_SHN_UNDEF, SHN_UNDEF);
	cr_assert_eq(ELF_SHN_LORESERVE, SHN_LORESERVE);
	cr_assert_eq(ELF_SHN_XINDEX, SHN_XINDEX);
	cr_assert_eq(ELF_STT_FUNC, STT_FUNC);
	cr_assert_eq(ELF_STT_GNU_IFUNC, STT_GNU_IFUNC);
	cr_assert_eq(ELF_NT_GNU_BUILD_ID, NT_GNU_BUILD_ID);
}
