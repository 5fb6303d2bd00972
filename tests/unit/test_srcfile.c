/*
 * test_srcfile.c: finding sources and reading their lines, on files the
 * tests write: the path itself, --source-map (the longest prefix, at a
 * component boundary, never looping), --source-dir by trailing
 * components with "." and ".." taken out, a DWARF 5 MD5 that passes over
 * a changed copy, and the files that are refused (missing, unreadable,
 * binary, a directory) with every path tried named. Lines end at LF or
 * CRLF; a huge line is read whole.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/diag.h"
#include "report/symbols/srcfile.h"

void *md5_buffer(const char *buffer, size_t len, void *resblock);

static char tmp[] = "/tmp/test_srcfile.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(srcfile, .init = setup, .fini = teardown);

/* Writes n bytes of text to tmp/rel (directories made), returns the path
 * (caller frees). */
static char *put(const char *rel, const char *text, size_t n)
{
	char *path = xasprintf("%s/%s", tmp, rel), *cmd = xasprintf("mkdir -p \"$(dirname '%s')\"", path);
	FILE *f;

	cr_assert_eq(system(cmd), 0);
	free(cmd);
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
	return path;
}

static char *line_of(struct srcfile *s, const struct srcfile_file *f, uint32_t line)
{
	size_t len;
	const char *t = srcfile_line(s, f, line, &len);

	return t ? xstrndup(t, len) : NULL;
}

Test(srcfile, the_path_itself_and_line_endings)
{
	char *p = put("a/f.c", "one\r\ntwo\n\nlast", 14);
	struct srcfile *s = srcfile_new(NULL);
	const struct srcfile_file *f = srcfile_find(s, p, NULL);
	char *l;

	cr_assert_str_eq(f->path, p);
	cr_assert_eq(f->nlines, 4);
	cr_assert_str_eq((l = line_of(s, f, 1)), "one");
	free(l);
	cr_assert_str_eq((l = line_of(s, f, 3)), "");
	free(l);
	cr_assert_str_eq((l = line_of(s, f, 4)), "last");
	free(l);
	cr_assert_null(line_of(s, f, 5), "a line past the end has no text");
	cr_assert_null(line_of(s, f, 0));
	cr_assert_eq(srcfile_find(s, p, NULL), f, "a path is looked for once");
	srcfile_free(s);
	free(p);
}

Test(srcfile, map_longest_prefix_once)
{
	char *p = put("new/src/f.c", "x\n", 2), *want = xasprintf("%s/old/src/f.c", tmp);
	char *m1 = xasprintf("%s/old=%s/nowhere", tmp, tmp), *m2 = xasprintf("%s/old/src=%s/new/src", tmp, tmp);
	char *loop1 = xasprintf("%s/new=%s/old", tmp, tmp);
	const char *maps[] = { m1, m2, loop1 };
	struct srcfile_opts o = { .maps = maps, .nmaps = 3 };
	struct srcfile *s = srcfile_new(&o);
	const struct srcfile_file *f = srcfile_find(s, want, NULL);

	cr_assert_str_eq(f->path, p, "the longest OLD wins");
	cr_assert_eq(f->ntries, 1);
	srcfile_free(s);
	/* A pair of maps that point at each other: each applies once, so the
	 * search ends, and names what it tried. */
	{
		char *a = xasprintf("%s/x=%s/y", tmp, tmp), *b = xasprintf("%s/y=%s/x", tmp, tmp);
		char *w = xasprintf("%s/x/f.c", tmp);
		const char *loop[] = { a, b };
		struct srcfile_opts lo = { .maps = loop, .nmaps = 2 };

		s = srcfile_new(&lo);
		f = srcfile_find(s, w, NULL);
		cr_assert_null(f->path);
		cr_assert_eq(f->ntries, 2, "the rewrite, then the path: %zu", f->ntries);
		cr_assert_str_eq(f->tries[0].why, "No such file or directory");
		srcfile_free(s);
		free(a);
		free(b);
		free(w);
	}
	cr_assert_not_null(srcfile_map_check("=x"));
	cr_assert_not_null(srcfile_map_check("x"));
	cr_assert_null(srcfile_map_check("/a=/b"));
	free(p);
	free(want);
	free(m1);
	free(m2);
	free(loop1);
}

Test(srcfile, map_at_component_boundary)
{
	char *p = put("srcx/f.c", "x\n", 2), *want = xasprintf("%s/srcx/f.c", tmp);
	char *m = xasprintf("%s/src=%s/none", tmp, tmp);
	const char *maps[] = { m };
	struct srcfile_opts o = { .maps = maps, .nmaps = 1 };
	struct srcfile *s = srcfile_new(&o);
	const struct srcfile_file *f = srcfile_find(s, want, NULL);

	cr_assert_str_eq(f->path, p, "'src' is no prefix of 'srcx/'");
	cr_assert_eq(f->ntries, 1);
	srcfile_free(s);
	free(p);
	free(want);
	free(m);
}

Test(srcfile, dir_by_trailing_components)
{
	char *p = put("tree/csu/libc-start.c", "int x;\n", 7), *dir = xasprintf("%s/tree", tmp);
	const char *dirs[] = { dir };
	struct srcfile_opts o = { .dirs = dirs, .ndirs = 1 };
	struct srcfile *s = srcfile_new(&o);
	const struct srcfile_file *f = srcfile_find(s, "./csu/../csu/libc-start.c", NULL);

	cr_assert_not_null(f->path);
	cr_assert_str_eq(f->path, p);
	f = srcfile_find(s, "/build/glibc-2.36/csu/libc-start.c", NULL);
	cr_assert_str_eq(f->path, p, "found by its trailing components");
	cr_assert_gt(f->ntries, 2, "longer tails tried first");
	srcfile_free(s);
	free(p);
	free(dir);
}

Test(srcfile, md5_passes_over_a_changed_copy)
{
	static const char good[] = "int main(void)\n{\n}\n", bad[] = "int main(void)\n{ return 1; }\n";
	char *changed = put("old/f.c", bad, sizeof(bad) - 1), *right = put("dir/f.c", good, sizeof(good) - 1);
	char *dir = xasprintf("%s/dir", tmp);
	const char *dirs[] = { dir };
	struct srcfile_opts o = { .dirs = dirs, .ndirs = 1 };
	uint8_t sum[16];
	struct srcfile *s;
	const struct srcfile_file *f;

	md5_buffer(good, sizeof(good) - 1, sum);
	s = srcfile_new(&o);
	f = srcfile_find(s, changed, sum);
	cr_assert_str_eq(f->path, right);
	cr_assert_eq(f->match, SRCFILE_MATCH_MD5);
	cr_assert_str_eq(f->tries[0].why, "its MD5 is not the build's");
	srcfile_free(s);
	/* Without the matching copy, the changed one is shown, marked. */
	s = srcfile_new(NULL);
	f = srcfile_find(s, changed, sum);
	cr_assert_str_eq(f->path, changed);
	cr_assert_eq(f->match, SRCFILE_MATCH_DIFFERS);
	srcfile_free(s);
	free(changed);
	free(right);
	free(dir);
}

Test(srcfile, refused_files_named)
{
	char *bin = put("bin.c", "ab\0cd\n", 6), *dir = xasprintf("%s/adir.c", tmp), *unread;
	struct srcfile *s = srcfile_new(NULL);
	const struct srcfile_file *f;

	cr_assert_eq(mkdir(dir, 0755), 0);
	f = srcfile_find(s, bin, NULL);
	cr_assert_null(f->path);
	cr_assert_str_eq(f->tries[0].why, "a binary file (a NUL byte in its first 64 KiB)");
	f = srcfile_find(s, dir, NULL);
	cr_assert_null(f->path);
	cr_assert_str_eq(f->tries[0].why, "a directory");
	f = srcfile_find(s, "/nonexistent/f.c", NULL);
	cr_assert_null(f->path);
	cr_assert_eq(f->ntries, 1);
	if (geteuid() != 0) {
		unread = put("unread.c", "x\n", 2);
		cr_assert_eq(chmod(unread, 0), 0);
		f = srcfile_find(s, unread, NULL);
		cr_assert_null(f->path);
		cr_assert_str_eq(f->tries[0].why, "Permission denied");
		free(unread);
	} else {
		printf("srcfile: the unreadable file's case skipped: root reads any file\n");
	}
	srcfile_free(s);
	free(bin);
	free(dir);
}

Test(srcfile, huge_line_read_whole)
{
	size_t n = 1 << 20;
	char *text = xmalloc(n + 3), *p, *l;
	struct srcfile *s = srcfile_new(NULL);
	const struct srcfile_file *f;

	memset(text, 'x', n);
	memcpy(text + n, "\ny", 2);
	p = put("huge.c", text, n + 2);
	f = srcfile_find(s, p, NULL);
	cr_assert_eq(f->nlines, 2);
	l = line_of(s, f, 1);
	cr_assert_eq(strlen(l), n);
	free(l);
	srcfile_free(s);
	free(text);
	free(p);
}

Test(srcfile, rust_library_under_rust_src)
{
	static const char want[] = "/rustc/59807616e1fd1fab16a2a1bd8e8470b4e9a59ebe/library/core/src/fmt/mod.rs";
	static const char lib[] = "lib/rustlib/src/rust/library/core/src/fmt/mod.rs";
	static const char manifest[] = "lib/rustlib/multirust-channel-manifest.toml";
	static const char ours[] = "version = \"1.95.0 (59807616e 2026-04-14)\"\n";
	static const char theirs[] = "version = \"1.94.0 (12345678a 2026-03-01)\"\n";
	char *viaenv = put("env/library/core/src/fmt/mod.rs", "env\n", 4), *rel;
	char *oldpath = xstrdup(getenv("PATH")), *path, *home = xasprintf("%s/rustup", tmp);
	char *envlib = xasprintf("%s/env/library", tmp), *match, *other, *installed, *rustc;
	struct srcfile *s;
	const struct srcfile_file *f;

	/* Two rustup toolchains: only the one whose manifest names the
	 * commit serves it, though the other sorts first. */
	free(put((rel = xasprintf("rustup/toolchains/a-other/%s", manifest)), theirs, sizeof(theirs) - 1));
	free(rel);
	other = put((rel = xasprintf("rustup/toolchains/a-other/%s", lib)), "other\n", 6);
	free(rel);
	free(put((rel = xasprintf("rustup/toolchains/b-ours/%s", manifest)), ours, sizeof(ours) - 1));
	free(rel);
	match = put((rel = xasprintf("rustup/toolchains/b-ours/%s", lib)), "ours\n", 5);
	free(rel);
	/* A toolchain installed whole, its rustc on PATH. */
	installed = put((rel = xasprintf("inst/%s", lib)), "installed\n", 10);
	free(rel);
	rustc = put("inst/bin/rustc", "#!/bin/sh\n", 10);
	cr_assert_eq(chmod(rustc, 0755), 0);
	path = xasprintf("%s/inst/bin:%s", tmp, oldpath);
	setenv("PATH", path, 1);
	unsetenv("RUST_SRC_PATH");
	setenv("RUSTUP_HOME", home, 1);
	s = srcfile_new(NULL);
	f = srcfile_find(s, want, NULL);
	cr_assert_not_null(f->path);
	cr_assert_str_eq(f->path, match);
	for (size_t k = 0; k < f->ntries; k++)
		cr_assert_str_neq(f->tries[k].path, other, "a toolchain of another commit is not tried");
	srcfile_free(s);
	/* Without rustup's, the rustc on PATH; RUST_SRC_PATH comes first. */
	setenv("RUSTUP_HOME", tmp, 1);
	s = srcfile_new(NULL);
	f = srcfile_find(s, want, NULL);
	cr_assert_str_eq(f->path, installed);
	srcfile_free(s);
	setenv("RUST_SRC_PATH", envlib, 1);
	s = srcfile_new(NULL);
	f = srcfile_find(s, want, NULL);
	cr_assert_str_eq(f->path, viaenv);
	srcfile_free(s);
	unsetenv("RUST_SRC_PATH");
	unsetenv("RUSTUP_HOME");
	setenv("PATH", oldpath, 1);
	free(viaenv);
	free(match);
	free(other);
	free(installed);
	free(rustc);
	free(path);
	free(oldpath);
	free(home);
	free(envlib);
}
