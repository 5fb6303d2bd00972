/*
 * dwarf_raw.c: dwarf_raw FILE OUT writes the DWARF sections of an object
 * file (ELF, Mach-O, the first slice of a universal file) as fuzz_dwinfo
 * takes them (fuzz/dwarf_raw.h), with the start and middle of each of its
 * function symbols as the addresses to look up. It turns the fixtures
 * into seeds whose mutations land in the DWARF itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/diag.h"
#include "fuzz/dwarf_raw.h"
#include "report/symbols/objfile.h"

/* Addresses per seed, at most. */
#define MAX_ADDRS 512

static void on_symbol(void *ctx, const struct objfile_symbol *sym)
{
	struct buf *addrs = ctx;

	if (addrs->len / 8 + 2 > MAX_ADDRS)
		return;
	buf_put_le64(addrs, sym->start);
	buf_put_le64(addrs, sym->start + sym->size / 2);
}

int main(int argc, char **argv)
{
	struct objfile of;
	struct dwinfo_section *secs;
	struct buf out, addrs;
	size_t n;
	char *why = NULL;
	FILE *f;

	diag_set_progname("dwarf_raw");
	if (argc != 3)
		die("usage: dwarf_raw FILE OUT");
	if (objfile_open(&of, argv[1], 0, NULL, 0, &why) < 0)
		die("cannot open '%s': %s", argv[1], why);
	if (objfile_dwarf_sections(&of, &secs, &n) < 0)
		die("'%s': no DWARF sections", argv[1]);
	buf_init(&out);
	buf_init(&addrs);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < DWARF_RAW_NSECTIONS; k++) {
			if (strcmp(secs[i].name, dwarf_raw_sections[k]))
				continue;
			buf_addch(&out, (int)k | (secs[i].compressed ? DWARF_RAW_COMPRESSED : 0));
			buf_put_bytes(&out, secs[i].data, (size_t)secs[i].size);
		}
	}
	objfile_symbols(&of, on_symbol, &addrs);
	buf_addch(&out, DWARF_RAW_ADDRS);
	buf_put_bytes(&out, addrs.data, addrs.len);
	if (!(f = fopen(argv[2], "wb")) || fwrite(out.data, 1, out.len, f) != out.len || fclose(f))
		die_errno("cannot write '%s'", argv[2]);
	free(secs);
	objfile_release(&of);
	buf_release(&out);
	buf_release(&addrs);
	return 0;
}
