/*
 * macho.h: a small, defensive reader for Mach-O files held in memory:
 * 64-bit little-endian thin files (arm64 and x86_64) and the universal
 * ("fat") files that bundle several of them.
 *
 * Shared by prof-record (the UUID and segments of an image, read from a
 * process's memory) and prof-report (the dSYM or binary whose UUID matches,
 * its sections and its nlist symbols). Every offset, count and size in the
 * file is checked against the buffer before use; a hostile file gives
 * MACHO_E_CORRUPT (a MACHO_E_* code of common/errors.h), never an
 * out-of-bounds read. Nothing here allocates: every
 * pointer returned is borrowed from the caller's buffer.
 */
#ifndef COMMON_MACHO_H
#define COMMON_MACHO_H

#include <stddef.h>
#include <stdint.h>

#include "common/errors.h"

#define MACHO_CPU_TYPE_X86_64 0x01000007u
#define MACHO_CPU_TYPE_ARM64 0x0100000cu
/* The top byte of a cpusubtype holds capability bits (e.g. arm64e's
 * pointer-authentication ABI), not the subtype proper. */
#define MACHO_CPU_SUBTYPE_MASK 0x00ffffffu

#define MACHO_MH_EXECUTE 0x2u
#define MACHO_MH_DYLIB 0x6u
#define MACHO_MH_DSYM 0xau      /* a dSYM's DWARF file */

/* Section flags: the type is the low byte; code sections have the
 * pure-instructions attribute. */
#define MACHO_SECTION_TYPE 0xffu
#define MACHO_S_ATTR_PURE_INSTRUCTIONS 0x80000000u

/* One architecture of a file. For a thin file, offset is 0 and size the
 * whole file. */
struct macho_slice {
	uint32_t cputype, cpusubtype;
	uint64_t offset, size;
};

struct macho_file {
	const uint8_t *data;
	size_t size;
	uint32_t cputype, cpusubtype; /* cpusubtype raw, capability bits included */
	uint32_t filetype;            /* MACHO_MH_EXECUTE, MACHO_MH_DYLIB, ... */
	uint32_t ncmds, sizeofcmds, flags;
};

struct macho_segment {
	char name[17];                /* NUL-terminated copy of segname */
	uint64_t vmaddr, vmsize, fileoff, filesize;
	uint32_t nsects;
};

struct macho_section {
	char segname[17], sectname[17]; /* NUL-terminated copies */
	uint64_t addr, size;
	uint32_t offset, flags;
	/* Borrowed; NULL for zerofill sections, empty ones, and those whose
	 * bytes are not within both their segment's file range and the buffer
	 * (a dSYM keeps __TEXT's section headers but not its code). */
	const uint8_t *data;
};

struct macho_symbol {
	const char *name;             /* borrowed, NUL-terminated, as stored ("_main") */
	uint64_t value;               /* link-time address */
	uint8_t type;                 /* n_type */
	uint8_t sect;                 /* n_sect: 1-based section ordinal */
	uint16_t desc;                /* n_desc */
};


/* The architectures in size bytes at data. A universal file gives each of
 * its slices, the first max of them in out, with the total count in *n; a
 * thin Mach-O (any width or byte order) gives one slice covering it all.
 * Every slice is checked to lie within size, after the universal header.
 * Returns 0, MACHO_E_NOTMACHO (for anything else, including a Java class
 * file, which shares the universal magic) or MACHO_E_CORRUPT. */
int macho_slices(const void *data, size_t size, struct macho_slice *out, size_t max, size_t *n);

/* Parses the thin 64-bit little-endian arm64 or x86_64 Mach-O in size bytes
 * at data (borrowed for the life of m): validates the header, and that the
 * load commands lie within sizeofcmds and the buffer, each a multiple of 8
 * bytes and large enough for its own fixed fields (a segment for its
 * sections). What the commands point at (section bytes, symbol and string
 * tables) is checked only when accessed, so the header and load commands
 * alone, as read from a process's memory, parse too. A universal file gives
 * MACHO_E_UNSUPPORTED: pick a slice with macho_slices() first. */
int macho_parse(struct macho_file *m, const void *data, size_t size);

/* Copies the LC_UUID into uuid. Returns 0 or MACHO_E_NOTFOUND. */
int macho_uuid(const struct macho_file *m, uint8_t uuid[16]);

/* The first LC_SEGMENT_64 named name (e.g. "__TEXT"), or MACHO_E_NOTFOUND. */
int macho_segment_by_name(const struct macho_file *m, const char *name, struct macho_segment *out);
/* Calls cb for each LC_SEGMENT_64 in load-command order, stopping early if
 * cb returns non-zero (which is returned). Returns 0 otherwise. */
int macho_segments(const struct macho_file *m, int (*cb)(void *ctx, const struct macho_segment *s),
		   void *ctx);
/* Calls cb for each section of each LC_SEGMENT_64, in order (so the n'th
 * call is section ordinal n of nlist's n_sect), stopping early if cb returns
 * non-zero (which is returned). Returns 0 otherwise. */
int macho_sections(const struct macho_file *m, int (*cb)(void *ctx, const struct macho_section *s),
		   void *ctx);

/* Calls cb for each defined (N_SECT), non-debugging (no N_STAB bits) symbol
 * of LC_SYMTAB, in table order, stopping early if cb returns non-zero (which
 * is returned). Symbols without a name NUL-terminated within the string
 * table are skipped. Returns 0, MACHO_E_NOTFOUND if there is no LC_SYMTAB,
 * or MACHO_E_CORRUPT if the symbol or string table is not within the
 * buffer. */
int macho_symbols(const struct macho_file *m, int (*cb)(void *ctx, const struct macho_symbol *s),
		  void *ctx);

#endif
