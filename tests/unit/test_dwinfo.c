/*
 * test_dwinfo.c: the DWARF symbolizer against llvm-symbolizer, the oracle.
 *
 * Every frame must match llvm-symbolizer --inlining exactly (count, names,
 * files, lines, columns) on: the inline fixture (testdata/inline.c) at
 * every byte of its .text, as the Makefile built it and as mk/dwarf.mk built
 * it with GCC's DWARF 4 and 5, clang's DWARF 4 and 5, and compressed
 * sections; the
 * Mach-O fixtures' dSYMs (clang and dsymutil, DWARF 4, arm64 and x86_64,
 * universal slices); and Debian's libc debug file (libc6-dbg) at addresses
 * spread over its functions. Then the cases around it: C++ and Rust names
 * from their linkage names, static libc functions by name, files without
 * DWARF, damaged DWARF (errors or fewer frames, never a crash or a hang),
 * units found through .debug_aranges as through their unit DIEs (and
 * through the DIEs when it is damaged), and throughput against
 * llvm-symbolizer, printed as a ratio.
 *
 * llvm-symbolizer runs with --functions=short: with =linkage it replaces
 * the outermost name by the symbol table's (fixture_spin.constprop.0),
 * while for C, the language of every oracle case, short names are what
 * dwinfo gives.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/elf.h"
#include "common/macho.h"
#include "report/dwarf/dwinfo.h"
#include "object_file.h"

#define SHF_COMPRESSED_FLAG 0x800
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

/* An ELF file and its sections as dwinfo wants them. */
struct object {
	struct mapped m;
	struct elf_file e;
	struct dwinfo_section secs[256];
	size_t nsecs;
	uint64_t text_lo, text_hi;
};

static void object_open(struct object *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	cr_assert_eq(map_file(path, &o->m), 0, "cannot map %s", path);
	cr_assert_eq(elf_parse(&o->e, o->m.p, o->m.n), 0, "%s is not ELF", path);
	for (unsigned i = 0; i < o->e.shnum && o->nsecs < 256; i++) {
		struct elf_section s;
		struct dwinfo_section *d = &o->secs[o->nsecs];

		cr_assert_eq(elf_section(&o->e, i, &s), 0);
		if (!strcmp(s.name, ".text")) {
			o->text_lo = s.addr;
			o->text_hi = s.addr + s.size;
		}
		if (!s.data)
			continue;
		d->name = s.name;
		d->data = s.data;
		d->size = s.size;
		d->addr = s.addr;
		d->compressed = (s.flags & SHF_COMPRESSED_FLAG) != 0;
		o->nsecs++;
	}
}

static void object_close(struct object *o)
{
	if (o->m.p)
		munmap(o->m.p, o->m.n);
}

static int have(const char *tool)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

static const char *build_dir(void)
{
	const char *b = getenv("BUILD");
	return b && b[0] ? b : "build";
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char tmpdir[64];

static void make_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/test_dwinfo.XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[128];

	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

/* One timeout for the suite: a per-test .timeout makes Criterion 2.4 leak
 * its watchdog record when the test runs long (LeakSanitizer sees it). */
TestSuite(dwinfo, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 600);

/* ---- the oracle ---- */

struct oframe {
	char *function, *file;   /* "??" when llvm-symbolizer does not know */
	unsigned line, column;
};

struct answer {
	struct oframe *f;
	size_t n;
};

/* Runs llvm-symbolizer once over every address and parses its blocks of
 * "function\nfile:line:column\n" pairs, one blank line after each address. */
static struct answer *oracle(const char *obj, const uint64_t *addrs, size_t n, double *seconds)
{
	char in[128], out[128], cmd[512], line[8192];
	struct answer *ans = calloc(n, sizeof(*ans));
	size_t i = 0;
	FILE *f;
	double t0;

	cr_assert_not_null(ans);
	snprintf(in, sizeof(in), "%s/addrs", tmpdir);
	snprintf(out, sizeof(out), "%s/llvm.out", tmpdir);
	f = fopen(in, "w");
	cr_assert_not_null(f);
	for (size_t k = 0; k < n; k++)
		fprintf(f, "0x%llx\n", (unsigned long long)addrs[k]);
	cr_assert_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd),
		 "llvm-symbolizer --obj=%s --inlining --functions=short --demangle < %s > %s",
		 obj, in, out);
	t0 = now();
	cr_assert_eq(system(cmd), 0, "llvm-symbolizer failed: %s", cmd);
	if (seconds)
		*seconds = now() - t0;
	f = fopen(out, "r");
	cr_assert_not_null(f);
	while (i < n && fgets(line, sizeof(line), f)) {
		struct answer *a = &ans[i];
		struct oframe *of;
		char loc[8192], *c1, *c2;

		line[strcspn(line, "\n")] = 0;
		if (!line[0]) {
			i++;
			continue;
		}
		cr_assert_not_null(fgets(loc, sizeof(loc), f), "llvm-symbolizer output ends early");
		loc[strcspn(loc, "\n")] = 0;
		a->f = realloc(a->f, (a->n + 1) * sizeof(*a->f));
		cr_assert_not_null(a->f);
		of = &a->f[a->n++];
		of->function = strdup(line);
		/* file:line:column, where the file may itself hold colons */
		c2 = strrchr(loc, ':');
		cr_assert_not_null(c2, "bad location '%s'", loc);
		*c2 = 0;
		c1 = strrchr(loc, ':');
		cr_assert_not_null(c1, "bad location '%s'", loc);
		*c1 = 0;
		of->file = strdup(loc);
		of->line = (unsigned)strtoul(c1 + 1, NULL, 10);
		of->column = (unsigned)strtoul(c2 + 1, NULL, 10);
	}
	fclose(f);
	cr_assert_eq(i, n, "llvm-symbolizer answered %zu of %zu addresses", i, n);
	return ans;
}

static void answers_free(struct answer *ans, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < ans[i].n; k++) {
			free(ans[i].f[k].function);
			free(ans[i].f[k].file);
		}
		free(ans[i].f);
	}
	free(ans);
}

struct tally {
	size_t compared, in_function, inlined, max_depth;
};

/* Resolves every address with dwinfo and requires llvm-symbolizer's frames
 * exactly. A frame llvm-symbolizer names "??" has no name in the DWARF,
 * and dwinfo gives no frame for it; an address in no function is one "??"
 * frame there (with a line if the line table has one) and none here. */
static void compare(struct dwinfo *d, const char *what, const uint64_t *addrs, size_t n,
		    const struct answer *ans, struct tally *t)
{
	size_t bad = 0;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		struct dwinfo_frame f[DWINFO_MAX_FRAMES];
		int got = dwinfo_lookup(d, addrs[i], f, DWINFO_MAX_FRAMES);
		const struct answer *a = &ans[i];
		size_t want = 0, k = 0;
		int same;

		for (size_t j = 0; j < a->n; j++)
			want += strcmp(a->f[j].function, "??") != 0;
		cr_assert_geq(got, 0, "%s 0x%llx: %s", what, (unsigned long long)addrs[i], prof_strerror(got));
		same = (size_t)got == want;
		for (size_t j = 0; same && j < a->n; j++) {
			const struct oframe *o = &a->f[j];

			if (!strcmp(o->function, "??"))
				continue;
			same = !strcmp(f[k].function, o->function) &&
			       !strcmp(f[k].file ? f[k].file : "??", o->file) &&
			       f[k].line == o->line && f[k].column == o->column;
			k++;
		}
		if (!same && bad++ < 10) {
			char mine[4096] = "", theirs[4096] = "";
			size_t m = 0, l = 0;

			for (int j = 0; j < got; j++)
				m += (size_t)snprintf(mine + m, m < sizeof(mine) ? sizeof(mine) - m : 0,
						      " | %s %s:%u:%u", f[j].function, f[j].file ? f[j].file : "??",
						      f[j].line, f[j].column);
			for (size_t j = 0; j < a->n; j++)
				l += (size_t)snprintf(theirs + l, l < sizeof(theirs) ? sizeof(theirs) - l : 0,
						      " | %s %s:%u:%u", a->f[j].function, a->f[j].file,
						      a->f[j].line, a->f[j].column);
			cr_log_error("%s 0x%llx:\n  dwinfo:%s\n  llvm:  %s", what,
				     (unsigned long long)addrs[i], mine, theirs);
		}
		t->compared++;
		t->in_function += got > 0;
		t->inlined += got > 1;
		if ((size_t)got > t->max_depth)
			t->max_depth = (size_t)got;
	}
	cr_expect_eq(bad, 0, "%s: %zu of %zu addresses differ from llvm-symbolizer", what, bad, n);
}

/* Every byte of obj's .text, and 64 bytes either side, against what
 * llvm-symbolizer says for oracle_obj (obj itself, or the same code with
 * DWARF it can read). */
static void check_every_byte_as(const char *obj, const char *oracle_obj, struct tally *t)
{
	struct object o;
	struct dwinfo *d;
	struct answer *ans;
	uint64_t *addrs;
	size_t n = 0;

	object_open(&o, obj);
	cr_assert_lt(o.text_lo, o.text_hi, "%s has no .text", obj);
	addrs = malloc((o.text_hi - o.text_lo + 128) * sizeof(*addrs));
	cr_assert_not_null(addrs);
	for (uint64_t a = o.text_lo >= 64 ? o.text_lo - 64 : 0; a < o.text_hi + 64; a++)
		addrs[n++] = a;
	cr_assert_eq(dwinfo_new(o.secs, o.nsecs, &d), 0, "%s: no DWARF", obj);
	ans = oracle(oracle_obj, addrs, n, NULL);
	compare(d, obj, addrs, n, ans, t);
	printf("dwinfo: %s: %zu addresses compared with llvm-symbolizer, %zu in functions, "
	       "%zu inlined, up to %zu frames\n", obj, t->compared, t->in_function, t->inlined,
	       t->max_depth);
	answers_free(ans, n);
	dwinfo_free(d);
	free(addrs);
	object_close(&o);
}

static void check_every_byte(const char *obj, struct tally *t)
{
	check_every_byte_as(obj, obj, t);
}

static void need_oracle(void)
{
	if (!have("llvm-symbolizer"))
		cr_skip_test("llvm-symbolizer is not installed (the oracle)");
}

static void fixture_path(char *out, size_t n)
{
	snprintf(out, n, "%s/testdata/inline", build_dir());
	cr_assert_eq(access(out, R_OK), 0, "no fixture %s (make fixtures)", out);
}

/* ---- the fixture ---- */

Test(dwinfo, fixture_every_byte_matches_llvm_symbolizer)
{
	char obj[256];
	struct tally t;

	need_oracle();
	fixture_path(obj, sizeof(obj));
	check_every_byte(obj, &t);
	cr_expect_gt(t.in_function, 500);
	cr_expect_gt(t.inlined, 100, "the fixture should be mostly inlined code");
	cr_expect_geq(t.max_depth, 3, "two levels of inlining should give three frames");
}

/* The line of testdata/inline.c that contains text. */
static unsigned line_of(const char *text)
{
	char buf[512];
	unsigned n = 0, found = 0;
	FILE *f = fopen("testdata/inline.c", "r");

	cr_assert_not_null(f, "run from the top of the source tree (no testdata/inline.c)");
	while (!found && fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, text))
			found = n;
	}
	fclose(f);
	cr_assert_neq(found, 0, "'%s' is not in testdata/inline.c", text);
	return found;
}

/* Names only: at every address the same functions and inline chains as
 * with lines, and no file, line or column. */
Test(dwinfo, names_only_gives_the_same_chains)
{
	char obj[256];
	struct object o;
	struct dwinfo *full, *names;
	size_t frames = 0;

	fixture_path(obj, sizeof(obj));
	object_open(&o, obj);
	cr_assert_eq(dwinfo_new(o.secs, o.nsecs, &full), 0);
	cr_assert_eq(dwinfo_new(o.secs, o.nsecs, &names), 0);
	dwinfo_names_only(names);
	for (uint64_t a = o.text_lo; a < o.text_hi; a++) {
		struct dwinfo_frame f[DWINFO_MAX_FRAMES], g[DWINFO_MAX_FRAMES];
		int n = dwinfo_lookup(full, a, f, DWINFO_MAX_FRAMES);

		cr_assert_eq(dwinfo_lookup(names, a, g, DWINFO_MAX_FRAMES), n, "at %#llx", (unsigned long long)a);
		for (int k = 0; k < n; k++) {
			cr_assert_str_eq(g[k].function, f[k].function, "at %#llx", (unsigned long long)a);
			cr_assert_null(g[k].file);
			cr_assert_eq(g[k].line, 0);
			cr_assert_eq(g[k].column, 0);
		}
		frames += (size_t)n;
	}
	cr_expect_gt(frames, 500);
	dwinfo_free(full);
	dwinfo_free(names);
	object_close(&o);
}

/* The chain the fixture is built to have, checked by name. */
Test(dwinfo, fixture_two_levels_of_inlining)
{
	char obj[256];
	struct object o;
	struct dwinfo *d;
	size_t found = 0;

	fixture_path(obj, sizeof(obj));
	object_open(&o, obj);
	cr_assert_eq(dwinfo_new(o.secs, o.nsecs, &d), 0);
	for (uint64_t a = o.text_lo; a < o.text_hi; a++) {
		struct dwinfo_frame f[DWINFO_MAX_FRAMES];
		int n = dwinfo_lookup(d, a, f, DWINFO_MAX_FRAMES);

		if (n == 3 && !strcmp(f[0].function, "rotate_mix") && !strcmp(f[1].function, "mix_round") &&
		    (!strcmp(f[2].function, "churn") || !strcmp(f[2].function, "settle"))) {
			cr_assert_not_null(f[0].file);
			cr_expect_not_null(strstr(f[0].file, "testdata/inline.c"), "%s", f[0].file);
			cr_expect_not_null(strstr(f[1].file, "testdata/inline.c"), "%s", f[1].file);
			/* The call sites, as the source has them. */
			cr_expect(f[1].line == line_of("rotate_mix(x + k") ||
				  f[1].line == line_of("rotate_mix(a ^ k"), "call line %u", f[1].line);
			cr_expect(f[2].line == line_of("mix_round(x, i)") ||
				  f[2].line == line_of("mix_round(x, ~i)"), "call line %u", f[2].line);
			found++;
		}
		/* Frames never exceed the array, and a short one is cut, not
		 * overrun. */
		if (n > 1) {
			struct dwinfo_frame one;
			cr_assert_eq(dwinfo_lookup(d, a, &one, 1), 1);
			cr_assert_eq(one.function, f[0].function);
			cr_assert_eq(dwinfo_lookup(d, a, &one, 0), 0);
		}
	}
	cr_expect_gt(found, 10, "no address resolves to rotate_mix <- mix_round <- churn|settle");
	dwinfo_free(d);
	object_close(&o);
}

static int variant_path(const char *name, char *out, size_t n, char *why, size_t nwhy)
{
	return dwarf_fixture(build_dir(), name, out, n, why, nwhy);
}

Test(dwinfo, variants_match_llvm_symbolizer)
{
	static const char *const v[] = {
		"gcc-dwarf4", "gcc-dwarf5", "gcc-zlib", "gcc-zstd", "clang-dwarf4", "clang-dwarf5",
		"clang-zlib",
	};
	size_t built = 0, total = 0;
	char obj[256], why[256];
	struct tally t;

	need_oracle();
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (variant_path(v[i], obj, sizeof(obj), why, sizeof(why)) < 0) {
			printf("dwinfo: variant %s skipped: %s\n", v[i], why);
			continue;
		}
		check_every_byte(obj, &t);
		cr_expect_gt(t.inlined, 50, "%s: too few inlined addresses", v[i]);
		built++;
		total += t.compared;
	}
	/* zstd (ELFCOMPRESS_ZSTD), which this cc may not emit but objcopy can;
	 * llvm-symbolizer 14 cannot read it, so the file it was made from
	 * answers for it. */
	if (variant_path("objcopy-zstd", obj, sizeof(obj), why, sizeof(why)) == 0) {
		char src[256];

		cr_assert_eq(variant_path("gcc-dwarf5", src, sizeof(src), NULL, 0), 0);
		check_every_byte_as(obj, src, &t);
		cr_expect_gt(t.inlined, 50, "objcopy-zstd: too few inlined addresses");
		built++;
		total += t.compared;
	} else {
		printf("dwinfo: variant objcopy-zstd skipped: %s\n", why);
	}
	cr_expect_geq(built, 2, "only %zu variants could be built", built);
	printf("dwinfo: %zu variants, %zu addresses, all as llvm-symbolizer says\n", built, total);
}

/* ---- Mach-O dSYMs (DWARF 4 from clang and dsymutil) ---- */

struct dsym {
	struct mapped m;
	struct macho_file mf;
	struct dwinfo_section secs[64];
	char names[64][32];
	size_t nsecs;
	uint64_t text_lo, text_hi;
};

/* Mach-O names its DWARF sections "__debug_info" in segment __DWARF, cut
 * to 16 characters; the caller of dwinfo gives them their ELF names. */
static int dsym_section(void *ctx, const struct macho_section *ms)
{
	struct dsym *ds = ctx;

	if (!strcmp(ms->segname, "__TEXT") && !strcmp(ms->sectname, "__text")) {
		ds->text_lo = ms->addr;
		ds->text_hi = ms->addr + ms->size;
	}
	if (strcmp(ms->segname, "__DWARF") || strncmp(ms->sectname, "__", 2) || !ms->data ||
	    ds->nsecs == 64)
		return 0;
	if (!strcmp(ms->sectname, "__debug_str_offs"))
		strcpy(ds->names[ds->nsecs], ".debug_str_offsets");
	else
		snprintf(ds->names[ds->nsecs], sizeof(ds->names[0]), ".%s", ms->sectname + 2);
	ds->secs[ds->nsecs].name = ds->names[ds->nsecs];
	ds->secs[ds->nsecs].data = ms->data;
	ds->secs[ds->nsecs].size = ms->size;
	ds->secs[ds->nsecs].addr = ms->addr;
	ds->nsecs++;
	return 0;
}

static void dsym_open(struct dsym *ds, const char *path, uint32_t cputype)
{
	struct macho_slice sl[4];
	size_t n = 0, i;

	memset(ds, 0, sizeof(*ds));
	cr_assert_eq(map_file(path, &ds->m), 0, "cannot map %s", path);
	cr_assert_eq(macho_slices(ds->m.p, ds->m.n, sl, 4, &n), 0, "%s is not Mach-O", path);
	for (i = 0; i < n && i < 4 && sl[i].cputype != cputype; i++)
		;
	cr_assert_lt(i, n, "%s has no slice of cpu type 0x%x", path, cputype);
	cr_assert_eq(macho_parse(&ds->mf, ds->m.p + sl[i].offset, sl[i].size), 0);
	cr_assert_eq(macho_sections(&ds->mf, dsym_section, ds), 0);
	cr_assert_lt(ds->text_lo, ds->text_hi, "%s has no __TEXT,__text", path);
}

Test(dwinfo, dsyms_match_llvm_symbolizer)
{
	static const struct { const char *name; uint32_t cpu; const char *arch; } v[] = {
		{ "app-arm64", MACHO_CPU_TYPE_ARM64, "arm64" },
		{ "app-x86_64", MACHO_CPU_TYPE_X86_64, "x86_64" },
		{ "libwork.dylib", MACHO_CPU_TYPE_ARM64, "arm64" },
		{ "app-universal", MACHO_CPU_TYPE_ARM64, "arm64" },
		{ "app-universal", MACHO_CPU_TYPE_X86_64, "x86_64" },
	};
	size_t done = 0, total = 0;

	need_oracle();
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		char path[512], obj[600];
		struct dsym ds;
		struct dwinfo *d;
		struct answer *ans;
		struct tally t;
		uint64_t *addrs;
		size_t n = 0;

		snprintf(path, sizeof(path), "%s/testdata/macho/%s.dSYM/Contents/Resources/DWARF/%s",
			 build_dir(), v[k].name, v[k].name);
		if (access(path, R_OK) != 0) {
			printf("dwinfo: no %s (the Mach-O fixtures need clang, ld64.lld, dsymutil)\n", path);
			continue;
		}
		dsym_open(&ds, path, v[k].cpu);
		addrs = malloc((ds.text_hi - ds.text_lo) * sizeof(*addrs));
		cr_assert_not_null(addrs);
		for (uint64_t a = ds.text_lo; a < ds.text_hi; a++)
			addrs[n++] = a;
		cr_assert_eq(dwinfo_new(ds.secs, ds.nsecs, &d), 0, "%s: no DWARF", path);
		/* llvm-symbolizer picks a slice of a universal file by name. */
		snprintf(obj, sizeof(obj), "%s:%s", path, v[k].arch);
		ans = oracle(obj, addrs, n, NULL);
		compare(d, obj, addrs, n, ans, &t);
		printf("dwinfo: %s: %zu addresses compared with llvm-symbolizer, %zu in functions, "
		       "%zu inlined, up to %zu frames\n", obj, t.compared, t.in_function, t.inlined,
		       t.max_depth);
		cr_expect_gt(t.in_function, n / 2, "%s", obj);
		total += t.compared;
		done++;
		answers_free(ans, n);
		dwinfo_free(d);
		free(addrs);
		munmap(ds.m.p, ds.m.n);
	}
	if (!done)
		cr_skip_test("no Mach-O dSYM fixtures were built here");
	printf("dwinfo: %zu dSYM slices, %zu addresses, all as llvm-symbolizer says\n", done, total);
}

/* ---- linkage names: C++ and Rust ---- */

/* Resolves every byte of obj and returns how many addresses had an
 * outermost frame named want, and inner (if not NULL) innermost; by their
 * signatures if sig. */
static size_t frames_named_as(const char *obj, const char *want, const char *inner, int sig)
{
	struct object o;
	struct dwinfo *d;
	size_t found = 0;

	object_open(&o, obj);
	cr_assert_eq(dwinfo_new(o.secs, o.nsecs, &d), 0, "%s: no DWARF", obj);
	for (uint64_t a = o.text_lo; a < o.text_hi; a++) {
		struct dwinfo_frame f[DWINFO_MAX_FRAMES];
		int n = dwinfo_lookup(d, a, f, DWINFO_MAX_FRAMES);

		if (n <= 0 || strcmp(sig ? f[n - 1].signature : f[n - 1].function, want))
			continue;
		if (inner && (n < 2 || strcmp(sig ? f[0].signature : f[0].function, inner)))
			continue;
		found++;
	}
	dwinfo_free(d);
	object_close(&o);
	return found;
}

static size_t frames_named(const char *obj, const char *want, const char *inner)
{
	return frames_named_as(obj, want, inner, 0);
}

/* C++: the linkage name, demangled as "c++filt -p" prints it, without
 * return type and parameters, and as the signature as c++filt prints it;
 * an inlined method is named the same way. */
Test(dwinfo, cxx_names_are_demangled_linkage_names)
{
	char obj[256], why[256];

	if (variant_path("cxx-shapes", obj, sizeof(obj), why, sizeof(why)) < 0)
		cr_skip_test("%s", why);
	cr_expect_gt(frames_named(obj, "shapes::Circle::area", "shapes::Circle::squared"), 0,
		     "no shapes::Circle::squared inlined into shapes::Circle::area");
	cr_expect_gt(frames_named_as(obj, "shapes::Circle::area(int) const",
				     "shapes::Circle::squared(int) const", 1), 0,
		     "no signature of shapes::Circle::squared inlined into shapes::Circle::area");
	cr_expect_gt(frames_named(obj, "shapes::twice<int>", NULL), 0);
	cr_expect_gt(frames_named_as(obj, "int shapes::twice<int>(int)", NULL, 1), 0);
	cr_expect_gt(frames_named(obj, "main", NULL), 0);
	cr_expect_gt(frames_named_as(obj, "main", NULL, 1), 0);
}

/* Rust: crate::module::Type::method, without the legacy hash, or with v0
 * mangling <crate::module::Type>::method, in the Rust fixtures make builds
 * from testdata/rust/shapes.rs. */
Test(dwinfo, rust_names_are_demangled_without_hashes)
{
	static const struct { const char *file, *want; } kinds[] = {
		{ "shapes", "shapes::geometry::Shape::area" },
		{ "shapes-v0", "<shapes::geometry::Shape>::area" },
	};
	char obj[256];

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		snprintf(obj, sizeof(obj), "%s/testdata/rust/%s", build_dir(), kinds[k].file);
		if (access(obj, R_OK) != 0)
			cr_skip_test("no Rust fixture %s (make builds it when rustc is installed)", obj);
		cr_expect_gt(frames_named(obj, kinds[k].want, NULL), 0, "no frame named %s in %s",
			     kinds[k].want, obj);
	}
}

/* ---- libc through libc6-dbg ---- */

static char libc_debug[512];

/* The libc6-dbg debug file of this machine's libc, by build-id. */
static int find_libc_debug(void)
{
	struct mapped m;
	struct elf_file e;
	const uint8_t *id;
	size_t len, k;
	int n;

	if (map_file(LIBC, &m) != 0)
		return -1;
	if (elf_parse(&e, m.p, m.n) != 0 || elf_build_id(&e, &id, &len) != 0 || len < 2) {
		munmap(m.p, m.n);
		return -1;
	}
	n = snprintf(libc_debug, sizeof(libc_debug), "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (k = 1; k < len; k++)
		n += snprintf(libc_debug + n, sizeof(libc_debug) - (size_t)n, "%02x", id[k]);
	snprintf(libc_debug + n, sizeof(libc_debug) - (size_t)n, ".debug");
	munmap(m.p, m.n);
	return access(libc_debug, R_OK);
}

static void need_libc_debug(void)
{
	if (find_libc_debug() != 0)
		cr_skip_test("no libc6-dbg debug file for " LIBC " (apt-get install libc6-dbg)");
}

struct funcs {
	struct { uint64_t start, size; const char *name; } *v;
	size_t n, cap;
};

static int collect_func(void *ctx, const struct elf_symbol *s)
{
	struct funcs *fs = ctx;

	if (s->type != 2 /* STT_FUNC */ || s->size == 0 || s->shndx == 0)
		return 0;
	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? 2 * fs->cap : 1024;
		fs->v = realloc(fs->v, fs->cap * sizeof(*fs->v));
		cr_assert_not_null(fs->v);
	}
	fs->v[fs->n].start = s->value;
	fs->v[fs->n].size = s->size;
	fs->v[fs->n].name = s->name;
	fs->n++;
	return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* n addresses spread over the functions of o's symbol table: function
 * i * nfuncs / n, at a pseudo-random offset inside it. */
static uint64_t *spread(const struct object *o, size_t n)
{
	struct funcs fs = { NULL, 0, 0 };
	uint64_t *addrs = malloc(n * sizeof(*addrs));

	cr_assert_not_null(addrs);
	elf_symbols(&o->e, collect_func, &fs);
	cr_assert_gt(fs.n, 1000, "only %zu function symbols", fs.n);
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)((unsigned __int128)i * fs.n / n);
		addrs[i] = fs.v[k].start + next_rand() % fs.v[k].size;
	}
	free(fs.v);
	return addrs;
}

Test(dwinfo, libc_static_function_named)
{
	struct object o;
	struct funcs fs = { NULL, 0, 0 };
	struct dwinfo *d;
	size_t checked = 0;

	need_libc_debug();
	object_open(&o, libc_debug);
	cr_assert_eq(dwinfo_new(o.secs, o.nsecs, &d), 0, "%s", libc_debug);
	elf_symbols(&o.e, collect_func, &fs);
	for (size_t i = 0; i < fs.n; i++) {
		/* msort_with_tmp, or its GCC split msort_with_tmp.part.0 */
		if (strncmp(fs.v[i].name, "msort_with_tmp", 14) != 0)
			continue;
		for (uint64_t off = 0; off < fs.v[i].size; off += 7) {
			struct dwinfo_frame f[DWINFO_MAX_FRAMES];
			int n = dwinfo_lookup(d, fs.v[i].start + off, f, DWINFO_MAX_FRAMES);

			cr_assert_gt(n, 0, "%s+0x%llx: no frames", fs.v[i].name, (unsigned long long)off);
			cr_expect_str_eq(f[n - 1].function, "msort_with_tmp", "%s+0x%llx", fs.v[i].name,
					 (unsigned long long)off);
			cr_expect_not_null(f[n - 1].file);
			if (f[n - 1].file)
				cr_expect_not_null(strstr(f[n - 1].file, "msort.c"), "%s", f[n - 1].file);
			checked++;
		}
	}
	cr_expect_gt(checked, 10, "no msort_with_tmp in %s's symbol table", libc_debug);
	printf("dwinfo: %zu addresses in msort_with_tmp resolve to it\n", checked);
	free(fs.v);
	dwinfo_free(d);
	object_close(&o);
}

Test(dwinfo, libc_matches_llvm_symbolizer)
{
	enum { N = 3000 };
	struct object o;
	struct dwinfo *d;
	struct answer *ans;
	struct tally t;
	uint64_t *addrs;

	need_oracle();
	need_libc_debug();
	object_open(&o, libc_debug);
	addrs = spread(&o, N);
	cr_assert_eq(dwinfo_new(o.secs, o.nsecs, &d), 0);
	ans = oracle(libc_debug, addrs, N, NULL);
	compare(d, libc_debug, addrs, N, ans, &t);
	printf("dwinfo: libc: %zu addresses compared with llvm-symbolizer, %zu in functions, "
	       "%zu inlined, up to %zu frames\n", t.compared, t.in_function, t.inlined, t.max_depth);
	cr_expect_gt(t.in_function, N * 9 / 10);
	answers_free(ans, N);
	dwinfo_free(d);
	free(addrs);
	object_close(&o);
}

/* Not an assertion: how long 10,000 addresses take here and there. */
Test(dwinfo, libc_throughput_against_llvm_symbolizer)
{
	enum { N = 10000 };
	struct object o;
	struct dwinfo *d;
	struct answer *ans;
	uint64_t *addrs;
	double t0, ours, theirs;
	size_t units, read, frames = 0;

	need_oracle();
	need_libc_debug();
	object_open(&o, libc_debug);
	addrs = spread(&o, N);
	t0 = now();
	cr_assert_eq(dwinfo_new(o.secs, o.nsecs, &d), 0);
	for (size_t i = 0; i < N; i++) {
		struct dwinfo_frame f[DWINFO_MAX_FRAMES];
		int n = dwinfo_lookup(d, addrs[i], f, DWINFO_MAX_FRAMES);
		frames += n > 0 ? (size_t)n : 0;
	}
	ours = now() - t0;
	units = dwinfo_units(d, &read);
	dwinfo_free(d);
	ans = oracle(libc_debug, addrs, N, &theirs);
	printf("dwinfo: throughput: %d libc addresses (%zu frames, %zu of %zu units read): "
	       "dwinfo %.3f s, llvm-symbolizer %.3f s, ratio dwinfo/llvm %.2f\n",
	       N, frames, read, units, ours, theirs, ours / theirs);
	answers_free(ans, N);
	free(addrs);
	object_close(&o);
}

/* ---- no DWARF ---- */

Test(dwinfo, stripped_file_has_no_debug_info)
{
	char stripped[256];
	struct object o;
	struct dwinfo *d = (struct dwinfo *)1;

	/* The split fixture with its debug information moved to a file of
	 * its own (mk/debugfiles.mk). */
	snprintf(stripped, sizeof(stripped), "%s/testdata/stripped/split", build_dir());
	cr_assert_eq(access(stripped, R_OK), 0, "no fixture %s (make fixtures)", stripped);
	object_open(&o, stripped);
	cr_expect_eq(dwinfo_new(o.secs, o.nsecs, &d), DWINFO_E_NODEBUG);
	cr_expect_null(d);
	object_close(&o);
	cr_expect_eq(dwinfo_new(NULL, 0, &d), DWINFO_E_NODEBUG);
	cr_expect_null(d);
	dwinfo_free(NULL);
}

Test(dwinfo, debug_info_must_be_there_and_not_empty)
{
	char obj[256];
	struct object o;
	struct dwinfo *d;
	size_t i;

	fixture_path(obj, sizeof(obj));
	object_open(&o, obj);
	for (i = 0; i < o.nsecs && strcmp(o.secs[i].name, ".debug_info"); i++)
		;
	cr_assert_lt(i, o.nsecs);
	/* Without it: the rest of the DWARF is not enough. */
	o.secs[i].name = ".debug_info_renamed";
	cr_expect_eq(dwinfo_new(o.secs, o.nsecs, &d), DWINFO_E_NODEBUG);
	o.secs[i].name = ".debug_info";
	o.secs[i].size = 0;
	cr_expect_eq(dwinfo_new(o.secs, o.nsecs, &d), DWINFO_E_NODEBUG);
	object_close(&o);
	cr_expect_str_neq(prof_strerror(DWINFO_E_NODEBUG), prof_strerror(DWINFO_E_CORRUPT));
	cr_expect_str_neq(prof_strerror(DWINFO_E_COMPRESSED), prof_strerror(-1));
}

/* ---- damage ---- */

/* A private, writable copy of o's sections, so they can be damaged. */
struct copy {
	struct dwinfo_section secs[256];
	uint8_t *data[256];
	size_t n;
};

static void copy_sections(struct copy *c, const struct object *o)
{
	c->n = o->nsecs;
	for (size_t i = 0; i < o->nsecs; i++) {
		c->secs[i] = o->secs[i];
		c->data[i] = malloc(o->secs[i].size ? o->secs[i].size : 1);
		cr_assert_not_null(c->data[i]);
		memcpy(c->data[i], o->secs[i].data, o->secs[i].size);
		c->secs[i].data = c->data[i];
	}
}

static void restore_sections(struct copy *c, const struct object *o)
{
	for (size_t i = 0; i < c->n; i++) {
		c->secs[i] = o->secs[i];
		memcpy(c->data[i], o->secs[i].data, o->secs[i].size);
		c->secs[i].data = c->data[i];
	}
}

static void free_sections(struct copy *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->data[i]);
}

static size_t find(const struct copy *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->secs[i].name, name))
			return i;
	return SIZE_MAX;
}

/* Opens the damaged sections and resolves the whole fixture. Anything
 * but a crash, a hang or a bad frame is fine. */
static size_t exercise(struct copy *c, uint64_t lo, uint64_t hi, uint64_t step)
{
	struct dwinfo *d;
	size_t frames = 0;

	if (dwinfo_new(c->secs, c->n, &d) != 0)
		return 0;
	for (uint64_t a = lo; a < hi; a += step) {
		struct dwinfo_frame f[DWINFO_MAX_FRAMES];
		int n = dwinfo_lookup(d, a, f, DWINFO_MAX_FRAMES);

		cr_assert(n <= DWINFO_MAX_FRAMES);
		for (int k = 0; k < n; k++) {
			cr_assert_not_null(f[k].function);
			cr_assert_gt(strlen(f[k].function), 0);
			if (f[k].file)
				cr_assert_lt(strlen(f[k].file), 1u << 20);
		}
		frames += n > 0 ? (size_t)n : 0;
	}
	dwinfo_free(d);
	return frames;
}

static const char *const damaged[] = {
	".debug_info", ".debug_abbrev", ".debug_line", ".debug_rnglists", ".debug_str",
	".debug_line_str", ".debug_aranges",
};

Test(dwinfo, flipped_bytes_never_crash)
{
	char obj[256];
	struct object o;
	struct copy c;
	size_t runs = 0;

	fixture_path(obj, sizeof(obj));
	object_open(&o, obj);
	copy_sections(&c, &o);
	for (size_t s = 0; s < sizeof(damaged) / sizeof(damaged[0]); s++) {
		size_t i = find(&c, damaged[s]);

		if (i == SIZE_MAX || c.secs[i].size == 0)
			continue;
		for (int round = 0; round < 150; round++) {
			int flips = 1 + (int)(next_rand() % 8);

			restore_sections(&c, &o);
			for (int k = 0; k < flips; k++) {
				size_t at = next_rand() % c.secs[i].size;
				c.data[i][at] ^= (uint8_t)(1 + next_rand() % 255);
			}
			exercise(&c, o.text_lo, o.text_hi, 3);
			runs++;
		}
	}
	cr_assert_gt(runs, 0, "no section of the fixture was damaged");
	printf("dwinfo: %zu runs over damaged fixture sections, none crashed\n", runs);
	free_sections(&c);
	object_close(&o);
}

Test(dwinfo, truncated_sections_never_crash)
{
	char obj[256];
	struct object o;
	struct copy c;
	size_t runs = 0;

	fixture_path(obj, sizeof(obj));
	object_open(&o, obj);
	copy_sections(&c, &o);
	for (size_t s = 0; s < sizeof(damaged) / sizeof(damaged[0]); s++) {
		size_t i = find(&c, damaged[s]), full;

		if (i == SIZE_MAX)
			continue;
		full = c.secs[i].size;
		for (size_t cut = 0; cut < full; cut += full / 40 + 1) {
			restore_sections(&c, &o);
			c.secs[i].size = cut;
			exercise(&c, o.text_lo, o.text_hi, 5);
			runs++;
		}
	}
	/* The whole DWARF cut at once, down to nothing. */
	for (size_t keep = 0; keep < 100; keep += 10) {
		restore_sections(&c, &o);
		for (size_t i = 0; i < c.n; i++)
			if (!strncmp(c.secs[i].name, ".debug_", 7))
				c.secs[i].size = c.secs[i].size * keep / 100;
		exercise(&c, o.text_lo, o.text_hi, 5);
		runs++;
	}
	cr_assert_gt(runs, 0, "no section of the fixture was cut");
	printf("dwinfo: %zu runs over truncated fixture sections, none crashed\n", runs);
	free_sections(&c);
	object_close(&o);
}

/* Forged compression headers: unknown kinds, sizes that lie, payloads
 * that are not zlib or zstd, cut streams. Each gives an error (at open or
 * at lookup), never a crash or a huge allocation. */
Test(dwinfo, compressed_sections_are_checked)
{
	char obj[256], why[256];
	struct object o;
	struct copy c;
	struct dwinfo *d;
	size_t i;
	uint8_t hdr[24];

	if (variant_path("gcc-zlib", obj, sizeof(obj), why, sizeof(why)) < 0)
		cr_skip_test("%s", why);
	object_open(&o, obj);
	copy_sections(&c, &o);
	i = find(&c, ".debug_info");
	cr_assert_neq(i, SIZE_MAX);
	cr_assert(c.secs[i].compressed, "cc -gz=zlib left .debug_info uncompressed");
	cr_assert_gt(exercise(&c, o.text_lo, o.text_hi, 1), 100);
	memcpy(hdr, c.data[i], sizeof(hdr));

	c.data[i][0] = 7;  /* ch_type: no such compression */
	cr_expect_eq(dwinfo_new(c.secs, c.n, &d), DWINFO_E_COMPRESSED);
	restore_sections(&c, &o);
	c.data[i][0] = 2;  /* says zstd, holds zlib */
	cr_expect_eq(exercise(&c, o.text_lo, o.text_hi, 1), 0);
	restore_sections(&c, &o);
	memset(c.data[i] + 8, 0xff, 8);  /* ch_size: 16 EiB */
	cr_expect_eq(dwinfo_new(c.secs, c.n, &d), DWINFO_E_COMPRESSED);
	restore_sections(&c, &o);
	memset(c.data[i] + 8, 0, 8);
	c.data[i][11] = 0x10;  /* ch_size: 256 MiB, far beyond any ratio */
	cr_expect_eq(dwinfo_new(c.secs, c.n, &d), DWINFO_E_COMPRESSED);
	restore_sections(&c, &o);
	c.data[i][8] ^= 1;  /* ch_size off by one: the stream disagrees */
	cr_expect_eq(exercise(&c, o.text_lo, o.text_hi, 1), 0);
	restore_sections(&c, &o);
	c.secs[i].size = 20;  /* shorter than its header */
	cr_expect_eq(dwinfo_new(c.secs, c.n, &d), DWINFO_E_COMPRESSED);
	for (size_t cut = 24; cut < o.secs[i].size; cut += o.secs[i].size / 20 + 1) {
		restore_sections(&c, &o);
		c.secs[i].size = cut;  /* a cut stream */
		cr_expect_eq(exercise(&c, o.text_lo, o.text_hi, 1), 0);
	}
	for (int round = 0; round < 50; round++) {
		restore_sections(&c, &o);
		c.data[i][24 + next_rand() % (o.secs[i].size - 24)] ^= 0x55;
		exercise(&c, o.text_lo, o.text_hi, 3);
	}
	free_sections(&c);
	object_close(&o);
}

/* Damage in a large real file: libc's debug file, decompressed by
 * objcopy so the bytes can be flipped where they are read. */
Test(dwinfo, damaged_libc_never_crashes)
{
	char plain[128], cmd[1024];
	struct object o;
	struct copy c;
	size_t i, runs = 0;
	uint64_t *addrs;

	need_libc_debug();
	snprintf(plain, sizeof(plain), "%s/libc-plain", tmpdir);
	snprintf(cmd, sizeof(cmd), "objcopy --decompress-debug-sections %s %s", libc_debug, plain);
	if (system(cmd) != 0)
		cr_skip_test("objcopy cannot decompress %s", libc_debug);
	object_open(&o, plain);
	addrs = spread(&o, 400);
	copy_sections(&c, &o);
	for (int round = 0; round < 24; round++) {
		struct dwinfo *d;

		restore_sections(&c, &o);
		i = find(&c, damaged[round % 4]);
		cr_assert_neq(i, SIZE_MAX);
		cr_assert(!c.secs[i].compressed);
		for (int k = 0; k < 64; k++)
			c.data[i][next_rand() % c.secs[i].size] ^= (uint8_t)(1 + next_rand() % 255);
		if (dwinfo_new(c.secs, c.n, &d) != 0)
			continue;
		for (size_t a = 0; a < 400; a++) {
			struct dwinfo_frame f[DWINFO_MAX_FRAMES];
			int got = dwinfo_lookup(d, addrs[a], f, DWINFO_MAX_FRAMES);
			for (int k = 0; k < got; k++)
				cr_assert_not_null(f[k].function);
		}
		dwinfo_free(d);
		runs++;
	}
	printf("dwinfo: %zu runs over damaged libc debug info, none crashed\n", runs);
	free_sections(&c);
	free(addrs);
	object_close(&o);
}

/* ---- units found through .debug_aranges ---- */

/* The frames of a lookup, in one string: "function file:line:column|...". */
static void frames_text(struct dwinfo *d, uint64_t addr, char *out, size_t n)
{
	struct dwinfo_frame f[DWINFO_MAX_FRAMES];
	int k = dwinfo_lookup(d, addr, f, DWINFO_MAX_FRAMES);
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < k && used < n; i++)
		used += (size_t)snprintf(out + used, n - used, "%s %s:%u:%u|", f[i].function,
					 f[i].file ? f[i].file : "?", f[i].line, f[i].column);
}

/* Checks that secs and the same sections without .debug_aranges (those
 * of o) give the same frames at every address; returns how many had any. */
static size_t same_without_aranges(const struct object *o, const struct dwinfo_section *secs,
				   size_t nsecs, const uint64_t *addrs, size_t n)
{
	struct dwinfo_section without[256];
	struct dwinfo *a, *b;
	size_t nwithout = 0, found = 0, had = 0;
	char x[4096], y[4096];

	for (size_t i = 0; i < o->nsecs; i++) {
		if (strcmp(o->secs[i].name, ".debug_aranges"))
			without[nwithout++] = o->secs[i];
		else
			had = 1;
	}
	cr_assert(had, "no .debug_aranges: the test would compare a file with itself");
	cr_assert_eq(dwinfo_new(secs, nsecs, &a), 0);
	cr_assert_eq(dwinfo_new(without, nwithout, &b), 0);
	for (size_t i = 0; i < n; i++) {
		frames_text(a, addrs[i], x, sizeof(x));
		frames_text(b, addrs[i], y, sizeof(y));
		cr_assert_str_eq(x, y, "0x%llx: through .debug_aranges '%s', through the unit DIEs '%s'",
				 (unsigned long long)addrs[i], x, y);
		found += x[0] != '\0';
	}
	dwinfo_free(a);
	dwinfo_free(b);
	return found;
}

Test(dwinfo, aranges_find_the_units_the_unit_dies_find)
{
	char obj[256];
	struct object o;
	uint64_t *addrs;
	size_t n = 0, found;

	fixture_path(obj, sizeof(obj));
	object_open(&o, obj);
	addrs = malloc((o.text_hi - o.text_lo) * sizeof(*addrs));
	cr_assert_not_null(addrs);
	for (uint64_t a = o.text_lo; a < o.text_hi; a++)
		addrs[n++] = a;
	found = same_without_aranges(&o, o.secs, o.nsecs, addrs, n);
	cr_expect_gt(found, 500);
	free(addrs);
	object_close(&o);
}

Test(dwinfo, libc_aranges_find_the_units_the_unit_dies_find)
{
	struct object o;
	uint64_t *addrs;
	size_t found;

	need_libc_debug();
	object_open(&o, libc_debug);
	addrs = spread(&o, 3000);
	found = same_without_aranges(&o, o.secs, o.nsecs, addrs, 3000);
	cr_expect_gt(found, 2700);
	printf("dwinfo: libc: %zu of 3000 addresses named alike through .debug_aranges and without\n",
	       found);
	free(addrs);
	object_close(&o);
}

/* Where .debug_aranges names a unit, its ranges are the ones used (as in
 * LLVM): with every length zeroed, no address finds a unit; with a set
 * that cannot be read (a segment selector size of 1), none of the
 * section is used, and every unit is found by its DIE. */
Test(dwinfo, aranges_are_used_unless_damaged)
{
	char obj[256], x[4096];
	struct object o;
	struct copy c;
	struct dwinfo *d;
	size_t i, off = 0, named = 0;
	uint64_t *addrs, n = 0;

	fixture_path(obj, sizeof(obj));
	object_open(&o, obj);
	copy_sections(&c, &o);
	i = find(&c, ".debug_aranges");
	cr_assert_neq(i, SIZE_MAX, "%s has no .debug_aranges", obj);
	cr_assert(!c.secs[i].compressed);
	/* 32-bit sets of 8-byte tuples: 12 bytes of header, 4 of padding. */
	while (off + 16 <= c.secs[i].size) {
		uint32_t len = (uint32_t)c.data[i][off] | (uint32_t)c.data[i][off + 1] << 8 |
			       (uint32_t)c.data[i][off + 2] << 16 | (uint32_t)c.data[i][off + 3] << 24;

		cr_assert_eq(c.data[i][off + 10], 8, "not 8-byte addresses");
		for (size_t t = off + 16; t + 16 <= off + 4 + len; t += 16)
			memset(c.data[i] + t + 8, 0, 8);
		off += 4 + len;
	}
	cr_assert_eq(dwinfo_new(c.secs, c.n, &d), 0);
	for (uint64_t a = o.text_lo; a < o.text_hi; a++) {
		frames_text(d, a, x, sizeof(x));
		cr_assert_str_eq(x, "", "0x%llx: named %s with no ranges in .debug_aranges",
				 (unsigned long long)a, x);
	}
	dwinfo_free(d);
	c.data[i][11] = 1;
	addrs = malloc((o.text_hi - o.text_lo) * sizeof(*addrs));
	cr_assert_not_null(addrs);
	for (uint64_t a = o.text_lo; a < o.text_hi; a++)
		addrs[n++] = a;
	named = same_without_aranges(&o, c.secs, c.n, addrs, n);
	cr_expect_gt(named, 500, "a damaged .debug_aranges: the unit DIEs should find the units");
	free(addrs);
	free_sections(&c);
	object_close(&o);
}

/* The MD5 of a file as md5sum(1) gives it, in hex, into out (33 bytes). */
static void md5sum_of(const char *path, char *out)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "md5sum '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%32s", out), 1, "md5sum %s", path);
	pclose(p);
}

/* DWARF 5's DW_LNCT_MD5, which clang writes: every frame's file comes
 * with the MD5 md5sum(1) gives the file. */
Test(dwinfo, clang_dwarf5_file_md5)
{
	char obj[256], why[256], want[33], got[33];
	struct object o;
	struct dwinfo *d;
	size_t checked = 0;
	const char *last = NULL;

	if (variant_path("clang-dwarf5", obj, sizeof(obj), why, sizeof(why)) < 0) {
		printf("dwinfo: clang_dwarf5_file_md5 skipped: %s\n", why);
		return;
	}
	object_open(&o, obj);
	cr_assert_eq(dwinfo_new(o.secs, o.nsecs, &d), 0);
	for (uint64_t a = o.text_lo; a < o.text_hi; a++) {
		struct dwinfo_frame f[DWINFO_MAX_FRAMES];
		int n = dwinfo_lookup(d, a, f, DWINFO_MAX_FRAMES);

		for (int k = 0; k < n; k++) {
			if (!f[k].file)
				continue;
			cr_assert_not_null(f[k].file_md5, "no MD5 for %s at %#llx", f[k].file,
					   (unsigned long long)a);
			if (last != f[k].file) {
				md5sum_of(f[k].file, want);
				last = f[k].file;
			}
			for (int b = 0; b < 16; b++)
				snprintf(got + 2 * b, 3, "%02x", f[k].file_md5[b]);
			cr_assert_str_eq(got, want, "%s", f[k].file);
			checked++;
		}
	}
	cr_expect_gt(checked, 100);
	dwinfo_free(d);
	object_close(&o);
}

/* The rows of a function's range: ascending, within it, from its start. */
Test(dwinfo, rows_of_a_range)
{
	char obj[256];
	struct object o;
	struct dwinfo *d;
	uint64_t size = 0, lo, starts[4096];
	size_t n;

	fixture_path(obj, sizeof(obj));
	object_open(&o, obj);
	cr_assert_eq(dwinfo_new(o.secs, o.nsecs, &d), 0);
	lo = nm_symbol("nm", obj, "run", &size);
	cr_assert_gt(size, 0);
	n = dwinfo_rows(d, lo, lo + size, starts, 4096);
	cr_assert_gt(n, 3);
	cr_assert_eq(starts[0], lo);
	for (size_t i = 0; i < n; i++) {
		cr_assert(starts[i] >= lo && starts[i] < lo + size);
		cr_assert(i == 0 || starts[i] > starts[i - 1]);
	}
	cr_assert_eq(dwinfo_rows(d, lo, lo + size, starts, 2), 2, "at most max");
	cr_assert_eq(dwinfo_rows(d, lo, lo, starts, 4096), 0);
	dwinfo_free(d);
	object_close(&o);
}
