/*
 * images_linux.c: images of a Linux process, from /proc/PID/maps and the
 * mapped ELF files.
 *
 * The map text is hashed on every update and only parsed when the hash
 * moved, so a check every 100 ms costs one read of a small proc file. Each
 * newly seen executable file mapping is opened as it is mapped
 * (/proc/PID/map_files first, so a deleted or replaced file still gives
 * the right build-id), mmapped read-only and parsed with common/elf.c for
 * its GNU build-id, machine and load bias. The vDSO has no file: its ELF
 * image is read from target memory instead.
 */
#include "images.h"
#include "maps.h"
#include "common/buf.h"
#include "common/diag.h"
#include "common/elf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define VDSO_MAX (1u << 20)

struct known {
	char *path;
	uint64_t start, end, inode;
	uint32_t id;
	int seen;
};

struct images {
	struct target *t;
	struct buf text;
	uint64_t hash;
	int have_hash;
	struct known *k;
	size_t nk, cap;
	uint32_t next_id;
	size_t recorded;
};

struct images *images_new(struct target *t)
{
	struct images *im = xcalloc(1, sizeof(*im));
	im->t = t;
	im->next_id = 1;
	buf_init(&im->text);
	return im;
}

void images_free(struct images *im)
{
	if (!im)
		return;
	for (size_t i = 0; i < im->nk; i++)
		free(im->k[i].path);
	free(im->k);
	buf_release(&im->text);
	free(im);
}

size_t images_count(const struct images *im) { return im->recorded; }

int images_covers(const struct images *im, uint64_t addr)
{
	for (size_t i = 0; i < im->nk; i++)
		if (addr >= im->k[i].start && addr < im->k[i].end)
			return 1;
	return 0;
}

static uint8_t arch_of(uint16_t machine)
{
	switch (machine) {
	case 62: return TRACE_ARCH_X86_64;   /* EM_X86_64 */
	case 183: return TRACE_ARCH_ARM64;   /* EM_AARCH64 */
	default: return TRACE_ARCH_UNKNOWN;
	}
}

/* Fills identity, arch and bias from an ELF image in memory. */
static void describe(struct trace_image *img, const void *p, size_t n, const struct maps_group *g)
{
	struct elf_file e;
	const uint8_t *id;
	size_t idlen;

	if (elf_parse(&e, p, n) < 0)
		return;
	img->arch = arch_of(e.machine);
	if (elf_build_id(&e, &id, &idlen) == 0 && idlen <= TRACE_MAX_IDENT) {
		img->ident_kind = TRACE_IDENT_GNU_BUILD_ID;
		img->ident_len = (uint8_t)idlen;
		memcpy(img->ident, id, idlen);
	}
	if (maps_elf_bias(&e, g->start, g->offset, &img->bias) < 0)
		img->bias = g->start - g->offset;
}

static void identify_file(struct images *im, struct trace_image *img, const struct maps_group *g)
{
	struct stat st;
	void *p;
	int fd = target_open_mapped(im->t, g->start, g->end, g->path);

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			describe(img, p, (size_t)st.st_size, g);
			munmap(p, (size_t)st.st_size);
		}
	}
	close(fd);
}

static void identify_vdso(struct images *im, struct trace_image *img, const struct maps_group *g)
{
	size_t n = (size_t)(g->end - g->start);
	uint8_t *p;

	if (n == 0 || n > VDSO_MAX)
		return;
	p = xmalloc(n);
	if (target_read(im->t, g->start, p, n) == 0)
		describe(img, p, n, g);
	free(p);
}

static struct known *lookup(struct images *im, const struct maps_group *g)
{
	for (size_t i = 0; i < im->nk; i++)
		if (im->k[i].start == g->start && im->k[i].inode == g->inode &&
		    strcmp(im->k[i].path, g->path) == 0)
			return &im->k[i];
	return NULL;
}

int images_update(struct images *im, struct trace_writer *w, uint64_t now)
{
	struct maps_group *g = NULL;
	size_t n = 0;
	uint64_t h;
	int r = 0;

	/* An exited process shows an empty map: that is no unload. */
	if (target_read_maps(im->t, &im->text) < 0 || im->text.len == 0)
		return 0;
	h = XXH3_64bits(im->text.data, im->text.len);
	if (im->have_hash && h == im->hash)
		return 0;
	if (maps_group((const char *)im->text.data, im->text.len, &g, &n) < 0)
		return 0;  /* a torn read: try again next time */
	im->hash = h;
	im->have_hash = 1;

	for (size_t i = 0; i < im->nk; i++)
		im->k[i].seen = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct known *k;
		struct trace_image img;
		int vdso = strcmp(g[i].path, "[vdso]") == 0;

		if (!g[i].executable)
			continue;
		k = lookup(im, &g[i]);
		if (k) {
			k->seen = 1;
			continue;
		}
		memset(&img, 0, sizeof(img));
		img.id = im->next_id++;
		img.path = g[i].path;
		img.start = g[i].start;
		img.size = g[i].end - g[i].start;
		img.file_offset = g[i].offset;
		img.time_loaded = now;
		img.bias = g[i].start - g[i].offset;
		if (vdso)
			identify_vdso(im, &img, &g[i]);
		else
			identify_file(im, &img, &g[i]);
		r = trace_writer_image(w, &img);
		im->k = xgrow(im->k, &im->cap, im->nk + 1, sizeof(*im->k));
		im->k[im->nk++] = (struct known){ xstrdup(g[i].path), g[i].start, g[i].end,
						 g[i].inode, img.id, 1 };
		im->recorded++;
	}
	for (size_t i = 0; i < im->nk && r == 0;) {
		if (im->k[i].seen) {
			i++;
			continue;
		}
		r = trace_writer_image_unload(w, im->k[i].id, now);
		free(im->k[i].path);
		im->k[i] = im->k[--im->nk];
	}
	maps_groups_free(g, n);
	return r;
}
