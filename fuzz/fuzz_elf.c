/*
 * fuzz_elf.c: the ELF reader (common/elf.c) on any bytes: the header, the
 * program and section headers, the build-id note, the debug link and the
 * symbol tables, each result read back byte by byte.
 */
#include "fuzz/fuzz.h"

#include "common/elf.h"

static int on_symbol(void *ctx, const struct elf_symbol *sym)
{
	fuzz_touch_str(sym->name);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_file e;
	struct elf_segment seg;
	struct elf_section sec;
	const uint8_t *id;
	const char *link;
	uint32_t crc;
	size_t len;

	if (elf_parse(&e, data, size) < 0)
		return 0;
	for (unsigned i = 0; i < e.phnum; i++)
		elf_segment(&e, i, &seg);
	for (unsigned i = 0; i < e.shnum; i++) {
		if (elf_section(&e, i, &sec) < 0)
			continue;
		fuzz_touch_str(sec.name);
		if (sec.data)
			fuzz_touch(sec.data, sec.size);
	}
	if (elf_section_by_name(&e, ".text", &sec) == 0 && sec.data)
		fuzz_touch(sec.data, sec.size);
	if (elf_build_id(&e, &id, &len) == 0)
		fuzz_touch(id, len);
	if (elf_debuglink(&e, &link, &crc) == 0)
		fuzz_touch_str(link);
	elf_symbols(&e, on_symbol, NULL);
	return 0;
}
