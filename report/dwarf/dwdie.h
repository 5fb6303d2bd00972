/*
 * dwdie.h: DWARF debugging information entries read straight from the
 * bytes of .debug_info and .debug_abbrev, with the values of their
 * attributes: strings, addresses, constants, references and range lists.
 *
 * The sections are the caller's report/dwarf/dwsect.h table, of which each is
 * asked for (and so, if compressed, inflated) the first time a read
 * needs it. Units are found by their headers (DWARF 2 to 5, 32- and
 * 64-bit, compile, partial, type and skeleton units); each unit's
 * abbreviation table is parsed as far as the codes looked up need, shared
 * by the units that name it, with the size of every abbreviation's values
 * worked out in advance where all their forms have a fixed size, so most
 * DIEs are stepped over in one move. Everything is read through the
 * bounded cursor of common/bytes.h and is untrusted: damage gives an
 * error or no value, never a read out of bounds.
 *
 * Library code: returns 0 (or a value) for success and -1 for damage; it
 * never prints.
 */
#ifndef REPORT_DWDIE_H
#define REPORT_DWDIE_H

#include <stddef.h>
#include <stdint.h>

#include "common/bytes.h"
#include "report/dwarf/dwsect.h"

struct dwdie_abbrevs;

/* One unit of .debug_info, from its header and (once die_read) its unit
 * DIE. */
struct dwdie_unit {
	uint64_t off;            /* of the unit header in .debug_info */
	uint64_t end;            /* past the unit */
	uint64_t die;            /* of the unit DIE */
	uint16_t version;        /* 2 to 5 */
	uint8_t type;            /* DW_UT_*: before DWARF 5, DW_UT_compile */
	uint8_t addr_size;       /* 4 or 8 */
	uint8_t offset_size;     /* 4 (32-bit DWARF) or 8 */
	uint16_t tag;            /* of the unit DIE, 0 if it cannot be read */
	uint16_t lang;           /* DW_AT_language, or 0 */
	uint64_t low_pc;         /* DW_AT_low_pc, the base of its range lists, or 0 */
	uint8_t has_low_pc;
	uint64_t str_offsets_base, addr_base, rnglists_base;
	uint8_t has_str_offsets_base, has_addr_base, has_rnglists_base;
	uint8_t bad_rnglists_base; /* a DW_AT_rnglists_base of another form */
	uint64_t abbrev_off;     /* of its table in .debug_abbrev */
	struct dwdie_abbrevs *abbrevs; /* NULL if its table is outside .debug_abbrev,
	                          * or the unit DIE is not read yet */
	uint8_t die_read;        /* dwdie_unit_die() has run */
};

/* One DIE being read. */
struct dwdie {
	uint64_t off;            /* in .debug_info */
	uint32_t tag;            /* 0 for the null entry that ends a list */
	uint8_t children;        /* it has children (they follow it) */
	uint64_t next;           /* once its attributes are read or skipped:
	                          * the offset after them (its first child, or
	                          * its next sibling) */
	/* private */
	struct cursor c;         /* its values, up to the end of the unit */
	uint32_t ab;             /* its abbreviation's index + 1, or 0 */
	uint32_t attr;           /* the next value's */
};

/* One attribute's value, as stored. */
struct dwdie_attr {
	uint32_t name, form;
	uint64_t val;            /* a constant, index, offset or address;
	                          * the length of a block */
	const uint8_t *data;     /* DW_FORM_string's text; a block's bytes */
};

struct dwdie_file;

/* A reader over the sections of t (borrowed until dwdie_free()). Caller
 * frees. */
struct dwdie_file *dwdie_new(struct dwsect_table *t);
void dwdie_free(struct dwdie_file *f);

/* Reads the unit whose header is at off in .debug_info, and its unit DIE.
 * Returns 0, or -1 if the header is damaged (then no unit after it can be
 * found); a unit whose DIE is damaged reads with tag 0. */
int dwdie_unit(struct dwdie_file *f, uint64_t off, struct dwdie_unit *u);
/* The same in two steps, for a reader that needs the unit DIE of few of
 * the units: the header alone (0, or -1 as dwdie_unit()), then the unit
 * DIE, at most once however often it is asked. Until then, u's fields
 * from the DIE are 0 and no DIE of u can be read. */
int dwdie_unit_header(struct dwdie_file *f, uint64_t off, struct dwdie_unit *u);
void dwdie_unit_die(struct dwdie_file *f, struct dwdie_unit *u);

/* Starts reading the DIE at off of unit u. Returns 0, or -1 if it is past
 * the unit or its abbreviation is unknown. */
int dwdie_begin(struct dwdie_file *f, const struct dwdie_unit *u, uint64_t off, struct dwdie *d);
/* The next attribute of d into *a: returns 1, 0 when there are no more (d->next
 * is then set), or -1 on damage. */
int dwdie_attr(struct dwdie_file *f, const struct dwdie_unit *u, struct dwdie *d,
	       struct dwdie_attr *a);
/* Steps over the attributes of d that are left and sets d->next. Returns
 * 0, or -1 on damage. */
int dwdie_skip(struct dwdie_file *f, const struct dwdie_unit *u, struct dwdie *d);
/* The offset of d's next sibling given by its DW_AT_sibling, or 0 if it
 * has none or it does not point forward inside the unit. Reads d's
 * attributes (d->next is set). */
uint64_t dwdie_sibling(struct dwdie_file *f, const struct dwdie_unit *u, struct dwdie *d);

/* Reads one value of form (from a unit of these sizes and version; an
 * implicit constant's value is imp) at c into a, whose name is left as
 * it is. DW_FORM_indirect reads as the form it names. Returns 0, or -1
 * (c poisoned) if it does not fit or the form is unknown. For the other
 * readers of forms, such as the line table's entry formats. */
int dwdie_value(struct cursor *c, uint32_t form, int64_t imp, unsigned addr_size,
		unsigned offset_size, unsigned version, struct dwdie_attr *a);

/* Reads a DWARF initial length at c: 4 bytes, or 0xffffffff and 8 (then
 * *offset_size is 8, else 4). Returns 0, or -1 if the bytes run out, it
 * is one of the reserved values, or it says more than c holds. */
int dwdie_length(struct cursor *c, uint64_t *len, unsigned *offset_size);

/* The value of an attribute as a string (DW_FORM_string, strp, line_strp,
 * strx*), or NULL if it is not one or lies outside its section. */
const char *dwdie_string(struct dwdie_file *f, const struct dwdie_unit *u,
			 const struct dwdie_attr *a);
/* As an unsigned constant (data1 to data8, udata, and an implicit_const
 * that is not negative). Returns 0, or -1 if it is not one. */
int dwdie_udata(const struct dwdie_attr *a, uint64_t *v);
/* As an address (addr, addrx*, through .debug_addr). 0 or -1. */
int dwdie_addr(struct dwdie_file *f, const struct dwdie_unit *u, const struct dwdie_attr *a,
	       uint64_t *v);
/* As a reference, made a .debug_info offset (ref1 to ref8 and ref_udata
 * inside the unit, ref_addr anywhere). 0 or -1. */
int dwdie_ref(const struct dwdie_unit *u, const struct dwdie_attr *a, uint64_t *off);
/* As an offset into another section (sec_offset, or a constant as DWARF
 * 2 and 3 write them). 0 or -1. */
int dwdie_offset(const struct dwdie_attr *a, uint64_t *v);

/* Calls fn for each address range [lo, hi) of DW_AT_ranges value a of a
 * DIE of unit u (.debug_ranges before DWARF 5, .debug_rnglists from it;
 * a base address entry and the unit's DW_AT_low_pc as bases; entries that
 * start at a tombstone, the address the linker gives dropped code, are
 * left out). At most max entries are read. Returns 0, or -1 if the list
 * cannot be found or breaks (the ranges before the break were given). */
int dwdie_ranges(struct dwdie_file *f, const struct dwdie_unit *u, const struct dwdie_attr *a,
		 size_t max, void (*fn)(void *ctx, uint64_t lo, uint64_t hi), void *ctx);
/* Whether lo is a tombstone for this address size: the highest address,
 * or the one below it (which .debug_ranges uses, where the highest means
 * a base address entry). */
int dwdie_tombstone(uint64_t lo, unsigned addr_size);

#endif
