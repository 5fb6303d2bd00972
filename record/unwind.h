/*
 * unwind.h: a portable frame-pointer stack walker for x86_64 and arm64.
 *
 * The walker never touches the OS. It reads target memory through a
 * struct unwind_memory: first from an optional pre-read window of stack
 * bytes (normally read from sp upward in one system call while the thread
 * is stopped), then, for anything outside that window, through a read
 * callback. So the same code walks a real stopped thread and a synthetic
 * memory image in a unit test.
 *
 * With a CFI lookup (struct unwind_config's cfi callback), the walk is a
 * hybrid: each frame whose pc has a .eh_frame row is unwound by that row
 * (CFA, return address, frame pointer), which is right in frameless leaves,
 * prologues and code built without frame pointers; a frame without a row,
 * or whose row cannot be applied, takes the frame-pointer step. Without the
 * callback the walk is the plain frame-pointer walk.
 *
 * Frames are written leaf first. out[0] is the interrupted pc, exactly.
 * Every later entry is a return address stored as found (after arm64
 * pointer-authentication bits are stripped): it points just past the call
 * instruction, so a symbolizer should look up addr - 1 for those frames.
 */
#ifndef RECORD_UNWIND_H
#define RECORD_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "cfi.h"

enum unwind_arch { UNWIND_ARCH_X86_64, UNWIND_ARCH_ARM64 };

/* Why a walk ended. Each maps to one TRACE_COUNTER_STOP_* counter. */
enum unwind_stop {
	UNWIND_STOP_END,        /* fp (or a return address) was 0: the outermost frame */
	UNWIND_STOP_UNREADABLE, /* a frame record could not be read */
	UNWIND_STOP_NOT_UP,     /* the next fp is below the current one (or below sp) */
	UNWIND_STOP_MISALIGNED, /* fp is not 8-byte aligned */
	UNWIND_STOP_LOOP,       /* the frame record points at itself */
	UNWIND_STOP_DEPTH,      /* max_depth frames were stored and more remain */
	UNWIND_STOP_WINDOW,     /* the next frame lies past the copied stack */
	UNWIND_STOP_NOT_CODE,   /* a return address outside the executable code */
};

#define UNWIND_DEFAULT_VA_BITS 48

/* The thread's registers. lr is used on arm64 only; sp may be 0 if unknown. */
struct unwind_regs {
	uint64_t pc, sp, fp, lr;
};

struct unwind_memory {
	/* May be NULL, then only the window is readable. A read past the
	 * window's end that fails stops the walk with UNWIND_STOP_WINDOW. */
	memory_read_fn read;
	void *ctx;
	uint64_t window_addr;   /* the target address of window[0] */
	const uint8_t *window;  /* borrowed for the walk; may be NULL */
	size_t window_len;
	int window_whole;       /* nothing is missing for want of a copy: the
				 * window runs to the stack's end, or read
				 * reads the live stack. Else a failed read
				 * past the window is UNWIND_STOP_WINDOW. */
};

struct unwind_config {
	int arch;               /* enum unwind_arch */
	unsigned va_bits;       /* arm64 virtual-address bits; 0 means 48 */
	size_t max_depth;       /* at most this many frames are stored (>= 1) */
	/* x86_64, optional: says whether a stack word is a plausible return
	 * address (in executable code, just after a call). When set, the words
	 * from sp up to the first frame record are searched for one, so the
	 * caller of a leaf without a frame of its own (a libc system-call
	 * wrapper, or any function caught in its prologue) is not lost. The
	 * plain walk searches above every leaf; the hybrid walk only above a
	 * leaf that has no CFI row and whose frame pointer cannot give its
	 * caller (see unwind.c's fp_serves()): in code that keeps frame
	 * pointers, such as JIT code, the words between sp and fp are the
	 * leaf's own frame and may hold a stale return address. A frame
	 * found so is marked in the trail (struct unwind_frame's scanned). */
	int (*is_return)(void *ctx, uint64_t addr);
	void *is_return_ctx;
	/* Optional: the .eh_frame row for a code address of the target.
	 * Returns 0 and fills *row (whose expr stays valid for the walk), or
	 * negative when the address has no usable CFI. The walker asks with
	 * the pc itself for the interrupted frame (and for a frame that a
	 * signal interrupted) and with the return address minus 1 for the
	 * others, so a call at a function's very end is looked up in that
	 * function. When set, the words-above-sp search of
	 * is_return is only made for a leaf that has no row. */
	int (*cfi)(void *ctx, uint64_t pc, struct cfi_row *row);
	void *cfi_ctx;
	/* Optional: incremented once per frame unwound through a CFI row. */
	size_t *cfi_frames;
	/* Optional: says whether addr lies in an executable mapping of the
	 * target. A return address that does not is no frame: the walk
	 * stops there with UNWIND_STOP_NOT_CODE rather than invent one. */
	int (*is_code)(void *ctx, uint64_t addr);
	void *is_code_ctx;
	/* Optional: room for max_depth entries, filled for each frame stored,
	 * so a walk cut short can be joined with another (the hybrid walk) and
	 * a frame found by the leaf search is known (both walks; the plain
	 * walk gives sp and ra_at where it has them, no func). */
	struct unwind_frame *trail;
	/* Optional, arm64 (the hybrid walk): says whether pc is the kernel's
	 * signal return trampoline, the vDSO's __kernel_rt_sigreturn, which
	 * has no CFI. A frame there whose sp is known is the kernel's
	 * rt_sigframe, and the interrupted registers are read from its
	 * sigcontext (see UNWIND_A64_SIGFRAME_*). */
	int (*is_sigreturn)(void *ctx, uint64_t pc);
	void *is_sigreturn_ctx;
};

/* arm64's rt_sigframe as the kernel lays it out at a handler's sp (and so
 * at its trampoline's): a siginfo of 128 bytes, then the ucontext, whose
 * uc_mcontext (struct sigcontext) begins 176 bytes in: fault_address,
 * x0 to x30, sp, pc, pstate, then its records, 16-aligned, of which the
 * first is always the FP/SIMD context, with that magic. */
#define UNWIND_A64_SIGFRAME_X29 (128 + 176 + 8 + 29 * 8)
#define UNWIND_A64_SIGFRAME_X30 (UNWIND_A64_SIGFRAME_X29 + 8)
#define UNWIND_A64_SIGFRAME_SP (UNWIND_A64_SIGFRAME_X29 + 16)
#define UNWIND_A64_SIGFRAME_PC (UNWIND_A64_SIGFRAME_X29 + 24)
#define UNWIND_A64_SIGFRAME_RECORDS (128 + 176 + 288)
#define UNWIND_A64_FPSIMD_MAGIC 0x46508001u

/* How each frame of a walk was found. */
struct unwind_frame {
	uint64_t sp;            /* the frame's sp (its callee's CFA); 0 if unknown */
	uint64_t ra_at;         /* where its pc was read; 0: a register, or the leaf */
	uint64_t func;          /* its function's start by CFI (struct cfi_row's
				 * func); 0 if it had no row */
	int exact;              /* its pc was interrupted (the leaf, or a frame a
				 * signal interrupted), not a return address */
	uint64_t next_sp;       /* the last frame's only: its caller's sp, as far
				 * as the walk got (0 if unknown), for a walk that
				 * stopped there */
	int scanned;            /* its pc came from the x86_64 leaf search (a
				 * word between sp and fp that is_return took for
				 * a return address), not from CFI, a frame record
				 * or a register: it may be stale. Only frame 1's
				 * can be. The sources count such walks
				 * (TRACE_COUNTER_LEAF_SCANS). */
};

/* The words above sp the x86_64 leaf search reads at most. */
#define UNWIND_LEAF_SCAN_WORDS 64
/* How far above sp a frame pointer may lie and still give a leaf without
 * CFI its caller in the hybrid walk (see struct unwind_config's is_return). */
#define UNWIND_FP_FRAME_MAX (1u << 20)

/* Walks the stack of regs and stores at most cfg->max_depth frames, leaf
 * first, into out (room for max_depth entries, owned by the caller); *n is
 * set to the number stored. Returns the enum unwind_stop reason (>= 0).
 * The walk never returns a frame it did not find: a return address
 * outside the code (cfg->is_code), a frame that does not move up the
 * stack, or one past the copied window ends it, with that reason. */
int unwind_stack(const struct unwind_config *cfg, const struct unwind_regs *regs,
		 const struct unwind_memory *mem, uint64_t *out, size_t *n);

/* Clears arm64 pointer-authentication (and top-byte-ignore) bits above
 * va_bits from a user-space code address. va_bits 0 means 48. */
uint64_t unwind_strip_pac(uint64_t addr, unsigned va_bits);
/* The va_bits of a user address space whose highest mapping ends at top
 * (exclusive): the bits an address below top needs; 0 if top is 0. */
unsigned unwind_va_bits(uint64_t top);

/* Whether the 7 code bytes before an address (before[6] is the last) end
 * with an x86_64 call instruction (direct, or indirect through a register
 * or memory operand), i.e. whether the address can be a return address. */
int unwind_x86_64_after_call(const uint8_t before[7]);

/* Whether the walk of n frames whose trail this is took its leaf's caller
 * from the leaf search: such a walk counts in TRACE_COUNTER_LEAF_SCANS. */
int unwind_leaf_scanned(const struct unwind_frame *trail, size_t n);

/* Returns the TRACE_COUNTER_STOP_* counter for an enum unwind_stop. */
int unwind_stop_counter(int stop);
/* A short name for an enum unwind_stop ("end", "unreadable", ...). */
const char *unwind_stop_name(int stop);

#endif
