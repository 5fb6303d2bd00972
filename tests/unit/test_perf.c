/*
 * test_perf.c: perf_event ring-buffer records parsed from hand-made bytes,
 * laid out as include/uapi/linux/perf_event.h says for the sample_type and
 * sample_id_all that cpu mode asks for; and every truncation of each record
 * refused rather than read past.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "common/bytes.h"
#include "record/perf.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>
#endif

struct rb {
	uint8_t b[512];
	size_t n;
};

static void u16(struct rb *r, uint16_t v) { put_le16(r->b + r->n, v); r->n += 2; }
static void u32(struct rb *r, uint32_t v) { put_le32(r->b + r->n, v); r->n += 4; }
static void u64(struct rb *r, uint64_t v) { put_le64(r->b + r->n, v); r->n += 8; }
static void str(struct rb *r, const char *s, size_t padded)
{
	memset(r->b + r->n, 0, padded);
	memcpy(r->b + r->n, s, strlen(s));
	r->n += padded;
}

static void header(struct rb *r, uint32_t type, uint16_t misc)
{
	r->n = 0;
	u32(r, type);
	u16(r, misc);
	u16(r, 0);  /* size, set by finish() */
}

static void sample_id(struct rb *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	u32(r, pid);
	u32(r, tid);
	u64(r, time);
}

static size_t finish(struct rb *r)
{
	put_le16(r->b + 6, (uint16_t)r->n);
	return r->n;
}

/* A sample: tid, time, callchain (PERF_CONTEXT_USER then 3 addresses),
 * regs abi + the registers of arch in the kernel's order, their bits'
 * (x86_64 bp, sp, ip; arm64 x29, lr, sp, pc), a stack copy of 32 bytes
 * with 24 valid. */
static size_t make_sample_of(struct rb *r, int arch)
{
	header(r, PERF_REC_SAMPLE, 2);
	u32(r, 100);
	u32(r, 101);
	u64(r, 123456789);
	u64(r, 4);
	u64(r, (uint64_t)-512);  /* PERF_CONTEXT_USER */
	u64(r, 0x401000);
	u64(r, 0x401234);
	u64(r, 0x7f0000001000);
	u64(r, 2);  /* PERF_SAMPLE_REGS_ABI_64 */
	u64(r, 0x7ffd0010);
	if (arch == UNWIND_ARCH_ARM64)
		u64(r, 0x401234);
	u64(r, 0x7ffd0000);
	u64(r, 0x401000);
	u64(r, 32);
	for (int i = 0; i < 4; i++)
		u64(r, 0x1111111111111111ull * (uint64_t)(i + 1));
	u64(r, 24);
	return finish(r);
}

static size_t make_sample(struct rb *r) { return make_sample_of(r, UNWIND_ARCH_X86_64); }
static size_t make_sample_arm64(struct rb *r) { return make_sample_of(r, UNWIND_ARCH_ARM64); }

Test(perf, sample)
{
	struct rb r;
	struct perf_record rec;

	for (int arch = UNWIND_ARCH_X86_64; arch <= UNWIND_ARCH_ARM64; arch++) {
		size_t n = make_sample_of(&r, arch);

		cr_assert_eq(perf_parse_record(r.b, n, arch, &rec), (int)n);
		cr_assert_eq(rec.type, PERF_REC_SAMPLE);
		cr_assert_eq(rec.pid, 100);
		cr_assert_eq(rec.tid, 101);
		cr_assert_eq(rec.time, 123456789);
		cr_assert_eq(rec.nips, 3, "the context marker is not an address");
		cr_assert_eq(perf_ip(&rec, 0), 0x401000);
		cr_assert_eq(perf_ip(&rec, 2), 0x7f0000001000);
		cr_assert_eq(perf_ip(&rec, 3), 0);
		cr_assert(rec.has_regs);
		cr_assert_eq(rec.regs.fp, 0x7ffd0010, "arch %d", arch);
		cr_assert_eq(rec.regs.sp, 0x7ffd0000, "arch %d", arch);
		cr_assert_eq(rec.regs.pc, 0x401000, "arch %d", arch);
		cr_assert_eq(rec.regs.lr, arch == UNWIND_ARCH_ARM64 ? 0x401234 : 0, "arch %d", arch);
		cr_assert_eq(rec.stack_len, 24, "dyn_size, not size, is what was copied");
		cr_assert_eq(get_le64(rec.stack + 16), 0x3333333333333333ull, "arch %d", arch);
	}
}

/* A switch out's sample has no callchain: the registers follow the time. */
Test(perf, sample_unchained)
{
	struct rb r;
	struct perf_record rec;

	header(&r, PERF_REC_SAMPLE, 1);
	u32(&r, 100);
	u32(&r, 101);
	u64(&r, 123456789);
	u64(&r, 2);  /* PERF_SAMPLE_REGS_ABI_64 */
	u64(&r, 0x7ffd0010);
	u64(&r, 0x7ffd0000);
	u64(&r, 0x401000);
	u64(&r, 16);
	u64(&r, 0x1111111111111111ull);
	u64(&r, 0x2222222222222222ull);
	u64(&r, 16);
	size_t n = finish(&r);
	cr_assert_eq(perf_parse_record_unchained(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.tid, 101);
	cr_assert_eq(rec.time, 123456789);
	cr_assert_eq(rec.nips, 0);
	cr_assert(rec.has_regs);
	cr_assert_eq(rec.regs.sp, 0x7ffd0000);
	cr_assert_eq(rec.regs.pc, 0x401000);
	cr_assert_eq(rec.stack_len, 16);
	cr_assert_eq(get_le64(rec.stack + 8), 0x2222222222222222ull);
	/* Read as a chained sample, the abi would be a callchain's length. */
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT);
	for (size_t cut = PERF_HEADER_BYTES; cut < n; cut += 8) {
		put_le16(r.b + 6, (uint16_t)cut);
		cr_assert_eq(perf_parse_record_unchained(r.b, cut, UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT,
			     "cut at %zu", cut);
	}
}

/* The bits of x86_64's registers as the kernel's header numbers them.
 * arm64's (PERF_REG_ARM64_X29 29, _LR 30, _SP 31, _PC 32), whose header
 * this build does not have, are checked end to end by the arm64 suite:
 * its kernel refuses bits past PERF_REG_ARM64_MAX, and any other wrong
 * register loses the frameless leaf's caller (lr) or the walk (x29, sp). */
Test(perf, x86_64_regs_mask)
{
#if defined(__x86_64__)
	cr_assert_eq(perf_regs_mask(UNWIND_ARCH_X86_64),
		     1ull << PERF_REG_X86_BP | 1ull << PERF_REG_X86_SP | 1ull << PERF_REG_X86_IP);
#else
	cr_skip_test("asm/perf_regs.h is x86_64's on an x86_64 build only");
#endif
}

Test(perf, sample_without_regs_or_stack)
{
	struct rb r;
	struct perf_record rec;

	header(&r, PERF_REC_SAMPLE, 2);
	u32(&r, 7);
	u32(&r, 8);
	u64(&r, 9);
	u64(&r, 2);
	u64(&r, (uint64_t)-512);
	u64(&r, 0x1000);
	u64(&r, 0);  /* abi none: no registers (a kernel thread, say) */
	u64(&r, 0);  /* no stack copy, and then no dyn_size */
	size_t n = finish(&r);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.nips, 1);
	cr_assert_not(rec.has_regs);
	cr_assert_eq(rec.stack_len, 0);
}

Test(perf, sample_callchain_stops_at_a_second_context)
{
	struct rb r;
	struct perf_record rec;

	header(&r, PERF_REC_SAMPLE, 2);
	u32(&r, 1);
	u32(&r, 1);
	u64(&r, 1);
	u64(&r, 4);
	u64(&r, (uint64_t)-512);
	u64(&r, 0x1000);
	u64(&r, (uint64_t)-128);  /* PERF_CONTEXT_KERNEL: not ours */
	u64(&r, 0xffffffff81000000ull);
	u64(&r, 0);
	u64(&r, 0);
	size_t n = finish(&r);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.nips, 1);
}

/* A 0 in the user callchain ends it (no frame of [unknown]+0x0): the
 * kernel's walk of a loader-phase stack can end on a return address 0. */
Test(perf, sample_callchain_stops_at_a_zero)
{
	struct rb r;
	struct perf_record rec;

	header(&r, PERF_REC_SAMPLE, 2);
	u32(&r, 1);
	u32(&r, 1);
	u64(&r, 1);
	u64(&r, 5);
	u64(&r, (uint64_t)-512);
	u64(&r, 0x1000);
	u64(&r, 0x2000);
	u64(&r, 0);
	u64(&r, 0x3000);
	u64(&r, 0);
	u64(&r, 0);
	size_t n = finish(&r);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.nips, 2);
	cr_assert_eq(perf_ip(&rec, 1), 0x2000);
}

Test(perf, sample_lying_lengths)
{
	struct rb r;
	struct perf_record rec;
	size_t n = make_sample(&r);

	/* callchain nr far beyond the record */
	put_le64(r.b + 24, 1ull << 60);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT);
	n = make_sample(&r);
	/* dyn_size above the copy's size */
	put_le64(r.b + n - 8, 33);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT);
	n = make_sample(&r);
	/* a stack size running off the record */
	put_le64(r.b + n - 8 - 32 - 8, 4096);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT);
}

static size_t make_lost(struct rb *r)
{
	header(r, PERF_REC_LOST, 0);
	u64(r, 42);  /* id */
	u64(r, 17);  /* lost */
	sample_id(r, 100, 101, 555);
	return finish(r);
}

static size_t make_comm(struct rb *r, uint16_t misc)
{
	header(r, PERF_REC_COMM, misc);
	u32(r, 100);
	u32(r, 102);
	str(r, "worker-1", 16);
	sample_id(r, 100, 102, 777);
	return finish(r);
}

static size_t make_mmap2(struct rb *r)
{
	header(r, PERF_REC_MMAP2, 2);
	u32(r, 100);
	u32(r, 101);
	u64(r, 0x7f0000000000ull);
	u64(r, 0x5000);
	u64(r, 0x1000);
	u32(r, 8);   /* maj */
	u32(r, 1);   /* min */
	u64(r, 1234);  /* ino */
	u64(r, 0);   /* ino_generation */
	u32(r, 5);   /* PROT_READ | PROT_EXEC */
	u32(r, 2);   /* MAP_PRIVATE */
	str(r, "/usr/lib/libdlwork.so", 24);
	sample_id(r, 100, 101, 888);
	return finish(r);
}

static size_t make_task(struct rb *r, uint32_t type)
{
	header(r, type, 0);
	u32(r, 100);  /* pid */
	u32(r, 99);   /* ppid */
	u32(r, 103);  /* tid */
	u32(r, 101);  /* ptid */
	u64(r, 999);
	sample_id(r, 100, 103, 999);
	return finish(r);
}

Test(perf, lost)
{
	struct rb r;
	struct perf_record rec;
	size_t n = make_lost(&r);

	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.type, PERF_REC_LOST);
	cr_assert_eq(rec.lost, 17);
	cr_assert_eq(rec.time, 555);
}

Test(perf, comm)
{
	struct rb r;
	struct perf_record rec;
	size_t n = make_comm(&r, 0);

	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.tid, 102);
	cr_assert_str_eq(rec.name, "worker-1");
	cr_assert_eq(rec.time, 777);
	cr_assert_eq(rec.misc & PERF_MISC_COMM_EXEC, 0);
	n = make_comm(&r, PERF_MISC_COMM_EXEC);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_neq(rec.misc & PERF_MISC_COMM_EXEC, 0);
}

Test(perf, comm_without_terminator)
{
	struct rb r;
	struct perf_record rec;

	header(&r, PERF_REC_COMM, 0);
	u32(&r, 1);
	u32(&r, 1);
	memcpy(r.b + r.n, "abcdefgh", 8);
	r.n += 8;
	sample_id(&r, 1, 1, 1);
	size_t n = finish(&r);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT);
}

Test(perf, mmap2)
{
	struct rb r;
	struct perf_record rec;
	size_t n = make_mmap2(&r);

	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.type, PERF_REC_MMAP2);
	cr_assert_eq(rec.addr, 0x7f0000000000ull);
	cr_assert_eq(rec.len, 0x5000);
	cr_assert_eq(rec.pgoff, 0x1000);
	cr_assert_eq(rec.prot, 5);
	cr_assert_str_eq(rec.name, "/usr/lib/libdlwork.so");
	cr_assert_eq(rec.time, 888);
}

Test(perf, fork_and_exit)
{
	struct rb r;
	struct perf_record rec;
	size_t n = make_task(&r, PERF_REC_EXIT);

	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.type, PERF_REC_EXIT);
	cr_assert_eq(rec.pid, 100);
	cr_assert_eq(rec.tid, 103);
	cr_assert_eq(rec.time, 999);
	n = make_task(&r, PERF_REC_FORK);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.type, PERF_REC_FORK);
	cr_assert_eq(rec.tid, 103);
	cr_assert_eq(rec.ppid, 99);
}

/* A context switch carries nothing but the sample_id trailer; misc says
 * out or in, and whether the thread was still runnable. */
Test(perf, switch)
{
	struct rb r;
	struct perf_record rec;
	size_t n;

	header(&r, PERF_REC_SWITCH, PERF_MISC_SWITCH_OUT | PERF_MISC_SWITCH_OUT_PREEMPT);
	sample_id(&r, 100, 104, 4242);
	n = finish(&r);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.type, PERF_REC_SWITCH);
	cr_assert_eq(rec.misc, PERF_MISC_SWITCH_OUT | PERF_MISC_SWITCH_OUT_PREEMPT);
	cr_assert_eq(rec.pid, 100);
	cr_assert_eq(rec.tid, 104);
	cr_assert_eq(rec.time, 4242);
	for (size_t cut = PERF_HEADER_BYTES; cut < n; cut += 4) {
		put_le16(r.b + 6, (uint16_t)cut);
		cr_assert_eq(perf_parse_record(r.b, cut, UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT, "cut at %zu", cut);
	}
}

/* A CPU's event writes SWITCH_CPU_WIDE: the task switched to or from,
 * then the trailer, whose task is the one switching. */
Test(perf, switch_cpu_wide)
{
	struct rb r;
	struct perf_record rec;
	size_t n;

	header(&r, PERF_REC_SWITCH_CPU_WIDE, PERF_MISC_SWITCH_OUT);
	u32(&r, 300);   /* next_prev_pid, tid: the task it switched to */
	u32(&r, 301);
	sample_id(&r, 100, 104, 4343);
	n = finish(&r);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.type, PERF_REC_SWITCH_CPU_WIDE);
	cr_assert_eq(rec.misc, PERF_MISC_SWITCH_OUT);
	cr_assert_eq(rec.pid, 100);
	cr_assert_eq(rec.tid, 104);
	cr_assert_eq(rec.time, 4343);
	for (size_t cut = PERF_HEADER_BYTES; cut < 16 + PERF_HEADER_BYTES; cut += 4) {
		put_le16(r.b + 6, (uint16_t)cut);
		cr_assert_eq(perf_parse_record(r.b, cut, UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT, "cut at %zu", cut);
	}
}

/* THROTTLE: time, id and stream id, then the trailer. */
Test(perf, throttle)
{
	struct rb r;
	struct perf_record rec;
	size_t n;

	header(&r, PERF_REC_THROTTLE, 0);
	u64(&r, 5555);
	u64(&r, 7);
	u64(&r, 7);
	sample_id(&r, 100, 101, 5556);
	n = finish(&r);
	cr_assert_eq(perf_parse_record(r.b, n, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.type, PERF_REC_THROTTLE);
	cr_assert_eq(rec.pid, 100);
	cr_assert_eq(rec.time, 5556);
	put_le16(r.b + 6, 12);
	cr_assert_eq(perf_parse_record(r.b, 12, UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT);
}

Test(perf, unknown_types_are_skipped_by_size)
{
	struct rb r;
	struct perf_record rec;

	header(&r, 77, 0);
	u64(&r, 1);
	u64(&r, 2);
	size_t n = finish(&r);
	cr_assert_eq(perf_parse_record(r.b, n + 16, UNWIND_ARCH_X86_64, &rec), (int)n);
	cr_assert_eq(rec.type, 77);
}

Test(perf, bad_headers)
{
	uint8_t b[16] = { 0 };
	struct perf_record rec;

	cr_assert_eq(perf_parse_record(b, 7, UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT);
	put_le32(b, PERF_REC_LOST);
	put_le16(b + 6, 4);  /* smaller than a header */
	cr_assert_eq(perf_parse_record(b, sizeof(b), UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT);
	put_le16(b + 6, 24);  /* more than the bytes given */
	cr_assert_eq(perf_parse_record(b, sizeof(b), UNWIND_ARCH_X86_64, &rec), PERF_E_CORRUPT);
}

/* Every record cut short at every length (its header saying so) is
 * refused, never read past: ASan checks the "never". */
Test(perf, every_truncation_is_refused)
{
	struct rb r;
	struct perf_record rec;
	size_t (*makers[])(struct rb *) = { make_sample, make_sample_arm64, make_lost, make_mmap2 };

	for (size_t m = 0; m < sizeof(makers) / sizeof(makers[0]); m++) {
		size_t n = makers[m](&r);
		int arch = makers[m] == make_sample_arm64 ? UNWIND_ARCH_ARM64 : UNWIND_ARCH_X86_64;
		for (size_t cut = PERF_HEADER_BYTES; cut < n; cut++) {
			uint8_t *copy = malloc(cut);
			memcpy(copy, r.b, cut);
			put_le16(copy + 6, (uint16_t)cut);
			int got = perf_parse_record(copy, cut, arch, &rec);
			cr_assert(got == PERF_E_CORRUPT || got == (int)cut,
				  "maker %zu cut at %zu: %d", m, cut, got);
			free(copy);
		}
	}
}
