/*
 * sampler_perf_linux.c: the perf_event source of samples, cpu mode on
 * Linux, with perf_event_open(2).
 *
 * Each thread of the target gets one software cpu-clock event (pid = tid,
 * cpu = -1) in frequency mode at -F Hz, user space only, and its own ring
 * buffer. A sample carries the tid, a CLOCK_MONOTONIC time, the kernel's
 * user-space frame-pointer callchain, the registers of perf_regs_mask(), and
 * a small copy of the stack from sp (STACK_WINDOW bytes). The recorder
 * walks that copy with unwind_stack(), which adds the caller of a
 * frameless leaf that the kernel's walk loses, and where the copy ends it
 * continues with the kernel's callchain from the frame both have. Only
 * addresses reach the trace; the stack copies stay in memory.
 *
 * Threads are followed through the ptrace target (target_linux_ptrace.c),
 * which stays attached but never stops a thread to sample it: its clone
 * event names a new thread before it runs user code, so its event is opened
 * at once. The kernel's own ways are worse here: an inherited event cannot
 * be mmapped per thread (perf_mmap refuses inherit with cpu -1), and
 * PERF_RECORD_FORK arrives only when the parent's buffer is next drained.
 * The events still ask for FORK, EXIT, COMM and MMAP2 records: EXIT ends a
 * thread, COMM records renames and execs, MMAP2 of executable code brings
 * the image table up to date (images_linux.c reads the build-id) before the
 * samples that need it are written. PERF_RECORD_LOST adds to the
 * samples-lost counter.
 *
 * Between drains the loop (sampler.c) sleeps in ppoll() for
 * drain_period(), or until SIGCHLD says the ptrace target has something to
 * answer; each drain reads every buffer, sorts the round's samples by time
 * (the trace codes time deltas) and writes them.
 */
#include "sampler_perf.h"
#include "perf.h"
#include "unwind.h"
#include "common/diag.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * Bytes of stack copied per sample. Measured on the fixtures with a 16 KiB
 * copy: the first frame record, which the leaf heuristic scans up to, lay
 * at most 184 bytes above sp (split 176, threads 176, demo 176, frameless
 * 184), but the CFI walk through libc's frames, which keep no frame
 * pointer, needs more: the caller of qsort was 1512 bytes above sp at most
 * (p50 840). 2 KiB holds that; the kernel's callchain gives the rest. On
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
#define RING_PAGES 32           /* data pages per thread; halved when refused */
#define DRAIN_NS (10 * 1000000ull)  /* the longest sleep between drains */

struct pthread {
	uint32_t tid;
	int fd;
	uint8_t *base;          /* the mmapped control page and ring */
	size_t map_len, data_size;
};

struct pending {
	uint64_t time;
	uint32_t tid;
	uint8_t flags;
	int stop;               /* enum unwind_stop */
	size_t off, n;          /* frames in pool */
	size_t seq;
};

struct perf_src {
	struct sampler_source src;
	struct target *t;
	uint32_t rate_hz;
	struct pthread *th;
	size_t nth, th_cap;
	size_t opened;          /* threads whose event was opened */
	struct pending *pend;
	size_t npend, pend_cap;
	uint64_t *pool;
	size_t npool, pool_cap;
	uint64_t *chain;
	size_t chain_cap;
	uint8_t *scratch;       /* a record that wraps the ring's end */
	size_t scratch_cap;
	size_t kernel_max_stack;
	size_t ring_pages;
	int open_error;         /* the first perf_event_open failure */
	int started;            /* past the events queued before the run */
	struct sigaction old_sa;
	sigset_t old_mask, wait_mask;
};

static volatile sig_atomic_t child_signalled;

static void on_child(int sig)
{
	(void)sig;
	child_signalled = 1;
}

static void attr_init(struct perf_event_attr *a, uint32_t rate_hz)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->freq = 1;
	a->sample_freq = rate_hz;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = perf_regs_mask(PERF_ARCH);
	a->sample_stack_user = STACK_WINDOW;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

static int event_open(pid_t tid, uint32_t rate_hz)
{
	struct perf_event_attr a;
	long fd;

	attr_init(&a, rate_hz);
	fd = syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
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

int sampler_perf_probe(pid_t pid, uint32_t rate_hz)
{
	int fd = event_open(pid, rate_hz);

	if (fd == -EINVAL &&
	    rate_hz > read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 100000))
		return SAMPLER_PERF_E_RATE;
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static struct pthread *find(struct perf_src *p, uint32_t tid)
{
	for (size_t i = 0; i < p->nth; i++)
		if (p->th[i].tid == tid)
			return &p->th[i];
	return NULL;
}

/* Opens and maps tid's event into *pt. Returns 0, or -1 when it cannot
 * (a thread already gone is counted; the first other refusal is kept). */
static int open_ring(struct perf_src *p, struct sampler *s, uint32_t tid, struct pthread *pt)
{
	int fd = event_open((pid_t)tid, sampler_config(s)->rate_hz);

	if (fd < 0) {
		if (fd == -ESRCH)
			sampler_counters(s)[TRACE_COUNTER_THREADS_VANISHED]++;
		else if (!p->open_error)
			p->open_error = fd;
		return -1;
	}
	pt->tid = tid;
	pt->fd = fd;
	/* Without CAP_IPC_LOCK, ring buffers count against
	 * perf_event_mlock_kb: smaller ones lose more, but still sample. */
	for (;;) {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		pt->data_size = p->ring_pages * page;
		pt->map_len = pt->data_size + page;
		pt->base = mmap(NULL, pt->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (pt->base != MAP_FAILED)
			return 0;
		if ((errno != EPERM && errno != ENOMEM) || p->ring_pages == 1)
			break;
		p->ring_pages /= 2;
	}
	if (!p->open_error)
		p->open_error = SAMPLER_PERF_E_MLOCK;
	close(fd);
	return -1;
}

/* Opens the event of a new thread. One that cannot be sampled is left
 * out, which is not an error. */
static void open_thread(struct perf_src *p, struct sampler *s, uint32_t tid)
{
	struct pthread pt;

	if (!sampler_selected(s, tid) || find(p, tid))
		return;
	memset(&pt, 0, sizeof(pt));
	if (open_ring(p, s, tid, &pt) < 0)
		return;
	p->th = xgrow(p->th, &p->th_cap, p->nth + 1, sizeof(*p->th));
	p->th[p->nth++] = pt;
	p->opened++;
}

static void unmap(struct pthread *pt)
{
	munmap(pt->base, pt->map_len);
	close(pt->fd);
}

/*
 * The stack of one sample: the walk of the copied window, continued with
 * the kernel's callchain from the last frame the walk found, if the
 * kernel's chain has it. Without a window, the kernel's chain alone.
 * *stop is the enum unwind_stop to count.
 */
static const uint64_t *build_stack(struct perf_src *p, struct sampler *s, const struct perf_record *rec,
				   size_t *np, int *stop)
{
	size_t max = sampler_config(s)->max_depth ? sampler_config(s)->max_depth : 1, nk = rec->nips, n = 0;
	uint64_t *frames = NULL;

	p->chain = xgrow(p->chain, &p->chain_cap, nk + 1, sizeof(*p->chain));
	for (size_t i = 0; i < nk; i++)
		p->chain[i] = perf_ip(rec, i);
	*stop = UNWIND_STOP_END;
	if (rec->has_regs && rec->stack_len >= 8) {
		struct sampler_regs r = { .arch = PERF_ARCH, .regs = rec->regs,
					  .window_addr = rec->regs.sp, .window = rec->stack,
					  .window_len = rec->stack_len };

		frames = sampler_walk(s, &r, &n, stop);
		if (*stop == UNWIND_STOP_END || *stop == UNWIND_STOP_DEPTH || n == 0)
			goto out;
		/* The walk left the window or broke: the kernel read on from
		 * bp, so continue with its chain after the frame both have. */
		for (size_t j = 0; j < nk; j++) {
			if (p->chain[j] != frames[n - 1])
				continue;
			if (j + 1 >= nk)
				goto out;
			while (++j < nk && n < max)
				frames[n++] = p->chain[j];
			*stop = j < nk || nk >= p->kernel_max_stack ? UNWIND_STOP_DEPTH : UNWIND_STOP_END;
			goto out;
		}
		/* No frame in common, so the walks disagree: the kernel's
		 * frame-pointer chain is the one to trust when it is longer. */
		if (nk <= n)
			goto out;
	}
	frames = p->chain;
	for (n = 0; n < nk && n < max; n++)
		;
	*stop = n < nk || nk >= p->kernel_max_stack ? UNWIND_STOP_DEPTH : UNWIND_STOP_END;
out:
	*np = n;
	return frames;
}

static void queue_sample(struct perf_src *p, struct sampler *s, const struct perf_record *rec)
{
	int stop;
	size_t n;
	const uint64_t *frames = build_stack(p, s, rec, &n, &stop);
	struct pending *q;

	p->pool = xgrow(p->pool, &p->pool_cap, p->npool + n + 1, sizeof(*p->pool));
	memcpy(p->pool + p->npool, frames, n * sizeof(*p->pool));
	p->pend = xgrow(p->pend, &p->pend_cap, p->npend + 1, sizeof(*p->pend));
	q = &p->pend[p->npend];
	q->time = rec->time;
	q->tid = rec->tid;
	q->flags = 0;
	q->stop = stop;
	q->off = p->npool;
	q->n = n;
	q->seq = p->npend++;
	p->npool += n;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int write_pending(struct perf_src *p, struct sampler *s)
{
	int r = 0;

	if (!p->npend)
		return 0;
	qsort(p->pend, p->npend, sizeof(*p->pend), cmp_pending);
	for (size_t i = 0; i < p->npend && r == 0; i++) {
		struct pending *q = &p->pend[i];
		r = sampler_sample(s, q->time, q->tid, TRACE_STATE_RUNNING, q->flags, p->pool + q->off,
				   q->n, q->stop);
	}
	p->npend = 0;
	p->npool = 0;
	return r;
}

static int handle_record(struct perf_src *p, struct sampler *s, const struct perf_record *rec, int *ended)
{
	uint64_t now = rec->time ? rec->time : sampler_now();

	switch (rec->type) {
	case PERF_REC_SAMPLE:
		queue_sample(p, s, rec);
		return 0;
	case PERF_REC_LOST:
		sampler_lost(s, rec->lost);
		return 0;
	case PERF_REC_MMAP2:
		if (!(rec->prot & PROT_EXEC))
			return 0;
		return sampler_images_changed(s, now);
	case PERF_REC_COMM:
		if (rec->misc & PERF_MISC_COMM_EXEC) {
			int r = sampler_images_changed(s, now);
			if (r < 0)
				return r;
		}
		return sampler_thread_name(s, rec->tid, now, rec->name);
	case PERF_REC_FORK:
		/* A thread of ours: ptrace has usually told us already. */
		if (rec->pid == (uint32_t)target_pid(p->t) && sampler_selected(s, rec->tid)) {
			open_thread(p, s, rec->tid);
			return sampler_thread_start(s, rec->tid, now);
		}
		return 0;
	case PERF_REC_EXIT:
		*ended = 1;
		return 0;
	default:
		return 0;
	}
}

/* Reads every complete record of one thread's ring. *ended is set when its
 * EXIT record was among them. */
static int drain(struct perf_src *p, struct sampler *s, struct pthread *pt, int *ended)
{
	struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)pt->base;
	const uint8_t *data = pt->base + pg->data_offset;
	size_t size = pt->data_size;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	int r = 0, torn = 0;

	if (pg->data_size)
		size = (size_t)pg->data_size;
	*ended = 0;
	while (r == 0 && !torn && tail + PERF_HEADER_BYTES <= head) {
		size_t off = (size_t)(tail % size), len;
		uint8_t hdr[PERF_HEADER_BYTES];
		const uint8_t *rec_p;
		struct perf_record rec;

		/* Records are 8-byte aligned, so a header never wraps. */
		memcpy(hdr, data + off, sizeof(hdr));
		len = perf_record_size(hdr);
		if (len < PERF_HEADER_BYTES || len > head - tail || len > size) {
			torn = 1;  /* the kernel never writes this: drop the rest */
			break;
		}
		if (off + len <= size) {
			rec_p = data + off;
		} else {
			size_t first = size - off;
			p->scratch = xgrow(p->scratch, &p->scratch_cap, len, 1);
			memcpy(p->scratch, data + off, first);
			memcpy(p->scratch + first, data, len - first);
			rec_p = p->scratch;
		}
		if (perf_parse_record(rec_p, len, PERF_ARCH, &rec) > 0)
			r = handle_record(p, s, &rec, ended);
		tail += len;
	}
	if (torn || r < 0 || tail + PERF_HEADER_BYTES > head)
		tail = head;
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return r;
}

static int thread_end(struct perf_src *p, struct sampler *s, uint32_t tid, uint64_t now)
{
	struct pthread *pt = find(p, tid);
	int ended, r;

	if (!pt)
		return 0;
	r = drain(p, s, pt, &ended);
	pt = find(p, tid);  /* draining may have added threads */
	unmap(pt);
	*pt = p->th[--p->nth];
	/* Its samples go before its end. */
	if (r == 0)
		r = write_pending(p, s);
	if (r == 0)
		r = sampler_thread_end(s, tid, now);
	return r;
}

/*
 * After an execve only the leader's tid remains, and if another thread
 * called it, the leader's task (and its event) is gone and that thread
 * carries on under the leader's tid. So the leader's event is opened anew,
 * after what its old ring holds is read.
 */
static int exec_leader(struct perf_src *p, struct sampler *s, uint32_t tid, uint64_t now)
{
	struct pthread *pt = find(p, tid), fresh;
	int ended, r;

	if (!pt || !p->started)  /* the launch's own execve: the event came after */
		return 0;
	r = drain(p, s, pt, &ended);
	if (r < 0)
		return r;
	memset(&fresh, 0, sizeof(fresh));
	if (open_ring(p, s, tid, &fresh) < 0)
		return thread_end(p, s, tid, now);
	pt = find(p, tid);
	unmap(pt);
	*pt = fresh;
	return 0;
}

static int drain_all(struct perf_src *p, struct sampler *s)
{
	int r = 0;

	for (size_t i = 0; i < p->nth && r == 0;) {
		int ended = 0;
		uint32_t tid = p->th[i].tid;
		r = drain(p, s, &p->th[i], &ended);
		/* The leader ends with the process, as ptrace reports it: its
		 * EXIT record may only be an execve from another thread. */
		if (r == 0 && ended && tid != (uint32_t)target_pid(p->t)) {
			r = thread_end(p, s, tid, sampler_now());
			continue;  /* slot i now holds another thread */
		}
		i++;
	}
	if (r == 0)
		r = write_pending(p, s);
	return r;
}

/* A target event, before the loop records it: a new thread's event is
 * opened, an ended thread's ring read to its end, an exec'd leader's
 * event opened anew. */
static int perf_target_event(struct sampler_source *src, struct sampler *s, const struct target_event *ev,
			     uint64_t now)
{
	struct perf_src *p = (struct perf_src *)src;

	switch (ev->kind) {
	case TARGET_EVENT_THREAD_START:
		open_thread(p, s, ev->tid);
		return 0;
	case TARGET_EVENT_THREAD_END:
		return thread_end(p, s, ev->tid, now);
	case TARGET_EVENT_EXEC:
		return exec_leader(p, s, ev->tid, now);
	default:
		return 0;
	}
}

static int perf_start(struct sampler_source *src, struct sampler *s)
{
	struct perf_src *p = (struct perf_src *)src;

	p->rate_hz = sampler_config(s)->rate_hz;
	p->started = 1;
	return 0;
}

/*
 * How long the loop may sleep between drains: DRAIN_NS, or less at high
 * rates, so that a thread on a CPU all the time fills at most a quarter of
 * its ring meanwhile. A sample is at most the stack copy, the kernel's
 * callchain and about 100 bytes more; with 32 pages that is about 40
 * samples a ring. A fixed 10 ms lost samples from 5 kHz up with one busy
 * thread (100 samples of 2-3 KiB every 10 ms at 9973 Hz overflow 128 KiB).
 */
static uint64_t perf_next_due(struct sampler_source *src, uint64_t now)
{
	struct perf_src *p = (struct perf_src *)src;
	size_t sample_max = STACK_WINDOW + 8 * p->kernel_max_stack + 128;
	size_t per_ring = p->ring_pages * (size_t)sysconf(_SC_PAGESIZE) / sample_max;
	uint64_t ns = (uint64_t)(per_ring / 4 + 1) * 1000000000ull / (p->rate_hz ? p->rate_hz : 1);

	return now + (ns < DRAIN_NS ? ns : DRAIN_NS);
}

static void perf_wait(struct sampler_source *src, uint64_t deadline, const volatile sig_atomic_t *stop)
{
	struct perf_src *p = (struct perf_src *)src;
	uint64_t now = sampler_now();
	struct timespec ts = { 0, 0 };

	(void)stop;
	if (deadline > now) {
		ts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
		ts.tv_nsec = (long)((deadline - now) % 1000000000ull);
	}
	child_signalled = 0;
	ppoll(NULL, 0, &ts, &p->wait_mask);
}

static int perf_take(struct sampler_source *src, struct sampler *s, uint64_t now)
{
	(void)now;
	return drain_all((struct perf_src *)src, s);
}

static int perf_finish(struct sampler_source *src, struct sampler *s, uint64_t now)
{
	(void)now;
	return drain_all((struct perf_src *)src, s);
}

static void perf_release(struct sampler_source *src)
{
	struct perf_src *p = (struct perf_src *)src;

	for (size_t i = 0; i < p->nth; i++)
		unmap(&p->th[i]);
	sigprocmask(SIG_SETMASK, &p->old_mask, NULL);
	sigaction(SIGCHLD, &p->old_sa, NULL);
	free(p->th);
	free(p->pend);
	free(p->pool);
	free(p->chain);
	free(p->scratch);
	free(p);
}

static const struct sampler_source_ops perf_ops = {
	.start = perf_start,
	.next_due = perf_next_due,
	.wait = perf_wait,
	.take = perf_take,
	.target_event = perf_target_event,
	.finish = perf_finish,
	.release = perf_release,
};

struct sampler_source *sampler_perf_new(struct target *t)
{
	struct perf_src *p = xcalloc(1, sizeof(*p));
	struct sigaction sa;
	sigset_t block;

	p->src.ops = &perf_ops;
	p->t = t;
	p->ring_pages = RING_PAGES;
	p->kernel_max_stack = read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127);
	/* SIGCHLD (a ptrace stop to answer) wakes the sleep and only the
	 * sleep: blocked elsewhere, so the target layer's waits see no EINTR
	 * they do not expect. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &p->old_sa);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &p->old_mask);
	p->wait_mask = p->old_mask;
	sigdelset(&p->wait_mask, SIGCHLD);
	return &p->src;
}

int sampler_perf_error(const struct sampler_source *src, size_t *opened)
{
	const struct perf_src *p = (const struct perf_src *)src;
	*opened = p->opened;
	return p->open_error;
}
