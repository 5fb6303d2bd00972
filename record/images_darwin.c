/*
 * images_darwin.c: images of a macOS process, from dyld's image list.
 *
 * Portable, like target_darwin.c: everything comes through the Mach
 * layer's memory read. An update reads dyld_all_image_infos (where
 * TASK_DYLD_INFO says it is) and stops there if infoArrayChangeTimestamp,
 * the array and its count are as last time, which is the common case and
 * costs one read of 200 bytes. Otherwise it reads the array, then the
 * struct again: if dyld changed the list meanwhile the copy is dropped and
 * the next update tries again. Each new image is identified from its
 * Mach-O header in memory (record/dyld.c): LC_UUID, __TEXT's size, and the
 * slide. An image inside the dyld shared cache must slide by the cache's
 * slide, or its header is not believed. dyld itself is not in the array;
 * it is recorded from the struct's own fields. macOS has no .eh_frame to
 * follow here (its unwind tables are __unwind_info), so the walk is by
 * frame pointers, with the x86_64 leaf search.
 */
#include "images.h"
#include "images_base.h"
#include "dyld.h"
#include "mach.h"
#include "common/diag.h"
#include "common/macho.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define MH_DYLIB_IN_CACHE 0x80000000u

struct images {
	struct images_base b;      /* first: of struct image_span entries */
	uint64_t infos_addr, infos_size;
	int have_list;
	struct dyld_infos last;    /* the list as last recorded */
	uint32_t own_id, *next_id;  /* the image ids: own_id's, or share's */
};

/* Children are not followed on macOS, so a table made with share only
 * shares its ids; share must outlive it. */
struct images *images_new(struct target *t, uint32_t process, const struct images *share)
{
	struct images *im = xcalloc(1, sizeof(*im));
	images_base_init(&im->b, t, process, sizeof(struct image_span), NULL);
	im->own_id = 1;
	im->next_id = share ? share->next_id : &im->own_id;
	return im;
}

void images_free(struct images *im)
{
	if (!im)
		return;
	images_base_release(&im->b);
	free(im);
}

static uint8_t arch_of(uint32_t cputype)
{
	switch (cputype) {
	case MACHO_CPU_TYPE_X86_64: return TRACE_ARCH_X86_64;
	case MACHO_CPU_TYPE_ARM64: return TRACE_ARCH_ARM64;
	default: return TRACE_ARCH_UNKNOWN;
	}
}

static int same_list(const struct dyld_infos *a, const struct dyld_infos *b)
{
	return a->timestamp == b->timestamp && a->array == b->array && a->count == b->count;
}

/* Records the image whose header is at load (path at path_addr, or
 * fallback when that is 0) unless it is known already. */
static int add_image(struct images *im, struct trace_writer *w, const struct dyld_infos *in,
		     uint64_t load, uint64_t path_addr, const char *fallback, uint64_t now)
{
	struct macos_task *task = target_darwin_task(im->b.t);
	struct dyld_macho m;
	struct trace_image img;
	struct image_span *s;
	char path[DYLD_PATH_MAX];

	for (size_t i = 0; i < im->b.nk; i++) {
		s = images_base_at(&im->b, i);
		if (s->start == load) {
			s->seen = 1;
			return 0;
		}
	}
	/* An image whose header cannot be read or believed has no identity
	 * to record: its frames stay unresolved addresses. */
	if (dyld_read_macho(macos_read, task, load, &m) < 0)
		return 0;
	if ((m.flags & MH_DYLIB_IN_CACHE) && in->has_cache && m.slide != in->cache_slide)
		return 0;
	if (!path_addr || dyld_read_string(macos_read, task, path_addr, path, sizeof(path)) < 0)
		snprintf(path, sizeof(path), "%s", fallback);

	memset(&img, 0, sizeof(img));
	img.id = (*im->next_id)++;
	img.path = path;
	img.start = load;
	img.size = m.text_vmsize;
	img.bias = m.slide;
	img.arch = arch_of(m.cputype);
	img.time_loaded = now;
	if (m.has_uuid) {
		img.ident_kind = TRACE_IDENT_MACHO_UUID;
		img.ident_len = 16;
		memcpy(img.ident, m.uuid, 16);
	}
	s = images_base_add(&im->b);
	*s = (struct image_span){ .start = load, .end = load + m.text_vmsize, .id = img.id, .seen = 1 };
	return trace_writer_image(w, im->b.process, &img);
}

int images_update(struct images *im, struct trace_writer *w, uint64_t now)
{
	struct macos_task *task = target_darwin_task(im->b.t);
	struct dyld_infos a, b;
	struct dyld_image *list = NULL;
	size_t n = 0;
	int r = 0;

	/* Before dyld has run (a command spawned suspended) there is no
	 * list yet; a process that is gone has none any more. Neither is an
	 * error: the next update looks again. */
	if (!im->infos_addr && (macos_dyld_info(task, &im->infos_addr, &im->infos_size) < 0 ||
				!im->infos_addr))
		return 0;
	if (dyld_read_infos(macos_read, task, im->infos_addr, im->infos_size, &a) < 0)
		return 0;
	if (im->have_list && same_list(&a, &im->last))
		return 0;
	if (dyld_read_images(macos_read, task, &a, &list, &n) < 0 ||
	    dyld_read_infos(macos_read, task, im->infos_addr, im->infos_size, &b) < 0 ||
	    !same_list(&a, &b))
		goto out;

	images_base_unsee(&im->b);
	if (a.dyld_address)
		r = add_image(im, w, &a, a.dyld_address, a.dyld_path, "/usr/lib/dyld", now);
	for (size_t i = 0; i < n && r == 0; i++)
		r = add_image(im, w, &a, list[i].load_address, list[i].path_address, "[unknown]", now);
	if (r == 0)
		r = images_base_unload_unseen(&im->b, w, now);
	im->last = a;
	im->have_list = 1;
out:
	free(list);
	return r;
}

int images_inherit(struct images *im, const struct images *from, struct trace_writer *w, uint64_t now)
{
	(void)from;
	return images_update(im, w, now);
}

/* The platform's part of the unwind configuration: the leaf search, and
 * where arm64 pointer authentication starts in macOS's addresses. */
void images_unwind_hooks(struct images *im, struct unwind_config *cfg)
{
	cfg->is_return = images_is_return;
	cfg->is_return_ctx = im;
	cfg->va_bits = MACOS_ARM64_VA_BITS;
}

/* On macOS images are read from the target's memory, by UUID, and no file
 * is kept: the image cache is Linux's. */
void images_hit(struct images *im, const uint64_t *addrs, size_t n)
{
	(void)im;
	(void)addrs;
	(void)n;
}

void images_keep_all(struct images *im)
{
	(void)im;
}

size_t images_keep(struct images *im, const char *dir, uint64_t max,
		   void (*note)(void *ctx, const char *path, int err), void *ctx)
{
	(void)im;
	(void)dir;
	(void)max;
	(void)note;
	(void)ctx;
	return 0;
}

void images_files(const struct images *im, uint64_t *files, uint64_t *hashed, uint64_t *hashed_bytes)
{
	(void)im;
	*files = *hashed = *hashed_bytes = 0;
}
