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
 *
 * The .eh_frame (and .eh_frame_hdr) of an image is loaded the first time
 * the unwinder asks about one of its addresses: the file is opened again,
 * its build-id must be the one recorded, and the two sections are copied
 * out and indexed (record/cfi.c). A loaded table is kept for the session,
 * keyed by build-id, so an image mapped twice or re-loaded is not read
 * twice; an image whose sections cannot be had is remembered as such.
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
#define EH_FRAME_MAX (64u << 20)   /* larger sections are not copied */
#define ROW_CACHE 1024              /* a power of two */

/* Rows already looked up, by pc: a profile asks about the same return
 * addresses over and over. Emptied whenever the map changes. */
struct row_slot {
	uint64_t pc;
	int err;                   /* 0, or what cfi_table_row() said */
	int valid;
	struct cfi_row row;
};

/* One file's call-frame information, kept for the session. */
struct image_cfi {
	uint8_t ident[TRACE_MAX_IDENT];
	uint8_t ident_len;
	uint8_t *eh_frame, *hdr;   /* owned copies */
	struct cfi_table *table;   /* NULL if the file had none we could use */
};

struct known {
	char *path;
	uint64_t start, end, inode;
	uint32_t id;
	int seen;
	uint64_t bias, offset;
	uint8_t arch;
	uint8_t ident[TRACE_MAX_IDENT];
	uint8_t ident_len;         /* a GNU build-id's, or 0 */
	int cfi;                   /* index into the shared cfi + 1; 0: not looked at yet */
};

/* What the image tables of one recording share: the image ids, unique
 * in the trace, and the call-frame information of the files, which every
 * process that maps one uses. */
struct images_shared {
	uint32_t next_id;
	struct image_cfi *cfi;
	size_t ncfi, cfi_cap;
	unsigned refs;
};

struct images {
	struct target *t;
	uint32_t process;       /* the trace's id of t's process */
	struct images_shared *sh;
	struct buf text;
	uint64_t hash;
	int have_hash;
	struct known *k;
	size_t nk, cap;
	size_t recorded;
	size_t last;               /* the known image of the last lookup */
	unsigned va_bits;          /* arm64: the user address bits, from the map's top */
	struct row_slot *rows;     /* ROW_CACHE slots */
};

struct images *images_new(struct target *t, uint32_t process, const struct images *share)
{
	struct images *im = xcalloc(1, sizeof(*im));
	im->t = t;
	im->process = process;
	if (share) {
		im->sh = share->sh;
	} else {
		im->sh = xcalloc(1, sizeof(*im->sh));
		im->sh->next_id = 1;
	}
	im->sh->refs++;
	buf_init(&im->text);
	return im;
}

void images_free(struct images *im)
{
	struct images_shared *sh;

	if (!im)
		return;
	for (size_t i = 0; i < im->nk; i++)
		free(im->k[i].path);
	free(im->k);
	sh = im->sh;
	if (!--sh->refs) {
		for (size_t i = 0; i < sh->ncfi; i++) {
			cfi_table_free(sh->cfi[i].table);
			free(sh->cfi[i].eh_frame);
			free(sh->cfi[i].hdr);
		}
		free(sh->cfi);
		free(sh);
	}
	free(im->rows);
	buf_release(&im->text);
	free(im);
}

size_t images_count(const struct images *im) { return im->recorded; }

struct target *images_target(const struct images *im) { return im->t; }

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

/* A file mapping (or the vDSO) identified and recorded as a new image
 * loaded at now. */
static int add_image(struct images *im, struct trace_writer *w, const struct maps_group *g, uint64_t now)
{
	struct trace_image img;
	int r;

	memset(&img, 0, sizeof(img));
	img.id = im->sh->next_id++;
	img.path = g->path;
	img.start = g->start;
	img.size = g->end - g->start;
	img.file_offset = g->offset;
	img.time_loaded = now;
	img.bias = g->start - g->offset;
	if (strcmp(g->path, "[vdso]") == 0)
		identify_vdso(im, &img, g);
	else
		identify_file(im, &img, g);
	r = trace_writer_image(w, im->process, &img);
	im->k = xgrow(im->k, &im->cap, im->nk + 1, sizeof(*im->k));
	im->k[im->nk] = (struct known){ .path = xstrdup(g->path), .start = g->start, .end = g->end,
					 .inode = g->inode, .id = img.id, .seen = 1, .bias = img.bias,
					 .offset = img.file_offset, .arch = img.arch };
	if (img.ident_kind == TRACE_IDENT_GNU_BUILD_ID) {
		memcpy(im->k[im->nk].ident, img.ident, img.ident_len);
		im->k[im->nk].ident_len = img.ident_len;
	}
	im->nk++;
	im->recorded++;
	return r;
}

int images_update(struct images *im, struct trace_writer *w, uint64_t now)
{
	struct maps_group *g = NULL;
	size_t n = 0;
	uint64_t h, top;
	int r = 0;

	/* An exited process shows an empty map: that is no unload. */
	if (target_read_maps(im->t, &im->text) < 0 || im->text.len == 0)
		return 0;
	h = XXH3_64bits(im->text.data, im->text.len);
	if (im->have_hash && h == im->hash)
		return 0;
	if (maps_group((const char *)im->text.data, im->text.len, &g, &n, &top) < 0)
		return 0;  /* a torn read: try again next time */
	/* Pointer authentication signs above the user address space, whose
	 * size the kernel chose (48 bits, or 39 as on many Android devices):
	 * the stack sits at its top. No code address needs a bit above. */
	im->va_bits = unwind_va_bits(top);
	im->hash = h;
	im->have_hash = 1;
	if (im->rows)
		memset(im->rows, 0, ROW_CACHE * sizeof(*im->rows));

	for (size_t i = 0; i < im->nk; i++)
		im->k[i].seen = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct known *k;

		if (!g[i].executable)
			continue;
		if ((k = lookup(im, &g[i])))
			k->seen = 1;
		else
			r = add_image(im, w, &g[i], now);
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

int images_mapped(struct images *im, struct trace_writer *w, uint64_t now, uint64_t start, uint64_t len,
		  uint64_t offset, uint64_t inode, const char *path)
{
	struct maps_group g = { .path = (char *)path, .inode = inode, .start = start, .end = start + len,
				.offset = offset, .executable = 1 };
	int r = images_covers(im, start) ? 0 : images_update(im, w, now);

	if (r < 0 || images_covers(im, start) || !len)
		return r;
	/* What the mapping replaced is gone; its CFI rows with it. */
	for (size_t i = 0; i < im->nk && r == 0;) {
		if (im->k[i].start >= g.end || im->k[i].end <= g.start) {
			i++;
			continue;
		}
		r = trace_writer_image_unload(w, im->k[i].id, now);
		free(im->k[i].path);
		im->k[i] = im->k[--im->nk];
	}
	if (im->rows)
		memset(im->rows, 0, ROW_CACHE * sizeof(*im->rows));
	return r < 0 ? r : add_image(im, w, &g, now);
}

int images_inherit(struct images *im, const struct images *from, struct trace_writer *w, uint64_t now)
{
	int r = 0;

	for (size_t i = 0; i < from->nk && r == 0; i++) {
		const struct known *f = &from->k[i];
		struct trace_image img = { .id = im->sh->next_id++, .path = f->path, .start = f->start,
					   .size = f->end - f->start, .file_offset = f->offset, .bias = f->bias,
					   .arch = f->arch, .time_loaded = now };

		if (f->ident_len) {
			img.ident_kind = TRACE_IDENT_GNU_BUILD_ID;
			img.ident_len = f->ident_len;
			memcpy(img.ident, f->ident, f->ident_len);
		}
		r = trace_writer_image(w, im->process, &img);
		im->k = xgrow(im->k, &im->cap, im->nk + 1, sizeof(*im->k));
		im->k[im->nk] = *f;
		im->k[im->nk].path = xstrdup(f->path);
		im->k[im->nk].id = img.id;
		im->nk++;
		im->recorded++;
	}
	im->va_bits = from->va_bits;
	return r;
}

/* Copies .eh_frame and .eh_frame_hdr out of an ELF image whose build-id
 * must be k's, and indexes them into c. */
static void cfi_from_elf(struct image_cfi *c, const struct known *k, const void *p, size_t n)
{
	struct elf_file e;
	struct elf_section eh, hdr;
	struct cfi_sections s = { .arch = CFI_ARCH_X86_64 };
	const uint8_t *id;
	size_t idlen;

	if (elf_parse(&e, p, n) < 0)
		return;
	if (e.machine == 183)   /* EM_AARCH64 */
		s.arch = CFI_ARCH_ARM64;
	else if (e.machine != 62)
		return;
	/* The file on disk must be the one that is mapped. */
	if (elf_build_id(&e, &id, &idlen) < 0 || idlen != k->ident_len || memcmp(id, k->ident, idlen) != 0)
		return;
	if (elf_section_by_name(&e, ".eh_frame", &eh) < 0 || !eh.data || eh.size == 0 || eh.size > EH_FRAME_MAX)
		return;
	c->eh_frame = xmalloc((size_t)eh.size);
	memcpy(c->eh_frame, eh.data, (size_t)eh.size);
	s.eh_frame = c->eh_frame;
	s.eh_frame_len = (size_t)eh.size;
	s.eh_frame_addr = eh.addr;
	if (elf_section_by_name(&e, ".eh_frame_hdr", &hdr) == 0 && hdr.data && hdr.size && hdr.size <= EH_FRAME_MAX) {
		c->hdr = xmalloc((size_t)hdr.size);
		memcpy(c->hdr, hdr.data, (size_t)hdr.size);
		s.hdr = c->hdr;
		s.hdr_len = (size_t)hdr.size;
		s.hdr_addr = hdr.addr;
	}
	if (cfi_table_new(&s, &c->table) < 0) {
		free(c->eh_frame);
		free(c->hdr);
		c->eh_frame = c->hdr = NULL;
		c->table = NULL;
	}
}

/* The CFI of k, loaded on first use. */
static const struct image_cfi *cfi_of(struct images *im, struct known *k)
{
	struct images_shared *sh = im->sh;
	struct image_cfi c;

	if (k->cfi)
		return &sh->cfi[k->cfi - 1];
	for (size_t i = 0; k->ident_len && i < sh->ncfi; i++)
		if (sh->cfi[i].ident_len == k->ident_len && memcmp(sh->cfi[i].ident, k->ident, k->ident_len) == 0) {
			k->cfi = (int)i + 1;
			return &sh->cfi[i];
		}
	memset(&c, 0, sizeof(c));
	memcpy(c.ident, k->ident, k->ident_len);
	c.ident_len = k->ident_len;
	if (k->ident_len && strcmp(k->path, "[vdso]") == 0) {
		size_t n = (size_t)(k->end - k->start);
		if (n && n <= VDSO_MAX) {
			uint8_t *p = xmalloc(n);
			if (target_read(im->t, k->start, p, n) == 0)
				cfi_from_elf(&c, k, p, n);
			free(p);
		}
	} else if (k->ident_len && k->path[0] == '/') {
		int fd = target_open_mapped(im->t, k->start, k->end, k->path);
		struct stat st;
		if (fd >= 0) {
			if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
				void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
				if (p != MAP_FAILED) {
					cfi_from_elf(&c, k, p, (size_t)st.st_size);
					munmap(p, (size_t)st.st_size);
				}
			}
			close(fd);
		}
	}
	sh->cfi = xgrow(sh->cfi, &sh->cfi_cap, sh->ncfi + 1, sizeof(*sh->cfi));
	sh->cfi[sh->ncfi++] = c;
	k->cfi = (int)sh->ncfi;
	return &sh->cfi[sh->ncfi - 1];
}

static int lookup_row(struct images *im, uint64_t pc, struct cfi_row *row)
{
	struct known *k = NULL;
	const struct image_cfi *c;

	if (im->last < im->nk && pc >= im->k[im->last].start && pc < im->k[im->last].end) {
		k = &im->k[im->last];
	} else {
		for (size_t i = 0; i < im->nk; i++)
			if (pc >= im->k[i].start && pc < im->k[i].end) {
				k = &im->k[i];
				im->last = i;
				break;
			}
	}
	if (!k)
		return CFI_E_NOTFOUND;
	c = cfi_of(im, k);
	if (!c->table)
		return CFI_E_NOTFOUND;
	return cfi_table_row(c->table, pc - k->bias, row);
}

int images_cfi_row(struct images *im, uint64_t pc, struct cfi_row *row)
{
	struct row_slot *slot;

	if (!im->rows)
		im->rows = xcalloc(ROW_CACHE, sizeof(*im->rows));
	slot = &im->rows[(pc ^ (pc >> 12)) & (ROW_CACHE - 1)];
	if (!slot->valid || slot->pc != pc) {
		slot->pc = pc;
		slot->err = lookup_row(im, pc, &slot->row);
		slot->valid = 1;
	}
	if (slot->err == 0)
		*row = slot->row;
	return slot->err;
}

size_t images_cfi_loaded(const struct images *im)
{
	size_t n = 0;
	for (size_t i = 0; i < im->sh->ncfi; i++)
		n += im->sh->cfi[i].table != NULL;
	return n;
}

static int cfi_lookup(void *ctx, uint64_t pc, struct cfi_row *row)
{
	return images_cfi_row(ctx, pc, row);
}

void images_unwind_hooks(struct images *im, struct unwind_config *cfg)
{
	cfg->is_return = images_is_return;
	cfg->is_return_ctx = im;
	cfg->cfi = cfi_lookup;
	cfg->cfi_ctx = im;
	cfg->va_bits = im->va_bits;
}
