/*
 * test_locate.c: which file serves an image, on real files made by the
 * build: the split fixture (with DWARF), its stripped copy with a debug
 * link, and its debug file moved to each place the locator searches. A
 * file is accepted only when its identity matches, and the first match
 * with DWARF beats an earlier match without it. The code of an image
 * comes from a file that holds it: the binary, beside its debug file, or
 * its copy in the image cache.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/diag.h"
#include "format/trace_ident.h"
#include "report/symbols/locate.h"
#include "report/symbols/objfile.h"
#include "report/symbols/symbolize.h"
#include "object_file.h"

static char tmp[] = "/tmp/test_locate.XXXXXX";
static char split[256], stripped[256], debug[256];

static void setup(void)
{
	const char *b = getenv("BUILD") ? getenv("BUILD") : "build";

	snprintf(split, sizeof(split), "%s/testdata/split", b);
	snprintf(stripped, sizeof(stripped), "%s/testdata/stripped/split", b);
	snprintf(debug, sizeof(debug), "%s/testdata/stripped/.debug/split.debug", b);
	cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(locate, .init = setup, .fini = teardown);

static void sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The image a trace would record for the file at path. */
static struct trace_image image_for(const char *path, const char *recorded)
{
	struct trace_image img;
	struct objfile of;
	char *why = NULL;

	cr_assert_eq(objfile_open(&of, path, TRACE_IDENT_GNU_BUILD_ID, NULL, 0, &why), 0,
		     "%s: %s", path, why);
	memset(&img, 0, sizeof(img));
	img.ident_kind = of.kind;
	img.ident_len = (uint8_t)of.ident_len;
	memcpy(img.ident, of.ident, of.ident_len);
	img.path = (char *)recorded;
	objfile_release(&of);
	return img;
}

static const struct locate_opts none = { .debug_root = "", .debuginfod_cache = "" };

static const char *why_of(const struct locate_result *r, const char *path)
{
	for (size_t i = 0; i < r->ntries; i++)
		if (strstr(r->tries[i].path, path))
			return r->tries[i].why ? r->tries[i].why : "(accepted)";
	return NULL;
}

Test(locate, recorded_path_with_dwarf_is_enough)
{
	char *abs = realpath(split, NULL);
	struct trace_image img = image_for(split, abs);
	struct locate_result r;

	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, &none, &r), 0);
	cr_assert_str_eq(r.path, abs);
	cr_assert(r.obj.has_dwarf);
	cr_assert_eq(r.ntries, 1);
	locate_result_release(&r);
	free(abs);
}

Test(locate, mismatch_and_bad_identities_refused)
{
	char *abs = realpath(split, NULL);
	struct trace_image img = image_for(split, abs);
	struct locate_result r;

	img.ident[3] ^= 0x40;
	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, &none, &r), LOCATE_E_NOTFOUND);
	cr_assert(!r.found);
	cr_assert_eq(r.ntries, 1);
	cr_assert_not_null(strstr(r.tries[0].why, "build-id mismatch (the file has "),
			   "%s", r.tries[0].why);
	locate_result_release(&r);

	/* Lengths no build-id has, and no identity at all, never reach a
	 * path: nothing is tried. */
	img.ident_len = 1;
	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, NULL, &r), LOCATE_E_NOIDENT);
	cr_assert_eq(r.ntries, 0);
	locate_result_release(&r);
	img.ident_len = 20;
	img.ident_kind = TRACE_IDENT_MACHO_UUID;
	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, NULL, &r), LOCATE_E_NOIDENT);
	cr_assert_eq(r.ntries, 0);
	locate_result_release(&r);
	img.ident_kind = TRACE_IDENT_NONE;
	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, NULL, &r), LOCATE_E_NOIDENT);
	locate_result_release(&r);
	free(abs);
}

/* The stripped binary matches but has no DWARF; its debug link leads to
 * the debug file in .debug/, which is preferred. */
Test(locate, debuglink_in_dot_debug_beats_stripped_match)
{
	char *abs = realpath(stripped, NULL);
	struct trace_image img = image_for(stripped, abs);
	struct locate_result r;

	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, &none, &r), 0);
	cr_assert_not_null(strstr(r.path, "/.debug/split.debug"), "%s", r.path);
	cr_assert(r.obj.has_dwarf);
	cr_assert_str_eq(why_of(&r, abs),
			 "it matches but has no debug information; a file with DWARF was found");
	locate_result_release(&r);
	free(abs);
}

/* With the debug file nowhere to be found, the stripped binary's own
 * symbol table serves. */
Test(locate, match_without_dwarf_is_the_fallback)
{
	char copy[512];
	struct trace_image img = image_for(stripped, NULL);
	struct locate_result r;

	snprintf(copy, sizeof(copy), "%s/split", tmp);
	sh("cp '%s' '%s'", stripped, copy);
	img.path = copy;
	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, &none, &r), 0);
	cr_assert_str_eq(r.path, copy);
	cr_assert(!r.obj.has_dwarf);
	cr_assert_not_null(why_of(&r, "/.debug/split"), "the debug link was not tried");
	locate_result_release(&r);
}

/* Copies the file at src to dst, making dst's directories. */
static void copy_to(const char *src, const char *dst)
{
	sh("mkdir -p \"$(dirname '%2$s')\" && cp '%1$s' '%2$s'", src, dst);
}

Test(locate, build_id_tree_under_debug_root)
{
	struct trace_image img = image_for(stripped, "/nonexistent/split");
	struct locate_opts o = { .debug_root = tmp, .debuginfod_cache = "" };
	char hex[2 * TRACE_MAX_IDENT + 1], path[700];
	struct locate_result r;

	objfile_hex(hex, img.ident, img.ident_len);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", tmp, hex, hex + 2);
	copy_to(debug, path);
	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, &o, &r), 0);
	cr_assert_str_eq(r.path, path);
	cr_assert_str_eq(why_of(&r, "/nonexistent/split"), "No such file or directory");
	locate_result_release(&r);
}

Test(locate, debuginfod_client_cache)
{
	struct trace_image img = image_for(stripped, "/nonexistent/split");
	struct locate_opts o = { .debug_root = "" };
	char hex[2 * TRACE_MAX_IDENT + 1], path[1024], xdg[256];
	struct locate_result r;

	objfile_hex(hex, img.ident, img.ident_len);
	snprintf(path, sizeof(path), "%s/cache/%s/debuginfo", tmp, hex);
	copy_to(debug, path);
	snprintf(xdg, sizeof(xdg), "%s/cache", tmp);
	cr_assert_eq(setenv("DEBUGINFOD_CACHE_PATH", xdg, 1), 0);
	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, &o, &r), 0);
	cr_assert_str_eq(r.path, path);
	cr_assert_eq(r.origin, LOCATE_ORIGIN_CACHE);
	locate_result_release(&r);

	/* Without it, $XDG_CACHE_HOME/debuginfod_client. */
	unsetenv("DEBUGINFOD_CACHE_PATH");
	snprintf(xdg, sizeof(xdg), "%s/xdg", tmp);
	snprintf(path, sizeof(path), "%s/debuginfod_client/%s/debuginfo", xdg, hex);
	copy_to(debug, path);
	cr_assert_eq(setenv("XDG_CACHE_HOME", xdg, 1), 0);
	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, &o, &r), 0);
	cr_assert_str_eq(r.path, path);
	locate_result_release(&r);
}

/* An empty file in the client's cache is its record that no server had
 * the build-id: no candidate, and said so; the cache that libdebuginfod
 * used before XDG's, ~/.debuginfod_client_cache, is read where it exists. */
Test(locate, debuginfod_cache_miss_record_and_legacy_cache)
{
	struct trace_image img = image_for(stripped, "/nonexistent/split");
	struct locate_opts o = { .debug_root = "" };
	char hex[2 * TRACE_MAX_IDENT + 1], path[1024], dir[256];
	struct locate_result r;

	objfile_hex(hex, img.ident, img.ident_len);
	snprintf(dir, sizeof(dir), "%s/cache", tmp);
	snprintf(path, sizeof(path), "%s/%s/debuginfo", dir, hex);
	sh("mkdir -p \"$(dirname '%s')\" && : > '%s'", path, path);
	cr_assert_eq(setenv("DEBUGINFOD_CACHE_PATH", dir, 1), 0);
	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, &o, &r), LOCATE_E_NOTFOUND);
	cr_assert_not_null(strstr(why_of(&r, path), "record that no server had it"), "%s", why_of(&r, path));
	cr_assert_null(r.fetched);
	locate_result_release(&r);

	unsetenv("DEBUGINFOD_CACHE_PATH");
	snprintf(dir, sizeof(dir), "%s/home", tmp);
	snprintf(path, sizeof(path), "%s/.debuginfod_client_cache/%s/debuginfo", dir, hex);
	copy_to(debug, path);
	cr_assert_eq(setenv("HOME", dir, 1), 0);
	cr_assert_eq(setenv("XDG_CACHE_HOME", tmp, 1), 0);
	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, &o, &r), 0);
	cr_assert_str_eq(r.path, path);
	cr_assert_eq(r.origin, LOCATE_ORIGIN_CACHE);
	locate_result_release(&r);
}

/* --symbols: found at any depth, by identity alone (the name is another);
 * other builds, FIFOs, symlinks to devices and to directories above are
 * passed over without hanging or failing the scan. */
Test(locate, symbols_dirs_indexed_by_identity, .timeout = 20)
{
	struct trace_image img = image_for(stripped, "/nonexistent/split");
	char path[700], other[700], top[600];
	struct locate_index *ix;
	struct locate_result r;
	const char *dirs[1] = { top };

	snprintf(top, sizeof(top), "%s/syms", tmp);
	snprintf(path, sizeof(path), "%s/a/b/c/d/renamed.dbg", top);
	copy_to(debug, path);
	snprintf(other, sizeof(other), "%s/a/another-build", top);
	copy_to("/bin/true", other);
	sh("mkfifo '%s/a/fifo' && ln -s /dev/zero '%s/a/zero'", top, top);
	sh("ln -s .. '%1$s/a/b/up' && ln -s '%2$s' '%2$s/a/loop'", top, top);
	sh("ln -s '%1$s/a/b/c/d/renamed.dbg' '%2$s/link.dbg'", top, top);
	ix = locate_index_new(dirs, 1);
	locate_result_init(&r);
	cr_assert_eq(locate_image(&img, &(struct locate_opts){ .index = ix, .debug_root = "",
							       .debuginfod_cache = "" },
				  &r), 0);
	/* In name order "a/..." comes before "link.dbg". */
	cr_assert_str_eq(r.path, path);
	cr_assert_null(why_of(&r, "another-build"), "a file of another build was tried");
	locate_result_release(&r);
	locate_index_free(ix);
}

/* The bytes split holds at its function run, and where run lies. */
static size_t run_code(uint8_t *out, size_t max, uint64_t *addr)
{
	struct objfile of;
	const uint8_t *code;
	char *why = NULL;
	uint64_t size;
	size_t n;

	*addr = nm_symbol("nm", split, "run", &size);
	cr_assert_leq(size, max);
	cr_assert_eq(objfile_open(&of, split, TRACE_IDENT_GNU_BUILD_ID, NULL, 0, &why), 0);
	n = objfile_code(&of, *addr, size, &code);
	cr_assert_eq(n, size);
	memcpy(out, code, n);
	objfile_release(&of);
	return n;
}

/* The debug file, accepted for its DWARF, holds no code (its .text is
 * SHT_NOBITS): the code comes from the stripped binary at the recorded
 * path, the function's range from the debug file's symbols. Where no
 * section holds the address, no file holds code. */
Test(locate, code_from_the_binary_beside_its_debug_file)
{
	char *abs = realpath(stripped, NULL);
	struct trace_image img = image_for(stripped, abs);
	struct trace t = { .nimages = 1, .images = &img };
	struct symbolize *s;
	const struct locate_result *src;
	const uint8_t *code;
	const char *from;
	uint8_t want[4096];
	uint64_t addr, lo, hi;
	size_t n = run_code(want, sizeof(want), &addr);
	int err, arch;

	setenv("PROF_IMAGE_CACHE", tmp, 1);
	s = symbolize_new(&t, &(struct symbolize_opts){ .debug_root = "", .debuginfod_cache = "" });
	src = symbolize_image_source(s, 0, &err);
	cr_assert_eq(err, 0);
	cr_assert_not_null(strstr(src->path, "/.debug/split.debug"), "%s", src->path);
	cr_assert_eq(symbolize_image_function(s, 0, addr + n - 1, &lo, &hi), 0);
	cr_assert_eq(lo, addr);
	cr_assert_eq(hi, addr + n);
	cr_assert_eq(symbolize_image_code(s, 0, lo, hi - lo, &code, &arch, &from), n);
	cr_assert_str_eq(from, abs);
	cr_assert_eq(arch, TRACE_ARCH_X86_64);
	cr_assert_arr_eq(code, want, n);
	cr_assert_eq(symbolize_image_code(s, 0, 0x10, 16, &code, &arch, &from), 0);
	cr_assert_str_eq(from, "no file of this build holds its code");
	symbolize_free(s);
	free(abs);
}

/* A binary gone from its recorded path: its copy in the image cache
 * holds the code, once the recorder has kept one. */
Test(locate, code_from_the_image_cache_copy)
{
	struct trace_image img = image_for(stripped, "/nonexistent/split");
	struct trace t = { .nimages = 1, .images = &img };
	char syms[600], file[700], *copy;
	const char *dirs[1] = { syms }, *from;
	struct symbolize_opts o = { .debug_root = "", .debuginfod_cache = "", .symbol_dirs = dirs,
				    .nsymbol_dirs = 1 };
	struct symbolize *s;
	const uint8_t *code;
	uint8_t want[4096];
	uint64_t addr;
	size_t n = run_code(want, sizeof(want), &addr);
	int arch;

	snprintf(syms, sizeof(syms), "%s/syms", tmp);
	snprintf(file, sizeof(file), "%s/split.debug", syms);
	copy_to(debug, file);
	setenv("PROF_IMAGE_CACHE", tmp, 1);
	s = symbolize_new(&t, &o);
	cr_assert_eq(symbolize_image_code(s, 0, addr, n, &code, &arch, &from), 0);
	cr_assert_str_eq(from, "no file of this build holds its code");
	symbolize_free(s);

	copy = trace_ident_cache_path(tmp, img.ident_kind, img.ident, img.ident_len, "split");
	cr_assert_not_null(copy);
	copy_to(stripped, copy);
	s = symbolize_new(&t, &o);
	cr_assert_eq(symbolize_image_code(s, 0, addr, n, &code, &arch, &from), n);
	cr_assert_str_eq(from, copy);
	cr_assert_arr_eq(code, want, n);
	symbolize_free(s);
	free(copy);
}

/* An address whose line-table row has line 0 (the compiler's "no line";
 * clang writes such rows): with lines, its frame is "NAME (FILE:?)", not
 * "NAME (FILE)", which read as a line left out. The row is the one
 * llvm-dwarfdump --debug-line lists. */
Test(locate, line_zero_named_file_question_mark)
{
	const char *b = getenv("BUILD") ? getenv("BUILD") : "build";
	char path[256], cmd[512], line[512], *abs;
	unsigned long long addr = 0, ln, col, file;
	struct trace_image img;
	struct trace t = { .nimages = 1 };
	struct symbolize *s;
	const struct symbolize_frame *fr;
	size_t n;
	FILE *p;

	snprintf(path, sizeof(path), "%s/testdata/dwarf/clang-dwarf5", b);
	if (access(path, R_OK) != 0) {
		printf("locate: line_zero_named_file_question_mark skipped: no %s\n", path);
		return;
	}
	snprintf(cmd, sizeof(cmd), "llvm-dwarfdump --debug-line '%s' 2> /dev/null", path);
	cr_assert_not_null(p = popen(cmd, "r"));
	/* "0xADDRESS LINE COLUMN FILE ISA DISCRIMINATOR FLAGS": the first row
	 * of line 0 that does not end a sequence. */
	while (fgets(line, sizeof(line), p))
		if (!addr && sscanf(line, "0x%llx %llu %llu %llu", &addr, &ln, &col, &file) == 4 &&
		    (ln != 0 || strstr(line, "end_sequence")))
			addr = 0;
	pclose(p);
	if (!addr) {
		printf("locate: line_zero_named_file_question_mark skipped: no row of line 0 in %s\n", path);
		return;
	}
	abs = realpath(path, NULL);
	img = image_for(path, abs);
	t.images = &img;
	s = symbolize_new(&t, &(struct symbolize_opts){ .debug_root = "", .debuginfod_cache = "",
							 .lines = 1 });
	n = symbolize_image_addr(s, 0, addr, &fr);
	cr_assert_geq(n, 1);
	cr_assert_eq(fr[0].line, 0, "at %#llx", addr);
	cr_assert_not_null(fr[0].file);
	cr_assert(strlen(fr[0].name) > 3 && !strcmp(fr[0].name + strlen(fr[0].name) - 3, ":?)"),
		  "at %#llx: %s", addr, fr[0].name);
	symbolize_free(s);
	free(abs);
}
