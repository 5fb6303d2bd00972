/*
 * dwinfo.c: addresses to inline chains and lines, with every unit read at
 * most once and only when an address falls in it.
 *
 * The DIEs are read by report/dwarf/dwdie.c straight from the sections that
 * report/dwarf/dwsect.c keeps, each inflated on first use if compressed, so a
 * section that no lookup needs is never inflated. dwinfo_new() reads only
 * the unit headers and each unit's address ranges, from .debug_aranges
 * where it names the unit (whose unit DIE is then read only when a lookup
 * enters it), else from the unit DIE, and folds them (report/dwarf/dwspan.c)
 * into one sorted array of disjoint spans, unit by address. The first
 * lookup inside a unit walks that unit's DIE tree once: each subprogram
 * and inlined subroutine becomes a scope (its parent, its call site, the
 * naming attributes on its DIE), and their ranges are folded into
 * disjoint spans, each owned by the innermost scope; everything else is stepped over, and the children of DIEs that
 * hold no code passed by their DW_AT_sibling where they have one. The
 * unit's line table (report/dwarf/dwline.c) becomes a sorted array of rows and
 * a list of joined paths. A lookup is then two binary searches and a walk
 * up the scopes. Names are resolved when a scope is first returned,
 * through the scopes already read, since most functions are never
 * sampled.
 *
 * The choices follow llvm-symbolizer, the oracle of the tests: the unit
 * with the lowest offset owns an address claimed by several; the deepest
 * (latest in DIE order) function range owns an address; of line rows at
 * one address, the last counts; paths join as LLVM joins them.
 */
#include "report/dwarf/dwinfo.h"

#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "report/dwarf/demangle.h"
#include "common/dwconst.h"
#include "report/dwarf/dwdie.h"
#include "report/dwarf/dwline.h"
#include "report/dwarf/dwsect.h"
#include "report/dwarf/dwspan.h"
#include "common/timing.h"

#define MAX_DEPTH 512            /* DIE nesting we descend into */
#define MAX_HOPS 16              /* abstract_origin / specification links */
#define MAX_RANGES 65536         /* entries of one range list */

struct dw_scope {
	uint64_t off;            /* the DIE's offset in .debug_info */
	const char *name;        /* resolved on first use (named) */
	const char *sig;         /* the full signature, or name */
	const char *own_name, *own_linkage; /* on the DIE itself, or NULL */
	uint64_t origin, spec;   /* DW_AT_abstract_origin, _specification, or 0 */
	int32_t parent;          /* enclosing scope that calls it, or -1 */
	uint32_t call_file, call_line, call_column;
	uint8_t named;
	uint8_t linkage;         /* named from a mangled linkage name */
	uint8_t external;        /* DW_AT_external on the DIE itself */
};

/* A DIE that names the scope of what it holds: a namespace, a class,
 * structure or union, or a function (for its local classes). */
struct dw_nest {
	uint64_t off, end;       /* its DIE, and the offset after its children
	                          * (0 while the walk is inside it) */
	const char *name;        /* DW_AT_name, or NULL */
	int32_t parent;          /* the enclosing nest, or -1 */
	int32_t scope;           /* a function's scope, else -1 */
	uint32_t tag;
};

enum { CU_UNREAD, CU_READ };

struct dw_cu {
	size_t unit;             /* its header: d->units[unit] */
	uint8_t state;
	struct dw_scope *scopes;
	size_t nscopes, capscopes;
	struct dwspan *spans;    /* owner: scope index */
	size_t nspans;
	struct dwline lines;
	struct dw_nest *nests;   /* by offset */
	size_t nnests, capnests;
};

struct dw_block {
	struct dw_block *next;
	size_t used, cap;
	char data[];
};

struct dwinfo {
	struct dwsect_table secs;
	struct dwdie_file *die;
	struct dwdie_unit *units;/* every unit of .debug_info, by offset */
	size_t nunits, capunits;
	struct dw_cu *cus;       /* the compile and partial units among them */
	size_t ncus, capcus, nread;
	struct dwspan *cuspans;  /* owner: unit index */
	size_t ncuspans;
	struct dw_block *strings;
	struct dwspan_set iv;    /* scratch for folding */
	int names_only;          /* dwinfo_names_only() */
	unsigned naming;         /* how deep scope_name() has recursed */
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

/* ---- the address ranges of a DIE ---- */

struct range_to {
	struct dwinfo *d;
	uint64_t prio;
	uint32_t owner;
};

static void add_range(void *ctx, uint64_t lo, uint64_t hi)
{
	struct range_to *r = ctx;

	dwspan_add(&r->d->iv, lo, hi, r->prio, r->owner);
}

/* What a DIE says of its code: DW_AT_low_pc and DW_AT_high_pc (an
 * address, or a length in a constant form), or DW_AT_ranges. */
struct die_pcs {
	struct dwdie_attr low, high, ranges;
	uint8_t has_low, has_high, has_ranges;
};

static void note_pcs(struct die_pcs *pc, const struct dwdie_attr *a)
{
	if (a->name == DW_AT_low_pc && !pc->has_low) {
		pc->low = *a;
		pc->has_low = 1;
	} else if (a->name == DW_AT_high_pc && !pc->has_high) {
		pc->high = *a;
		pc->has_high = 1;
	} else if (a->name == DW_AT_ranges && !pc->has_ranges) {
		pc->ranges = *a;
		pc->has_ranges = 1;
	}
}

/* Adds the intervals of a DIE's code, at priority prio for owner. */
static void add_pcs(struct dwinfo *d, const struct dwdie_unit *u, const struct die_pcs *pc,
		    uint64_t prio, uint32_t owner)
{
	struct range_to r = { d, prio, owner };
	uint64_t lo, hi;

	if (pc->has_ranges) {
		dwdie_ranges(d->die, u, &pc->ranges, MAX_RANGES, add_range, &r);
		return;
	}
	if (!pc->has_low || !pc->has_high || dwdie_addr(d->die, u, &pc->low, &lo) < 0)
		return;
	if (dwdie_addr(d->die, u, &pc->high, &hi) < 0) {
		if (dwdie_udata(&pc->high, &hi) < 0)
			return;
		hi = hi > UINT64_MAX - lo ? UINT64_MAX : lo + hi;
	}
	if (!dwdie_tombstone(lo, u->addr_size))
		dwspan_add(&d->iv, lo, hi, prio, owner);
}

/* ---- the unit index ---- */

/* One range of .debug_aranges and the offset of the unit it names. */
struct arange {
	uint64_t unit, lo, hi;
};

static int cmp_arange(const void *x, const void *y)
{
	const struct arange *a = x, *b = y;

	return (a->unit > b->unit) - (a->unit < b->unit);
}

/* The ranges of .debug_aranges into *out (caller frees), sorted by unit,
 * each set's led by an empty one; returns how many. A set's tuples start at the first multiple of their
 * size after its header, as LLVM reads them; empty and tombstone ranges
 * are dropped, as on a DIE. Any damage, or a set with segment selectors,
 * keeps none, so that every unit's ranges come from its DIE. */
static size_t read_aranges(struct dwinfo *d, struct arange **out)
{
	size_t sec = dwsect_index(&d->secs, ".debug_aranges"), n = 0, cap = 0, sorted = 1;
	const uint8_t *data = sec ? dwsect_data(&d->secs, sec) : NULL;
	struct arange *v = NULL;
	struct cursor c;

	*out = NULL;
	if (!data)
		return 0;
	cursor_init(&c, data, (size_t)d->secs.v[sec].size);
	while (c.left) {
		uint64_t len, ver, unit, as, seg, lo, size;
		unsigned offset_size;
		const uint8_t *set = c.p, *p;
		struct cursor t;
		size_t hdr, tuple;

		if (dwdie_length(&c, &len, &offset_size) < 0)
			goto damaged;
		cursor_take(&c, (size_t)len, &p);
		cursor_init(&t, p, (size_t)len);
		cursor_le(&t, 2, &ver);
		cursor_le(&t, offset_size, &unit);
		cursor_le(&t, 1, &as);
		cursor_le(&t, 1, &seg);
		if (!t.ok || ver != 2 || seg != 0 || (as != 2 && as != 4 && as != 8))
			goto damaged;
		tuple = 2 * (size_t)as;
		hdr = (size_t)(t.p - set);
		if (cursor_skip(&t, (hdr + tuple - 1) / tuple * tuple - hdr) < 0)
			goto damaged;
		/* An empty range that names the unit, even if none of its
		 * own is kept. */
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = (struct arange){ unit, 0, 0 };
		sorted = sorted && (n == 1 || v[n - 2].unit <= unit);
		while (t.left) {
			if (cursor_le(&t, (unsigned)as, &lo) < 0 || cursor_le(&t, (unsigned)as, &size) < 0)
				goto damaged;
			if (!size || dwdie_tombstone(lo, (unsigned)as))
				continue;
			v = xgrow(v, &cap, n + 1, sizeof(*v));
			v[n++] = (struct arange){ unit, lo, size > UINT64_MAX - lo ? UINT64_MAX : lo + size };
		}
	}
	if (!sorted)
		qsort(v, n, sizeof(*v), cmp_arange);
	*out = v;
	return n;
damaged:
	free(v);
	return 0;
}

/* Reads every unit header, and the ranges of the compile and partial
 * units, lower units first on overlap: those of .debug_aranges where it
 * names the unit, so that its unit DIE is read only if an address falls
 * in it, and the unit DIE's own otherwise, as LLVM finds them. A damaged
 * header ends the list: the units before it are kept. */
static int index_units(struct dwinfo *d)
{
	struct arange *ar;
	size_t nar = read_aranges(d, &ar), k = 0;
	uint64_t size, off = 0;
	int ret = 0;

	size = d->secs.v[dwsect_index(&d->secs, ".debug_info")].size;
	while (off < size) {
		struct dwdie_unit *u;
		struct dwdie die;
		struct dwdie_attr a;
		struct die_pcs pc = { 0 };
		struct dw_cu *cu;
		int listed;

		d->units = xgrow(d->units, &d->capunits, d->nunits + 1, sizeof(*d->units));
		u = &d->units[d->nunits];
		if (dwdie_unit_header(d->die, off, u) < 0) {
			ret = DWINFO_E_CORRUPT;
			break;
		}
		d->nunits++;
		off = u->end;
		while (k < nar && ar[k].unit < u->off)
			k++;
		listed = k < nar && ar[k].unit == u->off;
		if (listed ? u->type != DW_UT_compile && u->type != DW_UT_partial
			   : (dwdie_unit_die(d->die, u),
			      u->tag != DW_TAG_compile_unit && u->tag != DW_TAG_partial_unit))
			continue;
		d->cus = xgrow(d->cus, &d->capcus, d->ncus + 1, sizeof(*d->cus));
		cu = &d->cus[d->ncus];
		memset(cu, 0, sizeof(*cu));
		cu->unit = d->nunits - 1;
		for (; k < nar && ar[k].unit == u->off; k++)
			dwspan_add(&d->iv, ar[k].lo, ar[k].hi, UINT64_MAX - d->ncus, (uint32_t)d->ncus);
		if (!listed && dwdie_begin(d->die, u, u->die, &die) == 0) {
			while (dwdie_attr(d->die, u, &die, &a) > 0)
				note_pcs(&pc, &a);
			add_pcs(d, u, &pc, UINT64_MAX - d->ncus, (uint32_t)d->ncus);
		}
		d->ncus++;
	}
	free(ar);
	dwspan_fold(&d->iv, &d->cuspans, &d->ncuspans);
	return ret;
}

/* The unit whose DIEs hold offset off, its unit DIE read, or NULL. */
static const struct dwdie_unit *unit_of(struct dwinfo *d, uint64_t off)
{
	size_t lo = 0, hi = d->nunits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->units[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->nunits || d->units[lo].die > off)
		return NULL;
	dwdie_unit_die(d->die, &d->units[lo]);
	return &d->units[lo];
}

/* ---- one unit: its functions ---- */

/* Tags whose children are never code, so the walk need not enter them.
 * Everything else is entered, as LLVM does, in case a subprogram hides in
 * it; structure types only outside C, where they can hold methods. */
static int leaf_tag(uint32_t tag, const struct dwdie_unit *u)
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
		return u->lang == DW_LANG_C89 || u->lang == DW_LANG_C || u->lang == DW_LANG_C99 ||
		       u->lang == DW_LANG_C11;
	default:
		return 0;
	}
}

static int32_t add_scope(struct dw_cu *cu, uint64_t off, int32_t parent)
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

/* The naming attributes of a DIE into s (the first of each, as a lookup
 * by name finds it), and the pcs of its code into pc if not NULL. */
static int read_scope(struct dwinfo *d, const struct dwdie_unit *u, struct dwdie *die,
		      struct dw_scope *s, struct die_pcs *pc)
{
	const char *mips = NULL;
	struct dwdie_attr a;
	uint8_t seen_name = 0, seen_linkage = 0, seen_mips = 0, seen_origin = 0, seen_spec = 0;
	uint8_t seen_file = 0, seen_line = 0, seen_column = 0;
	uint64_t v;
	int r;

	while ((r = dwdie_attr(d->die, u, die, &a)) > 0) {
		switch (a.name) {
		case DW_AT_name:
			if (!seen_name++)
				s->own_name = dwdie_string(d->die, u, &a);
			break;
		case DW_AT_linkage_name:
			if (!seen_linkage++)
				s->own_linkage = dwdie_string(d->die, u, &a);
			break;
		case DW_AT_external:
			s->external = a.form == DW_FORM_flag_present || (a.form == DW_FORM_flag && a.val);
			break;
		case DW_AT_MIPS_linkage_name:
			if (!seen_mips++)
				mips = dwdie_string(d->die, u, &a);
			break;
		case DW_AT_abstract_origin:
			if (!seen_origin++ && dwdie_ref(u, &a, &v) == 0)
				s->origin = v;
			break;
		case DW_AT_specification:
			if (!seen_spec++ && dwdie_ref(u, &a, &v) == 0)
				s->spec = v;
			break;
		/* LLVM reads a missing call_file as file 0. */
		case DW_AT_call_file:
			if (!seen_file++ && dwdie_udata(&a, &v) == 0 && v <= UINT32_MAX)
				s->call_file = (uint32_t)v;
			break;
		case DW_AT_call_line:
			if (!seen_line++ && dwdie_udata(&a, &v) == 0 && v <= UINT32_MAX)
				s->call_line = (uint32_t)v;
			break;
		case DW_AT_call_column:
			if (!seen_column++ && dwdie_udata(&a, &v) == 0 && v <= UINT32_MAX)
				s->call_column = (uint32_t)v;
			break;
		default:
			if (pc)
				note_pcs(pc, &a);
			break;
		}
	}
	if (!s->own_linkage)
		s->own_linkage = mips;
	return r;
}

static int nest_tag(uint32_t tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_subprogram;
}

/* Records die as a nest of the unit, inside parent; returns its index. */
static int32_t add_nest(struct dw_cu *cu, const struct dwdie *die, const char *name,
			int32_t parent, int32_t scope)
{
	struct dw_nest *n;

	if (cu->nnests >= INT32_MAX)
		return -1;
	cu->nests = xgrow(cu->nests, &cu->capnests, cu->nnests + 1, sizeof(*cu->nests));
	n = &cu->nests[cu->nnests];
	*n = (struct dw_nest){ .off = die->off, .name = name, .parent = parent, .scope = scope,
			       .tag = die->tag };
	return (int32_t)cu->nnests++;
}

/* Records die if it is a function or an inlined instance, and reads its
 * attributes either way; returns the scope its children see as their
 * caller, or -2 if the DIE is damaged. *name gets a namespace's or
 * class's DW_AT_name. */
static int32_t visit(struct dwinfo *d, struct dw_cu *cu, struct dwdie *die, int32_t parent,
		     const char **name)
{
	const struct dwdie_unit *u = &d->units[cu->unit];
	struct die_pcs pc = { 0 };
	struct dw_scope *s;
	int32_t i;

	*name = NULL;
	if (die->tag != DW_TAG_subprogram && die->tag != DW_TAG_inlined_subroutine) {
		struct dw_scope named = { 0 };

		if (!nest_tag(die->tag))
			return dwdie_skip(d->die, u, die) < 0 ? -2 : parent;
		if (read_scope(d, u, die, &named, NULL) < 0)
			return -2;
		*name = named.own_name;
		return parent;
	}
	/* A subprogram ends the chain, even one nested in another. */
	i = add_scope(cu, die->off, die->tag == DW_TAG_subprogram ? -1 : parent);
	if (i < 0)
		return dwdie_skip(d->die, u, die) < 0 ? -2 : parent;
	s = &cu->scopes[i];
	if (read_scope(d, u, die, s, &pc) < 0)
		return -2;
	if (die->tag != DW_TAG_inlined_subroutine)
		s->call_file = s->call_line = s->call_column = 0;
	add_pcs(d, u, &pc, (uint64_t)i, (uint32_t)i);
	return i;
}

/* Walks the unit's DIE tree depth first, in the order of the DIEs. The
 * children of a DIE that holds no code (leaf_tag()), and any deeper than
 * MAX_DEPTH, are passed over: by its DW_AT_sibling where it has one, else
 * DIE by DIE. A damaged DIE ends the walk there. Namespaces, classes and
 * functions are kept as nests, for the scopes of names. */
static void walk_unit(struct dwinfo *d, struct dw_cu *cu)
{
	const struct dwdie_unit *u = &d->units[cu->unit];
	int32_t scopes[MAX_DEPTH], nests[MAX_DEPTH], scope = -1, nest = -1;
	size_t depth = 0, over = 0;  /* over: the depth inside a subtree passed over */
	struct dwdie die;
	uint64_t off;

	if (dwdie_begin(d->die, u, u->die, &die) < 0 || dwdie_skip(d->die, u, &die) < 0 ||
	    !die.children)
		return;
	off = die.next;
	while (off < u->end && dwdie_begin(d->die, u, off, &die) == 0) {
		const char *name;
		int32_t mine, inner;

		if (!die.tag) {
			off = die.next;
			if (over) {
				over--;
			} else if (depth) {
				if (nest >= 0 && nest != nests[depth - 1])
					cu->nests[nest].end = off;
				scope = scopes[--depth];
				nest = nests[depth];
			} else {
				break;
			}
			continue;
		}
		if (over) {
			if (dwdie_skip(d->die, u, &die) < 0)
				break;
			over += die.children;
			off = die.next;
			continue;
		}
		if (die.children && leaf_tag(die.tag, u)) {
			uint64_t sib = dwdie_sibling(d->die, u, &die);

			if (!die.next)
				break;
			if (sib) {
				off = sib;
			} else {
				over = 1;
				off = die.next;
			}
			continue;
		}
		mine = visit(d, cu, &die, scope, &name);
		if (mine == -2)
			break;
		off = die.next;
		inner = nest;
		if (die.children && depth < MAX_DEPTH && nest_tag(die.tag)) {
			inner = add_nest(cu, &die, name, nest,
					 die.tag == DW_TAG_subprogram ? mine : -1);
			if (inner < 0)
				inner = nest;
		}
		if (die.children && depth == MAX_DEPTH) {
			over = 1;
		} else if (die.children) {
			nests[depth] = nest;
			scopes[depth++] = scope;
			scope = mine;
			nest = inner;
		}
	}
}

/* The line table and the DIEs of a unit, on the first lookup in it. */
static void load_unit(struct dwinfo *d, struct dw_cu *cu)
{
	struct dwdie_unit *u = &d->units[cu->unit];
	const char *comp_dir = NULL;
	uint64_t stmt_list = 0, v;
	int has_stmt_list = 0;
	struct dwdie die;
	struct dwdie_attr a;
	int prev = timing_enter(TIMING_UNITS);

	dwdie_unit_die(d->die, u);
	if (dwdie_begin(d->die, u, u->die, &die) == 0) {
		while (dwdie_attr(d->die, u, &die, &a) > 0) {
			if (a.name == DW_AT_stmt_list && !has_stmt_list) {
				/* DW_FORM_sec_offset, or data4/data8 before DWARF 4. */
				stmt_list = dwdie_offset(&a, &v) == 0 ? v : UINT64_MAX;
				has_stmt_list = 1;
			} else if (a.name == DW_AT_comp_dir && !comp_dir) {
				comp_dir = dwdie_string(d->die, u, &a);
			}
		}
	}
	if (has_stmt_list && !d->names_only)
		dwline_read(&cu->lines, &d->secs, stmt_list, comp_dir);
	walk_unit(d, cu);
	dwspan_fold(&d->iv, &cu->spans, &cu->nspans);
	cu->state = CU_READ;
	d->nread++;
	timing_leave(prev);
}

/* ---- names ---- */

static int cmp_scope_off(const void *key, const void *elem)
{
	uint64_t off = *(const uint64_t *)key, at = ((const struct dw_scope *)elem)->off;

	return (off > at) - (off < at);
}

/* The scope of the unit at DIE offset off (scopes ascend by offset). */
static struct dw_scope *scope_at(struct dw_cu *cu, uint64_t off)
{
	return cu->nscopes ? bsearch(&off, cu->scopes, cu->nscopes, sizeof(*cu->scopes), cmp_scope_off)
			   : NULL;
}

/* The naming attributes of the DIE at off: from its scope if the walk
 * recorded one, else read from the DIE (a reference into another unit,
 * or to a DIE the walk does not record). */
static int die_at(struct dwinfo *d, struct dw_cu *cu, uint64_t off, struct dw_scope *out)
{
	struct dw_scope *s = scope_at(cu, off);
	const struct dwdie_unit *u;
	struct dwdie die;

	if (s) {
		*out = *s;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->off = off;
	if (!(u = unit_of(d, off)) || dwdie_begin(d->die, u, off, &die) < 0 || !die.tag)
		return -1;
	read_scope(d, u, &die, out, NULL);
	return 0;
}

/* The compile or partial unit whose DIEs hold offset off, read, or NULL. */
static struct dw_cu *cu_of(struct dwinfo *d, uint64_t off)
{
	size_t lo = 0, hi = d->ncus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->units[d->cus[mid].unit].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->ncus || d->units[d->cus[lo].unit].off > off)
		return NULL;
	if (d->cus[lo].state == CU_UNREAD)
		load_unit(d, &d->cus[lo]);
	return &d->cus[lo];
}

static int cxx_lang(unsigned lang)
{
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14 ||
	       lang == DW_LANG_C_plus_plus_17 || lang == DW_LANG_C_plus_plus_20;
}

static const char *scope_name(struct dwinfo *d, struct dw_cu *cu, struct dw_scope *s);

/* The longest scope prefix built; a deeper one keeps its innermost parts. */
#define MAX_QUALIFIED 4096

/* name, the DW_AT_name of the DIE at off, qualified by the namespaces,
 * classes and functions that hold that DIE: "ns::Class::name", as the
 * demangled linkage names of C++ read. An anonymous namespace reads
 * "(anonymous namespace)", as the demangler writes it; a class without a
 * name "{lambda}" inside a function (a lambda's closure, which is what a
 * function's unnamed class nearly always is), else "{unnamed type}". */
static const char *qualified(struct dwinfo *d, uint64_t off, const char *name)
{
	struct dw_cu *cu = cu_of(d, off);
	const char *parts[MAX_DEPTH];
	size_t nparts = 0, lo = 0, hi, len;
	int32_t n;
	char *out, *p;

	if (!cu || !cu->nnests)
		return name;
	/* The last nest that starts before off, then out to one that holds it. */
	hi = cu->nnests;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->nests[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	n = (int32_t)lo - 1;
	while (n >= 0 && cu->nests[n].end && cu->nests[n].end <= off)
		n = cu->nests[n].parent;
	len = strlen(name);
	for (; n >= 0 && nparts < MAX_DEPTH; n = cu->nests[n].parent) {
		const struct dw_nest *ne = &cu->nests[n];
		const char *part = ne->name;

		if (ne->tag == DW_TAG_subprogram) {
			part = ne->scope >= 0 ? scope_name(d, cu, &cu->scopes[ne->scope]) : NULL;
			if (!part)
				break;
		} else if (!part && ne->tag == DW_TAG_namespace) {
			part = "(anonymous namespace)";
		} else if (!part) {
			part = ne->parent >= 0 && cu->nests[ne->parent].tag == DW_TAG_subprogram
				       ? "{lambda}" : "{unnamed type}";
		}
		if (len + strlen(part) + 2 > MAX_QUALIFIED)
			break;
		len += strlen(part) + 2;
		parts[nparts++] = part;
		/* A function's name is already qualified. */
		if (ne->tag == DW_TAG_subprogram)
			break;
	}
	if (!nparts)
		return name;
	p = out = xmalloc(len + 1);
	while (nparts--) {
		size_t k = strlen(parts[nparts]);

		memcpy(p, parts[nparts], k);
		memcpy(p + k, "::", 2);
		p += k + 2;
	}
	strcpy(p, name);
	name = keep_string(d, out, len);
	free(out);
	return name;
}

/* The scope's names, found as LLVM finds them: on the DIE or, failing
 * that, through DW_AT_specification and DW_AT_abstract_origin (depth
 * first, the specification first). A mangled linkage name is demangled,
 * without parameters as the name and with them as the signature;
 * otherwise DW_AT_name is preferred, because a C function's linkage name
 * is an assembler label (libc's __GI_ aliases), and in C++ it is
 * qualified by the scopes of the DIE that carries it, unless the function
 * is external: one with external linkage but no linkage name has C's
 * (main, extern "C"), and C names have no scope. Returns the name. */
static const char *scope_name(struct dwinfo *d, struct dw_cu *cu, struct dw_scope *s)
{
	uint64_t work[MAX_HOPS], seen[MAX_HOPS], name_off = 0;
	size_t nwork = 0, nseen = 0, i, k;
	const char *linkage = NULL, *name = NULL;
	char *dm;
	int lang, external = 0;

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
		if (!name && at.own_name) {
			name = at.own_name;
			name_off = at.off;
		}
		external |= at.external;
		for (k = 0; k < 2; k++) {
			uint64_t ref = k ? at.spec : at.origin;

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
	if (linkage && (dm = demangle_name_lang(linkage, DEMANGLE_NO_PARAMS, &lang))) {
		s->name = s->sig = keep_string(d, dm, strlen(dm));
		s->linkage = 1;
		free(dm);
		if (lang == DEMANGLE_LANG_CXX && (dm = demangle_name(linkage, 0))) {
			if (strcmp(dm, s->name))
				s->sig = keep_string(d, dm, strlen(dm));
			free(dm);
		}
	} else if (name && name[0] && !external && cxx_lang(d->units[cu->unit].lang) &&
		   d->naming < 8) {
		d->naming++;
		s->name = s->sig = qualified(d, name_off, name);
		d->naming--;
	} else {
		s->name = s->sig = name ? name : linkage;
	}
	if (s->name && !s->name[0])
		s->name = s->sig = NULL;
	return s->name;
}

/* ---- the interface ---- */

int dwinfo_lookup(struct dwinfo *d, uint64_t addr, struct dwinfo_frame *frames, size_t max)
{
	const struct dwspan *sp = dwspan_find(d->cuspans, d->ncuspans, addr);
	const struct dwline_row *row;
	const char *file;
	const uint8_t *md5;
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
	md5 = row ? dwline_file_md5(&cu->lines, row->file) : NULL;
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
			frames[n].signature = sc->sig;
			frames[n].linkage = sc->linkage;
			frames[n].file = file;
			frames[n].file_md5 = md5;
			frames[n].line = line;
			frames[n].column = column;
			frames[n].lang = d->units[cu->unit].lang;
			n++;
		}
		file = dwline_file(&cu->lines, sc->call_file);
		md5 = dwline_file_md5(&cu->lines, sc->call_file);
		line = d->names_only ? 0 : sc->call_line;
		column = d->names_only ? 0 : sc->call_column;
		s = sc->parent;
	}
	return (int)n;
}

size_t dwinfo_rows(struct dwinfo *d, uint64_t lo, uint64_t hi, uint64_t *starts, size_t max)
{
	const struct dwspan *sp = dwspan_find(d->cuspans, d->ncuspans, lo);
	const struct dwline *l;
	size_t a, b, n = 0;
	struct dw_cu *cu;

	if (!sp || lo >= hi)
		return 0;
	cu = &d->cus[sp->owner];
	if (cu->state == CU_UNREAD)
		load_unit(d, cu);
	l = &cu->lines;
	/* Rows are sorted by lo: the first that ends past lo may start
	 * before it. */
	a = 0;
	b = l->nrows;
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (l->rows[mid].lo < lo)
			a = mid + 1;
		else
			b = mid;
	}
	if (a > 0 && l->rows[a - 1].hi > lo)
		a--;
	for (; a < l->nrows && l->rows[a].lo < hi && n < max; a++) {
		uint64_t at = l->rows[a].lo > lo ? l->rows[a].lo : lo;

		if (l->rows[a].hi > lo && (n == 0 || starts[n - 1] < at))
			starts[n++] = at;
	}
	return n;
}

void dwinfo_names_only(struct dwinfo *d)
{
	d->names_only = 1;
}

size_t dwinfo_units(const struct dwinfo *d, size_t *loaded)
{
	if (loaded)
		*loaded = d->nread;
	return d->ncus;
}

/* The sections kept: what DIEs, names, ranges and line tables need.
 * Locations, frames, macros and the rest stay out, so they are never
 * inflated. */
static const char *const wanted_sections[] = {
	".debug_info", ".debug_abbrev", ".debug_aranges", ".debug_line", ".debug_line_str",
	".debug_str", ".debug_str_offsets", ".debug_addr", ".debug_ranges", ".debug_rnglists", NULL,
};

int dwinfo_new(const struct dwinfo_section *secs, size_t nsecs, struct dwinfo **out)
{
	struct dwinfo *d = xcalloc(1, sizeof(*d));
	size_t info;
	int err;

	*out = NULL;
	err = dwsect_take(&d->secs, secs, nsecs, wanted_sections);
	if (err < 0)
		goto fail;
	info = dwsect_index(&d->secs, ".debug_info");
	if (!info || !d->secs.v[info].size) {
		err = DWINFO_E_NODEBUG;
		goto fail;
	}
	if (!dwsect_data(&d->secs, info)) {
		err = DWINFO_E_COMPRESSED; /* it is there, so inflating it failed */
		goto fail;
	}
	d->die = dwdie_new(&d->secs);
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
		free(d->cus[i].scopes);
		free(d->cus[i].spans);
		free(d->cus[i].nests);
		dwline_release(&d->cus[i].lines);
	}
	free(d->cus);
	free(d->units);
	free(d->cuspans);
	dwdie_free(d->die);
	dwsect_release(&d->secs);
	while (d->strings) {
		struct dw_block *b = d->strings;
		d->strings = b->next;
		free(b);
	}
	dwspan_set_release(&d->iv);
	free(d);
}
