/*
 * target_darwin.c: the struct target of a macOS process, above the Mach
 * layer of mach.h.
 *
 * Portable: it is built into prof-record on macOS and, on Linux, into a
 * test that gives it a synthetic layer. Threads come from the layer's list,
 * compared with the previous one on every poll, which is how starts and
 * ends become events (Mach has no notification a recorder can wait on
 * cheaply). A tick works on the whole task: target_interrupt_thread()
 * reads each thread's run state while the task still runs, the first
 * target_stop_thread() suspends the task, and when the last thread
 * interrupted is resumed the task runs again. task_suspend2 makes that
 * safe even if prof-record dies in between: the kernel drops the
 * suspension with its port. A thread that is gone by the time it is read
 * gives -ESRCH, which the tick source counts and drops for that sample.
 *
 * The trace's tids are 32 bits: a thread is recorded by the low 32 bits
 * of its 64-bit system-wide id (which counts up from boot).
 *
 * A command is spawned suspended, and that suspension, unlike
 * task_suspend2's, outlives prof-record: so a launched process that was
 * never let run is killed and reaped by target_detach() or target_free(),
 * whatever step failed first. Before a process is sampled, its
 * architecture is compared with the recorder's (Rosetta runs x86_64 code
 * on arm64 Macs, and a thread's registers can only be read in the
 * recorder's own flavor), and one thread's registers are read, so that a
 * refusal is an error at once rather than every sample lost; a refusal
 * later is an error too, which ends the recording. An attached process
 * has ended when the system no longer has it, or has it as a zombie (its
 * parent has not collected it yet: its threads are gone, its pid is not);
 * only then is its exit status known. When the system cannot say whether
 * the process runs, or its threads cannot be listed for long while it
 * does (XNU gives a process that executes a new program a new task, and
 * the one held then is dead), the recording cannot go on: target_poll()
 * fails, with a note (prof_error_note()) that says so.
 */
#include "mach.h"
#include "target.h"
#include "common/bytes.h"
#include "common/diag.h"
#include "format/trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define WINDOW_BYTES (16u << 10)
#define PAGE 4096u
/* How long the threads may fail to be listed while the process runs: an
 * ending process loses its task a moment before it is a zombie. */
#define TASK_LOST_NS (1000 * 1000000ull)

struct thread {
	uint64_t id;
	uint32_t tid;
	uint8_t state;
	int interrupted;           /* its state was read this tick */
};

struct target {
	struct macos_task *task;
	int launched, started;     /* spawned; and let run */
	int exited, status_known, status;
	int spawn_errno;           /* a launch whose command could not run */
	struct thread *th;
	size_t nth, th_cap;
	uint32_t *tids;            /* what target_threads() lends */
	size_t tids_cap;
	struct target_event *ev;
	size_t nev, ev_head, ev_cap;
	int suspended;
	size_t pending;            /* threads interrupted and not yet resumed */
	uint64_t task_lost;        /* when listing the threads began to fail; 0 */
	char procname[MACOS_NAME_MAX];
	uint8_t window[WINDOW_BYTES];
};

struct macos_task *target_darwin_task(struct target *t) { return t->task; }

static void push_event(struct target *t, int kind, uint32_t tid, int status)
{
	if (t->ev_head == t->nev)
		t->ev_head = t->nev = 0;
	t->ev = xgrow(t->ev, &t->ev_cap, t->nev + 1, sizeof(*t->ev));
	t->ev[t->nev++] = (struct target_event){ .kind = kind, .tid = tid, .status = status };
}

static struct thread *find(struct target *t, uint32_t tid)
{
	for (size_t i = 0; i < t->nth; i++)
		if (t->th[i].tid == tid)
			return &t->th[i];
	return NULL;
}

/* Compares the layer's thread list with ours: new ones start, missing
 * ones end. */
static int refresh_threads(struct target *t)
{
	const uint64_t *ids;
	size_t n;
	int r = macos_threads(t->task, &ids, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < t->nth;) {
		size_t k;
		for (k = 0; k < n && ids[k] != t->th[i].id; k++)
			;
		if (k < n) {
			i++;
			continue;
		}
		push_event(t, TARGET_EVENT_THREAD_END, t->th[i].tid, 0);
		t->th[i] = t->th[--t->nth];
	}
	for (size_t k = 0; k < n; k++) {
		uint32_t tid = (uint32_t)ids[k];
		if (find(t, tid))
			continue;  /* known, or a 32-bit twin of a live one */
		t->th = xgrow(t->th, &t->th_cap, t->nth + 1, sizeof(*t->th));
		t->th[t->nth++] = (struct thread){ .id = ids[k], .tid = tid };
		push_event(t, TARGET_EVENT_THREAD_START, tid, 0);
	}
	return 0;
}

/* The base name of the executable from KERN_PROCARGS2 (an int argc, then
 * the executable path): the name of a thread that has none. */
static void read_procname(struct target *t)
{
	struct buf b;

	buf_init(&b);
	if (macos_procargs(t->task, &b) == 0 && b.len > 4) {
		const char *path = (const char *)b.data + 4;
		size_t len = strnlen(path, b.len - 4);
		const char *base = path + len;
		while (base > path && base[-1] != '/')
			base--;
		snprintf(t->procname, sizeof(t->procname), "%.*s", (int)(path + len - base), base);
	}
	buf_release(&b);
}

static struct target *target_of(struct macos_task *task, int launched)
{
	struct target *t = xcalloc(1, sizeof(*t));
	t->task = task;
	t->launched = launched;
	return t;
}

/* 0 if the process runs code of the recorder's own architecture. */
static int check_arch(struct target *t)
{
	struct macos_proc self, p;
	int r = macos_proc_info(getpid(), &self);

	if (r == 0)
		r = macos_proc_info(macos_pid(t->task), &p);
	if (r < 0)
		return r;
	if (p.state == MACOS_PROC_GONE)
		return -ESRCH;
	if (p.translated && !self.translated)
		return TARGET_E_ROSETTA;
	if (!p.translated && self.translated)
		return TARGET_E_NATIVE;
	return 0;
}

/* Reads a thread's registers once, the task left running (the kernel
 * holds the thread for the call): a flavor or count the kernel refuses
 * is TARGET_E_REGS now. A thread that ended meanwhile proves nothing
 * either way. */
static int probe_regs(struct target *t)
{
	struct unwind_regs regs;
	int arch, r;

	if (t->nth == 0)
		return 0;
	r = macos_thread_regs(t->task, t->th[0].id, &arch, &regs);
	return r == -EINVAL ? TARGET_E_REGS : 0;
}

/* Checks the process and reads its threads and name. */
static int take_process(struct target *t)
{
	int r = check_arch(t);

	if (r == 0)
		r = refresh_threads(t);
	if (r == 0)
		r = probe_regs(t);
	if (r == 0)
		read_procname(t);
	return r;
}

/* Kills a launched process that was never let run (its spawn's suspension
 * would outlive us), and reaps it. */
static void kill_unstarted(struct target *t)
{
	if (!t->launched || !t->task || t->started || t->exited)
		return;
	t->status_known = macos_kill(t->task, &t->status) == 0;
	t->exited = 1;
}

/* Children are not followed on macOS (prof-record.1): follow is not
 * looked at. */
int target_attach(pid_t pid, int follow, struct target **out)
{
	struct macos_task *task;
	struct target *t;
	int r = macos_attach(pid, &task);

	(void)follow;
	if (r < 0)
		return r;
	t = target_of(task, 0);
	r = take_process(t);
	if (r == 0 && t->nth == 0)
		r = TARGET_E_NOTHREADS;
	if (r < 0) {
		target_free(t);
		return r;
	}
	*out = t;
	return 0;
}

int target_launch(char *const argv[], int follow, struct target **out)
{
	struct macos_task *task = NULL;
	int spawn_errno = 0;
	int r = macos_spawn(argv, &task, &spawn_errno);

	(void)follow;
	if (r < 0)
		return r;
	/* An exec failure is told by target_launch_exec(), as on Linux. */
	*out = target_of(task, 1);
	(*out)->spawn_errno = spawn_errno;
	return 0;
}

int target_launch_exec(struct target *t, int *exec_errno)
{
	int r;

	if (!t->task) {
		*exec_errno = t->spawn_errno;
		return TARGET_E_EXEC;
	}
	/* Any failure leaves it unstarted: detach or free kills it. */
	r = take_process(t);
	if (r == 0)
		r = macos_start(t->task);
	if (r == 0)
		t->started = 1;
	return r;
}

pid_t target_pid(const struct target *t) { return t->task ? macos_pid(t->task) : 0; }

/* Children are not followed on macOS, so no event asks for a view of
 * one. */
struct target *target_view(pid_t pid)
{
	(void)pid;
	return NULL;
}

/* An attached process whose status is unknown (its parent collected it
 * before it was seen as a zombie) has ended, but has no status to give. */
int target_exited(const struct target *t, int *status)
{
	if (t->exited && t->status_known)
		*status = t->status;
	return t->exited && t->status_known;
}

/* Whether the process has ended: 1 for a launched one once it is reaped,
 * for an attached one once the system has it as a zombie or no more
 * (*status set if *known); 0 while it runs; a negative errno when the
 * system cannot say. */
static int process_ended(struct target *t, int *status, int *known)
{
	struct macos_proc p;
	int r;

	*known = 0;
	if (t->launched) {
		r = macos_reap(t->task, status);
		*known = r == 1;
		return r;
	}
	r = macos_proc_info(macos_pid(t->task), &p);
	if (r < 0)
		return r;
	if (p.state == MACOS_PROC_ZOMBIE) {
		*status = p.status;
		*known = 1;
	}
	return p.state != MACOS_PROC_ALIVE;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The process runs: its threads are listed again. A failure is looked at
 * again at the next polls, and is an error once it has lasted
 * TASK_LOST_NS with the process still running. */
static int threads_of_running(struct target *t)
{
	int r = refresh_threads(t);
	uint64_t now;

	if (r == 0) {
		t->task_lost = 0;
		return 0;
	}
	now = now_ns();
	if (!t->task_lost)
		t->task_lost = now;
	if (now - t->task_lost < TASK_LOST_NS)
		return 0;
	prof_error_note(r, "process %d runs on, but its threads cannot be listed (%s): a process that "
			"executes a new program has a new task, which prof-record does not follow on macOS; "
			"launch the program itself rather than a script that executes it",
			(int)macos_pid(t->task), strerror(-r));
	return r;
}

/* Lets the task go if a tick left it suspended (macos_resume() leaves
 * nothing suspended, whatever the kernel answers). */
static void release_task(struct target *t)
{
	if (t->suspended)
		macos_resume(t->task);
	t->suspended = 0;
	t->pending = 0;
	for (size_t i = 0; i < t->nth; i++)
		t->th[i].interrupted = 0;
}

int target_poll(struct target *t)
{
	int status = 0, known, r;

	if (t->exited)
		return 0;
	release_task(t);
	r = process_ended(t, &status, &known);
	if (r < 0) {
		prof_error_note(r, "cannot tell whether process %d still runs: %s", (int)macos_pid(t->task),
				strerror(-r));
		return r;
	}
	if (r == 0)
		return threads_of_running(t);
	for (size_t i = 0; i < t->nth; i++)
		push_event(t, TARGET_EVENT_THREAD_END, t->th[i].tid, 0);
	t->nth = 0;
	t->exited = 1;
	t->status_known = known;
	t->status = status;
	push_event(t, TARGET_EVENT_EXIT, 0, status);
	return 0;
}

int target_next_event(struct target *t, struct target_event *ev)
{
	if (t->ev_head == t->nev)
		return 0;
	*ev = t->ev[t->ev_head++];
	return 1;
}

size_t target_threads(struct target *t, const uint32_t **tids)
{
	t->tids = xgrow(t->tids, &t->tids_cap, t->nth + 1, sizeof(*t->tids));
	for (size_t i = 0; i < t->nth; i++)
		t->tids[i] = t->th[i].tid;
	*tids = t->tids;
	return t->nth;
}

int target_interrupt_thread(struct target *t, uint32_t tid)
{
	struct thread *th = find(t, tid);
	struct macos_thread_info info;

	if (!th)
		return -ESRCH;
	if (th->interrupted)
		return 0;
	th->state = macos_thread_info(t->task, th->id, &info) == 0 ? info.state : TRACE_STATE_UNKNOWN;
	th->interrupted = 1;
	t->pending++;
	return 0;
}

/* One resumed (or failed) thread of the tick; the last lets the task go. */
static void done_with(struct target *t, struct thread *th)
{
	if (!th->interrupted)
		return;
	th->interrupted = 0;
	if (--t->pending == 0)
		release_task(t);
}

/* Copies the stack from sp upward: the whole window if it is mapped, else
 * as many pages as are (the top of a stack ends a mapping). */
static size_t read_window(struct target *t, uint64_t sp)
{
	size_t len = WINDOW_BYTES;

	if (sp == 0 || sp > UINT64_MAX - WINDOW_BYTES)
		return 0;
	while (len > 0) {
		if (macos_read(t->task, sp, t->window, len) == 0)
			return len;
		/* To a page boundary first, then a page less each time. */
		len = (size_t)((sp + len - 1) / PAGE * PAGE - sp);
		if (len > WINDOW_BYTES)
			return 0;
	}
	return 0;
}

int target_stop_thread(struct target *t, uint32_t tid, struct target_stop *s)
{
	struct thread *th = find(t, tid);
	int r;

	if (!th)
		return -ESRCH;
	if (!th->interrupted)
		target_interrupt_thread(t, tid);
	if (!t->suspended) {
		r = macos_suspend(t->task);
		if (r < 0) {
			done_with(t, th);
			return r;
		}
		t->suspended = 1;
	}
	memset(s, 0, sizeof(*s));
	r = macos_thread_regs(t->task, th->id, &s->arch, &s->regs);
	if (r == -EINVAL) {
		prof_error_note(TARGET_E_REGS, "the kernel refused the registers of thread %u in the recording "
				"(thread_get_state: invalid argument, a flavor or count it does not take for "
				"that thread)", tid);
		r = TARGET_E_REGS;
	}
	if (r < 0) {
		done_with(t, th);
		return r;
	}
	s->tid = tid;
	s->state = th->state;
	s->window_addr = s->regs.sp;
	s->window = t->window;
	s->window_len = read_window(t, s->regs.sp);
	return 0;
}

int target_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct target *t = ctx;
	return macos_read(t->task, addr, buf, len);
}

/* Cannot fail: the last thread of a tick lets the task go with
 * macos_resume(), which leaves nothing suspended. */
int target_resume_thread(struct target *t, uint32_t tid)
{
	struct thread *th = find(t, tid);
	if (th)
		done_with(t, th);
	return 0;
}

int target_thread_name(struct target *t, uint32_t tid, char *buf, size_t n)
{
	struct thread *th = find(t, tid);
	struct macos_thread_info info;
	int r;

	if (!th)
		return -ESRCH;
	r = macos_thread_info(t->task, th->id, &info);
	if (r < 0)
		return r;
	snprintf(buf, n, "%s", info.name[0] ? info.name : t->procname);
	return 0;
}

int target_cmdline(struct target *t, char ***argv, uint32_t *argc)
{
	struct buf b;
	size_t i;
	uint32_t want;
	int r;

	buf_init(&b);
	r = macos_procargs(t->task, &b);
	if (r == 0 && b.len < 4)
		r = -EIO;
	if (r < 0)
		goto out;
	/* argc, the executable path, NUL padding, then argc strings (and
	 * the environment, which is left out). */
	want = get_le32(b.data);
	i = 4 + strnlen((char *)b.data + 4, b.len - 4);
	while (i < b.len && b.data[i] == 0)
		i++;
	*argv = buf_split_nul(&b, i, want < TRACE_MAX_ARGS ? want : TRACE_MAX_ARGS, argc);
out:
	buf_release(&b);
	return r;
}

void target_detach(struct target *t)
{
	release_task(t);
	kill_unstarted(t);
}

int target_wait_exit(struct target *t, int timeout_ms, int *status)
{
	for (int waited = 0; !t->exited && t->launched && waited <= timeout_ms; waited += 5) {
		struct timespec ts = { 0, 5000000 };
		if (macos_reap(t->task, &t->status) == 1) {
			t->exited = t->status_known = 1;
			break;
		}
		nanosleep(&ts, NULL);
	}
	return target_exited(t, status);
}

void target_free(struct target *t)
{
	if (!t)
		return;
	kill_unstarted(t);
	macos_free(t->task);
	free(t->th);
	free(t->tids);
	free(t->ev);
	free(t);
}
