/*
 * dyld.c: the image list of a macOS process, from its memory.
 *
 * dyld's protocol for readers outside the process is optimistic: while it
 * changes the array it sets infoArray to NULL, and after each change it
 * bumps infoArrayChangeTimestamp. So a reader takes the struct, then the
 * array, and trusts the array only if the struct still says the same
 * afterwards (images_darwin.c does that second read). Every field is read
 * little-endian from a byte copy, never through a cast struct, and only
 * the fields that the struct's version and reported size include.
 */
#include "dyld.h"
#include "common/bytes.h"
#include "common/diag.h"
#include "common/macho.h"

#include <stdlib.h>
#include <string.h>

#define MH_MAGIC_64 0xfeedfacfu
#define MACH_HEADER_64_SIZE 32
#define PAGE 4096u

int dyld_read_infos(memory_read_fn read, void *ctx, uint64_t addr, uint64_t size,
		    struct dyld_infos *out)
{
	uint8_t b[DYLD_INFOS_SIZE];
	size_t n = size < sizeof(b) ? (size_t)size : sizeof(b);

	memset(out, 0, sizeof(*out));
	if (n < DYLD_OFF_ARRAY + 8)
		return DYLD_E_VERSION;
	memset(b, 0, sizeof(b));
	if (read(ctx, addr, b, n) < 0)
		return DYLD_E_UNREADABLE;
	out->version = get_le32(b + DYLD_OFF_VERSION);
	if (out->version == 0 || out->version > DYLD_VERSION_MAX)
		return DYLD_E_VERSION;
	out->count = get_le32(b + DYLD_OFF_COUNT);
	out->array = get_le64(b + DYLD_OFF_ARRAY);
	/* Bytes past n are zero, so a field the size leaves out reads 0. */
	if (out->version >= 2)
		out->dyld_address = get_le64(b + DYLD_OFF_DYLD_ADDRESS);
	if (out->version >= 15 && n >= DYLD_INFOS_SIZE) {
		out->has_cache = 1;
		out->cache_slide = get_le64(b + DYLD_OFF_CACHE_SLIDE);
		memcpy(out->cache_uuid, b + DYLD_OFF_CACHE_UUID, 16);
		out->cache_base = get_le64(b + DYLD_OFF_CACHE_BASE);
		out->timestamp = get_le64(b + DYLD_OFF_TIMESTAMP);
		out->dyld_path = get_le64(b + DYLD_OFF_DYLD_PATH);
	}
	return 0;
}

int dyld_read_images(memory_read_fn read, void *ctx, const struct dyld_infos *in,
		     struct dyld_image **out, size_t *n)
{
	uint8_t *raw = NULL;
	struct dyld_image *img = NULL;
	size_t bytes;
	int r = 0;

	*out = NULL;
	*n = 0;
	if (in->count == 0)
		return 0;
	if (in->array == 0)
		return DYLD_E_BUSY;
	if (in->count > DYLD_MAX_IMAGES)
		return DYLD_E_COUNT;
	bytes = (size_t)in->count * DYLD_IMAGE_INFO_SIZE;
	if (in->array > UINT64_MAX - bytes)
		return DYLD_E_UNREADABLE;
	raw = xmalloc(bytes);
	if (read(ctx, in->array, raw, bytes) < 0) {
		r = DYLD_E_UNREADABLE;
		goto out;
	}
	img = xmalloc(in->count * sizeof(*img));
	for (size_t i = 0; i < in->count; i++) {
		img[i].load_address = get_le64(raw + i * DYLD_IMAGE_INFO_SIZE);
		img[i].path_address = get_le64(raw + i * DYLD_IMAGE_INFO_SIZE + 8);
	}
	*out = img;
	*n = in->count;
out:
	free(raw);
	return r;
}

int dyld_read_string(memory_read_fn read, void *ctx, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	if (size == 0)
		return DYLD_E_PATH;
	while (got < size - 1) {
		uint64_t a = addr + got;
		size_t chunk = PAGE - (size_t)(a % PAGE);
		char *nul;

		if (a < addr)
			return DYLD_E_UNREADABLE;   /* wrapped around */
		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		if (read(ctx, a, buf + got, chunk) < 0)
			return DYLD_E_UNREADABLE;
		nul = memchr(buf + got, 0, chunk);
		if (nul)
			return 0;
		got += chunk;
	}
	buf[size - 1] = 0;
	return DYLD_E_PATH;
}

int dyld_read_macho(memory_read_fn read, void *ctx, uint64_t load_address, struct dyld_macho *out)
{
	uint8_t hdr[MACH_HEADER_64_SIZE], *all = NULL;
	struct macho_file m;
	struct macho_segment text;
	uint32_t sizeofcmds;
	size_t len;
	int r;

	memset(out, 0, sizeof(*out));
	if (read(ctx, load_address, hdr, sizeof(hdr)) < 0)
		return DYLD_E_UNREADABLE;
	sizeofcmds = get_le32(hdr + 20);
	if (get_le32(hdr) != MH_MAGIC_64 || sizeofcmds > DYLD_CMDS_MAX)
		return DYLD_E_HEADER;
	len = MACH_HEADER_64_SIZE + (size_t)sizeofcmds;
	if (load_address > UINT64_MAX - len)
		return DYLD_E_UNREADABLE;
	all = xmalloc(len);
	if (read(ctx, load_address, all, len) < 0) {
		r = DYLD_E_UNREADABLE;
		goto out;
	}
	/* The header may have changed between the two reads: parse only the
	 * second copy, which macho_parse() checks against its own length. */
	r = macho_parse(&m, all, len);
	if (r < 0)
		goto out;
	r = macho_segment_by_name(&m, "__TEXT", &text);
	if (r < 0)
		goto out;
	/* An image spans its __TEXT: none is empty, or 4 GiB, or wraps. */
	if (text.vmsize == 0 || text.vmsize > DYLD_TEXT_MAX || load_address > UINT64_MAX - text.vmsize) {
		r = DYLD_E_HEADER;
		goto out;
	}
	out->cputype = m.cputype;
	out->filetype = m.filetype;
	out->flags = m.flags;
	out->has_uuid = macho_uuid(&m, out->uuid) == 0;
	out->text_vmaddr = text.vmaddr;
	out->text_vmsize = text.vmsize;
	out->slide = load_address - text.vmaddr;
out:
	free(all);
	return r;
}
