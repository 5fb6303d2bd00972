/*
 * cfi.h: call-frame information from an ELF file's .eh_frame, as rows.
 *
 * A struct cfi_table indexes the FDEs of one .eh_frame section held in a
 * buffer (through the .eh_frame_hdr search table when one is given and
 * usable, else through a sorted index built once). cfi_table_row() runs
 * the CIE's and the FDE's DW_CFA instructions up to a pc and says how to
 * find the caller: the CFA (a register plus an offset, or a DWARF
 * expression such as the one glibc's PLT entries use) and the rules for
 * the return address and the frame pointer. Nothing touches the OS, and
 * every byte read is checked against the buffer, so a hostile section
 * gives CFI_E_CORRUPT, never a crash or an endless loop.
 *
 * Addresses are those of the file (link-time virtual addresses): the
 * caller subtracts the load bias from a pc before asking.
 */
#ifndef RECORD_CFI_H
#define RECORD_CFI_H

#include <stddef.h>
#include <stdint.h>

#include "common/errors.h" /* CFI_E_* */
#include "record/memory.h"

/* DWARF register numbers of the registers the rows describe. */
#define CFI_X86_64_RBP 6
#define CFI_X86_64_RSP 7
#define CFI_X86_64_RA 16
#define CFI_ARM64_FP 29
#define CFI_ARM64_LR 30
#define CFI_ARM64_SP 31

enum cfi_arch { CFI_ARCH_X86_64, CFI_ARCH_ARM64 };

enum cfi_cfa_kind {
	CFI_CFA_REG,        /* CFA = register cfa_reg + cfa_offset */
	CFI_CFA_EXPR,       /* CFA = the value of expr, see cfi_expr_eval() */
};

enum cfi_rule_kind {
	CFI_RULE_SAME,      /* unchanged from the callee (also: never mentioned) */
	CFI_RULE_UNDEFINED, /* not recoverable; for the return address: outermost frame */
	CFI_RULE_OFFSET,    /* saved at CFA + offset */
	CFI_RULE_VAL_OFFSET,/* the value is CFA + offset */
	CFI_RULE_REGISTER,  /* in register reg */
	CFI_RULE_EXPR,      /* saved at the address expr computes */
	CFI_RULE_VAL_EXPR,  /* the value is what expr computes */
};

struct cfi_rule {
	uint8_t kind;       /* enum cfi_rule_kind */
	uint16_t reg;       /* for CFI_RULE_REGISTER */
	int64_t offset;     /* for CFI_RULE_OFFSET and CFI_RULE_VAL_OFFSET */
	const uint8_t *expr;/* for the _EXPR kinds: borrowed from the table's buffer */
	size_t expr_len;
};

/* The unwind row in force at a pc. */
struct cfi_row {
	uint64_t start, end;        /* the row covers [start, end), file addresses */
	uint64_t func, func_end;    /* the FDE's range: the function's (images_cfi_row()
				     * gives the target's addresses) */
	uint8_t cfa_kind;           /* enum cfi_cfa_kind */
	uint16_t cfa_reg;
	int64_t cfa_offset;
	const uint8_t *expr;        /* CFI_CFA_EXPR: borrowed from the table's buffer */
	size_t expr_len;
	uint16_t ra_reg;            /* the CIE's return-address column */
	struct cfi_rule ra;         /* the return address */
	struct cfi_rule fp;         /* rbp on x86_64, x29 on arm64 */
	int signal_frame;           /* the CIE has augmentation 'S': the caller was
				     * interrupted, its pc is exact, not a return address */
};

/* The registers an expression may read. */
struct cfi_regs {
	uint64_t pc, sp, fp, lr;
};

/* The sections, borrowed for the life of the table. hdr may be NULL. */
struct cfi_sections {
	int arch;                   /* enum cfi_arch */
	const uint8_t *eh_frame;
	size_t eh_frame_len;
	uint64_t eh_frame_addr;     /* the section's sh_addr */
	const uint8_t *hdr;         /* .eh_frame_hdr, optional */
	size_t hdr_len;
	uint64_t hdr_addr;
};

struct cfi_table;

/* Indexes the sections (whose buffers must outlive the table). Returns 0
 * and sets *out (caller frees with cfi_table_free), or CFI_E_CORRUPT when
 * not one FDE can be indexed. Malformed entries are skipped. */
int cfi_table_new(const struct cfi_sections *s, struct cfi_table **out);
void cfi_table_free(struct cfi_table *t);
/* FDEs indexed (the search table's count, if it is used). */
size_t cfi_table_count(const struct cfi_table *t);
/* Whether the .eh_frame_hdr search table is used for lookups. */
int cfi_table_uses_hdr(const struct cfi_table *t);
/* The row for file address pc. Returns 0, CFI_E_NOTFOUND, CFI_E_CORRUPT or
 * CFI_E_UNSUPPORTED. row->expr is borrowed from the table's buffer. */
int cfi_table_row(const struct cfi_table *t, uint64_t pc, struct cfi_row *row);
/* Evaluates a DWARF expression of constants, register reads (breg of
 * pc/sp/fp/lr by the arch's DWARF numbers), stack operations, arithmetic
 * and branches, at most 256 operations on a stack of 32; memory reads are
 * refused. Returns 0 and *out; CFI_E_CORRUPT for a truncated operand, an
 * underflow, a branch outside the expression or a division by zero;
 * CFI_E_UNSUPPORTED for an unknown operation or register, a loop past the
 * step limit, an overflow or a memory read that fails. */
int cfi_expr_eval(int arch, const uint8_t *expr, size_t len, const struct cfi_regs *regs,
		  uint64_t *out);
/* The same, with DW_OP_deref and DW_OP_deref_size (of 1, 2, 4 or 8
 * bytes) served by read. */
int cfi_expr_eval_mem(int arch, const uint8_t *expr, size_t len, const struct cfi_regs *regs,
		      memory_read_fn read, void *ctx,
		      uint64_t *out);

#endif
