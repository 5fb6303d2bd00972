/*
 * trace_ident.c: identities of ELF files without a GNU build-id (see trace_ident.h).
 *
 * The content hash is bounded: past TRACE_IDENT_CONTENT_BOUND loadable bytes it
 * hashes a fixed number of blocks spread over them, so a huge or sparse
 * file costs the same as a 64 MiB one, and says so (its identity counts
 * more bytes than the bound). The recorder and the report both call this,
 * so that the two always agree on what a file's identity is.
 */
#include "trace_ident.h"
#include "common/bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "format/trace.h"
#include "common/diag.h"

int trace_ident_go(const struct elf_file *e, uint8_t *out, size_t *len)
{
	const uint8_t *desc, *part;
	size_t n, i;
	int r = elf_note(e, "Go", ELF_NT_GO_BUILD_ID, &desc, &n);

	if (r < 0)
		return r;
	if (n > TRACE_IDENT_GO_MAX)
		return ELF_E_CORRUPT;
	for (i = 0; i < n; i++)
		if (desc[i] < 0x21 || desc[i] > 0x7e)
			return ELF_E_CORRUPT;
	part = desc;
	if (n > TRACE_MAX_IDENT) {
		for (i = n; i > 0 && desc[i - 1] != '/'; i--)
			;
		part = desc + i;
		n -= i;
		if (n == 0 || n > TRACE_MAX_IDENT)
			return ELF_E_CORRUPT;
	}
	memcpy(out, part, n);
	*len = n;
	return 0;
}

struct loads {
	struct elf_segment seg[64];
	unsigned n;
	uint64_t bytes;
};

static int collect_loads(const struct elf_file *e, uint64_t size, struct loads *l)
{
	l->n = 0;
	l->bytes = 0;
	for (unsigned i = 0; i < e->phnum; i++) {
		struct elf_segment s;

		if (elf_segment(e, i, &s) < 0 || s.type != ELF_PT_LOAD)
			continue;
		if (s.offset > size || s.filesz > size - s.offset || l->n == sizeof(l->seg) / sizeof(*l->seg))
			return ELF_E_CORRUPT;
		l->seg[l->n++] = s;
		l->bytes += s.filesz;
	}
	return l->n ? 0 : ELF_E_NOTFOUND;
}

/* Zeroes, in k bytes read from file offset off, the ELF header's fields
 * that say where the section headers are (e_shoff, e_shnum, e_shstrndx):
 * the first segment usually holds the header, and stripping moves them. */
static void mask_section_fields(uint8_t *p, uint64_t off, uint64_t k)
{
	static const struct { uint64_t at, len; } fields[] = { { 40, 8 }, { 60, 4 } };

	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++)
		for (uint64_t b = fields[i].at; b < fields[i].at + fields[i].len; b++)
			if (b >= off && b - off < k)
				p[b - off] = 0;
}

/* Hashes len bytes from offset at of the loadable bytes (the segments'
 * file bytes, one after the other), through a bounce buffer. */
static int hash_range(XXH3_state_t *st, const struct loads *l, uint64_t at, uint64_t len, trace_ident_read_fn read,
		      void *ctx, uint8_t *bounce, size_t bounce_len)
{
	for (unsigned i = 0; i < l->n && len; i++) {
		const struct elf_segment *s = &l->seg[i];

		if (at >= s->filesz) {
			at -= s->filesz;
			continue;
		}
		while (at < s->filesz && len) {
			uint64_t k = s->filesz - at;
			int r;

			if (k > len)
				k = len;
			if (k > bounce_len)
				k = bounce_len;
			if ((r = read(ctx, s->offset + at, bounce, (size_t)k)) < 0)
				return r;
			mask_section_fields(bounce, s->offset + at, k);
			XXH3_128bits_update(st, bounce, (size_t)k);
			at += k;
			len -= k;
		}
		at = 0;
	}
	return 0;
}

int trace_ident_content(const struct elf_file *e, uint64_t size, trace_ident_read_fn read, void *ctx, uint8_t *out)
{
	struct loads l;
	XXH3_state_t *st = NULL;
	XXH128_canonical_t sum;
	uint8_t *bounce = NULL;
	int r;

	if ((r = collect_loads(e, size, &l)) < 0)
		return r;
	st = XXH3_createState();
	bounce = malloc(TRACE_IDENT_CONTENT_BLOCK);
	if (!st || !bounce) {
		r = -12; /* ENOMEM */
		goto out;
	}
	XXH3_128bits_reset(st);
	for (unsigned i = 0; i < l.n; i++) {
		uint8_t h[36];

		put_le64(h, l.seg[i].offset);
		put_le64(h + 8, l.seg[i].vaddr);
		put_le64(h + 16, l.seg[i].filesz);
		put_le32(h + 24, l.seg[i].flags);
		put_le64(h + 28, l.seg[i].memsz);
		XXH3_128bits_update(st, h, sizeof(h));
	}
	if (l.bytes <= TRACE_IDENT_CONTENT_BOUND) {
		r = hash_range(st, &l, 0, l.bytes, read, ctx, bounce, TRACE_IDENT_CONTENT_BLOCK);
	} else {
		uint64_t span = l.bytes - TRACE_IDENT_CONTENT_BLOCK;

		r = 0;
		for (unsigned b = 0; b < TRACE_IDENT_CONTENT_BLOCKS && r == 0; b++) {
			/* span * b fits: span < 2^64 / 1024 is not promised */
			uint64_t at = (uint64_t)((unsigned __int128)span * b / (TRACE_IDENT_CONTENT_BLOCKS - 1));
			r = hash_range(st, &l, at, TRACE_IDENT_CONTENT_BLOCK, read, ctx, bounce, TRACE_IDENT_CONTENT_BLOCK);
		}
	}
	if (r < 0)
		goto out;
	XXH128_canonicalFromHash(&sum, XXH3_128bits_digest(st));
	put_le64(out, l.bytes);
	memcpy(out + 8, sum.digest, 16);
out:
	XXH3_freeState(st);
	free(bounce);
	return r;
}

int trace_ident_of_elf(const struct elf_file *e, uint64_t size, trace_ident_read_fn read, void *ctx, int *kind,
		 uint8_t *out, size_t *len)
{
	const uint8_t *id;
	size_t n;
	int r;

	if (elf_build_id(e, &id, &n) == 0 && n >= 2 && n <= TRACE_MAX_IDENT) {
		*kind = TRACE_IDENT_GNU_BUILD_ID;
		memcpy(out, id, n);
		*len = n;
		return 0;
	}
	if (trace_ident_go(e, out, len) == 0) {
		*kind = TRACE_IDENT_GO_BUILD_ID;
		return 0;
	}
	if ((r = trace_ident_content(e, size, read, ctx, out)) < 0)
		return r;
	*kind = TRACE_IDENT_CONTENT;
	*len = TRACE_IDENT_CONTENT_LEN;
	return 0;
}

int trace_ident_content_sampled(const uint8_t *ident)
{
	return trace_ident_content_bytes(ident) > TRACE_IDENT_CONTENT_BOUND;
}

uint64_t trace_ident_content_bytes(const uint8_t *ident)
{
	return get_le64(ident);
}

char *trace_ident_cache_dir(void)
{
	const char *env;

	if ((env = getenv("PROF_IMAGE_CACHE")) && env[0])
		return xstrdup(env);
	if ((env = getenv("XDG_CACHE_HOME")) && env[0])
		return xasprintf("%s/prof/images", env);
	if ((env = getenv("HOME")) && env[0])
		return xasprintf("%s/.cache/prof/images", env);
	return NULL;
}

char *trace_ident_cache_path(const char *dir, int kind, const uint8_t *ident, size_t len, const char *base)
{
	static const char digits[] = "0123456789abcdef";
	char hex[2 * TRACE_MAX_IDENT + 1];

	if (!trace_ident_valid(kind, len) || !base[0] || strchr(base, '/') || !strcmp(base, ".") ||
	    !strcmp(base, ".."))
		return NULL;
	for (size_t i = 0; i < len; i++) {
		hex[2 * i] = digits[ident[i] >> 4];
		hex[2 * i + 1] = digits[ident[i] & 15];
	}
	hex[2 * len] = 0;
	return xasprintf("%s/%s/%s/%s", dir, trace_ident_kind_name(kind), hex, base);
}
