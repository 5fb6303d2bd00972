/*
 * fuzz_cfi.c: the .eh_frame reader and DW_CFA interpreter (record/cfi.c)
 * on any ELF file, as prof-record gets them from a mapped file.
 *
 * The file's .eh_frame is indexed twice, through its .eh_frame_hdr and
 * without it, and each table is asked for the rows at the functions of
 * the symbol table and at points spread over .text, as the file's arch
 * (x86_64 or arm64) numbers its registers. Each row's DWARF expressions
 * (the CFA's, the return address's and the frame pointer's) are
 * evaluated, with memory reads served from the input at address 0 and
 * failing outside it. fuzz/seeds.sh adds an object whose rows use every
 * operation of the evaluator.
 */
#include "fuzz/fuzz.h"

#include "common/elf.h"
#include "record/cfi.h"

/* Rows asked for, per table: enough for the seeds' functions. */
#define FUZZ_CFI_PCS 512
/* Points of .text asked for, whatever the symbols are. */
#define FUZZ_CFI_SPREAD 32

struct pcs {
	uint64_t pc[FUZZ_CFI_PCS];
	size_t n;
};

struct input {
	const uint8_t *data;
	size_t size;
};

static void add_pc(struct pcs *p, uint64_t pc)
{
	if (p->n < FUZZ_CFI_PCS)
		p->pc[p->n++] = pc;
}

static int on_symbol(void *ctx, const struct elf_symbol *sym)
{
	struct pcs *p = ctx;

	if (sym->value) {
		add_pc(p, sym->value);
		add_pc(p, sym->value + sym->size / 2);
	}
	return p->n >= FUZZ_CFI_PCS;
}

/* Target memory is the input, at address 0. */
static int read_input(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct input *in = ctx;

	if (addr > in->size || len > in->size - addr)
		return -1;
	memcpy(buf, in->data + addr, len);
	return 0;
}

static void eval(int arch, const uint8_t *expr, size_t len, struct input *in)
{
	struct cfi_regs regs = { .pc = 0x1000, .sp = 0x100, .fp = 0x200, .lr = 0x300 };
	uint64_t v;

	if (!expr)
		return;
	fuzz_touch(expr, len);
	cfi_expr_eval(arch, expr, len, &regs, &v);
	cfi_expr_eval_mem(arch, expr, len, &regs, read_input, in, &v);
}

static void rows(const struct cfi_sections *s, const struct pcs *p, struct input *in)
{
	struct cfi_table *t;
	struct cfi_row row;

	if (cfi_table_new(s, &t) < 0)
		return;
	cfi_table_count(t);
	for (size_t i = 0; i < p->n; i++) {
		if (cfi_table_row(t, p->pc[i], &row) < 0)
			continue;
		if (row.cfa_kind == CFI_CFA_EXPR)
			eval(s->arch, row.expr, row.expr_len, in);
		eval(s->arch, row.ra.expr, row.ra.expr_len, in);
		eval(s->arch, row.fp.expr, row.fp.expr_len, in);
	}
	cfi_table_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct elf_section eh, hdr, text;
	struct cfi_sections s = { .arch = CFI_ARCH_X86_64 };
	struct elf_file e;
	struct pcs p = { .n = 0 };

	if (elf_parse(&e, data, size) < 0 || elf_section_by_name(&e, ".eh_frame", &eh) < 0 ||
	    !eh.data)
		return 0;
	if (elf_section_by_name(&e, ".text", &text) == 0)
		for (uint64_t k = 0; k < FUZZ_CFI_SPREAD; k++)
			add_pc(&p, text.addr + text.size / FUZZ_CFI_SPREAD * k);
	elf_symbols(&e, on_symbol, &p);
	s.arch = e.machine == 183 ? CFI_ARCH_ARM64 : CFI_ARCH_X86_64;   /* EM_AARCH64 */
	s.eh_frame = eh.data;
	s.eh_frame_len = eh.size;
	s.eh_frame_addr = eh.addr;
	rows(&s, &p, &in);
	if (elf_section_by_name(&e, ".eh_frame_hdr", &hdr) == 0 && hdr.data) {
		s.hdr = hdr.data;
		s.hdr_len = hdr.size;
		s.hdr_addr = hdr.addr;
		rows(&s, &p, &in);
	}
	return 0;
}
