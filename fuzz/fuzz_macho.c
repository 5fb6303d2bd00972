/*
 * fuzz_macho.c: the Mach-O reader (common/macho.c) on any bytes: the
 * universal header and its slices, then each thin slice's header, load
 * commands, UUID, segments, sections and symbol table, each result read
 * back byte by byte.
 */
#include "fuzz/fuzz.h"

#include "common/macho.h"

/* More than a real universal file holds (two or three). */
#define FUZZ_MACHO_SLICES 8

static int on_segment(void *ctx, const struct macho_segment *s)
{
	fuzz_touch_str(s->name);
	return 0;
}

static int on_section(void *ctx, const struct macho_section *s)
{
	fuzz_touch_str(s->segname);
	fuzz_touch_str(s->sectname);
	if (s->data)
		fuzz_touch(s->data, s->size);
	return 0;
}

static int on_symbol(void *ctx, const struct macho_symbol *s)
{
	fuzz_touch_str(s->name);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct macho_slice slices[FUZZ_MACHO_SLICES];
	struct macho_segment seg;
	struct macho_file m;
	uint8_t uuid[16];
	size_t n;

	if (macho_slices(data, size, slices, FUZZ_MACHO_SLICES, &n) < 0)
		return 0;
	for (size_t i = 0; i < n && i < FUZZ_MACHO_SLICES; i++) {
		if (macho_parse(&m, data + slices[i].offset, slices[i].size) < 0)
			continue;
		macho_uuid(&m, uuid);
		macho_segment_by_name(&m, "__TEXT", &seg);
		macho_segments(&m, on_segment, NULL);
		macho_sections(&m, on_section, NULL);
		macho_symbols(&m, on_symbol, NULL);
	}
	return 0;
}
