/*
 * unwind.c: the frame-pointer walk.
 *
 * Both arches keep a linked list of frame records on the stack: at fp lies
 * the caller's fp, and at fp + 8 the return address into the caller. The
 * walk follows that list and trusts nothing in it: every record must lie
 * strictly above the previous one (stacks grow down, so callers live
 * higher), be aligned, and be readable; anything else ends the walk with a
 * reason that is counted in the trace, so a profile that stops early says
 * why. A window of stack bytes read in one go serves nearly every record;
 * the read callback is only asked for what falls outside it.
 *
 * arm64 has one wrinkle: a leaf that has not pushed a frame record yet (or
 * never will) is still only reachable through lr. When lr differs from the
 * return address in the first record, lr is reported as the caller frame.
 * x86_64 has the same problem without an lr: there the caller of a
 * frameless leaf is looked for among the words between sp and the first
 * frame record, if the caller gave a way to recognise return addresses.
 *
 * With a CFI lookup the walk carries (pc, sp, fp) from frame to frame
 * instead of just fp. The policy, per frame:
 *  1. If the frame's pc (the return address minus 1 above the leaf) has a
 *     row, and sp is known, the row gives the CFA (sp, fp or a PLT-style
 *     expression plus an offset), the return address (saved at CFA + n;
 *     on arm64 also lr, in the leaf) and the caller's fp (saved at CFA + n,
 *     or unchanged); the caller's sp is the CFA. A return address marked
 *     undefined is the outermost frame (_start): the walk ends there.
 *     A signal frame's row (glibc's __restore_rt: expressions that read
 *     the saved context) gives the interrupted pc, sp and fp, and that pc
 *     is then looked up as it is, not minus 1.
 *  2. Otherwise (no row: JIT code, the vDSO, an image without .eh_frame;
 *     or a row this walker cannot apply: a register-based CFA other than
 *     sp/fp, a memory-reading expression, a save slot that is unreadable
 *     or a CFA that is not above sp), the frame-pointer step is taken from
 *     the current fp, checked as in the plain walk, and gives pc = [fp+8],
 *     sp = fp + 16, fp = [fp]. In a leaf without a row, the is_return
 *     search comes first, as in the plain walk. On arm64 that sp is only
 *     a lower bound (the record lies below the frame's locals); the next
 *     row is then applied through x29, which points at the frame record
 *     the row saves, so CFA = x29 - that offset.
 * So frame-pointer code is still walked through its records (its rows say
 * the same thing, CFA = fp + 16), code without frame pointers through its
 * CFI, and the walk passes from one to the other at any frame. Each step
 * must move sp strictly up, which with max_depth bounds every walk.
 */
#include "unwind.h"
#include "format/trace.h"

#include <string.h>

/* A walk's memory and what its reads met. */
struct walk {
	const struct unwind_memory *m;
	int past;               /* a read past the window's end failed */
	int left;               /* a signal frame led off the window's stack */
};

/* How far above the window a failed read counts as past it, rather than
 * as an address that is simply not the stack's. */
#define PAST_MAX (1u << 20)

static int mem_read(struct walk *w, uint64_t addr, void *buf, size_t len)
{
	const struct unwind_memory *m = w->m;
	uint64_t end = m->window_addr + m->window_len;

	if (m->window && addr >= m->window_addr) {
		uint64_t off = addr - m->window_addr;
		if (off <= m->window_len && len <= m->window_len - off) {
			memcpy(buf, m->window + off, len);
			return 0;
		}
	}
	if (m->read && m->read(m->ctx, addr, buf, len) >= 0)
		return 0;
	if (m->window && !m->window_whole && (w->left || (addr + len > end && addr < end + PAST_MAX)))
		w->past = 1;
	return -1;
}

uint64_t unwind_strip_pac(uint64_t addr, unsigned va_bits)
{
	if (va_bits == 0)
		va_bits = UNWIND_DEFAULT_VA_BITS;
	if (va_bits >= 64)
		return addr;
	return addr & ((UINT64_C(1) << va_bits) - 1);
}

unsigned unwind_va_bits(uint64_t top)
{
	return top > 1 ? 64 - (unsigned)__builtin_clzll(top - 1) : 0;
}

static uint64_t fix_ret(const struct unwind_config *cfg, uint64_t ret)
{
	if (cfg->arch == UNWIND_ARCH_ARM64)
		return unwind_strip_pac(ret, cfg->va_bits);
	return ret;
}

/* Where the hybrid walk stands: a frame's pc, sp and fp. */
struct frame_state {
	uint64_t pc, sp, fp, lr;
	uint64_t ra_at;         /* where pc was read; 0: a register, or the leaf */
	int leaf;
	int have_sp;            /* sp is exact; else only a lower bound */
	int exact;              /* pc is exact (the frame above was a signal frame) */
	int scanned;            /* pc came from the leaf search */
};

/* Memory reads for DW_OP_deref in CFA and register expressions. */
static int expr_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return mem_read(ctx, addr, buf, len);
}

/* Step results, apart from the enum unwind_stop values. */
enum { STEP_OK = 100, STEP_CANNOT = 101 };

static int reg_of(const struct unwind_config *cfg, const struct frame_state *f, unsigned reg,
		  uint64_t *v)
{
	if (cfg->arch == UNWIND_ARCH_ARM64) {
		if (reg == CFI_ARM64_SP) { *v = f->sp; return 0; }
		if (reg == CFI_ARM64_FP) { *v = f->fp; return 0; }
		return -1;
	}
	if (reg == CFI_X86_64_RSP) { *v = f->sp; return 0; }
	if (reg == CFI_X86_64_RBP) { *v = f->fp; return 0; }
	return -1;
}

/* A register's value by a rule whose expression computes its address
 * (CFI_RULE_EXPR) or the value itself (CFI_RULE_VAL_EXPR); *at is the
 * address read, or 0. */
static int rule_expr(int arch, struct walk *w, const struct cfi_rule *rule, const struct cfi_regs *r,
		     uint64_t *v, uint64_t *at)
{
	uint64_t a;

	*at = 0;
	if (cfi_expr_eval_mem(arch, rule->expr, rule->expr_len, r, expr_read, w, &a) < 0)
		return -1;
	if (rule->kind == CFI_RULE_VAL_EXPR) {
		*v = a;
		return 0;
	}
	*at = a;
	return mem_read(w, a, v, 8);
}

/* One step by a CFI row: STEP_OK with the caller in *next, STEP_CANNOT,
 * or UNWIND_STOP_END when the row says there is no caller. *cfa is set
 * as soon as the CFA is known. */
static int cfi_step(const struct unwind_config *cfg, struct walk *w, const struct cfi_row *row,
		    const struct frame_state *f, struct frame_state *next, uint64_t *cfa_out)
{
	uint64_t cfa, ra, fp = f->fp, at = 0, unused;
	struct cfi_regs r = { f->pc, f->sp, f->fp, f->lr };
	int arch = cfg->arch == UNWIND_ARCH_ARM64 ? CFI_ARCH_ARM64 : CFI_ARCH_X86_64;

	if (row->cfa_kind == CFI_CFA_EXPR) {
		if (!f->have_sp ||
		    cfi_expr_eval_mem(arch, row->expr, row->expr_len, &r, expr_read, w, &cfa) < 0)
			return STEP_CANNOT;
	} else if (cfg->arch == UNWIND_ARCH_ARM64 && !f->have_sp && row->cfa_reg == CFI_ARM64_SP) {
		/* arm64, a frame reached through its frame record: its sp is
		 * not known, but x29 points at that record, {x29, x30}, which
		 * the row says is saved at CFA + offset. */
		if (row->fp.kind != CFI_RULE_OFFSET || row->ra.kind != CFI_RULE_OFFSET ||
		    row->ra.offset != row->fp.offset + 8)
			return STEP_CANNOT;
		cfa = f->fp - (uint64_t)row->fp.offset;
	} else {
		if (reg_of(cfg, f, row->cfa_reg, &cfa) < 0)
			return STEP_CANNOT;
		cfa += (uint64_t)row->cfa_offset;
	}
	/* The CFA lies above sp, except in an arm64 leaf that has pushed
	 * nothing and still has its return address in lr, and past a signal
	 * frame, whose handler may have run on a stack of its own. */
	if ((cfa & 7) || (!row->signal_frame && (cfa < f->sp ||
	    (cfa == f->sp && (cfg->arch != UNWIND_ARCH_ARM64 || !f->leaf || row->ra.kind == CFI_RULE_OFFSET)))))
		return STEP_CANNOT;
	*cfa_out = cfa;
	switch (row->ra.kind) {
	case CFI_RULE_UNDEFINED:
		return UNWIND_STOP_END;
	case CFI_RULE_OFFSET:
		at = cfa + (uint64_t)row->ra.offset;
		if (mem_read(w, at, &ra, 8) < 0)
			return STEP_CANNOT;
		break;
	case CFI_RULE_EXPR:     /* a signal frame's saved pc */
	case CFI_RULE_VAL_EXPR:
		if (rule_expr(arch, w, &row->ra, &r, &ra, &at) < 0)
			return STEP_CANNOT;
		break;
	case CFI_RULE_SAME:
	case CFI_RULE_REGISTER:
		/* Only an arm64 leaf still has its return address in lr. */
		if (cfg->arch != UNWIND_ARCH_ARM64 || !f->leaf || !f->lr ||
		    (row->ra.kind == CFI_RULE_REGISTER && row->ra.reg != CFI_ARM64_LR))
			return STEP_CANNOT;
		ra = f->lr;
		break;
	default:
		return STEP_CANNOT;
	}
	switch (row->fp.kind) {
	case CFI_RULE_SAME:
		break;
	case CFI_RULE_OFFSET:
		/* A slot below sp is in a frame already popped: in an epilogue
		 * after leave (GCC's rows still name the slot there) the
		 * register holds the value again, and a copy of the stack
		 * from sp does not have the slot. */
		if (f->have_sp && cfa + (uint64_t)row->fp.offset < f->sp)
			break;
		if (mem_read(w, cfa + (uint64_t)row->fp.offset, &fp, 8) < 0)
			return STEP_CANNOT;
		break;
	case CFI_RULE_VAL_OFFSET:
		fp = cfa + (uint64_t)row->fp.offset;
		break;
	case CFI_RULE_EXPR:
	case CFI_RULE_VAL_EXPR:
		if (rule_expr(arch, w, &row->fp, &r, &fp, &unused) < 0)
			fp = 0;
		break;
	default:
		fp = 0;   /* unknown: a later frame-pointer step will stop on it */
		break;
	}
	next->pc = fix_ret(cfg, ra);
	next->sp = cfa;
	next->fp = fp;
	next->lr = 0;
	next->ra_at = at;
	next->leaf = 0;
	/* Past a signal frame the pc was interrupted, not a return address:
	 * it is looked up as it is. */
	next->exact = row->signal_frame;
	next->have_sp = 1;
	return STEP_OK;
}

#if defined(__aarch64__) && defined(__linux__)
#include <stddef.h>
#include <ucontext.h>
/* The layout is the C library's too: checked where it can be. */
_Static_assert(128 + offsetof(ucontext_t, uc_mcontext.regs[29]) == UNWIND_A64_SIGFRAME_X29, "x29");
_Static_assert(128 + offsetof(ucontext_t, uc_mcontext.sp) == UNWIND_A64_SIGFRAME_SP, "sp");
_Static_assert(128 + offsetof(ucontext_t, uc_mcontext.pc) == UNWIND_A64_SIGFRAME_PC, "pc");
_Static_assert(128 + offsetof(ucontext_t, uc_mcontext.__reserved) == UNWIND_A64_SIGFRAME_RECORDS, "records");
#endif

/* arm64: the step through the kernel's signal frame at f->sp, whose
 * sigcontext holds the interrupted pc, sp, x29 and x30. The frame is
 * believed only if its first record is the FP/SIMD context. The
 * interrupted code is like a leaf: its return address may still be in
 * x30. */
static int sigframe_step(const struct unwind_config *cfg, struct walk *w, const struct frame_state *f,
			 struct frame_state *next)
{
	uint64_t r[4];
	uint32_t magic;

	if (!f->have_sp || f->sp > UINT64_MAX - UNWIND_A64_SIGFRAME_RECORDS - 4 ||
	    mem_read(w, f->sp + UNWIND_A64_SIGFRAME_RECORDS, &magic, 4) < 0 || magic != UNWIND_A64_FPSIMD_MAGIC ||
	    mem_read(w, f->sp + UNWIND_A64_SIGFRAME_X29, r, sizeof(r)) < 0)
		return STEP_CANNOT;
	next->pc = fix_ret(cfg, r[3]);
	next->sp = r[2];
	next->fp = r[0];
	next->lr = r[1];
	next->ra_at = f->sp + UNWIND_A64_SIGFRAME_PC;
	next->leaf = 1;
	next->exact = 1;
	next->have_sp = 1;
	return STEP_OK;
}

/* The frame-pointer step from f->fp: STEP_OK or an enum unwind_stop. */
static int fp_step(const struct unwind_config *cfg, struct walk *w, const struct frame_state *f,
		   uint64_t lower, int first, struct frame_state *next)
{
	uint8_t rec[16];
	uint64_t up, ret;

	if (f->fp == 0)
		return UNWIND_STOP_END;
	if (f->fp & 7)
		return UNWIND_STOP_MISALIGNED;
	if (f->fp < lower || (!first && f->fp == lower))
		return UNWIND_STOP_NOT_UP;
	if (f->fp > UINT64_MAX - 16 || mem_read(w, f->fp, rec, sizeof(rec)) < 0) {
		if (!f->leaf || cfg->arch != UNWIND_ARCH_ARM64 || !f->lr)
			return UNWIND_STOP_UNREADABLE;
		/* An arm64 leaf's caller is in lr, whether or not the leaf
		 * saved it in a record: with the record out of reach (past
		 * the copy, as the vDSO's frameless code interrupted by a
		 * signal has it), lr is still the caller. */
		ret = up = 0;
	} else {
		memcpy(&up, rec, 8);
		memcpy(&ret, rec + 8, 8);
		ret = fix_ret(cfg, ret);
	}
	if (f->leaf && cfg->arch == UNWIND_ARCH_ARM64 && f->lr && fix_ret(cfg, f->lr) != ret) {
		/* A leaf without a record of its own: its caller is in lr,
		 * and the record at fp is the caller's. */
		*next = *f;
		next->pc = fix_ret(cfg, f->lr);
		next->lr = 0;
		next->ra_at = 0;
		next->leaf = 0;
		next->exact = 0;
		return STEP_OK;
	}
	if (up == f->fp)
		return UNWIND_STOP_LOOP;
	next->pc = ret;
	next->sp = f->fp + 16;
	next->fp = up;
	next->lr = 0;
	next->ra_at = f->fp + 8;
	next->leaf = 0;
	next->exact = 0;
	/* On x86_64 the caller's sp is just above the record. An arm64
	 * record lies at the bottom of its frame, below the locals, so
	 * there fp + 16 only bounds the caller's sp from below. */
	next->have_sp = cfg->arch != UNWIND_ARCH_ARM64;
	return STEP_OK;
}

/* Whether the frame pointer can give an x86_64 leaf's caller, so the leaf
 * search is not made: fp is aligned, on the stack at or above sp and less
 * than UNWIND_FP_FRAME_MAX above it (and within the copy when that runs to
 * the stack's end), and the record there is readable, links up the stack
 * (the saved fp is 0 or above fp) and holds a return address that is code.
 * Then either the leaf has a frame of its own at fp, whose return address
 * is the caller's, or (a frameless leaf, or one caught in its prologue or
 * epilogue) fp is its caller's and the caller is skipped, as every
 * frame-pointer walk skips it. The search would find the caller of the
 * second kind, but in the first, the usual one in code that keeps frame
 * pointers (JIT code, V8's builtins, Go), the words between sp and fp are
 * the leaf's own locals and spill slots, where a stale return address of
 * an earlier call is often left. Reads past the copy leave no mark on
 * the walk. */
static int fp_serves(const struct unwind_config *cfg, struct walk *w, const struct frame_state *f)
{
	uint64_t rec[2];
	int past = w->past, r;

	if (!f->have_sp || !f->fp || (f->fp & 7) || f->fp < f->sp || f->fp - f->sp >= UNWIND_FP_FRAME_MAX)
		return 0;
	r = mem_read(w, f->fp, rec, sizeof(rec));
	w->past = past;
	if (r < 0 || (rec[0] && rec[0] <= f->fp))
		return 0;
	if (cfg->is_code)
		return cfg->is_code(cfg->is_code_ctx, rec[1]);
	return cfg->is_return ? cfg->is_return(cfg->is_return_ctx, rec[1]) : 1;
}

/* The leaf search, for an x86_64 leaf without CFI. Returns 1 and the
 * caller in *next if a return address was found between sp and fp. */
static int leaf_scan(const struct unwind_config *cfg, struct walk *w, const struct frame_state *f,
		     struct frame_state *next)
{
	uint64_t limit = f->sp + 8 * UNWIND_LEAF_SCAN_WORDS;

	if (cfg->arch != UNWIND_ARCH_X86_64 || !cfg->is_return || !f->sp || (f->sp & 7))
		return 0;
	if (f->fp >= f->sp && !(f->fp & 7) && f->fp < limit)
		limit = f->fp;
	for (uint64_t a = f->sp; a < limit; a += 8) {
		uint64_t v;
		if (mem_read(w, a, &v, 8) < 0)
			return 0;
		if (cfg->is_return(cfg->is_return_ctx, v)) {
			next->pc = v;
			next->sp = a + 8;
			next->fp = f->fp;
			next->lr = 0;
			next->ra_at = a;
			next->leaf = 0;
			next->exact = 0;
			next->have_sp = 1;
			next->scanned = 1;
			return 1;
		}
	}
	return 0;
}

static void trail(const struct unwind_config *cfg, size_t k, const struct frame_state *f, uint64_t func)
{
	if (cfg->trail)
		cfg->trail[k] = (struct unwind_frame){ f->have_sp ? f->sp : 0, f->ra_at, func, f->exact, 0,
						       f->scanned };
}

static int unwind_hybrid(const struct unwind_config *cfg, const struct unwind_regs *regs,
			 struct walk *w, uint64_t *out, size_t *n)
{
	size_t max = cfg->max_depth ? cfg->max_depth : 1;
	size_t k = 0;
	struct frame_state f = { fix_ret(cfg, regs->pc), regs->sp, regs->fp, regs->lr, 0, 1, regs->sp != 0, 1, 0 };
	uint64_t lower = regs->sp;   /* the plain walk's bound for fp */
	int stop, first_fp = 1;

	trail(cfg, k, &f, 0);
	out[k++] = f.pc;
	for (;;) {
		struct frame_state next = { 0 };
		struct cfi_row row;
		uint64_t cfa = 0;
		int r = STEP_CANNOT;

		if (cfg->arch == UNWIND_ARCH_ARM64 && cfg->is_sigreturn &&
		    cfg->is_sigreturn(cfg->is_sigreturn_ctx, f.pc)) {
			r = sigframe_step(cfg, w, &f, &next);
			if (r != STEP_OK && w->past) {
				stop = UNWIND_STOP_WINDOW;
				break;
			}
		}
		if (r == STEP_OK) {
			/* through the kernel's signal frame */
		} else if ((f.have_sp || cfg->arch == UNWIND_ARCH_ARM64) &&
		    cfg->cfi(cfg->cfi_ctx, f.exact ? f.pc : f.pc - 1, &row) == 0) {
			if (cfg->trail)
				cfg->trail[k - 1].func = row.func;
			r = cfi_step(cfg, w, &row, &f, &next, &cfa);
			if (r == UNWIND_STOP_END) {
				stop = r;
				break;
			}
			if (r == STEP_OK && cfg->cfi_frames)
				(*cfg->cfi_frames)++;
			/* A row that could not be applied for want of bytes
			 * past the copy: the frame pointer, if this code keeps
			 * none, would only lead astray. */
			if (r != STEP_OK && w->past) {
				if (cfg->trail)
					cfg->trail[k - 1].next_sp = cfa;
				stop = UNWIND_STOP_WINDOW;
				break;
			}
		} else if (f.leaf && cfg->arch == UNWIND_ARCH_X86_64 && cfg->is_return && !fp_serves(cfg, w, &f) &&
			   leaf_scan(cfg, w, &f, &next)) {
			r = STEP_OK;
		}
		if (r != STEP_OK) {
			if (f.have_sp && f.sp > lower)
				lower = f.sp;
			r = fp_step(cfg, w, &f, lower, first_fp, &next);
			if (r != STEP_OK) {
				if (r == UNWIND_STOP_UNREADABLE && w->past) {
					r = UNWIND_STOP_WINDOW;
					if (cfg->trail && cfg->arch == UNWIND_ARCH_X86_64)
						cfg->trail[k - 1].next_sp = f.fp + 16;
				}
				stop = r;
				break;
			}
			/* The arm64 leaf step (the caller from lr) leaves the
			 * record at fp, the caller's, to the next step. */
			if (next.fp != f.fp) {
				first_fp = 0;
				lower = f.fp;
			}
		}
		if (next.pc == 0) {
			stop = UNWIND_STOP_END;
			break;
		}
		if (next.exact) {
			/* Past a signal frame the stack may be another (the
			 * handler's was an alternate stack): the bounds start
			 * again from the interrupted sp, and what the copy of
			 * the handler's stack lacks is the thread's stack. */
			lower = next.sp;
			first_fp = 1;
			if (next.sp < w->m->window_addr || next.sp - w->m->window_addr >= w->m->window_len + PAST_MAX)
				w->left = 1;
		} else if (f.have_sp && next.sp < f.sp) {
			stop = UNWIND_STOP_NOT_UP;
			break;
		}
		if (cfg->is_code && !cfg->is_code(cfg->is_code_ctx, next.pc)) {
			stop = UNWIND_STOP_NOT_CODE;
			break;
		}
		if (k == max) {
			stop = UNWIND_STOP_DEPTH;
			break;
		}
		trail(cfg, k, &next, 0);
		out[k++] = next.pc;
		f = next;
	}
	*n = k;
	return stop;
}

/* The plain walk's trail: what it knows of frame k. */
static void plain_trail(const struct unwind_config *cfg, size_t k, uint64_t sp, uint64_t ra_at, int exact,
			int scanned)
{
	if (cfg->trail)
		cfg->trail[k] = (struct unwind_frame){ sp, ra_at, 0, exact, 0, scanned };
}

int unwind_stack(const struct unwind_config *cfg, const struct unwind_regs *regs,
		 const struct unwind_memory *mem, uint64_t *out, size_t *n)
{
	size_t max = cfg->max_depth ? cfg->max_depth : 1;
	size_t k = 0;
	uint64_t fp = regs->fp, lower = regs->sp;
	struct walk w = { mem, 0, 0 };
	int stop;

	if (cfg->cfi)
		return unwind_hybrid(cfg, regs, &w, out, n);
	plain_trail(cfg, k, regs->sp, 0, 1, 0);
	out[k++] = fix_ret(cfg, regs->pc);
	if (cfg->arch == UNWIND_ARCH_X86_64 && cfg->is_return && regs->sp && !(regs->sp & 7)) {
		uint64_t limit = regs->sp + 8 * UNWIND_LEAF_SCAN_WORDS;
		/* A plausible first record bounds the search: whatever lies
		 * at or above it belongs to the frame chain. */
		if (fp >= regs->sp && !(fp & 7) && fp < limit)
			limit = fp;
		for (uint64_t a = regs->sp; a < limit; a += 8) {
			uint64_t v;
			if (mem_read(&w, a, &v, 8) < 0)
				break;
			if (cfg->is_return(cfg->is_return_ctx, v)) {
				if (k == max) {
					*n = k;
					return UNWIND_STOP_DEPTH;
				}
				plain_trail(cfg, k, a + 8, a, 0, 1);
				out[k++] = v;
				break;
			}
		}
	}
	for (int first = 1;; first = 0) {
		uint8_t rec[16];
		uint64_t next, ret;

		if (fp == 0) {
			stop = UNWIND_STOP_END;
			break;
		}
		if (fp & 7) {
			stop = UNWIND_STOP_MISALIGNED;
			break;
		}
		if (fp < lower || (!first && fp == lower)) {
			stop = UNWIND_STOP_NOT_UP;
			break;
		}
		if (fp > UINT64_MAX - 16 || mem_read(&w, fp, rec, sizeof(rec)) < 0) {
			stop = w.past ? UNWIND_STOP_WINDOW : UNWIND_STOP_UNREADABLE;
			break;
		}
		memcpy(&next, rec, 8);      /* the target is little-endian, like us */
		memcpy(&ret, rec + 8, 8);
		ret = fix_ret(cfg, ret);
		if (first && cfg->arch == UNWIND_ARCH_ARM64 && regs->lr) {
			uint64_t lr = fix_ret(cfg, regs->lr);
			if (lr != ret) {
				if (k == max) {
					stop = UNWIND_STOP_DEPTH;
					break;
				}
				if (cfg->is_code && !cfg->is_code(cfg->is_code_ctx, lr)) {
					stop = UNWIND_STOP_NOT_CODE;
					break;
				}
				plain_trail(cfg, k, 0, 0, 0, 0);
				out[k++] = lr;
			}
		}
		if (ret == 0) {
			stop = UNWIND_STOP_END;
			break;
		}
		if (cfg->is_code && !cfg->is_code(cfg->is_code_ctx, ret)) {
			stop = UNWIND_STOP_NOT_CODE;
			break;
		}
		if (k == max) {
			stop = UNWIND_STOP_DEPTH;
			break;
		}
		plain_trail(cfg, k, cfg->arch == UNWIND_ARCH_ARM64 ? 0 : fp + 16, fp + 8, 0, 0);
		out[k++] = ret;
		if (next == fp) {
			stop = UNWIND_STOP_LOOP;
			break;
		}
		if (next != 0 && next < fp) {
			stop = UNWIND_STOP_NOT_UP;
			break;
		}
		lower = fp;
		fp = next;
	}
	*n = k;
	return stop;
}

int unwind_leaf_scanned(const struct unwind_frame *trail, size_t n)
{
	return trail && n > 1 && trail[1].scanned;
}

int unwind_stop_counter(int stop)
{
	switch (stop) {
	case UNWIND_STOP_END: return TRACE_COUNTER_STOP_END;
	case UNWIND_STOP_UNREADABLE: return TRACE_COUNTER_STOP_UNREADABLE;
	case UNWIND_STOP_NOT_UP: return TRACE_COUNTER_STOP_NOT_UP;
	case UNWIND_STOP_MISALIGNED: return TRACE_COUNTER_STOP_MISALIGNED;
	case UNWIND_STOP_LOOP: return TRACE_COUNTER_STOP_LOOP;
	case UNWIND_STOP_WINDOW: return TRACE_COUNTER_STOP_WINDOW;
	case UNWIND_STOP_NOT_CODE: return TRACE_COUNTER_STOP_NOT_CODE;
	default: return TRACE_COUNTER_STOP_DEPTH;
	}
}

const char *unwind_stop_name(int stop)
{
	static const char *const names[] = { "end", "unreadable", "not-up", "misaligned", "loop", "depth",
					     "window", "not-code" };
	if (stop < 0 || stop > UNWIND_STOP_NOT_CODE)
		return "unknown";
	return names[stop];
}

int unwind_x86_64_after_call(const uint8_t b[7])
{
	/* call rel32: e8 xx xx xx xx */
	if (b[2] == 0xe8)
		return 1;
	/* call *%reg (ff d0+r, optionally REX 41) and call *(%reg) (ff 10+r) */
	if (b[5] == 0xff && ((b[6] & 0xf8) == 0xd0 || ((b[6] & 0xf8) == 0x10 && (b[6] & 7) != 4 && (b[6] & 7) != 5)))
		return 1;
	/* call *disp8(%reg): ff 50+r d8, or ff 54 sib d8 */
	if (b[4] == 0xff && (b[5] & 0xf8) == 0x50 && (b[5] & 7) != 4)
		return 1;
	if (b[3] == 0xff && b[4] == 0x54)
		return 1;
	/* call *disp32(%rip): ff 15 d32; call *disp32(%reg): ff 90+r d32 */
	if (b[1] == 0xff && (b[2] == 0x15 || ((b[2] & 0xf8) == 0x90 && (b[2] & 7) != 4)))
		return 1;
	if (b[0] == 0xff && b[1] == 0x94)
		return 1;
	return 0;
}
