/*
 * elf.c: just enough of ELF64 little-endian to find build-ids, load
 * segments, symbols and debug links, from bytes that may be hostile.
 *
 * Everything is read field by field with get_le*() from offsets that have
 * been checked against the buffer, never by casting a struct onto it, so a
 * truncated or forged file yields ELF_E_CORRUPT and nothing worse. Nothing
 * is allocated: names and note payloads are pointers into the caller's
 * buffer, which must outlive their use.
 */
#include "elf.h"
#include "bytes.h"

#include <string.h>

#define EHDR_SIZE 64
#define PHDR_SIZE 56
#define SHDR_SIZE 64
#define SYM_SIZE 24

/* Is [off, off + len) inside a buffer of size bytes? */
static int in_bounds(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

int elf_parse(struct elf_file *e, const void *data, size_t size)
{
	const uint8_t *p = data;
	uint16_t phentsize, shentsize;

	memset(e, 0, sizeof(*e));
	if (size < ELF_MAGIC_LEN || memcmp(p, ELF_MAGIC, ELF_MAGIC_LEN) != 0)
		return ELF_E_NOTELF;
	if (size < EHDR_SIZE)
		return ELF_E_CORRUPT;
	if (p[4] != ELF_CLASS64 || p[5] != ELF_DATA2LSB)
		return ELF_E_UNSUPPORTED;
	e->data = p;
	e->size = size;
	e->type = get_le16(p + 16);
	e->machine = get_le16(p + 18);
	e->phoff = get_le64(p + 32);
	e->shoff = get_le64(p + 40);
	phentsize = get_le16(p + 54);
	e->phnum = get_le16(p + 56);
	shentsize = get_le16(p + 58);
	e->shnum = get_le16(p + 60);
	e->shstrndx = get_le16(p + 62);
	if (e->phnum && (phentsize != PHDR_SIZE || !in_bounds(size, e->phoff, (uint64_t)e->phnum * PHDR_SIZE)))
		return ELF_E_CORRUPT;
	if (e->shoff == 0)
		e->shnum = 0;
	if (e->shnum && (shentsize != SHDR_SIZE || !in_bounds(size, e->shoff, (uint64_t)e->shnum * SHDR_SIZE)))
		return ELF_E_CORRUPT;
	if (e->shstrndx == ELF_SHN_XINDEX || e->shstrndx >= e->shnum)
		e->shstrndx = 0;  /* no usable section names */
	return 0;
}

int elf_segment(const struct elf_file *e, unsigned i, struct elf_segment *out)
{
	const uint8_t *p;

	if (i >= e->phnum)
		return ELF_E_CORRUPT;
	p = e->data + e->phoff + (uint64_t)i * PHDR_SIZE;
	out->type = get_le32(p);
	out->flags = get_le32(p + 4);
	out->offset = get_le64(p + 8);
	out->vaddr = get_le64(p + 16);
	out->filesz = get_le64(p + 32);
	out->memsz = get_le64(p + 40);
	return 0;
}

static uint64_t segment_align(const struct elf_file *e, unsigned i)
{
	return get_le64(e->data + e->phoff + (uint64_t)i * PHDR_SIZE + 48);
}

/* Reads the raw header of section i, without resolving its name. */
static void raw_section(const struct elf_file *e, unsigned i, struct elf_section *out,
			uint32_t *name_off)
{
	const uint8_t *p = e->data + e->shoff + (uint64_t)i * SHDR_SIZE;

	*name_off = get_le32(p);
	out->name = "";
	out->type = get_le32(p + 4);
	out->flags = get_le64(p + 8);
	out->addr = get_le64(p + 16);
	out->offset = get_le64(p + 24);
	out->size = get_le64(p + 32);
	out->link = get_le32(p + 40);
	out->entsize = get_le64(p + 56);
	out->data = NULL;
}

/* A NUL-terminated string at off inside [base, base + size), or NULL. */
static const char *string_at(const uint8_t *base, uint64_t size, uint64_t off)
{
	if (off >= size)
		return NULL;
	if (!memchr(base + off, 0, size - off))
		return NULL;
	return (const char *)base + off;
}

int elf_section(const struct elf_file *e, unsigned i, struct elf_section *out)
{
	uint32_t name_off;

	if (i >= e->shnum)
		return ELF_E_CORRUPT;
	raw_section(e, i, out, &name_off);
	if (out->type != ELF_SHT_NOBITS && out->size) {
		if (!in_bounds(e->size, out->offset, out->size))
			return ELF_E_CORRUPT;
		out->data = e->data + out->offset;
	}
	if (e->shstrndx && i != 0) {
		struct elf_section strs;
		uint32_t dummy;
		raw_section(e, e->shstrndx, &strs, &dummy);
		if (strs.type != ELF_SHT_NOBITS && in_bounds(e->size, strs.offset, strs.size)) {
			const char *s = string_at(e->data + strs.offset, strs.size, name_off);
			if (!s)
				return ELF_E_CORRUPT;
			out->name = s;
		}
	}
	return 0;
}

int elf_section_by_name(const struct elf_file *e, const char *name, struct elf_section *out)
{
	for (unsigned i = 1; i < e->shnum; i++) {
		struct elf_section s;
		if (elf_section(e, i, &s) < 0)
			continue;
		if (strcmp(s.name, name) == 0) {
			*out = s;
			return 0;
		}
	}
	return ELF_E_NOTFOUND;
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Looks for a note of this name and type in n bytes of notes padded to
 * align. */
static int scan_notes(const uint8_t *p, uint64_t n, uint64_t align, const char *want, uint32_t want_type,
		      const uint8_t **desc_out, size_t *len)
{
	uint64_t pos = 0, want_len = strlen(want) + 1;

	if (align != 8)
		align = 4;
	while (n - pos >= 12) {
		uint32_t namesz = get_le32(p + pos), descsz = get_le32(p + pos + 4);
		uint32_t type = get_le32(p + pos + 8);
		uint64_t name_pad = ((uint64_t)namesz + align - 1) & ~(align - 1);
		uint64_t desc_pad = ((uint64_t)descsz + align - 1) & ~(align - 1);
		uint64_t name = pos + 12, desc = name + name_pad;

		if (name_pad > n - name || descsz > n - desc)
			return ELF_E_CORRUPT;
		/* Go's linker writes its name padded with NULs into namesz. */
		if (type == want_type && namesz >= want_len && memcmp(p + name, want, want_len) == 0 &&
		    all_zero(p + name + want_len, namesz - want_len)) {
			if (descsz == 0)
				return ELF_E_CORRUPT;
			*desc_out = p + desc;
			*len = descsz;
			return 0;
		}
		if (desc_pad > n - desc)
			break;
		pos = desc + desc_pad;
	}
	return ELF_E_NOTFOUND;
}

int elf_note(const struct elf_file *e, const char *name, uint32_t type, const uint8_t **desc, size_t *len)
{
	int corrupt = 0;

	for (unsigned i = 0; i < e->phnum; i++) {
		struct elf_segment s;
		int r;
		if (elf_segment(e, i, &s) < 0 || s.type != ELF_PT_NOTE)
			continue;
		if (!in_bounds(e->size, s.offset, s.filesz)) {
			corrupt = 1;
			continue;
		}
		r = scan_notes(e->data + s.offset, s.filesz, segment_align(e, i), name, type, desc, len);
		if (r == 0)
			return 0;
		if (r == ELF_E_CORRUPT)
			corrupt = 1;
	}
	for (unsigned i = 1; i < e->shnum; i++) {
		struct elf_section s;
		const uint8_t *sh;
		int r;
		if (elf_section(e, i, &s) < 0 || s.type != ELF_SHT_NOTE || !s.data)
			continue;
		sh = e->data + e->shoff + (uint64_t)i * SHDR_SIZE;
		r = scan_notes(s.data, s.size, get_le64(sh + 48), name, type, desc, len);
		if (r == 0)
			return 0;
		if (r == ELF_E_CORRUPT)
			corrupt = 1;
	}
	return corrupt ? ELF_E_CORRUPT : ELF_E_NOTFOUND;
}

int elf_build_id(const struct elf_file *e, const uint8_t **id, size_t *len)
{
	return elf_note(e, "GNU", ELF_NT_GNU_BUILD_ID, id, len);
}

int elf_debuglink(const struct elf_file *e, const char **name, uint32_t *crc)
{
	struct elf_section s;
	const uint8_t *nul;
	uint64_t off;
	int r;

	r = elf_section_by_name(e, ".gnu_debuglink", &s);
	if (r < 0)
		return r;
	if (!s.data)
		return ELF_E_CORRUPT;
	nul = memchr(s.data, 0, s.size);
	if (!nul || nul == s.data)
		return ELF_E_CORRUPT;
	off = ((uint64_t)(nul - s.data) + 1 + 3) & ~(uint64_t)3;
	if (off > s.size || s.size - off < 4)
		return ELF_E_CORRUPT;
	*name = (const char *)s.data;
	*crc = get_le32(s.data + off);
	return 0;
}

static int symbols_of(const struct elf_file *e, uint32_t type,
		      int (*cb)(void *ctx, const struct elf_symbol *sym), void *ctx)
{
	for (unsigned i = 1; i < e->shnum; i++) {
		struct elf_section s, strs;
		uint64_t count;

		if (elf_section(e, i, &s) < 0 || s.type != type || !s.data)
			continue;
		if (s.link == 0 || s.link >= e->shnum || elf_section(e, (unsigned)s.link, &strs) < 0 || !strs.data)
			continue;  /* no usable names: skip the table */
		count = s.size / SYM_SIZE;
		for (uint64_t k = 1; k < count; k++) {
			const uint8_t *p = s.data + k * SYM_SIZE;
			struct elf_symbol sym;
			const char *name = string_at(strs.data, strs.size, get_le32(p));
			int r;

			if (!name)
				continue;
			sym.name = name;
			sym.type = p[4] & 0xf;
			sym.bind = p[4] >> 4;
			sym.shndx = get_le16(p + 6);
			sym.value = get_le64(p + 8);
			sym.size = get_le64(p + 16);
			r = cb(ctx, &sym);
			if (r)
				return r;
		}
		return 0;
	}
	return 0;
}

int elf_symbols(const struct elf_file *e, int (*cb)(void *ctx, const struct elf_symbol *sym),
		void *ctx)
{
	int r = symbols_of(e, ELF_SHT_SYMTAB, cb, ctx);
	if (r)
		return r;
	return symbols_of(e, ELF_SHT_DYNSYM, cb, ctx);
}
