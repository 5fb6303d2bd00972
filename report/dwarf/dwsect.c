/*
 * dwsect.c: the section table, and inflating compressed sections into
 * exactly the size their Elf64_Chdr declares: zlib streams with
 * libdeflate, which decodes a whole buffer at about three times zlib's
 * speed (and so most of the cost of reading Debian's compressed debug
 * files goes), zstd with zstd.
 */
#include "report/dwarf/dwsect.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/bytes.h"
#include "common/diag.h"
#include "common/timing.h"

#define CHDR_SIZE 24             /* Elf64_Chdr */
#define ELFCOMPRESS_ZLIB_TYPE 1
#define ELFCOMPRESS_ZSTD_TYPE 2
/* A declared size this many times the compressed one is a lie (zlib
 * cannot exceed about 1032:1; debug sections are nearer 5:1). */
#define MAX_RATIO 1024
#define MIN_CAPPED (1u << 20)

static int wanted(const char *name, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

int dwsect_take(struct dwsect_table *t, const struct dwinfo_section *secs, size_t nsecs,
		const char *const *names)
{
	t->v = xcalloc(nsecs + 1, sizeof(*t->v));
	t->v[0].name = xstrdup("");
	t->n = 1;
	for (size_t i = 0; i < nsecs && t->n < 0xff00; i++) {
		const struct dwinfo_section *in = &secs[i];
		struct dwsect *s = &t->v[t->n];

		if (!in->name || !wanted(in->name, names) || !in->data || dwsect_index(t, in->name))
			continue;
		memset(s, 0, sizeof(*s));
		s->addr = in->addr;
		s->data = in->data;
		s->size = in->size;
		if (in->compressed) {
			uint64_t declared;

			if (in->size < CHDR_SIZE)
				return DWINFO_E_COMPRESSED;
			s->ctype = get_le32(in->data);
			declared = get_le64(in->data + 8);
			if (s->ctype != ELFCOMPRESS_ZLIB_TYPE && s->ctype != ELFCOMPRESS_ZSTD_TYPE)
				return DWINFO_E_COMPRESSED;
			s->packed = in->data + CHDR_SIZE;
			s->packed_len = in->size - CHDR_SIZE;
			if (declared > DWINFO_MAX_SECTION ||
			    (declared > MIN_CAPPED && declared / MAX_RATIO > s->packed_len))
				return DWINFO_E_COMPRESSED;
			s->size = declared;
			s->data = NULL;
		}
		s->name = xstrdup(in->name);
		t->n++;
	}
	return 0;
}

void dwsect_release(struct dwsect_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].inflated);
	}
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

size_t dwsect_index(const struct dwsect_table *t, const char *name)
{
	for (size_t i = 1; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return i;
	return 0;
}

void dwsect_remove(struct dwsect_table *t, size_t i)
{
	free(t->v[i].name);
	free(t->v[i].inflated);
	memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof(*t->v));
	t->n--;
}

/* Inflates s into s->inflated: exactly s->size bytes. Returns 0 or -1. */
static int inflate_section(struct dwsect *s)
{
	const uint8_t *src = s->packed;
	size_t len = s->packed_len;
	uint8_t *out = malloc(s->size ? s->size : 1);
	int prev = timing_enter(TIMING_DECOMPRESS);

	if (!out)
		goto fail;
	if (s->ctype == ELFCOMPRESS_ZLIB_TYPE) {
		/* Without an actual size to return, libdeflate fails unless
		 * the stream gives exactly s->size bytes (and its checksum). */
		struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
		enum libdeflate_result r;

		if (!z)
			goto fail;
		r = libdeflate_zlib_decompress(z, src, len, out, s->size, NULL);
		libdeflate_free_decompressor(z);
		if (r != LIBDEFLATE_SUCCESS)
			goto fail;
	} else {
		size_t r = ZSTD_decompress(out, s->size, src, len);
		if (ZSTD_isError(r) || r != s->size)
			goto fail;
	}
	s->inflated = out;
	s->data = out;
	timing_leave(prev);
	return 0;
fail:
	free(out);
	timing_leave(prev);
	return -1;
}

const uint8_t *dwsect_data(struct dwsect_table *t, size_t i)
{
	struct dwsect *s = &t->v[i];

	if (s->ctype && !s->inflated && (s->failed || inflate_section(s) != 0)) {
		s->failed = 1;
		return NULL;
	}
	return s->data;
}

const char *dwsect_string(struct dwsect_table *t, const char *name, uint64_t off)
{
	size_t i = dwsect_index(t, name);
	const uint8_t *data = i ? dwsect_data(t, i) : NULL;

	if (!data || off >= t->v[i].size || !memchr(data + off, 0, (size_t)(t->v[i].size - off)))
		return NULL;
	return (const char *)data + off;
}
