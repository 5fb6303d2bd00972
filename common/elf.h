/*
 * elf.h: a small, defensive reader for 64-bit little-endian ELF files held in
 * memory (x86_64 and aarch64).
 *
 * Shared by prof-record (build-ids and load segments of mapped files) and
 * prof-report (symbol tables, debug links). Every offset and size in the
 * file is checked against the buffer before use; a hostile file gives
 * ELF_E_CORRUPT, never an out-of-bounds read. Nothing here allocates: every
 * pointer returned is borrowed from the caller's buffer.
 */
#ifndef COMMON_ELF_H
#define COMMON_ELF_H

#include <stddef.h>
#include <stdint.h>

enum elf_error {
	ELF_E_NOTELF = -2000, /* no ELF magic */
	ELF_E_UNSUPPORTED,    /* not ELF64 little-endian */
	ELF_E_CORRUPT,        /* a header, table or string is out of bounds */
	ELF_E_NOTFOUND,       /* the requested section or note is absent */
};

struct elf_file {
	const uint8_t *data;
	size_t size;
	uint16_t type;        /* ET_EXEC, ET_DYN, ... */
	uint16_t machine;     /* EM_X86_64, EM_AARCH64, ... */
	uint64_t phoff, shoff;
	uint16_t phnum, shnum, shstrndx;
};

struct elf_segment {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz;
};

struct elf_section {
	const char *name;     /* borrowed; "" if unnamed */
	uint32_t type;
	uint64_t flags, addr, offset, size, link, entsize;
	const uint8_t *data;  /* NULL for SHT_NOBITS */
};

struct elf_symbol {
	const char *name;     /* borrowed, NUL-terminated within the file */
	uint64_t value, size;
	uint8_t type;         /* STT_FUNC, STT_OBJECT, ... */
	uint8_t bind;
	uint16_t shndx;
};

/* Describes a negative elf_* return value. */
const char *elf_strerror(int err);
/* Validates the header and the bounds of the program and section header
 * tables of size bytes at data (borrowed for the life of e). */
int elf_parse(struct elf_file *e, const void *data, size_t size);
/* The i'th program header. Returns 0 or ELF_E_CORRUPT. */
int elf_segment(const struct elf_file *e, unsigned i, struct elf_segment *out);
/* The i'th section header, with its name and data checked. */
int elf_section(const struct elf_file *e, unsigned i, struct elf_section *out);
/* The first section with this name, or ELF_E_NOTFOUND. */
int elf_section_by_name(const struct elf_file *e, const char *name, struct elf_section *out);
/* The NT_GNU_BUILD_ID note, from PT_NOTE segments or SHT_NOTE sections.
 * *id is borrowed. */
int elf_build_id(const struct elf_file *e, const uint8_t **id, size_t *len);
/* The .gnu_debuglink file name (borrowed) and CRC. */
int elf_debuglink(const struct elf_file *e, const char **name, uint32_t *crc);
/* Calls cb for every symbol in .symtab and then .dynsym, stopping early if
 * cb returns non-zero (which is returned). Symbols with bad names are
 * skipped. */
int elf_symbols(const struct elf_file *e, int (*cb)(void *ctx, const struct elf_symbol *sym),
		void *ctx);

#endif
