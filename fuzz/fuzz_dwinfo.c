/*
 * fuzz_dwinfo.c: the DWARF reader (report/dwarf/dwinfo.c, with the line table
 * reader, the interval folding and the section table beside it) on any
 * sections: the unit index, then for each address looked up the unit's
 * DIE walk, its ranges and range lists, its line table and the names
 * found through abstract origins and specifications, each frame it gives
 * read back byte by byte.
 *
 * The input is the sections themselves (fuzz/dwarf_raw.h), so that
 * mutations land in the DWARF rather than in an ELF or Mach-O container
 * around it; fuzz/dwarf_raw makes one from a real object file, with its
 * function symbols' addresses to look up. A damaged unit must only give
 * fewer frames: never a crash, a hang or a read past the input.
 */
#include "fuzz/fuzz.h"

#include <stdlib.h>

#include "common/bytes.h"
#include "fuzz/dwarf_raw.h"
#include "report/dwarf/dwinfo.h"

/* Lookups per input, at most: enough to reach every unit of a seed. */
#define FUZZ_DWINFO_LOOKUPS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwinfo_section secs[DWARF_RAW_NSECTIONS * 2];
	const uint8_t *addrs = NULL;
	size_t nsecs = 0, naddrs = 0, loaded;
	struct cursor c;
	struct dwinfo *d;

	cursor_init(&c, data, size);
	while (c.left > 0) {
		uint8_t id;
		const uint8_t *p;
		size_t len;

		if (cursor_u8(&c, &id) < 0 || cursor_bytes(&c, c.left, &p, &len) < 0)
			break;
		if (id == DWARF_RAW_ADDRS) {
			addrs = p;
			naddrs = len / 8;
		} else if ((id & ~DWARF_RAW_COMPRESSED) < DWARF_RAW_NSECTIONS &&
			   nsecs < sizeof(secs) / sizeof(secs[0])) {
			secs[nsecs++] = (struct dwinfo_section){
				.name = dwarf_raw_sections[id & ~DWARF_RAW_COMPRESSED],
				.data = p, .size = len, .compressed = !!(id & DWARF_RAW_COMPRESSED),
			};
		}
	}
	if (dwinfo_new(secs, nsecs, &d) < 0)
		return 0;
	for (size_t i = 0; i < naddrs && i < FUZZ_DWINFO_LOOKUPS; i++) {
		struct dwinfo_frame fr[DWINFO_MAX_FRAMES];
		int n = dwinfo_lookup(d, get_le64(addrs + 8 * i), fr, DWINFO_MAX_FRAMES);

		for (int k = 0; k < n; k++) {
			fuzz_touch_str(fr[k].function);
			fuzz_touch_str(fr[k].file);
		}
	}
	dwinfo_units(d, &loaded);
	dwinfo_free(d);
	return 0;
}
