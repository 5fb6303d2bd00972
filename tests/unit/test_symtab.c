/*
 * test_symtab.c: symbol lookup against a real ELF file, the symbols
 * fixture, cross-checked with nm(1) and llvm-symbolizer(1), and the
 * symbolizer in front of it: return addresses, refusals, shared files.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/elf.h"
#include "report/symbols/locate.h"
#include "report/symbols/objfile.h"
#include "report/symbols/symbolize.h"
#include "report/symbols/symtab.h"
#include "build_dir.h"
#include "object_file.h"

static char exe[PATH_MAX + 64];

/* testdata/symbols, as make built it (mk/dwarf.mk). */
static void find_fixture(void)
{
	find_build_dir();
	snprintf(exe, sizeof(exe), "%s/testdata/symbols", build_dir);
	cr_assert_eq(access(exe, R_OK), 0, "no fixture %s (make fixtures)", exe);
}

/* The function llvm-symbolizer names at addr in exe, or "" if it is absent. */
static void oracle(uint64_t addr, char *out, size_t n)
{
	char cmd[PATH_MAX + 128];
	FILE *p;

	out[0] = '\0';
	if (system("command -v llvm-symbolizer >/dev/null 2>&1"))
		return;
	snprintf(cmd, sizeof(cmd), "llvm-symbolizer --no-inlines --obj=%s 0x%llx", exe,
		 (unsigned long long)addr);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	if (fgets(out, n, p))
		out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

/* The fixture, mapped, and its ELF headers. */
struct image_file {
	struct mapped m;
	struct elf_file elf;
};

static void map(struct image_file *f)
{
	f->m = must_map(exe);
	cr_assert_eq(elf_parse(&f->elf, f->m.p, f->m.n), 0);
}

TestSuite(symtab, .init = find_fixture);

/* Only the file at the recorded path: no system debug directories. */
static const struct symbolize_opts local = { .debug_root = "", .debuginfod_cache = "" };

Test(symtab, lookup_matches_nm_and_llvm_symbolizer)
{
	static const char *syms[] = { "alpha", "beta", "gamma_local", "main" };
	struct image_file m;
	struct symtab *st;
	char want[256];
	size_t i;

	map(&m);
	{
		struct objfile of;
		char *why = NULL;
		cr_assert_eq(objfile_open(&of, exe, TRACE_IDENT_GNU_BUILD_ID, NULL, 0, &why), 0);
		cr_assert_eq(symtab_new(&of, &st), 0);
		objfile_release(&of);
	}
	cr_assert_gt(symtab_count(st), 3);
	for (i = 0; i < 4; i++) {
		uint64_t a = nm_addr(exe, syms[i]), start = 0;
		const char *got = symtab_lookup(st, a, &start, NULL, NULL);
		cr_assert_not_null(got, "no symbol at %s", syms[i]);
		cr_assert_str_eq(got, syms[i]);
		cr_assert_eq(start, a);
		got = symtab_lookup(st, a + 1, NULL, NULL, NULL);
		cr_assert_str_eq(got, syms[i]);
		oracle(a + 1, want, sizeof(want));
		if (want[0])
			cr_assert_str_eq(got, want, "llvm-symbolizer says %s at 0x%llx", want,
					 (unsigned long long)(a + 1));
	}
	cr_assert_null(symtab_lookup(st, 0, NULL, NULL, NULL));
	symtab_free(st);
	munmap(m.m.p, m.m.n);
}

/* Three names for one function: the table gives the one llvm-symbolizer
 * gives (the largest size, then the last listed), not the first or the
 * smallest global name. */
Test(symtab, aliases_named_as_llvm_symbolizer_names_them)
{
	struct objfile of;
	struct symtab *st;
	char *why = NULL, want[256];
	uint64_t a = nm_addr(exe, "shared_impl");
	const char *got;

	cr_assert_eq(a, nm_addr(exe, "shared_alias"));
	cr_assert_eq(a, nm_addr(exe, "shared_weak"));
	oracle(a + 1, want, sizeof(want));
	if (!want[0])
		cr_skip_test("llvm-symbolizer is not installed");
	cr_assert_eq(objfile_open(&of, exe, TRACE_IDENT_GNU_BUILD_ID, NULL, 0, &why), 0);
	cr_assert_eq(symtab_new(&of, &st), 0);
	objfile_release(&of);
	got = symtab_lookup(st, a + 1, NULL, NULL, NULL);
	cr_assert_not_null(got);
	cr_assert_str_eq(got, want);
	symtab_free(st);
}

static void image_of(struct trace_image *img, const struct image_file *m)
{
	const uint8_t *id;
	size_t len;

	memset(img, 0, sizeof(*img));
	cr_assert_eq(elf_build_id(&m->elf, &id, &len), 0);
	cr_assert_leq(len, TRACE_MAX_IDENT);
	img->id = 7;
	img->ident_kind = TRACE_IDENT_GNU_BUILD_ID;
	img->ident_len = len;
	memcpy(img->ident, id, len);
	img->path = exe;
	img->bias = 0x555500000000ull;
	img->start = img->bias;
	img->size = 0x100000;
}

/* A trace with exe mapped at a bias. */
static void one_image_trace(struct trace *t, struct trace_image *img)
{
	memset(t, 0, sizeof(*t));
	t->nimages = 1;
	t->images = img;
}

Test(symtab, symbolize_names_and_return_address_adjustment)
{
	struct image_file m;
	struct trace_image img;
	struct trace t;
	struct symbolize *s;
	const struct symbolize_frame *f;
	size_t n;
	uint64_t alpha = nm_addr(exe, "alpha"), beta = nm_addr(exe, "beta");

	map(&m);
	image_of(&img, &m);
	one_image_trace(&t, &img);
	s = symbolize_new(&t, &local);

	n = symbolize_addr(s, 0, img.bias + alpha, 0, 1, &f);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(f[0].name, "alpha");
	cr_assert_eq(f[0].image, 0);
	cr_assert_eq(f[0].offset, alpha);
	cr_assert(f[0].resolved);
	cr_assert_eq(f[0].lang, SYMBOLIZE_LANG_C, "symbols.c is C");

	/* A return address just past alpha's first byte is still in alpha;
	 * one at beta's first byte belongs to whatever precedes beta. */
	n = symbolize_addr(s, 0, img.bias + alpha + 1, 0, 0, &f);
	cr_assert_str_eq(f[0].name, "alpha");
	n = symbolize_addr(s, 0, img.bias + beta, 0, 0, &f);
	cr_assert_str_neq(f[0].name, "beta");
	n = symbolize_addr(s, 0, img.bias + beta, 0, 1, &f);
	cr_assert_str_eq(f[0].name, "beta");

	/* Outside the image. */
	n = symbolize_addr(s, 0, 0x10, 0, 1, &f);
	cr_assert_str_eq(f[0].name, "[unknown]+0x10");
	cr_assert_eq(f[0].image, -1);
	cr_assert_eq(symbolize_image_nsymbols(s, 0) > 3, 1);
	symbolize_free(s);

	/* --addresses: raw offsets even with symbols available. */
	s = symbolize_new(&t, &(struct symbolize_opts){ .debug_root = "",
								 .debuginfod_cache = "",
								 .addresses = 1 });
	n = symbolize_addr(s, 0, img.bias + alpha, 0, 1, &f);
	{
		char want[64];
		snprintf(want, sizeof(want), "symbols+0x%llx", (unsigned long long)alpha);
		cr_assert_str_eq(f[0].name, want);
	}
	symbolize_free(s);
	munmap(m.m.p, m.m.n);
}

Test(symtab, symbolize_never_uses_mismatching_file)
{
	struct image_file m;
	struct trace_image img;
	struct trace t;
	struct symbolize *s;
	const struct symbolize_frame *f;
	const struct locate_result *src;
	size_t n;
	int err;
	char want[64];
	uint64_t alpha = nm_addr(exe, "alpha");

	map(&m);
	image_of(&img, &m);
	img.ident[img.ident_len - 1] ^= 1;
	one_image_trace(&t, &img);
	s = symbolize_new(&t, &local);
	n = symbolize_addr(s, 0, img.bias + alpha, 0, 1, &f);
	snprintf(want, sizeof(want), "symbols+0x%llx", (unsigned long long)alpha);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(f[0].name, want);
	src = symbolize_image_source(s, 0, &err);
	cr_assert_eq(err, LOCATE_E_NOTFOUND);
	cr_assert_eq(src->ntries, 1);
	cr_assert_not_null(strstr(src->tries[0].why, "mismatch"));
	symbolize_free(s);
	munmap(m.m.p, m.m.n);
}

Test(symtab, images_with_one_identity_share_one_file)
{
	struct image_file m;
	struct trace_image img[2];
	struct trace t;
	struct symbolize *s;
	const struct symbolize_frame *f;
	const struct locate_result *a, *b;
	size_t n;
	int err;
	uint64_t alpha = nm_addr(exe, "alpha");

	map(&m);
	image_of(&img[0], &m);
	img[1] = img[0];
	img[1].id = 8;
	img[1].bias = img[1].start = 0x7f0000000000ull;
	memset(&t, 0, sizeof(t));
	t.nimages = 2;
	t.images = img;
	s = symbolize_new(&t, &local);
	n = symbolize_addr(s, 0, img[1].bias + alpha, 0, 1, &f);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(f[0].name, "alpha");
	cr_assert_eq(f[0].image, 1);
	b = symbolize_image_source(s, 1, &err);
	cr_assert_eq(err, 0);
	a = symbolize_image_source(s, 0, &err);
	cr_assert_eq(err, 0);
	cr_assert_eq(a->obj.map, b->obj.map, "the file is mapped once");
	symbolize_free(s);
	munmap(m.m.p, m.m.n);
}

/* Labels in code (STT_NOTYPE in an executable section) name the code from
 * them on, as llvm-symbolizer names it: asm_label inside asm_entry. An ARM
 * mapping symbol ($d) names nothing, where llvm-symbolizer gives it as it
 * gives any symbol, and a label in read-only data names no code. */
Test(symtab, labels_in_code_named_as_llvm_symbolizer_names_them)
{
	uint64_t entry = nm_addr(exe, "asm_entry"), label = nm_addr(exe, "asm_label");
	uint64_t data = nm_addr(exe, "asm_data_label"), start = 0;
	struct objfile of;
	struct symtab *st;
	char *why = NULL, want[256];
	const char *got;

	cr_assert_eq(nm_addr(exe, "$d"), label + 16);
	cr_assert_eq(objfile_open(&of, exe, TRACE_IDENT_GNU_BUILD_ID, NULL, 0, &why), 0);
	cr_assert_eq(symtab_new(&of, &st), 0);
	objfile_release(&of);
	got = symtab_lookup(st, entry + 1, NULL, NULL, NULL);
	cr_assert_str_eq(got ? got : "(none)", "asm_entry");
	got = symtab_lookup(st, label + 1, &start, NULL, NULL);
	cr_assert_str_eq(got ? got : "(none)", "asm_label");
	cr_assert_eq(start, label);
	oracle(label + 1, want, sizeof(want));
	if (want[0])
		cr_assert_str_eq(got, want);
	got = symtab_lookup(st, label + 17, NULL, NULL, NULL);
	cr_assert_str_eq(got ? got : "(none)", "asm_label");
	cr_assert_null(symtab_lookup(st, data + 1, NULL, NULL, NULL));
	symtab_free(st);
}

/* A function's range: a symbol with a size covers [value, value + size),
 * as nm -S lists them; asm_label, which has none, reaches up to alpha,
 * the next symbol (asm_entry, sized, ends there too, and the mapping
 * symbol $d between them names nothing). No symbol holds address 0. */
Test(symtab, range_by_size_or_up_to_the_next_symbol)
{
	uint64_t alpha_size, beta_size, alpha = nm_symbol("nm", exe, "alpha", &alpha_size);
	uint64_t beta = nm_symbol("nm", exe, "beta", &beta_size), label = nm_addr(exe, "asm_label");
	uint64_t start = 1, end = 0;
	struct objfile of;
	struct symtab *st;
	char *why = NULL;

	cr_assert_gt(alpha_size, 0);
	cr_assert_eq(objfile_open(&of, exe, TRACE_IDENT_GNU_BUILD_ID, NULL, 0, &why), 0);
	cr_assert_eq(symtab_new(&of, &st), 0);
	objfile_release(&of);
	cr_assert_eq(symtab_range(st, alpha + alpha_size - 1, &start, &end), 0);
	cr_assert_eq(start, alpha);
	cr_assert_eq(end, alpha + alpha_size);
	cr_assert_eq(symtab_range(st, beta, &start, &end), 0);
	cr_assert_eq(start, beta);
	cr_assert_eq(end, beta + beta_size);
	cr_assert_eq(symtab_range(st, label + 17, &start, &end), 0);
	cr_assert_eq(start, label);
	cr_assert_eq(end, alpha);
	start = 1;
	cr_assert_eq(symtab_range(st, 0, &start, &end), SYMTAB_E_NOSYMBOL);
	cr_assert_eq(start, 1);
	symtab_free(st);
}
