/*
 * perf.h: the records of a perf_event ring buffer, parsed from bytes.
 *
 * The perf_event source (source_perf_linux.c) opens its events, per CPU,
 * with one fixed sample layout, and this module reads the records it finds
 * in the ring buffers: samples (tid, time, the kernel's user callchain, the
 * user registers the unwinder starts from and a copy of the stack from
 * sp), lost-record notices, executable mappings (MMAP2), renames and execs
 * (COMM), thread starts (FORK) and ends (EXIT), context switches
 * (SWITCH, and SWITCH_CPU_WIDE from a CPU's event) and throttling
 * (THROTTLE). It never touches the OS, so the unit tests feed it synthetic
 * buffers. The numbers are the kernel's ABI
 * (include/uapi/linux/perf_event.h), restated here so that the parser
 * builds on any system.
 *
 * Every length is checked against the bytes given; a record that does not
 * fit its own header is PERF_E_CORRUPT, never read past.
 */
#ifndef RECORD_PERF_H
#define RECORD_PERF_H

#include <stddef.h>
#include <stdint.h>

#include "common/errors.h" /* PERF_E_CORRUPT */
#include "unwind.h"

/* PERF_RECORD_* record types. */
enum perf_type {
	PERF_REC_MMAP = 1,
	PERF_REC_LOST = 2,
	PERF_REC_COMM = 3,
	PERF_REC_EXIT = 4,
	PERF_REC_THROTTLE = 5,
	PERF_REC_UNTHROTTLE = 6,
	PERF_REC_FORK = 7,
	PERF_REC_SAMPLE = 9,
	PERF_REC_MMAP2 = 10,
	PERF_REC_SWITCH = 14,
	PERF_REC_SWITCH_CPU_WIDE = 15,
};

/* The sample_type that the parser expects, and with perf_regs_mask()
 * the sample_regs_user; the source asks the kernel for exactly these. */
#define PERF_SAMPLE_LAYOUT_TID (1u << 1)
#define PERF_SAMPLE_LAYOUT_TIME (1u << 2)
#define PERF_SAMPLE_LAYOUT_CALLCHAIN (1u << 5)
#define PERF_SAMPLE_LAYOUT_REGS_USER (1u << 12)
#define PERF_SAMPLE_LAYOUT_STACK_USER (1u << 13)
#define PERF_SAMPLE_LAYOUT (PERF_SAMPLE_LAYOUT_TID | PERF_SAMPLE_LAYOUT_TIME | \
			    PERF_SAMPLE_LAYOUT_CALLCHAIN | PERF_SAMPLE_LAYOUT_REGS_USER | \
			    PERF_SAMPLE_LAYOUT_STACK_USER)

/* Callchain entries at or above this are context markers
 * (PERF_CONTEXT_USER, PERF_CONTEXT_KERNEL...), not addresses. */
#define PERF_CONTEXT_MAX_ADDR ((uint64_t)-4095)
#define PERF_MISC_COMM_EXEC (1u << 13)
/* misc of a sample: the CPU mode the tick landed in (PERF_RECORD_MISC_*). */
#define PERF_MISC_CPUMODE_MASK 7u
#define PERF_MISC_KERNEL 1u
/* misc of a SWITCH record: out (else in), and out while still runnable. */
#define PERF_MISC_SWITCH_OUT (1u << 13)
#define PERF_MISC_SWITCH_OUT_PREEMPT (1u << 14)
#define PERF_HEADER_BYTES 8

/* One parsed record. Pointers borrow from the bytes given to
 * perf_parse_record() and live as long as they do. */
struct perf_record {
	uint32_t type;          /* enum perf_type, or anything else (skip it) */
	uint16_t misc;
	uint32_t pid, tid;      /* SAMPLE, COMM, FORK, EXIT, MMAP2, SWITCH*;
	                         * (THROTTLE: of the event's task, if any) */
	uint32_t ppid;          /* FORK, EXIT: the parent's process */
	uint64_t time;          /* 0 if the record carries none */
	/* SAMPLE: the user callchain with the context markers removed, leaf
	 * first (ips[0] is the sampled pc). */
	const uint8_t *ips;     /* nips little-endian u64 entries */
	size_t nips;
	int has_regs;
	struct unwind_regs regs; /* pc, sp, fp and (arm64) lr, else 0 */
	const uint8_t *stack;   /* stack bytes from sp, stack_len of them */
	size_t stack_len;
	size_t stack_size;      /* the bytes asked for: more than stack_len if
				 * the copy reached the stack's end */
	/* LOST */
	uint64_t lost;
	/* MMAP2 */
	uint64_t addr, len, pgoff, inode;
	uint32_t dev_major, dev_minor;
	uint32_t prot;
	/* COMM (NUL-terminated in the record), MMAP2 (the path) */
	const char *name;
};

/* The sample_regs_user of arch (enum unwind_arch): the registers the
 * unwinder starts from, as asm/perf_regs.h numbers them. */
uint64_t perf_regs_mask(int arch);
/* Reads the record at p[0..n), whose samples hold the user registers of
 * perf_regs_mask(arch): n must be at least the record's own size (from
 * its header). Returns the record's size (> 0) with *rec filled, or
 * PERF_E_CORRUPT. The record's u64 callchain entries are read with
 * perf_ip(). */
int perf_parse_record(const uint8_t *p, size_t n, int arch, struct perf_record *rec);
/* The same for a ring whose samples have no callchain (sample_type
 * without PERF_SAMPLE_CALLCHAIN: wall mode's switch outs); nips is 0. */
int perf_parse_record_unchained(const uint8_t *p, size_t n, int arch, struct perf_record *rec);
/* The size field of the record header at p (8 bytes readable). */
size_t perf_record_size(const uint8_t *p);
/* The i-th callchain address of a parsed sample. */
uint64_t perf_ip(const struct perf_record *rec, size_t i);

#endif
