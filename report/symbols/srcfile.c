/*
 * srcfile.c: finding a line table's source files and reading their lines.
 *
 * A report asks for the same few files over and over, one line at a time,
 * so each path is looked for once and its file read whole, with the start
 * of every line indexed; what was tried is kept beside it. The MD5 that a
 * DWARF 5 line table gives is checked with libiberty's md5_buffer(),
 * which prof-report links for its demanglers already.
 */
#include "report/symbols/srcfile.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/hmap.h"

#include <xxhash.h>

/* libiberty's (md5.c); Debian ships no header for it. Writes the 16-byte
 * digest of len bytes at buffer to resblock. */
void *md5_buffer(const char *buffer, size_t len, void *resblock);

/* How far a file is searched for a NUL byte, the mark of a binary file. */
#define BINARY_PROBE (64u << 10)

struct file {
	struct srcfile_file pub;
	char *want;
	char *data;               /* the file's bytes */
	size_t size;
	size_t *starts;           /* per line, its offset in data, and one
	                           * more: size */
	size_t used;              /* the try whose file data holds */
	int seen;                 /* srcfile_first_sight() */
};

struct srcfile {
	struct srcfile_opts o;
	struct hmap by_path;      /* (XXH3 of the path, length) -> index */
	struct file **files;
	size_t nfiles, capfiles;
	char **roots;             /* rust_roots() */
	size_t nroots;
	char *roots_hash;
};

struct srcfile *srcfile_new(const struct srcfile_opts *o)
{
	struct srcfile *s = xcalloc(1, sizeof(*s));

	if (o)
		s->o = *o;
	hmap_init(&s->by_path);
	return s;
}

void srcfile_free(struct srcfile *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		struct file *f = s->files[i];

		for (size_t k = 0; k < f->pub.ntries; k++) {
			free(f->pub.tries[k].path);
			free(f->pub.tries[k].why);
		}
		free(f->pub.tries);
		free(f->want);
		free(f->data);
		free(f->starts);
		free(f);
	}
	free(s->files);
	for (size_t i = 0; i < s->nroots; i++)
		free(s->roots[i]);
	free(s->roots);
	free(s->roots_hash);
	hmap_release(&s->by_path);
	free(s);
}

const char *srcfile_map_check(const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq)
		return "not OLD=NEW";
	if (eq == arg)
		return "OLD is empty";
	return NULL;
}

static void add_try(struct file *f, const char *path, char *why)
{
	struct srcfile_try *t;

	f->pub.tries = xrealloc(f->pub.tries, (f->pub.ntries + 1) * sizeof(*f->pub.tries));
	t = &f->pub.tries[f->pub.ntries++];
	t->path = xstrdup(path);
	t->why = why;
}

/* Reads the regular file at path whole into *data: 0, or why not. */
static char *read_whole(const char *path, char **data, size_t *size)
{
	struct stat st;
	char *p = NULL;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return xstrdup(strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return xstrdup(S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
	}
	if ((uint64_t)st.st_size > SRCFILE_MAX_FILE) {
		close(fd);
		return xasprintf("too big (%llu bytes; at most %u are read)",
				 (unsigned long long)st.st_size, SRCFILE_MAX_FILE);
	}
	p = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, p + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			char *why = xstrdup(strerror(errno));

			free(p);
			close(fd);
			return why;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (memchr(p, 0, got < BINARY_PROBE ? got : BINARY_PROBE)) {
		free(p);
		return xstrdup("a binary file (a NUL byte in its first 64 KiB)");
	}
	*data = p;
	*size = got;
	return NULL;
}

static void index_lines(struct file *f)
{
	size_t cap = 0, n = 0;

	for (size_t i = 0; i < f->size; n++) {
		const char *nl = memchr(f->data + i, '\n', f->size - i);

		f->starts = xgrow(f->starts, &cap, n + 2, sizeof(*f->starts));
		f->starts[n] = i;
		i = nl ? (size_t)(nl - f->data) + 1 : f->size;
	}
	f->starts = xgrow(f->starts, &cap, n + 1, sizeof(*f->starts));
	f->starts[n] = f->size;
	f->pub.nlines = (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
}

/* Tries the file at path for f: 1 if f now uses it for good, 0 if the
 * search goes on (f may keep it as the best so far: a file whose MD5
 * differs). */
static int try_path(struct file *f, const char *path, const uint8_t *md5)
{
	char *data = NULL, *why;
	size_t size = 0;
	uint8_t sum[16];
	int match = SRCFILE_MATCH_UNKNOWN;

	for (size_t k = 0; k < f->pub.ntries; k++)
		if (!strcmp(f->pub.tries[k].path, path))
			return 0;
	why = read_whole(path, &data, &size);
	if (why) {
		add_try(f, path, why);
		return 0;
	}
	if (md5) {
		md5_buffer(data, size, sum);
		match = memcmp(sum, md5, 16) ? SRCFILE_MATCH_DIFFERS : SRCFILE_MATCH_MD5;
	}
	if (match == SRCFILE_MATCH_DIFFERS && f->data) {
		add_try(f, path, xstrdup("its MD5 is not the build's either"));
		free(data);
		return 0;
	}
	add_try(f, path, match == SRCFILE_MATCH_DIFFERS ? xstrdup("its MD5 is not the build's") : NULL);
	f->used = f->pub.ntries - 1;
	free(f->data);
	f->data = data;
	f->size = size;
	f->pub.match = match;
	return match != SRCFILE_MATCH_DIFFERS;
}

/* The rewrite of path by the longest --source-map OLD that prefixes it
 * at a component boundary, or NULL. Caller frees. */
static char *mapped(const struct srcfile *s, const char *path)
{
	const char *best = NULL;
	size_t bestlen = 0;

	for (size_t i = 0; i < s->o.nmaps; i++) {
		const char *m = s->o.maps[i], *eq = strchr(m, '=');
		size_t n = eq ? (size_t)(eq - m) : 0;

		if (!n || strncmp(path, m, n) || (path[n] && path[n] != '/' && m[n - 1] != '/'))
			continue;
		if (n > bestlen) {
			best = m;
			bestlen = n;
		}
	}
	return best ? xasprintf("%s%s", strchr(best, '=') + 1, path + bestlen) : NULL;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Whether the file at path holds needle. */
static int file_has(const char *path, const char *needle)
{
	char *data = NULL, *why;
	size_t size = 0;
	int has;

	if ((why = read_whole(path, &data, &size))) {
		free(why);
		return 0;
	}
	has = memmem(data, size, needle, strlen(needle)) != NULL;
	free(data);
	return has;
}

/* The sysroots that may hold the sources of Rust's standard library of
 * commit hash (its hex, hashlen digits), found without running anything:
 * each rustup toolchain (under $RUSTUP_HOME, else ~/.rustup) whose
 * channel manifest names the commit (by its first 9 digits, as a
 * version string does: "1.95.0 (59807616e 2026-04-14)"), in name order,
 * then the directory above that of the first rustc on PATH (a toolchain
 * installed whole, such as /usr/local). Kept for the last hash asked. */
static void rust_roots(struct srcfile *s, const char *hash, size_t hashlen)
{
	const char *env = getenv("RUSTUP_HOME"), *home = getenv("HOME"), *path = getenv("PATH");
	char *dir, *needle, **names = NULL;
	size_t nnames = 0, cap = 0;
	DIR *d;
	struct dirent *e;

	if (s->roots_hash && strlen(s->roots_hash) == hashlen && !strncmp(s->roots_hash, hash, hashlen))
		return;
	for (size_t i = 0; i < s->nroots; i++)
		free(s->roots[i]);
	s->nroots = 0;
	free(s->roots_hash);
	s->roots_hash = xstrndup(hash, hashlen);
	dir = env && env[0] ? xasprintf("%s/toolchains", env)
	      : home && home[0] ? xasprintf("%s/.rustup/toolchains", home) : NULL;
	needle = xasprintf("(%.*s ", hashlen < 9 ? (int)hashlen : 9, hash);
	if (dir && (d = opendir(dir))) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				names = xgrow(names, &cap, nnames + 1, sizeof(*names));
				names[nnames++] = xstrdup(e->d_name);
			}
		closedir(d);
	}
	if (nnames)
		qsort(names, nnames, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nnames; i++) {
		char *root = xasprintf("%s/%s", dir, names[i]);
		char *manifest = xasprintf("%s/lib/rustlib/multirust-channel-manifest.toml", root);

		if (file_has(manifest, needle)) {
			s->roots = xrealloc(s->roots, (s->nroots + 1) * sizeof(*s->roots));
			s->roots[s->nroots++] = root;
		} else {
			free(root);
		}
		free(manifest);
		free(names[i]);
	}
	free(names);
	free(needle);
	free(dir);
	for (const char *p = path; p && *p;) {
		size_t len = strcspn(p, ":");
		char *exe = xasprintf("%.*s/rustc", (int)len, p), *real;

		p += len + (p[len] == ':');
		if (access(exe, X_OK) != 0 || !(real = realpath(exe, NULL))) {
			free(exe);
			continue;
		}
		free(exe);
		/* .../bin/rustc: the sysroot is two levels up, if it has a
		 * lib/rustlib (rustup's proxy in ~/.cargo/bin has none). */
		*strrchr(real, '/') = 0;
		if (strrchr(real, '/'))
			*strrchr(real, '/') = 0;
		exe = xasprintf("%s/lib/rustlib", real);
		if (access(exe, F_OK) == 0) {
			s->roots = xrealloc(s->roots, (s->nroots + 1) * sizeof(*s->roots));
			s->roots[s->nroots++] = real;
		} else {
			free(real);
		}
		free(exe);
		break;
	}
}

/* For a path of Rust's standard library (/rustc/HASH/library/REST), sets
 * *hash to HASH (*hashlen digits) and *rest to REST, and returns 1. */
static int rust_library(const char *path, const char **hash, size_t *hashlen, const char **rest)
{
	static const char prefix[] = "/rustc/", lib[] = "/library/";
	const char *p = path + sizeof(prefix) - 1;
	size_t hex;

	if (strncmp(path, prefix, sizeof(prefix) - 1))
		return 0;
	hex = strspn(p, "0123456789abcdef");
	if (hex < 7 || strncmp(p + hex, lib, sizeof(lib) - 1))
		return 0;
	*hash = p;
	*hashlen = hex;
	*rest = p + hex + sizeof(lib) - 1;
	return 1;
}

/* path with its "." and "dir/.." components taken out, as a path to
 * look under a directory by: "./a/../b/f.c" is "b/f.c". Caller frees. */
static char *lexical(const char *path)
{
	struct buf b;
	size_t *ends = NULL, n = 0, cap = 0;

	buf_init(&b);
	for (const char *p = path; *p;) {
		size_t len = strcspn(p, "/");

		if (len == 1 && p[0] == '.') {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.' && n) {
			b.len = --n ? ends[n - 1] : 0;
		} else if (len) {
			if (b.len)
				buf_addch(&b, '/');
			buf_add(&b, p, len);
			ends = xgrow(ends, &cap, n + 1, sizeof(*ends));
			ends[n++] = b.len;
		}
		p += len;
		p += *p == '/';
	}
	free(ends);
	return buf_detach(&b);
}

static void search(struct srcfile *s, struct file *f, const char *path, const uint8_t *md5)
{
	char *p, *clean;
	const char *rest, *hash;
	size_t hashlen;
	int done;

	if ((p = mapped(s, path))) {
		done = try_path(f, p, md5);
		free(p);
		if (done)
			return;
	}
	if (try_path(f, path, md5))
		return;
	clean = lexical(path);
	for (size_t d = 0; d < s->o.ndirs; d++) {
		/* The trailing components, longest first. */
		for (const char *t = clean; t; t = strchr(t, '/')) {
			t += *t == '/';
			if (!*t)
				break;
			p = xasprintf("%s/%s", s->o.dirs[d], t);
			done = try_path(f, p, md5);
			free(p);
			if (done) {
				free(clean);
				return;
			}
		}
	}
	free(clean);
	if (rust_library(path, &hash, &hashlen, &rest)) {
		const char *env = getenv("RUST_SRC_PATH");

		if (env && env[0]) {
			p = xasprintf("%s/%s", env, rest);
			done = try_path(f, p, md5);
			free(p);
			if (done)
				return;
		}
		rust_roots(s, hash, hashlen);
		for (size_t i = 0; i < s->nroots; i++) {
			p = xasprintf("%s/lib/rustlib/src/rust/library/%s", s->roots[i], rest);
			done = try_path(f, p, md5);
			free(p);
			if (done)
				return;
		}
	}
	/* A file here whose MD5 differs is still better than none; a pack
	 * holds the text of the build, so it comes before that. */
	if ((f->pub.pack = pack_source_origin(s->o.pack, path))) {
		free(f->data);
		f->data = NULL;
	}
}

const struct srcfile_file *srcfile_find(struct srcfile *s, const char *path, const uint8_t *md5)
{
	size_t len = strlen(path);
	uint64_t *slot;
	struct file *f;
	int added;

	slot = hmap_put(&s->by_path, XXH3_64bits(path, len), len, s->nfiles, &added);
	if (!added && !strcmp(s->files[*slot]->want, path))
		return &s->files[*slot]->pub;
	f = xcalloc(1, sizeof(*f));
	f->want = xstrdup(path);
	f->pub.want = f->want;
	search(s, f, path, md5);
	if (f->data) {
		f->pub.path = f->pub.tries[f->used].path;
		index_lines(f);
	}
	s->files = xgrow(s->files, &s->capfiles, s->nfiles + 1, sizeof(*s->files));
	s->files[s->nfiles++] = f;
	if (added)
		*slot = s->nfiles - 1;
	return &f->pub;
}

int srcfile_first_sight(struct srcfile *s, const struct srcfile_file *pub)
{
	struct file *f = (struct file *)pub;
	int first = !f->seen;

	(void)s;
	f->seen = 1;
	return first;
}

const char *srcfile_line(struct srcfile *s, const struct srcfile_file *pub, uint32_t line, size_t *len)
{
	const struct file *f = (const struct file *)pub;
	size_t a, b;

	if (f->pub.pack)
		return pack_source_line(s->o.pack, f->want, line, len);
	if (!f->data || line == 0 || line > f->pub.nlines)
		return NULL;
	a = f->starts[line - 1];
	b = f->starts[line];
	if (b > a && f->data[b - 1] == '\n')
		b--;
	if (b > a && f->data[b - 1] == '\r')
		b--;
	*len = b - a;
	return f->data + a;
}
