/*
 * macho.c: just enough of Mach-O to find an image's UUID, segments,
 * sections and nlist symbols, and the slices of a universal file, from bytes
 * that may be hostile.
 *
 * A thin 64-bit file is a 32-byte header followed by sizeofcmds bytes of
 * load commands, each a (cmd, cmdsize) pair and its payload; everything else
 * (code, symbol and string tables, DWARF) is reached through offsets in
 * those commands. macho_parse() walks the command chain once and checks it,
 * and every accessor walks it again through the same checked step, so no
 * command is ever read past sizeofcmds. The data that commands point at is
 * checked only when it is used, which is what lets prof-record parse a
 * header and commands it has read from a process's memory. A universal file
 * is a big-endian table of (cputype, offset, size) slices in front of thin
 * files. Fields are read one by one with get_le*() (or the big-endian
 * helpers below), never by casting a struct onto the buffer, and nothing
 * is allocated.
 */
#include "macho.h"
#include "bytes.h"

#include <string.h>

#define MH_MAGIC 0xfeedfaceu
#define MH_MAGIC_64 0xfeedfacfu
#define MH_CIGAM 0xcefaedfeu      /* big-endian files, as read little-endian */
#define MH_CIGAM_64 0xcffaedfeu
#define FAT_MAGIC 0xcafebabeu     /* universal headers are big-endian */
#define FAT_MAGIC_64 0xcafebabfu

#define HEADER_SIZE 28
#define HEADER_64_SIZE 32
#define FAT_HEADER_SIZE 8
#define FAT_ARCH_SIZE 20
#define FAT_ARCH_64_SIZE 32
/* A Java class file also starts with 0xcafebabe, then its version, whose
 * major part is at least 45; no universal file has that many slices. */
#define FAT_MAX_ARCHS 44

#define LC_SYMTAB 0x2u
#define LC_SEGMENT_64 0x19u
#define LC_UUID 0x1bu
#define LOAD_COMMAND_SIZE 8
#define SEGMENT_64_SIZE 72
#define SECTION_64_SIZE 80
#define SYMTAB_SIZE 24
#define UUID_SIZE 24
#define NLIST_64_SIZE 16

#define S_ZEROFILL 0x1u
#define S_GB_ZEROFILL 0xcu
#define S_THREAD_LOCAL_ZEROFILL 0x12u
#define N_STAB 0xe0u
#define N_TYPE 0x0eu
#define N_SECT 0x0eu

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

/* Is [off, off + len) inside a buffer of size bytes? */
static int in_bounds(uint64_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

/* A fixed-width name field as a NUL-terminated string. */
static void copy_name(char out[17], const uint8_t *field)
{
	memcpy(out, field, 16);
	out[16] = 0;
}

static int universal_slices(const uint8_t *p, size_t size, int wide, struct macho_slice *out,
			    size_t max, size_t *n)
{
	uint32_t count;
	uint64_t entry = wide ? FAT_ARCH_64_SIZE : FAT_ARCH_SIZE, table_end;

	if (size < FAT_HEADER_SIZE)
		return MACHO_E_CORRUPT;
	count = get_be32(p + 4);
	if (count > FAT_MAX_ARCHS)
		return MACHO_E_NOTMACHO;
	if (count == 0)
		return MACHO_E_CORRUPT;
	table_end = FAT_HEADER_SIZE + count * entry;
	if (table_end > size)
		return MACHO_E_CORRUPT;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *a = p + FAT_HEADER_SIZE + i * entry;
		struct macho_slice s;

		s.cputype = get_be32(a);
		s.cpusubtype = get_be32(a + 4);
		s.offset = wide ? get_be64(a + 8) : get_be32(a + 8);
		s.size = wide ? get_be64(a + 16) : get_be32(a + 12);
		if (s.offset < table_end || !in_bounds(size, s.offset, s.size))
			return MACHO_E_CORRUPT;
		if (i < max)
			out[i] = s;
	}
	*n = count;
	return 0;
}

int macho_slices(const void *data, size_t size, struct macho_slice *out, size_t max, size_t *n)
{
	const uint8_t *p = data;
	uint32_t magic;
	struct macho_slice s = { 0, 0, 0, size };

	*n = 0;
	if (size < 4)
		return MACHO_E_NOTMACHO;
	magic = get_be32(p);
	if (magic == FAT_MAGIC || magic == FAT_MAGIC_64)
		return universal_slices(p, size, magic == FAT_MAGIC_64, out, max, n);
	magic = get_le32(p);
	switch (magic) {
	case MH_MAGIC:
	case MH_MAGIC_64:
		if (size < (magic == MH_MAGIC ? HEADER_SIZE : HEADER_64_SIZE))
			return MACHO_E_CORRUPT;
		s.cputype = get_le32(p + 4);
		s.cpusubtype = get_le32(p + 8);
		break;
	case MH_CIGAM:
	case MH_CIGAM_64:
		if (size < (magic == MH_CIGAM ? HEADER_SIZE : HEADER_64_SIZE))
			return MACHO_E_CORRUPT;
		s.cputype = get_be32(p + 4);
		s.cpusubtype = get_be32(p + 8);
		break;
	default:
		return MACHO_E_NOTMACHO;
	}
	if (max > 0)
		out[0] = s;
	*n = 1;
	return 0;
}

/*
 * The load-command walk. Each step checks that the next command's header
 * and its whole cmdsize lie within sizeofcmds (which parse checked against
 * the buffer), that cmdsize keeps the 8-byte alignment 64-bit files require
 * (so a cmdsize of 0 cannot loop), and that the commands this file reads are
 * large enough for their fields.
 */
struct command_walk {
	const struct macho_file *m;
	uint32_t index;
	uint64_t off;     /* from the start of the file */
};

struct command {
	const uint8_t *p; /* the command, cmdsize bytes */
	uint32_t cmd, size;
};

static void walk_init(struct command_walk *w, const struct macho_file *m)
{
	w->m = m;
	w->index = 0;
	w->off = HEADER_64_SIZE;
}

/* Returns 1 with the next command in *c, 0 after the last, or
 * MACHO_E_CORRUPT. */
static int walk_next(struct command_walk *w, struct command *c)
{
	const struct macho_file *m = w->m;
	uint64_t end = (uint64_t)HEADER_64_SIZE + m->sizeofcmds;

	if (w->index >= m->ncmds)
		return 0;
	if (end > m->size || w->off > end || end - w->off < LOAD_COMMAND_SIZE)
		return MACHO_E_CORRUPT;
	c->p = m->data + w->off;
	c->cmd = get_le32(c->p);
	c->size = get_le32(c->p + 4);
	if (c->size < LOAD_COMMAND_SIZE || c->size % 8 != 0 || c->size > end - w->off)
		return MACHO_E_CORRUPT;
	switch (c->cmd) {
	case LC_SEGMENT_64:
		if (c->size < SEGMENT_64_SIZE ||
		    get_le32(c->p + 64) > (c->size - SEGMENT_64_SIZE) / SECTION_64_SIZE)
			return MACHO_E_CORRUPT;
		break;
	case LC_SYMTAB:
		if (c->size < SYMTAB_SIZE)
			return MACHO_E_CORRUPT;
		break;
	case LC_UUID:
		if (c->size < UUID_SIZE)
			return MACHO_E_CORRUPT;
		break;
	}
	w->index++;
	w->off += c->size;
	return 1;
}

/* walk_next() up to the next command of kind cmd: 1 with it in *c, 0
 * after the last, or MACHO_E_CORRUPT. */
static int walk_to(struct command_walk *w, struct command *c, uint32_t cmd)
{
	int r;

	while ((r = walk_next(w, c)) > 0 && c->cmd != cmd)
		;
	return r;
}

int macho_parse(struct macho_file *m, const void *data, size_t size)
{
	const uint8_t *p = data;
	struct command_walk w;
	struct command c;
	uint32_t magic;
	int r;

	memset(m, 0, sizeof(*m));
	if (size < 4)
		return MACHO_E_NOTMACHO;
	magic = get_le32(p);
	if (magic == MH_MAGIC || magic == MH_CIGAM || magic == MH_CIGAM_64 ||
	    get_be32(p) == FAT_MAGIC || get_be32(p) == FAT_MAGIC_64)
		return MACHO_E_UNSUPPORTED;
	if (magic != MH_MAGIC_64)
		return MACHO_E_NOTMACHO;
	if (size < HEADER_64_SIZE)
		return MACHO_E_CORRUPT;
	m->cputype = get_le32(p + 4);
	m->cpusubtype = get_le32(p + 8);
	if (m->cputype != MACHO_CPU_TYPE_ARM64 && m->cputype != MACHO_CPU_TYPE_X86_64)
		return MACHO_E_UNSUPPORTED;
	m->filetype = get_le32(p + 12);
	m->ncmds = get_le32(p + 16);
	m->sizeofcmds = get_le32(p + 20);
	m->flags = get_le32(p + 24);
	m->data = p;
	m->size = size;
	/* Each command takes at least 8 bytes, so a huge ncmds fails here
	 * rather than after a long walk. */
	if (m->sizeofcmds > size - HEADER_64_SIZE || m->ncmds > m->sizeofcmds / LOAD_COMMAND_SIZE)
		return MACHO_E_CORRUPT;
	walk_init(&w, m);
	while ((r = walk_next(&w, &c)) > 0)
		;
	return r;
}

int macho_uuid(const struct macho_file *m, uint8_t uuid[16])
{
	struct command_walk w;
	struct command c;
	int r;

	walk_init(&w, m);
	r = walk_to(&w, &c, LC_UUID);
	if (r <= 0)
		return r < 0 ? r : MACHO_E_NOTFOUND;
	memcpy(uuid, c.p + 8, 16);
	return 0;
}

static void read_segment(const uint8_t *p, struct macho_segment *out)
{
	copy_name(out->name, p + 8);
	out->vmaddr = get_le64(p + 24);
	out->vmsize = get_le64(p + 32);
	out->fileoff = get_le64(p + 40);
	out->filesize = get_le64(p + 48);
	out->nsects = get_le32(p + 64);
}

int macho_segments(const struct macho_file *m, int (*cb)(void *ctx, const struct macho_segment *s),
		   void *ctx)
{
	struct command_walk w;
	struct command c;
	int r;

	walk_init(&w, m);
	while ((r = walk_to(&w, &c, LC_SEGMENT_64)) > 0) {
		struct macho_segment seg;
		read_segment(c.p, &seg);
		r = cb(ctx, &seg);
		if (r)
			return r;
	}
	return r;
}

struct segment_search {
	const char *name;
	struct macho_segment *out;
};

static int match_segment(void *ctx, const struct macho_segment *s)
{
	struct segment_search *q = ctx;
	if (strcmp(s->name, q->name) != 0)
		return 0;
	*q->out = *s;
	return 1;
}

int macho_segment_by_name(const struct macho_file *m, const char *name, struct macho_segment *out)
{
	struct segment_search q = { name, out };
	int r = macho_segments(m, match_segment, &q);
	if (r < 0)
		return r;
	return r ? 0 : MACHO_E_NOTFOUND;
}

/* Section k of the segment command at p: its bytes are used only if they
 * lie within the segment's part of the file, which is within the buffer. */
static void read_section(const struct macho_file *m, const struct macho_segment *seg,
			 const uint8_t *p, struct macho_section *out)
{
	uint32_t type;

	copy_name(out->sectname, p);
	copy_name(out->segname, p + 16);
	out->addr = get_le64(p + 32);
	out->size = get_le64(p + 40);
	out->offset = get_le32(p + 48);
	out->flags = get_le32(p + 64);
	out->data = NULL;
	type = out->flags & MACHO_SECTION_TYPE;
	if (type == S_ZEROFILL || type == S_GB_ZEROFILL || type == S_THREAD_LOCAL_ZEROFILL || !out->size)
		return;
	if (out->offset < seg->fileoff || !in_bounds(seg->filesize, out->offset - seg->fileoff, out->size))
		return;
	if (!in_bounds(m->size, out->offset, out->size))
		return;
	out->data = m->data + out->offset;
}

int macho_sections(const struct macho_file *m, int (*cb)(void *ctx, const struct macho_section *s),
		   void *ctx)
{
	struct command_walk w;
	struct command c;
	int r;

	walk_init(&w, m);
	while ((r = walk_to(&w, &c, LC_SEGMENT_64)) > 0) {
		struct macho_segment seg;
		read_segment(c.p, &seg);
		/* walk_next() checked that nsects sections fit in cmdsize. */
		for (uint32_t k = 0; k < seg.nsects; k++) {
			struct macho_section sect;
			read_section(m, &seg, c.p + SEGMENT_64_SIZE + (uint64_t)k * SECTION_64_SIZE, &sect);
			r = cb(ctx, &sect);
			if (r)
				return r;
		}
	}
	return r;
}

int macho_symbols(const struct macho_file *m, int (*cb)(void *ctx, const struct macho_symbol *s),
		  void *ctx)
{
	struct command_walk w;
	struct command c;
	uint32_t symoff, nsyms, stroff, strsize;
	const uint8_t *strs;
	int r;

	walk_init(&w, m);
	r = walk_to(&w, &c, LC_SYMTAB);
	if (r <= 0)
		return r < 0 ? r : MACHO_E_NOTFOUND;
	symoff = get_le32(c.p + 8);
	nsyms = get_le32(c.p + 12);
	stroff = get_le32(c.p + 16);
	strsize = get_le32(c.p + 20);
	if (!in_bounds(m->size, symoff, (uint64_t)nsyms * NLIST_64_SIZE) ||
	    !in_bounds(m->size, stroff, strsize))
		return MACHO_E_CORRUPT;
	strs = m->data + stroff;
	for (uint32_t i = 0; i < nsyms; i++) {
		const uint8_t *p = m->data + symoff + (uint64_t)i * NLIST_64_SIZE;
		uint32_t strx = get_le32(p);
		struct macho_symbol sym;

		sym.type = p[4];
		if ((sym.type & N_STAB) || (sym.type & N_TYPE) != N_SECT)
			continue;
		/* Index 0 is the empty name by convention. */
		if (strx == 0 || strx >= strsize || !memchr(strs + strx, 0, strsize - strx) || !strs[strx])
			continue;
		sym.name = (const char *)strs + strx;
		sym.sect = p[5];
		sym.desc = get_le16(p + 6);
		sym.value = get_le64(p + 8);
		r = cb(ctx, &sym);
		if (r)
			return r;
	}
	return 0;
}
