/*
 * images_linux.c: images of a Linux process, from /proc/PID/maps and the
 * mapped ELF files.
 *
 * The map text is hashed on every update and only parsed when the hash
 * moved, so a check every 100 ms costs one read of a small proc file. Each
 * newly seen executable file mapping is opened as the process maps it
 * (target_open_mapped(): the very file, or one proven to be it), and
 * given the identity format/trace_ident.h defines: its GNU build-id, Go's
 * build ID, or a hash of its loadable segments. The target controls the
 * file, so it is never mapped here, where a truncation would raise SIGBUS:
 * what is read is read with pread(2) into an anonymous buffer as large
 * as the file, which costs memory only where it is filled (headers,
 * notes, the CFI sections), and a file that changes while read is not
 * believed. The vDSO has no file: its ELF image is read from target
 * memory instead.
 *
 * The files are kept in a table that the processes of a recording share,
 * keyed by device, inode, size and times, so a file mapped by many
 * processes is identified once and its .eh_frame (loaded the first time
 * the unwinder asks about one of its addresses, and indexed by
 * record/cfi.c) read once. A file is kept open while few are, so that it
 * can still be read when its process has gone, and copied into the image
 * cache at the end (images_keep()) if the report would not find it at
 * its path.
 */
#include "images.h"
#include "images_base.h"
#include "maps.h"
#include "common/buf.h"
#include "common/diag.h"
#include "common/elf.h"
#include "common/hmap.h"
#include "format/trace_ident.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#define VDSO_MAX (1u << 20)
#define EH_FRAME_MAX (64u << 20)   /* larger sections are not copied */
#define NOTES_MAX (1u << 20)       /* note bytes read per segment or section */
#define NOTES_TOTAL (4u << 20)     /* and in all; a file's notes past it are not read */
#define ROW_CACHE 1024              /* a power of two */
#define KEEP_OPEN 256               /* files kept open, unless elsewhere */
#define KEEP_OPEN_ELSEWHERE 1024    /* files kept open that are elsewhere */

/* Rows already looked up, by pc: a profile asks about the same return
 * addresses over and over. Emptied whenever the map changes. */
struct row_slot {
	uint64_t pc;
	int err;                   /* 0, or what cfi_table_row() said */
	int valid;
	struct cfi_row row;
};

/* A file some process of the recording maps (or the vDSO, whose key is
 * all 0 and which is known by its identity). */
struct image_file {
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
	int fd;                    /* kept open, or -1 */
	uint8_t kind, len;         /* its identity */
	uint8_t ident[TRACE_MAX_IDENT];
	const char *why;           /* why it has none: a static string */
	char *path;                /* where it was first seen, for the cache */
	int elsewhere;             /* its path does not lead to it */
	int hit;                   /* samples fell in it */
	int cfi_done;
	uint8_t *eh_frame, *hdr;   /* owned copies */
	struct cfi_table *table;   /* NULL if the file had none we could use */
};

/* A recorded image, in the table of images_base.h. */
struct known {
	struct image_span span;    /* first */
	char *path;                /* as the map shows it */
	char *live;                /* as recorded: without " (deleted)" */
	char *why;                 /* the image's, or NULL */
	uint8_t source, flags;
	uint64_t inode;
	uint64_t vma_end;          /* the end of its first mapping */
	unsigned dev_major, dev_minor;
	uint64_t bias, offset;
	uint8_t arch;
	size_t file;               /* index into the shared files + 1; 0: none */
};

/* What the image tables of one recording share: the image ids, unique
 * in the trace, and the files. */
struct images_shared {
	uint32_t next_id;
	struct image_file *files;
	size_t nfiles, files_cap;
	size_t open, open_elsewhere;
	uint64_t hashed, hashed_bytes; /* content hashes made, and the bytes read */
	int want_hits;             /* images_hit() has something to note */
	int keep_all;
	unsigned refs;
};

/* An executable mapping: file-backed, anonymous (JIT code) or special. */
struct range {
	uint64_t start, end;
};

/* A return address outside every executable mapping sends is_code() to
 * read the map again, at most this often per process: code mapped since
 * the last read is normally announced first (an MMAP2 record), so this is
 * for what was not (a lost record; the ptrace sampler, which has none). */
#define CODE_REREAD_NS (100 * 1000000ull)

/* A function of the vDSO, at its address in the process. */
struct vdso_fn {
	uint64_t start, size;
	char *name;
	uint8_t bind;              /* for the choice among aliases */
};

/* A mapping of a jitdump file (jit-PID.dump), which is no image. */
struct dump_map {
	struct target_mapping m;   /* m.path owned */
};

struct images {
	struct images_base b;      /* first: of struct known entries */
	struct images_shared *sh;
	struct buf text;
	uint64_t hash;
	int have_hash;
	size_t last;               /* the known image of the last lookup */
	unsigned va_bits;          /* arm64: the user address bits, from the map's top */
	struct row_slot *rows;     /* ROW_CACHE slots */
	struct range *x;           /* the executable mappings, by address */
	size_t nx, xcap;
	uint64_t x_read;           /* when is_code() last read the map, ns */
	struct trace_writer *w;    /* the last given, for note_signal_frame() */
	uint64_t sigreturn;        /* arm64: the vDSO's __kernel_rt_sigreturn, or 0 */
	struct hmap signal;        /* (image id, start) of the trampolines told */
	struct vdso_fn *vdso;      /* the vDSO's functions, by address */
	size_t nvdso, vdso_cap;
	struct dump_map *dumps;    /* the jitdump mappings of the last map read */
	size_t ndumps, dumps_cap;
};

static void release_known(void *entry)
{
	struct known *k = entry;

	free(k->path);
	free(k->live);
	free(k->why);
}

/* The i'th known image, borrowed until the table changes. */
static struct known *known(const struct images *im, size_t i)
{
	return images_base_at(&im->b, i);
}

struct images *images_new(struct target *t, uint32_t process, const struct images *share)
{
	struct images *im = xcalloc(1, sizeof(*im));
	images_base_init(&im->b, t, process, sizeof(struct known), release_known);
	if (share) {
		im->sh = share->sh;
	} else {
		im->sh = xcalloc(1, sizeof(*im->sh));
		im->sh->next_id = 1;
	}
	im->sh->refs++;
	buf_init(&im->text);
	hmap_init(&im->signal);
	return im;
}

void images_free(struct images *im)
{
	struct images_shared *sh;

	if (!im)
		return;
	images_base_release(&im->b);
	sh = im->sh;
	if (!--sh->refs) {
		for (size_t i = 0; i < sh->nfiles; i++) {
			struct image_file *f = &sh->files[i];
			cfi_table_free(f->table);
			free(f->eh_frame);
			free(f->hdr);
			free(f->path);
			if (f->fd >= 0)
				close(f->fd);
		}
		free(sh->files);
		free(sh);
	}
	free(im->rows);
	free(im->x);
	for (size_t i = 0; i < im->nvdso; i++)
		free(im->vdso[i].name);
	free(im->vdso);
	for (size_t i = 0; i < im->ndumps; i++)
		free((char *)im->dumps[i].m.path);
	free(im->dumps);
	hmap_release(&im->signal);
	buf_release(&im->text);
	free(im);
}

static uint8_t arch_of(uint16_t machine)
{
	switch (machine) {
	case 62: return TRACE_ARCH_X86_64;   /* EM_X86_64 */
	case 183: return TRACE_ARCH_ARM64;   /* EM_AARCH64 */
	default: return TRACE_ARCH_UNKNOWN;
	}
}

/* --- reading a file the target controls ------------------------------ */

/* A file read piecewise into an anonymous buffer of its size. */
struct fbuf {
	int fd;
	uint64_t size;
	uint8_t *p;
};

static int fbuf_open(struct fbuf *b, int fd, uint64_t size)
{
	b->fd = fd;
	b->size = size;
	b->p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		    -1, 0);
	return b->p == MAP_FAILED ? -errno : 0;
}

static void fbuf_close(struct fbuf *b)
{
	if (b->p && b->p != MAP_FAILED)
		munmap(b->p, (size_t)b->size);
	b->p = NULL;
}

/* Reads len bytes at off of fd, all of them: a short read is a file that
 * shrank while read. */
static int read_at(void *ctx, uint64_t off, void *buf, size_t len)
{
	int fd = *(int *)ctx;

	while (len) {
		ssize_t got = pread(fd, buf, len, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		buf = (uint8_t *)buf + got;
		off += (uint64_t)got;
		len -= (size_t)got;
	}
	return 0;
}

/* Fills [off, off + len) of the buffer, cut to the file and to max. */
static int fbuf_fill(struct fbuf *b, uint64_t off, uint64_t len, uint64_t max)
{
	if (off >= b->size)
		return 0;
	if (len > b->size - off)
		len = b->size - off;
	if (len > max)
		len = max;
	return read_at(&b->fd, off, b->p + off, (size_t)len);
}

/* Fills one note segment or section, from what the budget has left. */
static int fill_note(struct fbuf *b, uint64_t off, uint64_t len, uint64_t *budget)
{
	uint64_t n = len < NOTES_MAX ? len : NOTES_MAX;

	if (n > *budget)
		n = *budget;
	*budget -= n;
	return n ? fbuf_fill(b, off, n, n) : 0;
}

/* Reads what common/elf.c looks at to find identities, segments and
 * sections: the headers, the section names and the notes, within
 * NOTES_TOTAL (a file may claim 65535 notes of a MiB each). */
static int fbuf_headers(struct fbuf *b, struct elf_file *e)
{
	struct elf_section sec;
	uint64_t budget = NOTES_TOTAL;
	int r;

	if ((r = fbuf_fill(b, 0, 64, 64)) < 0)
		return r;
	if ((r = elf_parse(e, b->p, (size_t)b->size)) < 0)
		return r;
	if ((r = fbuf_fill(b, e->phoff, (uint64_t)e->phnum * 56, 1u << 20)) < 0 ||
	    (r = fbuf_fill(b, e->shoff, (uint64_t)e->shnum * 64, 4u << 20)) < 0)
		return r;
	if (e->shstrndx && elf_section(e, e->shstrndx, &sec) == 0 &&
	    (r = fbuf_fill(b, sec.offset, sec.size, 1u << 20)) < 0)
		return r;
	for (unsigned i = 0; i < e->phnum; i++) {
		struct elf_segment seg;
		if (elf_segment(e, i, &seg) == 0 && seg.type == ELF_PT_NOTE &&
		    (r = fill_note(b, seg.offset, seg.filesz, &budget)) < 0)
			return r;
	}
	for (unsigned i = 1; i < e->shnum; i++)
		if (elf_section(e, i, &sec) == 0 && sec.type == ELF_SHT_NOTE &&
		    (r = fill_note(b, sec.offset, sec.size, &budget)) < 0)
			return r;
	return 0;
}

static int same_stat(const struct image_file *f, const struct stat *st)
{
	return f->dev == (uint64_t)st->st_dev && f->ino == (uint64_t)st->st_ino &&
	       f->size == (uint64_t)st->st_size && f->mtime_s == st->st_mtim.tv_sec &&
	       f->mtime_ns == st->st_mtim.tv_nsec && f->ctime_s == st->st_ctim.tv_sec &&
	       f->ctime_ns == st->st_ctim.tv_nsec;
}

static struct image_file *new_file(struct images_shared *sh, const struct stat *st, const char *path)
{
	struct image_file *f;

	sh->files = xgrow(sh->files, &sh->files_cap, sh->nfiles + 1, sizeof(*sh->files));
	f = &sh->files[sh->nfiles++];
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = xstrdup(path);
	if (st) {
		f->dev = (uint64_t)st->st_dev;
		f->ino = (uint64_t)st->st_ino;
		f->size = (uint64_t)st->st_size;
		f->mtime_s = st->st_mtim.tv_sec;
		f->mtime_ns = st->st_mtim.tv_nsec;
		f->ctime_s = st->st_ctim.tv_sec;
		f->ctime_ns = st->st_ctim.tv_nsec;
	}
	return f;
}

struct counted {
	int fd;
	uint64_t bytes;
};

static int read_counted(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct counted *c = ctx;

	c->bytes += len;
	return read_at(&c->fd, off, buf, len);
}

/* Identifies the file open at fd (st its fstat) into f: 0, or why not. */
static const char *identify(struct images_shared *sh, struct image_file *f, int fd, const struct stat *st)
{
	struct counted c = { fd, 0 };
	struct fbuf b;
	struct elf_file e;
	struct stat after;
	int kind, r;
	size_t len;

	if (fbuf_open(&b, fd, (uint64_t)st->st_size) < 0)
		return "cannot reserve memory to read it";
	r = fbuf_headers(&b, &e);
	if (r == 0)
		r = trace_ident_of_elf(&e, b.size, read_counted, &c, &kind, f->ident, &len);
	fbuf_close(&b);
	sh->hashed += c.bytes > 0;
	sh->hashed_bytes += c.bytes;
	if (r == ELF_E_NOTELF)
		return "not an ELF file";
	if (r < 0 && r != -EIO)
		return "its ELF headers or segments are damaged";
	if (r < 0 || fstat(fd, &after) < 0 || !same_stat(f, &after))
		return "it changed while it was read";
	f->kind = (uint8_t)kind;
	f->len = (uint8_t)len;
	return NULL;
}

/* Arch and bias of img from the ELF headers at fd, mapped as g says. */
static void place(struct trace_image *img, int fd, uint64_t size, const struct target_mapping *m,
		  uint64_t offset)
{
	struct fbuf b;
	struct elf_file e;

	if (fbuf_open(&b, fd, size) < 0)
		return;
	if (fbuf_fill(&b, 0, 64, 64) == 0 && elf_parse(&e, b.p, (size_t)b.size) == 0 &&
	    fbuf_fill(&b, e.phoff, (uint64_t)e.phnum * 56, 1u << 20) == 0) {
		img->arch = arch_of(e.machine);
		if (maps_elf_bias(&e, m->start, offset, &img->bias) < 0)
			img->bias = m->start - offset;
	}
	fbuf_close(&b);
}

static int path_leads_to(const char *path, const struct stat *st)
{
	struct stat here;

	return stat(path, &here) == 0 && here.st_dev == st->st_dev && here.st_ino == st->st_ino;
}

static void keep_open(struct images_shared *sh, struct image_file *f, int fd)
{
	if (f->fd >= 0)
		return;
	if (f->elsewhere ? sh->open_elsewhere < KEEP_OPEN_ELSEWHERE : sh->open < KEEP_OPEN) {
		f->fd = dup(fd);
		if (f->fd >= 0)
			*(f->elsewhere ? &sh->open_elsewhere : &sh->open) += 1;
	}
}

/* Fills img's identity, arch, bias and how its file was read, and sets
 * *file to its entry in the shared table + 1 (0: none). */
static void identify_file(struct images *im, struct trace_image *img, const struct target_mapping *m,
			  uint64_t offset, const char *live, size_t *file, char *why, size_t nwhy)
{
	struct images_shared *sh = im->sh;
	struct image_file *f = NULL;
	struct stat st;
	int source, fd = target_open_mapped(im->b.t, m, &source, &st, why, nwhy);

	if (fd < 0) {
		img->source = TRACE_SOURCE_UNREAD;
		img->why = why;
		return;
	}
	img->source = (uint8_t)source;
	if (!path_leads_to(live, &st))
		img->flags |= TRACE_IMAGE_ELSEWHERE;
	for (size_t i = 0; i < sh->nfiles && !f; i++)
		if (sh->files[i].dev | sh->files[i].ino && same_stat(&sh->files[i], &st))
			f = &sh->files[i];
	if (!f) {
		f = new_file(sh, &st, live);
		if ((f->why = identify(sh, f, fd, &st)))
			f->kind = TRACE_IDENT_NONE;
	}
	if (img->flags & TRACE_IMAGE_ELSEWHERE && !f->elsewhere) {
		f->elsewhere = 1;
		sh->want_hits = 1;
	}
	keep_open(sh, f, fd);
	place(img, fd, (uint64_t)st.st_size, m, offset);
	close(fd);
	if (f->kind == TRACE_IDENT_NONE) {
		img->why = (char *)f->why;
	} else {
		img->ident_kind = f->kind;
		img->ident_len = f->len;
		memcpy(img->ident, f->ident, f->len);
	}
	*file = (size_t)(f - sh->files) + 1;
}

/* arm64's vDSO has the kernel's signal return trampoline; its address
 * goes to ctx. */
static int find_sigreturn(void *ctx, const struct elf_symbol *sym)
{
	if (strcmp(sym->name, "__kernel_rt_sigreturn") != 0)
		return 0;
	*(uint64_t *)ctx = sym->value;
	return 1;
}

/* perf's choice between two functions at one address
 * (tools/perf/util/symbol.c, choose_best_symbol()): the one with a size,
 * then a non-weak one, then a global one, then the one with fewer
 * underscores in front, then the longer name. Whether b is better than a. */
static int better_fn(const struct vdso_fn *a, const struct vdso_fn *b)
{
	size_t ua = strspn(a->name, "_"), ub = strspn(b->name, "_");
	size_t la = strlen(a->name), lb = strlen(b->name);

	if (!a->size != !b->size)
		return b->size != 0;
	if ((a->bind == 2) != (b->bind == 2))   /* STB_WEAK */
		return b->bind != 2;
	if ((a->bind == 1) != (b->bind == 1))   /* STB_GLOBAL */
		return b->bind == 1;
	if (ua != ub)
		return ub < ua;
	return lb > la;
}

struct vdso_scan {
	struct images *im;
	uint64_t bias, end;        /* the image's bias and end in the process */
};

/* A function symbol of the vDSO, at its address in the process. */
static int add_vdso_fn(void *ctx, const struct elf_symbol *sym)
{
	struct vdso_scan *v = ctx;
	struct images *im = v->im;
	struct vdso_fn fn = { .start = sym->value + v->bias, .size = sym->size, .bind = sym->bind };

	if (sym->type != ELF_STT_FUNC || sym->shndx == ELF_SHN_UNDEF || !sym->name[0] ||
	    fn.start >= v->end || fn.start < v->bias || im->nvdso >= 256)
		return 0;
	for (size_t i = 0; i < im->nvdso; i++) {
		if (im->vdso[i].start != fn.start)
			continue;
		if (better_fn(&im->vdso[i], &(struct vdso_fn){ .size = fn.size, .bind = fn.bind,
							       .name = (char *)sym->name })) {
			free(im->vdso[i].name);
			im->vdso[i] = fn;
			im->vdso[i].name = xstrdup(sym->name);
		}
		return 0;
	}
	fn.name = xstrdup(sym->name);
	im->vdso = xgrow(im->vdso, &im->vdso_cap, im->nvdso + 1, sizeof(*im->vdso));
	im->vdso[im->nvdso++] = fn;
	return 0;
}

static int cmp_vdso_fn(const void *a, const void *b)
{
	const struct vdso_fn *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The vDSO's functions (its .symtab and .dynsym), as perf names them:
 * one per address, a function without a size running to the next one
 * or the image's end, none past the end. */
static void vdso_functions(struct images *im, const struct elf_file *e, uint64_t bias, uint64_t end)
{
	struct vdso_scan v = { im, bias, end };

	for (size_t i = 0; i < im->nvdso; i++)
		free(im->vdso[i].name);
	im->nvdso = 0;
	elf_symbols(e, add_vdso_fn, &v);
	if (im->nvdso > 1)
		qsort(im->vdso, im->nvdso, sizeof(*im->vdso), cmp_vdso_fn);
	for (size_t i = 0; i < im->nvdso; i++) {
		uint64_t limit = i + 1 < im->nvdso ? im->vdso[i + 1].start : end;

		if (!im->vdso[i].size || im->vdso[i].size > end - im->vdso[i].start)
			im->vdso[i].size = limit - im->vdso[i].start;
	}
}

/* The vDSO's functions as code ranges of the process, loaded at now:
 * the report names the vDSO's addresses from them, as it has no file. */
static int write_vdso(struct images *im, struct trace_writer *w, uint64_t now)
{
	int r = 0;

	for (size_t i = 0; i < im->nvdso && r == 0; i++) {
		struct trace_code c = { .time = now, .start = im->vdso[i].start, .size = im->vdso[i].size,
					.source = TRACE_CODE_VDSO, .name = im->vdso[i].name };

		if (c.size)
			r = trace_writer_code(w, im->b.process, &c);
	}
	return r == TRACE_E_USAGE || r == TRACE_E_TOOBIG ? 0 : r;
}

static void identify_vdso(struct images *im, struct trace_image *img, const struct maps_group *g,
			  size_t *file)
{
	struct images_shared *sh = im->sh;
	size_t n = (size_t)(g->end - g->start);
	struct elf_file e;
	const uint8_t *id;
	size_t idlen;
	uint8_t *p;

	img->source = TRACE_SOURCE_MEMORY;
	if (n == 0 || n > VDSO_MAX)
		return;
	p = xmalloc(n);
	if (target_read(im->b.t, g->start, p, n) == 0 && elf_parse(&e, p, n) == 0) {
		img->arch = arch_of(e.machine);
		if (elf_build_id(&e, &id, &idlen) == 0 && idlen >= 2 && idlen <= TRACE_MAX_IDENT) {
			img->ident_kind = TRACE_IDENT_GNU_BUILD_ID;
			img->ident_len = (uint8_t)idlen;
			memcpy(img->ident, id, idlen);
		}
		if (maps_elf_bias(&e, g->start, g->offset, &img->bias) < 0)
			img->bias = g->start - g->offset;
		if (elf_symbols(&e, find_sigreturn, &im->sigreturn) == 1)
			im->sigreturn += img->bias;
		else
			im->sigreturn = 0;
		vdso_functions(im, &e, img->bias, g->end);
	}
	free(p);
	if (!img->ident_len)
		return;
	for (size_t i = 0; i < sh->nfiles; i++)
		if (!(sh->files[i].dev | sh->files[i].ino) &&
		    trace_ident_same(sh->files[i].kind, sh->files[i].len, sh->files[i].ident, img->ident_kind,
				     img->ident_len, img->ident)) {
			*file = i + 1;
			return;
		}
	struct image_file *f = new_file(sh, NULL, g->path);
	f->kind = img->ident_kind;
	f->len = img->ident_len;
	memcpy(f->ident, img->ident, img->ident_len);
	*file = sh->nfiles;
}

static struct known *lookup(struct images *im, const struct maps_group *g)
{
	for (size_t i = 0; i < im->b.nk; i++) {
		struct known *k = known(im, i);
		if (k->span.start == g->start && k->inode == g->inode && strcmp(k->path, g->path) == 0)
			return k;
	}
	return NULL;
}

/* A file mapping (or the vDSO) identified and recorded as a new image
 * loaded at now. */
static int add_image(struct images *im, struct trace_writer *w, const struct maps_group *g, uint64_t now)
{
	struct target_mapping m = { .start = g->start, .end = g->vma_end, .inode = g->inode,
				    .dev_major = g->dev_major, .dev_minor = g->dev_minor, .path = g->path };
	size_t n = strlen(g->path), del = strlen(" (deleted)"), file = 0;
	char why[512] = "", *live;
	struct trace_image img;
	struct known *k;
	int r;

	if (n > del && !strcmp(g->path + n - del, " (deleted)"))
		n -= del;
	live = xstrndup(g->path, n);
	memset(&img, 0, sizeof(img));
	img.id = im->sh->next_id++;
	img.path = live;
	img.start = g->start;
	img.size = g->end - g->start;
	img.file_offset = g->offset;
	img.time_loaded = now;
	img.bias = g->start - g->offset;
	if (n < strlen(g->path))
		img.flags |= TRACE_IMAGE_DELETED;
	if (strcmp(g->path, "[vdso]") == 0)
		identify_vdso(im, &img, g, &file);
	else
		identify_file(im, &img, &m, g->offset, live, &file, why, sizeof(why));
	r = trace_writer_image(w, im->b.process, &img);
	if (r == 0 && strcmp(g->path, "[vdso]") == 0)
		r = write_vdso(im, w, now);
	k = images_base_add(&im->b);
	*k = (struct known){ .span = { .start = g->start, .end = g->end, .id = img.id, .seen = 1 },
			     .path = xstrdup(g->path), .live = live, .why = img.why ? xstrdup(img.why) : NULL,
			     .source = img.source, .flags = img.flags, .vma_end = g->vma_end,
			     .dev_major = g->dev_major, .dev_minor = g->dev_minor, .inode = g->inode,
			     .bias = img.bias, .offset = img.file_offset, .arch = img.arch, .file = file };
	return r;
}
/* Adds [start, end) to the executable ranges, which stay sorted. */
static void add_code(struct images *im, uint64_t start, uint64_t end)
{
	size_t i = im->nx;

	while (i > 0 && im->x[i - 1].start > start)
		i--;
	if (i > 0 && im->x[i - 1].start == start) {
		im->x[i - 1].end = end;
		return;
	}
	im->x = xgrow(im->x, &im->xcap, im->nx + 1, sizeof(*im->x));
	memmove(&im->x[i + 1], &im->x[i], (im->nx - i) * sizeof(*im->x));
	im->x[i] = (struct range){ start, end };
	im->nx++;
}

static int code_entry(void *ctx, const struct maps_entry *e)
{
	if (e->perms[2] == 'x')
		add_code(ctx, e->start, e->end);
	return 0;
}

/* The executable ranges of the map text last read. */
static void read_code(struct images *im)
{
	im->nx = 0;
	maps_parse((const char *)im->text.data, im->text.len, code_entry, im);
}

static int in_code(const struct images *im, uint64_t addr)
{
	size_t lo = 0, hi = im->nx;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < im->x[mid].start)
			hi = mid;
		else if (addr >= im->x[mid].end)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

int images_is_code(void *ctx, uint64_t addr)
{
	struct images *im = ctx;
	struct timespec ts;
	uint64_t now;

	if (in_code(im, addr))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (im->x_read && now - im->x_read < CODE_REREAD_NS)
		return 0;
	im->x_read = now;
	if (target_read_maps(im->b.t, &im->text) < 0 || im->text.len == 0)
		return 0;
	read_code(im);
	return in_code(im, addr);
}

/* Whether path (as the map shows it) is a jitdump file, jit-PID.dump,
 * which a runtime maps executable for perf to see: no image. */
static int is_jitdump(const char *path)
{
	const char *b = strrchr(path, '/'), *d;
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > strlen(" (deleted)") && !strcmp(b + n - strlen(" (deleted)"), " (deleted)"))
		n -= strlen(" (deleted)");
	if (n < strlen("jit-0.dump") || strncmp(b, "jit-", 4) || strncmp(b + n - 5, ".dump", 5))
		return 0;
	for (d = b + 4; d < b + n - 5; d++)
		if (*d < '0' || *d > '9')
			return 0;
	return 1;
}

static void note_jitdump(struct images *im, const struct maps_group *g)
{
	struct dump_map *d;

	for (size_t i = 0; i < im->ndumps; i++)
		if (im->dumps[i].m.inode == g->inode && !strcmp(im->dumps[i].m.path, g->path))
			return;
	im->dumps = xgrow(im->dumps, &im->dumps_cap, im->ndumps + 1, sizeof(*im->dumps));
	d = &im->dumps[im->ndumps++];
	d->m = (struct target_mapping){ .start = g->start, .end = g->vma_end, .inode = g->inode,
					.dev_major = g->dev_major, .dev_minor = g->dev_minor,
					.path = xstrdup(g->path) };
}

size_t images_jitdumps(const struct images *im, const struct target_mapping **maps, size_t max)
{
	size_t n = im->ndumps < max ? im->ndumps : max;

	for (size_t i = 0; i < n; i++)
		maps[i] = &im->dumps[i].m;
	return n;
}

int images_update(struct images *im, struct trace_writer *w, uint64_t now)
{
	struct maps_group *g = NULL;
	size_t n = 0;
	uint64_t h, top;
	int r = 0;

	im->w = w;
	/* An exited process shows an empty map: that is no unload. */
	if (target_read_maps(im->b.t, &im->text) < 0 || im->text.len == 0)
		return 0;
	h = XXH3_64bits(im->text.data, im->text.len);
	if (im->have_hash && h == im->hash)
		return 0;
	if (maps_group((const char *)im->text.data, im->text.len, &g, &n, &top) < 0)
		return 0;  /* a torn read: try again next time */
	read_code(im);
	/* Pointer authentication signs above the user address space, whose
	 * size the kernel chose (48 bits, or 39 as on many Android devices):
	 * the stack sits at its top. No code address needs a bit above. */
	im->va_bits = unwind_va_bits(top);
	im->hash = h;
	im->have_hash = 1;
	if (im->rows)
		memset(im->rows, 0, ROW_CACHE * sizeof(*im->rows));

	images_base_unsee(&im->b);
	for (size_t i = 0; i < im->ndumps; i++)
		free((char *)im->dumps[i].m.path);
	im->ndumps = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct known *k;

		if (!g[i].executable)
			continue;
		if (is_jitdump(g[i].path)) {
			note_jitdump(im, &g[i]);
			continue;
		}
		if ((k = lookup(im, &g[i])))
			k->span.seen = 1;
		else
			r = add_image(im, w, &g[i], now);
	}
	if (r == 0)
		r = images_base_unload_unseen(&im->b, w, now);
	maps_groups_free(g, n);
	return r;
}

int images_mapped(struct images *im, struct trace_writer *w, uint64_t now, const struct target_mapping *m,
		  uint64_t offset)
{
	struct maps_group g = { .path = (char *)m->path, .inode = m->inode, .dev_major = m->dev_major,
				.dev_minor = m->dev_minor, .start = m->start, .end = m->end,
				.vma_end = m->end, .offset = offset, .executable = 1 };
	int r = images_covers(im, m->start) ? 0 : images_update(im, w, now);

	im->w = w;
	if (m->end > m->start)
		add_code(im, m->start, m->end);

	if (r < 0 || images_covers(im, m->start) || m->end <= m->start || is_jitdump(m->path))
		return r;
	/* What the mapping replaced is gone; its CFI rows with it. */
	for (size_t i = 0; i < im->b.nk && r == 0;) {
		if (known(im, i)->span.start >= g.end || known(im, i)->span.end <= g.start)
			i++;
		else
			r = images_base_unload(&im->b, i, w, now);
	}
	if (im->rows)
		memset(im->rows, 0, ROW_CACHE * sizeof(*im->rows));
	return r < 0 ? r : add_image(im, w, &g, now);
}

int images_inherit(struct images *im, const struct images *from, struct trace_writer *w, uint64_t now)
{
	int r = 0;

	im->w = w;
	im->sigreturn = from->sigreturn;
	for (size_t i = 0; i < from->b.nk && r == 0; i++) {
		struct known *k;
		const struct known *f = known(from, i);
		const struct image_file *file = f->file ? &im->sh->files[f->file - 1] : NULL;
		struct trace_image img = { .id = im->sh->next_id++, .path = f->live, .start = f->span.start,
					   .size = f->span.end - f->span.start, .file_offset = f->offset, .bias = f->bias,
					   .arch = f->arch, .time_loaded = now, .source = f->source,
					   .flags = f->flags, .why = f->why };

		if (file && file->kind != TRACE_IDENT_NONE) {
			img.ident_kind = file->kind;
			img.ident_len = file->len;
			memcpy(img.ident, file->ident, file->len);
		}
		r = trace_writer_image(w, im->b.process, &img);
		k = images_base_add(&im->b);
		*k = *f;
		k->path = xstrdup(f->path);
		k->live = xstrdup(f->live);
		k->why = f->why ? xstrdup(f->why) : NULL;
		k->span.id = img.id;
	}
	/* The vDSO's functions, at the same addresses. */
	for (size_t i = 0; i < im->nvdso; i++)
		free(im->vdso[i].name);
	im->nvdso = 0;
	for (size_t i = 0; i < from->nvdso; i++) {
		im->vdso = xgrow(im->vdso, &im->vdso_cap, im->nvdso + 1, sizeof(*im->vdso));
		im->vdso[im->nvdso] = from->vdso[i];
		im->vdso[im->nvdso++].name = xstrdup(from->vdso[i].name);
	}
	if (r == 0)
		r = write_vdso(im, w, now);
	im->va_bits = from->va_bits;
	return r;
}

/* Copies .eh_frame and .eh_frame_hdr out of the ELF image in b (whose
 * headers are read) into f, reading them first if fill, and indexes them. */
static void cfi_from_elf(struct image_file *f, struct fbuf *b, const struct elf_file *e, int fill)
{
	struct elf_section eh, hdr;
	struct cfi_sections s = { .arch = CFI_ARCH_X86_64 };

	if (e->machine == 183)   /* EM_AARCH64 */
		s.arch = CFI_ARCH_ARM64;
	else if (e->machine != 62)
		return;
	if (elf_section_by_name(e, ".eh_frame", &eh) < 0 || !eh.data || eh.size == 0 || eh.size > EH_FRAME_MAX)
		return;
	if (fill && fbuf_fill(b, eh.offset, eh.size, EH_FRAME_MAX) < 0)
		return;
	f->eh_frame = xmalloc((size_t)eh.size);
	memcpy(f->eh_frame, eh.data, (size_t)eh.size);
	s.eh_frame = f->eh_frame;
	s.eh_frame_len = (size_t)eh.size;
	s.eh_frame_addr = eh.addr;
	if (elf_section_by_name(e, ".eh_frame_hdr", &hdr) == 0 && hdr.data && hdr.size && hdr.size <= EH_FRAME_MAX &&
	    (!fill || fbuf_fill(b, hdr.offset, hdr.size, EH_FRAME_MAX) == 0)) {
		f->hdr = xmalloc((size_t)hdr.size);
		memcpy(f->hdr, hdr.data, (size_t)hdr.size);
		s.hdr = f->hdr;
		s.hdr_len = (size_t)hdr.size;
		s.hdr_addr = hdr.addr;
	}
	if (cfi_table_new(&s, &f->table) < 0) {
		free(f->eh_frame);
		free(f->hdr);
		f->eh_frame = f->hdr = NULL;
		f->table = NULL;
	}
}

/* An fd on k's file, the one identified: kept open, or opened again and
 * seen unchanged. Returns the fd, and whether the caller closes it. */
static int reopen(struct images *im, const struct known *k, struct image_file *f, int *close_it)
{
	struct target_mapping m = { .start = k->span.start, .end = k->vma_end, .inode = k->inode,
				    .dev_major = k->dev_major, .dev_minor = k->dev_minor, .path = k->path };
	struct stat st;
	char why[512];
	int source, fd;

	*close_it = 0;
	if (f->fd >= 0)
		return f->fd;
	fd = target_open_mapped(im->b.t, &m, &source, &st, why, sizeof(why));
	if (fd >= 0 && !same_stat(f, &st)) {
		close(fd);
		return -1;
	}
	*close_it = fd >= 0;
	return fd;
}

/* The CFI of k's file, loaded on first use. */
static const struct image_file *cfi_of(struct images *im, struct known *k)
{
	struct image_file *f;
	struct elf_file e;
	struct fbuf b;
	int fd, close_it;

	if (!k->file)
		return NULL;
	f = &im->sh->files[k->file - 1];
	if (f->cfi_done)
		return f;
	f->cfi_done = 1;
	if (!(f->dev | f->ino)) {
		/* the vDSO, from memory; the same one if its build-id is */
		size_t n = (size_t)(k->span.end - k->span.start);
		uint8_t *p = n && n <= VDSO_MAX ? xmalloc(n) : NULL;
		const uint8_t *id;
		size_t idlen;

		b = (struct fbuf){ .fd = -1, .size = n, .p = p };
		if (p && target_read(im->b.t, k->span.start, p, n) == 0 && elf_parse(&e, p, n) == 0 &&
		    elf_build_id(&e, &id, &idlen) == 0 &&
		    trace_ident_same(TRACE_IDENT_GNU_BUILD_ID, idlen, id, f->kind, f->len, f->ident))
			cfi_from_elf(f, &b, &e, 0);
		free(p);
		return f;
	}
	if ((fd = reopen(im, k, f, &close_it)) < 0)
		return f;
	if (fbuf_open(&b, fd, f->size) == 0) {
		if (fbuf_headers(&b, &e) == 0)
			cfi_from_elf(f, &b, &e, 1);
		fbuf_close(&b);
	}
	if (close_it)
		close(fd);
	return f;
}

/* The known image that holds pc, or NULL; the last one found is tried
 * first, as consecutive lookups mostly fall in the same image. */
static struct known *known_at(struct images *im, uint64_t pc)
{
	struct known *k;

	if (im->last < im->b.nk && pc >= (k = known(im, im->last))->span.start && pc < k->span.end)
		return k;
	for (size_t i = 0; i < im->b.nk; i++)
		if (pc >= (k = known(im, i))->span.start && pc < k->span.end) {
			im->last = i;
			return k;
		}
	return NULL;
}

static int lookup_row(struct images *im, uint64_t pc, struct cfi_row *row)
{
	struct known *k = known_at(im, pc);
	const struct image_file *c;
	int e;

	if (!k)
		return CFI_E_NOTFOUND;
	c = cfi_of(im, k);
	if (!c || !c->table)
		return CFI_E_NOTFOUND;
	e = cfi_table_row(c->table, pc - k->bias, row);
	if (e == 0) {
		row->func += k->bias;
		row->func_end += k->bias;
	}
	return e;
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
	for (size_t i = 0; i < im->sh->nfiles; i++)
		n += im->sh->files[i].table != NULL;
	return n;
}

/* The first time a walk crosses a signal trampoline of an image (a row
 * of an FDE whose CIE says 'S'), the trace is told, so that a report can
 * name it and take its caller's pc as exact. */
static void note_signal_frame(struct images *im, uint64_t pc, uint64_t start, uint64_t end)
{
	const struct known *k = known_at(im, pc);
	int added;

	if (!k || !im->w)
		return;
	hmap_put(&im->signal, k->span.id, start, 1, &added);
	if (added)
		trace_writer_signal_frame(im->w, k->span.id, start, end);
}

static int cfi_lookup(void *ctx, uint64_t pc, struct cfi_row *row)
{
	int e = images_cfi_row(ctx, pc, row);

	if (e == 0 && row->signal_frame)
		note_signal_frame(ctx, pc, row->func, row->func_end);
	return e;
}

/* The kernel's trampoline: the nop before it is its too, as gdb has it,
 * for a return address into it is its first instruction. */
static int is_sigreturn(void *ctx, uint64_t pc)
{
	struct images *im = ctx;

	if (!im->sigreturn || pc != im->sigreturn)
		return 0;
	note_signal_frame(im, pc, pc - 4, pc + 8);
	return 1;
}

void images_unwind_hooks(struct images *im, struct unwind_config *cfg)
{
	cfg->is_return = images_is_return;
	cfg->is_return_ctx = im;
	cfg->cfi = cfi_lookup;
	cfg->cfi_ctx = im;
	cfg->is_code = images_is_code;
	cfg->is_code_ctx = im;
	cfg->is_sigreturn = is_sigreturn;
	cfg->is_sigreturn_ctx = im;
	cfg->va_bits = im->va_bits;
}

void images_hit(struct images *im, const uint64_t *addrs, size_t n)
{
	struct images_shared *sh = im->sh;

	if (!sh->want_hits)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct known *k = known_at(im, addrs[i]);

		if (k && k->file)
			sh->files[k->file - 1].hit = 1;
	}
}

void images_keep_all(struct images *im)
{
	im->sh->keep_all = 1;
	im->sh->want_hits = 1;
}

/* Makes the directories of path, up to its last part. */
static int make_dirs(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = 0;
		int r = mkdir(path, 0755) < 0 && errno != EEXIST ? -errno : 0;
		*p = '/';
		if (r < 0)
			return r;
	}
	return 0;
}

/* Copies the file open at fd, of size bytes, to path, through a
 * temporary file renamed into place, so that a reader never sees half. */
static int copy_to(int fd, uint64_t size, const char *path)
{
	char *tmp = xasprintf("%s.tmp%d", path, (int)getpid());
	uint8_t *buf = xmalloc(1u << 20);
	int out = -1, r;

	if ((r = make_dirs(tmp)) < 0)
		goto out;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (out < 0) {
		r = -errno;
		goto out;
	}
	for (uint64_t off = 0; off < size && r == 0;) {
		size_t k = size - off < (1u << 20) ? (size_t)(size - off) : (1u << 20);
		if ((r = read_at(&fd, off, buf, k)) == 0 && write(out, buf, k) != (ssize_t)k)
			r = errno ? -errno : -EIO;
		off += k;
	}
	if (close(out) < 0 && r == 0)
		r = -errno;
	out = -1;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
out:
	if (out >= 0)
		close(out);
	if (r < 0)
		unlink(tmp);
	free(tmp);
	free(buf);
	return r;
}

struct cached {
	char *path;
	uint64_t size;
	int64_t mtime;
	int fresh;   /* kept by this recording */
};

static int cmp_cached(const void *a, const void *b)
{
	const struct cached *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The files of the cache, which holds DIR/KIND/HEX/BASE and nothing else. */
static void list_cache(const char *dir, int depth, struct cached **v, size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *p;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && depth < 2) {
			list_cache(p, depth + 1, v, n, cap);
		} else if (S_ISREG(st.st_mode) && depth == 2) {
			*v = xgrow(*v, cap, *n + 1, sizeof(**v));
			(*v)[(*n)++] = (struct cached){ .path = p, .size = (uint64_t)st.st_size,
							.mtime = st.st_mtim.tv_sec };
			continue;
		}
		free(p);
	}
	closedir(d);
}

/* Removes the oldest files until the cache holds at most max bytes; never
 * the ones this recording kept. */
static void trim_cache(const char *dir, char **fresh, size_t nfresh, uint64_t max)
{
	struct cached *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;

	list_cache(dir, 0, &v, &n, &cap);
	for (size_t i = 0; i < n; i++) {
		total += v[i].size;
		for (size_t j = 0; j < nfresh; j++)
			v[i].fresh |= !strcmp(v[i].path, fresh[j]);
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_cached);
	for (size_t i = 0; i < n && total > max; i++) {
		if (v[i].fresh || unlink(v[i].path) < 0)
			continue;
		total -= v[i].size;
		char *slash = strrchr(v[i].path, '/');
		*slash = 0;
		rmdir(v[i].path);  /* its identity's directory, if now empty */
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

size_t images_keep(struct images *im, const char *dir, uint64_t max,
		   void (*note)(void *ctx, const char *path, int err), void *ctx)
{
	struct images_shared *sh = im->sh;
	char **fresh = NULL;
	size_t nfresh = 0, cap = 0;

	for (size_t i = 0; i < sh->nfiles; i++) {
		struct image_file *f = &sh->files[i];
		const char *base = strrchr(f->path, '/');
		struct stat st;
		char *to;
		int r = 0, fd = f->fd;

		if (!f->hit || !(f->elsewhere || sh->keep_all) || !(f->dev | f->ino) ||
		    !(to = trace_ident_cache_path(dir, f->kind, f->ident, f->len, base ? base + 1 : f->path)))
			continue;
		if (stat(to, &st) == 0 && (uint64_t)st.st_size == f->size) {
			utimensat(AT_FDCWD, to, NULL, 0);   /* used again: the newest */
		} else {
			if (fd < 0 && (fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) >= 0 &&
			    (fstat(fd, &st) < 0 || !same_stat(f, &st))) {
				close(fd);
				fd = -1;
			}
			r = fd < 0 ? -ENOENT : f->size > max ? -EFBIG : copy_to(fd, f->size, to);
			if (fd >= 0 && fd != f->fd)
				close(fd);
		}
		note(ctx, r < 0 ? f->path : to, r);
		if (r < 0) {
			free(to);
			continue;
		}
		fresh = xgrow(fresh, &cap, nfresh + 1, sizeof(*fresh));
		fresh[nfresh++] = to;
	}
	if (nfresh)
		trim_cache(dir, fresh, nfresh, max);
	for (size_t i = 0; i < nfresh; i++)
		free(fresh[i]);
	free(fresh);
	return nfresh;
}

void images_files(const struct images *im, uint64_t *files, uint64_t *hashed, uint64_t *hashed_bytes)
{
	*files = im->sh->nfiles;
	*hashed = im->sh->hashed;
	*hashed_bytes = im->sh->hashed_bytes;
}
