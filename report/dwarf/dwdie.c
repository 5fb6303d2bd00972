/*
 * dwdie.c: units, abbreviations, DIEs and attribute values, read in place.
 *
 * A DIE is an abbreviation code and the values its abbreviation lists, in
 * order, each in a form that says how it is stored. Almost every DIE of a
 * unit is a type, a variable or a parameter that a symbolizer only steps
 * over, so the cost that matters is stepping: each abbreviation whose
 * forms all have a fixed size (for the unit's address and offset sizes)
 * carries that size, and its DIEs are passed in one move; the others are
 * walked form by form. Abbreviation tables are kept by (offset, address
 * size, offset size, version 2 or not), the things a form's size depends
 * on, and parsed only as far as the codes looked up: compilers number
 * them from 1 in order, so code n is an index once n of them are read.
 *
 * Values are decoded only when asked for, and checked against the
 * section they point into: strings through .debug_str, .debug_line_str
 * and .debug_str_offsets, addresses through .debug_addr, range lists in
 * .debug_ranges and .debug_rnglists (whose table headers are read once).
 * A bad value is no value; a bad DIE ends the walk of its unit.
 */
#include "report/dwarf/dwdie.h"

#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/hmap.h"
#include "common/dwconst.h"

/* More than any compiler writes; a table past these ends there. */
#define MAX_ABBREVS (1u << 20)
#define MAX_SPECS (1u << 24)
#define MAX_INDIRECT 4

/* The sections read, by their index in sect[]. */
enum {
	S_INFO, S_ABBREV, S_STR, S_LINE_STR, S_STR_OFFSETS, S_ADDR, S_RANGES, S_RNGLISTS, S__N
};
static const char *const section_names[S__N] = {
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets",
	".debug_addr", ".debug_ranges", ".debug_rnglists",
};

struct spec {
	uint32_t name, form;
	int64_t implicit;        /* DW_FORM_implicit_const's value */
	int32_t size;            /* bytes, or -1 if the form's size varies */
};

struct abbrev {
	uint64_t code;
	uint32_t tag;
	uint8_t children;
	uint32_t first, n;       /* its specs */
	int64_t fixed;           /* the size of all its values, or -1 */
};

struct dwdie_abbrevs {
	struct abbrev *v;        /* in the table's order */
	size_t n, cap;
	struct spec *specs;
	size_t nspecs, capspecs;
	struct by_code {
		uint64_t code;
		uint32_t i;      /* into v */
	} *sorted;               /* by code, once done, if not dense */
	struct cursor c;         /* what is left to parse */
	uint8_t addr_size, offset_size, version;
	uint8_t dense;           /* v[i].code == i + 1 so far */
	uint8_t done;            /* parsed to its end, or to damage */
};

struct rnglists_table {
	uint64_t off, offsets, lists, end;
	uint32_t count;
	uint8_t offsize;
};

struct dwdie_file {
	struct dwsect_table *t;
	struct {
		const uint8_t *p;
		uint64_t n;
		int asked;
	} sect[S__N];
	struct hmap tables;      /* (abbrev offset, sizes) -> index in abbrevs */
	struct dwdie_abbrevs **abbrevs;
	size_t nabbrevs, capabbrevs;
	struct rnglists_table *rl;
	size_t nrl;
	int rl_read;
};

struct dwdie_file *dwdie_new(struct dwsect_table *t)
{
	struct dwdie_file *f = xcalloc(1, sizeof(*f));

	f->t = t;
	hmap_init(&f->tables);
	return f;
}

void dwdie_free(struct dwdie_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nabbrevs; i++) {
		if (f->abbrevs[i]) {
			free(f->abbrevs[i]->v);
			free(f->abbrevs[i]->specs);
			free(f->abbrevs[i]->sorted);
			free(f->abbrevs[i]);
		}
	}
	free(f->abbrevs);
	hmap_release(&f->tables);
	free(f->rl);
	free(f);
}

/* The bytes of a section, inflated on the first ask; NULL if absent or
 * broken. */
static const uint8_t *section(struct dwdie_file *f, int s, uint64_t *size)
{
	if (!f->sect[s].asked) {
		size_t i = dwsect_index(f->t, section_names[s]);

		f->sect[s].asked = 1;
		f->sect[s].p = i ? dwsect_data(f->t, i) : NULL;
		f->sect[s].n = f->sect[s].p ? f->t->v[i].size : 0;
	}
	*size = f->sect[s].n;
	return f->sect[s].p;
}

/* A cursor over a section from off, or a poisoned one. */
static void cursor_at(struct dwdie_file *f, int s, uint64_t off, struct cursor *c)
{
	uint64_t size;
	const uint8_t *p = section(f, s, &size);

	cursor_init(c, p, 0);
	if (!p || off > size)
		cursor_fail(c);
	else
		cursor_init(c, p + off, (size_t)(size - off));
}

/* ---- forms ---- */

/* The size of a form's value if it is fixed, else -1. */
static int32_t form_size(uint32_t form, unsigned addr_size, unsigned offset_size, unsigned version)
{
	switch (form) {
	case DW_FORM_flag_present: case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return (int32_t)addr_size;
	case DW_FORM_ref_addr:
		return (int32_t)(version == 2 ? addr_size : offset_size);
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt: case DW_FORM_strp_sup:
		return (int32_t)offset_size;
	default:
		return -1;
	}
}

int dwdie_value(struct cursor *c, uint32_t form, int64_t imp, unsigned addr_size,
		unsigned offset_size, unsigned version, struct dwdie_attr *a)
{
	int32_t size;
	int64_t sv;
	uint64_t v;

	for (int hops = 0; form == DW_FORM_indirect; hops++) {
		if (hops == MAX_INDIRECT || cursor_uleb(c, &v) < 0 || v > UINT32_MAX)
			return cursor_fail(c);
		form = (uint32_t)v;
	}
	a->form = form;
	a->data = NULL;
	a->val = 0;
	switch (form) {
	case DW_FORM_implicit_const:
		a->val = (uint64_t)imp;
		return c->ok ? 0 : -1;
	case DW_FORM_sdata:
		if (cursor_sleb(c, &sv) < 0)
			return -1;
		a->val = (uint64_t)sv;
		return 0;
	case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
	case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index: case DW_FORM_loclistx:
	case DW_FORM_rnglistx:
		return cursor_uleb(c, &a->val);
	case DW_FORM_string:
		return cursor_cstr(c, (const char **)&a->data);
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4:
		if (cursor_le(c, form == DW_FORM_block1 ? 1 : form == DW_FORM_block2 ? 2 : 4, &a->val) < 0)
			return -1;
		goto block;
	case DW_FORM_block: case DW_FORM_exprloc:
		if (cursor_uleb(c, &a->val) < 0)
			return -1;
	block:
		if (a->val > c->left)
			return cursor_fail(c);
		return cursor_take(c, (size_t)a->val, &a->data);
	case DW_FORM_data16:
		return cursor_take(c, 16, &a->data);
	default:
		size = form_size(form, addr_size, offset_size, version);
		if (size < 0)
			return cursor_fail(c);
		if (size == 0)
			return c->ok ? 0 : -1;
		return cursor_le(c, (unsigned)size, &a->val);
	}
}

int dwdie_length(struct cursor *c, uint64_t *len, unsigned *offset_size)
{
	*offset_size = 4;
	if (cursor_le(c, 4, len) < 0)
		return -1;
	if (*len == 0xffffffffu) {
		*offset_size = 8;
		if (cursor_le(c, 8, len) < 0)
			return -1;
	} else if (*len >= 0xfffffff0u) {
		return cursor_fail(c);
	}
	return *len > c->left ? cursor_fail(c) : 0;
}

/* ---- abbreviations ---- */

/* Parses the next abbreviation of t. Returns 0, or -1 at the end of the
 * table or at damage (t is then done, with what came before). */
static int parse_one(struct dwdie_abbrevs *t)
{
	uint64_t code, tag;
	uint8_t children;
	struct abbrev *ab;

	if (t->done)
		return -1;
	if (cursor_uleb(&t->c, &code) < 0 || code == 0 || t->n == MAX_ABBREVS)
		goto end;
	cursor_uleb(&t->c, &tag);
	cursor_u8(&t->c, &children);
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	ab = &t->v[t->n];
	ab->code = code;
	ab->tag = tag > UINT32_MAX ? UINT32_MAX : (uint32_t)tag;
	ab->children = children;
	ab->first = (uint32_t)t->nspecs;
	ab->n = 0;
	ab->fixed = 0;
	for (;;) {
		uint64_t name = 0, form = 0;
		struct spec *sp;

		cursor_uleb(&t->c, &name);
		cursor_uleb(&t->c, &form);
		if (!t->c.ok || t->nspecs == MAX_SPECS) {
			t->nspecs = ab->first;
			goto end;
		}
		if (name == 0 && form == 0)
			break;
		t->specs = xgrow(t->specs, &t->capspecs, t->nspecs + 1, sizeof(*t->specs));
		sp = &t->specs[t->nspecs++];
		sp->name = name > UINT32_MAX ? UINT32_MAX : (uint32_t)name;
		sp->form = form > UINT32_MAX ? UINT32_MAX : (uint32_t)form;
		sp->implicit = 0;
		if (form == DW_FORM_implicit_const)
			cursor_sleb(&t->c, &sp->implicit);
		sp->size = form_size(sp->form, t->addr_size, t->offset_size, t->version);
		if (sp->size < 0)
			ab->fixed = -1;
		else if (ab->fixed >= 0)
			ab->fixed += sp->size;
		ab->n++;
	}
	if (code != t->n + 1)
		t->dense = 0;
	t->n++;
	return 0;
end:
	t->done = 1;
	return -1;
}

static int cmp_code(const void *x, const void *y)
{
	const struct by_code *a = x, *b = y;

	return a->code < b->code ? -1 : a->code > b->code;
}

/* The table at off for units like u, its parse begun, or NULL if the
 * offset is outside .debug_abbrev. */
static struct dwdie_abbrevs *abbrevs_for(struct dwdie_file *f, uint64_t off,
					 const struct dwdie_unit *u)
{
	uint64_t key = u->addr_size | (uint64_t)u->offset_size << 8 | (uint64_t)(u->version == 2) << 16;
	int added;
	uint64_t *slot = hmap_put(&f->tables, off, key, 0, &added);
	struct dwdie_abbrevs *t;
	struct cursor c;

	if (!added)
		return f->abbrevs[*slot];
	*slot = f->nabbrevs;
	f->abbrevs = xgrow(f->abbrevs, &f->capabbrevs, f->nabbrevs + 1, sizeof(*f->abbrevs));
	f->abbrevs[f->nabbrevs++] = NULL;
	cursor_at(f, S_ABBREV, off, &c);
	if (!c.ok || !c.left)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->c = c;
	t->addr_size = u->addr_size;
	t->offset_size = u->offset_size;
	t->version = u->version == 2 ? 2 : 3;
	t->dense = 1;
	f->abbrevs[f->nabbrevs - 1] = t;
	return t;
}

/* The index in t->v of the abbreviation with this code, or -1. */
static int64_t find_abbrev(struct dwdie_abbrevs *t, uint64_t code)
{
	size_t lo = 0, hi;

	while (t->dense && t->n < code && parse_one(t) == 0)
		;
	if (t->dense)
		return code >= 1 && code <= t->n ? (int64_t)(code - 1) : -1;
	while (parse_one(t) == 0)
		;
	if (!t->sorted) {
		t->sorted = xmalloc((t->n ? t->n : 1) * sizeof(*t->sorted));
		for (size_t i = 0; i < t->n; i++)
			t->sorted[i] = (struct by_code){ t->v[i].code, (uint32_t)i };
		qsort(t->sorted, t->n, sizeof(*t->sorted), cmp_code);
	}
	hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->sorted[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && t->sorted[lo].code == code ? (int64_t)t->sorted[lo].i : -1;
}

/* ---- DIEs ---- */

/* The offset in .debug_info of where c stands. */
static uint64_t info_offset(struct dwdie_file *f, const struct cursor *c)
{
	uint64_t size;

	return (uint64_t)(c->p - section(f, S_INFO, &size));
}

int dwdie_begin(struct dwdie_file *f, const struct dwdie_unit *u, uint64_t off, struct dwdie *d)
{
	uint64_t size, code;
	const uint8_t *sec = section(f, S_INFO, &size);
	const struct abbrev *ab;
	int64_t i;

	memset(d, 0, sizeof(*d));
	d->off = off;
	if (!sec || !u->abbrevs || off < u->die || off >= u->end || u->end > size)
		return -1;
	cursor_init(&d->c, sec + off, (size_t)(u->end - off));
	if (cursor_uleb(&d->c, &code) < 0)
		return -1;
	if (code == 0) {
		d->next = info_offset(f, &d->c);
		return 0;
	}
	if ((i = find_abbrev(u->abbrevs, code)) < 0)
		return -1;
	ab = &u->abbrevs->v[i];
	d->ab = (uint32_t)i + 1;
	d->tag = ab->tag;
	d->children = ab->children;
	return 0;
}

int dwdie_attr(struct dwdie_file *f, const struct dwdie_unit *u, struct dwdie *d,
	       struct dwdie_attr *a)
{
	const struct abbrev *ab = d->ab ? &u->abbrevs->v[d->ab - 1] : NULL;
	const struct spec *s;

	if (!d->c.ok)
		return -1;
	if (!ab || d->attr == ab->n) {
		if (ab && !d->next)
			d->next = info_offset(f, &d->c);
		return 0;
	}
	s = &u->abbrevs->specs[ab->first + d->attr++];
	a->name = s->name;
	return dwdie_value(&d->c, s->form, s->implicit, u->addr_size, u->offset_size, u->version,
			   a) < 0 ? -1 : 1;
}

int dwdie_skip(struct dwdie_file *f, const struct dwdie_unit *u, struct dwdie *d)
{
	const struct abbrev *ab = d->ab ? &u->abbrevs->v[d->ab - 1] : NULL;
	struct dwdie_attr a;
	int r;

	if (ab && d->attr == 0 && ab->fixed >= 0) {
		if (cursor_skip(&d->c, (uint64_t)ab->fixed) < 0)
			return -1;
		d->attr = ab->n;
	}
	while ((r = dwdie_attr(f, u, d, &a)) > 0)
		;
	return r;
}

uint64_t dwdie_sibling(struct dwdie_file *f, const struct dwdie_unit *u, struct dwdie *d)
{
	struct dwdie_attr a;
	uint64_t sib = 0, off;
	int r;

	while ((r = dwdie_attr(f, u, d, &a)) > 0)
		if (a.name == DW_AT_sibling && a.form != DW_FORM_ref_addr && dwdie_ref(u, &a, &off) == 0)
			sib = off;
	if (r < 0 || sib <= d->off || sib < d->next || sib >= u->end)
		return 0;
	return sib;
}

/* ---- units ---- */

int dwdie_unit_header(struct dwdie_file *f, uint64_t off, struct dwdie_unit *u)
{
	uint64_t len, v;
	struct cursor c, hdr;
	const uint8_t *p;
	unsigned offset_size;

	memset(u, 0, sizeof(*u));
	cursor_at(f, S_INFO, off, &c);
	u->off = off;
	if (dwdie_length(&c, &len, &offset_size) < 0)
		return -1;
	u->offset_size = (uint8_t)offset_size;
	u->end = info_offset(f, &c) + len;
	cursor_take(&c, (size_t)len, &p);
	cursor_init(&hdr, p, (size_t)len);
	cursor_le(&hdr, 2, &v);
	u->version = (uint16_t)v;
	if (u->version < 2 || u->version > 5)
		return -1;
	if (u->version >= 5) {
		cursor_le(&hdr, 1, &v);
		u->type = (uint8_t)v;
		cursor_le(&hdr, 1, &v);
		u->addr_size = (uint8_t)v;
		cursor_le(&hdr, u->offset_size, &u->abbrev_off);
		if (u->type == DW_UT_skeleton || u->type == DW_UT_split_compile)
			cursor_skip(&hdr, 8);
		else if (u->type == DW_UT_type || u->type == DW_UT_split_type)
			cursor_skip(&hdr, 8 + (uint64_t)u->offset_size);
	} else {
		u->type = DW_UT_compile;
		cursor_le(&hdr, u->offset_size, &u->abbrev_off);
		cursor_le(&hdr, 1, &v);
		u->addr_size = (uint8_t)v;
	}
	if (!hdr.ok || (u->addr_size != 2 && u->addr_size != 4 && u->addr_size != 8))
		return -1;
	u->die = info_offset(f, &hdr);
	return 0;
}

void dwdie_unit_die(struct dwdie_file *f, struct dwdie_unit *u)
{
	uint64_t v, low_pc;
	struct dwdie d;
	struct dwdie_attr a, low = { 0 };
	int r, have_low = 0;

	if (u->die_read)
		return;
	u->die_read = 1;
	u->abbrevs = abbrevs_for(f, u->abbrev_off, u);
	if (dwdie_begin(f, u, u->die, &d) < 0 || !d.tag)
		return;
	/* The bases first: a value in the unit DIE itself may need them. */
	while ((r = dwdie_attr(f, u, &d, &a)) > 0) {
		switch (a.name) {
		case DW_AT_language:
			if (dwdie_udata(&a, &v) == 0 && v <= UINT16_MAX)
				u->lang = (uint16_t)v;
			break;
		case DW_AT_low_pc:
			low = a;
			have_low = 1;
			break;
		case DW_AT_str_offsets_base:
			if (a.form == DW_FORM_sec_offset) {
				u->str_offsets_base = a.val;
				u->has_str_offsets_base = 1;
			}
			break;
		case DW_AT_addr_base: case DW_AT_GNU_addr_base:
			if (a.form == DW_FORM_sec_offset) {
				u->addr_base = a.val;
				u->has_addr_base = 1;
			}
			break;
		case DW_AT_rnglists_base:
			/* Only the standard form is read; anything else makes
			 * the unit's range lists unusable. */
			if (a.form == DW_FORM_sec_offset) {
				u->rnglists_base = a.val;
				u->has_rnglists_base = 1;
			} else {
				u->bad_rnglists_base = 1;
			}
			break;
		}
	}
	if (r < 0)
		return;
	if (have_low && dwdie_addr(f, u, &low, &low_pc) == 0) {
		u->low_pc = low_pc;
		u->has_low_pc = 1;
	}
	u->tag = (uint16_t)(d.tag > UINT16_MAX ? UINT16_MAX : d.tag);
}

int dwdie_unit(struct dwdie_file *f, uint64_t off, struct dwdie_unit *u)
{
	if (dwdie_unit_header(f, off, u) < 0)
		return -1;
	dwdie_unit_die(f, u);
	return 0;
}

/* ---- values ---- */

/* The NUL-terminated string at off of a section, or NULL. */
static const char *section_string(struct dwdie_file *f, int s, uint64_t off)
{
	struct cursor c;
	const char *str;

	cursor_at(f, s, off, &c);
	return cursor_cstr(&c, &str) == 0 ? str : NULL;
}

/* Entry index, of width bytes, of the table at base of a section. */
static int table_entry(struct dwdie_file *f, int s, uint64_t base, uint64_t index, unsigned width,
		       uint64_t *v)
{
	struct cursor c;

	if (index > (UINT64_MAX - base) / width)
		return -1;
	cursor_at(f, s, base + index * width, &c);
	return cursor_le(&c, width, v);
}

const char *dwdie_string(struct dwdie_file *f, const struct dwdie_unit *u,
			 const struct dwdie_attr *a)
{
	uint64_t off;

	switch (a->form) {
	case DW_FORM_string:
		return (const char *)a->data;
	case DW_FORM_strp:
		return section_string(f, S_STR, a->val);
	case DW_FORM_line_strp:
		return section_string(f, S_LINE_STR, a->val);
	case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3:
	case DW_FORM_strx4: case DW_FORM_GNU_str_index:
		if (!u->has_str_offsets_base ||
		    table_entry(f, S_STR_OFFSETS, u->str_offsets_base, a->val, u->offset_size, &off) < 0)
			return NULL;
		return section_string(f, S_STR, off);
	default:
		return NULL;
	}
}

int dwdie_udata(const struct dwdie_attr *a, uint64_t *v)
{
	switch (a->form) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
	case DW_FORM_udata: case DW_FORM_loclistx: case DW_FORM_rnglistx:
		*v = a->val;
		return 0;
	case DW_FORM_implicit_const:
		if ((int64_t)a->val < 0)
			return -1;
		*v = a->val;
		return 0;
	default:
		return -1;
	}
}

/* Address index i of unit u, through .debug_addr. */
static int addr_index(struct dwdie_file *f, const struct dwdie_unit *u, uint64_t i, uint64_t *v)
{
	if (!u->has_addr_base)
		return -1;
	return table_entry(f, S_ADDR, u->addr_base, i, u->addr_size, v);
}

int dwdie_addr(struct dwdie_file *f, const struct dwdie_unit *u, const struct dwdie_attr *a,
	       uint64_t *v)
{
	switch (a->form) {
	case DW_FORM_addr:
		*v = a->val;
		return 0;
	case DW_FORM_addrx: case DW_FORM_addrx1: case DW_FORM_addrx2: case DW_FORM_addrx3:
	case DW_FORM_addrx4: case DW_FORM_GNU_addr_index:
		return addr_index(f, u, a->val, v);
	default:
		return -1;
	}
}

int dwdie_ref(const struct dwdie_unit *u, const struct dwdie_attr *a, uint64_t *off)
{
	switch (a->form) {
	case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
	case DW_FORM_ref_udata:
		if (a->val >= u->end - u->off)
			return -1;
		*off = u->off + a->val;
		return 0;
	case DW_FORM_ref_addr:
		*off = a->val;
		return 0;
	default:
		return -1;
	}
}

int dwdie_offset(const struct dwdie_attr *a, uint64_t *v)
{
	switch (a->form) {
	case DW_FORM_sec_offset: case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4:
	case DW_FORM_data8: case DW_FORM_udata:
		*v = a->val;
		return 0;
	default:
		return -1;
	}
}

static uint64_t max_address(unsigned addr_size)
{
	return addr_size >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * addr_size)) - 1;
}

int dwdie_tombstone(uint64_t lo, unsigned addr_size)
{
	uint64_t max = max_address(addr_size);

	return lo == max || lo == max - 1;
}

/* ---- range lists ---- */

/* Reads the headers of the .debug_rnglists tables, once, up to the first
 * that is malformed. */
static void read_rnglists(struct dwdie_file *f)
{
	uint64_t size, off = 0;
	size_t cap = 0;

	f->rl_read = 1;
	section(f, S_RNGLISTS, &size);
	while (off < size) {
		struct cursor c;
		uint64_t len, hdr, version, asize, count;
		unsigned offsize;
		struct rnglists_table *r;

		cursor_at(f, S_RNGLISTS, off, &c);
		if (dwdie_length(&c, &len, &offsize) < 0)
			return;
		hdr = offsize == 8 ? 12 : 4;
		/* version (2), address size (1), selector size (1), count (4) */
		cursor_le(&c, 2, &version);
		cursor_le(&c, 1, &asize);
		cursor_skip(&c, 1);
		cursor_le(&c, 4, &count);
		if (!c.ok || len < 8 || version != 5 || (asize != 2 && asize != 4 && asize != 8))
			return;
		f->rl = xgrow(f->rl, &cap, f->nrl + 1, sizeof(*f->rl));
		r = &f->rl[f->nrl];
		r->off = off;
		r->offsize = (uint8_t)offsize;
		r->count = (uint32_t)count;
		r->offsets = off + hdr + 8;
		r->end = off + hdr + len;
		if (count * r->offsize > r->end - r->offsets)
			return;
		r->lists = r->offsets + count * r->offsize;
		f->nrl++;
		off = r->end;
	}
}

/* The table of a DWARF 5 range list, and in *target the list's offset. */
static const struct rnglists_table *rnglist_at(struct dwdie_file *f, const struct dwdie_unit *u,
					       const struct dwdie_attr *a, uint64_t *target)
{
	const struct rnglists_table *r = NULL;
	uint64_t val = a->val;

	if (u->bad_rnglists_base || (a->form != DW_FORM_rnglistx && a->form != DW_FORM_sec_offset))
		return NULL;
	if (!f->rl_read)
		read_rnglists(f);
	/* The table that holds it: the unit's, by its base, else the one
	 * whose lists the offset falls in. */
	for (size_t i = 0; i < f->nrl && !r; i++)
		if (u->has_rnglists_base ? f->rl[i].offsets == u->rnglists_base
					 : a->form != DW_FORM_rnglistx && val >= f->rl[i].off &&
					   val < f->rl[i].end)
			r = &f->rl[i];
	if (!r)
		return NULL;
	if (a->form == DW_FORM_rnglistx) {
		if (val >= r->count || table_entry(f, S_RNGLISTS, r->offsets, val, r->offsize, &val) < 0)
			return NULL;
		val += r->offsets;
	}
	if (val < r->lists || val >= r->end)
		return NULL;
	*target = val;
	return r;
}

/* A DWARF 5 list: entries of a kind each, relative to a base address
 * (the unit's DW_AT_low_pc until an entry sets it) or indexes into
 * .debug_addr. */
static int rnglists(struct dwdie_file *f, const struct dwdie_unit *u, const struct dwdie_attr *a,
		    size_t max, void (*fn)(void *ctx, uint64_t lo, uint64_t hi), void *ctx)
{
	uint64_t target = 0, base = u->low_pc;
	const struct rnglists_table *r = rnglist_at(f, u, a, &target);
	int have_base = u->has_low_pc;
	unsigned as = u->addr_size;
	struct cursor c;

	if (!r)
		return -1;
	cursor_at(f, S_RNGLISTS, target, &c);
	if (c.ok && c.left > r->end - target)
		c.left = (size_t)(r->end - target);
	for (size_t i = 0; i < max; i++) {
		uint64_t v1 = 0, v2 = 0, lo = 0, hi = 0;
		uint8_t code;
		int ok = 1;

		if (cursor_u8(&c, &code) < 0)
			return -1;
		switch (code) {
		case DW_RLE_end_of_list:
			return 0;
		case DW_RLE_base_addressx:
			cursor_uleb(&c, &v1);
			have_base = addr_index(f, u, v1, &base) == 0;
			continue;
		case DW_RLE_startx_endx:
			cursor_uleb(&c, &v1);
			cursor_uleb(&c, &v2);
			if (addr_index(f, u, v1, &lo) < 0 || addr_index(f, u, v2, &hi) < 0)
				return -1;
			break;
		case DW_RLE_startx_length:
			cursor_uleb(&c, &v1);
			cursor_uleb(&c, &v2);
			if (addr_index(f, u, v1, &lo) < 0)
				return -1;
			hi = lo + v2;
			break;
		case DW_RLE_offset_pair:
			cursor_uleb(&c, &v1);
			cursor_uleb(&c, &v2);
			ok = have_base;
			lo = base + v1;
			hi = base + v2;
			break;
		case DW_RLE_base_address:
			cursor_le(&c, as, &base);
			have_base = 1;
			continue;
		case DW_RLE_start_end:
			cursor_le(&c, as, &lo);
			cursor_le(&c, as, &hi);
			break;
		case DW_RLE_start_length:
			cursor_le(&c, as, &lo);
			cursor_uleb(&c, &v2);
			hi = lo + v2;
			break;
		default:
			return -1;
		}
		if (!c.ok)
			return -1;
		if (ok && !dwdie_tombstone(lo, as))
			fn(ctx, lo, hi);
	}
	return 0;
}

/* A .debug_ranges list: pairs of addresses relative to the unit's base
 * address, which an entry that starts at the highest address replaces. */
static int ranges(struct dwdie_file *f, const struct dwdie_unit *u, const struct dwdie_attr *a,
		  size_t max, void (*fn)(void *ctx, uint64_t lo, uint64_t hi), void *ctx)
{
	uint64_t off, base = u->low_pc;
	unsigned as = u->addr_size;
	struct cursor c;

	if (dwdie_offset(a, &off) < 0)
		return -1;
	cursor_at(f, S_RANGES, off, &c);
	for (size_t i = 0; i < max; i++) {
		uint64_t a1 = 0, a2 = 0;

		cursor_le(&c, as, &a1);
		if (cursor_le(&c, as, &a2) < 0)
			return -1;
		if (a1 == 0 && a2 == 0)
			return 0;
		if (a1 == max_address(as)) {
			base = a2;
			continue;
		}
		if (!dwdie_tombstone(base, as) && !dwdie_tombstone(a1, as))
			fn(ctx, base + a1, base + a2);
	}
	return 0;
}

int dwdie_ranges(struct dwdie_file *f, const struct dwdie_unit *u, const struct dwdie_attr *a,
		 size_t max, void (*fn)(void *ctx, uint64_t lo, uint64_t hi), void *ctx)
{
	return u->version >= 5 ? rnglists(f, u, a, max, fn, ctx) : ranges(f, u, a, max, fn, ctx);
}
