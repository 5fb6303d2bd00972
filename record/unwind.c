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
 */
#include "unwind.h"
#include "format/trace.h"

#include <string.h>

static int mem_read(const struct unwind_memory *m, uint64_t addr, void *buf, size_t len)
{
	if (m->window && addr >= m->window_addr) {
		uint64_t off = addr - m->window_addr;
		if (off <= m->window_len && len <= m->window_len - off) {
			memcpy(buf, m->window + off, len);
			return 0;
		}
	}
	if (!m->read)
		return -1;
	return m->read(m->ctx, addr, buf, len) < 0 ? -1 : 0;
}

uint64_t unwind_strip_pac(uint64_t addr, unsigned va_bits)
{
	if (va_bits == 0)
		va_bits = UNWIND_DEFAULT_VA_BITS;
	if (va_bits >= 64)
		return addr;
	return addr & ((UINT64_C(1) << va_bits) - 1);
}

static uint64_t fix_ret(const struct unwind_config *cfg, uint64_t ret)
{
	if (cfg->arch == UNWIND_ARCH_ARM64)
		return unwind_strip_pac(ret, cfg->va_bits);
	return ret;
}

int unwind_stack(const struct unwind_config *cfg, const struct unwind_regs *regs,
		 const struct unwind_memory *mem, uint64_t *out, size_t *n)
{
	size_t max = cfg->max_depth ? cfg->max_depth : 1;
	size_t k = 0;
	uint64_t fp = regs->fp, lower = regs->sp;
	int stop;

	out[k++] = fix_ret(cfg, regs->pc);
	if (cfg->arch == UNWIND_ARCH_X86_64 && cfg->is_return && regs->sp && !(regs->sp & 7)) {
		uint64_t limit = regs->sp + 8 * UNWIND_LEAF_SCAN_WORDS;
		/* A plausible first record bounds the search: whatever lies
		 * at or above it belongs to the frame chain. */
		if (fp >= regs->sp && !(fp & 7) && fp < limit)
			limit = fp;
		for (uint64_t a = regs->sp; a < limit; a += 8) {
			uint64_t w;
			if (mem_read(mem, a, &w, 8) < 0)
				break;
			if (cfg->is_return(cfg->is_return_ctx, w)) {
				if (k == max) {
					*n = k;
					return UNWIND_STOP_DEPTH;
				}
				out[k++] = w;
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
		if (fp > UINT64_MAX - 16 || mem_read(mem, fp, rec, sizeof(rec)) < 0) {
			stop = UNWIND_STOP_UNREADABLE;
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
				out[k++] = lr;
			}
		}
		if (ret == 0) {
			stop = UNWIND_STOP_END;
			break;
		}
		if (k == max) {
			stop = UNWIND_STOP_DEPTH;
			break;
		}
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

int unwind_stop_counter(int stop)
{
	switch (stop) {
	case UNWIND_STOP_END: return TRACE_COUNTER_STOP_END;
	case UNWIND_STOP_UNREADABLE: return TRACE_COUNTER_STOP_UNREADABLE;
	case UNWIND_STOP_NOT_UP: return TRACE_COUNTER_STOP_NOT_UP;
	case UNWIND_STOP_MISALIGNED: return TRACE_COUNTER_STOP_MISALIGNED;
	case UNWIND_STOP_LOOP: return TRACE_COUNTER_STOP_LOOP;
	default: return TRACE_COUNTER_STOP_DEPTH;
	}
}

const char *unwind_stop_name(int stop)
{
	static const char *const names[] = { "end", "unreadable", "not-up", "misaligned", "loop", "depth" };
	if (stop < 0 || stop > UNWIND_STOP_DEPTH)
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
