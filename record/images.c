/*
 * images.c: what the image tables of both platforms share.
 *
 * The table of images recorded and still loaded (images_base.h), which
 * answers images_covers(), and the return-address test of the x86_64
 * leaf search: a stack word is taken for the caller of a frameless leaf
 * only if it points into a recorded image just after a call instruction,
 * read from the target's code itself. Reading the map, identifying
 * images and finding their unwind tables is each platform's
 * (images_linux.c, images_darwin.c).
 */
#include "images.h"
#include "images_base.h"
#include "common/diag.h"

#include <stdlib.h>
#include <string.h>

/* Each platform's struct images begins with its struct images_base. */
static const struct images_base *base_of(const struct images *im)
{
	return (const struct images_base *)(const void *)im;
}

void images_base_init(struct images_base *b, struct target *t, uint32_t process, size_t size,
		      void (*release)(void *entry))
{
	memset(b, 0, sizeof(*b));
	b->t = t;
	b->process = process;
	b->size = size;
	b->release = release;
}

void images_base_release(struct images_base *b)
{
	if (b->release)
		for (size_t i = 0; i < b->nk; i++)
			b->release(images_base_at(b, i));
	free(b->k);
	b->k = NULL;
	b->nk = b->cap = 0;
}

void *images_base_at(const struct images_base *b, size_t i)
{
	return (char *)b->k + i * b->size;
}

void *images_base_add(struct images_base *b)
{
	void *e;

	b->k = xgrow(b->k, &b->cap, b->nk + 1, b->size);
	e = images_base_at(b, b->nk++);
	memset(e, 0, b->size);
	b->recorded++;
	return e;
}

int images_base_unload(struct images_base *b, size_t i, struct trace_writer *w, uint64_t now)
{
	struct image_span *s = images_base_at(b, i);
	int r = trace_writer_image_unload(w, s->id, now);

	if (b->release)
		b->release(s);
	if (i != --b->nk)
		memcpy(s, images_base_at(b, b->nk), b->size);
	return r;
}

void images_base_unsee(struct images_base *b)
{
	for (size_t i = 0; i < b->nk; i++)
		((struct image_span *)images_base_at(b, i))->seen = 0;
}

int images_base_unload_unseen(struct images_base *b, struct trace_writer *w, uint64_t now)
{
	int r = 0;

	for (size_t i = 0; i < b->nk && r == 0;) {
		if (((struct image_span *)images_base_at(b, i))->seen)
			i++;
		else
			r = images_base_unload(b, i, w, now);
	}
	return r;
}

size_t images_count(const struct images *im) { return base_of(im)->recorded; }

struct target *images_target(const struct images *im) { return base_of(im)->t; }

int images_covers(const struct images *im, uint64_t addr)
{
	const struct images_base *b = base_of(im);

	for (size_t i = 0; i < b->nk; i++) {
		const struct image_span *s = images_base_at(b, i);
		if (addr >= s->start && addr < s->end)
			return 1;
	}
	return 0;
}

int images_is_return(void *ctx, uint64_t addr)
{
	struct images *im = ctx;
	uint8_t code[7];

	if (addr < 4096 || !images_covers(im, addr))
		return 0;
	if (target_read(images_target(im), addr - 7, code, sizeof(code)) < 0)
		return 0;
	return unwind_x86_64_after_call(code);
}
