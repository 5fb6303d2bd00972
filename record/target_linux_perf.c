/*
 * target_linux_perf.c: cpu mode on Linux, with perf_event_open(2).
 *
 * Each thread of the target gets one software cpu-clock event (pid = tid,
 * cpu = -1) in frequency mode at -F Hz, user space only, and its own ring
 * buffer. A sample carries the tid, a CLOCK_MONOTONIC time, the kernel's
 * user-space frame-pointer callchain, the user registers bp, sp and ip, and
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
 * The loop sleeps in ppoll() for drain_period(), or until SIGCHLD says the
 * ptrace target has something to answer, drains every buffer, sorts the
 * round's samples by time (the trace codes time deltas) and writes them.
 */
#include "perf_sampler.h"
#include "perf.h"
#include "images.h"
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
#define RING_PAGES 32           /* data pages per thread; halved when refused */
#define DRAIN_NS (10 * 1000000ull)  /* the longest sleep between drains */
#define NAME_BYTES 64

struct pthread {
	uint32_t tid;
	int fd;
	uint8_t *base;          /* the mmapped control page and ring */
	size_t map_len, data_size;
	char name[NAME_BYTES];
};

struct pending {
	uint64_t time;
	uint32_t tid;
	uint8_t flags;
	size_t off, n;          /* frames in run.pool */
	size_t seq;
};

struct run {
	const struct sampler_config *cfg;
	struct target *t;
	struct trace_writer *w;
	struct sampler_stats *st;
	struct images *images;
	struct pthread *th;
	size_t nth, th_cap;
	struct pending *pend;
	size_t npend, pend_cap;
	uint64_t *pool;
	size_t npool, pool_cap;
	uint64_t *frames, *chain;
	size_t chain_cap;
	uint8_t *scratch;       /* a record that wraps the ring's end */
	size_t scratch_cap;
	size_t kernel_max_stack;
	size_t ring_pages;
	uint64_t next_refresh;
	int open_error;         /* the first perf_event_open failure */
	int started;            /* past the events queued before the run */
	int exited;
};

static volatile sig_atomic_t child_signalled;

static void on_child(int sig)
{
	(void)sig;
	child_signalled = 1;
}

const char *perf_sampler_strerror(int err)
{
	switch (err) {
	case PERF_SAMPLER_E_RATE: return "the rate is above kernel.perf_event_max_sample_rate";
	case PERF_SAMPLER_E_MLOCK: return "no room for a ring buffer (see kernel.perf_event_mlock_kb)";
	default: return err <= PERF_E_CORRUPT && err > PERF_E_CORRUPT - 100 ? perf_strerror(err)
								       : strerror(-err);
	}
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
	a->sample_regs_user = PERF_REGS_X86_64;
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

int perf_sampler_probe(pid_t pid, uint32_t rate_hz)
{
	int fd = event_open(pid, rate_hz);

	if (fd == -EINVAL &&
	    rate_hz > read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 100000))
		return PERF_SAMPLER_E_RATE;
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static struct pthread *find(struct run *l, uint32_t tid)
{
	for (size_t i = 0; i < l->nth; i++)
		if (l->th[i].tid == tid)
			return &l->th[i];
	return NULL;
}

/* Records the thread's current name if it is new or changed. */
static int set_name(struct run *l, struct pthread *p, const char *name, uint64_t now)
{
	if (strcmp(p->name, name) == 0)
		return 0;
	snprintf(p->name, sizeof(p->name), "%s", name);
	return trace_writer_thread_name(l->w, p->tid, now, p->name);
}

static int check_name(struct run *l, struct pthread *p, uint64_t now)
{
	char name[NAME_BYTES];

	if (target_thread_name(l->t, p->tid, name, sizeof(name)) < 0)
		return 0;
	return set_name(l, p, name, now);
}

/* Opens and maps tid's event into *p. Returns 0, or -1 when it cannot
 * (a thread already gone is counted; the first other refusal is kept). */
static int open_ring(struct run *l, uint32_t tid, struct pthread *p)
{
	int fd = event_open((pid_t)tid, l->cfg->rate_hz);

	if (fd < 0) {
		if (fd == -ESRCH)
			l->st->counters[TRACE_COUNTER_THREADS_VANISHED]++;
		else if (!l->open_error)
			l->open_error = fd;
		return -1;
	}
	p->tid = tid;
	p->fd = fd;
	/* Without CAP_IPC_LOCK, ring buffers count against
	 * perf_event_mlock_kb: smaller ones lose more, but still sample. */
	for (;;) {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		p->data_size = l->ring_pages * page;
		p->map_len = p->data_size + page;
		p->base = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p->base != MAP_FAILED)
			return 0;
		if ((errno != EPERM && errno != ENOMEM) || l->ring_pages == 1)
			break;
		l->ring_pages /= 2;
	}
	if (!l->open_error)
		l->open_error = PERF_SAMPLER_E_MLOCK;
	close(fd);
	return -1;
}

/* Opens the event of a new thread and records the thread. One that cannot
 * be sampled is left out, which is not an error. */
static int thread_start(struct run *l, uint32_t tid, uint64_t now)
{
	struct pthread p;
	int r;

	if (!sampler_selected(l->cfg, tid) || find(l, tid))
		return 0;
	memset(&p, 0, sizeof(p));
	if (open_ring(l, tid, &p) < 0)
		return 0;
	l->th = xgrow(l->th, &l->th_cap, l->nth + 1, sizeof(*l->th));
	l->th[l->nth++] = p;
	l->st->threads++;
	r = trace_writer_thread_start(l->w, tid, now);
	if (r == 0)
		r = check_name(l, &l->th[l->nth - 1], now);
	return r;
}

static void unmap(struct pthread *p)
{
	munmap(p->base, p->map_len);
	close(p->fd);
}

/*
 * The stack of one sample into l->frames: the walk of the copied window,
 * continued with the kernel's callchain from the last frame the walk
 * found, if the kernel's chain has it. Without a window, the kernel's
 * chain alone. *stop is the enum unwind_stop to count.
 */
static size_t build_stack(struct run *l, const struct perf_record *rec, int *stop)
{
	size_t max = l->cfg->max_depth ? l->cfg->max_depth : 1, nk = rec->nips, n = 0;

	l->chain = xgrow(l->chain, &l->chain_cap, nk + 1, sizeof(*l->chain));
	for (size_t i = 0; i < nk; i++)
		l->chain[i] = perf_ip(rec, i);
	if (rec->has_regs && rec->stack_len >= 8) {
		struct unwind_config uc = { .arch = UNWIND_ARCH_X86_64, .max_depth = max };
		struct unwind_memory mem = { .read = NULL, .window_addr = rec->sp,
					     .window = rec->stack, .window_len = rec->stack_len };
		struct unwind_regs regs = { .pc = rec->ip, .sp = rec->sp, .fp = rec->bp };

		images_unwind_hooks(l->images, &uc);
		*stop = unwind_stack(&uc, &regs, &mem, l->frames, &n);
		if (*stop == UNWIND_STOP_END || *stop == UNWIND_STOP_DEPTH || n == 0)
			return n;
		/* The walk left the window or broke: the kernel read on from
		 * bp, so continue with its chain after the frame both have. */
		for (size_t j = 0; j < nk; j++) {
			if (l->chain[j] != l->frames[n - 1])
				continue;
			if (j + 1 >= nk)
				return n;
			while (++j < nk && n < max)
				l->frames[n++] = l->chain[j];
			*stop = j < nk || nk >= l->kernel_max_stack ? UNWIND_STOP_DEPTH : UNWIND_STOP_END;
			return n;
		}
		/* No frame in common, so the walks disagree: the kernel's
		 * frame-pointer chain is the one to trust when it is longer. */
		if (nk <= n)
			return n;
	}
	for (n = 0; n < nk && n < max; n++)
		l->frames[n] = l->chain[n];
	*stop = n < nk || nk >= l->kernel_max_stack ? UNWIND_STOP_DEPTH : UNWIND_STOP_END;
	return n;
}

static int queue_sample(struct run *l, const struct perf_record *rec)
{
	int stop = UNWIND_STOP_END;
	size_t n = build_stack(l, rec, &stop);
	struct pending *p;
	int r;

	l->st->counters[unwind_stop_counter(stop)]++;
	r = sampler_refresh_images(l->images, l->w, l->frames, n, rec->time, &l->next_refresh);
	if (r < 0)
		return r;
	l->pool = xgrow(l->pool, &l->pool_cap, l->npool + n + 1, sizeof(*l->pool));
	memcpy(l->pool + l->npool, l->frames, n * sizeof(*l->pool));
	l->pend = xgrow(l->pend, &l->pend_cap, l->npend + 1, sizeof(*l->pend));
	p = &l->pend[l->npend];
	p->time = rec->time;
	p->tid = rec->tid;
	p->flags = stop == UNWIND_STOP_DEPTH ? TRACE_SAMPLE_TRUNCATED : 0;
	p->off = l->npool;
	p->n = n;
	p->seq = l->npend++;
	l->npool += n;
	return 0;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int write_pending(struct run *l)
{
	int r = 0;

	if (!l->npend)
		return 0;
	qsort(l->pend, l->npend, sizeof(*l->pend), cmp_pending);
	for (size_t i = 0; i < l->npend && r == 0; i++) {
		struct pending *p = &l->pend[i];
		r = trace_writer_sample(l->w, p->time, p->tid, TRACE_STATE_RUNNING, p->flags,
					l->pool + p->off, p->n);
		if (r == 0)
			l->st->samples++;
	}
	l->npend = 0;
	l->npool = 0;
	return r;
}

static int thread_end(struct run *l, uint32_t tid, uint64_t now);

static int handle_record(struct run *l, const struct perf_record *rec, int *ended)
{
	struct pthread *p;
	uint64_t now = rec->time ? rec->time : sampler_now();

	switch (rec->type) {
	case PERF_REC_SAMPLE:
		return queue_sample(l, rec);
	case PERF_REC_LOST:
		l->st->counters[TRACE_COUNTER_SAMPLES_LOST] += rec->lost;
		return 0;
	case PERF_REC_MMAP2:
		if (!(rec->prot & PROT_EXEC))
			return 0;
		return images_update(l->images, l->w, now);
	case PERF_REC_COMM:
		if (rec->misc & PERF_MISC_COMM_EXEC) {
			int r = images_update(l->images, l->w, now);
			if (r < 0)
				return r;
		}
		p = find(l, rec->tid);
		return p ? set_name(l, p, rec->name, now) : 0;
	case PERF_REC_FORK:
		/* A thread of ours: ptrace has usually told us already. */
		if (rec->pid == (uint32_t)target_pid(l->t))
			return thread_start(l, rec->tid, now);
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
static int drain(struct run *l, struct pthread *p, int *ended)
{
	struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)p->base;
	const uint8_t *data = p->base + pg->data_offset;
	size_t size = p->data_size;
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
			l->scratch = xgrow(l->scratch, &l->scratch_cap, len, 1);
			memcpy(l->scratch, data + off, first);
			memcpy(l->scratch + first, data, len - first);
			rec_p = l->scratch;
		}
		if (perf_parse_record(rec_p, len, &rec) > 0)
			r = handle_record(l, &rec, ended);
		tail += len;
	}
	if (torn || r < 0 || tail + PERF_HEADER_BYTES > head)
		tail = head;
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return r;
}

static int thread_end(struct run *l, uint32_t tid, uint64_t now)
{
	struct pthread *p = find(l, tid);
	int ended, r;

	if (!p)
		return 0;
	r = drain(l, p, &ended);
	p = find(l, tid);  /* draining may have added threads */
	unmap(p);
	*p = l->th[--l->nth];
	/* Its samples go before its end. */
	if (r == 0)
		r = write_pending(l);
	if (r == 0)
		r = trace_writer_thread_end(l->w, tid, now);
	return r;
}

/*
 * After an execve only the leader's tid remains, and if another thread
 * called it, the leader's task (and its event) is gone and that thread
 * carries on under the leader's tid. So the leader's event is opened anew,
 * after what its old ring holds is read.
 */
static int exec_leader(struct run *l, uint32_t tid, uint64_t now)
{
	struct pthread *p = find(l, tid), fresh;
	int ended, r;

	if (!p)
		return thread_start(l, tid, now);
	if (!l->started)  /* the launch's own execve: the event came after */
		return check_name(l, p, now);
	r = drain(l, p, &ended);
	if (r < 0)
		return r;
	memset(&fresh, 0, sizeof(fresh));
	if (open_ring(l, tid, &fresh) < 0)
		return thread_end(l, tid, now);
	p = find(l, tid);
	unmap(p);
	snprintf(fresh.name, sizeof(fresh.name), "%s", p->name);
	*p = fresh;
	return check_name(l, p, now);
}

static int drain_all(struct run *l)
{
	int r = 0;

	for (size_t i = 0; i < l->nth && r == 0;) {
		int ended = 0;
		uint32_t tid = l->th[i].tid;
		r = drain(l, &l->th[i], &ended);
		/* The leader ends with the process, as ptrace reports it: its
		 * EXIT record may only be an execve from another thread. */
		if (r == 0 && ended && tid != (uint32_t)target_pid(l->t)) {
			r = thread_end(l, tid, sampler_now());
			continue;  /* slot i now holds another thread */
		}
		i++;
	}
	if (r == 0)
		r = write_pending(l);
	return r;
}

/*
 * How long the loop may sleep between drains: DRAIN_NS, or less at high
 * rates, so that a thread on a CPU all the time fills at most a quarter of
 * its ring meanwhile. A sample is at most the stack copy, the kernel's
 * callchain and about 100 bytes more; with 32 pages that is about 40
 * samples a ring. A fixed 10 ms lost samples from 5 kHz up with one busy
 * thread (100 samples of 2-3 KiB every 10 ms at 9973 Hz overflow 128 KiB).
 */
static uint64_t drain_period(const struct run *l)
{
	size_t sample_max = STACK_WINDOW + 8 * l->kernel_max_stack + 128;
	size_t per_ring = l->ring_pages * (size_t)sysconf(_SC_PAGESIZE) / sample_max;
	uint64_t ns = (uint64_t)(per_ring / 4 + 1) * 1000000000ull / (l->cfg->rate_hz ? l->cfg->rate_hz : 1);

	return ns < DRAIN_NS ? ns : DRAIN_NS;
}

static int handle_events(struct run *l, uint64_t now)
{
	struct target_event ev;
	int r = 0;

	target_poll(l->t);
	while (r == 0 && target_next_event(l->t, &ev)) {
		switch (ev.kind) {
		case TARGET_EVENT_THREAD_START:
			r = thread_start(l, ev.tid, now);
			break;
		case TARGET_EVENT_THREAD_END:
			r = thread_end(l, ev.tid, now);
			break;
		case TARGET_EVENT_EXEC:
			r = images_update(l->images, l->w, now);
			if (r == 0)
				r = exec_leader(l, ev.tid, now);
			break;
		case TARGET_EVENT_EXIT:
			l->exited = 1;
			break;
		}
	}
	return r;
}

static int maintain(struct run *l, uint64_t now)
{
	int r = images_update(l->images, l->w, now);

	for (size_t i = 0; i < l->nth && r == 0; i++)
		r = check_name(l, &l->th[i], now);
	return r;
}

static void fill_stats(struct run *l, uint64_t start, uint64_t now)
{
	l->st->elapsed_ns = now - start;
	l->st->live_threads = l->nth;
	l->st->images = images_count(l->images);
	l->st->lost = l->st->counters[TRACE_COUNTER_SAMPLES_LOST];
	l->st->bytes = trace_writer_bytes(l->w);
}

int perf_sampler_run(const struct sampler_config *cfg, struct target *t, struct trace_writer *w,
		     struct sampler_stats *st, int *perf_err)
{
	struct run l = { .cfg = cfg, .t = t, .w = w, .st = st, .ring_pages = RING_PAGES };
	size_t max = cfg->max_depth ? cfg->max_depth : 1;
	uint64_t start = sampler_now(), now = start;
	struct sampler_schedule sch;
	struct sigaction sa, old_sa;
	sigset_t block, old_mask, wait_mask;
	int r;

	memset(st, 0, sizeof(*st));
	sampler_schedule_init(&sch, start);
	*perf_err = 0;
	l.kernel_max_stack = read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127);
	l.images = images_new(t);
	l.frames = xmalloc(max * sizeof(*l.frames));

	/* SIGCHLD (a ptrace stop to answer) wakes the sleep and only the
	 * sleep: blocked elsewhere, so the target layer's waits see no EINTR
	 * they do not expect. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old_sa);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	wait_mask = old_mask;
	sigdelset(&wait_mask, SIGCHLD);

	r = images_update(l.images, w, 0);
	if (r == 0)
		r = handle_events(&l, start);
	if (r == 0 && !st->threads && l.open_error) {
		/* Not one event, and not because the threads were gone. */
		*perf_err = l.open_error;
		goto out;
	}
	l.started = 1;

	while (r == 0 && !*cfg->stop && !l.exited) {
		uint64_t wake = now + drain_period(&l);
		struct timespec ts;

		if (cfg->duration_ns && now - start >= cfg->duration_ns)
			break;
		if (cfg->duration_ns && wake > start + cfg->duration_ns)
			wake = start + cfg->duration_ns;
		ts.tv_sec = (time_t)((wake - now) / 1000000000ull);
		ts.tv_nsec = (long)((wake - now) % 1000000000ull);
		child_signalled = 0;
		ppoll(NULL, 0, &ts, &wait_mask);
		if (*cfg->stop)
			break;
		now = sampler_now();
		r = handle_events(&l, now);
		if (r == 0)
			r = drain_all(&l);
		if (r || l.exited)
			break;
		if (sampler_maint_due(&sch, now))
			r = maintain(&l, now);
		if (r == 0)
			r = sampler_flush_due(&sch, w, st, now);
		if (sampler_progress_due(&sch, cfg, now)) {
			fill_stats(&l, start, now);
			cfg->progress(cfg->progress_ctx, st);
		}
	}
	/* What the buffers still hold, then the threads' ends if it exited. */
	if (r == 0)
		r = drain_all(&l);
	if (r == 0)
		r = handle_events(&l, sampler_now());
	if (r == 0)
		r = trace_writer_counters(w, st->counters);
	if (!*perf_err)
		*perf_err = l.open_error;
out:
	fill_stats(&l, start, sampler_now());
	for (size_t i = 0; i < l.nth; i++)
		unmap(&l.th[i]);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGCHLD, &old_sa, NULL);
	images_free(l.images);
	free(l.th);
	free(l.pend);
	free(l.pool);
	free(l.frames);
	free(l.chain);
	free(l.scratch);
	return r;
}
