/*
 * dwinfo.c: addresses to inline chains and lines, through libdwarf, with
 * every unit read at most once and only when an address falls in it.
 *
 * libdwarf sees the caller's sections through its object access interface
 * (dwarf_object_init_b), so the file format stays the caller's business;
 * report/dwsect.c keeps them and inflates compressed ones on first use.
 * dwinfo_new() reads only the unit headers and each unit's own address
 * ranges, and folds them (report/dwspan.c) into one sorted array of
 * disjoint spans, unit by address. The
 * first lookup inside a unit walks that unit's DIE tree once: each
 * subprogram and inlined subroutine becomes a scope (its parent, its call
 * site, the naming attributes on its DIE), and their ranges are folded
 * into disjoint spans, each owned by the innermost scope; the unit's line
 * table (report/dwline.c) becomes a sorted array of rows and a list of
 * joined paths. A
 * lookup is then two binary searches and a walk up the scopes. Names are
 * resolved when a scope is first returned, through the scopes already
 * read, since most functions are never sampled.
 *
 * The choices follow llvm-symbolizer, the oracle of the tests: the unit
 * with the lowest offset owns an address claimed by several; the deepest
 * (latest in DIE order) function range owns an address; of line rows at
 * one address, the last counts; paths join as LLVM joins them.
 *
 * libdwarf 20210528 is used for what it does well (DIEs, attributes, range
 * lists) and kept away from what it does not: the line table is read
 * without it, and range list offsets and headers are checked here
 * before libdwarf follows them, because it loops or reads out of bounds on
 * some damage. It gets an error handler that returns and every call an
 * error pointer, so nothing in it aborts; each Dwarf_Error, DIE and
 * attribute is released, and its allocation tracking (on by default)
 * frees at dwarf_finish() what its own error paths leak.
 */
#include "dwinfo.h"

#include <dwarf.h>
#include <libdwarf.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/diag.h"
#include "report/demangle.h"
#include "report/dwline.h"
#include "report/dwsect.h"
#include "report/dwspan.h"

#define SHT_PROGBITS_TYPE 1
#define MAX_DEPTH 512            /* DIE nesting we descend into */
#define MAX_HOPS 16              /* abstract_origin / specification links */
#define MAX_RANGES 65536         /* entries of one range list */

struct dw_scope {
	Dwarf_Off off;           /* the DIE's offset in .debug_info */
	const char *name;        /* resolved on first use (named) */
	const char *own_name, *own_linkage; /* on the DIE itself, or NULL */
	Dwarf_Off origin, spec;  /* DW_AT_abstract_origin, _specification, or 0 */
	int32_t parent;          /* enclosing scope that calls it, or -1 */
	uint32_t call_file, call_line, call_column;
	uint8_t named;
};

enum { CU_UNREAD, CU_READ };

struct dw_cu {
	Dwarf_Off off;           /* of the unit's DIE in .debug_info */
	Dwarf_Die die;           /* kept: libdwarf finds a unit by offset with a
	                          * linear search, so dwarf_offdie_b() is avoided */
	Dwarf_Half version, lang, addr_size;
	uint8_t state;
	uint64_t base;           /* DW_AT_low_pc of the unit DIE */
	uint64_t rnglists_base;  /* DW_AT_rnglists_base, if has_rnglists_base */
	uint8_t has_rnglists_base, bad_rnglists_base;
	struct dw_scope *scopes;
	size_t nscopes, capscopes;
	struct dwspan *spans;    /* owner: scope index */
	size_t nspans;
	struct dwline lines;
};

struct dw_block {
	struct dw_block *next;
	size_t used, cap;
	char data[];
};

/* One table of .debug_rnglists: header at off, its offset array at
 * offsets (the value DW_AT_rnglists_base names), lists up to end. */
struct dw_rnglists {
	uint64_t off, offsets, lists, end;
	uint32_t count;
	uint8_t offsize;
};

struct dwinfo {
	Dwarf_Debug dbg;
	Dwarf_Obj_Access_Interface iface;
	struct dwsect_table secs;
	struct dw_cu *cus;
	size_t ncus, capcus, nread;
	struct dwspan *cuspans;  /* owner: unit index */
	size_t ncuspans;
	struct dw_block *strings;
	struct dwspan_set iv;    /* scratch for folding */
	struct dw_rnglists *rl;  /* the .debug_rnglists tables, checked */
	size_t nrl;
};

/* ---- strings that live as long as the dwinfo ---- */

static const char *keep_string(struct dwinfo *d, const char *s, size_t n)
{
	struct dw_block *b = d->strings;
	char *p;

	if (!b || b->cap - b->used < n + 1) {
		size_t cap = n + 1 > 65536 ? n + 1 : 65536;
		b = xmalloc(sizeof(*b) + cap);
		b->next = d->strings;
		b->used = 0;
		b->cap = cap;
		d->strings = b;
	}
	p = b->data + b->used;
	memcpy(p, s, n);
	p[n] = 0;
	b->used += n + 1;
	return p;
}

/* ---- libdwarf's view of the sections ---- */

static int obj_section_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *s, int *err)
{
	struct dwinfo *d = obj;

	if (i >= d->secs.n) {
		*err = DW_DLE_MDE;
		return DW_DLV_NO_ENTRY;
	}
	memset(s, 0, sizeof(*s));
	s->addr = d->secs.v[i].addr;
	s->type = i ? SHT_PROGBITS_TYPE : 0;
	s->size = d->secs.v[i].size;
	s->name = d->secs.v[i].name;
	return DW_DLV_OK;
}

static Dwarf_Endianness obj_byte_order(void *obj)
{
	return DW_OBJECT_LSB;
}

static Dwarf_Small obj_length_size(void *obj)
{
	return 4;
}

static Dwarf_Small obj_pointer_size(void *obj)
{
	return 8;
}

static Dwarf_Unsigned obj_section_count(void *obj)
{
	return ((struct dwinfo *)obj)->secs.n;
}

static int obj_load_section(void *obj, Dwarf_Half i, Dwarf_Small **data, int *err)
{
	struct dwinfo *d = obj;
	const uint8_t *p;

	if (i == 0 || i >= d->secs.n) {
		*err = DW_DLE_MDE;
		return DW_DLV_NO_ENTRY;
	}
	if (!(p = dwsect_data(&d->secs, i))) {
		*err = d->secs.v[i].ctype ? DW_DLE_ZLIB_UNCOMPRESS_ERROR : DW_DLE_MDE;
		return d->secs.v[i].ctype ? DW_DLV_ERROR : DW_DLV_NO_ENTRY;
	}
	/* libdwarf only reads sections (we give it no relocation hook), so
	 * handing it the caller's read-only bytes is safe. */
	*data = (Dwarf_Small *)p;
	return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods obj_methods = {
	obj_section_info,
	obj_byte_order,
	obj_length_size,
	obj_pointer_size,
	obj_section_count,
	obj_load_section,
	NULL,
};

/* Errors are reported through the Dwarf_Error every call gets; this only
 * keeps libdwarf from aborting should any path lack one. */
static void on_dwarf_error(Dwarf_Error e, Dwarf_Ptr arg)
{
}

static void drop(struct dwinfo *d, Dwarf_Error *e)
{
	if (*e) {
		dwarf_dealloc_error(d->dbg, *e);
		*e = NULL;
	}
}

/* ---- attributes ---- */

/* A string attribute of die (borrowed from a section), or NULL. Not
 * dwarf_die_text(): in libdwarf 20210528 it leaks its Dwarf_Error when
 * the attribute cannot be read. */
static const char *die_string(struct dwinfo *d, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	char *s = NULL;
	int res = dwarf_attr(die, at, &a, &e);

	if (res == DW_DLV_OK) {
		if (dwarf_formstring(a, &s, &e) != DW_DLV_OK)
			s = NULL;
		dwarf_dealloc_attribute(a);
	}
	drop(d, &e);
	return s;
}

/* An attribute's unsigned constant. Returns 1 if readable. */
static int attr_udata(struct dwinfo *d, Dwarf_Attribute a, Dwarf_Unsigned *v)
{
	Dwarf_Error e = NULL;
	Dwarf_Half form = 0;
	Dwarf_Signed sv = 0;
	int ok;

	/* libdwarf 20210528's dwarf_formudata() refuses DW_FORM_implicit_const
	 * (which GCC uses for call_file/line/column); formsdata reads it. */
	if (dwarf_whatform(a, &form, &e) == DW_DLV_OK && form == DW_FORM_implicit_const) {
		ok = dwarf_formsdata(a, &sv, &e) == DW_DLV_OK && sv >= 0;
		*v = ok ? (Dwarf_Unsigned)sv : 0;
	} else {
		ok = dwarf_formudata(a, v, &e) == DW_DLV_OK;
	}
	drop(d, &e);
	return ok;
}

/* An unsigned constant attribute. Returns 1 if present and readable. */
static int die_udata(struct dwinfo *d, Dwarf_Die die, Dwarf_Half at, Dwarf_Unsigned *v)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	int res = dwarf_attr(die, at, &a, &e), ok = 0;

	if (res == DW_DLV_OK) {
		ok = attr_udata(d, a, v);
		dwarf_dealloc_attribute(a);
	}
	drop(d, &e);
	return ok;
}

/* DW_AT_low_pc or DW_AT_high_pc: 1 and *v if present and readable, with
 * *is_offset set for a high_pc that is a length (a constant form). Not
 * dwarf_lowpc()/dwarf_highpc_b(): on some damage 20210528's highpc reports
 * two errors through one pointer and the first leaks. */
static int die_pc(struct dwinfo *d, Dwarf_Die die, Dwarf_Half at, Dwarf_Addr *v, int *is_offset)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	Dwarf_Half form = 0;
	int ok = 0;

	*is_offset = 0;
	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK) {
		drop(d, &e);
		return 0;
	}
	if (dwarf_whatform(a, &form, &e) == DW_DLV_OK) {
		switch (form) {
		case DW_FORM_addr: case DW_FORM_addrx: case DW_FORM_addrx1: case DW_FORM_addrx2:
		case DW_FORM_addrx3: case DW_FORM_addrx4: case DW_FORM_GNU_addr_index:
			ok = dwarf_formaddr(a, v, &e) == DW_DLV_OK;
			break;
		default:
			ok = at == DW_AT_high_pc && attr_udata(d, a, v);
			*is_offset = 1;
			break;
		}
	}
	dwarf_dealloc_attribute(a);
	drop(d, &e);
	return ok;
}

/* A reference attribute as a global .debug_info offset. */
static int die_ref(struct dwinfo *d, Dwarf_Die die, Dwarf_Half at, Dwarf_Off *off)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	int res = dwarf_attr(die, at, &a, &e), ok = 0;

	if (res == DW_DLV_OK) {
		ok = dwarf_global_formref(a, off, &e) == DW_DLV_OK;
		dwarf_dealloc_attribute(a);
	}
	drop(d, &e);
	return ok;
}

/* ---- address ranges of a DIE ---- */

/* Indexes the tables of .debug_rnglists into d->rl. Returns 0, or -1 if
 * a header is malformed: libdwarf 20210528 reads these headers as soon as
 * it loads .debug_info, and on a bad one loops forever (it neither stops
 * nor advances), so such a section is never shown to it. */
static int index_rnglists(struct dwinfo *d, const uint8_t *p, uint64_t size)
{
	uint64_t off = 0;
	size_t cap = 0;

	while (off < size) {
		uint64_t len, hdr = 4, version, asize;
		struct dw_rnglists *r;

		if (size - off < 4)
			return -1;
		len = get_le32(p + off);
		if (len == 0xffffffffu) {
			if (size - off < 12)
				return -1;
			len = get_le64(p + off + 4);
			hdr = 12;
		} else if (len >= 0xfffffff0u) {
			return -1;
		}
		/* version (2), address size (1), selector size (1), count (4) */
		if (len < 8 || len > size - off - hdr)
			return -1;
		version = get_le16(p + off + hdr);
		asize = p[off + hdr + 2];
		if (version != 5 || (asize != 2 && asize != 4 && asize != 8))
			return -1;
		d->rl = xgrow(d->rl, &cap, d->nrl + 1, sizeof(*d->rl));
		r = &d->rl[d->nrl++];
		r->off = off;
		r->offsize = hdr == 12 ? 8 : 4;
		r->count = get_le32(p + off + hdr + 4);
		r->offsets = off + hdr + 8;
		r->end = off + hdr + len;
		if ((uint64_t)r->count * r->offsize > r->end - r->offsets)
			return -1;
		r->lists = r->offsets + (uint64_t)r->count * r->offsize;
		off = r->end;
	}
	return 0;
}

/* The .debug_rnglists offset of the list a DW_AT_ranges of this form and
 * value names, checked the way libdwarf will not check it: libdwarf
 * 20210528 reads a DW_FORM_rnglistx entry's target, or a section offset
 * in a unit with DW_AT_rnglists_base, without bounds. Returns 0 or -1. */
static int rnglist_target(const struct dwinfo *d, const struct dw_cu *cu, Dwarf_Half form,
			  uint64_t val, uint64_t *target)
{
	size_t i = dwsect_index(&d->secs, ".debug_rnglists");
	const uint8_t *data = i ? d->secs.v[i].data : NULL;
	const struct dw_rnglists *r = NULL;

	if (!data || cu->bad_rnglists_base)
		return -1;
	/* The table libdwarf will pick: by the unit's base, else the one
	 * holding the offset. */
	for (i = 0; i < d->nrl && !r; i++) {
		if (cu->has_rnglists_base ? d->rl[i].offsets == cu->rnglists_base
					  : form != DW_FORM_rnglistx && val >= d->rl[i].off &&
					    val < d->rl[i].end)
			r = &d->rl[i];
	}
	if (!r)
		return -1;
	if (form == DW_FORM_rnglistx) {
		uint64_t at;

		if (val >= r->count)
			return -1;
		at = r->offsets + val * r->offsize;
		val = r->offsets + (r->offsize == 8 ? get_le64(data + at) : get_le32(data + at));
	}
	if (val < r->lists || val >= r->end)
		return -1;
	*target = val;
	return 0;
}

/* The highest address of this size: DWARF 5's tombstone for code that the
 * linker dropped (lld writes it; -2 in .debug_ranges). */
static int tombstone(uint64_t lo, Dwarf_Half addr_size)
{
	uint64_t max = addr_size == 4 ? UINT32_MAX : UINT64_MAX;
	return lo == max || lo == max - 1;
}

/* Adds an interval for each range of die. Returns 0, or -1 if the
 * DIE's ranges could not be read. */
static int die_ranges(struct dwinfo *d, const struct dw_cu *cu, Dwarf_Die die,
		      uint64_t prio, uint32_t owner)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	Dwarf_Half form = 0, addr_size = cu->addr_size;
	int res, ret = 0;

	res = dwarf_attr(die, DW_AT_ranges, &a, &e);
	if (res == DW_DLV_ERROR) {
		drop(d, &e);
		return -1;
	}
	if (res == DW_DLV_NO_ENTRY) {
		Dwarf_Addr lo = 0, hi = 0;
		int is_offset;

		if (!die_pc(d, die, DW_AT_low_pc, &lo, &is_offset) ||
		    !die_pc(d, die, DW_AT_high_pc, &hi, &is_offset))
			return 0;
		if (is_offset)
			hi = hi > UINT64_MAX - lo ? UINT64_MAX : lo + hi;
		if (!tombstone(lo, addr_size))
			dwspan_add(&d->iv, lo, hi, prio, owner);
		return 0;
	}
	if (dwarf_whatform(a, &form, &e) != DW_DLV_OK)
		goto bad;
	if (cu->version >= 5) {
		Dwarf_Rnglists_Head head = NULL;
		Dwarf_Unsigned val = 0, count = 0, global = 0, i;
		uint64_t target = 0;

		res = form == DW_FORM_rnglistx ? dwarf_formudata(a, &val, &e)
					       : dwarf_global_formref(a, &val, &e);
		if (res != DW_DLV_OK || rnglist_target(d, cu, form, val, &target) != 0)
			goto bad;
		/* Handed over as the checked section offset it resolves to. */
		res = dwarf_rnglists_get_rle_head(a, DW_FORM_sec_offset, target, &head, &count, &global, &e);
		if (res != DW_DLV_OK)
			goto bad;
		for (i = 0; i < count && i < MAX_RANGES; i++) {
			unsigned len = 0, code = 0;
			Dwarf_Unsigned raw1, raw2, lo = 0, hi = 0;
			Dwarf_Bool unavailable = 0;

			if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1, &raw2,
							      &unavailable, &lo, &hi, &e) != DW_DLV_OK) {
				drop(d, &e);
				ret = -1;
				break;
			}
			if (unavailable || code == DW_RLE_end_of_list || code == DW_RLE_base_address ||
			    code == DW_RLE_base_addressx || tombstone(lo, addr_size))
				continue;
			dwspan_add(&d->iv, lo, hi, prio, owner);
		}
		dwarf_dealloc_rnglists_head(head);
	} else {
		Dwarf_Ranges *r = NULL;
		Dwarf_Signed n = 0, i;
		Dwarf_Unsigned bytes = 0;
		Dwarf_Off off = 0, real = 0;
		uint64_t base = cu->base;

		res = dwarf_global_formref(a, &off, &e);
		if (res != DW_DLV_OK) {
			Dwarf_Unsigned u = 0;

			drop(d, &e);
			res = dwarf_formudata(a, &u, &e);
			off = u;
		}
		if (res != DW_DLV_OK)
			goto bad;
		res = dwarf_get_ranges_b(d->dbg, off, die, &real, &r, &n, &bytes, &e);
		if (res != DW_DLV_OK)
			goto bad;
		for (i = 0; i < n && i < MAX_RANGES; i++) {
			if (r[i].dwr_type == DW_RANGES_END)
				break;
			if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
				base = r[i].dwr_addr2;
				continue;
			}
			if (tombstone(base, addr_size) || tombstone(r[i].dwr_addr1, addr_size))
				continue;
			dwspan_add(&d->iv, base + r[i].dwr_addr1, base + r[i].dwr_addr2, prio, owner);
		}
		dwarf_ranges_dealloc(d->dbg, r, n);
	}
	dwarf_dealloc_attribute(a);
	return ret;
bad:
	drop(d, &e);
	dwarf_dealloc_attribute(a);
	return -1;
}

/* ---- the unit index ---- */

static int index_units(struct dwinfo *d)
{
	Dwarf_Error e = NULL;
	int res, ret = 0;

	for (;;) {
		Dwarf_Unsigned len = 0, abbrev = 0, typeoff = 0, next = 0;
		Dwarf_Half version = 0, addr_size = 0, off_size = 0, ext_size = 0, type = 0, tag = 0;
		Dwarf_Sig8 sig;
		Dwarf_Die die = NULL;
		Dwarf_Addr base = 0;
		struct dw_cu *cu;

		res = dwarf_next_cu_header_d(d->dbg, 1, &len, &version, &abbrev, &addr_size, &off_size,
					     &ext_size, &sig, &typeoff, &next, &type, &e);
		if (res == DW_DLV_NO_ENTRY)
			break;
		if (res == DW_DLV_ERROR) {
			/* libdwarf cannot step past a bad header: keep the units
			 * before it. */
			drop(d, &e);
			ret = DWINFO_E_CORRUPT;
			break;
		}
		res = dwarf_siblingof_b(d->dbg, NULL, 1, &die, &e);
		if (res != DW_DLV_OK) {
			drop(d, &e);
			continue;
		}
		if (dwarf_tag(die, &tag, &e) != DW_DLV_OK ||
		    (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit)) {
			drop(d, &e);
			dwarf_dealloc_die(die);
			continue;
		}
		d->cus = xgrow(d->cus, &d->capcus, d->ncus + 1, sizeof(*d->cus));
		cu = &d->cus[d->ncus];
		memset(cu, 0, sizeof(*cu));
		cu->version = version;
		cu->addr_size = addr_size;
		if (dwarf_dieoffset(die, &cu->off, &e) != DW_DLV_OK) {
			drop(d, &e);
			dwarf_dealloc_die(die);
			continue;
		}
		{
			int is_offset;
			if (die_pc(d, die, DW_AT_low_pc, &base, &is_offset))
				cu->base = base;
		}
		{
			Dwarf_Unsigned lang = 0;
			if (die_udata(d, die, DW_AT_language, &lang))
				cu->lang = (Dwarf_Half)lang;
		}
		{
			Dwarf_Attribute a = NULL;
			Dwarf_Half form = 0;
			Dwarf_Unsigned v = 0;

			if (dwarf_attr(die, DW_AT_rnglists_base, &a, &e) == DW_DLV_OK) {
				/* Only the standard form is read; anything else makes
				 * the unit's range lists unusable. */
				if (dwarf_whatform(a, &form, &e) == DW_DLV_OK && form == DW_FORM_sec_offset &&
				    dwarf_global_formref(a, &v, &e) == DW_DLV_OK) {
					cu->rnglists_base = v;
					cu->has_rnglists_base = 1;
				} else {
					cu->bad_rnglists_base = 1;
				}
				dwarf_dealloc_attribute(a);
			}
			drop(d, &e);
		}
		/* The unit's ranges, lower units first on overlap. */
		die_ranges(d, cu, die, UINT64_MAX - d->ncus, (uint32_t)d->ncus);
		cu->die = die;
		d->ncus++;
	}
	dwspan_fold(&d->iv, &d->cuspans, &d->ncuspans);
	return ret;
}

/* ---- one unit: its functions ---- */

/* Tags whose children are never code, so the walk need not enter them.
 * Everything else is entered, as LLVM does, in case a subprogram hides in
 * it; structure types only outside C, where they can hold methods. */
static int leaf_tag(Dwarf_Half tag, const struct dw_cu *cu)
{
	switch (tag) {
	case DW_TAG_formal_parameter: case DW_TAG_variable: case DW_TAG_member:
	case DW_TAG_enumeration_type: case DW_TAG_enumerator: case DW_TAG_subrange_type:
	case DW_TAG_array_type: case DW_TAG_subroutine_type: case DW_TAG_base_type:
	case DW_TAG_pointer_type: case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type:
	case DW_TAG_const_type: case DW_TAG_volatile_type: case DW_TAG_restrict_type:
	case DW_TAG_typedef: case DW_TAG_call_site: case DW_TAG_GNU_call_site:
	case DW_TAG_call_site_parameter: case DW_TAG_GNU_call_site_parameter:
	case DW_TAG_template_type_parameter: case DW_TAG_template_value_parameter:
	case DW_TAG_label: case DW_TAG_unspecified_parameters: case DW_TAG_inheritance:
	case DW_TAG_ptr_to_member_type: case DW_TAG_atomic_type:
		return 1;
	case DW_TAG_structure_type: case DW_TAG_union_type:
		return cu->lang == DW_LANG_C89 || cu->lang == DW_LANG_C || cu->lang == DW_LANG_C99 ||
		       cu->lang == DW_LANG_C11;
	default:
		return 0;
	}
}

static int32_t add_scope(struct dw_cu *cu, Dwarf_Off off, int32_t parent)
{
	struct dw_scope *s;

	if (cu->nscopes >= INT32_MAX)
		return -1;
	cu->scopes = xgrow(cu->scopes, &cu->capscopes, cu->nscopes + 1, sizeof(*cu->scopes));
	s = &cu->scopes[cu->nscopes];
	memset(s, 0, sizeof(*s));
	s->off = off;
	s->parent = parent;
	return (int32_t)cu->nscopes++;
}

/* Records die if it is a function or an inlined instance; returns the
 * scope its children see as their caller. */
static int32_t visit(struct dwinfo *d, struct dw_cu *cu, Dwarf_Die die, Dwarf_Off off,
		     Dwarf_Half tag, int32_t parent, uint64_t order)
{
	struct dw_scope *s;
	Dwarf_Unsigned v;
	int32_t i;

	if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
		return parent;
	/* A subprogram ends the chain, even one nested in another. */
	i = add_scope(cu, off, tag == DW_TAG_subprogram ? -1 : parent);
	if (i < 0)
		return parent;
	s = &cu->scopes[i];
	s->own_name = die_string(d, die, DW_AT_name);
	s->own_linkage = die_string(d, die, DW_AT_linkage_name);
	if (!s->own_linkage)
		s->own_linkage = die_string(d, die, DW_AT_MIPS_linkage_name);
	if (!die_ref(d, die, DW_AT_abstract_origin, &s->origin))
		s->origin = 0;
	if (!die_ref(d, die, DW_AT_specification, &s->spec))
		s->spec = 0;
	if (tag == DW_TAG_inlined_subroutine) {
		/* LLVM reads a missing call_file as file 0. */
		if (die_udata(d, die, DW_AT_call_file, &v) && v <= UINT32_MAX)
			s->call_file = (uint32_t)v;
		if (die_udata(d, die, DW_AT_call_line, &v) && v <= UINT32_MAX)
			s->call_line = (uint32_t)v;
		if (die_udata(d, die, DW_AT_call_column, &v) && v <= UINT32_MAX)
			s->call_column = (uint32_t)v;
	}
	die_ranges(d, cu, die, order, (uint32_t)i);
	return i;
}

/* Walks the unit's DIE tree depth first without recursion. DIE offsets
 * must increase strictly in this order; a tree that goes back (a forged
 * DW_AT_sibling) is cut off there, so no walk can loop. */
static void walk_unit(struct dwinfo *d, struct dw_cu *cu, Dwarf_Die cudie)
{
	Dwarf_Die stack[MAX_DEPTH], cur = NULL;
	int32_t scopes[MAX_DEPTH], scope = -1;
	size_t depth = 0;
	Dwarf_Off last = 0;
	Dwarf_Error e = NULL;
	uint64_t order = 0;
	int res;

	if (dwarf_dieoffset(cudie, &last, &e) != DW_DLV_OK ||
	    dwarf_child(cudie, &cur, &e) != DW_DLV_OK) {
		drop(d, &e);
		return;
	}
	while (cur) {
		Dwarf_Off off = 0;
		Dwarf_Half tag = 0, kids = 0;
		int32_t mine;
		Dwarf_Die next = NULL;

		if (dwarf_dieoffset(cur, &off, &e) != DW_DLV_OK || off <= last ||
		    dwarf_tag(cur, &tag, &e) != DW_DLV_OK) {
			drop(d, &e);
			dwarf_dealloc_die(cur);
			break;
		}
		last = off;
		mine = visit(d, cu, cur, off, tag, scope, order++);
		dwarf_die_abbrev_children_flag(cur, &kids);
		if (kids && depth < MAX_DEPTH && !leaf_tag(tag, cu)) {
			res = dwarf_child(cur, &next, &e);
			drop(d, &e);
			if (res == DW_DLV_OK) {
				stack[depth] = cur;
				scopes[depth++] = scope;
				scope = mine;
				cur = next;
				continue;
			}
		}
		/* On to the next sibling, climbing out of finished parents. */
		for (;;) {
			res = dwarf_siblingof_b(d->dbg, cur, 1, &next, &e);
			drop(d, &e);
			dwarf_dealloc_die(cur);
			cur = NULL;
			if (res == DW_DLV_OK) {
				cur = next;
				break;
			}
			if (res == DW_DLV_ERROR || depth == 0)
				break;
			cur = stack[--depth];
			scope = scopes[depth];
		}
	}
	while (depth)
		dwarf_dealloc_die(stack[--depth]);
}

static void load_unit(struct dwinfo *d, struct dw_cu *cu)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;

	if (dwarf_attr(cu->die, DW_AT_stmt_list, &a, &e) == DW_DLV_OK) {
		Dwarf_Unsigned off = 0;
		Dwarf_Off ref = 0;

		/* DW_FORM_sec_offset, or data4/data8 before DWARF 4. */
		if (dwarf_global_formref(a, &ref, &e) == DW_DLV_OK) {
			off = ref;
		} else {
			drop(d, &e);
			if (!attr_udata(d, a, &off))
				off = UINT64_MAX;
		}
		dwarf_dealloc_attribute(a);
		dwline_read(&cu->lines, &d->secs, off, die_string(d, cu->die, DW_AT_comp_dir));
	}
	drop(d, &e);
	walk_unit(d, cu, cu->die);
	dwspan_fold(&d->iv, &cu->spans, &cu->nspans);
	cu->state = CU_READ;
	d->nread++;
}

/* ---- names ---- */

static int cmp_scope_off(const void *key, const void *elem)
{
	Dwarf_Off off = *(const Dwarf_Off *)key, at = ((const struct dw_scope *)elem)->off;

	return (off > at) - (off < at);
}

/* The scope of the unit at DIE offset off (scopes ascend by offset). */
static struct dw_scope *scope_at(struct dw_cu *cu, Dwarf_Off off)
{
	return cu->nscopes ? bsearch(&off, cu->scopes, cu->nscopes, sizeof(*cu->scopes), cmp_scope_off)
			   : NULL;
}

/* The naming attributes of the DIE at off: from its scope if the walk
 * recorded one, else read through libdwarf (a reference into another
 * unit, or to a DIE the walk does not record). */
static int die_at(struct dwinfo *d, struct dw_cu *cu, Dwarf_Off off, struct dw_scope *out)
{
	struct dw_scope *s = scope_at(cu, off);
	Dwarf_Die die = NULL;
	Dwarf_Error e = NULL;

	if (s) {
		*out = *s;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	if (dwarf_offdie_b(d->dbg, off, 1, &die, &e) != DW_DLV_OK) {
		drop(d, &e);
		return -1;
	}
	out->own_name = die_string(d, die, DW_AT_name);
	out->own_linkage = die_string(d, die, DW_AT_linkage_name);
	if (!out->own_linkage)
		out->own_linkage = die_string(d, die, DW_AT_MIPS_linkage_name);
	if (!die_ref(d, die, DW_AT_abstract_origin, &out->origin))
		out->origin = 0;
	if (!die_ref(d, die, DW_AT_specification, &out->spec))
		out->spec = 0;
	dwarf_dealloc_die(die);
	return 0;
}

/* The scope's name, found as LLVM finds it: on the DIE or, failing that,
 * through DW_AT_specification and DW_AT_abstract_origin (depth first, the
 * specification first). A mangled linkage name is demangled; otherwise
 * DW_AT_name is preferred, because a C function's linkage name is an
 * assembler label (libc's __GI_ aliases). */
static const char *scope_name(struct dwinfo *d, struct dw_cu *cu, struct dw_scope *s)
{
	Dwarf_Off work[MAX_HOPS], seen[MAX_HOPS];
	size_t nwork = 0, nseen = 0, i, k;
	const char *linkage = NULL, *name = NULL;
	char *dm;

	if (s->named)
		return s->name;
	s->named = 1;
	work[nwork++] = s->off;
	seen[nseen++] = s->off;
	while (nwork && !(linkage && name)) {
		struct dw_scope at;

		if (die_at(d, cu, work[--nwork], &at) < 0)
			continue;
		if (!linkage)
			linkage = at.own_linkage;
		if (!name)
			name = at.own_name;
		for (k = 0; k < 2; k++) {
			Dwarf_Off ref = k ? at.spec : at.origin;

			if (!ref || nseen == MAX_HOPS)
				continue;
			for (i = 0; i < nseen && seen[i] != ref; i++)
				;
			if (i < nseen)
				continue;
			seen[nseen++] = ref;
			work[nwork++] = ref;
		}
	}
	if (linkage && (dm = demangle_name(linkage, 0))) {
		s->name = keep_string(d, dm, strlen(dm));
		free(dm);
	} else {
		s->name = name ? name : linkage;
	}
	if (s->name && !s->name[0])
		s->name = NULL;
	return s->name;
}

/* ---- the interface ---- */

int dwinfo_lookup(struct dwinfo *d, uint64_t addr, struct dwinfo_frame *frames, size_t max)
{
	const struct dwspan *sp = dwspan_find(d->cuspans, d->ncuspans, addr);
	const struct dwline_row *row;
	const char *file;
	uint32_t line, column;
	struct dw_cu *cu;
	int32_t s;
	size_t n = 0, hops = 0;

	if (!sp)
		return 0;
	cu = &d->cus[sp->owner];
	if (cu->state == CU_UNREAD)
		load_unit(d, cu);
	sp = dwspan_find(cu->spans, cu->nspans, addr);
	if (!sp)
		return 0;
	row = dwline_find(&cu->lines, addr);
	file = row ? dwline_file(&cu->lines, row->file) : NULL;
	line = row ? row->line : 0;
	column = row ? row->column : 0;
	if (max > DWINFO_MAX_FRAMES)
		max = DWINFO_MAX_FRAMES;
	/* Parents precede their children, so this walk always ends. */
	for (s = (int32_t)sp->owner; s >= 0 && n < max && hops < DWINFO_MAX_FRAMES; hops++) {
		struct dw_scope *sc = &cu->scopes[s];
		const char *name = scope_name(d, cu, sc);

		if (name) {
			frames[n].function = name;
			frames[n].file = file;
			frames[n].line = line;
			frames[n].column = column;
			n++;
		}
		file = dwline_file(&cu->lines, sc->call_file);
		line = sc->call_line;
		column = sc->call_column;
		s = sc->parent;
	}
	return (int)n;
}

size_t dwinfo_units(const struct dwinfo *d, size_t *loaded)
{
	if (loaded)
		*loaded = d->nread;
	return d->ncus;
}

/* The sections libdwarf gets: what DIEs, names, ranges and line tables
 * need. Locations, frames, macros and the rest stay out, so libdwarf never
 * inflates or parses them. */
static const char *const wanted_sections[] = {
	".debug_info", ".debug_abbrev", ".debug_line", ".debug_line_str", ".debug_str",
	".debug_str_offsets", ".debug_addr", ".debug_ranges", ".debug_rnglists", NULL,
};

/* Takes the wanted sections, and checks .debug_rnglists (inflated first
 * if need be) before libdwarf sees it: a bad one is left out, and only
 * its ranges are lost. */
static int take_sections(struct dwinfo *d, const struct dwinfo_section *secs, size_t nsecs)
{
	size_t i;
	int err = dwsect_take(&d->secs, secs, nsecs, wanted_sections);

	if (err < 0)
		return err;
	if ((i = dwsect_index(&d->secs, ".debug_rnglists"))) {
		const uint8_t *p = dwsect_data(&d->secs, i);

		if (!p || index_rnglists(d, p, d->secs.v[i].size) != 0) {
			dwsect_remove(&d->secs, i);
			free(d->rl);
			d->rl = NULL;
			d->nrl = 0;
		}
	}
	i = dwsect_index(&d->secs, ".debug_info");
	return i && d->secs.v[i].size > 0 ? 0 : DWINFO_E_NODEBUG;
}

int dwinfo_new(const struct dwinfo_section *secs, size_t nsecs, struct dwinfo **out)
{
	struct dwinfo *d = xcalloc(1, sizeof(*d));
	Dwarf_Error e = NULL;
	int err, res;

	*out = NULL;
	err = take_sections(d, secs, nsecs);
	if (err < 0)
		goto fail;
	d->iface.object = d;
	d->iface.methods = &obj_methods;
	res = dwarf_object_init_b(&d->iface, on_dwarf_error, d, DW_GROUPNUMBER_ANY, &d->dbg, &e);
	if (res != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(NULL, e);
		d->dbg = NULL;
		err = res == DW_DLV_NO_ENTRY ? DWINFO_E_NODEBUG : DWINFO_E_CORRUPT;
		goto fail;
	}
	err = index_units(d);
	if (err < 0 && d->ncus == 0)
		goto fail;
	*out = d;
	return 0;
fail:
	dwinfo_free(d);
	return err;
}

void dwinfo_free(struct dwinfo *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->ncus; i++) {
		if (d->cus[i].die)
			dwarf_dealloc_die(d->cus[i].die);
	}
	if (d->dbg) {
		Dwarf_Error e = NULL;
		if (dwarf_object_finish(d->dbg, &e) != DW_DLV_OK && e)
			dwarf_dealloc_error(NULL, e);
	}
	for (i = 0; i < d->ncus; i++) {
		free(d->cus[i].scopes);
		free(d->cus[i].spans);
		dwline_release(&d->cus[i].lines);
	}
	free(d->cus);
	free(d->cuspans);
	dwsect_release(&d->secs);
	while (d->strings) {
		struct dw_block *b = d->strings;
		d->strings = b->next;
		free(b);
	}
	dwspan_set_release(&d->iv);
	free(d->rl);
	free(d);
}
