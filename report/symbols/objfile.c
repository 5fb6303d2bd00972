/*
 * objfile.c: one face for ELF and Mach-O files.
 *
 * The report side needs the same few things from every file: is it the
 * object the trace recorded (by build-id or LC_UUID), where is its DWARF,
 * which functions does its symbol table name, where are the bytes of its
 * code, and, for ELF, where does its debug link point. ELF answers from
 * section headers; Mach-O from load
 * commands, with DWARF in the __DWARF segment under "__debug_*" names that
 * are translated to the ELF names the DWARF readers know. A universal file holds
 * several objects, and the one whose UUID matches is chosen; the others
 * are never read.
 */
#include "report/symbols/objfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/diag.h"
#include "format/trace_ident.h"

/* A file larger than this is refused rather than mapped. */
#define OBJFILE_MAX_FILE ((uint64_t)4 << 30)
/* Slices of a universal file looked at; real ones hold two or three. */
#define OBJFILE_MAX_SLICES 16
/* Mach-O section types that hold no file data. */
#define MACHO_S_ZEROFILL 0x1u
#define MACHO_S_GB_ZEROFILL 0xcu
#define MACHO_S_THREAD_LOCAL_ZEROFILL 0x12u

/* Maps path read-only if it is a non-empty regular file of sane size.
 * Returns 0, or a heap string saying why not. O_NONBLOCK keeps a FIFO from
 * blocking the open; fstat then refuses it. */
static char *map_file(const char *path, const uint8_t **data, size_t *size)
{
	struct stat st;
	void *p;
	int fd;
	char *why = NULL;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return xstrdup(strerror(errno));
	if (fstat(fd, &st) < 0) {
		why = xstrdup(strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		why = xstrdup("not a regular file");
		goto out;
	}
	if (st.st_size == 0 || (uint64_t)st.st_size > OBJFILE_MAX_FILE) {
		why = xstrdup(st.st_size ? "file too large" : "empty file");
		goto out;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		why = xasprintf("cannot map: %s", strerror(errno));
		goto out;
	}
	*data = p;
	*size = st.st_size;
out:
	close(fd);
	return why;
}

void objfile_hex(char *out, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static const char *kind_word(int kind)
{
	switch (kind) {
	case TRACE_IDENT_MACHO_UUID: return "UUID";
	case TRACE_IDENT_GO_BUILD_ID: return "Go build ID";
	case TRACE_IDENT_CONTENT: return "content hash";
	default: return "build-id";
	}
}

static int read_mapped(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct objfile *of = ctx;

	if (off > of->size || len > of->size - off)
		return ELF_E_CORRUPT;
	memcpy(buf, of->data + off, len);
	return 0;
}

/* Reads the identity of the object at data into of: for ELF, the one
 * format/trace_ident.h prefers. */
static int parse_object(struct objfile *of, int macho, const uint8_t *data, size_t size)
{
	size_t len;
	int err;

	of->is_macho = macho;
	of->data = data;
	of->size = size;
	if (!macho) {
		if ((err = elf_parse(&of->elf, data, size)) < 0)
			return err;
		err = trace_ident_of_elf(&of->elf, size, read_mapped, of, &of->kind, of->ident, &len);
		if (err == ELF_E_NOTFOUND)
			return OBJFILE_E_NOIDENT;
		if (err < 0)
			return err;
		of->ident_len = len;
	} else {
		of->kind = TRACE_IDENT_MACHO_UUID;
		if ((err = macho_parse(&of->macho, data, size)) < 0)
			return err;
		err = macho_uuid(&of->macho, of->ident);
		if (err == MACHO_E_NOTFOUND)
			return OBJFILE_E_NOIDENT;
		if (err < 0)
			return err;
		of->ident_len = 16;
	}
	return 0;
}

static int matches(const struct objfile *of, int kind, const uint8_t *ident, size_t len)
{
	return !ident || (of->kind == kind && of->ident_len == len && !memcmp(of->ident, ident, len));
}

static int find_dwarf(void *ctx, const struct macho_section *s)
{
	(void)ctx;
	return !strcmp(s->segname, "__DWARF") && !strcmp(s->sectname, "__debug_info") && s->data;
}

static int has_dwarf(const struct objfile *of)
{
	struct elf_section sec;

	if (!of->is_macho)
		return elf_section_by_name(&of->elf, ".debug_info", &sec) == 0 &&
		       sec.type != ELF_SHT_NOBITS && sec.size > 0;
	return macho_sections(&of->macho, find_dwarf, NULL) > 0;
}

int objfile_open(struct objfile *of, const char *path, int kind, const uint8_t *ident,
		 size_t ident_len, char **why)
{
	struct macho_slice slices[OBJFILE_MAX_SLICES];
	size_t nslices = 0, i;
	int err = 0;

	memset(of, 0, sizeof(*of));
	*why = map_file(path, &of->map, &of->mapsize);
	if (*why)
		return -EINVAL;
	if (of->mapsize >= ELF_MAGIC_LEN && !memcmp(of->map, ELF_MAGIC, ELF_MAGIC_LEN)) {
		err = parse_object(of, 0, of->map, of->mapsize);
	} else if ((err = macho_slices(of->map, of->mapsize, slices, OBJFILE_MAX_SLICES,
				       &nslices)) == 0) {
		err = OBJFILE_E_NOIDENT;
		for (i = 0; i < nslices && i < OBJFILE_MAX_SLICES; i++) {
			err = parse_object(of, 1, of->map + slices[i].offset, slices[i].size);
			if (err == 0 && matches(of, kind, ident, ident_len))
				break;
		}
	} else {
		err = OBJFILE_E_FORMAT;
	}
	if (err == 0 && !matches(of, kind, ident, ident_len)) {
		char have[2 * TRACE_MAX_IDENT + 1];

		objfile_hex(have, of->ident, of->ident_len);
		if (of->kind == kind)
			*why = xasprintf("%s mismatch (the file has %s%s)", kind_word(kind), have,
					 nslices > 1 ? " and others" : "");
		else if (of->is_macho != (kind == TRACE_IDENT_MACHO_UUID))
			*why = xasprintf("a %s file, not %s", of->is_macho ? "Mach-O" : "ELF",
					 kind == TRACE_IDENT_MACHO_UUID ? "Mach-O" : "ELF");
		else
			*why = xasprintf("it has a %s, where the recording has a %s", kind_word(of->kind),
					 kind_word(kind));
		err = OBJFILE_E_MISMATCH;
	} else if (err < 0) {
		*why = err == OBJFILE_E_NOIDENT || err == OBJFILE_E_FORMAT
			       ? xstrdup(prof_strerror(err))
			       : xasprintf("not usable: %s", prof_strerror(err));
	}
	if (err < 0) {
		objfile_release(of);
		return err;
	}
	of->has_dwarf = has_dwarf(of);
	return 0;
}

void objfile_release(struct objfile *of)
{
	if (of->map)
		munmap((void *)of->map, of->mapsize);
	memset(of, 0, sizeof(*of));
}

int objfile_identities(const char *path,
		       void (*cb)(void *ctx, int kind, const uint8_t *ident, size_t len),
		       void *ctx)
{
	struct macho_slice slices[OBJFILE_MAX_SLICES];
	struct objfile of;
	size_t nslices = 0, i;
	char *why;

	memset(&of, 0, sizeof(of));
	why = map_file(path, &of.map, &of.mapsize);
	if (why) {
		free(why);
		return -EINVAL;
	}
	if (of.mapsize >= ELF_MAGIC_LEN && !memcmp(of.map, ELF_MAGIC, ELF_MAGIC_LEN)) {
		if (parse_object(&of, 0, of.map, of.mapsize) == 0)
			cb(ctx, of.kind, of.ident, of.ident_len);
	} else if (macho_slices(of.map, of.mapsize, slices, OBJFILE_MAX_SLICES, &nslices) == 0) {
		for (i = 0; i < nslices && i < OBJFILE_MAX_SLICES; i++)
			if (parse_object(&of, 1, of.map + slices[i].offset, slices[i].size) == 0)
				cb(ctx, of.kind, of.ident, of.ident_len);
	}
	objfile_release(&of);
	return 0;
}

/* --- sections -------------------------------------------------------- */

struct section_list {
	struct dwinfo_section *v;
	size_t n, cap;
};

static void add_section(struct section_list *l, const char *name, const uint8_t *data,
			uint64_t size, uint64_t addr, int compressed)
{
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct dwinfo_section){ .name = name, .data = data, .size = size,
						.addr = addr, .compressed = compressed };
}

/* Mach-O names are "__debug_info" in segment __DWARF; the DWARF readers want
 * ".debug_info". The translated names are static strings, so the list
 * needs no storage of its own for them. */
static const char *const macho_dwarf_names[] = {
	".debug_abbrev", ".debug_addr", ".debug_aranges", ".debug_info", ".debug_line",
	".debug_line_str", ".debug_loc", ".debug_loclists", ".debug_names", ".debug_ranges",
	".debug_rnglists", ".debug_str", ".debug_str_offsets", ".debug_types", ".debug_frame",
	".debug_macinfo", ".debug_macro", ".debug_pubnames", ".debug_pubtypes",
};

static int add_macho_section(void *ctx, const struct macho_section *s)
{
	struct section_list *l = ctx;
	size_t i;

	if (strcmp(s->segname, "__DWARF") || !s->data)
		return 0;
	for (i = 0; i < sizeof(macho_dwarf_names) / sizeof(*macho_dwarf_names); i++) {
		/* Mach-O cuts section names at 16 bytes: "__debug_str_offs". */
		char want[17];

		snprintf(want, sizeof(want), "__%s", macho_dwarf_names[i] + 1);
		if (!strcmp(s->sectname, want))
			add_section(l, macho_dwarf_names[i], s->data, s->size, s->addr, 0);
	}
	return 0;
}

int objfile_dwarf_sections(const struct objfile *of, struct dwinfo_section **secs, size_t *n)
{
	struct section_list l = { 0 };
	struct elf_section sec;
	int err = 0;

	if (!of->is_macho) {
		for (unsigned i = 1; i < of->elf.shnum; i++) {
			if ((err = elf_section(&of->elf, i, &sec)) < 0)
				break;
			if (strncmp(sec.name, ".debug_", 7) || !sec.data)
				continue;
			add_section(&l, sec.name, sec.data, sec.size, sec.addr,
				    !!(sec.flags & ELF_SHF_COMPRESSED));
		}
	} else {
		err = macho_sections(&of->macho, add_macho_section, &l);
	}
	if (err < 0) {
		free(l.v);
		return err;
	}
	*secs = l.v;
	*n = l.n;
	return 0;
}

/* --- symbols --------------------------------------------------------- */

struct symbol_ctx {
	const struct objfile *of;
	void (*cb)(void *ctx, const struct objfile_symbol *sym);
	void *ctx;
	struct macho_section sects[255]; /* Mach-O: by n_sect - 1 (n_sect is a u8) */
	unsigned nsect;
};

/* Functions, and the labels of code (STT_NOTYPE in an executable section)
 * that assembly leaves, such as __wrap_main inside glibc's arm64 _start, as
 * llvm-symbolizer and perf take them; but not ARM's mapping symbols ($x,
 * $d), which mark code and data rather than name them. */
static int elf_symbol(void *ctx, const struct elf_symbol *sym)
{
	struct symbol_ctx *c = ctx;
	struct elf_section sec;
	struct objfile_symbol s;
	bool label = sym->type == ELF_STT_NOTYPE, in_section;

	if (sym->type != ELF_STT_FUNC && sym->type != ELF_STT_GNU_IFUNC && !label)
		return 0;
	if (sym->shndx == ELF_SHN_UNDEF || sym->shndx >= ELF_SHN_LORESERVE || !sym->name[0])
		return 0;
	in_section = elf_section(&c->of->elf, sym->shndx, &sec) == 0 && sec.addr <= sym->value &&
		     sym->value - sec.addr < sec.size;
	if (label && (!in_section || !(sec.flags & ELF_SHF_EXECINSTR) || sym->name[0] == '$'))
		return 0;
	s = (struct objfile_symbol){ .name = sym->name, .start = sym->value, .size = sym->size,
				     .limit = in_section ? sec.addr + sec.size : UINT64_MAX };
	c->cb(c->ctx, &s);
	return 0;
}

static int note_section(void *ctx, const struct macho_section *s)
{
	struct symbol_ctx *c = ctx;

	if (c->nsect < sizeof(c->sects) / sizeof(*c->sects))
		c->sects[c->nsect++] = *s;
	return 0;
}

static int macho_symbol(void *ctx, const struct macho_symbol *sym)
{
	struct symbol_ctx *c = ctx;
	const struct macho_section *sec;
	struct objfile_symbol s;

	/* Only symbols in code sections name functions. */
	if (sym->sect == 0 || sym->sect > c->nsect)
		return 0;
	sec = &c->sects[sym->sect - 1];
	if (strcmp(sec->segname, "__TEXT") || !sym->name[0] || sym->value < sec->addr ||
	    sym->value - sec->addr >= sec->size)
		return 0;
	if (!(sec->flags & 0x80000000u)) /* S_ATTR_PURE_INSTRUCTIONS */
		return 0;
	s = (struct objfile_symbol){ .name = sym->name, .start = sym->value, .size = 0,
				     .limit = sec->addr + sec->size };
	c->cb(c->ctx, &s);
	return 0;
}

int objfile_symbols(const struct objfile *of,
		    void (*cb)(void *ctx, const struct objfile_symbol *sym), void *ctx)
{
	struct symbol_ctx c = { .of = of, .cb = cb, .ctx = ctx };
	int err;

	if (!of->is_macho) {
		err = elf_symbols(&of->elf, elf_symbol, &c);
		return err == ELF_E_NOTFOUND ? 0 : err;
	}
	if ((err = macho_sections(&of->macho, note_section, &c)) < 0)
		return err;
	err = macho_symbols(&of->macho, macho_symbol, &c);
	return err == MACHO_E_NOTFOUND ? 0 : err;
}

const char *objfile_debuglink(const struct objfile *of)
{
	const char *name;
	uint32_t crc;

	if (of->is_macho || elf_debuglink(&of->elf, &name, &crc) < 0)
		return NULL;
	return name;
}

/* --- code ------------------------------------------------------------ */

/* Bounds have been checked by the parsers in common/: a section's data,
 * when it has any, lies within the file. */
static size_t section_code(uint64_t sec_addr, uint64_t sec_size, const uint8_t *data,
			   uint64_t addr, uint64_t size, const uint8_t **code)
{
	uint64_t left;

	if (!data || addr < sec_addr || addr - sec_addr >= sec_size)
		return 0;
	left = sec_size - (addr - sec_addr);
	*code = data + (addr - sec_addr);
	return size < left ? size : left;
}

struct code_ctx {
	uint64_t addr, size;
	const uint8_t **code;
	size_t n;
};

static int macho_code(void *ctx, const struct macho_section *s)
{
	struct code_ctx *c = ctx;

	if (strcmp(s->segname, "__TEXT"))
		return 0;
	c->n = section_code(s->addr, s->size, s->data, c->addr, c->size, c->code);
	return c->n > 0;
}

size_t objfile_code(const struct objfile *of, uint64_t addr, uint64_t size, const uint8_t **code)
{
	struct code_ctx c = { addr, size, code, 0 };
	struct elf_section sec;

	if (!size)
		return 0;
	if (of->is_macho) {
		macho_sections(&of->macho, macho_code, &c);
		return c.n;
	}
	/* The allocated sections of a linked file do not overlap. */
	for (unsigned i = 1; i < of->elf.shnum && !c.n; i++)
		if (elf_section(&of->elf, i, &sec) == 0 && sec.type == ELF_SHT_PROGBITS &&
		    (sec.flags & ELF_SHF_ALLOC) && !(sec.flags & ELF_SHF_COMPRESSED))
			c.n = section_code(sec.addr, sec.size, sec.data, addr, size, code);
	return c.n;
}

int objfile_arch(const struct objfile *of)
{
	if (of->is_macho) {
		switch (of->macho.cputype) {
		case MACHO_CPU_TYPE_X86_64: return TRACE_ARCH_X86_64;
		case MACHO_CPU_TYPE_ARM64: return TRACE_ARCH_ARM64;
		default: return TRACE_ARCH_UNKNOWN;
		}
	}
	switch (of->elf.machine) {
	case ELF_EM_X86_64: return TRACE_ARCH_X86_64;
	case ELF_EM_AARCH64: return TRACE_ARCH_ARM64;
	default: return TRACE_ARCH_UNKNOWN;
	}
}
