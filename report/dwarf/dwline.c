/*
 * dwline.c: the line table header, its directory and file tables (the
 * DWARF 5 entry formats, or the DWARF 2-4 lists), and the line program's
 * state machine, all read through the bounded cursor of common/bytes.h.
 */
#include "report/dwarf/dwline.h"

#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/diag.h"
#include "common/dwconst.h"
#include "report/dwarf/dwdie.h"
#include "report/dwarf/dwspan.h"

/* No table has more directories or files than this. */
#define MAX_ENTRIES (1u << 20)

struct entry {
	const char *path;
	uint64_t dir;
	const uint8_t *md5;     /* DW_LNCT_MD5's 16 bytes, or NULL */
};

/* One DWARF 5 entry field of this form: a string if it is one (or NULL),
 * a number in *num otherwise. A form that cannot be read poisons the
 * cursor. The strx forms need a unit's string offsets, which a line table
 * cannot name: they read as no string. */
static const char *field(struct dwsect_table *t, struct cursor *c, uint64_t form, unsigned offsize,
			 uint64_t *num, const uint8_t **data16)
{
	struct dwdie_attr a;

	*num = 0;
	if (form > UINT32_MAX) {
		cursor_fail(c);
		return NULL;
	}
	if (dwdie_value(c, (uint32_t)form, 0, 8, offsize, 5, &a) < 0)
		return NULL;
	switch (a.form) {
	case DW_FORM_string: return (const char *)a.data;
	case DW_FORM_line_strp: return dwsect_string(t, ".debug_line_str", a.val);
	case DW_FORM_strp: return dwsect_string(t, ".debug_str", a.val);
	case DW_FORM_udata: case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4:
	case DW_FORM_data8:
		*num = a.val;
		return NULL;
	case DW_FORM_data16:
		*data16 = a.data;
		return NULL;
	default:
		return NULL;
	}
}

/* Reads a DWARF 5 directory or file name table: its entry format, then
 * its entries. Caller frees *out. */
static int read_table(struct dwsect_table *t, struct cursor *c, unsigned offsize,
		      struct entry **out, size_t *n)
{
	uint64_t fmt[2 * 255], count;
	uint8_t nfmt = 0;

	*out = NULL;
	*n = 0;
	cursor_u8(c, &nfmt);
	for (unsigned k = 0; k < nfmt; k++) {
		cursor_uleb(c, &fmt[2 * k]);
		cursor_uleb(c, &fmt[2 * k + 1]);
	}
	cursor_uleb(c, &count);
	if (!c->ok || count > MAX_ENTRIES || count > c->left)
		return -1;
	*out = xcalloc(count ? count : 1, sizeof(**out));
	for (uint64_t i = 0; i < count && c->ok; i++) {
		for (unsigned k = 0; k < nfmt; k++) {
			uint64_t num;
			const uint8_t *data16 = NULL;
			const char *str = field(t, c, fmt[2 * k + 1], offsize, &num, &data16);

			if (fmt[2 * k] == DW_LNCT_path)
				(*out)[i].path = str;
			else if (fmt[2 * k] == DW_LNCT_directory_index)
				(*out)[i].dir = num;
			else if (fmt[2 * k] == DW_LNCT_MD5)
				(*out)[i].md5 = data16;
		}
	}
	*n = (size_t)count;
	return c->ok ? 0 : -1;
}

/* Reads a DWARF 2-4 directory or file name list, which ends with an empty
 * name; a file also has its directory, time and size. */
static int read_list(struct cursor *c, int files, struct entry **out, size_t *n)
{
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	while (c->ok) {
		const char *name;
		uint64_t ignored;

		if (cursor_cstr(c, &name) < 0 || !name[0])
			break;
		if (*n >= MAX_ENTRIES) {
			cursor_fail(c);
			break;
		}
		*out = xgrow(*out, &cap, *n + 1, sizeof(**out));
		(*out)[*n].path = name;
		(*out)[*n].dir = 0;
		(*out)[*n].md5 = NULL;
		if (files) {
			cursor_uleb(c, &(*out)[*n].dir);
			cursor_uleb(c, &ignored);
			cursor_uleb(c, &ignored);
		}
		(*n)++;
	}
	return c->ok ? 0 : -1;
}

static int is_absolute(const char *p)
{
	return p[0] == '/';
}

/* Appends one component to the path from start on in b the way LLVM's
 * sys::path::append does: one '/' between components, none doubled. */
static void path_append(struct buf *b, size_t start, const char *c)
{
	if (b->len > start && b->data[b->len - 1] == '/') {
		while (*c == '/')
			c++;
	} else if (b->len > start && *c != '/') {
		buf_addch(b, '/');
	}
	buf_addstr(b, c);
}

/* The unit's file table as full paths, joined as LLVM joins them for
 * llvm-symbolizer: an absolute name stands; otherwise its directory (entry
 * dir of the list, counted from 0 in DWARF 5 and from 1 before, where 0
 * is the compilation directory), preceded by DW_AT_comp_dir unless that
 * directory is absolute. */
static void make_files(struct dwline *l, unsigned version, const char *comp_dir,
		       const struct entry *dirs, size_t ndirs, const struct entry *files, size_t nfiles)
{
	l->files = xcalloc(nfiles ? nfiles : 1, sizeof(*l->files));
	l->md5s = xcalloc(nfiles ? nfiles : 1, sizeof(*l->md5s));
	l->nfiles = (uint32_t)nfiles;
	l->filebase = version >= 5 ? 0 : 1;
	for (size_t i = 0; i < nfiles; i++) {
		const char *name = files[i].path, *dir = "";
		uint64_t k = files[i].dir;
		size_t start = l->paths.len;

		l->files[i] = SIZE_MAX;
		l->md5s[i] = files[i].md5;
		if (!name)
			continue;
		if (!is_absolute(name)) {
			if (version >= 5 ? k < ndirs : k >= 1 && k <= ndirs)
				dir = dirs[version >= 5 ? k : k - 1].path;
			if (!dir)
				dir = "";
			if (comp_dir && comp_dir[0] && !is_absolute(dir))
				path_append(&l->paths, start, comp_dir);
			if (dir[0])
				path_append(&l->paths, start, dir);
		}
		path_append(&l->paths, start, name);
		buf_addch(&l->paths, 0);
		l->files[i] = start;
	}
}

struct state {
	uint64_t addr;
	uint32_t file, line, column;
	int end;
};

static void reset(struct state *st)
{
	memset(st, 0, sizeof(*st));
	st->file = 1;
	st->line = 1;
}

/* Called for each row the program emits: the previous row covers up to
 * this one's address, if that is higher, within one sequence. */
static void emit(struct dwline *l, size_t *cap, struct state *prev, const struct state *st)
{
	if (!prev->end && st->addr > prev->addr) {
		l->rows = xgrow(l->rows, cap, l->nrows + 1, sizeof(*l->rows));
		l->rows[l->nrows++] = (struct dwline_row){ .lo = prev->addr, .hi = st->addr,
							   .file = prev->file, .line = prev->line,
							   .column = prev->column };
	}
	*prev = *st;
}

/* The header fields the program needs. */
struct header {
	unsigned min_inst, range, opbase, addr_size;
	int line_base;
	uint8_t oplen[256];
};

/* Runs a line program (DWARF 2 to 5 opcodes) into l's rows. */
static void run(struct dwline *l, struct cursor *c, const struct header *h)
{
	struct state st, prev;
	size_t cap = 0;

	reset(&st);
	prev = st;
	prev.end = 1;
	while (c->ok && c->left > 0) {
		uint8_t op;
		uint64_t v;
		int64_t sv;

		cursor_u8(c, &op);
		if (op >= h->opbase) {
			unsigned adj = op - h->opbase;

			st.addr += (uint64_t)(adj / h->range) * h->min_inst;
			st.line += (uint32_t)(h->line_base + (int)(adj % h->range));
			emit(l, &cap, &prev, &st);
			continue;
		}
		switch (op) {
		case 0: {
			/* An extended opcode, in its own length. */
			const uint8_t *p;
			struct cursor ext;
			uint8_t sub = 0;

			if (cursor_uleb(c, &v) < 0 || v == 0 || v > c->left)
				return;
			cursor_take(c, (size_t)v, &p);
			cursor_init(&ext, p, (size_t)v);
			cursor_u8(&ext, &sub);
			if (sub == DW_LNE_end_sequence) {
				st.end = 1;
				emit(l, &cap, &prev, &st);
				reset(&st);
			} else if (sub == DW_LNE_set_address) {
				unsigned w = (unsigned)(v - 1);

				if (cursor_le(&ext, w == 4 || w == 8 ? w : h->addr_size, &st.addr) < 0)
					return;
			}
			break;
		}
		case DW_LNS_copy:
			emit(l, &cap, &prev, &st);
			break;
		case DW_LNS_advance_pc:
			cursor_uleb(c, &v);
			st.addr += v * h->min_inst;
			break;
		case DW_LNS_advance_line:
			cursor_sleb(c, &sv);
			st.line += (uint32_t)sv;
			break;
		case DW_LNS_set_file:
			cursor_uleb(c, &v);
			st.file = (uint32_t)v;
			break;
		case DW_LNS_set_column:
			cursor_uleb(c, &v);
			st.column = (uint32_t)v;
			break;
		case DW_LNS_const_add_pc:
			st.addr += (uint64_t)((255 - h->opbase) / h->range) * h->min_inst;
			break;
		case DW_LNS_fixed_advance_pc:
			cursor_le(c, 2, &v);
			st.addr += v;
			break;
		default:
			/* negate_stmt, basic_block, prologue_end, epilogue_begin,
			 * set_isa and any unknown standard opcode: skip its
			 * arguments, which the header counts. */
			for (unsigned i = 0; i < h->oplen[op] && c->ok; i++)
				cursor_uleb(c, &v);
			break;
		}
	}
}

static int cmp_row(const void *a, const void *b)
{
	const struct dwline_row *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

void dwline_read(struct dwline *l, struct dwsect_table *t, uint64_t off, const char *comp_dir)
{
	size_t i = dwsect_index(t, ".debug_line");
	const uint8_t *data = i ? dwsect_data(t, i) : NULL, *p;
	struct cursor c, unit, hdr;
	struct header h = { .addr_size = 8 };
	struct entry *dirs = NULL, *files = NULL;
	size_t ndirs = 0, nfiles = 0;
	uint64_t len, hlen, v;
	unsigned offsize, version;
	int ok;

	memset(l, 0, sizeof(*l));
	buf_init(&l->paths);
	if (!data || off >= t->v[i].size)
		return;
	cursor_init(&c, data + off, (size_t)(t->v[i].size - off));
	if (dwdie_length(&c, &len, &offsize) < 0)
		return;
	cursor_take(&c, (size_t)len, &p);
	cursor_init(&unit, p, (size_t)len);
	cursor_le(&unit, 2, &v);
	version = (unsigned)v;
	if (version < 2 || version > 5)
		return;
	if (version >= 5) {
		cursor_le(&unit, 1, &v);
		h.addr_size = (unsigned)v;
		cursor_skip(&unit, 1);  /* segment selector size */
	}
	/* The header ends where the program begins. */
	cursor_le(&unit, offsize, &hlen);
	if (!unit.ok || hlen > unit.left)
		return;
	cursor_take(&unit, (size_t)hlen, &p);
	cursor_init(&hdr, p, (size_t)hlen);
	cursor_le(&hdr, 1, &v);
	h.min_inst = (unsigned)v;
	if (version >= 4)
		cursor_skip(&hdr, 1);   /* maximum operations per instruction */
	cursor_skip(&hdr, 1);           /* default_is_stmt */
	cursor_le(&hdr, 1, &v);
	h.line_base = (int8_t)v;
	cursor_le(&hdr, 1, &v);
	h.range = (unsigned)v;
	cursor_le(&hdr, 1, &v);
	h.opbase = (unsigned)v;
	for (unsigned k = 1; k < h.opbase; k++)
		cursor_u8(&hdr, &h.oplen[k]);
	if (!hdr.ok || h.range == 0 || h.opbase == 0)
		return;
	if (version >= 5)
		ok = read_table(t, &hdr, offsize, &dirs, &ndirs) == 0 &&
		     read_table(t, &hdr, offsize, &files, &nfiles) == 0;
	else
		ok = read_list(&hdr, 0, &dirs, &ndirs) == 0 && read_list(&hdr, 1, &files, &nfiles) == 0;
	if (ok)
		make_files(l, version, comp_dir, dirs, ndirs, files, nfiles);
	free(dirs);
	free(files);
	run(l, &unit, &h);
	/* Sequences come in any order; rows within one ascend. */
	if (l->nrows > 1)
		qsort(l->rows, l->nrows, sizeof(*l->rows), cmp_row);
}

void dwline_release(struct dwline *l)
{
	free(l->rows);
	free(l->files);
	free(l->md5s);
	buf_release(&l->paths);
	memset(l, 0, sizeof(*l));
}

const struct dwline_row *dwline_find(const struct dwline *l, uint64_t addr)
{
	return dwspan_search(l->rows, l->nrows, sizeof(*l->rows), addr);
}

/* The index of file number file in l's tables, or SIZE_MAX. */
static size_t file_index(const struct dwline *l, uint64_t file)
{
	uint64_t k;

	if (!l->files || (int64_t)file < l->filebase)
		return SIZE_MAX;
	k = file - (uint64_t)l->filebase;
	if (k >= l->nfiles || l->files[k] == SIZE_MAX)
		return SIZE_MAX;
	return (size_t)k;
}

const char *dwline_file(const struct dwline *l, uint64_t file)
{
	size_t k = file_index(l, file);

	return k == SIZE_MAX ? NULL : (const char *)l->paths.data + l->files[k];
}

const uint8_t *dwline_file_md5(const struct dwline *l, uint64_t file)
{
	size_t k = file_index(l, file);

	return k == SIZE_MAX ? NULL : l->md5s[k];
}
