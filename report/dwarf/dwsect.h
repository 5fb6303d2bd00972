/*
 * dwsect.h: an object file's DWARF sections as the DWARF readers
 * (report/dwarf/dwinfo.c, report/dwarf/dwline.c) take them.
 *
 * The caller names the sections it wants; the first of each name counts.
 * An ELF SHF_COMPRESSED section (zlib or zstd) is described by the size
 * its header declares and inflated on first use, to exactly that size; a
 * declared size past DWINFO_MAX_SECTION, or one that no compressor could
 * reach from the bytes given, is refused before anything is allocated.
 * The bytes are borrowed from the caller, or owned once inflated.
 */
#ifndef REPORT_DWSECT_H
#define REPORT_DWSECT_H

#include <stddef.h>
#include <stdint.h>

#include "report/dwarf/dwinfo.h"

struct dwsect {
	char *name;
	const uint8_t *data;     /* NULL until a compressed one is inflated */
	uint64_t size;           /* inflated if compressed */
	uint64_t addr;
	uint32_t ctype;          /* ELFCOMPRESS_ZLIB, _ZSTD, or 0 */
	const uint8_t *packed;   /* the compressed payload, behind its header */
	size_t packed_len;
	uint8_t *inflated;       /* owned */
	int failed;              /* inflating it failed once: never retried */
};

struct dwsect_table {
	struct dwsect *v;        /* v[0] is an empty section, as ELF's, so that
	                          * index 0 means none */
	size_t n;
};

/* Copies into t the sections of secs (borrowed for t's life) whose names
 * are among the NULL-terminated names, the first of each name. Returns 0,
 * or DWINFO_E_COMPRESSED if a compressed section's header is short, of an
 * unknown kind or declares too much; release t with dwsect_release()
 * either way. */
int dwsect_take(struct dwsect_table *t, const struct dwinfo_section *secs, size_t nsecs,
		const char *const *names);
void dwsect_release(struct dwsect_table *t);
/* The bytes of section i (1 to t->n - 1), inflated now if need be, or
 * NULL if it cannot be. */
const uint8_t *dwsect_data(struct dwsect_table *t, size_t i);
/* The index of the section named, or 0 if there is none. */
size_t dwsect_index(const struct dwsect_table *t, const char *name);
/* Takes section i out of t, as if it had never been given. */
void dwsect_remove(struct dwsect_table *t, size_t i);
/* The NUL-terminated string at off in the section named, or NULL unless
 * it ends inside the section. */
const char *dwsect_string(struct dwsect_table *t, const char *name, uint64_t off);

#endif
