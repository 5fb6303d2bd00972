/*
 * fuzz_dyld.c: libFuzzer target for the dyld image-list reader and the
 * Mach-O header reader behind it (record/dyld.c, common/macho.c).
 *
 * The input is a process's memory: its first 8 bytes (little-endian) are
 * where dyld_all_image_infos lies, and the rest is mapped at FUZZ_BASE;
 * everything else is unreadable. The target then reads the list as
 * images_darwin.c does: the struct, the array, each image's path and
 * Mach-O header, and dyld's own.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "record/dyld.h"

#define FUZZ_BASE UINT64_C(0x100000000)
#define FUZZ_IMAGES 64   /* the images of one input looked at */

struct memory {
	const uint8_t *p;
	size_t n;
};

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct memory *m = ctx;
	if (addr < FUZZ_BASE || addr - FUZZ_BASE > m->n || len > m->n - (addr - FUZZ_BASE))
		return -1;
	memcpy(buf, m->p + (addr - FUZZ_BASE), len);
	return 0;
}

static void image(struct memory *m, uint64_t load, uint64_t path)
{
	struct dyld_macho h;
	char s[DYLD_PATH_MAX];

	if (path)
		dyld_read_string(mem_read, m, path, s, sizeof(s));
	dyld_read_macho(mem_read, m, load, &h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memory m;
	struct dyld_infos in;
	struct dyld_image *list;
	size_t n;

	if (size < 8)
		return 0;
	m.p = data + 8;
	m.n = size - 8;
	if (dyld_read_infos(mem_read, &m, get_le64(data), 328, &in) < 0)
		return 0;
	if (in.dyld_address)
		image(&m, in.dyld_address, in.dyld_path);
	if (dyld_read_images(mem_read, &m, &in, &list, &n) < 0)
		return 0;
	for (size_t i = 0; i < n && i < FUZZ_IMAGES; i++)
		image(&m, list[i].load_address, list[i].path_address);
	free(list);
	return 0;
}
