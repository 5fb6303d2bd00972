/*
 * fuzz_unwind.c: the stack walker (record/unwind.c) on a hostile stack.
 *
 * The input is a header and a stack. The header gives the arch, the
 * registers, how much of the stack is a copy (the window; the rest is
 * read through the callback, or not at all) and, for each of 16 ranges of
 * code, its CFI row, from a menu of the rows compilers and libcs emit:
 * frame-pointer code, frameless code, a signal trampoline whose
 * expressions read a saved context anywhere on the stack, an outermost
 * frame, and rows whose expressions are bytes of the input. arm64's
 * kernel signal frame is behind one address. Whatever the bytes, the walk
 * must end, store at most max_depth frames, and return no frame outside
 * the code: a return address that is not code ends it (stop-not-code),
 * and nothing is invented.
 */
#include "fuzz/fuzz.h"

#include "record/unwind.h"

#define STACK_BASE UINT64_C(0x7ff000000000)
#define CODE_LO UINT64_C(0x400000)
#define RANGES 16
#define RANGE_SIZE UINT64_C(0x1000)
#define SIGRETURN (CODE_LO + 15 * RANGE_SIZE + 0x7bc)
#define MAX_DEPTH 64
#define HEADER (1 + 4 * 8 + 2 + RANGES + 16)

struct input {
	const uint8_t *stack;
	size_t size;
	int readable;           /* the stack past the window is readable */
};

struct rows {
	struct cfi_row row[RANGES];
	int have[RANGES];
};

static uint64_t le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static int read_stack(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct input *in = ctx;

	if (!in->readable || addr < STACK_BASE || addr - STACK_BASE > in->size ||
	    len > in->size - (addr - STACK_BASE))
		return -1;
	memcpy(buf, in->stack + (addr - STACK_BASE), len);
	return 0;
}

static int lookup(void *ctx, uint64_t pc, struct cfi_row *row)
{
	const struct rows *r = ctx;
	uint64_t i = (pc - CODE_LO) / RANGE_SIZE;

	if (pc < CODE_LO || i >= RANGES || !r->have[i])
		return CFI_E_NOTFOUND;
	*row = r->row[i];
	row->func = CODE_LO + i * RANGE_SIZE;
	row->func_end = row->func + RANGE_SIZE;
	return 0;
}

static int is_code(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr >= CODE_LO && addr < CODE_LO + RANGES * RANGE_SIZE;
}

static int is_return(void *ctx, uint64_t addr)
{
	return is_code(ctx, addr) && (addr & 3) == 1;
}

static int is_sigreturn(void *ctx, uint64_t pc)
{
	(void)ctx;
	return pc == SIGRETURN;
}

/* glibc's x86_64 __restore_rt: the saved context at rsp + 40. */
static const uint8_t restore_cfa[] = { 0x77, 0xa0, 0x01, 0x06 };   /* *(rsp + 160) */
static const uint8_t restore_rip[] = { 0x77, 0xa8, 0x01 };         /* rsp + 168 */
static const uint8_t restore_rbp[] = { 0x77, 0xf8, 0x00 };         /* rsp + 120 */

/* Row kind k of the menu for an arch; expr is 16 bytes of the input. */
static int menu(int arm64, unsigned k, const uint8_t *expr, struct cfi_row *row)
{
	uint16_t sp = arm64 ? CFI_ARM64_SP : CFI_X86_64_RSP, fp = arm64 ? CFI_ARM64_FP : CFI_X86_64_RBP;

	memset(row, 0, sizeof(*row));
	row->cfa_kind = CFI_CFA_REG;
	row->cfa_reg = sp;
	row->ra_reg = arm64 ? CFI_ARM64_LR : CFI_X86_64_RA;
	row->ra = (struct cfi_rule){ .kind = CFI_RULE_OFFSET, .offset = -8 };
	switch (k % 9) {
	case 0: return 0;                                   /* no CFI */
	case 1:                                             /* frame pointer */
		row->cfa_reg = fp;
		row->cfa_offset = 16;
		row->fp = (struct cfi_rule){ .kind = CFI_RULE_OFFSET, .offset = -16 };
		return 1;
	case 2:                                             /* frameless, or an arm64 leaf */
		row->cfa_offset = arm64 ? 0 : 8;
		if (arm64)
			row->ra = (struct cfi_rule){ .kind = CFI_RULE_SAME };
		return 1;
	case 3:                                             /* a large frame */
		row->cfa_offset = 8 + 8 * (int64_t)(k / 9 % 64);
		return 1;
	case 4:                                             /* __restore_rt */
		row->cfa_kind = CFI_CFA_EXPR;
		row->expr = restore_cfa;
		row->expr_len = sizeof(restore_cfa);
		row->ra = (struct cfi_rule){ .kind = CFI_RULE_EXPR, .expr = restore_rip,
					     .expr_len = sizeof(restore_rip) };
		row->fp = (struct cfi_rule){ .kind = CFI_RULE_EXPR, .expr = restore_rbp,
					     .expr_len = sizeof(restore_rbp) };
		row->signal_frame = 1;
		return 1;
	case 5:                                             /* the outermost frame */
		row->ra.kind = CFI_RULE_UNDEFINED;
		return 1;
	case 6:                                             /* the input's CFA expression */
		row->cfa_kind = CFI_CFA_EXPR;
		row->expr = expr;
		row->expr_len = 16;
		row->signal_frame = k / 9 % 2;
		return 1;
	case 7:                                             /* the input's return address */
		row->ra = (struct cfi_rule){ .kind = k / 9 % 2 ? CFI_RULE_VAL_EXPR : CFI_RULE_EXPR,
					     .expr = expr, .expr_len = 16 };
		row->fp = (struct cfi_rule){ .kind = CFI_RULE_EXPR, .expr = expr + 8, .expr_len = 8 };
		row->cfa_offset = 16;
		return 1;
	default:                                            /* a register the walk has not */
		row->cfa_reg = 3;
		row->cfa_offset = 8;
		return 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in;
	struct rows rows;
	struct unwind_frame trail[MAX_DEPTH];
	uint64_t out[MAX_DEPTH];
	size_t n = 0, cfi_frames = 0;
	int arm64, stop;

	if (size < HEADER)
		return 0;
	arm64 = data[0] & 1;
	in = (struct input){ data + HEADER, size - HEADER, (data[0] >> 1) & 1 };
	for (int i = 0; i < RANGES; i++)
		rows.have[i] = menu(arm64, data[35 + i], data + 35 + RANGES, &rows.row[i]);

	struct unwind_config cfg = { .arch = arm64 ? UNWIND_ARCH_ARM64 : UNWIND_ARCH_X86_64,
				     .max_depth = MAX_DEPTH, .cfi = lookup, .cfi_ctx = &rows,
				     .cfi_frames = &cfi_frames, .is_code = is_code,
				     .is_return = is_return, .trail = trail,
				     .is_sigreturn = is_sigreturn };
	struct unwind_regs regs = { le64(data + 1), le64(data + 9), le64(data + 17), le64(data + 25) };
	size_t window = (size_t)(data[33] | data[34] << 8);
	struct unwind_memory mem = { .read = read_stack, .ctx = &in, .window_addr = regs.sp,
				     .window_whole = (data[0] >> 2) & 1 };

	/* The copy, where sp lies in the stack: window bytes from sp. */
	if (regs.sp >= STACK_BASE && regs.sp - STACK_BASE < in.size) {
		size_t off = (size_t)(regs.sp - STACK_BASE);
		mem.window = in.stack + off;
		mem.window_len = window < in.size - off ? window : in.size - off;
	}
	if (data[0] & 8)
		cfg.cfi = NULL;     /* the plain frame-pointer walk */
	stop = unwind_stack(&cfg, &regs, &mem, out, &n);
	if (stop < UNWIND_STOP_END || stop > UNWIND_STOP_NOT_CODE || n < 1 || n > MAX_DEPTH)
		__builtin_trap();
	for (size_t i = 1; i < n; i++)
		if (!is_code(NULL, out[i]))
			__builtin_trap();   /* an invented frame */
	fuzz_touch(unwind_stop_name(stop), 1);
	return 0;
}
