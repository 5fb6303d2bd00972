/*
 * test_dwdie.c: the DIE reader against llvm-dwarfdump, the oracle, and on
 * DWARF written byte by byte.
 *
 * Every DIE of the DWARF fixtures (testdata/inline.c as GCC and clang
 * write DWARF 4 and 5, string and address indexes and rnglistx included,
 * compressed with zlib, and a C++ program), and of the Rust fixture
 * (LLVM's DWARF 4, nearly a megabyte of it) is walked in order, null
 * entries included, and must have the offset, tag, name and address
 * ranges that llvm-dwarfdump prints. Then units made here: every form's
 * value and size, DW_FORM_indirect, implicit constants, indexed strings
 * and addresses, each kind of range list entry, base addresses and
 * tombstones, abbreviation codes that do not count up, and damage: every
 * truncation, forged offsets and siblings, unknown codes and forms.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/elf.h"
#include "common/dwconst.h"
#include "report/dwarf/dwdie.h"
#include "tests/unit/build_dir.h"
#include "tests/unit/object_file.h"

#define SHF_COMPRESSED_FLAG 0x800

static char tmpdir[64];

static void setup(void)
{
	find_build_dir();
	strcpy(tmpdir, "/tmp/test_dwdie.XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (tmpdir[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

TestSuite(dwdie, .init = setup, .fini = teardown, .timeout = 600);

/* ---- sections ---- */

/* The sections a test gives, by name. */
enum { S_INFO, S_ABBREV, S_STR, S_LINE_STR, S_STR_OFFSETS, S_ADDR, S_RANGES, S_RNGLISTS, NSECT };
static const char *const names[NSECT + 1] = {
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
	".debug_str_offsets", ".debug_addr", ".debug_ranges", ".debug_rnglists", NULL,
};

struct sections {
	const uint8_t *p[NSECT];
	uint64_t n[NSECT];
	struct dwsect_table t;
};

/* A reader over s, as dwinfo makes one. Close it with close_reader(). */
static struct dwdie_file *open_reader(struct sections *s)
{
	struct dwinfo_section v[NSECT];
	size_t n = 0;

	for (int k = 0; k < NSECT; k++)
		if (s->p[k])
			v[n++] = (struct dwinfo_section){ .name = names[k], .data = s->p[k], .size = s->n[k] };
	memset(&s->t, 0, sizeof(s->t));
	cr_assert_eq(dwsect_take(&s->t, v, n, names), 0);
	return dwdie_new(&s->t);
}

static void close_reader(struct sections *s, struct dwdie_file *f)
{
	dwdie_free(f);
	dwsect_release(&s->t);
}

/* An ELF file's DWARF sections, mapped; compressed ones are inflated by
 * the section table. */
struct object {
	struct mapped m;
	struct dwinfo_section v[NSECT];
	size_t n;
	struct dwsect_table t;
};

static struct dwdie_file *object_open(struct object *o, const char *path)
{
	struct elf_file e;

	memset(o, 0, sizeof(*o));
	o->m = must_map(path);
	cr_assert_eq(elf_parse(&e, o->m.p, o->m.n), 0, "%s is not ELF", path);
	for (unsigned i = 1; i < e.shnum; i++) {
		struct elf_section sec;

		cr_assert_eq(elf_section(&e, i, &sec), 0);
		for (int k = 0; k < NSECT; k++)
			if (!strcmp(sec.name, names[k]) && sec.data)
				o->v[o->n++] = (struct dwinfo_section){
					.name = names[k], .data = sec.data, .size = sec.size,
					.compressed = !!(sec.flags & SHF_COMPRESSED_FLAG) };
	}
	cr_assert_eq(dwsect_take(&o->t, o->v, o->n, names), 0, "%s", path);
	cr_assert_neq(dwsect_index(&o->t, ".debug_info"), 0, "%s has no .debug_info", path);
	return dwdie_new(&o->t);
}

static void object_close(struct object *o, struct dwdie_file *f)
{
	dwdie_free(f);
	dwsect_release(&o->t);
	munmap(o->m.p, o->m.n);
}

/* ---- the oracle ---- */

struct range {
	uint64_t lo, hi;
};

struct entry {
	uint64_t off;
	char *tag;          /* "DW_TAG_subprogram", "NULL" */
	char *name;         /* DW_AT_name, or NULL */
	struct range *ranges; /* DW_AT_ranges, or NULL */
	size_t nranges;
	int has_ranges;
};

static struct range *add_range(struct entry *e, uint64_t lo, uint64_t hi)
{
	e->ranges = realloc(e->ranges, (e->nranges + 1) * sizeof(*e->ranges));
	cr_assert_not_null(e->ranges);
	e->ranges[e->nranges] = (struct range){ lo, hi };
	return &e->ranges[e->nranges++];
}

/* A string as llvm-dwarfdump prints it escaped, of n bytes at p, read
 * back: \\, \", \n, \t and \xHH. Caller frees. */
static char *unescape(const char *p, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	cr_assert_not_null(out);
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\\' || i + 1 == n) {
			*o++ = p[i];
			continue;
		}
		switch (p[++i]) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'x':
			if (i + 2 < n) {
				char hex[3] = { p[i + 1], p[i + 2], 0 };
				*o++ = (char)strtol(hex, NULL, 16);
				i += 2;
			}
			break;
		default: *o++ = p[i]; break;
		}
	}
	*o = 0;
	return out;
}

/* The DIEs llvm-dwarfdump prints for path, in order. */
static struct entry *oracle(const char *path, size_t *n)
{
	char cmd[512], out[160], *line = NULL;
	size_t cap = 0, len = 0, alloc = 0;
	struct entry *v = NULL, *cur = NULL;
	int in_ranges = 0;
	FILE *f;

	snprintf(out, sizeof(out), "%s/dump", tmpdir);
	snprintf(cmd, sizeof(cmd), "llvm-dwarfdump --debug-info '%s' > %s", path, out);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	f = fopen(out, "r");
	cr_assert_not_null(f);
	while (getline(&line, &cap, f) > 0) {
		unsigned long long off, lo, hi;
		char tag[128], *p;

		if (in_ranges && sscanf(line, " [0x%llx, 0x%llx)", &lo, &hi) == 2) {
			add_range(cur, lo, hi);
			in_ranges = !strstr(line, "))");
			continue;
		}
		in_ranges = 0;
		if (sscanf(line, "0x%llx: %127s", &off, tag) == 2 &&
		    (!strncmp(tag, "DW_TAG_", 7) || !strcmp(tag, "NULL"))) {
			if (len == alloc) {
				alloc = alloc ? 2 * alloc : 1024;
				v = realloc(v, alloc * sizeof(*v));
				cr_assert_not_null(v);
			}
			cur = &v[len++];
			memset(cur, 0, sizeof(*cur));
			cur->off = off;
			cur->tag = strdup(tag);
			continue;
		}
		if (!cur)
			continue;
		if ((p = strstr(line, "DW_AT_name\t(\"")) && !cur->name) {
			char *q = strrchr(p, '"');

			p += strlen("DW_AT_name\t(\"");
			cur->name = unescape(p, (size_t)(q - p));
		} else if ((p = strstr(line, "DW_AT_ranges\t(")) && !cur->has_ranges) {
			cur->has_ranges = 1;
			in_ranges = !strstr(p, ")") || strstr(p, "[") == NULL;
			if (sscanf(p, "DW_AT_ranges\t(0x%llx [0x%llx, 0x%llx)", &off, &lo, &hi) == 3)
				add_range(cur, lo, hi);
		}
	}
	free(line);
	fclose(f);
	*n = len;
	return v;
}

static void oracle_free(struct entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].tag);
		free(v[i].name);
		free(v[i].ranges);
	}
	free(v);
}

/* The tags checked by name; any other is checked by offset only. */
static const struct {
	uint32_t tag;
	const char *name;
} tags[] = {
	{ DW_TAG_compile_unit, "DW_TAG_compile_unit" },
	{ DW_TAG_partial_unit, "DW_TAG_partial_unit" },
	{ DW_TAG_subprogram, "DW_TAG_subprogram" },
	{ DW_TAG_inlined_subroutine, "DW_TAG_inlined_subroutine" },
	{ DW_TAG_lexical_block, "DW_TAG_lexical_block" },
	{ DW_TAG_variable, "DW_TAG_variable" },
	{ DW_TAG_formal_parameter, "DW_TAG_formal_parameter" },
	{ DW_TAG_base_type, "DW_TAG_base_type" },
	{ DW_TAG_structure_type, "DW_TAG_structure_type" },
	{ DW_TAG_typedef, "DW_TAG_typedef" },
	{ DW_TAG_pointer_type, "DW_TAG_pointer_type" },
};

static void collect(void *ctx, uint64_t lo, uint64_t hi)
{
	add_range(ctx, lo, hi);
}

/* Walks every DIE of every unit of path and requires what the oracle
 * says of each. Returns the number of DIEs compared. */
static size_t compare_file(const char *path)
{
	struct object o;
	struct dwdie_file *f;
	struct entry *want;
	size_t nwant, k = 0, named = 0, ranged = 0;
	uint64_t off = 0;

	f = object_open(&o, path);
	want = oracle(path, &nwant);
	while (off < o.t.v[dwsect_index(&o.t, ".debug_info")].size) {
		struct dwdie_unit u;
		uint64_t at;

		cr_assert_eq(dwdie_unit(f, off, &u), 0, "%s: unit at %#llx", path, (unsigned long long)off);
		cr_assert_neq(u.tag, 0, "%s: the unit DIE at %#llx", path, (unsigned long long)u.die);
		for (at = u.die; at < u.end; k++) {
			struct dwdie d;
			struct dwdie_attr a;
			struct entry got = { 0 };
			const struct entry *w;
			int r;

			cr_assert_lt(k, nwant, "%s: more DIEs than llvm-dwarfdump prints", path);
			w = &want[k];
			cr_assert_eq(dwdie_begin(f, &u, at, &d), 0, "%s: DIE at %#llx", path, (unsigned long long)at);
			cr_assert_eq(d.off, w->off, "%s: DIE %zu at %#llx, llvm-dwarfdump says %#llx", path, k,
				     (unsigned long long)d.off, (unsigned long long)w->off);
			if (!d.tag) {
				cr_assert_str_eq(w->tag, "NULL", "%s: %#llx", path, (unsigned long long)at);
				at = d.next;
				continue;
			}
			for (size_t t = 0; t < sizeof(tags) / sizeof(tags[0]); t++)
				if (tags[t].tag == d.tag)
					cr_assert_str_eq(w->tag, tags[t].name, "%s: %#llx", path, (unsigned long long)at);
			while ((r = dwdie_attr(f, &u, &d, &a)) > 0) {
				if (a.name == DW_AT_name && !got.name) {
					const char *s = dwdie_string(f, &u, &a);

					cr_assert_not_null(s, "%s: the name at %#llx", path, (unsigned long long)at);
					got.name = (char *)s;
				} else if (a.name == DW_AT_ranges && !got.has_ranges) {
					got.has_ranges = 1;
					cr_assert_eq(dwdie_ranges(f, &u, &a, 1u << 20, collect, &got), 0,
						     "%s: the ranges at %#llx", path, (unsigned long long)at);
				}
			}
			cr_assert_eq(r, 0, "%s: the attributes at %#llx", path, (unsigned long long)at);
			cr_assert_gt(d.next, at);
			if (w->name) {
				cr_assert_not_null(got.name, "%s: %#llx has no name", path, (unsigned long long)at);
				cr_assert_str_eq(got.name, w->name, "%s: %#llx", path, (unsigned long long)at);
				named++;
			} else {
				cr_assert_null(got.name, "%s: %#llx", path, (unsigned long long)at);
			}
			cr_assert_eq(got.has_ranges, w->has_ranges, "%s: %#llx", path, (unsigned long long)at);
			if (got.has_ranges) {
				/* llvm-dwarfdump prints dropped code too; the reader
				 * leaves it out. */
				size_t j = 0;

				for (size_t i = 0; i < w->nranges; i++) {
					if (dwdie_tombstone(w->ranges[i].lo, u.addr_size))
						continue;
					cr_assert_lt(j, got.nranges, "%s: %#llx: range %zu", path,
						     (unsigned long long)at, i);
					cr_assert_eq(got.ranges[j].lo, w->ranges[i].lo, "%s: %#llx", path,
						     (unsigned long long)at);
					cr_assert_eq(got.ranges[j].hi, w->ranges[i].hi, "%s: %#llx", path,
						     (unsigned long long)at);
					j++;
				}
				cr_assert_eq(j, got.nranges, "%s: %#llx", path, (unsigned long long)at);
				free(got.ranges);
				ranged++;
			}
			at = d.next;
		}
		cr_assert_eq(at, u.end, "%s: the unit at %#llx", path, (unsigned long long)off);
		off = u.end;
	}
	cr_assert_eq(k, nwant, "%s: %zu DIEs read, llvm-dwarfdump prints %zu", path, k, nwant);
	printf("dwdie: %s: %zu DIEs as llvm-dwarfdump prints them, %zu names, %zu range lists\n", path,
	       k, named, ranged);
	oracle_free(want, nwant);
	object_close(&o, f);
	return k;
}

static int have(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

static void need_oracle(void)
{
	if (!have("llvm-dwarfdump"))
		cr_skip_test("llvm-dwarfdump is not installed (the oracle)");
}

Test(dwdie, fixtures_match_llvm_dwarfdump)
{
	/* objcopy-zstd is left out: llvm-dwarfdump 14 cannot read zstd. */
	static const char *const fixtures[] = {
		"gcc-dwarf4", "gcc-dwarf5", "gcc-zlib", "clang-dwarf4", "clang-dwarf5", "clang-zlib",
		"cxx-shapes",
	};
	size_t compared = 0;

	need_oracle();
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char path[PATH_MAX + 64], why[256];

		if (dwarf_fixture(build_dir, fixtures[i], path, sizeof(path), why, sizeof(why)) < 0) {
			printf("dwdie: fixture %s skipped: %s\n", fixtures[i], why);
			continue;
		}
		cr_expect_gt(compare_file(path), 50, "%s", fixtures[i]);
		compared++;
	}
	cr_expect_geq(compared, 2, "only %zu fixtures were built", compared);
}

Test(dwdie, rust_matches_llvm_dwarfdump)
{
	char path[PATH_MAX + 32];

	need_oracle();
	snprintf(path, sizeof(path), "%s/testdata/rust/shapes", build_dir);
	if (access(path, R_OK) != 0)
		cr_skip_test("no %s (the Rust fixture needs rustc)", path);
	cr_expect_gt(compare_file(path), 50000);
}

/* ---- DWARF written here ---- */

/* The sections of units written here, by S_*. */
struct unit_bytes {
	struct buf b[NSECT];
};

static void u8(struct buf *b, unsigned v)
{
	buf_addch(b, (int)(v & 0xff));
}

static void le(struct buf *b, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		u8(b, (unsigned)(v >> (8 * i)));
}

static void uleb(struct buf *b, uint64_t v)
{
	do {
		unsigned c = v & 0x7f;

		v >>= 7;
		u8(b, c | (v ? 0x80 : 0));
	} while (v);
}

static void sleb(struct buf *b, int64_t v)
{
	for (;;) {
		unsigned c = (unsigned)v & 0x7f;
		int done = (v >> 6) == 0 || (v >> 6) == -1;

		v >>= 7;
		u8(b, c | (done ? 0 : 0x80));
		if (done)
			break;
	}
}

static void ub_init(struct unit_bytes *ub)
{
	for (int k = 0; k < NSECT; k++)
		buf_init(&ub->b[k]);
}

static void ub_release(struct unit_bytes *ub)
{
	for (int k = 0; k < NSECT; k++)
		buf_release(&ub->b[k]);
}

/* s over the sections of ub; one left empty is absent. */
static void ub_sections(struct unit_bytes *ub, struct sections *s)
{
	memset(s, 0, sizeof(*s));
	for (int k = 0; k < NSECT; k++) {
		s->p[k] = ub->b[k].len ? ub->b[k].data : NULL;
		s->n[k] = ub->b[k].len;
	}
}

/* A DWARF 5 header of a 32-bit compile unit whose length is patched by
 * end_unit(). */
static size_t begin_unit(struct buf *info, unsigned version)
{
	size_t at = info->len;

	le(info, 0, 4);
	le(info, version, 2);
	if (version >= 5) {
		u8(info, DW_UT_compile);
		u8(info, 8);
		le(info, 0, 4);
	} else {
		le(info, 0, 4);
		u8(info, 8);
	}
	return at;
}

static void end_unit(struct buf *info, size_t at)
{
	uint64_t len = info->len - at - 4;

	for (unsigned i = 0; i < 4; i++)
		info->data[at + i] = (uint8_t)(len >> (8 * i));
}

/* An abbreviation's head, and one of its attribute specifications (0, 0
 * ends them). */
static void abbrev(struct buf *a, unsigned code, unsigned tag, unsigned children)
{
	uleb(a, code);
	uleb(a, tag);
	u8(a, children);
}

static void spec(struct buf *a, unsigned at, unsigned form)
{
	uleb(a, at);
	uleb(a, form);
}

/* The abbreviation table of the forms unit: code 1 the unit DIE (with
 * its bases), code 2 a DIE with one attribute of every form that has a
 * value, code 3 a subprogram with DW_AT_ranges and a sibling. */
static void forms_abbrev(struct buf *a)
{
	static const uint32_t forms[] = {
		DW_FORM_addr, DW_FORM_block2, DW_FORM_block4, DW_FORM_data2, DW_FORM_data4,
		DW_FORM_data8, DW_FORM_string, DW_FORM_block, DW_FORM_block1, DW_FORM_data1,
		DW_FORM_flag, DW_FORM_sdata, DW_FORM_strp, DW_FORM_udata, DW_FORM_ref_addr,
		DW_FORM_ref1, DW_FORM_ref2, DW_FORM_ref4, DW_FORM_ref8, DW_FORM_ref_udata,
		DW_FORM_indirect, DW_FORM_sec_offset, DW_FORM_exprloc, DW_FORM_flag_present,
		DW_FORM_strx, DW_FORM_addrx, DW_FORM_data16, DW_FORM_ref_sig8,
		DW_FORM_implicit_const, DW_FORM_strx1, DW_FORM_strx2, DW_FORM_strx3,
		DW_FORM_strx4, DW_FORM_addrx1, DW_FORM_addrx2, DW_FORM_addrx3, DW_FORM_addrx4,
	};

	abbrev(a, 1, DW_TAG_compile_unit, 1);
	spec(a, DW_AT_str_offsets_base, DW_FORM_sec_offset);
	spec(a, DW_AT_addr_base, DW_FORM_sec_offset);
	spec(a, DW_AT_rnglists_base, DW_FORM_sec_offset);
	spec(a, DW_AT_low_pc, DW_FORM_addrx);
	spec(a, DW_AT_language, DW_FORM_data2);
	spec(a, 0, 0);
	abbrev(a, 2, DW_TAG_variable, 0);
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		spec(a, 0x2000 + (unsigned)i, forms[i]); /* user attribute numbers: one per form */
		if (forms[i] == DW_FORM_implicit_const)
			sleb(a, -5);
	}
	spec(a, 0, 0);
	abbrev(a, 3, DW_TAG_subprogram, 1);
	spec(a, DW_AT_sibling, DW_FORM_ref4);
	spec(a, DW_AT_ranges, DW_FORM_rnglistx);
	spec(a, DW_AT_name, DW_FORM_strx1);
	spec(a, 0, 0);
	uleb(a, 0);
}

/* A unit with a DIE of every form, and the values its attributes must
 * read back as, in order. */
struct forms_unit {
	struct unit_bytes ub;
	size_t var;            /* the offset of the code 2 DIE */
	size_t sub;            /* of the code 3 DIE */
	size_t after;          /* of the DIE after the subprogram's subtree */
};

static void forms_unit(struct forms_unit *fu)
{
	struct unit_bytes *ub = &fu->ub;
	struct buf *i = &ub->b[S_INFO];
	size_t at, sib;

	ub_init(ub);
	forms_abbrev(&ub->b[S_ABBREV]);
	/* strings: "zero" at 0, "one" at 5, "two" at 9 */
	buf_add(&ub->b[S_STR], "zero\0one\0two", 13);
	/* the string offsets table: an 8-byte header, then 0, 5, 9 */
	le(&ub->b[S_STR_OFFSETS], 16, 4);
	le(&ub->b[S_STR_OFFSETS], 5, 2);
	le(&ub->b[S_STR_OFFSETS], 0, 2);
	le(&ub->b[S_STR_OFFSETS], 0, 4);
	le(&ub->b[S_STR_OFFSETS], 5, 4);
	le(&ub->b[S_STR_OFFSETS], 9, 4);
	/* .debug_addr: an 8-byte header, then 0x1000, 0x2000, 0x3000 */
	le(&ub->b[S_ADDR], 28, 4);
	le(&ub->b[S_ADDR], 5, 2);
	u8(&ub->b[S_ADDR], 8);
	u8(&ub->b[S_ADDR], 0);
	for (unsigned k = 1; k <= 3; k++)
		le(&ub->b[S_ADDR], 0x1000u * k, 8);
	/* .debug_rnglists: one table of one list, offset 0 from the base */
	{
		struct buf *r = &ub->b[S_RNGLISTS];
		size_t start;

		le(r, 0, 4);
		le(r, 5, 2);
		u8(r, 8);
		u8(r, 0);
		le(r, 1, 4);            /* offset count */
		start = r->len;
		le(r, 4, 4);            /* list 0 is just past the array */
		u8(r, DW_RLE_base_addressx); uleb(r, 1);          /* base 0x2000 */
		u8(r, DW_RLE_offset_pair); uleb(r, 0x10); uleb(r, 0x20);
		u8(r, DW_RLE_startx_endx); uleb(r, 0); uleb(r, 2);
		u8(r, DW_RLE_startx_length); uleb(r, 2); uleb(r, 0x8);
		u8(r, DW_RLE_base_address); le(r, 0x5000, 8);
		u8(r, DW_RLE_offset_pair); uleb(r, 1); uleb(r, 2);
		u8(r, DW_RLE_start_end); le(r, 0x7000, 8); le(r, 0x7100, 8);
		u8(r, DW_RLE_start_length); le(r, UINT64_MAX, 8); uleb(r, 4); /* dropped code */
		u8(r, DW_RLE_start_length); le(r, 0x8000, 8); uleb(r, 0x40);
		u8(r, DW_RLE_end_of_list);
		(void)start;
		end_unit(r, 0);
	}
	at = begin_unit(i, 5);
	uleb(i, 1);
	le(i, 8, 4);            /* str_offsets_base: past the header */
	le(i, 8, 4);            /* addr_base */
	le(i, 12, 4);           /* rnglists_base: the offset array */
	uleb(i, 0);             /* low_pc: address 0, 0x1000 */
	le(i, DW_LANG_C11, 2);
	fu->var = i->len;
	uleb(i, 2);
	le(i, 0x1122334455667788ull, 8);                 /* addr */
	le(i, 2, 2); buf_add(i, "ab", 2);               /* block2 */
	le(i, 1, 4); buf_add(i, "c", 1);                /* block4 */
	le(i, 0xbeef, 2);                                /* data2 */
	le(i, 0xdeadbeef, 4);                            /* data4 */
	le(i, 0x0102030405060708ull, 8);                 /* data8 */
	buf_add(i, "inline", 7);                         /* string */
	uleb(i, 3); buf_add(i, "def", 3);               /* block */
	u8(i, 1); buf_add(i, "g", 1);                   /* block1 */
	u8(i, 0x7f);                                     /* data1 */
	u8(i, 1);                                        /* flag */
	sleb(i, -300);                                   /* sdata */
	le(i, 5, 4);                                     /* strp: "one" */
	uleb(i, 300);                                    /* udata */
	le(i, 0x12345, 4);                               /* ref_addr */
	u8(i, 0x21);                                     /* ref1 */
	le(i, 0x22, 2);                                  /* ref2 */
	le(i, 0x23, 4);                                  /* ref4 */
	le(i, 0x24, 8);                                  /* ref8 */
	uleb(i, 0x25);                                   /* ref_udata */
	uleb(i, DW_FORM_data2); le(i, 0x4242, 2);       /* indirect: data2 */
	le(i, 0x99, 4);                                  /* sec_offset */
	uleb(i, 2); buf_add(i, "\x30\x9f", 2);          /* exprloc */
	                                                 /* flag_present */
	uleb(i, 2);                                      /* strx: "two" */
	uleb(i, 2);                                      /* addrx: 0x3000 */
	buf_add(i, "0123456789abcdef", 16);              /* data16 */
	le(i, 0xfeedfacecafebeefull, 8);                 /* ref_sig8 */
	                                                 /* implicit_const -5 */
	u8(i, 0);                                        /* strx1: "zero" */
	le(i, 1, 2);                                     /* strx2: "one" */
	le(i, 2, 3);                                     /* strx3: "two" */
	le(i, 0, 4);                                     /* strx4: "zero" */
	u8(i, 1);                                        /* addrx1: 0x2000 */
	le(i, 2, 2);                                     /* addrx2 */
	le(i, 0, 3);                                     /* addrx3 */
	le(i, 1, 4);                                     /* addrx4 */
	fu->sub = i->len;
	uleb(i, 3);
	sib = i->len;
	le(i, 0, 4);            /* DW_AT_sibling, patched below */
	uleb(i, 0);             /* ranges: list 0 */
	u8(i, 1);               /* name: "one" */
	uleb(i, 2);             /* a child: a code 2 DIE again */
	{
		size_t n = fu->sub - fu->var - 1;
		uint8_t *copy = malloc(n);

		cr_assert_not_null(copy);
		memcpy(copy, i->data + fu->var + 1, n);
		buf_add(i, copy, n);
		free(copy);
	}
	u8(i, 0);               /* end of the subprogram's children */
	fu->after = i->len;
	for (unsigned k = 0; k < 4; k++)
		i->data[sib + k] = (uint8_t)((fu->after - at) >> (8 * k));
	u8(i, 0);               /* end of the unit's children */
	end_unit(i, at);
}

static void collect_ranges(void *ctx, uint64_t lo, uint64_t hi)
{
	struct buf *b = ctx;

	if (b) {
		le(b, lo, 8);
		le(b, hi, 8);
	}
}

/* The k-th bound collect_ranges() wrote. */
static uint64_t bound(const struct buf *b, size_t k)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < 8; i++)
		x |= (uint64_t)b->data[8 * k + i] << (8 * i);
	return x;
}

Test(dwdie, every_form_reads_back)
{
	struct forms_unit fu;
	struct sections s;
	struct dwdie_file *f;
	struct dwdie_unit u;
	struct dwdie d;
	struct dwdie_attr a;
	struct buf got;
	uint64_t v;
	size_t n = 0;

	forms_unit(&fu);
	ub_sections(&fu.ub, &s);
	f = open_reader(&s);
	cr_assert_eq(dwdie_unit(f, 0, &u), 0);
	cr_expect_eq(u.version, 5);
	cr_expect_eq(u.tag, DW_TAG_compile_unit);
	cr_expect_eq(u.lang, DW_LANG_C11);
	cr_expect(u.has_low_pc);
	cr_expect_eq(u.low_pc, 0x1000);
	cr_expect_eq(u.rnglists_base, 12);

	cr_assert_eq(dwdie_begin(f, &u, fu.var, &d), 0);
	cr_expect_eq(d.tag, DW_TAG_variable);
	cr_expect_eq(d.children, 0);
#define NEXT() do { cr_assert_eq(dwdie_attr(f, &u, &d, &a), 1, "attribute %zu", n); n++; } while (0)
	NEXT(); cr_expect_eq(a.form, DW_FORM_addr); cr_expect_eq(dwdie_addr(f, &u, &a, &v), 0);
	cr_expect_eq(v, 0x1122334455667788ull);
	NEXT(); cr_expect_eq(a.val, 2); cr_expect_eq(memcmp(a.data, "ab", 2), 0);
	NEXT(); cr_expect_eq(a.val, 1); cr_expect_eq(a.data[0], 'c');
	NEXT(); cr_expect_eq(dwdie_udata(&a, &v), 0); cr_expect_eq(v, 0xbeef);
	NEXT(); cr_expect_eq(dwdie_udata(&a, &v), 0); cr_expect_eq(v, 0xdeadbeef);
	NEXT(); cr_expect_eq(dwdie_udata(&a, &v), 0); cr_expect_eq(v, 0x0102030405060708ull);
	NEXT(); cr_expect_str_eq(dwdie_string(f, &u, &a), "inline");
	NEXT(); cr_expect_eq(a.val, 3); cr_expect_eq(memcmp(a.data, "def", 3), 0);
	NEXT(); cr_expect_eq(a.val, 1); cr_expect_eq(a.data[0], 'g');
	NEXT(); cr_expect_eq(dwdie_udata(&a, &v), 0); cr_expect_eq(v, 0x7f);
	NEXT(); cr_expect_eq(a.form, DW_FORM_flag); cr_expect_eq(a.val, 1);
	NEXT(); cr_expect_eq((int64_t)a.val, -300); cr_expect_eq(dwdie_udata(&a, &v), -1);
	NEXT(); cr_expect_str_eq(dwdie_string(f, &u, &a), "one");
	NEXT(); cr_expect_eq(dwdie_udata(&a, &v), 0); cr_expect_eq(v, 300);
	NEXT(); cr_expect_eq(dwdie_ref(&u, &a, &v), 0); cr_expect_eq(v, 0x12345);
	for (unsigned k = 0x21; k <= 0x25; k++) {
		NEXT();
		cr_expect_eq(dwdie_ref(&u, &a, &v), 0);
		cr_expect_eq(v, k, "ref form %#x", a.form);
		cr_expect_eq(dwdie_udata(&a, &v), -1, "a reference is no constant");
	}
	NEXT(); cr_expect_eq(a.form, DW_FORM_data2, "indirect reads as the form it names");
	cr_expect_eq(a.val, 0x4242);
	NEXT(); cr_expect_eq(dwdie_offset(&a, &v), 0); cr_expect_eq(v, 0x99);
	NEXT(); cr_expect_eq(a.form, DW_FORM_exprloc); cr_expect_eq(a.val, 2);
	NEXT(); cr_expect_eq(a.form, DW_FORM_flag_present);
	NEXT(); cr_expect_str_eq(dwdie_string(f, &u, &a), "two");
	NEXT(); cr_expect_eq(dwdie_addr(f, &u, &a, &v), 0); cr_expect_eq(v, 0x3000);
	NEXT(); cr_expect_eq(memcmp(a.data, "0123456789abcdef", 16), 0);
	NEXT(); cr_expect_eq(a.val, 0xfeedfacecafebeefull); cr_expect_eq(dwdie_ref(&u, &a, &v), -1);
	NEXT(); cr_expect_eq((int64_t)a.val, -5); cr_expect_eq(dwdie_udata(&a, &v), -1);
	NEXT(); cr_expect_str_eq(dwdie_string(f, &u, &a), "zero");
	NEXT(); cr_expect_str_eq(dwdie_string(f, &u, &a), "one");
	NEXT(); cr_expect_str_eq(dwdie_string(f, &u, &a), "two");
	NEXT(); cr_expect_str_eq(dwdie_string(f, &u, &a), "zero");
	NEXT(); cr_expect_eq(dwdie_addr(f, &u, &a, &v), 0); cr_expect_eq(v, 0x2000);
	NEXT(); cr_expect_eq(dwdie_addr(f, &u, &a, &v), 0); cr_expect_eq(v, 0x3000);
	NEXT(); cr_expect_eq(dwdie_addr(f, &u, &a, &v), 0); cr_expect_eq(v, 0x1000);
	NEXT(); cr_expect_eq(dwdie_addr(f, &u, &a, &v), 0); cr_expect_eq(v, 0x2000);
#undef NEXT
	cr_expect_eq(dwdie_attr(f, &u, &d, &a), 0);
	cr_expect_eq(d.next, fu.sub);
	/* Skipping gives the same end. */
	cr_assert_eq(dwdie_begin(f, &u, fu.var, &d), 0);
	cr_expect_eq(dwdie_skip(f, &u, &d), 0);
	cr_expect_eq(d.next, fu.sub);

	/* The subprogram: its sibling passes its children, its ranges are
	 * every kind of entry, with the dropped one left out. */
	cr_assert_eq(dwdie_begin(f, &u, fu.sub, &d), 0);
	cr_expect_eq(d.tag, DW_TAG_subprogram);
	cr_expect_eq(dwdie_sibling(f, &u, &d), fu.after);
	cr_assert_eq(dwdie_begin(f, &u, fu.sub, &d), 0);
	buf_init(&got);
	while (dwdie_attr(f, &u, &d, &a) > 0)
		if (a.name == DW_AT_ranges)
			cr_expect_eq(dwdie_ranges(f, &u, &a, 100, collect_ranges, &got), 0);
	{
		static const uint64_t want[] = {
			0x2010, 0x2020, 0x1000, 0x3000, 0x3000, 0x3008,
			0x5001, 0x5002, 0x7000, 0x7100, 0x8000, 0x8040,
		};

		cr_assert_eq(got.len, sizeof(want));
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			cr_expect_eq(bound(&got, k), want[k], "range bound %zu: %#llx", k,
				     (unsigned long long)bound(&got, k));
	}
	buf_release(&got);
	close_reader(&s, f);
	ub_release(&fu.ub);
}

Test(dwdie, debug_ranges_with_base_and_tombstones)
{
	struct unit_bytes ub;
	struct sections s;
	struct dwdie_file *f;
	struct dwdie_unit u;
	struct dwdie_attr a = { .name = DW_AT_ranges, .form = DW_FORM_sec_offset, .val = 0 };
	struct buf got;
	size_t at;
	static const uint64_t want[] = { 0x1010, 0x1020, 0x9001, 0x9002 };

	ub_init(&ub);
	abbrev(&ub.b[S_ABBREV], 1, DW_TAG_compile_unit, 0);
	spec(&ub.b[S_ABBREV], DW_AT_low_pc, DW_FORM_addr);
	spec(&ub.b[S_ABBREV], 0, 0);
	uleb(&ub.b[S_ABBREV], 0);
	at = begin_unit(&ub.b[S_INFO], 4);
	uleb(&ub.b[S_INFO], 1);
	le(&ub.b[S_INFO], 0x1000, 8);
	end_unit(&ub.b[S_INFO], at);
	le(&ub.b[S_RANGES], 0x10, 8); le(&ub.b[S_RANGES], 0x20, 8);          /* from the unit's base */
	le(&ub.b[S_RANGES], UINT64_MAX - 1, 8); le(&ub.b[S_RANGES], 4, 8);   /* dropped code */
	le(&ub.b[S_RANGES], UINT64_MAX, 8); le(&ub.b[S_RANGES], 0x9000, 8);  /* a new base */
	le(&ub.b[S_RANGES], 1, 8); le(&ub.b[S_RANGES], 2, 8);
	le(&ub.b[S_RANGES], 0, 8); le(&ub.b[S_RANGES], 0, 8);                /* the end */
	le(&ub.b[S_RANGES], 0x50, 8); le(&ub.b[S_RANGES], 0x60, 8);          /* past it */
	ub_sections(&ub, &s);
	f = open_reader(&s);
	cr_assert_eq(dwdie_unit(f, 0, &u), 0);
	cr_expect_eq(u.low_pc, 0x1000);
	buf_init(&got);
	cr_expect_eq(dwdie_ranges(f, &u, &a, 100, collect_ranges, &got), 0);
	cr_assert_eq(got.len, sizeof(want));
	for (size_t k = 0; k < 4; k++)
		cr_expect_eq(bound(&got, k), want[k], "bound %zu", k);
	/* A list that runs off the section, and one that starts past it. */
	buf_reset(&got);
	a.val = ub.b[S_RANGES].len - 8;
	cr_expect_eq(dwdie_ranges(f, &u, &a, 100, collect_ranges, &got), -1);
	a.val = ub.b[S_RANGES].len;
	cr_expect_eq(dwdie_ranges(f, &u, &a, 100, collect_ranges, &got), -1);
	cr_expect_eq(got.len, 0);
	buf_release(&got);
	close_reader(&s, f);
	ub_release(&ub);
}

Test(dwdie, abbreviation_codes_in_any_order)
{
	struct unit_bytes ub;
	struct sections s;
	struct dwdie_file *f;
	struct dwdie_unit u;
	struct dwdie d;
	size_t at;

	ub_init(&ub);
	/* codes 7, 3, then 1000000 */
	abbrev(&ub.b[S_ABBREV], 7, DW_TAG_compile_unit, 1);
	spec(&ub.b[S_ABBREV], 0, 0);
	abbrev(&ub.b[S_ABBREV], 3, DW_TAG_subprogram, 0);
	spec(&ub.b[S_ABBREV], DW_AT_name, DW_FORM_string);
	spec(&ub.b[S_ABBREV], 0, 0);
	abbrev(&ub.b[S_ABBREV], 1000000, DW_TAG_variable, 0);
	spec(&ub.b[S_ABBREV], 0, 0);
	uleb(&ub.b[S_ABBREV], 0);
	at = begin_unit(&ub.b[S_INFO], 4);
	uleb(&ub.b[S_INFO], 7);
	uleb(&ub.b[S_INFO], 1000000);
	uleb(&ub.b[S_INFO], 3);
	buf_add(&ub.b[S_INFO], "f", 2);
	uleb(&ub.b[S_INFO], 5);      /* no such code */
	end_unit(&ub.b[S_INFO], at);
	ub_sections(&ub, &s);
	f = open_reader(&s);
	cr_assert_eq(dwdie_unit(f, 0, &u), 0);
	cr_expect_eq(u.tag, DW_TAG_compile_unit);
	cr_assert_eq(dwdie_begin(f, &u, u.die + 1, &d), 0);
	cr_expect_eq(d.tag, DW_TAG_variable);
	cr_expect_eq(dwdie_skip(f, &u, &d), 0);
	cr_assert_eq(dwdie_begin(f, &u, d.next, &d), 0);
	cr_expect_eq(d.tag, DW_TAG_subprogram);
	cr_expect_eq(dwdie_skip(f, &u, &d), 0);
	cr_expect_eq(dwdie_begin(f, &u, d.next, &d), -1, "code 5 is in no abbreviation");
	close_reader(&s, f);
	ub_release(&ub);
}

/* Reads everything a unit has, as a walk would: no crash, no read past
 * what it was given (AddressSanitizer sees to that), and an error or
 * fewer values where the bytes end. */
static void read_all(struct sections *s)
{
	struct dwdie_file *f = open_reader(s);
	uint64_t off = 0;

	while (off < s->n[S_INFO]) {
		struct dwdie_unit u;
		uint64_t at;

		if (dwdie_unit(f, off, &u) < 0)
			break;
		for (at = u.die; at < u.end;) {
			struct dwdie d;
			struct dwdie_attr a;
			struct buf b;
			uint64_t v;
			int r;

			if (dwdie_begin(f, &u, at, &d) < 0)
				break;
			buf_init(&b);
			while ((r = dwdie_attr(f, &u, &d, &a)) > 0) {
				const char *str = dwdie_string(f, &u, &a);

				if (str)
					cr_assert_lt(strlen(str), 1u << 20);
				dwdie_addr(f, &u, &a, &v);
				dwdie_ref(&u, &a, &v);
				if (a.name == DW_AT_ranges)
					dwdie_ranges(f, &u, &a, 1000, collect_ranges, &b);
			}
			buf_release(&b);
			if (r < 0 || d.next <= at)
				break;
			at = d.next;
		}
		off = u.end;
	}
	close_reader(s, f);
}

/* Copies of the sections in their own allocations, so AddressSanitizer
 * sees any read past their ends. */
struct copy {
	struct sections s;
	uint8_t *p[NSECT];
};

static void copy_make(struct copy *c, const struct sections *s)
{
	memset(c, 0, sizeof(*c));
	for (int k = 0; k < NSECT; k++) {
		c->p[k] = malloc(s->n[k] ? s->n[k] : 1);
		cr_assert_not_null(c->p[k]);
		if (s->n[k])
			memcpy(c->p[k], s->p[k], s->n[k]);
		c->s.p[k] = s->p[k] ? c->p[k] : NULL;
		c->s.n[k] = s->n[k];
	}
}

static void copy_free(struct copy *c)
{
	for (int k = 0; k < NSECT; k++)
		free(c->p[k]);
}

Test(dwdie, every_truncation_and_flipped_byte_is_safe)
{
	struct forms_unit fu;
	struct sections s;
	size_t runs = 0;
	uint32_t seed = 12345;

	forms_unit(&fu);
	ub_sections(&fu.ub, &s);
	for (int k = 0; k < NSECT; k++) {
		for (uint64_t cut = 0; cut < s.n[k]; cut++) {
			struct copy c;

			copy_make(&c, &s);
			c.s.n[k] = cut;
			read_all(&c.s);
			copy_free(&c);
			runs++;
		}
	}
	for (int round = 0; round < 3000; round++) {
		struct copy c;
		int k = round % NSECT;

		copy_make(&c, &s);
		for (int flips = 0; flips < 3 && c.s.n[k]; flips++) {
			seed = seed * 1103515245u + 12345u;
			c.p[k][(seed >> 8) % c.s.n[k]] ^= (uint8_t)(1 + (seed >> 3) % 255);
		}
		read_all(&c.s);
		copy_free(&c);
		runs++;
	}
	printf("dwdie: %zu damaged copies of a unit of every form read, none crashed\n", runs);
	ub_release(&fu.ub);
}

Test(dwdie, forged_offsets_are_refused)
{
	struct forms_unit fu;
	struct sections s;
	struct dwdie_file *f;
	struct dwdie_unit u;
	struct dwdie d;
	struct dwdie_attr a;
	uint64_t v;

	forms_unit(&fu);
	ub_sections(&fu.ub, &s);
	f = open_reader(&s);
	cr_assert_eq(dwdie_unit(f, 0, &u), 0);
	/* DIEs outside the unit, or at its header */
	cr_expect_eq(dwdie_begin(f, &u, u.end, &d), -1);
	cr_expect_eq(dwdie_begin(f, &u, 0, &d), -1);
	cr_expect_eq(dwdie_unit(f, s.n[S_INFO], &u), -1);
	cr_assert_eq(dwdie_unit(f, 0, &u), 0);
	/* strings and addresses past their sections */
	a = (struct dwdie_attr){ .form = DW_FORM_strp, .val = s.n[S_STR] };
	cr_expect_null(dwdie_string(f, &u, &a));
	a = (struct dwdie_attr){ .form = DW_FORM_strx, .val = 3 };
	cr_expect_null(dwdie_string(f, &u, &a));
	a = (struct dwdie_attr){ .form = DW_FORM_strx, .val = UINT64_MAX / 2 };
	cr_expect_null(dwdie_string(f, &u, &a));
	a = (struct dwdie_attr){ .form = DW_FORM_addrx, .val = 3 };
	cr_expect_eq(dwdie_addr(f, &u, &a, &v), -1);
	/* a reference past its unit, and range lists that are not there */
	a = (struct dwdie_attr){ .form = DW_FORM_ref4, .val = u.end - u.off };
	cr_expect_eq(dwdie_ref(&u, &a, &v), -1);
	a = (struct dwdie_attr){ .name = DW_AT_ranges, .form = DW_FORM_rnglistx, .val = 1 };
	cr_expect_eq(dwdie_ranges(f, &u, &a, 10, collect_ranges, NULL), -1);
	a = (struct dwdie_attr){ .name = DW_AT_ranges, .form = DW_FORM_sec_offset, .val = 1u << 30 };
	cr_expect_eq(dwdie_ranges(f, &u, &a, 10, collect_ranges, NULL), -1);
	/* a sibling that points back is no sibling */
	fu.ub.b[S_INFO].data[fu.sub + 1] = 4;
	fu.ub.b[S_INFO].data[fu.sub + 2] = 0;
	cr_assert_eq(dwdie_begin(f, &u, fu.sub, &d), 0);
	cr_expect_eq(dwdie_sibling(f, &u, &d), 0);
	close_reader(&s, f);
	ub_release(&fu.ub);
}
