/*
 * perf.c: parsing perf_event ring-buffer records from bytes.
 *
 * The layouts are those of include/uapi/linux/perf_event.h for the one
 * configuration source_perf_linux.c asks for: sample_type TID | TIME |
 * CALLCHAIN | REGS_USER | STACK_USER, sample_regs_user the frame pointer,
 * sp, pc and (arm64) the link register, and sample_id_all, which appends
 * the TID and TIME fields to every other record. A reader cursor checks
 * each field against what remains of the record (common/bytes.h), so a
 * torn or hostile record is refused rather than overrun.
 */
#include "perf.h"
#include "common/bytes.h"

#include <string.h>

/* Fields in order; a short record leaves c->ok 0 and later reads 0. */
static uint64_t take64(struct cursor *c)
{
	uint64_t v;
	cursor_le64(c, &v);
	return v;
}

static uint32_t take32(struct cursor *c)
{
	uint32_t v;
	cursor_le32(c, &v);
	return v;
}

static const uint8_t *take(struct cursor *c, uint64_t n)
{
	const uint8_t *at = NULL;
	if (n > c->left) {
		c->ok = 0;
		return NULL;
	}
	cursor_take(c, (size_t)n, &at);
	return at;
}

/* The sample_id trailer (sample_id_all) is the last 16 bytes: pid, tid,
 * time. The variable-length part before it ends with a NUL string. */
static int trailer(const uint8_t *body, size_t n, struct perf_record *rec)
{
	if (n < 16)
		return -1;
	rec->time = get_le64(body + n - 8);
	return 0;
}

/* A NUL-terminated string in p[0..n), else NULL. */
static const char *string_in(const uint8_t *p, size_t n)
{
	return p && memchr(p, 0, n) ? (const char *)p : NULL;
}

size_t perf_record_size(const uint8_t *p)
{
	return get_le16(p + 6);
}

uint64_t perf_ip(const struct perf_record *rec, size_t i)
{
	return i < rec->nips ? get_le64(rec->ips + 8 * i) : 0;
}

/* The registers the unwinder starts from, by the bit asm/perf_regs.h
 * gives each in sample_regs_user; lr -1 where the arch has none. */
static const struct {
	int fp, sp, pc, lr;
} regs_of[] = {
	[UNWIND_ARCH_X86_64] = { 6, 7, 8, -1 },   /* PERF_REG_X86_BP, _SP, _IP */
	[UNWIND_ARCH_ARM64] = { 29, 31, 32, 30 }, /* PERF_REG_ARM64_X29, _SP, _PC, _LR */
};

uint64_t perf_regs_mask(int arch)
{
	return 1ull << regs_of[arch].fp | 1ull << regs_of[arch].sp | 1ull << regs_of[arch].pc |
	       (regs_of[arch].lr < 0 ? 0 : 1ull << regs_of[arch].lr);
}

/* The value of register bit among v, the sample's registers: the kernel
 * writes those of the mask lowest bit first. */
static uint64_t reg_at(const uint64_t *v, uint64_t mask, int bit)
{
	return bit < 0 ? 0 : v[__builtin_popcountll(mask & ((1ull << bit) - 1))];
}

static int parse_sample(struct cursor *c, int arch, int chained, struct perf_record *rec)
{
	uint64_t nr, abi, size, mask = perf_regs_mask(arch), v[4];
	const uint8_t *chain;
	size_t i = 0;

	rec->pid = take32(c);
	rec->tid = take32(c);
	rec->time = take64(c);
	if (!chained)
		goto regs;
	nr = take64(c);
	if (!c->ok || nr > c->left / 8)
		return -1;
	chain = take(c, nr * 8);
	if (!chain || !nr)
		goto regs;
	/* User-only callchains start with PERF_CONTEXT_USER; a marker later
	 * on would start another context, which is not ours: stop there. A
	 * 0 is no code's address but the end of the frames the kernel found
	 * (a return address of 0 ends a loader-phase stack): stop there too. */
	while (i < nr && get_le64(chain + 8 * i) >= PERF_CONTEXT_MAX_ADDR)
		i++;
	rec->ips = chain + 8 * i;
	rec->nips = 0;
	while (i + rec->nips < nr) {
		uint64_t ip = get_le64(rec->ips + 8 * rec->nips);

		if (!ip || ip >= PERF_CONTEXT_MAX_ADDR)
			break;
		rec->nips++;
	}
regs:
	abi = take64(c);
	if (abi) {
		for (int k = 0; k < __builtin_popcountll(mask); k++)
			v[k] = take64(c);
		rec->has_regs = 1;
		rec->regs.fp = reg_at(v, mask, regs_of[arch].fp);
		rec->regs.sp = reg_at(v, mask, regs_of[arch].sp);
		rec->regs.pc = reg_at(v, mask, regs_of[arch].pc);
		rec->regs.lr = reg_at(v, mask, regs_of[arch].lr);
	}
	size = take64(c);
	if (size) {
		const uint8_t *data = take(c, size);
		uint64_t dyn = take64(c);
		if (!c->ok || dyn > size)
			return -1;
		rec->stack = data;
		rec->stack_len = (size_t)dyn;
		rec->stack_size = size;
	}
	return !c->ok ? -1 : 0;
}

static int parse_record(const uint8_t *p, size_t n, int arch, int chained, struct perf_record *rec)
{
	struct cursor c;
	size_t size;
	const uint8_t *body;
	size_t blen;

	memset(rec, 0, sizeof(*rec));
	if (n < PERF_HEADER_BYTES)
		return PERF_E_CORRUPT;
	size = perf_record_size(p);
	if (size < PERF_HEADER_BYTES || size > n)
		return PERF_E_CORRUPT;
	rec->type = get_le32(p);
	rec->misc = get_le16(p + 4);
	body = p + PERF_HEADER_BYTES;
	blen = size - PERF_HEADER_BYTES;
	cursor_init(&c, body, blen);

	switch (rec->type) {
	case PERF_REC_SAMPLE:
		if (parse_sample(&c, arch, chained, rec) < 0)
			return PERF_E_CORRUPT;
		break;
	case PERF_REC_LOST:
		take64(&c);  /* the event id */
		rec->lost = take64(&c);
		if (!c.ok || trailer(body, blen, rec) < 0 || blen < 32)
			return PERF_E_CORRUPT;
		break;
	case PERF_REC_COMM:
		rec->pid = take32(&c);
		rec->tid = take32(&c);
		if (!c.ok || trailer(body, blen, rec) < 0 || blen < 8 + 16)
			return PERF_E_CORRUPT;
		rec->name = string_in(c.p, blen - 8 - 16);
		if (!rec->name)
			return PERF_E_CORRUPT;
		break;
	case PERF_REC_FORK:
	case PERF_REC_EXIT:
		rec->pid = take32(&c);
		rec->ppid = take32(&c);
		rec->tid = take32(&c);
		take32(&c);  /* ptid */
		rec->time = take64(&c);
		if (!c.ok)
			return PERF_E_CORRUPT;
		break;
	case PERF_REC_MMAP2:
		rec->pid = take32(&c);
		rec->tid = take32(&c);
		rec->addr = take64(&c);
		rec->len = take64(&c);
		rec->pgoff = take64(&c);
		rec->dev_major = take32(&c);
		rec->dev_minor = take32(&c);
		rec->inode = take64(&c);
		take64(&c);    /* ino_generation */
		rec->prot = take32(&c);
		take32(&c);  /* flags */
		if (!c.ok || trailer(body, blen, rec) < 0 || c.left < 16)
			return PERF_E_CORRUPT;
		rec->name = string_in(c.p, c.left - 16);
		if (!rec->name)
			return PERF_E_CORRUPT;
		break;
	case PERF_REC_SWITCH:
	case PERF_REC_SWITCH_CPU_WIDE:
	case PERF_REC_THROTTLE:
		/* The sample_id trailer, after nothing (SWITCH), the task
		 * switched to or from (SWITCH_CPU_WIDE), or the time, id and
		 * stream id (THROTTLE); the trailer's task is the one
		 * switched out or in. */
		if (trailer(body, blen, rec) < 0)
			return PERF_E_CORRUPT;
		rec->pid = get_le32(body + blen - 16);
		rec->tid = get_le32(body + blen - 12);
		break;
	default:
		break;  /* other types are skipped by their size */
	}
	return (int)size;
}

int perf_parse_record(const uint8_t *p, size_t n, int arch, struct perf_record *rec)
{
	return parse_record(p, n, arch, 1, rec);
}

int perf_parse_record_unchained(const uint8_t *p, size_t n, int arch, struct perf_record *rec)
{
	return parse_record(p, n, arch, 0, rec);
}
