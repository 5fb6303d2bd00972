/*
 * locate.c: finding the file that serves an image, and refusing any other.
 *
 * Candidates come from fixed places (the recorded path, the build-id tree,
 * the debug link, the debuginfod cache), from an index of the --symbols
 * directories, scanned once per run, and last from a debuginfod server. Each candidate is opened through
 * objfile.h, which accepts it only if it holds the recorded identity. The
 * search goes on past a match without DWARF, because a stripped library
 * usually has its debug file elsewhere, and stops at the first match with
 * DWARF. Every candidate's fate is recorded; nothing here prints.
 */
#include "report/symbols/locate.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/diag.h"
#include "format/trace_ident.h"

#define LOCATE_MAX_DEPTH 32
#define LOCATE_MAX_FILES 200000

void locate_result_init(struct locate_result *r)
{
	memset(r, 0, sizeof(*r));
}

void locate_result_release(struct locate_result *r)
{
	size_t i;

	if (r->found)
		objfile_release(&r->obj);
	for (i = 0; i < r->ntries; i++) {
		free(r->tries[i].path);
		free(r->tries[i].why);
	}
	free(r->tries);
	free(r->path);
	locate_result_init(r);
}

/* --- the --symbols index ---------------------------------------------- */

struct index_entry {
	int kind;
	uint8_t len;
	uint8_t ident[TRACE_MAX_IDENT];
	size_t path;   /* into paths */
};

struct locate_index {
	struct index_entry *v;
	size_t n, cap;
	char **paths;
	size_t npaths, cappaths;
	size_t files;  /* looked at, against LOCATE_MAX_FILES */
};

struct index_add {
	struct locate_index *ix;
	size_t path;
};

static void index_one(void *ctx, int kind, const uint8_t *ident, size_t len)
{
	struct index_add *a = ctx;
	struct locate_index *ix = a->ix;
	struct index_entry *e;

	if (len == 0 || len > TRACE_MAX_IDENT)
		return;
	ix->v = xgrow(ix->v, &ix->cap, ix->n + 1, sizeof(*ix->v));
	e = &ix->v[ix->n++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->len = (uint8_t)len;
	memcpy(e->ident, ident, len);
	e->path = a->path;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries in name order, so that the index, and so every report, does not
 * depend on the order the file system lists them in. */
static void scan_dir(struct locate_index *ix, const char *dir, int depth)
{
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;

	if (depth > LOCATE_MAX_DEPTH || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		names = xgrow(names, &cap, n + 1, sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		struct stat st;

		if (ix->files >= LOCATE_MAX_FILES || lstat(path, &st) < 0) {
			free(path);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			scan_dir(ix, path, depth + 1);
			free(path);
		} else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
			struct index_add a = { ix, ix->npaths };
			size_t before = ix->n;

			ix->files++;
			objfile_identities(path, index_one, &a);
			if (ix->n > before) {
				ix->paths = xgrow(ix->paths, &ix->cappaths, ix->npaths + 1,
						  sizeof(*ix->paths));
				ix->paths[ix->npaths++] = path;
			} else {
				free(path);
			}
		} else {
			free(path);
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;
	int c;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if ((c = memcmp(x->ident, y->ident, x->len)))
		return c;
	return x->path < y->path ? -1 : x->path > y->path;
}

struct locate_index *locate_index_new(const char *const *dirs, size_t ndirs)
{
	struct locate_index *ix = xcalloc(1, sizeof(*ix));
	size_t i;

	for (i = 0; i < ndirs; i++)
		scan_dir(ix, dirs[i], 0);
	if (ix->n)
		qsort(ix->v, ix->n, sizeof(*ix->v), cmp_entry);
	return ix;
}

void locate_index_free(struct locate_index *ix)
{
	size_t i;

	if (!ix)
		return;
	for (i = 0; i < ix->npaths; i++)
		free(ix->paths[i]);
	free(ix->paths);
	free(ix->v);
	free(ix);
}

/* --- the search ------------------------------------------------------- */

struct search {
	const struct trace_image *img;
	struct locate_result *r;
	const char *cache_file;   /* the debuginfod cache's candidate */
	struct objfile fallback;  /* the first match without DWARF */
	size_t fallback_try;      /* its index in r->tries */
	int have_fallback;
	int done;                 /* a match with DWARF was accepted */
};

static void add_try(struct locate_result *r, const char *path, char *why)
{
	r->tries = xrealloc(r->tries, (r->ntries + 1) * sizeof(*r->tries));
	r->tries[r->ntries].path = xstrdup(path);
	r->tries[r->ntries].why = why;
	r->ntries++;
}

static int seen(const struct locate_result *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->ntries; i++)
		if (!strcmp(r->tries[i].path, path))
			return 1;
	return 0;
}

static void accept(struct search *s, const char *path, struct objfile *of)
{
	s->r->found = 1;
	s->r->path = xstrdup(path);
	s->r->obj = *of;
	s->r->origin = s->cache_file && !strcmp(path, s->cache_file) ? LOCATE_ORIGIN_CACHE
								     : LOCATE_ORIGIN_DISK;
}

/* Tries one candidate (taking ownership of path). */
static void try(struct search *s, char *path)
{
	struct objfile of;
	char *why = NULL;
	int err;

	if (s->done || seen(s->r, path)) {
		free(path);
		return;
	}
	if ((err = objfile_open(&of, path, s->img->ident_kind, s->img->ident, s->img->ident_len, &why)) < 0) {
		/* The file the recording names, but not the one it saw. */
		if (err == OBJFILE_E_MISMATCH && s->img->path && !strcmp(path, s->img->path)) {
			char *was = why;
			why = xasprintf("the file at %s has changed since the recording: %s", path, was);
			free(was);
		}
		add_try(s->r, path, why);
	} else if (of.has_dwarf) {
		add_try(s->r, path, NULL);
		accept(s, path, &of);
		s->done = 1;
		if (s->have_fallback) {
			s->r->tries[s->fallback_try].why =
				xstrdup("it matches but has no debug information; a file "
					"with DWARF was found");
			objfile_release(&s->fallback);
			s->have_fallback = 0;
		}
	} else if (!s->have_fallback) {
		add_try(s->r, path, NULL);
		s->fallback = of;
		s->fallback_try = s->r->ntries - 1;
		s->have_fallback = 1;
	} else {
		add_try(s->r, path, xstrdup("it matches but has no debug information"));
		objfile_release(&of);
	}
	free(path);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? xasprintf("%.*s", (int)(slash - path), path) : xstrdup(".");
}

/* The debug link names a file, never a path: anything with a slash or a
 * dot-dot is refused rather than followed. */
static void try_debuglink(struct search *s, const char *root)
{
	const char *name = s->have_fallback ? objfile_debuglink(&s->fallback) : NULL;
	char *dir, *link;

	if (!name || !name[0] || strchr(name, '/') || !strcmp(name, "..") || !strcmp(name, "."))
		return;
	/* A copy: accepting a candidate releases the file the name is in. */
	link = xstrdup(name);
	dir = dir_of(s->img->path);
	try(s, xasprintf("%s/%s", dir, link));
	try(s, xasprintf("%s/.debug/%s", dir, link));
	if (root[0])
		try(s, xasprintf("%s%s/%s", root, dir, link));
	free(dir);
	free(link);
}

/* The client's cache: only a file with something in it is a candidate,
 * as an empty one is the client's record of a query that found nothing. */
static void try_debuginfod(struct search *s, const char *hex, const char *cache, char **file)
{
	char *own = cache ? NULL : fetch_cache_dir(), *path;
	struct stat st;

	if (!cache)
		cache = own;
	if (cache && cache[0]) {
		path = xasprintf("%s/%s/debuginfo", cache, hex);
		*file = xstrdup(path);
		s->cache_file = *file;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0 && !seen(s->r, path)) {
			add_try(s->r, path, xstrdup("empty: the debuginfod client's record that no "
						    "server had it"));
			free(path);
		} else {
			try(s, path);
		}
	}
	free(own);
}

/* Drops the try of path, if there is one. */
static void forget_try(struct search *s, const char *path)
{
	struct locate_result *r = s->r;

	for (size_t k = 0; k < r->ntries; k++) {
		if (strcmp(r->tries[k].path, path))
			continue;
		if (s->have_fallback && s->fallback_try == k)
			return;  /* cannot be: the fallback's file was there */
		free(r->tries[k].path);
		free(r->tries[k].why);
		memmove(&r->tries[k], &r->tries[k + 1], (r->ntries - k - 1) * sizeof(*r->tries));
		r->ntries--;
		if (s->have_fallback && s->fallback_try > k)
			s->fallback_try--;
		return;
	}
}

/* Asks the servers, and takes their file only if it is the image's. */
static void try_fetch(struct search *s, struct fetch *f)
{
	const struct fetch_result *res;
	struct objfile of;
	char *why = NULL;

	if (fetch_debuginfo(f, s->img->ident, s->img->ident_len, &res) < 0) {
		s->r->fetched = res;
		return;
	}
	s->r->fetched = res;
	if (res->status == FETCH_OK) {
		forget_try(s, res->path);  /* tried above, before it was there */
	} else if (seen(s->r, res->path)) {
		/* The cache's file, tried above, given back by the client: the
		 * match without DWARF kept as a fallback, or refused. */
		if (!s->have_fallback || strcmp(s->r->tries[s->fallback_try].path, res->path))
			fetch_refuse(f, res, xstrdup("it is the cache's file, refused above"));
		return;
	}
	if (objfile_open(&of, res->path, s->img->ident_kind, s->img->ident, s->img->ident_len, &why) < 0) {
		fetch_refuse(f, res, why);
		return;
	}
	if (!of.has_dwarf) {
		/* The right build, of no use here; other tools may want it. */
		objfile_release(&of);
		add_try(s->r, res->path, xstrdup("fetched, it matches but has no debug information"));
		return;
	}
	add_try(s->r, res->path, NULL);
	if (s->have_fallback) {
		s->r->tries[s->fallback_try].why =
			xstrdup("it matches but has no debug information; a file with DWARF was fetched");
		objfile_release(&s->fallback);
		s->have_fallback = 0;
	}
	accept(s, res->path, &of);
	s->r->origin = res->status == FETCH_OK ? LOCATE_ORIGIN_SERVER : LOCATE_ORIGIN_CACHE;
	s->done = 1;
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

char *locate_image_copy(const struct trace_image *img, const char *dir)
{
	char *own = dir ? NULL : trace_ident_cache_dir(), *path = NULL;
	struct stat st;

	if (!dir)
		dir = own;
	if (dir && dir[0] && img->path &&
	    (path = trace_ident_cache_path(dir, img->ident_kind, img->ident, img->ident_len,
					   base_of(img->path))) &&
	    stat(path, &st) != 0) {
		free(path);
		path = NULL;
	}
	free(own);
	return path;
}

/* The copy the recorder kept in the image cache, if it did: most images
 * were never kept, and only a copy there is a candidate. */
static void try_cache(struct search *s, const char *dir)
{
	char *path = locate_image_copy(s->img, dir);

	if (path)
		try(s, path);
}

static void try_index(struct search *s, const struct locate_index *ix)
{
	const char *base = s->img->path ? base_of(s->img->path) : "";
	struct index_entry key;
	size_t lo = 0, hi, i;

	if (!ix || !ix->n)
		return;
	memset(&key, 0, sizeof(key));
	key.kind = s->img->ident_kind;
	key.len = s->img->ident_len;
	memcpy(key.ident, s->img->ident, key.len);
	/* The first entry not below the identity with path 0. */
	hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_entry(&ix->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < ix->n && !s->done; i++) {
		const struct index_entry *e = &ix->v[i];
		if (e->kind != key.kind || e->len != key.len || memcmp(e->ident, key.ident, key.len))
			break;
		try(s, xstrdup(ix->paths[e->path]));
	}
	/* Nothing there is that build: the files that bear the image's name
	 * (a dSYM's DWARF file bears its binary's) are tried anyway, so that
	 * the search says which build each of them is. */
	for (i = 0; i < ix->npaths && !s->done && !s->have_fallback && base[0]; i++)
		if (!strcmp(base_of(ix->paths[i]), base))
			try(s, xstrdup(ix->paths[i]));
}

int locate_image(const struct trace_image *img, const struct locate_opts *o,
		 struct locate_result *r)
{
	char hex[2 * TRACE_MAX_IDENT + 1];
	const char *root = o && o->debug_root ? o->debug_root : "/usr/lib/debug";
	struct search s = { .img = img, .r = r };
	int elf = img->ident_kind == TRACE_IDENT_GNU_BUILD_ID;
	char *cache_file = NULL;

	if (!trace_ident_valid(img->ident_kind, img->ident_len))
		return LOCATE_E_NOIDENT;
	objfile_hex(hex, img->ident, img->ident_len);

	/* Pseudo-images such as "[vdso]" have no file behind them. */
	if (img->path && img->path[0] == '/')
		try(&s, xstrdup(img->path));
	try_cache(&s, o ? o->image_cache : NULL);
	if (elf) {
		if (root[0])
			try(&s, xasprintf("%s/.build-id/%.2s/%s.debug", root, hex, hex + 2));
		if (img->path && img->path[0] == '/')
			try_debuglink(&s, root);
		try_debuginfod(&s, hex, o ? o->debuginfod_cache : NULL, &cache_file);
	}
	try_index(&s, o ? o->index : NULL);
	if (elf && !s.done && o && o->fetch && (s.have_fallback || !o->packed))
		try_fetch(&s, o->fetch);
	if (!s.done && s.have_fallback)
		accept(&s, r->tries[s.fallback_try].path, &s.fallback);
	free(cache_file);
	return r->found ? 0 : LOCATE_E_NOTFOUND;
}
