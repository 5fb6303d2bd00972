/*
 * elf.h: a small, defensive reader for 64-bit little-endian ELF files held in
 * memory (x86_64 and aarch64).
 *
 * Shared by prof-record (build-ids and load segments of mapped files) and
 * prof-report (symbol tables, debug links). Every offset and size in the
 * file is checked against the buffer before use; a hostile file gives
 * ELF_E_CORRUPT (an ELF_E_* code of common/errors.h), never an
 * out-of-bounds read. Nothing here allocates: every pointer returned is
 * borrowed from the caller's buffer.
 *
 * The constants below are the ELF values this reader and its callers use,
 * under this module's prefix, so that neither program needs a host's
 * <elf.h> (macOS has none).
 */
#ifndef COMMON_ELF_H
#define COMMON_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "common/errors.h"

#define ELF_MAGIC "\177ELF"
#define ELF_MAGIC_LEN 4

/* e_ident[EI_CLASS] and e_ident[EI_DATA] of the one kind read here. */
#define ELF_CLASS64 2
#define ELF_DATA2LSB 1

#define ELF_EM_X86_64 62
#define ELF_EM_AARCH64 183

#define ELF_PT_NOTE 4

#define ELF_SHT_PROGBITS 1
#define ELF_SHT_SYMTAB 2
#define ELF_SHT_NOTE 7
#define ELF_SHT_NOBITS 8
#define ELF_SHT_DYNSYM 11
#define ELF_SHF_ALLOC 0x2
#define ELF_SHF_EXECINSTR 0x4
#define ELF_SHF_COMPRESSED 0x800

#define ELF_SHN_UNDEF 0
#define ELF_SHN_LORESERVE 0xff00
#define ELF_SHN_XINDEX 0xffff

#define ELF_STT_NOTYPE 0
#define ELF_STT_FUNC 2
#define ELF_STT_GNU_IFUNC 10

#define ELF_NT_GNU_BUILD_ID 3
#define ELF_NT_GO_BUILD_ID 4      /* in a note named "Go" */

#define ELF_PT_LOAD 1

struct elf_file {
	const uint8_t *data;
	size_t size;
	uint16_t type;        /* ET_EXEC (2), ET_DYN (3), ... */
	uint16_t machine;     /* EM_X86_64 (62), EM_AARCH64 (183), ... */
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
	const uint8_t *data;  /* NULL for ELF_SHT_NOBITS */
};

struct elf_symbol {
	const char *name;     /* borrowed, NUL-terminated within the file */
	uint64_t value, size;
	uint8_t type;         /* ELF_STT_FUNC, STT_OBJECT (1), ... */
	uint8_t bind;
	uint16_t shndx;
};

/* Validates the header and the bounds of the program and section header
 * tables of size bytes at data (borrowed for the life of e). */
int elf_parse(struct elf_file *e, const void *data, size_t size);
/* The i'th program header. Returns 0 or ELF_E_CORRUPT. */
int elf_segment(const struct elf_file *e, unsigned i, struct elf_segment *out);
/* The i'th section header, with its name and data checked. */
int elf_section(const struct elf_file *e, unsigned i, struct elf_section *out);
/* The first section with this name, or ELF_E_NOTFOUND. */
int elf_section_by_name(const struct elf_file *e, const char *name, struct elf_section *out);
/* The first note named name (with its NUL; Go pads it with more) of this
 * type, from PT_NOTE segments, then SHT_NOTE sections: *desc (borrowed) and
 * its *len bytes, never 0. Returns 0, ELF_E_NOTFOUND or ELF_E_CORRUPT. */
int elf_note(const struct elf_file *e, const char *name, uint32_t type, const uint8_t **desc, size_t *len);
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
