/*
 * test_unwind.c: the frame-pointer walker on synthetic stacks.
 *
 * A fake target is a small array of 64-bit words at a made-up base
 * address; the read callback serves it and counts its calls, so the tests
 * can check both what the walk found and whether the window fast path
 * avoided the callback. Every stop reason is provoked on purpose.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "record/unwind.h"
#include "format/trace.h"

#define BASE UINT64_C(0x7ffd00001000)
#define WORDS 512

struct fake {
	uint64_t mem[WORDS];
	int calls;
};

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake *f = ctx;
	f->calls++;
	if (addr < BASE || addr - BASE > sizeof(f->mem) || len > sizeof(f->mem) - (addr - BASE))
		return -1;
	memcpy(buf, (uint8_t *)f->mem + (addr - BASE), len);
	return 0;
}

static uint64_t at(int word) { return BASE + 8 * (uint64_t)word; }

/* A frame record at word w: [fp] = next, [fp+8] = ret. */
static void frame(struct fake *f, int w, uint64_t next, uint64_t ret)
{
	f->mem[w] = next;
	f->mem[w + 1] = ret;
}

static struct unwind_memory memory(struct fake *f)
{
	struct unwind_memory m = { .read = fake_read, .ctx = f };
	return m;
}

static int walk(struct fake *f, int arch, uint64_t pc, uint64_t sp, uint64_t fp, uint64_t lr,
		size_t max, uint64_t *out, size_t *n)
{
	struct unwind_config cfg = { .arch = arch, .max_depth = max };
	struct unwind_regs r = { .pc = pc, .sp = sp, .fp = fp, .lr = lr };
	struct unwind_memory m = memory(f);
	return unwind_stack(&cfg, &r, &m, out, n);
}

/* Three frames ending with fp 0. */
static void chain3(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	frame(f, 10, at(20), 0x401111);
	frame(f, 20, at(30), 0x402222);
	frame(f, 30, 0, 0x403333);
}

Test(unwind, x86_64_end)
{
	static struct fake f;
	uint64_t out[16];
	size_t n;
	chain3(&f);
	int stop = walk(&f, UNWIND_ARCH_X86_64, 0x400000, at(2), at(10), 0, 16, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END);
	cr_assert_eq(n, 4);
	cr_assert_eq(out[0], 0x400000);
	cr_assert_eq(out[1], 0x401111);
	cr_assert_eq(out[2], 0x402222);
	cr_assert_eq(out[3], 0x403333);
	cr_assert_eq(unwind_stop_counter(stop), TRACE_COUNTER_STOP_END);
}

Test(unwind, fp_zero_at_start)
{
	static struct fake f;
	uint64_t out[4];
	size_t n;
	memset(&f, 0, sizeof(f));
	cr_assert_eq(walk(&f, UNWIND_ARCH_X86_64, 0x400000, at(2), 0, 0, 4, out, &n), UNWIND_STOP_END);
	cr_assert_eq(n, 1);
	cr_assert_eq(out[0], 0x400000);
}

Test(unwind, zero_return_address_ends)
{
	static struct fake f;
	uint64_t out[8];
	size_t n;
	memset(&f, 0, sizeof(f));
	frame(&f, 10, at(20), 0x401111);
	frame(&f, 20, at(30), 0);
	cr_assert_eq(walk(&f, UNWIND_ARCH_X86_64, 1, at(2), at(10), 0, 8, out, &n), UNWIND_STOP_END);
	cr_assert_eq(n, 2);
}

Test(unwind, unreadable)
{
	static struct fake f;
	uint64_t out[8];
	size_t n;
	memset(&f, 0, sizeof(f));
	frame(&f, 10, BASE + 0x100000, 0x401111); /* points outside the image */
	int stop = walk(&f, UNWIND_ARCH_X86_64, 1, at(2), at(10), 0, 8, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_UNREADABLE);
	cr_assert_eq(n, 2);
	cr_assert_eq(out[1], 0x401111);
	cr_assert_eq(unwind_stop_counter(stop), TRACE_COUNTER_STOP_UNREADABLE);
}

Test(unwind, past_window_without_callback)
{
	static struct fake f;
	uint64_t out[8];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 8 };
	struct unwind_regs r = { .pc = 1, .sp = at(0), .fp = at(10) };
	struct unwind_memory m = { .window = (uint8_t *)f.mem, .window_addr = BASE, .window_len = 8 * 11 };
	chain3(&f);
	/* The record at word 10 straddles the end of the window: the walk
	 * ran out of the copy, which is not an unreadable stack. */
	cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_WINDOW);
	cr_assert_eq(n, 1);
}

Test(unwind, not_up)
{
	static struct fake f;
	uint64_t out[8];
	size_t n;
	memset(&f, 0, sizeof(f));
	frame(&f, 20, at(10), 0x401111); /* the caller's fp is below ours */
	frame(&f, 10, at(30), 0x402222);
	int stop = walk(&f, UNWIND_ARCH_X86_64, 1, at(2), at(20), 0, 8, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_NOT_UP);
	cr_assert_eq(n, 2);
	cr_assert_eq(unwind_stop_counter(stop), TRACE_COUNTER_STOP_NOT_UP);
}

Test(unwind, fp_below_sp_is_not_up)
{
	static struct fake f;
	uint64_t out[8];
	size_t n;
	chain3(&f);
	cr_assert_eq(walk(&f, UNWIND_ARCH_X86_64, 1, at(12), at(10), 0, 8, out, &n), UNWIND_STOP_NOT_UP);
	cr_assert_eq(n, 1);
}

Test(unwind, misaligned)
{
	static struct fake f;
	uint64_t out[8];
	size_t n;
	memset(&f, 0, sizeof(f));
	frame(&f, 10, at(20) + 4, 0x401111);
	int stop = walk(&f, UNWIND_ARCH_X86_64, 1, at(2), at(10), 0, 8, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_MISALIGNED);
	cr_assert_eq(n, 2);
	cr_assert_eq(unwind_stop_counter(stop), TRACE_COUNTER_STOP_MISALIGNED);
	cr_assert_eq(walk(&f, UNWIND_ARCH_X86_64, 1, at(2), at(10) + 3, 0, 8, out, &n),
		     UNWIND_STOP_MISALIGNED);
	cr_assert_eq(n, 1);
}

Test(unwind, loop)
{
	static struct fake f;
	uint64_t out[8];
	size_t n;
	memset(&f, 0, sizeof(f));
	frame(&f, 10, at(20), 0x401111);
	frame(&f, 20, at(20), 0x402222); /* points at itself */
	int stop = walk(&f, UNWIND_ARCH_X86_64, 1, at(2), at(10), 0, 8, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_LOOP);
	cr_assert_eq(n, 3);
	cr_assert_eq(unwind_stop_counter(stop), TRACE_COUNTER_STOP_LOOP);
}

Test(unwind, depth_cap)
{
	static struct fake f;
	uint64_t out[3];
	size_t n;
	chain3(&f);
	int stop = walk(&f, UNWIND_ARCH_X86_64, 0x400000, at(2), at(10), 0, 3, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_DEPTH);
	cr_assert_eq(n, 3);
	cr_assert_eq(out[2], 0x402222);
	cr_assert_eq(unwind_stop_counter(stop), TRACE_COUNTER_STOP_DEPTH);
	/* Exactly enough room is not a truncation. */
	uint64_t out4[4];
	cr_assert_eq(walk(&f, UNWIND_ARCH_X86_64, 0x400000, at(2), at(10), 0, 4, out4, &n),
		     UNWIND_STOP_END);
	cr_assert_eq(n, 4);
}

Test(unwind, deep_recursion)
{
	static struct fake f;
	uint64_t out[1024];
	size_t n;
	memset(&f, 0, sizeof(f));
	for (int w = 0; w + 2 < WORDS; w += 2)
		frame(&f, w, w + 4 < WORDS ? at(w + 2) : 0, 0x401000 + (uint64_t)w);
	int stop = walk(&f, UNWIND_ARCH_X86_64, 1, at(0), at(0), 0, 1024, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END);
	cr_assert_eq(n, 1 + (WORDS - 2) / 2);
	stop = walk(&f, UNWIND_ARCH_X86_64, 1, at(0), at(0), 0, 100, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_DEPTH);
	cr_assert_eq(n, 100);
}

Test(unwind, window_fast_path)
{
	static struct fake f;
	uint64_t out[16];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16 };
	struct unwind_regs r = { .pc = 0x400000, .sp = at(2), .fp = at(10) };
	chain3(&f);
	struct unwind_memory m = { .read = fake_read, .ctx = &f, .window_addr = at(2),
				   .window = (uint8_t *)&f.mem[2], .window_len = 8 * (WORDS - 2) };
	f.calls = 0;
	cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_END);
	cr_assert_eq(n, 4);
	cr_assert_eq(f.calls, 0, "the callback was used %d times inside the window", f.calls);

	/* A window that covers only the first record: the rest is read through
	 * the callback, and the result is the same. */
	m.window_len = 8 * (10 - 2) + 16;
	cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_END);
	cr_assert_eq(n, 4);
	cr_assert_eq(out[3], 0x403333);
	cr_assert_eq(f.calls, 2);
}

Test(unwind, arm64_frames_and_lr)
{
	static struct fake f;
	uint64_t out[16];
	size_t n;
	chain3(&f);
	/* lr equals the first record's return address: the leaf pushed its
	 * frame, lr is not repeated. */
	int stop = walk(&f, UNWIND_ARCH_ARM64, 0x400000, at(2), at(10), 0x401111, 16, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END);
	cr_assert_eq(n, 4);
	cr_assert_eq(out[1], 0x401111);
	/* A frameless leaf: lr is the caller, then the chain. */
	stop = walk(&f, UNWIND_ARCH_ARM64, 0x400000, at(2), at(10), 0x400abc, 16, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END);
	cr_assert_eq(n, 5);
	cr_assert_eq(out[1], 0x400abc);
	cr_assert_eq(out[2], 0x401111);
	/* The cap applies to the lr frame too. */
	stop = walk(&f, UNWIND_ARCH_ARM64, 0x400000, at(2), at(10), 0x400abc, 1, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_DEPTH);
	cr_assert_eq(n, 1);
}

Test(unwind, arm64_pac_stripped)
{
	static struct fake f;
	uint64_t out[16];
	size_t n;
	memset(&f, 0, sizeof(f));
	frame(&f, 10, at(20), UINT64_C(0x002d000100003f10)); /* signed return address */
	frame(&f, 20, 0, UINT64_C(0x7a18000100004000));
	int stop = walk(&f, UNWIND_ARCH_ARM64, UINT64_C(0x100003e00), at(2), at(10),
			UINT64_C(0x0041000100003f10), 16, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END);
	cr_assert_eq(n, 3);
	cr_assert_eq(out[0], UINT64_C(0x100003e00));
	cr_assert_eq(out[1], UINT64_C(0x100003f10));
	cr_assert_eq(out[2], UINT64_C(0x100004000));
	/* x86_64 addresses are never masked. */
	cr_assert_eq(walk(&f, UNWIND_ARCH_X86_64, 1, at(2), at(10), 0, 16, out, &n), UNWIND_STOP_END);
	cr_assert_eq(out[1], UINT64_C(0x002d000100003f10));
}

Test(unwind, strip_pac_va_bits)
{
	cr_assert_eq(unwind_strip_pac(UINT64_C(0xffff7fffffffffff), 47), UINT64_C(0x7fffffffffff));
	cr_assert_eq(unwind_strip_pac(UINT64_C(0xffffffffffffffff), 48), UINT64_C(0xffffffffffff));
	cr_assert_eq(unwind_strip_pac(UINT64_C(0xab00001234567890), 0), UINT64_C(0x1234567890));
	cr_assert_eq(unwind_strip_pac(UINT64_C(0x00ff0fffffffffff), 44), UINT64_C(0x0fffffffffff));
	cr_assert_eq(unwind_strip_pac(UINT64_C(0x1234), 64), UINT64_C(0x1234));
}

/* The address bits from the top of a process's map: its stack's end. */
Test(unwind, va_bits_from_the_top_of_the_map)
{
	cr_assert_eq(unwind_va_bits(UINT64_C(0x7ff4b45000)), 39, "a 39-bit address space (Android)");
	cr_assert_eq(unwind_va_bits(UINT64_C(0x8000000000)), 39, "its very end");
	cr_assert_eq(unwind_va_bits(UINT64_C(0x8000001000)), 40);
	cr_assert_eq(unwind_va_bits(UINT64_C(0xfffff7fff000)), 48, "a 48-bit arm64 one");
	cr_assert_eq(unwind_va_bits(UINT64_C(0x7ffd5b8f8000)), 47, "x86_64's");
	cr_assert_eq(unwind_va_bits(0), 0, "no map: the default");
	/* A return address signed above bit 39 loses its signature, which a
	 * 48-bit mask would keep in bits 39 to 47. */
	cr_assert_eq(unwind_strip_pac(UINT64_C(0x0047807fb8a00a10), unwind_va_bits(UINT64_C(0x7ff4b45000))),
		     UINT64_C(0x7fb8a00a10));
	cr_assert_neq(unwind_strip_pac(UINT64_C(0x0047807fb8a00a10), 0), UINT64_C(0x7fb8a00a10));
}

Test(unwind, arm64_va_bits_config)
{
	static struct fake f;
	uint64_t out[4];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_ARM64, .va_bits = 39, .max_depth = 4 };
	memset(&f, 0, sizeof(f));
	frame(&f, 10, 0, UINT64_C(0x0000ff8012345678));
	struct unwind_regs r = { .pc = 1, .sp = at(2), .fp = at(10) };
	struct unwind_memory m = memory(&f);
	cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_END);
	cr_assert_eq(out[1], UINT64_C(0x12345678));
}

Test(unwind, stop_names)
{
	cr_assert_str_eq(unwind_stop_name(UNWIND_STOP_LOOP), "loop");
	cr_assert_str_eq(unwind_stop_name(99), "unknown");
}

/* Return addresses are 0x40xxxx in these tests. */
static int looks_like_return(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr >= 0x400000 && addr < 0x500000;
}

Test(unwind, x86_64_frameless_leaf_caller_found)
{
	static struct fake f;
	uint64_t out[16];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16,
				     .is_return = looks_like_return };
	struct unwind_regs r = { .pc = 0x7f0000001000, .sp = at(2), .fp = at(10) };
	struct unwind_memory m = memory(&f);
	chain3(&f);
	f.mem[2] = at(40);      /* a saved pointer: not code */
	f.mem[3] = 0x1234;      /* a saved count */
	f.mem[4] = 0x400abc;    /* the frameless leaf's return address */
	cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_END);
	cr_assert_eq(n, 5);
	cr_assert_eq(out[1], 0x400abc);
	cr_assert_eq(out[2], 0x401111);

	/* Nothing that looks like code below the first record: no extra frame. */
	f.mem[4] = 0;
	cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_END);
	cr_assert_eq(n, 4);

	/* The depth cap counts the found frame. */
	f.mem[4] = 0x400abc;
	cfg.max_depth = 1;
	cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_DEPTH);
	cr_assert_eq(n, 1);
}

Test(unwind, x86_64_leaf_scan_with_garbage_fp)
{
	static struct fake f;
	uint64_t out[16];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16,
				     .is_return = looks_like_return };
	/* rbp used as a general register by the leaf: the scan still finds
	 * the caller, then the walk stops on the bad fp. */
	struct unwind_regs r = { .pc = 0x7f0000001000, .sp = at(2), .fp = 0x13 };
	struct unwind_memory m = memory(&f);
	memset(&f, 0, sizeof(f));
	f.mem[6] = 0x400abc;
	cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_MISALIGNED);
	cr_assert_eq(n, 2);
	cr_assert_eq(out[1], 0x400abc);
}

Test(unwind, x86_64_after_call)
{
	static const uint8_t direct[7] = { 0x90, 0x90, 0xe8, 0x49, 0xd5, 0xf8, 0xff };
	static const uint8_t reg[7] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0xff, 0xd0 };
	static const uint8_t r11[7] = { 0x90, 0x90, 0x90, 0x90, 0x41, 0xff, 0xd3 };
	static const uint8_t disp8[7] = { 0x90, 0x90, 0x90, 0x90, 0xff, 0x50, 0x48 };
	static const uint8_t rip[7] = { 0x90, 0xff, 0x15, 0x10, 0x20, 0x30, 0x00 };
	static const uint8_t plain[7] = { 0x48, 0x89, 0x54, 0x24, 0x18, 0x31, 0xc0 };
	static const uint8_t ret[7] = { 0x48, 0x83, 0xc4, 0x28, 0x90, 0x90, 0xc3 };
	cr_assert(unwind_x86_64_after_call(direct));
	cr_assert(unwind_x86_64_after_call(reg));
	cr_assert(unwind_x86_64_after_call(r11));
	cr_assert(unwind_x86_64_after_call(disp8));
	cr_assert(unwind_x86_64_after_call(rip));
	cr_assert_not(unwind_x86_64_after_call(plain));
	cr_assert_not(unwind_x86_64_after_call(ret));
}

Test(unwind, x86_64_leaf_with_frame_is_not_scanned)
{
	static struct fake f;
	uint64_t out[16];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16,
				     .is_return = looks_like_return };
	/* push rbp; mov rsp, rbp: sp == fp, and [fp + 8] must not be found
	 * twice. */
	struct unwind_regs r = { .pc = 0x7f0000001000, .sp = at(10), .fp = at(10) };
	struct unwind_memory m = memory(&f);
	chain3(&f);
	cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_END);
	cr_assert_eq(n, 4);
	cr_assert_eq(out[1], 0x401111);
	cr_assert_eq(out[2], 0x402222);
}

/*
 * The hybrid walk: synthetic CFI rows by pc range, as images_cfi_row()
 * would give them. Code at 0x40xxxx has frame pointers; 0x50xxxx is
 * "libc", built without them.
 */
struct span {
	uint64_t lo, hi;
	struct cfi_row row;
};

struct rows {
	struct span s[8];
	int n, asked;
};

static int rows_lookup(void *ctx, uint64_t pc, struct cfi_row *row)
{
	struct rows *r = ctx;
	r->asked++;
	for (int i = 0; i < r->n; i++)
		if (pc >= r->s[i].lo && pc < r->s[i].hi) {
			*row = r->s[i].row;
			return 0;
		}
	return CFI_E_NOTFOUND;
}

static struct cfi_row rsp_row(int64_t cfa_off, int64_t rbp_at)
{
	struct cfi_row row = { .cfa_kind = CFI_CFA_REG, .cfa_reg = CFI_X86_64_RSP, .cfa_offset = cfa_off,
			       .ra_reg = CFI_X86_64_RA, .ra = { .kind = CFI_RULE_OFFSET, .offset = -8 } };
	if (rbp_at)
		row.fp = (struct cfi_rule){ .kind = CFI_RULE_OFFSET, .offset = rbp_at };
	return row;
}

static struct cfi_row rbp_row(void)
{
	struct cfi_row row = rsp_row(16, -16);
	row.cfa_reg = CFI_X86_64_RBP;
	return row;
}

static int hwalk(struct fake *f, struct rows *rs, uint64_t pc, uint64_t sp, uint64_t fp, size_t max,
		 uint64_t *out, size_t *n, size_t *cfi_frames)
{
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = max, .cfi = rows_lookup,
				     .cfi_ctx = rs, .cfi_frames = cfi_frames };
	struct unwind_regs r = { .pc = pc, .sp = sp, .fp = fp };
	struct unwind_memory m = memory(f);
	return unwind_stack(&cfg, &r, &m, out, n);
}

/* A frameless leaf (CFA = rsp + 8) in FP code: its caller comes from the
 * row, then the frame records take over. */
Test(unwind, cfi_frameless_leaf)
{
	static struct fake f;
	struct rows rs = { .n = 1 };
	uint64_t out[16];
	size_t n, cf = 0;

	chain3(&f);
	f.mem[4] = 0x400500;                  /* [sp] = return into the caller */
	rs.s[0] = (struct span){ 0x400000, 0x400100, rsp_row(8, 0) };
	int stop = hwalk(&f, &rs, 0x400010, at(4), at(10), 16, out, &n, &cf);
	cr_assert_eq(stop, UNWIND_STOP_END);
	cr_assert_eq(n, 5);
	cr_assert_eq(out[1], 0x400500);
	cr_assert_eq(out[2], 0x401111);
	cr_assert_eq(out[4], 0x403333);
	cr_assert_eq(cf, 1);
}

/* FP leaf -> libc (no frame pointer, rbp used as data, saved at CFA-16)
 * -> FP caller. The plain walk stops in libc; the hybrid restores rbp from
 * libc's save slot and walks on through the caller's records. */
Test(unwind, cfi_through_code_without_frame_pointers)
{
	static struct fake f;
	struct rows rs = { .n = 2 };
	uint64_t out[16];
	size_t n, cf = 0;

	memset(&f, 0, sizeof(f));
	/* leaf record at word 10: rbp of libc's (garbage) and the return into libc */
	frame(&f, 10, 0x1235, 0x500123);
	/* libc's frame: sp = word 12 after the leaf returns; CFA = sp + 48
	 * = word 18; ra at word 17, rbp saved at word 16. */
	f.mem[16] = at(30);
	f.mem[17] = 0x402222;
	frame(&f, 30, at(40), 0x403333);
	frame(&f, 40, 0, 0x404444);
	rs.s[0] = (struct span){ 0x400000, 0x401000, rbp_row() };
	rs.s[1] = (struct span){ 0x500000, 0x501000, rsp_row(48, -16) };
	int stop = hwalk(&f, &rs, 0x400010, at(2), at(10), 16, out, &n, &cf);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 5);
	cr_assert_eq(out[1], 0x500123);
	cr_assert_eq(out[2], 0x402222);
	cr_assert_eq(out[3], 0x403333);
	cr_assert_eq(out[4], 0x404444);
	cr_assert_eq(cf, 2);
	/* The same frames without rows for the FP code: frame records. */
	rs.s[0].hi = rs.s[0].lo;
	cf = 0;
	stop = hwalk(&f, &rs, 0x400010, at(2), at(10), 16, out, &n, &cf);
	cr_assert_eq(n, 5);
	cr_assert_eq(out[2], 0x402222);
	cr_assert_eq(out[4], 0x404444);
	cr_assert_eq(cf, 1);
	/* And without any CFI, the plain walk stops in libc. */
	stop = walk(&f, UNWIND_ARCH_X86_64, 0x400010, at(2), at(10), 0, 16, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_NOT_UP);
	cr_assert_eq(n, 2);
}

/* A return address the row marks undefined is the outermost frame. */
Test(unwind, cfi_undefined_ra_ends)
{
	static struct fake f;
	struct rows rs = { .n = 1 };
	uint64_t out[8];
	size_t n;

	memset(&f, 0, sizeof(f));
	rs.s[0] = (struct span){ 0x400000, 0x400100, rsp_row(8, 0) };
	rs.s[0].row.ra.kind = CFI_RULE_UNDEFINED;
	cr_assert_eq(hwalk(&f, &rs, 0x400010, at(2), 0x1234, 8, out, &n, NULL), UNWIND_STOP_END);
	cr_assert_eq(n, 1);
}

/* A PLT entry's expression CFA: rsp + 8, or + 16 past the push. */
Test(unwind, cfi_plt_expression)
{
	static const uint8_t expr[] = { 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 };
	static struct fake f;
	struct rows rs = { .n = 1 };
	uint64_t out[8];
	size_t n;

	chain3(&f);
	f.mem[2] = 0x400777;   /* pushed by the PLT entry */
	f.mem[3] = 0x400500;   /* the return into the caller */
	rs.s[0] = (struct span){ 0x600000, 0x600100, rsp_row(0, 0) };
	rs.s[0].row.cfa_kind = CFI_CFA_EXPR;
	rs.s[0].row.expr = expr;
	rs.s[0].row.expr_len = sizeof(expr);
	hwalk(&f, &rs, 0x60002b, at(2), at(10), 8, out, &n, NULL);
	cr_assert_eq(out[1], 0x400500);
	hwalk(&f, &rs, 0x600020, at(3), at(10), 8, out, &n, NULL);
	cr_assert_eq(out[1], 0x400500);
	cr_assert_eq(out[2], 0x401111);
}

/* A row that would move sp down is not applied: the frame record is. */
Test(unwind, cfi_bad_row_falls_back)
{
	static struct fake f;
	struct rows rs = { .n = 1 };
	uint64_t out[8];
	size_t n;

	chain3(&f);
	rs.s[0] = (struct span){ 0x400000, 0x400100, rsp_row(-64, 0) };
	cr_assert_eq(hwalk(&f, &rs, 0x400010, at(4), at(10), 8, out, &n, NULL), UNWIND_STOP_END);
	cr_assert_eq(n, 4);
	cr_assert_eq(out[1], 0x401111);
	/* A save slot outside readable memory: likewise. */
	rs.s[0].row = rsp_row(0x100000, 0);
	cr_assert_eq(hwalk(&f, &rs, 0x400010, at(4), at(10), 8, out, &n, NULL), UNWIND_STOP_END);
	cr_assert_eq(n, 4);
}

/* Deep recursion through CFI rows: cut at max_depth, marked depth. */
Test(unwind, cfi_depth_cap)
{
	static struct fake f;
	struct rows rs = { .n = 1 };
	uint64_t out[64];
	size_t n;

	memset(&f, 0, sizeof(f));
	for (int w = 4; w < WORDS - 4; w += 2)
		f.mem[w + 1] = 0x500100;   /* each frame: 16 bytes, ra at CFA - 8 */
	rs.s[0] = (struct span){ 0x500000, 0x501000, rsp_row(16, 0) };
	int stop = hwalk(&f, &rs, 0x500010, at(4), 0, 64, out, &n, NULL);
	cr_assert_eq(stop, UNWIND_STOP_DEPTH);
	cr_assert_eq(n, 64);
	cr_assert_eq(out[63], 0x500100);
	/* Without the cap, the walk runs off the end of memory: the last
	 * row cannot be applied, the frame-pointer step (fp 0) ends it. */
	static uint64_t big[WORDS];
	stop = hwalk(&f, &rs, 0x500010, at(4), 0, WORDS, big, &n, NULL);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_lt(n, (size_t)WORDS / 2);
}

/* arm64: a leaf whose row keeps the return address in lr (x30 same value)
 * gets lr as its caller; the caller's row (CFA = sp + 16, x29 and x30
 * saved at CFA-16 and CFA-8) then leads to the frame records. */
Test(unwind, cfi_arm64_leaf_lr)
{
	static struct fake f;
	struct rows rs = { .n = 2 };
	struct unwind_config cfg = { .arch = UNWIND_ARCH_ARM64, .max_depth = 16, .cfi = rows_lookup, .cfi_ctx = &rs };
	struct unwind_regs r = { .pc = 0x400010, .sp = at(4), .fp = at(4), .lr = 0x400508 };
	struct unwind_memory m = memory(&f);
	uint64_t out[16];
	size_t n;

	memset(&f, 0, sizeof(f));
	frame(&f, 4, at(20), 0x401111);   /* the caller's record, at its sp */
	frame(&f, 20, 0, 0x402222);
	rs.s[0] = (struct span){ 0x400000, 0x400100, { .cfa_kind = CFI_CFA_REG, .cfa_reg = CFI_ARM64_SP,
						       .ra_reg = CFI_ARM64_LR, .ra = { .kind = CFI_RULE_SAME, .offset = 0 } } };
	rs.s[1] = (struct span){ 0x400500, 0x400600, { .cfa_kind = CFI_CFA_REG, .cfa_reg = CFI_ARM64_SP,
						       .cfa_offset = 16, .ra_reg = CFI_ARM64_LR,
						       .ra = { .kind = CFI_RULE_OFFSET, .offset = -8 }, .fp = { .kind = CFI_RULE_OFFSET, .offset = -16 } } };
	size_t cf = 0;
	cfg.cfi_frames = &cf;
	int stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 4);
	cr_assert_eq(out[1], 0x400508);
	cr_assert_eq(out[2], 0x401111);
	cr_assert_eq(out[3], 0x402222);
	cr_assert_eq(cf, 2);
}

/*
 * arm64: a frame reached through a frame record has no known sp (the
 * record lies at the bottom of its frame, below its locals), yet its row
 * is applied: x29 points at the record {x29, x30} the row saves, so the
 * CFA is x29 + 48 here, not fp + 16 + 48. From that exact CFA the walk
 * goes on through a frameless caller, which only its row can unwind.
 */
Test(unwind, cfi_arm64_frame_reached_by_record)
{
	static struct fake f;
	struct rows rs = { .n = 3 };
	struct unwind_config cfg = { .arch = UNWIND_ARCH_ARM64, .max_depth = 16, .cfi = rows_lookup, .cfi_ctx = &rs };
	struct unwind_regs r = { .pc = 0x400010, .sp = at(4), .fp = at(6) };
	struct unwind_memory m = memory(&f);
	uint64_t out[16];
	size_t n;

	memset(&f, 0, sizeof(f));
	frame(&f, 6, at(20), 0x400508);     /* the leaf's record; the leaf has no row */
	frame(&f, 20, 0x1238, 0x400708);    /* C's record, at the bottom of its 48 bytes */
	f.mem[29] = 0x400908;               /* D, frameless: CFA = sp + 32, ra at CFA - 8 */
	rs.s[0] = (struct span){ 0x400500, 0x400600, { .cfa_kind = CFI_CFA_REG, .cfa_reg = CFI_ARM64_SP,
			.cfa_offset = 48, .ra_reg = CFI_ARM64_LR, .ra = { .kind = CFI_RULE_OFFSET, .offset = -40 },
			.fp = { .kind = CFI_RULE_OFFSET, .offset = -48 } } };
	rs.s[1] = (struct span){ 0x400700, 0x400800, { .cfa_kind = CFI_CFA_REG, .cfa_reg = CFI_ARM64_SP,
			.cfa_offset = 32, .ra_reg = CFI_ARM64_LR, .ra = { .kind = CFI_RULE_OFFSET, .offset = -8 },
			.fp = { .kind = CFI_RULE_SAME } } };
	rs.s[2] = (struct span){ 0x400900, 0x400a00, { .cfa_kind = CFI_CFA_REG, .cfa_reg = CFI_ARM64_SP,
			.cfa_offset = 16, .ra_reg = CFI_ARM64_LR, .ra = { .kind = CFI_RULE_UNDEFINED } } };
	int stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 4);
	cr_assert_eq(out[1], 0x400508);
	cr_assert_eq(out[2], 0x400708);
	cr_assert_eq(out[3], 0x400908);

	/* A row that saves x29 and x30 apart, not as a frame record, says
	 * nothing of where x29 points: the frame-pointer step is taken. */
	rs.s[0].row.ra.offset = -32;
	stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_NOT_UP, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 3);
	cr_assert_eq(out[2], 0x400708);
}

/* A signal handler's stack: handler (FP code) -> __restore_rt (a signal
 * frame whose rows read the saved context with DW_OP_deref) -> the
 * interrupted frameless function, whose pc is exact -> FP code. */
Test(unwind, cfi_signal_frame)
{
	static const uint8_t cfa_expr[] = { 0x77, 0xa0, 0x01, 0x06 };   /* *(rsp + 160) */
	static const uint8_t rip_at[] = { 0x77, 0xa8, 0x01 };          /* rsp + 168 */
	static const uint8_t rbp_at[] = { 0x77, 0xf8, 0x00 };          /* rsp + 120 */
	static struct fake f;
	struct rows rs = { .n = 3 };
	uint64_t out[16];
	size_t n;

	memset(&f, 0, sizeof(f));
	frame(&f, 10, 0x999, 0x500040);     /* the handler's record: back into __restore_rt */
	f.mem[32] = at(60);                 /* the saved context: rsp, rip, rbp */
	f.mem[33] = 0x600020;
	f.mem[27] = at(80);
	f.mem[60] = 0x400700;               /* the interrupted leaf's return address */
	frame(&f, 80, 0, 0x400900);
	rs.s[0] = (struct span){ 0x400000, 0x401000, rbp_row() };
	rs.s[1] = (struct span){ 0x50003f, 0x500049, { .cfa_kind = CFI_CFA_EXPR, .expr = cfa_expr,
			.expr_len = sizeof(cfa_expr), .ra_reg = CFI_X86_64_RA,
			.ra = { .kind = CFI_RULE_EXPR, .expr = rip_at, .expr_len = sizeof(rip_at) },
			.fp = { .kind = CFI_RULE_EXPR, .expr = rbp_at, .expr_len = sizeof(rbp_at) }, .signal_frame = 1 } };
	/* The interrupted function starts at 0x600020: looked up at pc - 1
	 * it would not be found. */
	rs.s[2] = (struct span){ 0x600020, 0x600100, rsp_row(8, 0) };
	int stop = hwalk(&f, &rs, 0x400010, at(8), at(10), 16, out, &n, NULL);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 5);
	cr_assert_eq(out[1], 0x500040);
	cr_assert_eq(out[2], 0x600020);
	cr_assert_eq(out[3], 0x400700);
	cr_assert_eq(out[4], 0x400900);
}

/*
 * arm64 as macOS runs it (arm64e): return addresses in frame records and
 * in lr carry pointer-authentication bits, each signed with its own
 * context, so two signed copies of one address differ. A frameless leaf
 * (one that pushed no record, as most leaves) has its caller only in lr.
 */

/* A leaf in path_a that pushed nothing, called from run (0x10000060c,
 * returning to 0x100000610), itself called from main: run's record
 * returns into main, signed, and main's ends the chain. */
static void arm64e_chain(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	frame(f, 10, at(20), UINT64_C(0x4a11000100000618));
	frame(f, 20, 0, 0);
}

/* Frameless leaf: lr (signed) is the caller; every signed return address
 * of the chain comes out stripped, and nothing is repeated. */
Test(unwind, arm64_frameless_leaf_signed_lr)
{
	static struct fake f;
	uint64_t out[16];
	size_t n;

	arm64e_chain(&f);
	int stop = walk(&f, UNWIND_ARCH_ARM64, UINT64_C(0x100000580), at(8), at(10),
			UINT64_C(0x7f2b000100000610), 16, out, &n);  /* lr: into run, signed */
	cr_assert_eq(stop, UNWIND_STOP_END);
	cr_assert_eq(n, 3);
	cr_assert_eq(out[0], UINT64_C(0x100000580));
	cr_assert_eq(out[1], UINT64_C(0x100000610));
	cr_assert_eq(out[2], UINT64_C(0x100000618));
}

/* A leaf that pushed its record holds the same return address in lr and
 * at fp + 8, signed differently: it is one frame, not two. */
Test(unwind, arm64_leaf_with_record_differently_signed)
{
	static struct fake f;
	uint64_t out[16];
	size_t n;

	memset(&f, 0, sizeof(f));
	frame(&f, 10, at(20), UINT64_C(0x1c33000100000610));
	frame(&f, 20, 0, 0);
	int stop = walk(&f, UNWIND_ARCH_ARM64, UINT64_C(0x100000580), at(8), at(10),
			UINT64_C(0x6e05000100000610), 16, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END);
	cr_assert_eq(n, 2);
	cr_assert_eq(out[1], UINT64_C(0x100000610));
}

/* The same frameless leaf in the hybrid walk, where no image has a CFI row
 * (macOS code, whose unwind tables are __unwind_info): lr is still the
 * caller, and the records take over, stripped. */
Test(unwind, arm64_frameless_leaf_without_cfi_rows)
{
	static struct fake f;
	struct rows rs = { .n = 0 };
	struct unwind_config cfg = { .arch = UNWIND_ARCH_ARM64, .max_depth = 16, .cfi = rows_lookup, .cfi_ctx = &rs };
	struct unwind_regs r = { .pc = UINT64_C(0x100000580), .sp = at(8), .fp = at(10),
				 .lr = UINT64_C(0x7f2b000100000610) };
	struct unwind_memory m = memory(&f);
	uint64_t out[16];
	size_t n;

	arm64e_chain(&f);
	int stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 3);
	cr_assert_eq(out[1], UINT64_C(0x100000610));
	cr_assert_eq(out[2], UINT64_C(0x100000618));
	cr_assert_gt(rs.asked, 0);
	/* The caller's record right at the leaf's sp (a caller with no
	 * locals), in both walks. */
	r.sp = at(10);
	stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 3);
	cfg.cfi = NULL;
	stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 3);
	cr_assert_eq(out[2], UINT64_C(0x100000618));
}

/* A signed pc (a thread state read without the SDK's accessors) is
 * stripped too; a signed lr of 0 bits above the address is unchanged. */
Test(unwind, arm64_signed_pc_stripped)
{
	static struct fake f;
	uint64_t out[16];
	size_t n;

	memset(&f, 0, sizeof(f));
	frame(&f, 10, 0, 0);
	cr_assert_eq(walk(&f, UNWIND_ARCH_ARM64, UINT64_C(0x5d00000100000580), at(8), at(10),
			  UINT64_C(0x100000610), 16, out, &n), UNWIND_STOP_END);
	cr_assert_eq(n, 2);
	cr_assert_eq(out[0], UINT64_C(0x100000580));
	cr_assert_eq(out[1], UINT64_C(0x100000610));
}

/* A walk of a copy alone (no read callback) through code without frame
 * pointers: the caller's return address lies past the copy, so the walk
 * stops there as cut at the window, says where the caller's frame would
 * be, and does not take the frame-pointer step from rbp, which such code
 * uses for anything. */
Test(unwind, cfi_stops_at_window_end)
{
	static struct fake f;
	struct rows rs = { .n = 1 };
	struct unwind_frame tr[8];
	uint64_t out[8];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 8, .cfi = rows_lookup,
				     .cfi_ctx = &rs, .trail = tr };
	/* rbp holds a frame record inside the copy, which must not be used */
	struct unwind_regs r = { .pc = 0x500010, .sp = at(0), .fp = at(4) };
	struct unwind_memory m = { .window = (uint8_t *)f.mem, .window_addr = BASE, .window_len = 8 * 8 };

	memset(&f, 0, sizeof(f));
	frame(&f, 4, 0, 0x400900);
	f.mem[5] = 0x500500;                 /* the leaf's caller, frameless too */
	rs.s[0] = (struct span){ 0x500000, 0x501000, rsp_row(48, 0) };
	rs.s[0].row.func = 0x500000;
	int stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_WINDOW, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 2);
	cr_assert_eq(out[1], 0x500500);
	cr_assert_eq(tr[0].sp, at(0));
	cr_assert_eq(tr[0].func, 0x500000);
	cr_assert(tr[0].exact);
	cr_assert_eq(tr[1].sp, at(6));
	cr_assert_eq(tr[1].ra_at, at(5));
	cr_assert(!tr[1].exact);
	cr_assert_eq(tr[1].func, 0x500000);
	cr_assert_eq(tr[1].next_sp, at(12), "the caller's sp is the CFA, sp + 48");
	cr_assert_eq(unwind_stop_counter(stop), TRACE_COUNTER_STOP_WINDOW);
	cr_assert_str_eq(unwind_stop_name(stop), "window");

	/* The same stack as the whole stack (the copy reached its end):
	 * the word is unreadable, not cut by the copy. */
	m.window_whole = 1;
	cr_assert_neq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_WINDOW);
}

/* A return address outside the code is no frame: the walk stops before
 * it, in the hybrid and the plain walk alike. */
static int code_below_0x600000(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr >= 0x400000 && addr < 0x600000;
}

Test(unwind, not_code_stops)
{
	static struct fake f;
	struct rows rs = { .n = 1 };
	uint64_t out[16];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16, .cfi = rows_lookup,
				     .cfi_ctx = &rs, .is_code = code_below_0x600000 };
	struct unwind_regs r = { .pc = 0x400010, .sp = at(2), .fp = at(10) };
	struct unwind_memory m = memory(&f);

	memset(&f, 0, sizeof(f));
	frame(&f, 10, at(20), 0x401111);
	frame(&f, 20, at(30), 0x686c73696a206164);  /* ASCII, as in a data buffer */
	frame(&f, 30, 0, 0x403333);
	rs.s[0] = (struct span){ 0x400000, 0x402000, rbp_row() };
	int stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_NOT_CODE, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 2);
	cr_assert_eq(out[1], 0x401111);
	cr_assert_eq(unwind_stop_counter(stop), TRACE_COUNTER_STOP_NOT_CODE);
	cfg.cfi = NULL;
	cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_NOT_CODE);
	cr_assert_eq(n, 2);
}

/* A handler on an alternate signal stack, below the thread's stack: past
 * __restore_rt's signal frame the walk goes on at the interrupted sp, on
 * the other stack, although that is not "up" from the handler's. With a
 * copy of the handler's stack alone, the interrupted frame's caller is
 * cut at the window, with the caller's sp known for a join. */
Test(unwind, cfi_signal_frame_alternate_stack)
{
	static const uint8_t cfa_expr[] = { 0x77, 0xa0, 0x01, 0x06 };   /* *(rsp + 160) */
	static const uint8_t rip_at[] = { 0x77, 0xa8, 0x01 };          /* rsp + 168 */
	static const uint8_t rbp_at[] = { 0x77, 0xf8, 0x00 };          /* rsp + 120 */
	static struct fake f;
	struct rows rs = { .n = 3 };
	struct unwind_frame tr[16];
	uint64_t out[16];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16, .cfi = rows_lookup,
				     .cfi_ctx = &rs, .trail = tr };
	/* The thread's stack is words 0..255; the alternate stack 300.. */
	struct unwind_regs r = { .pc = 0x400010, .sp = at(300), .fp = at(302) };
	struct unwind_memory m = memory(&f);

	memset(&f, 0, sizeof(f));
	frame(&f, 302, 0x999, 0x500040);    /* the handler's record: back into __restore_rt */
	f.mem[304 + 20] = at(60);           /* the saved context: rsp, rip, rbp */
	f.mem[304 + 21] = 0x600020;
	f.mem[304 + 15] = at(80);
	f.mem[60] = 0x400700;               /* the interrupted leaf's return address */
	frame(&f, 80, 0, 0x400900);
	rs.s[0] = (struct span){ 0x400000, 0x401000, rbp_row() };
	rs.s[1] = (struct span){ 0x50003f, 0x500049, { .cfa_kind = CFI_CFA_EXPR, .expr = cfa_expr,
			.expr_len = sizeof(cfa_expr), .ra_reg = CFI_X86_64_RA,
			.ra = { .kind = CFI_RULE_EXPR, .expr = rip_at, .expr_len = sizeof(rip_at) },
			.fp = { .kind = CFI_RULE_EXPR, .expr = rbp_at, .expr_len = sizeof(rbp_at) }, .signal_frame = 1 } };
	rs.s[2] = (struct span){ 0x600020, 0x600100, rsp_row(8, 0) };
	rs.s[2].row.func = 0x600020;
	int stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 5);
	cr_assert_eq(out[1], 0x500040);
	cr_assert_eq(out[2], 0x600020);
	cr_assert(tr[2].exact, "the interrupted pc is exact");
	cr_assert_eq(tr[2].sp, at(60));
	cr_assert_eq(tr[2].ra_at, at(304 + 21));
	cr_assert_eq(out[3], 0x400700);
	cr_assert_eq(out[4], 0x400900);

	/* A copy of the alternate stack alone: the thread's stack is past it. */
	m = (struct unwind_memory){ .window = (uint8_t *)&f.mem[300], .window_addr = at(300),
				    .window_len = 8 * 100 };
	stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_WINDOW, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 3);
	cr_assert_eq(out[2], 0x600020);
	cr_assert_eq(tr[2].func, 0x600020);
	cr_assert_eq(tr[2].next_sp, at(61));
}

static int sigreturn_at_0x7bc(void *ctx, uint64_t pc)
{
	(void)ctx;
	return pc == 0x7bc;
}

/*
 * arm64: a handler (CFA = sp + 16) returns to the vDSO's trampoline, which
 * has no CFI; at the trampoline's sp lies the kernel's rt_sigframe, whose
 * sigcontext gives the interrupted pc (exact), sp, x29 and x30. The
 * interrupted code is the vDSO's frameless clock_gettime: its caller is
 * in x30, and the record at x29, its caller's, is past the copy of the
 * stack, so with the copy alone the caller still comes from x30, and its
 * row (CFA = sp + 32) says where the walk stopped. With the whole stack
 * the walk reaches the end. A frame there that is no signal frame (no
 * FP/SIMD record) is not taken for one.
 */
Test(unwind, arm64_kernel_sigframe)
{
	static struct fake f;
	struct rows rs = { .n = 2 };
	struct unwind_frame tr[16];
	struct unwind_config cfg = { .arch = UNWIND_ARCH_ARM64, .max_depth = 16, .cfi = rows_lookup, .cfi_ctx = &rs,
				     .is_sigreturn = sigreturn_at_0x7bc, .trail = tr };
	struct unwind_regs r = { .pc = 0x400010, .sp = at(0), .fp = at(0), .lr = 0x7bc };
	struct unwind_memory m = memory(&f);
	uint64_t out[16], *sc = &f.mem[2];   /* the sigframe, at the handler's CFA */
	size_t n;

	memset(&f, 0, sizeof(f));
	sc[UNWIND_A64_SIGFRAME_X29 / 8] = at(300);
	sc[UNWIND_A64_SIGFRAME_X30 / 8] = 0x500508;            /* into the caller */
	sc[UNWIND_A64_SIGFRAME_SP / 8] = at(280);
	sc[UNWIND_A64_SIGFRAME_PC / 8] = 0x33c;                 /* the vDSO's leaf */
	memcpy(&sc[UNWIND_A64_SIGFRAME_RECORDS / 8], &(uint32_t){ UNWIND_A64_FPSIMD_MAGIC }, 4);
	f.mem[287] = 0x500900;               /* the caller's return address, at CFA - 8 */
	frame(&f, 300, 0, 0x500900);
	rs.s[0] = (struct span){ 0x400000, 0x400100, rsp_row(16, 0) };
	rs.s[0].row.cfa_reg = CFI_ARM64_SP;
	rs.s[0].row.ra_reg = CFI_ARM64_LR;
	rs.s[0].row.ra = (struct cfi_rule){ .kind = CFI_RULE_SAME };
	rs.s[1] = (struct span){ 0x500500, 0x501000, { .cfa_kind = CFI_CFA_REG, .cfa_reg = CFI_ARM64_SP,
						       .cfa_offset = 64, .ra_reg = CFI_ARM64_LR, .func = 0x500500,
						       .ra = { .kind = CFI_RULE_UNDEFINED } } };
	int stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 4);
	cr_assert_eq(out[1], 0x7bc);
	cr_assert_eq(out[2], 0x33c, "the interrupted pc, exact");
	cr_assert(tr[2].exact);
	cr_assert_eq(tr[2].sp, at(280));
	cr_assert_eq(out[3], 0x500508);

	/* The copy ends below the interrupted frame: x30 still gives the
	 * caller; the caller's row needs no bytes (its return address is
	 * undefined here), so make it one that does. */
	rs.s[1].row.ra = (struct cfi_rule){ .kind = CFI_RULE_OFFSET, .offset = -8 };
	m = (struct unwind_memory){ .window = (uint8_t *)f.mem, .window_addr = BASE, .window_len = 8 * 200 };
	stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_WINDOW, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 4);
	cr_assert_eq(out[3], 0x500508);
	cr_assert_eq(tr[3].func, 0x500500);
	cr_assert_eq(tr[3].next_sp, at(288));

	/* No FP/SIMD record: not a signal frame; the walk goes on by the
	 * frame record at x29 instead (here none: fp 0 ends it). */
	memset(&sc[UNWIND_A64_SIGFRAME_RECORDS / 8], 0, 8);
	m = memory(&f);
	r.fp = 0;
	stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(n, 2, "n %zu", n);
	cr_assert_eq(out[1], 0x7bc);
}

/* A leaf in its epilogue after leave: rbp already holds the caller's frame
 * pointer again, yet GCC's row still says rbp is saved at CFA - 16, a slot
 * now below sp, which a copy of the stack from sp does not have. The walk
 * takes the register, not the frame-pointer step from it, which would
 * lose the caller (found at [sp], not in a frame record). */
Test(unwind, cfi_epilogue_after_leave)
{
	static struct fake f;
	struct rows rs = { .n = 2 };
	uint64_t out[16];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16, .cfi = rows_lookup, .cfi_ctx = &rs };
	/* sp at word 2, [sp] returns into the caller, whose record is at 10 */
	struct unwind_regs r = { .pc = 0x400021, .sp = at(2), .fp = at(10) };
	struct unwind_memory m = { .window = (uint8_t *)&f.mem[2], .window_addr = at(2), .window_len = 8 * 200 };

	memset(&f, 0, sizeof(f));
	f.mem[2] = 0x500123;                 /* into the caller */
	frame(&f, 10, at(20), 0x500456);     /* the caller's record: its caller */
	frame(&f, 20, 0, 0x500789);
	rs.s[0] = (struct span){ 0x400000, 0x400100, rsp_row(8, -16) };   /* after leave */
	rs.s[1] = (struct span){ 0x500000, 0x501000, rbp_row() };
	int stop = unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 4);
	cr_assert_eq(out[1], 0x500123);
	cr_assert_eq(out[2], 0x500456);
	cr_assert_eq(out[3], 0x500789);
}

/*
 * Leaves without CFI in the hybrid walk: JIT code, or an image whose code
 * has no row. Code in 0x40xxxx is an image's (is_return takes it), the
 * JIT region 0x7f00xxxxxxxx is in no image but is code (is_code takes
 * both), and nothing has a row.
 */
static int jit_or_image_code(void *ctx, uint64_t addr)
{
	(void)ctx;
	return (addr >= 0x400000 && addr < 0x500000) || (addr >> 32) == 0x7f00;
}

static int jwalk(struct fake *f, uint64_t pc, uint64_t sp, uint64_t fp, uint64_t *out, size_t *n,
		 struct unwind_frame *tr)
{
	struct rows rs = { .n = 0 };
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16, .cfi = rows_lookup,
				     .cfi_ctx = &rs, .is_return = looks_like_return,
				     .is_code = jit_or_image_code, .trail = tr };
	struct unwind_regs r = { .pc = pc, .sp = sp, .fp = fp };
	struct unwind_memory m = memory(f);
	return unwind_stack(&cfg, &r, &m, out, n);
}

/* A JIT function in no image with its frame set up (push rbp; mov rsp,
 * rbp; locals below): between sp and fp lies a stale return address into
 * a builtin of the image, left by an earlier call (V8's CEntry, in
 * node's JS leaves). The frame pointer is valid, so the walk takes the
 * caller from the leaf's record, as perf's frame-pointer walk does, and
 * no frame comes from a search. */
Test(unwind, jit_leaf_walked_by_its_frame_pointer_not_a_stale_word)
{
	static struct fake f;
	struct unwind_frame tr[16];
	uint64_t out[16];
	size_t n;

	chain3(&f);
	frame(&f, 10, at(20), UINT64_C(0x7f0000002345));   /* the JS frame: into its JIT caller */
	f.mem[2] = 0x400abc;                               /* stale: into CEntry */
	f.mem[3] = 0x400def;
	int stop = jwalk(&f, UINT64_C(0x7f0000001000), at(2), at(10), out, &n, tr);
	cr_assert_eq(stop, UNWIND_STOP_END, "stop %s", unwind_stop_name(stop));
	cr_assert_eq(n, 4);
	cr_assert_eq(out[1], UINT64_C(0x7f0000002345));
	cr_assert_eq(out[2], 0x402222);
	cr_assert_eq(out[3], 0x403333);
	cr_assert_not(tr[1].scanned);
	cr_assert_not(unwind_leaf_scanned(tr, n));
	cr_assert_eq(tr[1].ra_at, at(11));

	/* The same in an image whose code has no row (V8's builtins, Go). */
	stop = jwalk(&f, 0x400010, at(2), at(10), out, &n, tr);
	cr_assert_eq(n, 4);
	cr_assert_eq(out[1], UINT64_C(0x7f0000002345));
	cr_assert_not(unwind_leaf_scanned(tr, n));

	/* fp == sp, just after mov rsp, rbp: the record is the leaf's. */
	stop = jwalk(&f, UINT64_C(0x7f0000001000), at(10), at(10), out, &n, tr);
	cr_assert_eq(n, 4);
	cr_assert_eq(out[1], UINT64_C(0x7f0000002345));
	cr_assert_not(unwind_leaf_scanned(tr, n));
}

/* Where the frame pointer cannot serve, the leaf search still finds the
 * caller, and the frame says it came from the search: rbp used as a
 * general register (odd, below sp, 0), a record whose return address is
 * not code, one that does not link up the stack, one too far above sp,
 * one past the stack's copy that cannot be read. */
Test(unwind, leaf_searched_only_where_the_frame_pointer_cannot_serve)
{
	static struct fake f;
	struct unwind_frame tr[16];
	uint64_t out[16];
	size_t n;
	const uint64_t jit = UINT64_C(0x7f0000001000);
	const uint64_t bad_fp[] = { 0x13, at(1), 0, BASE + 8 * WORDS + UNWIND_FP_FRAME_MAX };

	for (size_t i = 0; i < sizeof(bad_fp) / sizeof(*bad_fp); i++) {
		memset(&f, 0, sizeof(f));
		f.mem[5] = 0x400abc;
		jwalk(&f, jit, at(2), bad_fp[i], out, &n, tr);
		cr_assert_geq(n, 2, "fp %#llx", (unsigned long long)bad_fp[i]);
		cr_assert_eq(out[1], 0x400abc, "fp %#llx", (unsigned long long)bad_fp[i]);
		cr_assert(tr[1].scanned);
		cr_assert(unwind_leaf_scanned(tr, n));
		cr_assert_eq(tr[1].ra_at, at(5));
		cr_assert_eq(tr[1].sp, at(6));
	}

	/* A record whose return address is not code: rbp holds a pointer
	 * to some data on the stack. The search runs up to it. */
	memset(&f, 0, sizeof(f));
	f.mem[5] = 0x400abc;
	frame(&f, 8, at(30), 0x1234);
	jwalk(&f, jit, at(2), at(8), out, &n, tr);
	cr_assert_eq(out[1], 0x400abc);
	cr_assert(unwind_leaf_scanned(tr, n));

	/* A record that does not link up the stack. */
	frame(&f, 8, at(4), 0x401111);
	jwalk(&f, jit, at(2), at(8), out, &n, tr);
	cr_assert_eq(out[1], 0x400abc);
	cr_assert(unwind_leaf_scanned(tr, n));

	/* The same record linking up: the frame pointer serves. */
	frame(&f, 8, 0, 0x401111);
	jwalk(&f, jit, at(2), at(8), out, &n, tr);
	cr_assert_eq(n, 2);
	cr_assert_eq(out[1], 0x401111);
	cr_assert_not(unwind_leaf_scanned(tr, n));

	/* fp UNWIND_FP_FRAME_MAX or more above sp, though readable. */
	{
		static uint8_t big[UNWIND_FP_FRAME_MAX + 64];
		struct rows rs = { .n = 0 };
		struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16, .cfi = rows_lookup,
					     .cfi_ctx = &rs, .is_return = looks_like_return,
					     .is_code = jit_or_image_code, .trail = tr };
		struct unwind_regs r = { .pc = jit, .sp = BASE, .fp = BASE + UNWIND_FP_FRAME_MAX };
		struct unwind_memory m = { .window = big, .window_addr = BASE, .window_len = sizeof(big) };
		uint64_t v = 0x400abc, up = 0, ra = 0x401111;

		memcpy(big + 24, &v, 8);
		memcpy(big + UNWIND_FP_FRAME_MAX, &up, 8);
		memcpy(big + UNWIND_FP_FRAME_MAX + 8, &ra, 8);
		unwind_stack(&cfg, &r, &m, out, &n);
		cr_assert_eq(out[1], 0x400abc);
		cr_assert(unwind_leaf_scanned(tr, n));
		r.fp -= 8;   /* less than that: the frame pointer serves */
		memcpy(big + UNWIND_FP_FRAME_MAX - 8, &up, 8);
		memcpy(big + UNWIND_FP_FRAME_MAX, &ra, 8);
		unwind_stack(&cfg, &r, &m, out, &n);
		cr_assert_eq(out[1], 0x401111);
		cr_assert_not(unwind_leaf_scanned(tr, n));
	}

	/* A record past the copy of the stack, with nothing to read on:
	 * searched, and the walk ends at the copy (not unreadable). */
	{
		struct rows rs = { .n = 0 };
		struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16, .cfi = rows_lookup,
					     .cfi_ctx = &rs, .is_return = looks_like_return,
					     .is_code = jit_or_image_code, .trail = tr };
		struct unwind_regs r = { .pc = jit, .sp = at(2), .fp = at(40) };
		struct unwind_memory m = { .window = (uint8_t *)&f.mem[2], .window_addr = at(2),
					   .window_len = 8 * 20 };

		memset(&f, 0, sizeof(f));
		f.mem[5] = 0x400abc;
		frame(&f, 40, 0, 0x401111);
		cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_WINDOW);
		cr_assert_eq(n, 2);
		cr_assert_eq(out[1], 0x400abc);
		cr_assert(unwind_leaf_scanned(tr, n));
	}
}

/* The leaf search is for the leaf alone: a frame above it without a row
 * takes the frame-pointer step, and a leaf with a row is unwound by it,
 * never searched. */
Test(unwind, only_a_leaf_without_a_row_is_searched)
{
	static struct fake f;
	struct unwind_frame tr[16];
	struct rows rs = { .n = 1 };
	uint64_t out[16];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16, .cfi = rows_lookup,
				     .cfi_ctx = &rs, .is_return = looks_like_return,
				     .is_code = jit_or_image_code, .trail = tr };
	struct unwind_regs r = { .pc = 0x400010, .sp = at(4), .fp = 0x13 };
	struct unwind_memory m = memory(&f);

	chain3(&f);
	f.mem[4] = 0x400500;
	f.mem[6] = 0x400abc;
	rs.s[0] = (struct span){ 0x400000, 0x400100, rsp_row(8, 0) };
	unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(out[1], 0x400500);
	cr_assert_not(unwind_leaf_scanned(tr, n));
}

/* The plain walk (no CFI at all, as on macOS) searches above every leaf
 * as it always has, and its trail marks the frame found so. */
Test(unwind, plain_walk_marks_the_searched_frame)
{
	static struct fake f;
	struct unwind_frame tr[16];
	uint64_t out[16];
	size_t n;
	struct unwind_config cfg = { .arch = UNWIND_ARCH_X86_64, .max_depth = 16,
				     .is_return = looks_like_return, .trail = tr };
	struct unwind_regs r = { .pc = 0x7f0000001000, .sp = at(2), .fp = at(10) };
	struct unwind_memory m = memory(&f);

	chain3(&f);
	f.mem[4] = 0x400abc;
	cr_assert_eq(unwind_stack(&cfg, &r, &m, out, &n), UNWIND_STOP_END);
	cr_assert_eq(n, 5);
	cr_assert(tr[1].scanned);
	cr_assert_eq(tr[1].ra_at, at(4));
	cr_assert_not(tr[2].scanned);
	cr_assert_eq(tr[2].ra_at, at(11));
	cr_assert(unwind_leaf_scanned(tr, n));
	f.mem[4] = 0;
	unwind_stack(&cfg, &r, &m, out, &n);
	cr_assert_eq(n, 4);
	cr_assert_not(unwind_leaf_scanned(tr, n));
	cr_assert_not(unwind_leaf_scanned(NULL, n));
}
