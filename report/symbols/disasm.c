/*
 * disasm.c: one Capstone handle and one instruction buffer per
 * disassembler, and the few touches that make Capstone's text read as
 * llvm-objdump's.
 *
 * Capstone decodes; this file only chooses the mode (64-bit x86 in AT&T
 * syntax, little-endian arm64), decodes with cs_disasm_iter() into a
 * cs_insn allocated once, and rewrites the operand text where Capstone 4
 * and the objdumps disagree on form rather than on meaning (disasm.h
 * lists them). Bytes Capstone cannot decode are not skipped silently:
 * they become "(bad)", one byte on x86_64 (the next byte may start an
 * instruction) and one 4-byte word on arm64, as objdump shows them, so a
 * listing never hides code. Capstone's detail mode stays off: the
 * instruction id, which it gives regardless, is all the rewriting needs.
 */
#include "report/symbols/disasm.h"

#include <capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "format/trace.h"

struct disasm {
	csh cs;
	cs_insn *insn;           /* Capstone's, reused for every instruction */
	int arch;                /* enum trace_arch */
};

int disasm_new(int arch, struct disasm **out)
{
	struct disasm *d;
	cs_arch which;
	cs_mode mode;
	cs_err err;

	switch (arch) {
	case TRACE_ARCH_X86_64:
		which = CS_ARCH_X86;
		mode = CS_MODE_64;
		break;
	case TRACE_ARCH_ARM64:
		which = CS_ARCH_ARM64;
		mode = CS_MODE_LITTLE_ENDIAN;
		break;
	default:
		prof_error_note(DISASM_E_ARCH, "no disassembler for architecture '%s'",
				trace_arch_name(arch));
		return DISASM_E_ARCH;
	}
	d = xcalloc(1, sizeof(*d));
	d->arch = arch;
	err = cs_open(which, mode, &d->cs);
	if (err == CS_ERR_OK && arch == TRACE_ARCH_X86_64)
		err = cs_option(d->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	if (err == CS_ERR_OK && !(d->insn = cs_malloc(d->cs)))
		err = CS_ERR_MEM;
	if (err == CS_ERR_OK) {
		*out = d;
		return 0;
	}
	disasm_free(d);
	if (err == CS_ERR_MEM)
		return -ENOMEM;
	prof_error_note(DISASM_E_ARCH, "Capstone cannot disassemble %s: %s", trace_arch_name(arch),
			cs_strerror(err));
	return DISASM_E_ARCH;
}

void disasm_free(struct disasm *d)
{
	if (!d)
		return;
	if (d->insn)
		cs_free(d->insn, 1);
	/* A failed cs_open() leaves no handle. */
	if (d->cs)
		cs_close(&d->cs);
	free(d);
}

/* x86_64: "(%r12, %rax, 8)" as the objdumps write it, "(%r12,%rax,8)". */
static void x86_operands(const char *in, char *out, size_t size)
{
	size_t n = 0;
	int paren = 0;

	for (; *in && n + 1 < size; in++) {
		if (*in == '(' || *in == ')')
			paren = *in == '(';
		if (paren && *in == ' ' && n && out[n - 1] == ',')
			continue;
		out[n++] = *in;
	}
	out[n] = '\0';
}

/* Whether an arm64 instruction's last operand is a pc-relative address:
 * a branch's target, adr's and adrp's, or a literal load's (the form
 * without a base register). */
static int arm64_target(unsigned id, const char *operands)
{
	switch (id) {
	case ARM64_INS_B: case ARM64_INS_BL: case ARM64_INS_CBZ: case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ: case ARM64_INS_TBNZ: case ARM64_INS_ADR: case ARM64_INS_ADRP:
		return 1;
	case ARM64_INS_LDR: case ARM64_INS_LDRSW: case ARM64_INS_PRFM:
		return !strchr(operands, '[');
	default:
		return 0;
	}
}

/* arm64: a target as llvm-objdump writes it ("0x57c", not "#0x57c"), and
 * a negative post-index offset signed ("[x28], #-0x18"), which Capstone 4
 * writes as its 64-bit two's complement. */
static void arm64_operands(unsigned id, const char *in, char *out, size_t size)
{
	const char *hash = strrchr(in, '#'), *post = strstr(in, "], #0x");

	if (arm64_target(id, in) && hash && (hash == in || (hash - in >= 2 && hash[-1] == ' '))) {
		snprintf(out, size, "%.*s%s", (int)(hash - in), in, hash + 1);
	} else if (post && strlen(post + 6) == 16 && strchr("89abcdef", post[6])) {
		uint64_t v = strtoull(post + 6, NULL, 16);

		snprintf(out, size, "%.*s], #-0x%" PRIx64, (int)(post - in), in, -v);
	} else {
		snprintf(out, size, "%s", in);
	}
}

size_t disasm_one(struct disasm *d, const uint8_t *code, size_t len, uint64_t addr,
		  struct disasm_insn *insn)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t at = addr;

	memset(insn, 0, sizeof(*insn));
	insn->address = addr;
	if (!len)
		return 0;
	if (cs_disasm_iter(d->cs, &p, &left, &at, d->insn)) {
		const cs_insn *ci = d->insn;

		insn->size = ci->size;
		snprintf(insn->mnemonic, sizeof(insn->mnemonic), "%s", ci->mnemonic);
		if (d->arch == TRACE_ARCH_X86_64)
			x86_operands(ci->op_str, insn->operands, sizeof(insn->operands));
		else
			arm64_operands(ci->id, ci->op_str, insn->operands, sizeof(insn->operands));
	} else {
		size_t unit = d->arch == TRACE_ARCH_ARM64 ? 4 : 1;

		insn->size = len < unit ? len : unit;
		insn->bad = 1;
		snprintf(insn->mnemonic, sizeof(insn->mnemonic), "(bad)");
	}
	memcpy(insn->bytes, code, insn->size < sizeof(insn->bytes) ? insn->size : sizeof(insn->bytes));
	return insn->size;
}
