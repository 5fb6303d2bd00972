/*
 * source_perf_linux.c: the perf_event source of samples on Linux, with
 * perf_event_open(2).
 *
 * Each online CPU gets one software cpu-clock event on the target in
 * frequency mode at -F Hz, and one ring buffer. A launched command's
 * events are opened with inherit before it is let go, disabled until its
 * exec (enable_on_exec), so the kernel follows every thread it creates
 * (perf_mmap refuses an inherited event of cpu -1, hence one per CPU).
 * With -p, where the kernel lets us sample the whole CPU (perf_event
 * paranoid 0 or less, CAP_PERFMON, root), the events are the CPU's and
 * the records of other processes are dropped: a handful of events
 * however many threads the process has, every thread sampled from the
 * first tick. Otherwise each thread there at the start has its own events
 * on every CPU, whose records go to that CPU's ring
 * (PERF_EVENT_IOC_SET_OUTPUT), opened a batch per round while the others
 * are sampled, and what they create inherits them. Nothing is ptraced.
 *
 * A sample carries the tid, a CLOCK_MONOTONIC time, the kernel's
 * user-space frame-pointer callchain, the registers of perf_regs_mask(),
 * and a small copy of the user stack from sp (STACK_WINDOW bytes). Where
 * the kernel allows it, ticks that land in kernel mode are sampled too
 * (exclude_kernel 0, exclude_callchain_kernel 1): their user registers
 * and stack are those of the moment the thread entered the kernel, so the
 * sample is the user stack that asked for the kernel's work, flagged
 * TRACE_SAMPLE_KERNEL. The recorder walks the copy with unwind_stack(),
 * which adds the caller of a frameless leaf that the kernel's walk loses.
 * Where the walk needs bytes past the copy (a server's outer frames lie
 * deeper than 2 KiB), build_stack() goes on in the stack as it is now, or
 * joins the thread's earlier complete walks (outer.h), or, last, the
 * kernel's callchain. Only addresses reach the trace.
 *
 * The events also ask for FORK, EXIT, COMM and MMAP2 records: FORK starts
 * a thread, EXIT ends one, COMM records renames and execs, MMAP2 of
 * executable code brings the image table up to date (images_linux.c reads
 * the build-id). PERF_RECORD_LOST adds to the samples-lost counter, and
 * PERF_RECORD_THROTTLE, the kernel holding back samples that cost it too
 * much, to the throttle counter. Records of other processes are dropped;
 * a sample of the process from a thread not known yet starts it.
 *
 * In wall mode each CPU also has a context-switch event (sample_period 1)
 * with a ring of its own: its SWITCH records say when a thread left the
 * CPU (preempted or blocked) and when it came back, and its samples give
 * the user registers at each switch out. offcpu.c turns each such
 * interval into sleeping or preempted samples at the ticks of the grid,
 * with the stack read from the registers at the first tick the thread is
 * still out (process_vm_readv(2), read_stack()): a server switches tens
 * of thousands of times a second, mostly for less than a tick, and a copy
 * of the stack at each switch cost the target more than perf's own
 * context-switch samples and filled the rings faster than they drained.
 * So in wall mode the loop wakes just after each tick (at most every
 * READ_NS), drains, then reads the stacks due of the threads still out.
 * Where the process's memory cannot be read (kernel.yama.ptrace_scope),
 * each switch out's sample copies SWITCH_WINDOW bytes of stack instead,
 * walked as a tick needs it within the round. The samples are taken in
 * the kernel, so wall mode needs kernel sampling rights (engine_linux.c
 * falls back to the ptrace sampler without them). With -p, the threads
 * off the CPU at the start are each stopped once, as soon as each can be,
 * through a target that traces just them (snapshot()), the one ptrace of
 * a perf_event recording.
 *
 * Between drains the loop (loop.c) sleeps in ppoll() for
 * perf_next_due(), or until SIGCHLD says a launched command ended; each
 * drain reads every ring, sorts the round's records by time (the rings
 * are per CPU, and a thread's fork, samples and exit may be in several)
 * and then handles them in that order up to the time the drain began:
 * what was written while it read the rings waits for the next round
 * (next_round()), as does a switch-out sample whose SWITCH record had
 * not been written yet. A sample's stack is walked then, not as its ring
 * is read, so that the images its round maps before it (libc's, in a
 * command's first drain) are in the table and their CFI walks it.
 */
#include "source_perf.h"
#include "images.h"
#include "memory.h"
#include "offcpu.h"
#include "outer.h"
#include "perf.h"
#include "unwind.h"
#include "common/diag.h"
#include "common/hmap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * Bytes of stack copied per sample. Measured on the fixtures with a 16 KiB
 * copy: the first frame record, which the leaf heuristic scans up to, lay
 * at most 184 bytes above sp (split 176, threads 176, demo 176, frameless
 * 184), but the CFI walk through libc's frames, which keep no frame
 * pointer, needs more: the caller of qsort was 1512 bytes above sp at most
 * (p50 840). 2 KiB holds that; build_stack() finds the rest. On
 * split -n 3000 at 997 Hz the 2 KiB copy with CFI measured no slower than
 * perf record -g (medians 2.757 s against 2.772 s, bare 2.762 s).
 */
#define STACK_WINDOW 2048
/* The arch whose registers the kernel is asked for: the build's. */
#if defined(__aarch64__)
#define PERF_ARCH UNWIND_ARCH_ARM64
#else
#define PERF_ARCH UNWIND_ARCH_X86_64
#endif
/*
 * Bytes of stack read at once for a thread off the CPU, and copied per
 * switch-out sample where the stack cannot be read later: 256 frames of
 * 32 bytes, such as deep200's recursion, or printf's frames, which pass
 * 2 KiB. A read walks on past it, a page at a time; a copy cannot.
 */
#define SWITCH_WINDOW 8192
#define RING_PAGES 32           /* data pages per CPU; halved when refused */
/* A context switch's ring, as a multiple of a cpu-clock ring: about 120
 * bytes a switch with the registers only (a server's 30,000 switches a
 * second on one CPU fill a quarter of it in 70 ms), 8.3 KiB with the
 * stack copy (16 times: 10 ms of server50's switches then fill about a
 * quarter). */
#define SWITCH_RING_FACTOR_READ 4
#define SWITCH_RING_FACTOR_COPY 16
#define DRAIN_NS (10 * 1000000ull)  /* the longest sleep between drains */
/* Wall mode, stacks read: the loop wakes this long after a tick of the
 * grid, at most once per READ_NS (a grid of 9973 Hz is read every tenth
 * tick) while intervals end before they are read, and twice as far apart
 * after READ_CLEAN rounds in a row in which none did, up to READ_MAX_NS.
 * An interval that covers a tick and ends before the next wake is not
 * read, and takes the thread's earlier stack if it read the same twice,
 * else its ticks are lost; but a wake on every tick costs a target that
 * keeps every CPU busy: at 997 Hz threads8 ran 3.7 points slower than
 * under perf -g waking every millisecond, 0.2 every 3 ms, and switch50,
 * whose client waits for less than a tick at a time, lost 0.23% of its
 * ticks at 1 ms, 0.33% at 3 ms. Paced so (16 rounds, 8 ms), threads8 ran
 * 1.2 to 1.8 points slower than under perf -g in runs of it alone, 3.7 in
 * one full make bench, and switch50 lost 0.18 to 0.32%. */
#define READ_LAG_NS 2000ull
#define READ_NS 1000000ull
#define READ_MAX_NS (8 * 1000000ull)
#define READ_CLEAN 16u
/* -p, a thread at a time: the threads whose events are opened in one
 * round before the rings are drained again. */
#define OPEN_BATCH 64

/* The events of a CPU: its cpu-clock samples and side-band records, and
 * in wall mode its context switches (their samples and SWITCH records). */
enum ring_kind { RING_CLOCK, RING_SWITCH, RING__COUNT };

/* A pending SAMPLE from a RING_SWITCH ring: the registers (and stack
 * copy) at a switch out. */
#define PEND_SWITCH_STACK 0x10000u

struct ring {
	int fd;                 /* the event the ring is mapped from */
	uint8_t *base;          /* the mmapped control page and ring, or NULL */
	size_t map_len, data_size;
	uint64_t read;          /* data_head as drained, released to the kernel
				 * (data_tail) once the round is handled */
};

/* A sample's bytes are in its ring, not in raw. */
#define IN_RING SIZE_MAX

/* One record of a round, kept until the round is sorted. */
struct pending {
	uint64_t time;
	size_t seq;
	uint32_t type;          /* enum perf_type, or PEND_SWITCH_STACK */
	uint16_t misc;
	uint32_t pid, tid;
	uint8_t flags;          /* SAMPLE: TRACE_SAMPLE_* */
	uint8_t ring_last;      /* the last record read from its ring */
	const uint8_t *bytes;   /* SAMPLE, MMAP2: the record in its ring, or NULL */
	size_t off, len;        /* SAMPLE, MMAP2: else the record in raw; COMM: name in names */
	uint64_t value;         /* LOST: count; FORK, EXIT: the parent's pid */
};

/* Copy mode: a thread off the CPU since a switch out of this round whose
 * stack sample (pend[idx]) is walked only if one of its ticks needs it. */
struct lazy {
	uint32_t tid;
	size_t idx;
};

/* The rest of a stack read beyond SWITCH_WINDOW, a page at a time. */
struct remote {
	pid_t tid;
	uint64_t base;          /* the page held, or 1 if none */
	uint8_t page[4096];
};

struct perf_src {
	struct source src;
	struct target *t;
	int paused;             /* the loop drops the samples of a pause; */
	uint64_t pause_cpu_ns;  /* the CPU time sampled when it began, */
	uint64_t paused_cpu_ns; /* and that of the pauses before, left out */
	struct source_perf_options o;
	uint32_t pid;
	int cpu_wide;           /* -p with the CPUs' events, filtered to pid
				 * (and, following, its descendants) */
	struct hmap followed;   /* cpu_wide, following: (pid, 0) of each
				 * process descended from pid since the start */
	struct hmap ended;      /* (pid, 0) of the children ended, whose late
				 * samples (a CPU's events see a process
				 * after its EXIT record) are dropped, until
				 * a fork reuses the pid */
	int read_stacks;        /* wall mode: stacks read, not copied */
	struct ring *rings;     /* RING__COUNT per CPU, kind-major */
	int *cpus;
	size_t ncpus;
	struct offcpu *off;     /* wall mode: the threads off the CPU */
	struct lazy *lazy;      /* copy mode: the round's switch outs not walked yet */
	size_t nlazy, lazy_cap;
	struct loop *s;         /* the loop, while a round is handled */
	uint64_t period, origin, next_tick;
	uint64_t read_min, read_step;   /* the wake-up's step: at least read_min */
	uint64_t unread;        /* offcpu's intervals ended unread, at the last look */
	unsigned clean;         /* rounds since the step changed with none ended unread */
	int *fds;               /* every event, rings' included */
	size_t nfds, fds_cap;
	int *clock_fds;         /* the cpu-clock events, whose counts are CPU time */
	size_t nclock, clock_cap;
	struct target *peek;    /* -p, wall mode: threads off the CPU at the start */
	uint32_t *peek_tids;    /* those still to stop, 0 for one that cannot */
	size_t npeek;
	uint64_t peek_asked;    /* when they were asked to stop */
	uint32_t *to_open;      /* -p, a thread at a time: threads still to open */
	size_t nto_open, open_next;
	struct pending *pend;
	size_t npend, pend_cap;
	uint8_t *raw;           /* the round's samples that wrapped a ring's end,
				 * or carried from the round before */
	size_t nraw, raw_cap;
	char *names;
	size_t nnames, names_cap;
	uint8_t *spare_raw;     /* next_round()'s, then swapped with raw */
	size_t spare_raw_cap;
	char *spare_names;      /* likewise with names */
	size_t spare_names_cap;
	uint64_t *chain;
	size_t chain_cap;
	struct outer *outer;    /* each thread's outer frames */
	uint8_t *snap;          /* walk_on()'s read of a stack, SNAP_BYTES */
	uint64_t *at;           /* still_there()'s addresses and words */
	size_t at_cap;
	struct hmap unreadable; /* (pid, 0) of processes whose memory is refused */
	uint8_t window[SWITCH_WINDOW];
	struct remote remote;
	uint64_t lost_ticks;    /* offcpu's ticks lost, as counted so far */
	uint64_t cpu_ns_start;  /* cpu_wide: the process's CPU time at the start */
	size_t kernel_max_stack;
	size_t ring_pages;
	struct sigaction old_sa;
	sigset_t old_mask, wait_mask;
};

static volatile sig_atomic_t child_signalled;

static void on_child(int sig)
{
	(void)sig;
	child_signalled = 1;
}

/* The cpu-clock event; with side-band records if it is a ring's own
 * (the others' records would repeat them). */
static void attr_init(struct perf_event_attr *a, const struct source_perf_options *o)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->freq = 1;
	a->sample_freq = o->rate_hz;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = perf_regs_mask(PERF_ARCH);
	a->sample_stack_user = STACK_WINDOW;
	a->exclude_kernel = !o->kernel;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->inherit = 1;
	/* The threads a process creates, not the processes (Linux 5.13;
	 * where refused, their records are dropped, event_open()). */
	a->inherit_thread = !o->follow;
	a->disabled = o->launched;
	a->enable_on_exec = o->launched;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

/* Wall mode's context-switch event: a sample with the user registers
 * (and, where the stack cannot be read later, copy_len bytes of it) at
 * each switch out (it is taken in the kernel, so kernel sampling rights
 * are needed), and SWITCH records, out (preempted or not) and in. */
static void switch_attr_init(struct perf_event_attr *a, const struct source_perf_options *o, size_t copy_len)
{
	attr_init(a, o);
	a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a->freq = 0;
	a->sample_period = 1;
	a->sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
	a->sample_stack_user = (uint32_t)copy_len;
	a->exclude_kernel = 0;
	a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 0;
	a->context_switch = 1;
}

static int event_open(const struct perf_event_attr *a, pid_t tid, int cpu)
{
	long fd = syscall(SYS_perf_event_open, a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	struct perf_event_attr b;

	if (fd < 0 && errno == EINVAL && a->inherit_thread) {
		b = *a;
		b.inherit_thread = 0;
		fd = syscall(SYS_perf_event_open, &b, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd < 0 ? -errno : (int)fd;
}

static unsigned long read_sysctl(const char *path, unsigned long dflt)
{
	FILE *f = fopen(path, "re");
	unsigned long v;

	if (!f)
		return dflt;
	if (fscanf(f, "%lu", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

int source_perf_probe(pid_t pid, uint32_t rate_hz, int kernel)
{
	struct source_perf_options o = { .rate_hz = rate_hz, .kernel = kernel };
	struct perf_event_attr a;
	int fd;

	attr_init(&a, &o);
	a.inherit = 0;
	fd = event_open(&a, pid, -1);
	if (fd == -EINVAL &&
	    rate_hz > read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 100000))
		return SOURCE_PERF_E_RATE;
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* The online CPUs, from the kernel's list ("0-3,5"); at least CPU 0. */
static size_t online_cpus(int **cpus)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char line[4096], *q = line;
	size_t n = 0, cap = 0;

	*cpus = NULL;
	if (!f || !fgets(line, sizeof(line), f))
		line[0] = 0;
	if (f)
		fclose(f);
	while (*q >= '0' && *q <= '9') {
		unsigned long lo = strtoul(q, &q, 10), hi = lo;
		if (*q == '-')
			hi = strtoul(q + 1, &q, 10);
		for (unsigned long c = lo; c <= hi && c < 4096; c++) {
			*cpus = xgrow(*cpus, &cap, n + 1, sizeof(**cpus));
			(*cpus)[n++] = (int)c;
		}
		if (*q == ',')
			q++;
	}
	if (!n) {
		*cpus = xgrow(*cpus, &cap, 1, sizeof(**cpus));
		(*cpus)[n++] = 0;
	}
	return n;
}

/* Maps event fd as a ring into *rg. Returns 0 or a negative error.
 * Without CAP_IPC_LOCK, ring buffers count against perf_event_mlock_kb:
 * smaller ones lose more, but still sample. */
static int map_ring(struct perf_src *p, int fd, int kind, struct ring *rg)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t factor = kind != RING_SWITCH ? 1 : p->read_stacks ? SWITCH_RING_FACTOR_READ : SWITCH_RING_FACTOR_COPY;

	for (;;) {
		rg->fd = fd;
		rg->data_size = p->ring_pages * page * factor;
		rg->map_len = rg->data_size + page;
		rg->base = mmap(NULL, rg->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (rg->base != MAP_FAILED)
			return 0;
		rg->base = NULL;
		if ((errno != EPERM && errno != ENOMEM) || p->ring_pages == 1)
			return errno == EPERM || errno == ENOMEM ? SOURCE_PERF_E_MLOCK : -errno;
		p->ring_pages /= 2;
	}
}

/* Opens the events of thread tid on each CPU (tid -1: the CPUs' own
 * events; launched: the process's); the first ones opened on a CPU own
 * its ring, the later ones write to it. A thread gone meanwhile (-ESRCH)
 * is not an error. */
static int open_thread(struct perf_src *p, pid_t tid)
{
	struct perf_event_attr a[RING__COUNT];

	attr_init(&a[RING_CLOCK], &p->o);
	switch_attr_init(&a[RING_SWITCH], &p->o, p->read_stacks ? 0 : SWITCH_WINDOW);
	if (tid == -1)
		a[RING_CLOCK].inherit = a[RING_SWITCH].inherit = 0;
	for (int kind = 0; kind < (p->o.wall ? RING__COUNT : 1); kind++) {
		for (size_t i = 0; i < p->ncpus; i++) {
			struct ring *rg = &p->rings[(size_t)kind * p->ncpus + i];
			int fd = event_open(&a[kind], tid, p->cpus[i]), r;

			if (fd < 0)
				return fd;
			p->fds = xgrow(p->fds, &p->fds_cap, p->nfds + 1, sizeof(*p->fds));
			p->fds[p->nfds++] = fd;
			if (kind == RING_CLOCK) {
				p->clock_fds = xgrow(p->clock_fds, &p->clock_cap, p->nclock + 1, sizeof(*p->clock_fds));
				p->clock_fds[p->nclock++] = fd;
			}
			if (rg->base)
				r = ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rg->fd) < 0 ? -errno : 0;
			else
				r = map_ring(p, fd, kind, rg);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* -p, a thread at a time: opens the events of up to max threads still
 * to open; a thread gone meanwhile is skipped. Returns 0, or the first
 * error of a thread still there. */
static int open_more(struct perf_src *p, size_t max)
{
	int r = 0;

	for (size_t k = 0; k < max && p->open_next < p->nto_open && r == 0; k++) {
		r = open_thread(p, (pid_t)p->to_open[p->open_next++]);
		if (r == -ESRCH)
			r = 0;
	}
	return r;
}

static void close_all(struct perf_src *p)
{
	for (size_t i = 0; i < RING__COUNT * p->ncpus; i++)
		if (p->rings[i].base)
			munmap(p->rings[i].base, p->rings[i].map_len);
	for (size_t i = 0; i < p->nfds; i++)
		close(p->fds[i]);
	p->nfds = 0;
	p->nclock = 0;
}

/* A read of the walk past the window: a page at a time, the last one
 * kept (a deep stack is walked upward, page after page). */
static int read_remote(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct remote *rm = ctx;
	uint64_t base = addr & ~(uint64_t)(sizeof(rm->page) - 1);

	if (addr - base + len > sizeof(rm->page))
		return memory_read_pid(&rm->tid, addr, buf, len);
	if (rm->base != base) {
		rm->base = 1;
		if (memory_read_pid(&rm->tid, base, rm->page, sizeof(rm->page)) < 0)
			return -1;
		rm->base = base;
	}
	memcpy(buf, rm->page + (addr - base), len);
	return 0;
}

/*
 * A walk that ran out of the copied stack goes on in the thread's stack as
 * it is now, read with process_vm_readv(2) (the copy is at most one drain,
 * 10 ms, old), if the stack still holds what the copy held from the walk's
 * last frame up (at least the copy's last COMPARE_MIN bytes: a frame's
 * saved registers and return address alone are the same for any call down
 * the same path, its locals are not): then the thread has most likely not
 * returned past that frame, and what lies above it is what lay there at
 * the sample. The stack is read in one call, up to SNAP_BYTES, and the
 * copy's end read again after it, so that a thread that returned through
 * it meanwhile is caught. A thread that has returned and called again
 * leaves stale words that could pass for frames, so the walk that goes on
 * must reach the outermost frame (or the depth cap) and find its return
 * addresses still there when read once more (still_there()) to be
 * believed, else the walk of the copy is made again. Returns the frames,
 * with *n and *stop, or NULL if the stack has moved on or cannot be read.
 */
#define COMPARE_MIN 512
#define SNAP_BYTES (64 * 1024)

struct snap {
	uint64_t addr;
	const uint8_t *p;
	size_t len;
};

static int read_snap(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct snap *sn = ctx;

	if (addr < sn->addr || addr - sn->addr > sn->len || len > sn->len - (addr - sn->addr))
		return -1;
	memcpy(buf, sn->p + (addr - sn->addr), len);
	return 0;
}

/* Whether the return addresses a walk found past the copy's end are still
 * where it found them, read again after the walk in one call: a thread
 * that returned and called down another path while its stack was being
 * read has changed some of them. */
static int still_there(struct perf_src *p, pid_t tid, const uint64_t *frames, const struct unwind_frame *trail,
		       size_t n, uint64_t end)
{
	uint64_t *at, *want, *now;
	size_t k = 0;

	p->at = xgrow(p->at, &p->at_cap, 3 * n, sizeof(*p->at));
	at = p->at;
	want = at + n;
	now = want + n;
	for (size_t i = 1; i < n && k < 1024; i++)
		if (trail[i].ra_at >= end) {
			at[k] = trail[i].ra_at;
			want[k++] = frames[i];
		}
	if (k == 0)
		return 1;
	if (memory_read_words(tid, at, now, k) < 0)
		return 0;
	for (size_t i = 0; i < k; i++)
		if ((PERF_ARCH == UNWIND_ARCH_ARM64 ? unwind_strip_pac(now[i], 0) : now[i]) != want[i])
			return 0;
	return 1;
}

static uint64_t *walk_on(struct perf_src *p, struct loop *s, uint32_t pid, struct loop_regs *r,
			 size_t *n, int *stop)
{
	uint64_t from = loop_trail(s)[*n - 1].sp, end = r->window_addr + r->window_len, *frames;
	pid_t tid = (pid_t)r->tid;
	uint8_t again[COMPARE_MIN];
	struct snap sn;
	long got;
	size_t len, tail;
	int st;

	if (hmap_get(&p->unreadable, pid, 0) || from < r->window_addr || from >= end)
		return NULL;
	if (end - from < COMPARE_MIN)
		from = r->window_len > COMPARE_MIN ? end - COMPARE_MIN : r->window_addr;
	len = (size_t)(end - from);
	tail = len < sizeof(again) ? len : sizeof(again);
	if (!p->snap)
		p->snap = xmalloc(SNAP_BYTES);
	if ((got = memory_read_upto(tid, from, p->snap, SNAP_BYTES)) < 0) {
		if (got == -EPERM)
			*hmap_put(&p->unreadable, pid, 0, 1, NULL) = 1;
		return NULL;
	}
	if ((size_t)got < len || memcmp(p->snap, r->window + (from - r->window_addr), len) != 0)
		return NULL;
	/* The end of the copy, read again: unchanged while the rest was read. */
	if (memory_read_pid(&tid, end - tail, again, tail) < 0 ||
	    memcmp(again, r->window + r->window_len - tail, tail) != 0)
		return NULL;
	sn = (struct snap){ from, p->snap, (size_t)got };
	r->read = read_snap;
	r->read_ctx = &sn;
	frames = loop_walk(s, r, n, &st);
	r->read = NULL;
	if ((st != UNWIND_STOP_END && st != UNWIND_STOP_DEPTH) || !still_there(p, tid, frames, loop_trail(s), *n, end))
		return loop_walk(s, r, n, stop);
	*stop = st;
	return frames;
}

/* outer_join()'s check: thread tid's stack now, read in one call. */
struct holds {
	struct perf_src *p;
	uint32_t pid;
	pid_t tid;
};

static int stack_holds(void *ctx, const uint64_t *at, const uint64_t *pc, size_t n)
{
	struct holds *h = ctx;
	uint64_t now[64];
	int e;

	if (n > sizeof(now) / sizeof(*now) || hmap_get(&h->p->unreadable, h->pid, 0))
		return 0;
	if ((e = memory_read_words(h->tid, at, now, n)) < 0) {
		if (e == -EPERM)
			*hmap_put(&h->p->unreadable, h->pid, 0, 1, NULL) = 1;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if ((PERF_ARCH == UNWIND_ARCH_ARM64 ? unwind_strip_pac(now[i], 0) : now[i]) != pc[i])
			return 0;
	return 1;
}

/* Whether pc, a frame where the kernel's callchain ended, is the outermost
 * frame of its thread by its CFI (glibc's _start and clone say so), or
 * has no CFI to say otherwise. */
static int outermost(struct loop *s, uint32_t pid, uint64_t pc)
{
	struct images *im = loop_images(s, pid);
	struct cfi_row row;

	if (!im || images_cfi_row(im, pc - 1, &row) < 0)
		return 1;
	return row.ra.kind == CFI_RULE_UNDEFINED;
}

/* Where in the kernel's chain (nk return addresses after the pc) the last
 * of a walk's n frames is: the index nearest to the walk's own, as the two
 * walks see the same frames (the walk may have one more, the caller of a
 * frameless leaf), so that a recursion, whose return addresses repeat,
 * is joined at its own depth. 0 if the chain lacks it. */
static size_t chain_at(const uint64_t *chain, size_t nk, const uint64_t *frames, size_t n)
{
	size_t best = 0, want = n - 1;

	for (size_t j = 1; j < nk; j++)
		if (chain[j] == frames[n - 1] &&
		    (!best || (j > want ? j - want : want - j) < (best > want ? best - want : want - best)))
			best = j;
	return best;
}

/* Whether the kernel's chain, the frame pointers' walk at the sample
 * itself, says otherwise than frames n to joined of a stack completed
 * from an earlier walk, where it has them: code with frame pointers,
 * such as a recursion that has changed course since, is caught so. */
static int chain_denies(const uint64_t *chain, size_t nk, const uint64_t *frames, size_t n, size_t joined)
{
	size_t j = chain_at(chain, nk, frames, n);

	if (j == 0)
		return 0;
	for (size_t i = n; i < joined && ++j < nk; i++)
		if (chain[j] != frames[i])
			return 1;
	return 0;
}

/*
 * The stack of one sample: the walk of the copied window; where it runs
 * out of the copy, on in the stack as it is now (walk_on()), else
 * completed from the thread's last complete walks where they meet
 * (outer.h), else continued with the kernel's frame-pointer callchain
 * from the last frame both have. Without a window, the kernel's chain
 * alone. Every frame taken from the kernel's chain must be code; a stack
 * that ends with it is complete only if its last frame is the outermost
 * (outermost()), else it counts as cut at the window. *stop is the enum
 * unwind_stop to count.
 */
static const uint64_t *build_stack(struct perf_src *p, struct loop *s, const struct perf_record *rec,
				   size_t *np, int *stop)
{
	size_t max = loop_config(s)->max_depth ? loop_config(s)->max_depth : 1, nk = rec->nips, n = 0, j;
	uint64_t *frames = NULL;
	struct images *im = loop_images(s, rec->pid);

	p->chain = xgrow(p->chain, &p->chain_cap, nk + 1, sizeof(*p->chain));
	for (size_t i = 0; i < nk; i++) {
		p->chain[i] = perf_ip(rec, i);
		/* The kernel's walk follows rbp, which code without frame
		 * pointers uses for anything: it ends at the first word
		 * that is not code. */
		if (i > 0 && im && !images_is_code(im, p->chain[i]))
			nk = i;
	}
	*stop = UNWIND_STOP_END;
	if (rec->has_regs && rec->stack_len >= 8) {
		struct loop_regs r = { .tid = rec->tid, .arch = PERF_ARCH, .regs = rec->regs,
					  .window_addr = rec->regs.sp, .window = rec->stack,
					  .window_len = rec->stack_len,
					  .window_whole = rec->stack_len < rec->stack_size };
		uint64_t *deeper;
		int whole;

		frames = loop_walk(s, &r, &n, stop);
		if (*stop == UNWIND_STOP_WINDOW && n > 1 && (deeper = walk_on(p, s, rec->pid, &r, &n, stop)))
			frames = deeper;
		/* The leaf's caller stays the walk's, whatever completes it,
		 * unless the kernel's chain is taken instead (below). */
		if (unwind_leaf_scanned(loop_trail(s), n))
			loop_counters(s)[TRACE_COUNTER_LEAF_SCANS]++;
		if (*stop == UNWIND_STOP_END) {
			outer_keep(p->outer, rec->tid, frames, loop_trail(s), n);
			goto out;
		}
		if (*stop == UNWIND_STOP_WINDOW && n > 0) {
			struct holds h = { p, rec->pid, (pid_t)rec->tid };
			size_t joined = outer_join(p->outer, rec->tid, frames, n, max, &loop_trail(s)[n - 1],
						   stack_holds, &h, &whole);
			if (joined > n && !chain_denies(p->chain, nk, frames, n, joined)) {
				loop_counters(s)[TRACE_COUNTER_STACKS_JOINED]++;
				n = joined;
				*stop = whole ? UNWIND_STOP_END : UNWIND_STOP_DEPTH;
				goto out;
			}
		}
		if (*stop == UNWIND_STOP_DEPTH || n == 0)
			goto out;
		/* The walk left the window or broke: the kernel read on from
		 * bp, so continue with its chain after the return address
		 * both have. Not from a frame a signal interrupted: the
		 * kernel's chain skips it. */
		if (n > 1 && loop_trail(s)[n - 1].exact)
			goto out;
		if ((j = chain_at(p->chain, nk, frames, n)) > 0) {
			if (j + 1 >= nk)
				goto out;
			while (++j < nk && n < max)
				frames[n++] = p->chain[j];
			goto chain_end;
		}
		/* No frame in common: the kernel's chain is taken only for a
		 * walk that found no caller at all (so none by the search). */
		if (n > 1 || nk <= n)
			goto out;
	}
	frames = p->chain;
	for (n = 0; n < nk && n < max; n++)
		;
chain_end:
	if (n == 0)
		*stop = UNWIND_STOP_END;
	else if (n == max)
		*stop = UNWIND_STOP_DEPTH;
	else if (nk < rec->nips)
		*stop = UNWIND_STOP_NOT_CODE;
	else if (rec->nips >= p->kernel_max_stack)
		*stop = UNWIND_STOP_DEPTH;   /* the kernel's own cap */
	else
		*stop = outermost(s, rec->pid, frames[n - 1]) ? UNWIND_STOP_END : UNWIND_STOP_WINDOW;
out:
	*np = n;
	return frames;
}

/* offcpu's read: thread tid's stack now, from its switch-out registers,
 * SWITCH_WINDOW bytes from sp at once and the rest as the walk needs it. */
static int read_stack(void *ctx, uint32_t tid, const struct unwind_regs *regs, const uint64_t **addrs,
		      size_t *n, int *stop, uint64_t *end)
{
	struct perf_src *p = ctx;
	long got = memory_read_upto((pid_t)tid, regs->sp, p->window, sizeof(p->window));
	struct loop_regs r = { .tid = tid, .arch = PERF_ARCH, .regs = *regs, .window_addr = regs->sp,
				  .window = p->window, .window_whole = 1,
				  .read = read_remote, .read_ctx = &p->remote };

	if (got < 0) {
		*end = loop_now();
		return (int)got;
	}
	r.window_len = (size_t)got;
	p->remote.tid = (pid_t)tid;
	p->remote.base = 1;
	*addrs = loop_walk(p->s, &r, n, stop);
	if (unwind_leaf_scanned(loop_trail(p->s), *n))
		loop_counters(p->s)[TRACE_COUNTER_LEAF_SCANS]++;
	*end = loop_now();
	return 0;
}

/* A round's record, its bytes copied out of the ring as needed. */
static struct pending *queue(struct perf_src *p, const struct perf_record *rec)
{
	struct pending *q;

	p->pend = xgrow(p->pend, &p->pend_cap, p->npend + 1, sizeof(*p->pend));
	q = &p->pend[p->npend];
	memset(q, 0, sizeof(*q));
	q->time = rec->time ? rec->time : loop_now();
	q->seq = p->npend++;
	q->type = rec->type;
	q->misc = rec->misc;
	q->pid = rec->pid;
	q->tid = rec->tid;
	return q;
}

/* Whether the records of process pid are part of the recording: the
 * target's, and following, its descendants' (which alone inherit the
 * events; the CPUs' own events see every process, filtered by what
 * queue_record() saw fork). */
static int wanted(const struct perf_src *p, uint32_t pid)
{
	if (pid == p->pid)
		return 1;
	if (!p->o.follow)
		return 0;
	return !p->cpu_wide || hmap_get(&p->followed, pid, 0) != NULL;
}

/* Whether a COMM or MMAP2 record of process pid joins the round. With
 * the CPUs' own events a child's fork may be in a ring drained after the
 * one with its exec, so every process's join and wanted() decides when
 * the round is handled in time order, its fork seen (handle()). */
static int may_be_wanted(const struct perf_src *p, uint32_t pid)
{
	return wanted(p, pid) || (p->cpu_wide && p->o.follow);
}

/* A record of a ring of this kind: a switch out's sample has no
 * callchain. */
static int parse(int kind, const uint8_t *bytes, size_t len, struct perf_record *rec)
{
	if (kind == RING_SWITCH)
		return perf_parse_record_unchained(bytes, len, PERF_ARCH, rec);
	return perf_parse_record(bytes, len, PERF_ARCH, rec);
}

/* q's sample, parsed again from its bytes (it parsed when it was queued). */
static void parse_pending(const struct perf_src *p, const struct pending *q, struct perf_record *rec)
{
	(void)parse(q->type == PEND_SWITCH_STACK ? RING_SWITCH : RING_CLOCK, q->bytes ? q->bytes : p->raw + q->off,
		    q->len, rec);
}

/* Record rec, whose len bytes are at bytes (in its ring, or at raw_off
 * in raw), joins the round. A sample is kept as it is, in the ring until
 * the round is handled, and walked then in time order (walk()): walked
 * now, it would miss the images that records of this round map before it
 * (the rings are drained one after the other, then sorted), such as
 * libc's while a launched command starts. */
static void queue_record(struct perf_src *p, int kind, const struct perf_record *rec, const uint8_t *bytes,
			 size_t len, size_t raw_off)
{
	struct pending *q;
	size_t n;

	switch (rec->type) {
	case PERF_REC_SAMPLE:
		if (!wanted(p, rec->pid))
			return;
		q = queue(p, rec);
		q->bytes = raw_off == IN_RING ? bytes : NULL;
		q->off = raw_off;
		q->len = len;
		if (kind == RING_SWITCH)
			q->type = PEND_SWITCH_STACK;
		else if ((rec->misc & PERF_MISC_CPUMODE_MASK) == PERF_MISC_KERNEL)
			q->flags |= TRACE_SAMPLE_KERNEL;
		return;
	case PERF_REC_SWITCH:
	case PERF_REC_SWITCH_CPU_WIDE:
		if (wanted(p, rec->pid)) {
			q = queue(p, rec);
			q->type = PERF_REC_SWITCH;
		}
		return;
	case PERF_REC_LOST:
		queue(p, rec)->value = rec->lost;
		return;
	case PERF_REC_THROTTLE:
		/* The CPU's event in cpu-wide mode, the process's otherwise. */
		queue(p, rec);
		return;
	case PERF_REC_MMAP2:
		if (may_be_wanted(p, rec->pid) && (rec->prot & PROT_EXEC)) {
			q = queue(p, rec);
			q->bytes = raw_off == IN_RING ? bytes : NULL;
			q->off = raw_off;
			q->len = len;
		}
		return;
	case PERF_REC_COMM:
		if (!may_be_wanted(p, rec->pid))
			return;
		n = strlen(rec->name) + 1;
		p->names = xgrow(p->names, &p->names_cap, p->nnames + n, 1);
		memcpy(p->names + p->nnames, rec->name, n);
		q = queue(p, rec);
		q->off = p->nnames;
		p->nnames += n;
		return;
	case PERF_REC_FORK:
	case PERF_REC_EXIT:
		/* A new process is a fork whose tid is its pid. The target's
		 * leader ends with the process, as the target reports it:
		 * its EXIT record may only be an execve from another thread. */
		if (rec->type == PERF_REC_FORK && rec->pid == rec->tid && rec->pid != rec->ppid &&
		    p->cpu_wide && p->o.follow && wanted(p, rec->ppid))
			*hmap_put(&p->followed, rec->pid, 0, 0, NULL) = 1;
		if (wanted(p, rec->pid) && rec->tid != p->pid)
			queue(p, rec)->value = rec->ppid;
		return;
	default:
		return;
	}
}

/* The stack of queued sample q, with the image table as the records
 * before it in the round left it. */
static const uint64_t *walk(struct perf_src *p, struct loop *s, const struct pending *q, size_t *n,
			    int *stop)
{
	struct perf_record rec;

	parse_pending(p, q, &rec);
	return build_stack(p, s, &rec, n, stop);
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* A tick off the CPU, counted for why its stack's walk stopped, as every
 * sample is. */
static int emit(void *ctx, uint64_t time, uint32_t tid, uint8_t state, const uint64_t *addrs, size_t n, int stop)
{
	struct perf_src *p = ctx;

	return loop_sample(p->s, time, tid, state, 0, addrs, n, stop);
}

/* The ticks offcpu lost since the last look, to the loop's counter. */
static void count_lost_ticks(struct perf_src *p)
{
	struct offcpu_stats st;

	offcpu_stats(p->off, &st);
	loop_lost(p->s, st.ticks_lost - p->lost_ticks);
	p->lost_ticks = st.ticks_lost;
}

/* The index of tid's lazy entry, or nlazy. */
static size_t lazy_find(const struct perf_src *p, uint32_t tid)
{
	size_t k = 0;

	while (k < p->nlazy && p->lazy[k].tid != tid)
		k++;
	return k;
}

/* Lazy entry k's stack walked and given to its interval (now or never:
 * the sample's bytes last until the round ends), and the entry dropped. */
static void walk_lazy(struct perf_src *p, struct loop *s, size_t k)
{
	const uint64_t *frames;
	size_t n;
	int stop;

	frames = walk(p, s, &p->pend[p->lazy[k].idx], &n, &stop);
	offcpu_stack(p->off, p->lazy[k].tid, frames, n, stop);
	p->lazy[k] = p->lazy[--p->nlazy];
}

/* The lazy entries whose interval has a tick before until walked (all of
 * them if until is UINT64_MAX, at the round's end). */
static void walk_due(struct perf_src *p, struct loop *s, uint64_t until)
{
	for (size_t k = p->nlazy; k-- > 0;)
		if (until == UINT64_MAX || offcpu_due(p->off, p->lazy[k].tid, until))
			walk_lazy(p, s, k);
}

/* Wall mode: the ticks of threads off the CPU before now, once now has
 * passed the next tick of the grid. */
static int advance(struct perf_src *p, struct loop *s, uint64_t now)
{
	int r;

	if (!p->off || now <= p->next_tick)
		return 0;
	p->next_tick = p->origin + (now - p->origin + p->period - 1) / p->period * p->period;
	walk_due(p, s, now);
	p->s = s;
	r = offcpu_advance(p->off, now, emit, p);
	count_lost_ticks(p);
	return r;
}

/*
 * -p in wall mode: the threads off the CPU at the start would be seen only
 * once they next ran, so each is off the CPU from the start with its
 * stack to be had through a target that traces just them (the only
 * ptrace of a perf_event recording): each is asked to stop at once, and
 * a blocked thread stops at once, a thread waiting for a CPU once it gets
 * one, before it runs any code of its own; so the stack it stops with is
 * the one it had since the start, if it did not run before it was asked
 * (offcpu_read_done() with that time). Each round takes the threads that
 * have stopped, reads them and lets them go, so none is held longer than
 * a round; a thread coming back on the CPU is looked at first. A thread
 * on a CPU at the start stops too, and its next switch out replaces the
 * interval. A process that cannot be traced is not an error: its threads
 * off the CPU at the start are lost until they run (engine_attach() warns
 * of one traced already).
 */
static void snapshot(struct perf_src *p, struct loop *s, uint64_t start)
{
	const uint32_t *live;
	size_t n = target_threads(p->t, &live);

	p->peek_tids = xmalloc((n + 1) * sizeof(*p->peek_tids));
	for (size_t i = 0; i < n; i++) {
		if (!loop_thread_known(s, live[i]))
			continue;
		offcpu_out_regs(p->off, live[i], start,
				target_thread_state(p->t, live[i]) == TRACE_STATE_RUNNING, NULL);
		p->peek_tids[p->npeek++] = live[i];
	}
	if (!p->npeek || target_attach_threads((pid_t)p->pid, p->peek_tids, p->npeek, &p->peek) < 0) {
		p->npeek = 0;
		return;
	}
	p->peek_asked = loop_now();
	for (size_t i = 0; i < p->npeek; i++)
		if (target_interrupt_thread(p->peek, p->peek_tids[i]) < 0)
			p->peek_tids[i] = 0;
}

/* Takes thread tid's stop, if it has stopped: its stack to offcpu, the
 * thread let go. Returns 1 while it is still to stop. */
static int peek_take(struct perf_src *p, struct loop *s, uint32_t tid)
{
	struct target_stop ts;
	struct loop_regs rg;
	const uint64_t *frames;
	size_t nf;
	int stop, r = target_stopped_thread(p->peek, tid, &ts);

	if (r == -EAGAIN)
		return 1;
	if (r == 0) {
		memset(&rg, 0, sizeof(rg));
		rg.tid = tid;
		rg.arch = ts.arch;
		rg.regs = ts.regs;
		rg.window_addr = ts.window_addr;
		rg.window = ts.window;
		rg.window_len = ts.window_len;
		rg.read = target_read;
		rg.read_ctx = p->peek;
		frames = loop_walk(s, &rg, &nf, &stop);
		if (unwind_leaf_scanned(loop_trail(s), nf))
			loop_counters(s)[TRACE_COUNTER_LEAF_SCANS]++;
		offcpu_read_done(p->off, tid, frames, nf, stop, p->peek_asked);
		target_release_thread(p->peek, tid);
	}
	return 0;
}

/* The threads stopped since the last round (or just tid, if not 0)
 * taken; once none is left, the traced target is let go. */
static void peek_round(struct perf_src *p, struct loop *s, uint32_t tid)
{
	size_t k = 0;

	for (size_t i = 0; i < p->npeek; i++) {
		uint32_t t = p->peek_tids[i];
		if (t && (tid && t != tid ? 1 : peek_take(p, s, t)))
			p->peek_tids[k++] = t;
	}
	p->npeek = k;
	if (!k && p->peek) {
		target_detach(p->peek);
		target_free(p->peek);
		p->peek = NULL;
	}
}

/* A switch out of q's thread, with the registers (and in copy mode the
 * stack) its switch sample took just before in the same ring (so earlier
 * in the sorted round, or carried from the round before). Without one
 * (lost), the interval is not known. The stack is read, or walked, only
 * once a tick of the interval needs it: most switches of a busy server
 * are back on the CPU before the next tick. */
static void switch_out(struct perf_src *p, size_t i)
{
	const struct pending *q = &p->pend[i];
	int preempted = (q->misc & PERF_MISC_SWITCH_OUT_PREEMPT) != 0;
	struct perf_record rec;
	size_t k;

	for (size_t j = i; j-- > 0;) {
		const struct pending *x = &p->pend[j];
		if (x->tid != q->tid)
			continue;
		if (x->type != PEND_SWITCH_STACK)
			return;
		if (p->read_stacks) {
			parse_pending(p, x, &rec);
			if (rec.has_regs)
				offcpu_out_regs(p->off, q->tid, q->time, preempted, &rec.regs);
			return;
		}
		offcpu_out(p->off, q->tid, q->time, preempted, NULL, 0, UNWIND_STOP_END);
		k = lazy_find(p, q->tid);
		if (k == p->nlazy)
			p->lazy = xgrow(p->lazy, &p->lazy_cap, ++p->nlazy, sizeof(*p->lazy));
		p->lazy[k].tid = q->tid;
		p->lazy[k].idx = j;
		return;
	}
}

/* q's thread is back on the CPU: in copy mode its switch-out stack is
 * walked if a tick of the interval needs it. */
static int switch_in(struct perf_src *p, struct loop *s, const struct pending *q)
{
	size_t k = lazy_find(p, q->tid);
	int r;

	if (p->npeek)
		peek_round(p, s, q->tid);

	if (k < p->nlazy) {
		if (offcpu_due(p->off, q->tid, q->time))
			walk_lazy(p, s, k);
		else
			p->lazy[k] = p->lazy[--p->nlazy];
	}
	p->s = s;
	r = offcpu_in(p->off, q->tid, q->time, emit, p);
	count_lost_ticks(p);
	return r;
}

/* Whether process pid still runs after its leader's EXIT record: it
 * exists, is not a zombie and is not exiting (PF_EXITING in the flags of
 * its stat, which is readable whoever it runs as). The kernel writes
 * that record for a process whose exec made it undumpable (another
 * user's set-user-ID program) and stops following it. */
#define PF_EXITING 0x4u
static int still_running(uint32_t pid)
{
	char path[64], buf[512], *q, state;
	unsigned flags;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	q = strrchr(buf, ')');
	if (!q || sscanf(q + 1, " %c %*d %*d %*d %*d %*d %u", &state, &flags) != 2)
		return 0;
	return state != 'Z' && state != 'X' && !(flags & PF_EXITING);
}

/* What record i of the round means to the loop, in time order. */
static int handle(struct perf_src *p, struct loop *s, size_t i)
{
	const struct pending *q = &p->pend[i];
	const uint64_t *frames;
	struct perf_record rec;
	struct images *im;
	size_t n, k;
	int stop, r = advance(p, s, q->time);

	if (r < 0)
		return r;
	switch (q->type) {
	case PERF_REC_SAMPLE:
		/* Started between the threads' listing and the events, or
		 * its fork's record lost. */
		if (!loop_process_known(s, q->pid)) {
			if (hmap_get(&p->ended, q->pid, 0))
				return 0;
			if ((r = loop_process_start(s, q->pid, 0, q->time, target_view((pid_t)q->pid))) < 0)
				return r;
		}
		if (!loop_thread_known(s, q->tid) &&
		    ((r = loop_thread_start(s, q->pid, q->tid, q->time)) < 0 || !loop_thread_known(s, q->tid)))
			return r;
		if (!loop_keeps(s, q->time))
			return 0;  /* paused: not worth its walk */
		frames = walk(p, s, q, &n, &stop);
		return loop_sample(s, q->time, q->tid, TRACE_STATE_RUNNING, q->flags, frames, n, stop);
	case PERF_REC_LOST:
		loop_lost(s, q->value);
		return 0;
	case PERF_REC_THROTTLE:
		loop_counters(s)[TRACE_COUNTER_THROTTLED]++;
		return 0;
	case PERF_REC_MMAP2: {
		struct target_mapping m;

		if (!wanted(p, q->pid) || !(im = loop_images(s, q->pid)))
			return 0;
		parse_pending(p, q, &rec);
		m = (struct target_mapping){ .start = rec.addr, .end = rec.addr + rec.len, .inode = rec.inode,
					     .dev_major = rec.dev_major, .dev_minor = rec.dev_minor,
					     .path = rec.name };
		return images_mapped(im, loop_writer(s), q->time, &m, rec.pgoff);
	}
	case PERF_REC_COMM:
		if (!wanted(p, q->pid))
			return 0;
		if (q->misc & PERF_MISC_COMM_EXEC) {
			r = loop_exec(s, q->pid, q->tid, q->time, p->names + q->off);
			if (r < 0)
				return r;
		}
		return loop_thread_name(s, q->tid, q->time, p->names + q->off);
	case PERF_REC_FORK:
		/* A new process: a child of q->value's. */
		if (q->pid == q->tid && q->value != q->pid) {
			hmap_del(&p->ended, q->pid, 0);
			r = loop_process_start(s, q->pid, (uint32_t)q->value, q->time, target_view((pid_t)q->pid));
			if (r < 0)
				return r;
		}
		r = loop_thread_start(s, q->pid, q->tid, q->time);
		/* Only a thread recorded (-t) has ticks to lose. */
		if (r == 0 && p->off && loop_thread_known(s, q->tid))
			offcpu_created(p->off, q->tid, q->time);
		return r;
	case PERF_REC_EXIT:
		if (p->off) {
			offcpu_forget(p->off, q->tid);
			if ((k = lazy_find(p, q->tid)) < p->nlazy)
				p->lazy[k] = p->lazy[--p->nlazy];
		}
		/* A child ends with its last thread (its leader's end alone
		 * may be a pthread_exit()). A leader whose process still runs
		 * after that ran another user's program (set-user-ID), which
		 * the kernel stopped letting us follow; or (rarely) another
		 * of its threads called execve: it starts again at its next
		 * sample, without its parent. */
		outer_forget(p->outer, q->tid);
		r = loop_thread_end(s, q->tid, q->time);
		if (r < 0 || q->pid == p->pid || !loop_process_known(s, q->pid) ||
		    loop_process_threads(s, q->pid))
			return r;
		if (p->cpu_wide)
			hmap_del(&p->followed, q->pid, 0);
		*hmap_put(&p->ended, q->pid, 0, 1, NULL) = 1;
		return loop_process_end(s, q->pid, q->time,
					q->tid == q->pid && still_running(q->pid) ? TRACE_END_OUT_OF_REACH
										    : TRACE_END_UNTOLD, 0);
	case PERF_REC_SWITCH:
		if (!loop_thread_known(s, q->tid))
			return 0;
		if (q->misc & PERF_MISC_SWITCH_OUT) {
			switch_out(p, i);
			return 0;
		}
		return switch_in(p, s, q);
	default:
		return 0;
	}
}

/*
 * Ends a round, carrying to the next one what it could not handle yet:
 * - a record of drained or later: written while the rings were read, so
 *   an earlier record of another ring may only come in the next drain (a
 *   thread's fork in a ring read before its first switch in one read
 *   after);
 * - a switch-out sample that was the last record its ring held: its
 *   SWITCH record is still to come (the kernel writes the two one after
 *   the other, with nothing between them in that ring, and the drain read
 *   the ring in between). It is carried once; a sample whose SWITCH
 *   record never comes (lost) is dropped at the end of the next round.
 * The bytes (from the ring or raw) and names carried move to the spare
 * buffers, which become the round's.
 */
static void next_round(struct perf_src *p, size_t from)
{
	size_t k = 0, nraw = 0, nnames = 0, cap;
	uint8_t *raw = p->raw;
	char *names = p->names;

	for (size_t i = 0; i < p->npend; i++) {
		struct pending q = p->pend[i];

		if (i < from && !(q.type == PEND_SWITCH_STACK && q.ring_last))
			continue;
		if (q.type == PERF_REC_SAMPLE || q.type == PEND_SWITCH_STACK || q.type == PERF_REC_MMAP2) {
			/* Its ring's space is given back when this round ends. */
			p->spare_raw = xgrow(p->spare_raw, &p->spare_raw_cap, nraw + q.len, 1);
			memcpy(p->spare_raw + nraw, q.bytes ? q.bytes : p->raw + q.off, q.len);
			q.bytes = NULL;
			q.off = nraw;
			nraw += q.len;
		} else if (q.type == PERF_REC_COMM) {
			size_t n = strlen(p->names + q.off) + 1;
			p->spare_names = xgrow(p->spare_names, &p->spare_names_cap, nnames + n, 1);
			memcpy(p->spare_names + nnames, p->names + q.off, n);
			q.off = nnames;
			nnames += n;
		}
		q.seq = k;
		q.ring_last = 0;
		p->pend[k++] = q;
	}
	p->raw = p->spare_raw;
	p->spare_raw = raw;
	cap = p->raw_cap;
	p->raw_cap = p->spare_raw_cap;
	p->spare_raw_cap = cap;
	p->names = p->spare_names;
	p->spare_names = names;
	cap = p->names_cap;
	p->names_cap = p->spare_names_cap;
	p->spare_names_cap = cap;
	p->npend = k;
	p->nraw = nraw;
	p->nnames = nnames;
}

/* The round's records from before drained (all of them if last) in time
 * order; then, in wall mode, the ticks before drained (every switch in
 * before it has been read) of the threads still off the CPU, and at the
 * end every tick of the threads still off the CPU. */
static int handle_pending(struct perf_src *p, struct loop *s, uint64_t drained, int last)
{
	size_t i = 0;
	int r = 0;

	if (p->npend)   /* an empty round may have no array yet */
		qsort(p->pend, p->npend, sizeof(*p->pend), cmp_pending);
	for (; i < p->npend && (last || p->pend[i].time < drained) && r == 0; i++)
		r = handle(p, s, i);
	if (p->off)
		walk_due(p, s, UINT64_MAX);
	next_round(p, i);
	if (r == 0)
		r = advance(p, s, drained);
	if (r == 0 && last && p->off) {
		p->s = s;
		r = offcpu_finish(p->off, drained, emit, p);
		count_lost_ticks(p);
	}
	return r;
}

/* Reads every complete record of one ring into the round; the kernel
 * has their space back when the round is handled (release()). */
static void drain(struct perf_src *p, int kind, struct ring *rg)
{
	struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)rg->base;
	const uint8_t *data = rg->base + pg->data_offset;
	size_t size = rg->data_size;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	size_t last = SIZE_MAX;         /* the round's record of the ring's last one */

	if (pg->data_size)
		size = (size_t)pg->data_size;
	while (tail + PERF_HEADER_BYTES <= head) {
		size_t off = (size_t)(tail % size), len;
		uint8_t hdr[PERF_HEADER_BYTES];
		const uint8_t *rec_p;
		size_t raw_off;
		struct perf_record rec;

		/* Records are 8-byte aligned, so a header never wraps. */
		memcpy(hdr, data + off, sizeof(hdr));
		len = perf_record_size(hdr);
		if (len < PERF_HEADER_BYTES || len > head - tail || len > size)
			break;  /* the kernel never writes this: drop the rest */
		if (off + len <= size) {
			rec_p = data + off;
			raw_off = IN_RING;
		} else {
			size_t first = size - off;
			p->raw = xgrow(p->raw, &p->raw_cap, p->nraw + len, 1);
			raw_off = p->nraw;
			memcpy(p->raw + raw_off, data + off, first);
			memcpy(p->raw + raw_off + first, data, len - first);
			rec_p = p->raw + raw_off;
			p->nraw += len;
		}
		last = p->npend;
		if (parse(kind, rec_p, len, &rec) > 0)
			queue_record(p, kind, &rec, rec_p, len, raw_off);
		tail += len;
	}
	if (last < p->npend)
		p->pend[last].ring_last = 1;
	rg->read = head;
}

/* The rings' records of the round handled, their space is the kernel's. */
static void release(struct perf_src *p)
{
	for (size_t i = 0; i < RING__COUNT * p->ncpus; i++) {
		struct ring *rg = &p->rings[i];
		if (rg->base)
			__atomic_store_n(&((struct perf_event_mmap_page *)rg->base)->data_tail, rg->read,
					 __ATOMIC_RELEASE);
	}
}

/* The next wake-up's step (see READ_NS): the shortest while intervals
 * end before they are read, twice the last after a round in which none
 * did. */
static void pace(struct perf_src *p)
{
	struct offcpu_stats st;
	uint64_t missed, max = p->read_min * ((READ_MAX_NS + p->read_min - 1) / p->read_min);

	offcpu_stats(p->off, &st);
	missed = st.unread + st.reads_late;
	if (missed > p->unread) {
		p->read_step = p->read_min;
		p->clean = 0;
	} else if (++p->clean >= READ_CLEAN && p->read_step < max) {
		p->read_step *= 2;
		p->clean = 0;
	}
	p->unread = missed;
}

/* Reads every ring and handles what was written before the drain began
 * (or, last, everything); then, in wall mode with stacks read, reads the
 * stacks due of the threads that were off the CPU then, most of which
 * still are. */
static int drain_all(struct perf_src *p, struct loop *s, int last)
{
	uint64_t now;
	int r;

	if (p->npeek)
		peek_round(p, s, 0);
	now = loop_now();
	for (size_t i = 0; i < RING__COUNT * p->ncpus; i++)
		if (p->rings[i].base)
			drain(p, (int)(i / p->ncpus), &p->rings[i]);
	r = handle_pending(p, s, now, last);
	release(p);
	if (r == 0 && p->read_stacks && !last) {
		p->s = s;
		offcpu_read(p->off, loop_now(), read_stack, p);
		pace(p);
	}
	return r;
}

/* The process is gone, or a thread the target knew: what the rings hold
 * goes first, so that no sample follows its thread's end. */
static int perf_target_event(struct source *src, struct loop *s, const struct target_event *ev,
			     uint64_t now)
{
	(void)now;
	if (ev->kind == TARGET_EVENT_THREAD_END || ev->kind == TARGET_EVENT_EXIT)
		return drain_all((struct perf_src *)src, s, 0);
	return 0;
}

/* Wall mode: what the rings hold from before goes first, then with -p
 * the threads already blocked. */
static int perf_start(struct source *src, struct loop *s)
{
	struct perf_src *p = (struct perf_src *)src;
	int r;

	if (!p->o.wall)
		return 0;
	r = drain_all(p, s, 0);
	if (r == 0 && !p->o.launched)
		snapshot(p, s, loop_started(s));
	return r;
}

/*
 * How long the loop may sleep between drains: DRAIN_NS, or less at high
 * rates, so that a CPU busy with the target all the time fills at most a
 * quarter of its ring meanwhile. A sample is at most the stack copy, the
 * kernel's callchain and about 100 bytes more; with 32 pages that is about
 * 40 samples a ring. A fixed 10 ms lost samples from 5 kHz up with one
 * busy thread (100 samples of 2-3 KiB every 10 ms at 9973 Hz overflow 128
 * KiB). In wall mode with stacks read, just after the next tick of the
 * grid to read (see READ_NS); with -p a thread at a time, at once while
 * threads are still to open.
 */
static uint64_t perf_next_due(struct source *src, uint64_t now)
{
	struct perf_src *p = (struct perf_src *)src;
	size_t sample_max = STACK_WINDOW + 8 * p->kernel_max_stack + 128;
	size_t per_ring = p->ring_pages * (size_t)sysconf(_SC_PAGESIZE) / sample_max;
	uint64_t ns = (uint64_t)(per_ring / 4 + 1) * 1000000000ull / (p->o.rate_hz ? p->o.rate_hz : 1);
	uint64_t due = now + (ns < DRAIN_NS ? ns : DRAIN_NS);

	if (p->open_next < p->nto_open)
		return now;
	if (p->read_stacks && now >= p->origin + READ_LAG_NS) {
		uint64_t k = (now - p->origin - READ_LAG_NS) / p->read_step + 1;
		uint64_t tick = p->origin + k * p->read_step + READ_LAG_NS;
		if (tick < due)
			due = tick;
	}
	return due;
}

static void perf_wait(struct source *src, uint64_t deadline, const volatile sig_atomic_t *stop)
{
	struct perf_src *p = (struct perf_src *)src;
	uint64_t now = loop_now();
	struct timespec ts = { 0, 0 };

	(void)stop;
	if (deadline > now) {
		ts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
		ts.tv_nsec = (long)((deadline - now) % 1000000000ull);
	}
	child_signalled = 0;
	ppoll(NULL, 0, &ts, &p->wait_mask);
}

static int perf_take(struct source *src, struct loop *s, uint64_t now)
{
	struct perf_src *p = (struct perf_src *)src;
	int r = 0;

	(void)now;
	if (p->open_next < p->nto_open)
		r = open_more(p, OPEN_BATCH);
	if (r < 0) {
		loop_target_failed(s, r);
		return 0;
	}
	return drain_all(p, s, 0);
}

/* The process's CPU time in nanoseconds (all its threads, live or
 * ended), from /proc/PID/stat's utime and stime; 0 if unknown. */
static uint64_t proc_cpu_ns(uint32_t pid)
{
	char path[64], buf[1024], *q;
	unsigned long long ut, st;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* Fields 14 and 15, after the name's closing parenthesis and 11 more. */
	if (!(q = strrchr(buf, ')')) ||
	    sscanf(q + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2 || hz <= 0)
		return 0;
	return (ut + st) * (1000000000ull / (unsigned long long)hz);
}

/* The target's time on a CPU while it was sampled, for the rate
 * achieved: the count of each cpu-clock event of the process's (its CPU
 * nanoseconds, inherited threads' included), or with the CPUs' events
 * the process's own account since the start. */
static uint64_t sampled_cpu_ns(struct perf_src *p)
{
	uint64_t sum = 0, v;

	if (p->cpu_wide) {
		v = proc_cpu_ns(p->pid);
		return v > p->cpu_ns_start ? v - p->cpu_ns_start : 0;
	}
	for (size_t i = 0; i < p->nclock; i++)
		if (read(p->clock_fds[i], &v, sizeof(v)) == (ssize_t)sizeof(v))
			sum += v;
	return sum;
}

/* The kernel goes on sampling through a pause (its rings must still be
 * drained, and the loop drops those samples): only its CPU time is left
 * out of the rate's account. */
static void perf_pause(struct source *src, int paused, uint64_t now)
{
	struct perf_src *p = (struct perf_src *)src;
	uint64_t cpu = sampled_cpu_ns(p);

	(void)now;
	if (paused)
		p->pause_cpu_ns = cpu;
	else if (cpu > p->pause_cpu_ns)
		p->paused_cpu_ns += cpu - p->pause_cpu_ns;
	p->paused = paused;
}

/* The counters only the source knows: the CPU time sampled (less a
 * pause's, one still going included), the kernel's sample-rate limit,
 * which it lowers when sampling takes too long, and wall mode's reads. */
static void perf_counters(struct source *src, uint64_t *c)
{
	struct perf_src *p = (struct perf_src *)src;
	uint64_t cpu = sampled_cpu_ns(p), paused = p->paused_cpu_ns;

	if (p->paused && cpu > p->pause_cpu_ns)
		paused += cpu - p->pause_cpu_ns;
	c[TRACE_COUNTER_CPU_NS] = cpu - (paused < cpu ? paused : cpu);
	c[TRACE_COUNTER_MAX_SAMPLE_RATE] = read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 0);
	if (p->off) {
		struct offcpu_stats st;

		offcpu_stats(p->off, &st);
		c[TRACE_COUNTER_STACKS_READ] = st.reads;
		c[TRACE_COUNTER_STACKS_REUSED] = st.reused;
		c[TRACE_COUNTER_UNSTARTED] = st.ticks_unstarted;
	}
}

/* What was left in the rings. */
static int perf_finish(struct source *src, struct loop *s, uint64_t now)
{
	struct perf_src *p = (struct perf_src *)src;
	int r = drain_all(p, s, 1);

	if (p->paused)
		perf_pause(src, 0, now);
	return r;
}

static void perf_release(struct source *src)
{
	struct perf_src *p = (struct perf_src *)src;

	close_all(p);
	offcpu_free(p->off);
	if (p->peek) {
		target_detach(p->peek);
		target_free(p->peek);
	}
	free(p->peek_tids);
	sigprocmask(SIG_SETMASK, &p->old_mask, NULL);
	sigaction(SIGCHLD, &p->old_sa, NULL);
	free(p->rings);
	free(p->cpus);
	free(p->fds);
	free(p->clock_fds);
	free(p->to_open);
	free(p->pend);
	free(p->lazy);
	free(p->raw);
	free(p->spare_raw);
	free(p->spare_names);
	free(p->names);
	free(p->chain);
	hmap_release(&p->followed);
	hmap_release(&p->unreadable);
	outer_free(p->outer);
	free(p->snap);
	free(p->at);
	hmap_release(&p->ended);
	free(p);
}

static const struct source_ops perf_ops = {
	.start = perf_start,
	.next_due = perf_next_due,
	.wait = perf_wait,
	.take = perf_take,
	.target_event = perf_target_event,
	.pause = perf_pause,
	.finish = perf_finish,
	.counters = perf_counters,
	.release = perf_release,
};

/* Whether the kernel lets us sample a whole CPU (with -p, the CPUs'
 * events filtered to the process stand for one per thread): as
 * kernel.perf_event_paranoid 0 or less, CAP_PERFMON or root allow. */
static int cpu_wide_allowed(const struct source_perf_options *o)
{
	struct perf_event_attr a;
	int fd;

	attr_init(&a, o);
	a.inherit = 0;
	a.disabled = 1;
	fd = event_open(&a, -1, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* Whether the memory of process pid can be read (kernel.yama.ptrace_scope
 * and the capabilities decide): tried on the first mapping its maps list. */
static int memory_readable(uint32_t pid)
{
	char path[64];
	unsigned long long start;
	uint8_t byte;
	pid_t id = (pid_t)pid;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	ok = fscanf(f, "%llx-", &start) == 1;
	fclose(f);
	return ok && memory_read_pid(&id, start, &byte, 1) == 0;
}

int source_perf_new(struct target *t, const struct source_perf_options *o, struct source **out)
{
	struct perf_src *p = xcalloc(1, sizeof(*p));
	struct sigaction sa;
	sigset_t block;
	const uint32_t *tids;
	size_t ntids = target_threads(t, &tids);
	int r = 0;

	p->src.ops = &perf_ops;
	p->t = t;
	p->o = *o;
	p->pid = (uint32_t)target_pid(t);
	p->ring_pages = RING_PAGES;
	p->kernel_max_stack = read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127);
	p->ncpus = online_cpus(&p->cpus);
	p->rings = xcalloc(RING__COUNT * p->ncpus, sizeof(*p->rings));
	p->read_stacks = o->wall && memory_readable(p->pid);
	p->cpu_wide = !o->launched && cpu_wide_allowed(o);
	hmap_init(&p->followed);
	hmap_init(&p->ended);
	hmap_init(&p->unreadable);
	p->outer = outer_new();
	if (p->cpu_wide)
		p->cpu_ns_start = proc_cpu_ns(p->pid);
	/* A launched command has one thread yet: its events, inherited,
	 * cover the rest. With -p, the CPUs', or each thread's: as many as
	 * fit in a batch now, the rest between drains. */
	if (o->launched || p->cpu_wide) {
		r = open_thread(p, o->launched ? (pid_t)p->pid : -1);
	} else {
		p->to_open = xmalloc((ntids + 1) * sizeof(*p->to_open));
		memcpy(p->to_open, tids, ntids * sizeof(*tids));
		p->nto_open = ntids;
		while (r == 0 && !p->nfds && p->open_next < p->nto_open)
			r = open_more(p, OPEN_BATCH);
		if (r == 0 && !p->nfds)
			r = -ESRCH;
	}
	if (r < 0) {
		close_all(p);
		free(p->rings);
		free(p->cpus);
		free(p->fds);
		free(p->clock_fds);
		free(p->to_open);
		free(p);
		return r;
	}
	/* SIGCHLD (a launched command ended) wakes the sleep and only the
	 * sleep: blocked elsewhere, so no other call sees an EINTR it does
	 * not expect. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &p->old_sa);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &p->old_mask);
	p->wait_mask = p->old_mask;
	sigdelset(&p->wait_mask, SIGCHLD);
	/* Wall mode's grid starts with the events: the loop may drain them
	 * before its start (a command that exits at once is reported so,
	 * with its switches in the rings). Its wake-ups come on time: the
	 * kernel's default slack of 50 us is a twentieth of a tick. */
	if (o->wall) {
		p->origin = p->next_tick = loop_now();
		p->period = 1000000000ull / (o->rate_hz ? o->rate_hz : 1);
		p->read_min = p->read_step = p->period * ((READ_NS + p->period - 1) / p->period);
		p->off = offcpu_new(p->period, p->origin);
		prctl(PR_SET_TIMERSLACK, 1UL);
	}
	*out = &p->src;
	return 0;
}
