/*
 * test_macho.c: the Mach-O reader against real files and against damage.
 *
 * The real files are the fixtures mk/macho.mk cross-builds with clang,
 * ld64.lld, llvm-lipo and dsymutil into BUILD/testdata/macho, and what the
 * reader finds in them is checked against tools nobody here wrote:
 * llvm-dwarfdump --uuid for UUIDs, llvm-objdump --macho --private-headers for
 * segments, llvm-objdump -h for sections and llvm-nm for symbols. Damage is
 * tested on a small Mach-O made by hand in this file, where each field is
 * known, and on every truncation and random corruption of a real one.
 * Last, synth_trace (tests/tools) writes a macOS trace that trace_load()
 * reads back. A test whose fixture or tool is missing is skipped, saying
 * which.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build_dir.h"
#include "common/bytes.h"
#include "common/macho.h"
#include "format/trace.h"

/* --- where things are --------------------------------------------------- */

/* Room for a directory and a fixture name, and for a command naming
 * a few of them. */
#define PATH_LEN (PATH_MAX + 512)
#define CMD_LEN (4 * PATH_LEN)

/* Skips the test with a reason; tests/run.sh counts and shows it. */
static void skip_because(const char *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void skip_because(const char *test, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	(void)test;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	cr_skip_test("%s", why);
}

/* The path of fixture name, or a skip if make did not build it. */
static const char *fixture(const char *test, const char *name)
{
	static char path[PATH_LEN];
	snprintf(path, sizeof(path), "%s/testdata/macho/%s", build_dir, name);
	if (access(path, R_OK) != 0)
		skip_because(test, "no fixture %s (make fixtures says why)", path);
	return path;
}

static const char *dsym(const char *test, const char *name)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "%s.dSYM/Contents/Resources/DWARF/%s", name, name);
	return fixture(test, rel);
}

static void need_tool(const char *test, const char *tool)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	if (system(cmd) != 0)
		skip_because(test, "no %s to check against", tool);
}

/* Runs a shell command and returns its standard output (static, cut at
 * 64 KiB). */
static const char *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *run(const char *fmt, ...)
{
	static char out[65536];
	char cmd[CMD_LEN];
	size_t n;
	va_list ap;
	FILE *p;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_lt((size_t)len, sizeof(cmd), "command too long");
	p = popen(cmd, "r");
	cr_assert_not_null(p, "cannot run %s", cmd);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	pclose(p);
	return out;
}

struct mapped {
	uint8_t *p;
	size_t n;
};

/* A heap copy of the file, so ASan sees any read past its end. */
static struct mapped load(const char *path)
{
	struct mapped m;
	struct stat st;
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0, "cannot open %s", path);
	cr_assert_eq(fstat(fd, &st), 0);
	m.n = (size_t)st.st_size;
	m.p = malloc(m.n ? m.n : 1);
	cr_assert_eq(pread(fd, m.p, m.n, 0), (ssize_t)m.n);
	close(fd);
	return m;
}

static void parse_thin(struct macho_file *m, const struct mapped *f)
{
	int r = macho_parse(m, f->p, f->n);
	cr_assert_eq(r, 0, "macho_parse: %s", prof_strerror(r));
}

/* The UUID as llvm-dwarfdump prints it. */
static void format_uuid(const uint8_t u[16], char out[37])
{
	static const int dash[16] = { [4] = 1, [6] = 1, [8] = 1, [10] = 1 };
	char *p = out;
	for (int i = 0; i < 16; i++) {
		if (dash[i])
			*p++ = '-';
		p += sprintf(p, "%02X", u[i]);
	}
}

/* What llvm-dwarfdump --uuid says the UUID of arch in path is. */
static void dwarfdump_uuid(const char *path, const char *arch, char out[37])
{
	const char *text = run("llvm-dwarfdump --uuid '%s'", path);
	const char *line = text;
	char id[40], a[32];

	out[0] = 0;
	while (line && *line) {
		if (sscanf(line, "UUID: %36s (%31[^)])", id, a) == 2 && strcmp(a, arch) == 0) {
			memcpy(out, id, 37);
			return;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	cr_assert_fail("llvm-dwarfdump printed no %s UUID for %s:\n%s", arch, path, text);
}

static const char *arch_name(uint32_t cputype)
{
	return cputype == MACHO_CPU_TYPE_ARM64 ? "arm64" : cputype == MACHO_CPU_TYPE_X86_64 ? "x86_64" : "?";
}

TestSuite(macho, .init = find_build_dir);

/* --- real files against the LLVM tools ---------------------------------- */

static void check_thin_uuid(const char *path, uint32_t cputype, char got[37])
{
	struct mapped f = load(path);
	struct macho_file m;
	uint8_t u[16];
	char want[37];

	parse_thin(&m, &f);
	cr_assert_eq(m.cputype, cputype, "%s: cputype %#x", path, m.cputype);
	cr_assert_eq(macho_uuid(&m, u), 0, "%s has no LC_UUID", path);
	format_uuid(u, got);
	dwarfdump_uuid(path, arch_name(cputype), want);
	cr_assert_str_eq(got, want, "%s: UUID %s, llvm-dwarfdump says %s", path, got, want);
	free(f.p);
}

Test(macho, uuids_match_dwarfdump)
{
	static const struct { const char *name; uint32_t cputype; uint32_t filetype; } progs[] = {
		{ "app-arm64", MACHO_CPU_TYPE_ARM64, MACHO_MH_EXECUTE },
		{ "app-x86_64", MACHO_CPU_TYPE_X86_64, MACHO_MH_EXECUTE },
		{ "libwork.dylib", MACHO_CPU_TYPE_ARM64, MACHO_MH_DYLIB },
	};
	need_tool("uuids_match_dwarfdump", "llvm-dwarfdump");
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		char bin_uuid[37], dsym_uuid[37];
		const char *path = fixture("uuids_match_dwarfdump", progs[i].name);
		struct mapped f = load(path);
		struct macho_file m;

		parse_thin(&m, &f);
		cr_assert_eq(m.filetype, progs[i].filetype, "%s: filetype %u", path, m.filetype);
		free(f.p);
		check_thin_uuid(path, progs[i].cputype, bin_uuid);
		path = dsym("uuids_match_dwarfdump", progs[i].name);
		f = load(path);
		parse_thin(&m, &f);
		cr_assert_eq(m.filetype, MACHO_MH_DSYM, "%s: filetype %u", path, m.filetype);
		free(f.p);
		check_thin_uuid(path, progs[i].cputype, dsym_uuid);
		cr_assert_str_eq(bin_uuid, dsym_uuid, "%s and its dSYM differ", progs[i].name);
	}
}

/* Each slice of a universal file parses, with the UUID llvm-dwarfdump
 * gives for its architecture, and the thin file's UUID. */
static void check_universal(const char *test, const char *fixture_path)
{
	char path[PATH_LEN];
	struct mapped f;
	struct macho_slice s[4];
	size_t n;
	int seen_arm = 0, seen_x86 = 0;

	snprintf(path, sizeof(path), "%s", fixture_path);  /* fixture() reuses its buffer */
	f = load(path);
	cr_assert_eq(macho_slices(f.p, f.n, s, 4, &n), 0);
	cr_assert_eq(n, 2, "%s: %zu slices", path, n);
	for (size_t i = 0; i < n; i++) {
		struct macho_file m;
		uint8_t u[16];
		char got[37], want[37], thin[37];
		const char *arch = arch_name(s[i].cputype);

		cr_assert_eq(macho_parse(&m, f.p + s[i].offset, s[i].size), 0, "%s slice %zu", path, i);
		cr_assert_eq(m.cputype, s[i].cputype);
		cr_assert_eq(macho_uuid(&m, u), 0);
		format_uuid(u, got);
		dwarfdump_uuid(path, arch, want);
		cr_assert_str_eq(got, want, "%s (%s): UUID %s, llvm-dwarfdump says %s", path, arch, got, want);
		dwarfdump_uuid(fixture(test, s[i].cputype == MACHO_CPU_TYPE_ARM64 ? "app-arm64" : "app-x86_64"),
			       arch, thin);
		cr_assert_str_eq(got, thin, "%s (%s) is not the thin program", path, arch);
		seen_arm += s[i].cputype == MACHO_CPU_TYPE_ARM64;
		seen_x86 += s[i].cputype == MACHO_CPU_TYPE_X86_64;
	}
	cr_assert(seen_arm == 1 && seen_x86 == 1);
	/* Fewer slots than slices: the count is still the whole. */
	cr_assert_eq(macho_slices(f.p, f.n, s, 1, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(macho_slices(f.p, f.n, NULL, 0, &n), 0);
	cr_assert_eq(n, 2);
	free(f.p);
}

Test(macho, universal_slices_match_dwarfdump)
{
	need_tool("universal_slices_match_dwarfdump", "llvm-dwarfdump");
	check_universal("universal_slices_match_dwarfdump",
			fixture("universal_slices_match_dwarfdump", "app-universal"));
}

Test(macho, universal_dsym_slices_match_dwarfdump)
{
	need_tool("universal_dsym_slices_match_dwarfdump", "llvm-dwarfdump");
	check_universal("universal_dsym_slices_match_dwarfdump",
			dsym("universal_dsym_slices_match_dwarfdump", "app-universal"));
}

Test(macho, thin_file_is_one_slice)
{
	const char *path = fixture("thin_file_is_one_slice", "app-arm64");
	struct mapped f = load(path);
	struct macho_slice s;
	size_t n;

	cr_assert_eq(macho_slices(f.p, f.n, &s, 1, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(s.cputype, MACHO_CPU_TYPE_ARM64);
	cr_assert_eq(s.offset, 0);
	cr_assert_eq(s.size, f.n);
	free(f.p);
}

Test(macho, wrong_uuid_dsym_differs)
{
	char good[37], bad[37];
	need_tool("wrong_uuid_dsym_differs", "llvm-dwarfdump");
	check_thin_uuid(dsym("wrong_uuid_dsym_differs", "app-arm64"), MACHO_CPU_TYPE_ARM64, good);
	check_thin_uuid(fixture("wrong_uuid_dsym_differs", "wrong/app-arm64.dSYM/Contents/Resources/DWARF/app-arm64"),
			MACHO_CPU_TYPE_ARM64, bad);
	cr_assert_str_neq(good, bad);
}

/* __TEXT as llvm-objdump --macho --private-headers prints it. */
static void objdump_text(const char *path, const char *arch, struct macho_segment *out)
{
	const char *text = run("llvm-objdump --macho --private-headers --arch=%s '%s' | awk "
			       "'$1 == \"segname\" && $2 == \"__TEXT\" { f = 1 } "
			       "f && ($1 == \"vmaddr\" || $1 == \"vmsize\" || $1 == \"fileoff\") { print $2 } "
			       "f && $1 == \"filesize\" { print $2; exit }'", arch, path);
	unsigned long long v[4];

	cr_assert_eq(sscanf(text, "%llx %llx %llu %llu", &v[0], &v[1], &v[2], &v[3]), 4,
		     "llvm-objdump gave no __TEXT for %s: %s", path, text);
	out->vmaddr = v[0];
	out->vmsize = v[1];
	out->fileoff = v[2];
	out->filesize = v[3];
}

static void check_text_segment(const char *path, const char *arch, uint64_t want_vmaddr)
{
	struct mapped f = load(path);
	struct macho_file m;
	struct macho_segment got, want;

	parse_thin(&m, &f);
	cr_assert_eq(macho_segment_by_name(&m, "__TEXT", &got), 0);
	cr_assert_str_eq(got.name, "__TEXT");
	objdump_text(path, arch, &want);
	cr_assert_eq(got.vmaddr, want.vmaddr, "%s: __TEXT at %#llx, llvm-objdump says %#llx", path,
		     (unsigned long long)got.vmaddr, (unsigned long long)want.vmaddr);
	cr_assert_eq(got.vmaddr, want_vmaddr);
	cr_assert_eq(got.vmsize, want.vmsize);
	cr_assert_eq(got.fileoff, want.fileoff);
	cr_assert_eq(got.filesize, want.filesize);
	cr_assert_gt(got.nsects, 0);
	cr_assert_eq(macho_segment_by_name(&m, "__NOSUCH", &got), MACHO_E_NOTFOUND);
	cr_assert_eq(macho_segment_by_name(&m, "__TEXT_AND_MORE_THAN_16", &got), MACHO_E_NOTFOUND);
	free(f.p);
}

Test(macho, text_segment_matches_objdump)
{
	const char *t = "text_segment_matches_objdump";
	need_tool(t, "llvm-objdump");
	check_text_segment(fixture(t, "app-arm64"), "arm64", 0x100000000);
	check_text_segment(fixture(t, "app-x86_64"), "x86_64", 0x100000000);
	check_text_segment(fixture(t, "libwork.dylib"), "arm64", 0);
	check_text_segment(dsym(t, "app-arm64"), "arm64", 0x100000000);
}

struct segment_list {
	char names[16][17];
	int n;
};

static int list_segment(void *ctx, const struct macho_segment *s)
{
	struct segment_list *l = ctx;
	if (l->n < 16)
		memcpy(l->names[l->n++], s->name, 17);
	return 0;
}

Test(macho, segments_in_order)
{
	struct mapped f = load(fixture("segments_in_order", "app-arm64"));
	struct macho_file m;
	struct segment_list l = { .n = 0 };

	parse_thin(&m, &f);
	cr_assert_eq(macho_segments(&m, list_segment, &l), 0);
	cr_assert_geq(l.n, 3);
	cr_assert_str_eq(l.names[0], "__PAGEZERO");
	cr_assert_str_eq(l.names[1], "__TEXT");
	cr_assert_str_eq(l.names[l.n - 1], "__LINKEDIT");
	free(f.p);
}

struct text_search {
	struct macho_section text;
	int found, count, dwarf;
};

static int find_text(void *ctx, const struct macho_section *s)
{
	struct text_search *q = ctx;
	q->count++;
	if (strcmp(s->segname, "__TEXT") == 0 && strcmp(s->sectname, "__text") == 0) {
		q->text = *s;
		q->found = 1;
	}
	if (strcmp(s->segname, "__DWARF") == 0 && strcmp(s->sectname, "__debug_info") == 0 && s->data)
		q->dwarf = 1;
	return 0;
}

static int stop_at_third(void *ctx, const struct macho_section *s)
{
	return ++*(int *)ctx == 3 ? 77 : 0;
}

Test(macho, text_section_matches_objdump)
{
	const char *t = "text_section_matches_objdump";
	const char *path;
	struct mapped f;
	struct macho_file m;
	struct text_search q = { .found = 0 };
	unsigned long long size, vma;
	const char *line;
	int n = 0;

	need_tool(t, "llvm-objdump");
	path = fixture(t, "app-arm64");
	f = load(path);
	parse_thin(&m, &f);
	cr_assert_eq(macho_sections(&m, find_text, &q), 0);
	cr_assert(q.found);
	line = strstr(run("llvm-objdump -h '%s'", path), " __text ");
	cr_assert_not_null(line);
	cr_assert_eq(sscanf(line, " __text %llx %llx", &size, &vma), 2);
	cr_assert_eq(q.text.size, size);
	cr_assert_eq(q.text.addr, vma);
	cr_assert_eq(q.text.flags & MACHO_S_ATTR_PURE_INSTRUCTIONS, MACHO_S_ATTR_PURE_INSTRUCTIONS);
	cr_assert_not_null(q.text.data);
	cr_assert_eq(q.text.data, f.p + q.text.offset);
	cr_assert_eq(q.count, 7, "%d sections, llvm-objdump -h lists 7", q.count);
	cr_assert_eq(macho_sections(&m, stop_at_third, &n), 77);
	cr_assert_eq(n, 3);
	free(f.p);

	/* A dSYM keeps the section headers of __TEXT, but not the code; its
	 * DWARF is there. */
	f = load(dsym(t, "app-arm64"));
	parse_thin(&m, &f);
	memset(&q, 0, sizeof(q));
	cr_assert_eq(macho_sections(&m, find_text, &q), 0);
	cr_assert(q.found);
	cr_assert_eq(q.text.addr, vma);
	cr_assert_null(q.text.data);
	cr_assert(q.dwarf, "no __DWARF,__debug_info in the dSYM");
	free(f.p);
}

/* name and value of each symbol llvm-nm calls defined, in a section,
 * sorted. */
static void nm_symbols(const char *path, const char *arch, char *out, size_t max)
{
	snprintf(out, max, "%s",
		 run("llvm-nm -P --defined-only --arch=%s '%s' | awk '$2 !~ /^[AaIi]$/ { print $1, $3 }' | "
		     "LC_ALL=C sort", arch, path));
}

struct symbol_text {
	char lines[64][128];
	int n;
};

static int collect_symbol(void *ctx, const struct macho_symbol *s)
{
	struct symbol_text *t = ctx;
	cr_assert_lt(t->n, 64);
	cr_assert_eq(s->type & 0xe0, 0, "a debugging symbol: %s", s->name);
	cr_assert_eq(s->type & 0x0e, 0x0e, "not N_SECT: %s", s->name);
	cr_assert_gt(s->sect, 0);
	snprintf(t->lines[t->n++], 128, "%s %llx", s->name, (unsigned long long)s->value);
	return 0;
}

static int compare_lines(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void check_symbols(const char *path, const char *arch, const char *must_have)
{
	struct mapped f = load(path);
	struct macho_file m;
	struct macho_slice s[4];
	struct symbol_text got = { .n = 0 };
	char want[8192], joined[8192] = "";
	size_t n, at = 0;
	const uint8_t *base = f.p;
	size_t size = f.n;
	int r;

	/* A universal file: the slice for arch. */
	cr_assert_eq(macho_slices(f.p, f.n, s, 4, &n), 0);
	for (size_t i = 0; i < n && n > 1; i++)
		if (strcmp(arch_name(s[i].cputype), arch) == 0) {
			base = f.p + s[i].offset;
			size = s[i].size;
		}
	cr_assert_eq(macho_parse(&m, base, size), 0);
	r = macho_symbols(&m, collect_symbol, &got);
	cr_assert_eq(r, 0, "macho_symbols: %s", prof_strerror(r));
	qsort(got.lines, (size_t)got.n, sizeof(got.lines[0]), compare_lines);
	for (int i = 0; i < got.n; i++)
		at += (size_t)snprintf(joined + at, sizeof(joined) - at, "%s\n", got.lines[i]);
	nm_symbols(path, arch, want, sizeof(want));
	cr_assert_str_eq(joined, want, "%s (%s) symbols:\n%s\nllvm-nm:\n%s", path, arch, joined, want);
	cr_assert_not_null(strstr(joined, must_have), "%s has no %s", path, must_have);
	free(f.p);
}

Test(macho, symbols_match_nm)
{
	const char *t = "symbols_match_nm";
	need_tool(t, "llvm-nm");
	check_symbols(fixture(t, "app-arm64"), "arm64", "_path_a ");
	check_symbols(fixture(t, "app-x86_64"), "x86_64", "_lib_mix ");
	check_symbols(fixture(t, "libwork.dylib"), "arm64", "_lib_work ");
	check_symbols(fixture(t, "app-universal"), "arm64", "_run ");
	check_symbols(fixture(t, "app-universal"), "x86_64", "_run ");
	check_symbols(dsym(t, "app-arm64"), "arm64", "_main ");
}

/* The fixtures are only useful if -O1 really inlined the static inline
 * functions, and kept the noinline ones. */
Test(macho, fixture_has_inlined_functions)
{
	const char *t = "fixture_has_inlined_functions";
	const char *out;

	need_tool(t, "llvm-dwarfdump");
	out = run("llvm-dwarfdump --debug-info '%s' | "
		  "awk '/DW_TAG_subprogram/ { sub_ = 1; next } "
		  "sub_ && /DW_AT_name/ { fn = $2; sub_ = 0 } "
		  "/DW_TAG_inlined_subroutine/ { inl = 1; next } "
		  "inl && /DW_AT_abstract_origin/ { print fn, $3; inl = 0 }' | sort -u",
		  dsym(t, "app-arm64"));
	cr_assert_not_null(strstr(out, "(\"path_a\") \"step\")"), "%s", out);
	cr_assert_not_null(strstr(out, "(\"path_a\") \"mix\")"), "%s", out);
	cr_assert_not_null(strstr(out, "(\"path_b\") \"mix\")"), "%s", out);
	out = run("llvm-dwarfdump --debug-info '%s' | grep -c DW_TAG_inlined_subroutine",
		  dsym(t, "libwork.dylib"));
	cr_assert_geq(atoi(out), 1, "no inlined subroutine in libwork.dylib");
	out = run("llvm-nm '%s'", fixture(t, "app-arm64"));
	cr_assert_null(strstr(out, "_step"), "step was not inlined");
	cr_assert_null(strstr(out, "_mix"), "mix was not inlined");
}

/* --- a Mach-O made by hand ---------------------------------------------- */

/*
 * Header, then LC_SEGMENT_64 __TEXT with one section __text, LC_UUID and
 * LC_SYMTAB; then code, three nlist_64 entries (two defined, one stab) and
 * the strings.
 */
#define SYN_SEG 32
#define SYN_SECT (SYN_SEG + 72)
#define SYN_UUID (SYN_SECT + 80)
#define SYN_SYMTAB (SYN_UUID + 24)
#define SYN_CMDS_END (SYN_SYMTAB + 24)
#define SYN_CODE 0x100
#define SYN_SYMS 0x120
#define SYN_STRS 0x150
#define SYN_STRSIZE 32
#define SYN_SIZE (SYN_STRS + SYN_STRSIZE)

static void put_name(uint8_t *p, const char *s)
{
	memset(p, 0, 16);
	memcpy(p, s, strlen(s) < 16 ? strlen(s) : 16);
}

static void put_nlist(uint8_t *p, uint32_t strx, uint8_t type, uint8_t sect, uint64_t value)
{
	put_le32(p, strx);
	p[4] = type;
	p[5] = sect;
	put_le16(p + 6, 0);
	put_le64(p + 8, value);
}

static void make_macho(uint8_t *b)
{
	memset(b, 0, SYN_SIZE);
	put_le32(b, 0xfeedfacf);
	put_le32(b + 4, MACHO_CPU_TYPE_ARM64);
	put_le32(b + 12, MACHO_MH_EXECUTE);
	put_le32(b + 16, 3);
	put_le32(b + 20, SYN_CMDS_END - 32);
	put_le32(b + SYN_SEG, 0x19);
	put_le32(b + SYN_SEG + 4, 72 + 80);
	put_name(b + SYN_SEG + 8, "__TEXT");
	put_le64(b + SYN_SEG + 24, 0x100000000);
	put_le64(b + SYN_SEG + 32, 0x1000);
	put_le64(b + SYN_SEG + 40, 0);
	put_le64(b + SYN_SEG + 48, SYN_SIZE);
	put_le32(b + SYN_SEG + 64, 1);
	put_name(b + SYN_SECT, "__text");
	put_name(b + SYN_SECT + 16, "__TEXT");
	put_le64(b + SYN_SECT + 32, 0x100000000 + SYN_CODE);
	put_le64(b + SYN_SECT + 40, 16);
	put_le32(b + SYN_SECT + 48, SYN_CODE);
	put_le32(b + SYN_SECT + 64, 0x80000400);
	put_le32(b + SYN_UUID, 0x1b);
	put_le32(b + SYN_UUID + 4, 24);
	for (int i = 0; i < 16; i++)
		b[SYN_UUID + 8 + i] = (uint8_t)(0x10 + i);
	put_le32(b + SYN_SYMTAB, 0x2);
	put_le32(b + SYN_SYMTAB + 4, 24);
	put_le32(b + SYN_SYMTAB + 8, SYN_SYMS);
	put_le32(b + SYN_SYMTAB + 12, 3);
	put_le32(b + SYN_SYMTAB + 16, SYN_STRS);
	put_le32(b + SYN_SYMTAB + 20, SYN_STRSIZE);
	memset(b + SYN_CODE, 0xd5, 16);
	put_nlist(b + SYN_SYMS, 1, 0x0f, 1, 0x100000000 + SYN_CODE);
	put_nlist(b + SYN_SYMS + 16, 4, 0x0e, 1, 0x100000000 + SYN_CODE + 8);
	put_nlist(b + SYN_SYMS + 32, 1, 0x24 /* N_FUN */, 1, 0x100000000 + SYN_CODE);
	memcpy(b + SYN_STRS, "\0_f\0_g", 7);
}

/* A heap buffer of exactly n bytes holding the first n of b. */
static uint8_t *exact(const uint8_t *b, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	memcpy(p, b, n);
	return p;
}

static int count_symbols(void *ctx, const struct macho_symbol *s)
{
	cr_assert_not_null(s->name);
	cr_assert_not_null(memchr(s->name, 0, 4096));
	(*(int *)ctx)++;
	return 0;
}

struct one_section {
	struct macho_section s;
	int n;
};

static int keep_section(void *ctx, const struct macho_section *s)
{
	struct one_section *o = ctx;
	o->s = *s;
	o->n++;
	return 0;
}

Test(macho, hand_made_file)
{
	uint8_t b[SYN_SIZE];
	struct macho_file m;
	struct macho_segment seg;
	struct one_section o = { .n = 0 };
	uint8_t u[16];
	int n = 0;

	make_macho(b);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), 0);
	cr_assert_eq(m.ncmds, 3);
	cr_assert_eq(macho_uuid(&m, u), 0);
	cr_assert_eq(u[0], 0x10);
	cr_assert_eq(u[15], 0x1f);
	cr_assert_eq(macho_segment_by_name(&m, "__TEXT", &seg), 0);
	cr_assert_eq(seg.vmaddr, 0x100000000);
	cr_assert_eq(seg.nsects, 1);
	cr_assert_eq(macho_sections(&m, keep_section, &o), 0);
	cr_assert_eq(o.n, 1);
	cr_assert_str_eq(o.s.sectname, "__text");
	cr_assert_eq(o.s.data, b + SYN_CODE);
	cr_assert_eq(macho_symbols(&m, count_symbols, &n), 0);
	cr_assert_eq(n, 2, "%d symbols (the stab must be left out)", n);
}

/* The header and load commands alone, as read from a process's memory. */
Test(macho, header_and_commands_only)
{
	uint8_t b[SYN_SIZE], *p;
	struct macho_file m;
	struct macho_segment seg;
	struct one_section o = { .n = 0 };
	uint8_t u[16];
	int n = 0;

	make_macho(b);
	p = exact(b, SYN_CMDS_END);
	cr_assert_eq(macho_parse(&m, p, SYN_CMDS_END), 0);
	cr_assert_eq(macho_uuid(&m, u), 0);
	cr_assert_eq(u[3], 0x13);
	cr_assert_eq(macho_segment_by_name(&m, "__TEXT", &seg), 0);
	cr_assert_eq(macho_sections(&m, keep_section, &o), 0);
	cr_assert_eq(o.n, 1);
	cr_assert_null(o.s.data, "section bytes are past the buffer");
	cr_assert_eq(macho_symbols(&m, count_symbols, &n), MACHO_E_CORRUPT);
	cr_assert_eq(n, 0);
	free(p);
}

Test(macho, every_truncation_of_the_commands)
{
	uint8_t b[SYN_SIZE];
	make_macho(b);
	for (size_t n = 0; n < SYN_CMDS_END; n++) {
		uint8_t *p = exact(b, n);
		struct macho_file m;
		int r = macho_parse(&m, p, n);
		cr_assert(r == MACHO_E_CORRUPT || r == MACHO_E_NOTMACHO, "%zu bytes: %d", n, r);
		cr_assert_eq(r, n < 4 ? MACHO_E_NOTMACHO : MACHO_E_CORRUPT, "%zu bytes: %d", n, r);
		free(p);
	}
}

Test(macho, huge_ncmds)
{
	uint8_t b[SYN_SIZE];
	struct macho_file m;

	make_macho(b);
	put_le32(b + 16, 0xffffffff);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_CORRUPT);
	/* One more command than sizeofcmds can hold. */
	put_le32(b + 16, (SYN_CMDS_END - 32) / 8 + 1);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_CORRUPT);
	/* One more than there are: the fourth would start at sizeofcmds. */
	put_le32(b + 16, 4);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_CORRUPT);
}

Test(macho, sizeofcmds_past_the_end)
{
	uint8_t b[SYN_SIZE];
	struct macho_file m;

	make_macho(b);
	put_le32(b + 20, SYN_SIZE - 32 + 1);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_CORRUPT);
	put_le32(b + 20, 0xffffffff);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_CORRUPT);
}

Test(macho, bad_cmdsize)
{
	static const uint32_t bad[] = { 0, 4, 12, 23, 0xfffffff8, SYN_CMDS_END - SYN_UUID + 8 };
	uint8_t b[SYN_SIZE];
	struct macho_file m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_macho(b);
		put_le32(b + SYN_UUID + 4, bad[i]);
		cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_CORRUPT, "cmdsize %u", bad[i]);
	}
	/* An LC_UUID too short for its UUID, though 8-aligned. */
	make_macho(b);
	put_le32(b + SYN_UUID + 4, 16);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_CORRUPT);
	/* An LC_SYMTAB too short for its fields. */
	make_macho(b);
	put_le32(b + SYN_SYMTAB + 4, 16);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_CORRUPT);
}

Test(macho, nsects_overflowing_cmdsize)
{
	static const uint32_t bad[] = { 2, 0x40000000, 0xffffffff };
	uint8_t b[SYN_SIZE];
	struct macho_file m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_macho(b);
		put_le32(b + SYN_SEG + 64, bad[i]);
		cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_CORRUPT, "nsects %u", bad[i]);
	}
	/* A segment command shorter than its own fields. */
	make_macho(b);
	put_le32(b + SYN_SEG + 4, 64);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_CORRUPT);
}

Test(macho, symbol_table_out_of_bounds)
{
	struct { uint32_t symoff, nsyms, stroff, strsize; } bad[] = {
		{ SYN_SYMS, 0xffffffff, SYN_STRS, SYN_STRSIZE },  /* nsyms * 16 overflows 32 bits */
		{ 0xfffffff0, 3, SYN_STRS, SYN_STRSIZE },         /* symoff + size overflows 32 bits */
		{ SYN_SIZE, 1, SYN_STRS, SYN_STRSIZE },
		{ SYN_SYMS, 3, SYN_STRS, SYN_STRSIZE + 1 },
		{ SYN_SYMS, 3, 0xffffffff, 2 },
		{ SYN_SYMS, 3, SYN_STRS, 0xffffffff },
	};
	uint8_t b[SYN_SIZE];
	struct macho_file m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int n = 0;
		make_macho(b);
		put_le32(b + SYN_SYMTAB + 8, bad[i].symoff);
		put_le32(b + SYN_SYMTAB + 12, bad[i].nsyms);
		put_le32(b + SYN_SYMTAB + 16, bad[i].stroff);
		put_le32(b + SYN_SYMTAB + 20, bad[i].strsize);
		cr_assert_eq(macho_parse(&m, b, sizeof(b)), 0, "case %zu", i);
		cr_assert_eq(macho_symbols(&m, count_symbols, &n), MACHO_E_CORRUPT, "case %zu", i);
		cr_assert_eq(n, 0);
	}
}

Test(macho, bad_symbol_names_skipped)
{
	uint8_t b[SYN_SIZE];
	struct macho_file m;
	int n;

	/* strx past the string table, and strx 0. */
	make_macho(b);
	put_le32(b + SYN_SYMS, SYN_STRSIZE);
	put_le32(b + SYN_SYMS + 16, 0);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), 0);
	n = 0;
	cr_assert_eq(macho_symbols(&m, count_symbols, &n), 0);
	cr_assert_eq(n, 0);
	/* A name that runs to the end of the string table unterminated. */
	make_macho(b);
	memset(b + SYN_STRS + 4, 'x', SYN_STRSIZE - 4);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), 0);
	n = 0;
	cr_assert_eq(macho_symbols(&m, count_symbols, &n), 0);
	cr_assert_eq(n, 1, "only _f is well named");
	/* No LC_SYMTAB at all: turn it into an unknown command. */
	make_macho(b);
	put_le32(b + SYN_SYMTAB, 0x7fff);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), 0);
	cr_assert_eq(macho_symbols(&m, count_symbols, &n), MACHO_E_NOTFOUND);
}

Test(macho, section_bytes_checked)
{
	uint8_t b[SYN_SIZE];
	struct macho_file m;
	struct one_section o;

	/* Past the buffer. */
	make_macho(b);
	put_le32(b + SYN_SECT + 48, SYN_SIZE - 8);
	put_le64(b + SYN_SEG + 48, 0x10000);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), 0);
	o.n = 0;
	cr_assert_eq(macho_sections(&m, keep_section, &o), 0);
	cr_assert_null(o.s.data);
	/* Inside the buffer but outside its segment's file range. */
	make_macho(b);
	put_le64(b + SYN_SEG + 48, SYN_CODE);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), 0);
	cr_assert_eq(macho_sections(&m, keep_section, &o), 0);
	cr_assert_null(o.s.data);
	/* Zerofill. */
	make_macho(b);
	put_le32(b + SYN_SECT + 64, 0x1);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), 0);
	cr_assert_eq(macho_sections(&m, keep_section, &o), 0);
	cr_assert_null(o.s.data);
	/* A size that wraps around. */
	make_macho(b);
	put_le64(b + SYN_SECT + 40, 0xfffffffffffffff0ull);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), 0);
	cr_assert_eq(macho_sections(&m, keep_section, &o), 0);
	cr_assert_null(o.s.data);
}

Test(macho, sixteen_character_names)
{
	uint8_t b[SYN_SIZE];
	struct macho_file m;
	struct macho_segment seg;
	struct one_section o = { .n = 0 };

	make_macho(b);
	memcpy(b + SYN_SEG + 8, "ABCDEFGHIJKLMNOP", 16);
	memcpy(b + SYN_SECT, "abcdefghijklmnop", 16);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), 0);
	cr_assert_eq(macho_segment_by_name(&m, "ABCDEFGHIJKLMNOP", &seg), 0);
	cr_assert_str_eq(seg.name, "ABCDEFGHIJKLMNOP");
	cr_assert_eq(macho_sections(&m, keep_section, &o), 0);
	cr_assert_str_eq(o.s.sectname, "abcdefghijklmnop");
}

Test(macho, no_uuid)
{
	uint8_t b[SYN_SIZE], u[16];
	struct macho_file m;

	make_macho(b);
	put_le32(b + SYN_UUID, 0x7ffe);
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), 0);
	cr_assert_eq(macho_uuid(&m, u), MACHO_E_NOTFOUND);
}

Test(macho, not_macho_and_unsupported)
{
	uint8_t b[SYN_SIZE];
	struct macho_file m;
	struct macho_slice s;
	size_t n;

	cr_assert_eq(macho_parse(&m, "hello", 5), MACHO_E_NOTMACHO);
	cr_assert_eq(macho_parse(&m, "\177ELF\2\1\1\0", 8), MACHO_E_NOTMACHO);
	cr_assert_eq(macho_slices("\177ELF\2\1\1\0", 8, &s, 1, &n), MACHO_E_NOTMACHO);
	cr_assert_eq(macho_parse(&m, "", 0), MACHO_E_NOTMACHO);
	make_macho(b);
	put_le32(b, 0xfeedface);   /* 32-bit */
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_UNSUPPORTED);
	cr_assert_eq(macho_slices(b, sizeof(b), &s, 1, &n), 0);
	cr_assert_eq(n, 1);
	put_le32(b, 0xcffaedfe);   /* 64-bit big-endian */
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_UNSUPPORTED);
	cr_assert_eq(macho_slices(b, sizeof(b), &s, 1, &n), 0);
	cr_assert_eq(s.cputype, 0x0c000001, "the big-endian cputype read as such");
	make_macho(b);
	put_le32(b + 4, 0x01000012); /* ppc64 */
	cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_UNSUPPORTED);
	cr_assert_str_eq(prof_strerror(MACHO_E_NOTMACHO), "not a Mach-O file");
	cr_assert_str_eq(prof_strerror(MACHO_E_CORRUPT), "corrupt Mach-O file");
}

/* --- universal files made by hand --------------------------------------- */

#define FAT_SLICE0 128
#define FAT_SLICE1 (FAT_SLICE0 + SYN_SIZE)
#define FAT_SIZE (FAT_SLICE1 + SYN_SIZE)

static void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

/* Two copies of the hand-made file, the second relabelled x86_64, behind a
 * 32- or 64-bit universal header. */
static void make_fat(uint8_t *b, int wide)
{
	size_t entry = wide ? 32 : 20;

	memset(b, 0, FAT_SIZE);
	put_be32(b, wide ? 0xcafebabf : 0xcafebabe);
	put_be32(b + 4, 2);
	for (int i = 0; i < 2; i++) {
		uint8_t *a = b + 8 + i * entry;
		uint32_t off = i ? FAT_SLICE1 : FAT_SLICE0;
		put_be32(a, i ? MACHO_CPU_TYPE_X86_64 : MACHO_CPU_TYPE_ARM64);
		put_be32(a + 4, i ? 3 : 0);
		if (wide) {
			put_be64(a + 8, off);
			put_be64(a + 16, SYN_SIZE);
			put_be32(a + 24, 3);
		} else {
			put_be32(a + 8, off);
			put_be32(a + 12, SYN_SIZE);
			put_be32(a + 16, 3);
		}
		make_macho(b + off);
		if (i)
			put_le32(b + off + 4, MACHO_CPU_TYPE_X86_64);
	}
}

Test(macho, universal_by_hand)
{
	uint8_t b[FAT_SIZE];
	for (int wide = 0; wide < 2; wide++) {
		struct macho_slice s[2];
		struct macho_file m;
		size_t n;

		make_fat(b, wide);
		cr_assert_eq(macho_slices(b, sizeof(b), s, 2, &n), 0);
		cr_assert_eq(n, 2);
		cr_assert_eq(s[0].cputype, MACHO_CPU_TYPE_ARM64);
		cr_assert_eq(s[1].cputype, MACHO_CPU_TYPE_X86_64);
		cr_assert_eq(s[1].cpusubtype, 3);
		cr_assert_eq(s[1].offset, FAT_SLICE1);
		cr_assert_eq(s[1].size, SYN_SIZE);
		cr_assert_eq(macho_parse(&m, b, sizeof(b)), MACHO_E_UNSUPPORTED, "a universal file is not thin");
		cr_assert_eq(macho_parse(&m, b + s[1].offset, s[1].size), 0);
		cr_assert_eq(m.cputype, MACHO_CPU_TYPE_X86_64);
	}
}

Test(macho, universal_slice_past_the_end)
{
	uint8_t b[FAT_SIZE];
	struct macho_slice s[2];
	size_t n;

	make_fat(b, 0);
	put_be32(b + 8 + 20 + 12, SYN_SIZE + 1);      /* size one too many */
	cr_assert_eq(macho_slices(b, sizeof(b), s, 2, &n), MACHO_E_CORRUPT);
	make_fat(b, 0);
	put_be32(b + 8 + 20 + 8, 0xffffff00);         /* offset + size wraps 32 bits */
	put_be32(b + 8 + 20 + 12, 0x200);
	cr_assert_eq(macho_slices(b, sizeof(b), s, 2, &n), MACHO_E_CORRUPT);
	make_fat(b, 1);
	put_be64(b + 8 + 32 + 8, 0xffffffffffffff00ull); /* wraps 64 bits */
	put_be64(b + 8 + 32 + 16, 0x200);
	cr_assert_eq(macho_slices(b, sizeof(b), s, 2, &n), MACHO_E_CORRUPT);
	/* The slice the caller has no room for is checked too. */
	make_fat(b, 0);
	put_be32(b + 8 + 20 + 12, SYN_SIZE + 1);
	cr_assert_eq(macho_slices(b, sizeof(b), s, 1, &n), MACHO_E_CORRUPT);
	/* A slice over the universal header itself. */
	make_fat(b, 0);
	put_be32(b + 8 + 8, 0);
	cr_assert_eq(macho_slices(b, sizeof(b), s, 2, &n), MACHO_E_CORRUPT);
}

Test(macho, universal_arch_count)
{
	uint8_t b[FAT_SIZE];
	struct macho_slice s[2];
	size_t n;

	make_fat(b, 0);
	put_be32(b + 4, 0xffffffff);
	cr_assert_eq(macho_slices(b, sizeof(b), s, 2, &n), MACHO_E_NOTMACHO);
	put_be32(b + 4, 0x0000003d);  /* a Java class file's version */
	cr_assert_eq(macho_slices(b, sizeof(b), s, 2, &n), MACHO_E_NOTMACHO);
	put_be32(b + 4, 0);
	cr_assert_eq(macho_slices(b, sizeof(b), s, 2, &n), MACHO_E_CORRUPT);
	/* More entries than the buffer holds. */
	put_be32(b + 4, 3);
	cr_assert_eq(macho_slices(b, 8 + 2 * 20, s, 2, &n), MACHO_E_CORRUPT);
	for (size_t k = 0; k < 8 + 2 * 32; k++) {
		uint8_t *p;
		make_fat(b, 1);
		p = exact(b, k);
		int r = macho_slices(p, k, s, 2, &n);
		cr_assert_eq(r, k < 4 ? MACHO_E_NOTMACHO : MACHO_E_CORRUPT, "%zu bytes: %d", k, r);
		free(p);
	}
}

/* --- damage to real files ----------------------------------------------- */

static int any_symbol(void *ctx, const struct macho_symbol *s)
{
	(*(int *)ctx)++;
	cr_assert_not_null(s->name);
	return 0;
}

static int any_section(void *ctx, const struct macho_section *s)
{
	if (s->data)
		*(volatile uint8_t *)ctx ^= s->data[s->size - 1];
	return 0;
}

static int any_segment(void *ctx, const struct macho_segment *s)
{
	(*(int *)ctx)++;
	return 0;
}

/* Everything the reader offers, on damaged bytes: it must never fault. */
static void exercise(const uint8_t *p, size_t n)
{
	struct macho_slice slices[4];
	size_t ns;

	if (macho_slices(p, n, slices, 4, &ns) < 0)
		return;
	for (size_t i = 0; i < ns && i < 4; i++) {
		struct macho_file m;
		struct macho_segment seg;
		uint8_t u[16], x = 0;
		int k = 0;

		if (macho_parse(&m, p + slices[i].offset, slices[i].size) < 0)
			continue;
		macho_uuid(&m, u);
		macho_segment_by_name(&m, "__TEXT", &seg);
		macho_segments(&m, any_segment, &k);
		macho_sections(&m, any_section, &x);
		macho_symbols(&m, any_symbol, &k);
	}
}

static void truncate_everywhere(const char *path)
{
	struct mapped f = load(path);
	struct macho_file m;
	size_t cmds_end;

	parse_thin(&m, &f);
	cmds_end = 32 + (size_t)m.sizeofcmds;
	for (size_t n = 0; n <= f.n; n += n < cmds_end + 64 ? 1 : 61) {
		uint8_t *p = exact(f.p, n);
		int r = macho_parse(&m, p, n);
		if (n < cmds_end)
			cr_assert(r == MACHO_E_CORRUPT || r == MACHO_E_NOTMACHO, "%s cut at %zu: %d", path, n, r);
		else
			cr_assert_eq(r, 0, "%s cut at %zu: %d", path, n, r);
		exercise(p, n);
		free(p);
	}
	free(f.p);
}

Test(macho, every_truncation_of_real_files)
{
	const char *t = "every_truncation_of_real_files";
	truncate_everywhere(fixture(t, "app-arm64"));
	truncate_everywhere(fixture(t, "libwork.dylib"));
	truncate_everywhere(dsym(t, "app-x86_64"));
}

Test(macho, every_truncation_of_a_universal_file)
{
	struct mapped f = load(fixture("every_truncation_of_a_universal_file", "app-universal"));
	for (size_t n = 0; n <= f.n; n += n < 4096 ? 1 : 97) {
		uint8_t *p = exact(f.p, n);
		exercise(p, n);
		free(p);
	}
	free(f.p);
}

static void flip_bytes(const char *path)
{
	struct mapped f = load(path);
	uint8_t *copy = malloc(f.n);

	srand(2100);
	for (int round = 0; round < 3000; round++) {
		memcpy(copy, f.p, f.n);
		for (int k = 0; k < 6; k++) {
			size_t at = (size_t)rand() % (round % 2 ? f.n : (f.n < 2048 ? f.n : 2048));
			copy[at] = (uint8_t)rand();
		}
		exercise(copy, f.n);
	}
	free(copy);
	free(f.p);
}

Test(macho, flipped_bytes)
{
	const char *t = "flipped_bytes";
	flip_bytes(fixture(t, "app-arm64"));
	flip_bytes(fixture(t, "app-universal"));
	flip_bytes(dsym(t, "libwork.dylib"));
}

Test(macho, flipped_bytes_by_hand)
{
	uint8_t b[FAT_SIZE], copy[FAT_SIZE];

	srand(7);
	make_fat(b, 1);
	for (int round = 0; round < 20000; round++) {
		memcpy(copy, b, sizeof(b));
		for (int k = 0; k < 3; k++)
			copy[(size_t)rand() % sizeof(copy)] = (uint8_t)rand();
		exercise(copy, sizeof(copy));
		exercise(copy + FAT_SLICE0, SYN_SIZE);
	}
}

/* --- a synthetic macOS trace -------------------------------------------- */

static char synth_dir[] = "/tmp/test_macho.XXXXXX";

static const char *synth_trace_tool(const char *test)
{
	static char path[PATH_LEN];
	snprintf(path, sizeof(path), "%s/tests/tools/synth_trace", build_dir);
	if (access(path, X_OK) != 0)
		skip_because(test, "no %s (make fixtures builds it)", path);
	return path;
}

Test(macho, synth_trace_loads)
{
	const char *tool = synth_trace_tool("synth_trace_loads");
	const char *app = fixture("synth_trace_loads", "app-arm64");
	struct mapped f = load(app);
	struct macho_file m;
	struct macho_segment text;
	struct trace *t = NULL;
	uint8_t u[16];
	char uuid[37], cmd[CMD_LEN], trace_path[64];
	uint64_t stack[8], slide = 0x4000;
	int r;

	parse_thin(&m, &f);
	cr_assert_eq(macho_uuid(&m, u), 0);
	cr_assert_eq(macho_segment_by_name(&m, "__TEXT", &text), 0);
	format_uuid(u, uuid);
	cr_assert_not_null(mkdtemp(synth_dir));
	snprintf(trace_path, sizeof(trace_path), "%s/out.trace", synth_dir);
	snprintf(cmd, sizeof(cmd),
		 "'%s' -o '%s' --os macos --arch arm64 --pid 42 --command App --command -v "
		 "--image ID=1,KIND=uuid,IDENT=%s,PATH=/Applications/App.app/Contents/MacOS/App,"
		 "START=%#llx,SIZE=%#llx,BIAS=%#llx "
		 "--thread TID=1,NAME=main --thread TID=7,NAME=worker "
		 "--sample TID=1,STATE=running,STACK=%#llx:%#llx:%#llx --count 3 "
		 "--sample TID=7,STATE=sleeping,STACK=%#llx,TRUNCATED=1 --exit 3",
		 tool, trace_path, uuid, (unsigned long long)(text.vmaddr + slide),
		 (unsigned long long)text.vmsize, (unsigned long long)slide,
		 (unsigned long long)(text.vmaddr + slide + 0x570), (unsigned long long)(text.vmaddr + slide + 0x600),
		 (unsigned long long)(text.vmaddr + slide + 0x630), (unsigned long long)(text.vmaddr + slide + 0x5b0));
	cr_assert_eq(system(cmd), 0, "%s", cmd);

	r = trace_load(trace_path, &t);
	cr_assert_eq(r, 0, "trace_load: %s", prof_strerror(r));
	cr_assert_eq(t->session.os, TRACE_OS_MACOS);
	cr_assert_eq(t->session.arch, TRACE_ARCH_ARM64);
	cr_assert_eq(t->session.mode, TRACE_MODE_WALL);
	cr_assert_eq(t->session.pid, 42);
	cr_assert_eq(t->session.argc, 2);
	cr_assert_str_eq(t->session.argv[0], "App");
	cr_assert_str_eq(t->session.argv[1], "-v");
	cr_assert(t->status.has_footer);

	cr_assert_eq(t->nimages, 1);
	cr_assert_eq(t->images[0].id, 1);
	cr_assert_eq(t->images[0].ident_kind, TRACE_IDENT_MACHO_UUID);
	cr_assert_eq(t->images[0].ident_len, 16);
	cr_assert_eq(memcmp(t->images[0].ident, u, 16), 0);
	cr_assert_str_eq(t->images[0].path, "/Applications/App.app/Contents/MacOS/App");
	cr_assert_eq(t->images[0].start, 0x100004000ull);
	cr_assert_eq(t->images[0].bias, slide);
	cr_assert_eq(t->images[0].size, text.vmsize);
	cr_assert_eq(t->images[0].arch, TRACE_ARCH_ARM64);

	cr_assert_eq(t->nthreads, 2);
	cr_assert_str_eq(trace_thread_name_at(trace_thread_find(t, 1), 0), "main");
	cr_assert_str_eq(trace_thread_name_at(trace_thread_find(t, 7), 0), "worker");

	cr_assert_eq(t->nsamples, 4);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(t->samples[i].tid, 1);
		cr_assert_eq(t->samples[i].state, TRACE_STATE_RUNNING);
		cr_assert_eq(trace_stack(t, t->samples[i].stack, stack, 8), 3);
		cr_assert_eq(stack[0], text.vmaddr + slide + 0x570);
		cr_assert_eq(stack[2], text.vmaddr + slide + 0x630);
		cr_assert_gt(t->samples[i].time, i ? t->samples[i - 1].time : 0);
	}
	cr_assert_eq(t->samples[3].tid, 7);
	cr_assert_eq(t->samples[3].state, TRACE_STATE_SLEEPING);
	cr_assert_eq(t->samples[3].flags, TRACE_SAMPLE_TRUNCATED);
	cr_assert_eq(trace_stack(t, t->samples[3].stack, stack, 8), 1);
	cr_assert(t->has_end && t->end.has_exit);
	cr_assert_eq(t->end.exit_status, 3 << 8);
	trace_free(t);
	free(f.p);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", synth_dir);
	cr_assert_eq(system(cmd), 0);
}

Test(macho, synth_trace_bad_usage)
{
	static const char *const bad[] = {
		"",                                          /* no -o */
		"-o /dev/null --pid 0xzz",
		"-o /dev/null --os beos",
		"-o /dev/null --image IDENT=abc",            /* odd hex digits */
		"-o /dev/null --image ID=1,KIND=none,IDENT=ab",
		"-o /dev/null --image START",
		"-o /dev/null --image COLOUR=red",
		"-o /dev/null --sample TID=1",               /* no such thread */
		"-o /dev/null --count 3",
		"-o /dev/null --thread NAME=x",
		"-o /dev/null --thread TID=1 --sample TID=1,STACK=0x1:",
		"-o /dev/null --no-such-option",
		"-o /dev/null stray",
	};
	const char *tool = synth_trace_tool("synth_trace_bad_usage");
	char cmd[CMD_LEN];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int st;
		snprintf(cmd, sizeof(cmd), "'%s' %s 2>/dev/null", tool, bad[i]);
		st = system(cmd);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "'%s' exited %d, not 2", bad[i], st);
	}
	snprintf(cmd, sizeof(cmd), "'%s' -h >/dev/null", tool);
	cr_assert_eq(system(cmd), 0);
}
