/*
 * cfi.c: an .eh_frame reader and DW_CFA interpreter, from bytes that may
 * be hostile.
 *
 * The layout is the LSB's: a sequence of length-prefixed CIEs and FDEs,
 * where an FDE points back at its CIE, and pointers are encoded as the
 * CIE's augmentation ('R', 'P', 'L') says (DW_EH_PE_*: an integer form in
 * the low nibble, a base in the high one). A lookup finds the FDE by
 * binary search, in .eh_frame_hdr's table when it has the usual
 * datarel|sdata4 form, else in an index sorted once at load; then the
 * CIE's initial instructions and the FDE's instructions are run until the
 * location passes the pc. Only the columns an unwinder needs (the return
 * address and the frame pointer) are kept, plus remember/restore_state;
 * everything else is parsed and skipped. Instruction counts, state-stack
 * depth, expression steps and expression stacks are capped, so no input
 * loops or overflows.
 */
#include "cfi.h"
#include "common/bytes.h"
#include "common/diag.h"
#include "common/dwconst.h"

#include <stdlib.h>
#include <string.h>

#define MAX_INSNS 4096      /* per CIE + FDE run */
#define MAX_STATES 16       /* remember_state depth */
#define MAX_STACK 32        /* DWARF expression stack (glibc's PLT expression needs 3) */
#define MAX_STEPS 256       /* expression operations run, loops included (that one runs 9) */

#define PE_OMIT 0xff
#define PE_ABSPTR 0x00
#define PE_ULEB128 0x01
#define PE_UDATA2 0x02
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SLEB128 0x09
#define PE_SDATA2 0x0a
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL 0x10
#define PE_DATAREL 0x30
#define PE_INDIRECT 0x80

struct fde_ref {
	uint64_t pc;
	uint64_t off;       /* of the FDE in .eh_frame */
};

struct cfi_table {
	struct cfi_sections s;
	const uint8_t *hdr_tab;   /* the search table, if used */
	size_t hdr_count;
	struct fde_ref *idx;
	size_t nidx;
};

/* A bounded reader: the common cursor over [pos, end) of buf, whose
 * byte 0 is at target address base (for pc-relative pointers). */
struct rd {
	struct cursor c;
	const uint8_t *buf;
	uint64_t base;
};

static void rd_init(struct rd *r, const uint8_t *buf, size_t pos, size_t end, uint64_t base)
{
	cursor_init(&r->c, buf + pos, end - pos);
	r->buf = buf;
	r->base = base;
}

/* The offset in buf of the next byte. */
static size_t rd_pos(const struct rd *r)
{
	return (size_t)(r->c.p - r->buf);
}

static uint64_t rd_u(struct rd *r, unsigned n)
{
	uint64_t v;

	cursor_le(&r->c, n, &v);
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v;

	cursor_uleb(&r->c, &v);
	return v;
}

static int64_t rd_sleb(struct rd *r)
{
	int64_t v;

	cursor_sleb(&r->c, &v);
	return v;
}

/* v * align: the factored offsets of DW_CFA_offset and its kin. An offset
 * that overflows is a corrupt instruction, not undefined arithmetic. */
static int64_t rd_factored(struct rd *r, int64_t v, int64_t align)
{
	int64_t out;

	if (__builtin_mul_overflow(v, align, &out)) {
		cursor_fail(&r->c);
		return 0;
	}
	return out;
}

/* Reads a pointer in encoding enc. datarel is relative to data_base. */
static uint64_t rd_ptr(struct rd *r, uint8_t enc, uint64_t data_base)
{
	uint64_t at = r->base + rd_pos(r), v;

	if (enc == PE_OMIT) {
		cursor_fail(&r->c);
		return 0;
	}
	switch (enc & 0x0f) {
	case PE_ABSPTR: v = rd_u(r, 8); break;
	case PE_ULEB128: v = rd_uleb(r); break;
	case PE_UDATA2: v = rd_u(r, 2); break;
	case PE_UDATA4: v = rd_u(r, 4); break;
	case PE_UDATA8: v = rd_u(r, 8); break;
	case PE_SLEB128: v = (uint64_t)rd_sleb(r); break;
	case PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)rd_u(r, 2); break;
	case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)rd_u(r, 4); break;
	case PE_SDATA8: v = rd_u(r, 8); break;
	default: cursor_fail(&r->c); return 0;
	}
	switch (enc & 0x70) {
	case 0: break;
	case PE_PCREL: v += at; break;
	case PE_DATAREL: v += data_base; break;
	default: cursor_fail(&r->c); return 0;  /* textrel, funcrel, aligned: not in .eh_frame here */
	}
	if (enc & PE_INDIRECT)
		cursor_fail(&r->c);  /* would need the target's memory */
	return v;
}

/* Low-nibble-only read, for pc_range. */
static uint64_t rd_range(struct rd *r, uint8_t enc)
{
	return rd_ptr(r, enc & 0x0f, 0);
}

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc;
	int has_z, signal;
	size_t insn, insn_end;  /* initial instructions, offsets in .eh_frame */
};

/* The entry at off: its content [*body, *end) after the length field, and
 * the id/CIE-pointer word's offset. Returns 0, 1 for the terminator, or
 * CFI_E_CORRUPT. */
static int entry_at(const struct cfi_sections *s, uint64_t off, size_t *idpos, size_t *end)
{
	struct rd r;
	uint64_t len;

	if (off >= s->eh_frame_len)
		return CFI_E_CORRUPT;
	rd_init(&r, s->eh_frame, (size_t)off, s->eh_frame_len, s->eh_frame_addr);
	len = rd_u(&r, 4);
	if (!r.c.ok)
		return CFI_E_CORRUPT;
	if (len == 0)
		return 1;
	if (len == 0xffffffffu) {
		rd_u(&r, 8);
		if (!r.c.ok)
			return CFI_E_CORRUPT;
		return CFI_E_UNSUPPORTED;  /* 64-bit DWARF: ids are 8 bytes, not used by GCC/LLVM here */
	}
	if (len < 4 || len > r.c.left)
		return CFI_E_CORRUPT;
	*idpos = rd_pos(&r);
	*end = *idpos + (size_t)len;
	return 0;
}

static int parse_cie(const struct cfi_sections *s, uint64_t off, struct cie *c)
{
	size_t idpos, end;
	int e = entry_at(s, off, &idpos, &end);
	struct rd r;
	const char *aug;
	size_t auglen;
	uint8_t version;

	if (e)
		return e > 0 ? CFI_E_CORRUPT : e;
	rd_init(&r, s->eh_frame, idpos, end, s->eh_frame_addr);
	if (rd_u(&r, 4) != 0 || !r.c.ok)
		return CFI_E_CORRUPT;   /* not a CIE */
	memset(c, 0, sizeof(*c));
	c->fde_enc = PE_ABSPTR;
	version = (uint8_t)rd_u(&r, 1);
	if (!r.c.ok || (version != 1 && version != 3 && version != 4))
		return CFI_E_UNSUPPORTED;
	if (cursor_cstr(&r.c, &aug) < 0)
		return CFI_E_CORRUPT;
	auglen = strlen(aug);
	if (version == 4) {
		if (rd_u(&r, 1) != 8 || rd_u(&r, 1) != 0)
			return CFI_E_UNSUPPORTED;
	}
	c->code_align = rd_uleb(&r);
	c->data_align = rd_sleb(&r);
	c->ra_reg = version == 1 ? rd_u(&r, 1) : rd_uleb(&r);
	if (!r.c.ok)
		return CFI_E_CORRUPT;
	if (auglen && aug[0] == 'z') {
		uint64_t zlen = rd_uleb(&r);
		size_t zend;
		if (!r.c.ok || zlen > r.c.left)
			return CFI_E_CORRUPT;
		zend = rd_pos(&r) + (size_t)zlen;
		c->has_z = 1;
		for (size_t i = 1; i < auglen && r.c.ok; i++) {
			uint8_t enc;
			switch (aug[i]) {
			case 'R': c->fde_enc = (uint8_t)rd_u(&r, 1); break;
			case 'L': rd_u(&r, 1); break;
			case 'P':
				/* The personality pointer is often indirect: skip
				 * it by its size, it is not needed to unwind. */
				enc = (uint8_t)rd_u(&r, 1);
				switch (enc & 0x0f) {
				case PE_ABSPTR: case PE_UDATA8: case PE_SDATA8: cursor_skip(&r.c, 8); break;
				case PE_UDATA4: case PE_SDATA4: cursor_skip(&r.c, 4); break;
				case PE_UDATA2: case PE_SDATA2: cursor_skip(&r.c, 2); break;
				case PE_ULEB128: rd_uleb(&r); break;
				case PE_SLEB128: rd_sleb(&r); break;
				default: return CFI_E_UNSUPPORTED;
				}
				if (rd_pos(&r) > zend)
					return CFI_E_CORRUPT;
				break;
			case 'S': c->signal = 1; break;
			case 'B': break;   /* AArch64: signed with the B key, stripped all the same */
			default:
				i = auglen;   /* unknown: the z length lets us skip the rest */
				break;
			}
		}
		if (!r.c.ok || rd_pos(&r) > zend)
			return CFI_E_CORRUPT;
		cursor_skip(&r.c, zend - rd_pos(&r));
	} else if (auglen && strcmp(aug, "eh") != 0) {
		return CFI_E_UNSUPPORTED;  /* data we cannot size */
	}
	c->insn = rd_pos(&r);
	c->insn_end = end;
	return 0;
}

/* The FDE at off: its CIE, pc range and instructions. */
struct fde {
	struct cie cie;
	uint64_t pc, range;
	size_t insn, insn_end;
};

static int parse_fde(const struct cfi_sections *s, uint64_t off, struct fde *f)
{
	size_t idpos, end;
	int e = entry_at(s, off, &idpos, &end);
	struct rd r;
	uint64_t ciep;

	if (e)
		return e > 0 ? CFI_E_CORRUPT : e;
	rd_init(&r, s->eh_frame, idpos, end, s->eh_frame_addr);
	ciep = rd_u(&r, 4);
	if (!r.c.ok || ciep == 0 || ciep > idpos)
		return CFI_E_CORRUPT;
	e = parse_cie(s, idpos - ciep, &f->cie);
	if (e)
		return e;
	f->pc = rd_ptr(&r, f->cie.fde_enc, 0);
	f->range = rd_range(&r, f->cie.fde_enc);
	if (f->cie.has_z)
		cursor_skip(&r.c, rd_uleb(&r));
	if (!r.c.ok)
		return CFI_E_CORRUPT;
	f->insn = rd_pos(&r);
	f->insn_end = end;
	return 0;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct fde_ref *x = a, *y = b;
	return (x->pc > y->pc) - (x->pc < y->pc);
}

/* Uses .eh_frame_hdr if it is version 1 with a datarel|sdata4 table whose
 * entries all fit. */
static void use_hdr(struct cfi_table *t)
{
	const struct cfi_sections *s = &t->s;
	struct rd r;
	uint8_t ptr_enc, cnt_enc, tab_enc;
	uint64_t count;

	if (!s->hdr || s->hdr_len < 4 || s->hdr[0] != 1)
		return;
	ptr_enc = s->hdr[1];
	cnt_enc = s->hdr[2];
	tab_enc = s->hdr[3];
	if (tab_enc != (PE_DATAREL | PE_SDATA4) || cnt_enc == PE_OMIT || ptr_enc == PE_OMIT)
		return;
	rd_init(&r, s->hdr, 4, s->hdr_len, s->hdr_addr);
	rd_ptr(&r, ptr_enc, s->hdr_addr);
	count = rd_ptr(&r, cnt_enc, s->hdr_addr);
	if (!r.c.ok || count == 0 || count > r.c.left / 8)
		return;
	t->hdr_tab = r.c.p;
	t->hdr_count = (size_t)count;
}

static void build_index(struct cfi_table *t)
{
	const struct cfi_sections *s = &t->s;
	size_t cap = 0;
	uint64_t off = 0;

	while (off < s->eh_frame_len) {
		size_t idpos, end;
		struct fde f;
		int e = entry_at(s, off, &idpos, &end);

		if (e == 1) {
			off += 4;
			continue;   /* a terminator; the linker may have merged more after it */
		}
		if (e < 0)
			break;
		if (get_le32(s->eh_frame + idpos) != 0 && parse_fde(s, off, &f) == 0 && f.range) {
			t->idx = xgrow(t->idx, &cap, t->nidx + 1, sizeof(*t->idx));
			t->idx[t->nidx++] = (struct fde_ref){ f.pc, off };
		}
		off = end;
	}
	if (t->nidx)
		qsort(t->idx, t->nidx, sizeof(*t->idx), cmp_ref);
}

int cfi_table_new(const struct cfi_sections *s, struct cfi_table **out)
{
	struct cfi_table *t = xcalloc(1, sizeof(*t));

	*out = NULL;
	t->s = *s;
	if (!s->eh_frame || s->eh_frame_len > UINT32_MAX)
		t->s.eh_frame_len = 0;
	use_hdr(t);
	if (!t->hdr_tab)
		build_index(t);
	if (!t->hdr_tab && !t->nidx) {
		cfi_table_free(t);
		return CFI_E_CORRUPT;
	}
	*out = t;
	return 0;
}

void cfi_table_free(struct cfi_table *t)
{
	if (!t)
		return;
	free(t->idx);
	free(t);
}

size_t cfi_table_count(const struct cfi_table *t) { return t->hdr_tab ? t->hdr_count : t->nidx; }
int cfi_table_uses_hdr(const struct cfi_table *t) { return t->hdr_tab != NULL; }

/* The offset of the FDE whose start is the greatest <= pc. */
static int find_fde(const struct cfi_table *t, uint64_t pc, uint64_t *off)
{
	size_t lo = 0, hi = t->hdr_tab ? t->hdr_count : t->nidx;

	if (t->hdr_tab) {
		uint64_t fde_addr;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			uint64_t start = t->s.hdr_addr + (uint64_t)(int64_t)(int32_t)get_le32(t->hdr_tab + 8 * mid);
			if (start <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0)
			return CFI_E_NOTFOUND;
		fde_addr = t->s.hdr_addr + (uint64_t)(int64_t)(int32_t)get_le32(t->hdr_tab + 8 * (lo - 1) + 4);
		if (fde_addr < t->s.eh_frame_addr || fde_addr - t->s.eh_frame_addr >= t->s.eh_frame_len)
			return CFI_E_CORRUPT;
		*off = fde_addr - t->s.eh_frame_addr;
		return 0;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->idx[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return CFI_E_NOTFOUND;
	*off = t->idx[lo - 1].off;
	return 0;
}

/* The interpreter's state: the CFA and the two tracked columns. */
struct state {
	uint8_t cfa_kind;
	uint16_t cfa_reg;
	int64_t cfa_offset;
	const uint8_t *expr;
	size_t expr_len;
	struct cfi_rule ra, fp;
};

struct interp {
	const struct cfi_sections *s;
	const struct cie *cie;
	uint16_t fp_reg, ra_reg;
	struct state init;      /* after the CIE: what restore goes back to */
	int have_init;
	unsigned insns;
};

static struct cfi_rule *column(struct interp *in, struct state *st, uint64_t reg)
{
	if (reg == in->ra_reg)
		return &st->ra;
	if (reg == in->fp_reg)
		return &st->fp;
	return NULL;
}

static void set_rule(struct interp *in, struct state *st, uint64_t reg, uint8_t kind, int64_t off, uint64_t r2)
{
	struct cfi_rule *c = column(in, st, reg);
	if (c) {
		c->kind = kind;
		c->offset = off;
		c->reg = (uint16_t)r2;
	}
}

static void restore_rule(struct interp *in, struct state *st, uint64_t reg)
{
	struct cfi_rule *c = column(in, st, reg);
	if (c)
		*c = reg == in->ra_reg ? in->init.ra : in->init.fp;
}

/* Runs [pos, end) until the location would pass pc. *loc is the current
 * location; *next becomes the first location past the row (or the end). */
static int run(struct interp *in, struct state *st, size_t pos, size_t end, uint64_t pc,
	       uint64_t *loc, uint64_t *next)
{
	struct rd r;
	struct state stack[MAX_STATES];
	unsigned depth = 0;
	const struct cie *c = in->cie;

	rd_init(&r, in->s->eh_frame, pos, end, in->s->eh_frame_addr);
	while (r.c.ok && r.c.left) {
		uint8_t op = (uint8_t)rd_u(&r, 1);
		uint64_t reg, delta = 0, newloc;
		int advance = 0;

		if (++in->insns > MAX_INSNS)
			return CFI_E_CORRUPT;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc: delta = op & 0x3f; advance = 1; break;
		case DW_CFA_offset:
			set_rule(in, st, op & 0x3f, CFI_RULE_OFFSET, rd_factored(&r, (int64_t)rd_uleb(&r), c->data_align), 0);
			continue;
		case DW_CFA_restore: restore_rule(in, st, op & 0x3f); continue;
		}
		if (!advance) {
			switch (op) {
			case DW_CFA_nop: break;
			case DW_CFA_set_loc:
				newloc = rd_ptr(&r, c->fde_enc, 0);
				if (!r.c.ok)
					return CFI_E_CORRUPT;
				if (newloc > pc) {
					*next = newloc;
					return 0;
				}
				*loc = newloc;
				break;
			case DW_CFA_advance_loc1: delta = rd_u(&r, 1); advance = 1; break;
			case DW_CFA_advance_loc2: delta = rd_u(&r, 2); advance = 1; break;
			case DW_CFA_advance_loc4: delta = rd_u(&r, 4); advance = 1; break;
			case DW_CFA_offset_extended:
				reg = rd_uleb(&r);
				set_rule(in, st, reg, CFI_RULE_OFFSET, rd_factored(&r, (int64_t)rd_uleb(&r), c->data_align), 0);
				break;
			case DW_CFA_restore_extended: restore_rule(in, st, rd_uleb(&r)); break;
			case DW_CFA_undefined: set_rule(in, st, rd_uleb(&r), CFI_RULE_UNDEFINED, 0, 0); break;
			case DW_CFA_same_value: set_rule(in, st, rd_uleb(&r), CFI_RULE_SAME, 0, 0); break;
			case DW_CFA_register:
				reg = rd_uleb(&r);
				set_rule(in, st, reg, CFI_RULE_REGISTER, 0, rd_uleb(&r));
				break;
			case DW_CFA_remember_state:
				if (depth == MAX_STATES)
					return CFI_E_UNSUPPORTED;
				stack[depth++] = *st;
				break;
			case DW_CFA_restore_state:
				if (depth == 0)
					return CFI_E_CORRUPT;
				*st = stack[--depth];   /* the CFA rule too, as readelf does */
				break;
			case DW_CFA_def_cfa:
				st->cfa_kind = CFI_CFA_REG;
				st->cfa_reg = (uint16_t)rd_uleb(&r);
				st->cfa_offset = (int64_t)rd_uleb(&r);
				break;
			case DW_CFA_def_cfa_register:
				st->cfa_kind = CFI_CFA_REG;
				st->cfa_reg = (uint16_t)rd_uleb(&r);
				break;
			case DW_CFA_def_cfa_offset:
				st->cfa_offset = (int64_t)rd_uleb(&r);
				break;
			case DW_CFA_def_cfa_expression:
				if (cursor_bytes(&r.c, SIZE_MAX, &st->expr, &st->expr_len) < 0)
					return CFI_E_CORRUPT;
				st->cfa_kind = CFI_CFA_EXPR;
				break;
			case DW_CFA_expression: case DW_CFA_val_expression: {
				const uint8_t *expr;
				size_t n;
				struct cfi_rule *col;
				reg = rd_uleb(&r);
				if (cursor_bytes(&r.c, SIZE_MAX, &expr, &n) < 0)
					return CFI_E_CORRUPT;
				col = column(in, st, reg);
				if (col) {
					col->kind = op == DW_CFA_expression ? CFI_RULE_EXPR : CFI_RULE_VAL_EXPR;
					col->offset = 0;
					col->expr = expr;
					col->expr_len = n;
				}
				break;
			}
			case DW_CFA_offset_extended_sf:
				reg = rd_uleb(&r);
				set_rule(in, st, reg, CFI_RULE_OFFSET, rd_factored(&r, rd_sleb(&r), c->data_align), 0);
				break;
			case DW_CFA_def_cfa_sf:
				st->cfa_kind = CFI_CFA_REG;
				st->cfa_reg = (uint16_t)rd_uleb(&r);
				st->cfa_offset = rd_factored(&r, rd_sleb(&r), c->data_align);
				break;
			case DW_CFA_def_cfa_offset_sf: st->cfa_offset = rd_factored(&r, rd_sleb(&r), c->data_align); break;
			case DW_CFA_val_offset:
				reg = rd_uleb(&r);
				set_rule(in, st, reg, CFI_RULE_VAL_OFFSET, rd_factored(&r, (int64_t)rd_uleb(&r), c->data_align), 0);
				break;
			case DW_CFA_val_offset_sf:
				reg = rd_uleb(&r);
				set_rule(in, st, reg, CFI_RULE_VAL_OFFSET, rd_factored(&r, rd_sleb(&r), c->data_align), 0);
				break;
			case DW_CFA_AARCH64_negate_ra_state:
				/* The return address is signed from here (pointer
				 * authentication). The unwinder strips those bits
				 * from every return address, so the state need not
				 * be kept. On other arches the opcode is SPARC's
				 * GNU_window_save. */
				if (in->s->arch != CFI_ARCH_ARM64)
					return CFI_E_UNSUPPORTED;
				break;
			case DW_CFA_GNU_args_size: rd_uleb(&r); break;
			case DW_CFA_GNU_negative_offset_extended:
				reg = rd_uleb(&r);
				set_rule(in, st, reg, CFI_RULE_OFFSET,
					 rd_factored(&r, rd_factored(&r, (int64_t)rd_uleb(&r),
								     c->data_align), -1), 0);
				break;
			default:
				return CFI_E_UNSUPPORTED;
			}
		}
		if (advance) {
			if (!r.c.ok)
				return CFI_E_CORRUPT;
			delta *= c->code_align;
			newloc = *loc + delta;
			if (newloc < *loc)
				return CFI_E_CORRUPT;
			if (newloc > pc) {
				*next = newloc;
				return 0;
			}
			*loc = newloc;
		}
	}
	return r.c.ok ? 0 : CFI_E_CORRUPT;
}

int cfi_table_row(const struct cfi_table *t, uint64_t pc, struct cfi_row *row)
{
	struct fde f;
	struct interp in = { .s = &t->s };
	struct state st;
	uint64_t off, loc, next;
	int e = find_fde(t, pc, &off);

	if (e)
		return e;
	e = parse_fde(&t->s, off, &f);
	if (e)
		return e;
	if (pc - f.pc >= f.range)
		return CFI_E_NOTFOUND;
	in.cie = &f.cie;
	in.ra_reg = (uint16_t)f.cie.ra_reg;
	in.fp_reg = t->s.arch == CFI_ARCH_ARM64 ? CFI_ARM64_FP : CFI_X86_64_RBP;
	if (f.cie.ra_reg == in.fp_reg)
		return CFI_E_UNSUPPORTED;
	memset(&st, 0, sizeof(st));
	st.ra.kind = CFI_RULE_SAME;
	st.fp.kind = CFI_RULE_SAME;
	loc = f.pc;
	next = f.pc + f.range;
	/* The CIE's instructions define the initial row: no location limit. */
	e = run(&in, &st, f.cie.insn, f.cie.insn_end, UINT64_MAX, &loc, &next);
	if (e)
		return e;
	loc = f.pc;
	next = f.pc + f.range;
	in.init = st;
	e = run(&in, &st, f.insn, f.insn_end, pc, &loc, &next);
	if (e)
		return e;
	memset(row, 0, sizeof(*row));
	row->start = loc;
	row->end = next;
	row->func = f.pc;
	row->func_end = f.pc + f.range;
	row->cfa_kind = st.cfa_kind;
	row->cfa_reg = st.cfa_reg;
	row->cfa_offset = st.cfa_offset;
	row->expr = st.expr;
	row->expr_len = st.expr_len;
	row->ra_reg = in.ra_reg;
	row->ra = st.ra;
	row->fp = st.fp;
	row->signal_frame = f.cie.signal;
	return 0;
}

static int reg_value(int arch, uint64_t reg, const struct cfi_regs *regs, uint64_t *v)
{
	if (arch == CFI_ARCH_ARM64) {
		switch (reg) {
		case CFI_ARM64_SP: *v = regs->sp; return 0;
		case CFI_ARM64_FP: *v = regs->fp; return 0;
		case CFI_ARM64_LR: *v = regs->lr; return 0;
		}
		return CFI_E_UNSUPPORTED;
	}
	switch (reg) {
	case CFI_X86_64_RSP: *v = regs->sp; return 0;
	case CFI_X86_64_RBP: *v = regs->fp; return 0;
	case CFI_X86_64_RA: *v = regs->pc; return 0;
	}
	return CFI_E_UNSUPPORTED;
}

int cfi_expr_eval(int arch, const uint8_t *expr, size_t len, const struct cfi_regs *regs,
		  uint64_t *out)
{
	return cfi_expr_eval_mem(arch, expr, len, regs, NULL, NULL, out);
}

/*
 * A stack machine over the operations compilers and libcs write in
 * DW_CFA_def_cfa_expression, DW_CFA_expression and DW_CFA_val_expression:
 * glibc's PLT entries and signal trampolines, GCC's stack realignment.
 * Arithmetic is on 64-bit two's-complement words, as libgcc's
 * execute_stack_op() does it, with the traps taken out: a division by
 * zero is CFI_E_CORRUPT, and INT64_MIN / -1 is INT64_MIN. A truncated
 * operand, a stack underflow or a branch outside the expression is
 * CFI_E_CORRUPT; an unknown operation, a register the rows do not carry,
 * more than MAX_STEPS operations (a loop), more than MAX_STACK entries
 * or an unreadable (or, without read, any) memory read is
 * CFI_E_UNSUPPORTED.
 */
int cfi_expr_eval_mem(int arch, const uint8_t *expr, size_t len, const struct cfi_regs *regs,
		      memory_read_fn read, void *ctx,
		      uint64_t *out)
{
	struct rd r;
	uint64_t st[MAX_STACK];
	unsigned n = 0, steps = 0;

	if (!expr || len == 0)
		return CFI_E_CORRUPT;
	rd_init(&r, expr, 0, len, 0);
	while (r.c.left) {
		uint8_t op = (uint8_t)rd_u(&r, 1);
		uint64_t a, b, v = 0;
		int push = 1;

		if (++steps > MAX_STEPS)
			return CFI_E_UNSUPPORTED;
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			v = op - DW_OP_lit0;
		} else if ((op >= DW_OP_breg0 && op <= DW_OP_breg31) || op == DW_OP_bregx) {
			uint64_t reg = op == DW_OP_bregx ? rd_uleb(&r) : (uint64_t)(op - DW_OP_breg0);
			int64_t off = rd_sleb(&r);
			if (!r.c.ok)
				return CFI_E_CORRUPT;
			if (reg_value(arch, reg, regs, &v) < 0)
				return CFI_E_UNSUPPORTED;
			v += (uint64_t)off;
		} else {
			switch (op) {
			/* A link-time address, not relocated, as libgcc reads it. */
			case DW_OP_addr: v = rd_u(&r, 8); break;
			case DW_OP_const1u: v = rd_u(&r, 1); break;
			case DW_OP_const1s: v = (uint64_t)(int64_t)(int8_t)rd_u(&r, 1); break;
			case DW_OP_const2u: v = rd_u(&r, 2); break;
			case DW_OP_const2s: v = (uint64_t)(int64_t)(int16_t)rd_u(&r, 2); break;
			case DW_OP_const4u: v = rd_u(&r, 4); break;
			case DW_OP_const4s: v = (uint64_t)(int64_t)(int32_t)rd_u(&r, 4); break;
			case DW_OP_const8u: case DW_OP_const8s: v = rd_u(&r, 8); break;
			case DW_OP_constu: v = rd_uleb(&r); break;
			case DW_OP_consts: v = (uint64_t)rd_sleb(&r); break;
			case DW_OP_deref: case DW_OP_deref_size: {
				unsigned size = op == DW_OP_deref ? 8 : (unsigned)rd_u(&r, 1);
				uint8_t buf[8];
				/* The sizes libgcc reads; no compiler writes others. */
				if (!r.c.ok || n < 1 || (size != 1 && size != 2 && size != 4 && size != 8))
					return CFI_E_CORRUPT;
				if (!read || read(ctx, st[n - 1], buf, size) < 0)
					return CFI_E_UNSUPPORTED;
				for (unsigned i = 0; i < size; i++)
					v |= (uint64_t)buf[i] << (8 * i);
				n--;
				break;
			}
			case DW_OP_dup: case DW_OP_over: case DW_OP_pick: {
				unsigned i = op == DW_OP_dup ? 0 : op == DW_OP_over ? 1 : (unsigned)rd_u(&r, 1);
				if (!r.c.ok || i >= n)
					return CFI_E_CORRUPT;
				v = st[n - 1 - i];
				break;
			}
			case DW_OP_drop:
				if (n < 1)
					return CFI_E_CORRUPT;
				n--;
				push = 0;
				break;
			case DW_OP_swap:
				if (n < 2)
					return CFI_E_CORRUPT;
				a = st[n - 1];
				st[n - 1] = st[n - 2];
				st[n - 2] = a;
				push = 0;
				break;
			case DW_OP_rot:     /* the top goes third, the other two up one */
				if (n < 3)
					return CFI_E_CORRUPT;
				a = st[n - 1];
				st[n - 1] = st[n - 2];
				st[n - 2] = st[n - 3];
				st[n - 3] = a;
				push = 0;
				break;
			case DW_OP_abs: case DW_OP_neg: case DW_OP_not: case DW_OP_plus_uconst:
				b = op == DW_OP_plus_uconst ? rd_uleb(&r) : 0;
				if (!r.c.ok || n < 1)
					return CFI_E_CORRUPT;
				a = st[n - 1];
				switch (op) {
				case DW_OP_abs: v = (int64_t)a < 0 ? -a : a; break;  /* INT64_MIN stays */
				case DW_OP_neg: v = -a; break;
				case DW_OP_not: v = ~a; break;
				case DW_OP_plus_uconst: v = a + b; break;
				}
				st[n - 1] = v;
				push = 0;
				break;
			case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod:
			case DW_OP_mul: case DW_OP_or: case DW_OP_plus: case DW_OP_shl:
			case DW_OP_shr: case DW_OP_shra: case DW_OP_xor: case DW_OP_eq:
			case DW_OP_ge: case DW_OP_gt: case DW_OP_le: case DW_OP_lt: case DW_OP_ne:
				if (n < 2)
					return CFI_E_CORRUPT;
				b = st[--n];
				a = st[--n];
				if ((op == DW_OP_div || op == DW_OP_mod) && b == 0)
					return CFI_E_CORRUPT;
				switch (op) {
				case DW_OP_and: v = a & b; break;
				/* Signed; by -1 it is a negation, as INT64_MIN / -1 would trap. */
				case DW_OP_div: v = b == UINT64_MAX ? -a : (uint64_t)((int64_t)a / (int64_t)b); break;
				case DW_OP_minus: v = a - b; break;
				case DW_OP_mod: v = a % b; break;
				case DW_OP_mul: v = a * b; break;
				case DW_OP_or: v = a | b; break;
				case DW_OP_plus: v = a + b; break;
				case DW_OP_shl: v = b >= 64 ? 0 : a << b; break;
				case DW_OP_shr: v = b >= 64 ? 0 : a >> b; break;
				case DW_OP_shra: v = b >= 64 ? (uint64_t)((int64_t)a < 0 ? -1 : 0) : (uint64_t)((int64_t)a >> b); break;
				case DW_OP_xor: v = a ^ b; break;
				case DW_OP_eq: v = (int64_t)a == (int64_t)b; break;
				case DW_OP_ge: v = (int64_t)a >= (int64_t)b; break;
				case DW_OP_gt: v = (int64_t)a > (int64_t)b; break;
				case DW_OP_le: v = (int64_t)a <= (int64_t)b; break;
				case DW_OP_lt: v = (int64_t)a < (int64_t)b; break;
				case DW_OP_ne: v = (int64_t)a != (int64_t)b; break;
				}
				break;
			case DW_OP_skip: case DW_OP_bra: {
				/* The offset counts from past the operand; the target
				 * may be the end, which stops. Loops are bounded by
				 * the step count. */
				int64_t to = (int16_t)rd_u(&r, 2);
				if (!r.c.ok)
					return CFI_E_CORRUPT;
				push = 0;
				if (op == DW_OP_bra) {
					if (n < 1)
						return CFI_E_CORRUPT;
					if (st[--n] == 0)
						break;
				}
				to += (int64_t)rd_pos(&r);
				if (to < 0 || (uint64_t)to > len)
					return CFI_E_CORRUPT;
				rd_init(&r, expr, (size_t)to, len, 0);
				break;
			}
			case DW_OP_nop:
				push = 0;
				break;
			default:
				return CFI_E_UNSUPPORTED;
			}
		}
		if (!r.c.ok)
			return CFI_E_CORRUPT;
		if (push) {
			if (n == MAX_STACK)
				return CFI_E_UNSUPPORTED;
			st[n++] = v;
		}
	}
	if (n == 0)
		return CFI_E_CORRUPT;
	*out = st[n - 1];
	return 0;
}
