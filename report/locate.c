/*
 * locate.c: finding the file that serves an image, and refusing any other.
 *
 * Each candidate is opened, mapped and parsed as ELF; its GNU build-id must
 * equal the one the recorder read from the running image, byte for byte.
 * The first match wins, and every refusal is recorded with its reason so
 * that 'info' can show the whole search. Nothing here prints.
 */
#include "locate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/diag.h"

/* A file larger than this is refused rather than mapped. */
#define LOCATE_MAX_FILE ((uint64_t)4 << 30)

const char *locate_strerror(int err)
{
	switch (err) {
	case LOCATE_E_NOTFOUND:
		return "no file with a matching build-id";
	case LOCATE_E_NOIDENT:
		return "the trace records no build-id or UUID for this image";
	case LOCATE_E_UNSUPPORTED:
		return "this image kind cannot be symbolized yet";
	default:
		return err < 0 ? strerror(-err) : "success";
	}
}

void locate_result_init(struct locate_result *r)
{
	memset(r, 0, sizeof(*r));
}

void locate_result_release(struct locate_result *r)
{
	size_t i;

	if (r->data)
		munmap((void *)r->data, r->size);
	for (i = 0; i < r->ntries; i++) {
		free(r->tries[i].path);
		free(r->tries[i].why);
	}
	free(r->tries);
	free(r->path);
	locate_result_init(r);
}

void locate_hex(char *out, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

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

/* Maps path read-only. Returns 0, or a heap string saying why not. */
static char *map_file(const char *path, const uint8_t **data, size_t *size)
{
	struct stat st;
	void *p;
	int fd;
	char *why = NULL;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xstrdup(strerror(errno));
	if (fstat(fd, &st) < 0) {
		why = xstrdup(strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		why = xstrdup("not a regular file");
		goto out;
	}
	if (st.st_size == 0 || (uint64_t)st.st_size > LOCATE_MAX_FILE) {
		why = xstrdup(st.st_size ? "file too large" : "empty file");
		goto out;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		why = xasprintf("cannot map: %s", strerror(errno));
		goto out;
	}
	*data = p;
	*size = st.st_size;
out:
	close(fd);
	return why;
}

/* Tries one candidate; returns 1 if it was accepted into r. */
static int try_elf(const struct trace_image *img, const char *path, struct locate_result *r)
{
	const uint8_t *data = NULL, *id;
	size_t size = 0, idlen;
	struct elf_file elf;
	char *why;
	int err;

	if (seen(r, path))
		return 0;
	why = map_file(path, &data, &size);
	if (why)
		goto refuse;
	err = elf_parse(&elf, data, size);
	if (err < 0) {
		why = xasprintf("not usable as ELF: %s", elf_strerror(err));
		goto refuse;
	}
	err = elf_build_id(&elf, &id, &idlen);
	if (err < 0) {
		why = xstrdup(err == ELF_E_NOTFOUND ? "the file has no build-id"
						   : elf_strerror(err));
		goto refuse;
	}
	if (idlen != img->ident_len || memcmp(id, img->ident, idlen)) {
		char hex[2 * TRACE_MAX_IDENT + 1];
		locate_hex(hex, id, idlen < TRACE_MAX_IDENT ? idlen : TRACE_MAX_IDENT);
		why = xasprintf("build-id mismatch (the file has %s%s)", hex,
				idlen > TRACE_MAX_IDENT ? "..." : "");
		goto refuse;
	}
	add_try(r, path, NULL);
	r->found = 1;
	r->path = xstrdup(path);
	r->data = data;
	r->size = size;
	r->elf = elf;
	return 1;
refuse:
	if (data)
		munmap((void *)data, size);
	add_try(r, path, why);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int locate_image(const struct trace_image *img, const struct locate_opts *o,
		 struct locate_result *r)
{
	char hex[2 * TRACE_MAX_IDENT + 1];
	const char *root = "/usr/lib/debug", *base;
	char *p;
	size_t i;
	int ok;

	if (img->ident_kind == TRACE_IDENT_MACHO_UUID)
		return LOCATE_E_UNSUPPORTED;
	if (img->ident_kind != TRACE_IDENT_GNU_BUILD_ID || img->ident_len == 0 ||
	    img->ident_len > TRACE_MAX_IDENT)
		return LOCATE_E_NOIDENT;
	locate_hex(hex, img->ident, img->ident_len);
	if (o && o->debug_root)
		root = o->debug_root;
	base = img->path ? base_name(img->path) : "";

	/* Pseudo-images such as "[vdso]" have no file behind them. */
	if (img->path && img->path[0] == '/' && try_elf(img, img->path, r))
		return 0;
	if (root[0] && img->ident_len > 1) {
		p = xasprintf("%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
		ok = try_elf(img, p, r);
		free(p);
		if (ok)
			return 0;
	}
	for (i = 0; o && i < o->nsymbol_dirs; i++) {
		const char *d = o->symbol_dirs[i];
		if (img->ident_len > 1) {
			p = xasprintf("%s/%.2s/%s.debug", d, hex, hex + 2);
			ok = try_elf(img, p, r);
			free(p);
			if (ok)
				return 0;
		}
		if (!base[0] || !strcmp(base, ".") || !strcmp(base, ".."))
			continue;
		p = xasprintf("%s/%s", d, base);
		ok = try_elf(img, p, r);
		free(p);
		if (ok)
			return 0;
		p = xasprintf("%s/%s.debug", d, base);
		ok = try_elf(img, p, r);
		free(p);
		if (ok)
			return 0;
	}
	return LOCATE_E_NOTFOUND;
}
