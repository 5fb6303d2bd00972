/*
 * target_linux_ptrace.c: the target layer for Linux, in wall mode.
 *
 * Every thread is PTRACE_SEIZEd (never PTRACE_ATTACHed, which would send
 * SIGSTOP; never with PTRACE_O_EXITKILL, so if the recorder dies the kernel
 * simply detaches and the target runs on). PTRACE_O_TRACECLONE makes new
 * threads arrive already traced. A sample is PTRACE_INTERRUPT, a wait for
 * that thread's stop, PTRACE_GETREGSET (NT_PRSTATUS, which aarch64 has and
 * PTRACE_GETREGS it has not) and one process_vm_readv of the stack, then
 * PTRACE_CONT: the thread is held only for that long.
 *
 * The subtle part is that every ptrace-stop the kernel reports must be
 * answered, or a thread stays stopped forever. The stops, and the answers:
 *
 *   interrupt stop  PTRACE_EVENT_STOP with SIGTRAP: ours, or a wake-up
 *                   notification; sample it or PTRACE_CONT it.
 *   group-stop      PTRACE_EVENT_STOP with a stop signal: someone stopped
 *                   the process (SIGSTOP, ^Z); PTRACE_LISTEN keeps it
 *                   stopped as they wanted, yet SIGCONT still wakes it.
 *   signal stop     a signal is about to be delivered: PTRACE_CONT with
 *                   that signal, so the target sees every signal it gets.
 *   clone/exec/exit event stops: book-keeping, then PTRACE_CONT.
 *
 * A wait for a thread's stop is bounded by a short ITIMER_REAL alarm, so a
 * thread stuck in the kernel (disk wait) costs one lost sample, not a hang.
 * A thread that exits under us gives ESRCH or an exit status, and is
 * reported as vanished.
 *
 * Untraced (target_*_untraced(), for the perf_event source) none of this
 * happens: the threads are listed once from /proc/PID/task, a launched
 * child is only reaped, and a process we did not launch is watched
 * through a pidfd (pidfd_open(2)), which polls readable once it has ended:
 * one system call a look, where kill(2) and reading /proc/PID/stat, the
 * way left where pidfds are refused, took four.
 */
#include "target.h"
#include "memory.h"
#include "format/trace.h"
#include "common/diag.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WINDOW_BYTES (16u << 10)
#define WAIT_TIMEOUT_US 20000

enum stop_kind { STOP_NONE, STOP_INTERRUPT, STOP_GROUP };

/* The registers the unwinder starts from, out of the build's own
 * struct user_regs_struct (the layout NT_PRSTATUS has on that arch). */
#if defined(__x86_64__)
#define TARGET_ARCH UNWIND_ARCH_X86_64
static void unwind_regs_of(const struct user_regs_struct *r, struct unwind_regs *u)
{
	u->pc = r->rip;
	u->sp = r->rsp;
	u->fp = r->rbp;
}
#elif defined(__aarch64__)
#define TARGET_ARCH UNWIND_ARCH_ARM64
static void unwind_regs_of(const struct user_regs_struct *r, struct unwind_regs *u)
{
	u->pc = r->pc;
	u->sp = r->sp;
	u->fp = r->regs[29];
	u->lr = r->regs[30];
}
#else
#error "prof-record's Linux target knows the registers of x86_64 and aarch64 only"
#endif

struct thread {
	uint32_t tid;
	pid_t pid;              /* its process: the target's, or a child's */
	int stat_fd;            /* /proc/PID/task/TID/stat, kept open; -1 */
	int exiting;            /* reported PTRACE_EVENT_EXIT: never sample */
	int held;               /* stopped by target_stop_thread() */
	int held_kind;          /* enum stop_kind of the held stop */
	int interrupted;        /* PTRACE_INTERRUPT sent, stop not yet taken */
	int vforking;           /* waiting for its vfork child to exec or exit,
	                         * when it cannot stop: not interrupted */
	uint8_t state;          /* read just before the interrupt */
};

struct target {
	pid_t pid;
	int launched;
	int traced;             /* 0: watched only (target_*_untraced()) */
	int follow;             /* the processes it starts are traced too */
	int go_fd, err_fd;      /* launch handshake pipes, or -1 */
	int pid_fd;             /* untraced and not launched: its pidfd, or -1 */
	int exited, exit_status;
	int detached;
	pid_t mem_pid;          /* a live thread, for memory reads: the leader
	                         * may be a zombie without memory */
	struct thread *threads;
	size_t nthreads, cap;
	uint32_t *tids;         /* for target_threads() */
	size_t tids_cap;
	struct target_event *events;
	size_t nevents, events_cap, events_head;
	uint8_t window[WINDOW_BYTES];
};

static volatile sig_atomic_t alarm_fired;

static int read_small(const char *path, char *buf, size_t n);

static void on_alarm(int sig)
{
	(void)sig;
	alarm_fired = 1;
}

static void push(struct target *t, const struct target_event *ev)
{
	if (t->events_head == t->nevents)
		t->events_head = t->nevents = 0;
	t->events = xgrow(t->events, &t->events_cap, t->nevents + 1, sizeof(*t->events));
	t->events[t->nevents++] = *ev;
}

static void push_event(struct target *t, int kind, pid_t pid, uint32_t tid, int status)
{
	push(t, &(struct target_event){ .kind = kind, .tid = tid, .status = status, .pid = (uint32_t)pid });
}

int target_next_event(struct target *t, struct target_event *ev)
{
	if (t->events_head >= t->nevents)
		return 0;
	*ev = t->events[t->events_head++];
	return 1;
}

static struct thread *find(struct target *t, uint32_t tid)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid)
			return &t->threads[i];
	return NULL;
}

/* Thread tid of process pid, known from now. */
static struct thread *add_thread(struct target *t, pid_t pid, uint32_t tid)
{
	struct thread *th = find(t, tid);
	char path[64];

	if (th)
		return th;
	t->threads = xgrow(t->threads, &t->cap, t->nthreads + 1, sizeof(*t->threads));
	th = &t->threads[t->nthreads++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/task/%u/stat", (int)pid, tid);
	th->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	push_event(t, TARGET_EVENT_THREAD_START, pid, tid, 0);
	return th;
}

/* Following: process pid, a child of process parent, began with its
 * thread pid, traced already (PTRACE_O_TRACEFORK). */
static struct thread *add_process(struct target *t, pid_t pid, pid_t parent)
{
	struct thread *th = find(t, (uint32_t)pid);

	if (th)
		return th;
	push(t, &(struct target_event){ .kind = TARGET_EVENT_PROCESS_START, .tid = (uint32_t)pid,
					.pid = (uint32_t)pid, .parent = (uint32_t)parent });
	return add_thread(t, pid, (uint32_t)pid);
}

/* A thread whose first stop came before the event that made it (a clone
 * or a fork in another thread, not waited for yet): its process and that
 * process's parent, from /proc. */
static struct thread *add_task(struct target *t, uint32_t tid)
{
	char path[64], buf[1024], *q;
	long tgid = t->pid, ppid = 0;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	if (read_small(path, buf, sizeof(buf)) > 0) {
		if ((q = strstr(buf, "\nTgid:")))
			tgid = strtol(q + 6, NULL, 10);
		if ((q = strstr(buf, "\nPPid:")))
			ppid = strtol(q + 6, NULL, 10);
	}
	if (tgid == t->pid || tgid <= 0)
		return add_thread(t, t->pid, tid);
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].pid == (pid_t)tgid)
			return add_thread(t, (pid_t)tgid, tid);
	add_process(t, (pid_t)tgid, (pid_t)ppid);
	return add_thread(t, (pid_t)tgid, tid);
}

static void drop_thread(struct target *t, uint32_t tid)
{
	struct thread *th = find(t, tid);
	pid_t pid;

	if (!th)
		return;
	pid = th->pid;
	if (th->stat_fd >= 0)
		close(th->stat_fd);
	*th = t->threads[--t->nthreads];
	push_event(t, TARGET_EVENT_THREAD_END, pid, tid, 0);
}

/* Traces tid; following, the processes it forks are traced too, and
 * theirs (the options are inherited). */
static long seize(pid_t tid, int follow)
{
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;

	if (follow)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE;
	return ptrace(PTRACE_SEIZE, tid, 0L, opts);
}

static int is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static struct target *target_new(pid_t pid)
{
	struct target *t = xcalloc(1, sizeof(*t));
	struct sigaction sa;

	t->pid = pid;
	t->mem_pid = pid;
	t->go_fd = t->err_fd = t->pid_fd = -1;
	/* No SA_RESTART: the alarm must break a waitpid() that waits too long. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	return t;
}

pid_t target_pid(const struct target *t) { return t->pid; }

int target_exited(const struct target *t, int *status)
{
	/* Only a parent or a tracer learns the exit status. */
	if (t->exited && (t->traced || t->launched))
		*status = t->exit_status;
	return t->exited && (t->traced || t->launched);
}

/* Process pid's threads have all ended. */
static void drop_process(struct target *t, pid_t pid)
{
	for (size_t i = t->nthreads; i-- > 0;)
		if (i < t->nthreads && t->threads[i].pid == pid)
			drop_thread(t, t->threads[i].tid);
}

/* The process is gone: every thread of it has ended (its children's are
 * their own). */
static void process_gone(struct target *t, int status)
{
	drop_process(t, t->pid);
	if (!t->exited) {
		t->exited = 1;
		t->exit_status = status;
		push_event(t, TARGET_EVENT_EXIT, t->pid, (uint32_t)t->pid, status);
	}
}

/* Whether process pid, traced by us, has just exec'd a set-user-ID or
 * set-group-ID program of another user, which the kernel then runs
 * without those privileges: a tracer who could not trace it privileged
 * never gains them, and the program may act otherwise than untraced. */
static int runs_unprivileged(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (geteuid() == 0 || stat(path, &st) < 0)
		return 0;
	return ((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	       ((st.st_mode & S_ISGID) && st.st_gid != getegid());
}

static void exec_happened(struct target *t, uint32_t tid)
{
	struct thread *th = find(t, tid);
	pid_t pid = th ? th->pid : t->pid;
	unsigned long former = 0;
	char path[64];

	/* After execve only the leader remains, whichever thread called it. */
	ptrace(PTRACE_GETEVENTMSG, tid, 0L, &former);
	for (size_t i = t->nthreads; i-- > 0;)
		if (i < t->nthreads && t->threads[i].pid == pid && t->threads[i].tid != (uint32_t)pid)
			drop_thread(t, t->threads[i].tid);
	th = add_thread(t, pid, (uint32_t)pid);
	th->exiting = 0;
	/* The stat file of the old leader may be stale after the change. */
	if (th->stat_fd >= 0)
		close(th->stat_fd);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)pid);
	th->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	push_event(t, TARGET_EVENT_EXEC, pid, (uint32_t)pid, runs_unprivileged(pid));
}

/*
 * What one wait status means, after the book-keeping it needs. Returns the
 * kind of stop the thread is now in and left in (STOP_INTERRUPT or
 * STOP_GROUP), or STOP_NONE when the thread was already restarted or is
 * gone; *gone says the latter. *sig is a signal to be delivered.
 */
static int classify(struct target *t, pid_t tid, int status, int *gone, int *sig)
{
	*gone = 0;
	*sig = 0;
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		struct thread *th = find(t, (uint32_t)tid);

		*gone = 1;
		/* A leader's exit is reported last, once the whole process
		 * is gone. */
		if (tid == t->pid) {
			process_gone(t, status);
		} else if (th && th->pid == tid) {
			drop_process(t, tid);
			push(t, &(struct target_event){ .kind = TARGET_EVENT_PROCESS_END, .tid = (uint32_t)tid,
							.status = status, .pid = (uint32_t)tid });
		} else {
			drop_thread(t, (uint32_t)tid);
		}
		return STOP_NONE;
	}
	if (!WIFSTOPPED(status))
		return STOP_NONE;

	int s = WSTOPSIG(status), event = status >> 16;
	struct thread *th = find(t, (uint32_t)tid);
	if (!th)  /* a new thread's first stop may beat its clone event */
		th = add_task(t, (uint32_t)tid);

	switch (event) {
	case 0:
		*sig = s;  /* signal-delivery-stop */
		break;
	case PTRACE_EVENT_STOP:
		return is_stop_signal(s) ? STOP_GROUP : STOP_INTERRUPT;
	case PTRACE_EVENT_CLONE: {
		unsigned long child = 0;
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0L, &child) == 0 && child)
			add_thread(t, th->pid, (uint32_t)child);
		break;
	}
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK: {
		unsigned long child = 0;
		/* Adding the child may move the table th points into. */
		th->vforking = event == PTRACE_EVENT_VFORK;
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0L, &child) == 0 && child)
			add_process(t, (pid_t)child, th->pid);
		break;
	}
	case PTRACE_EVENT_VFORK_DONE:
		th->vforking = 0;
		break;
	case PTRACE_EVENT_EXEC:
		exec_happened(t, (uint32_t)tid);
		break;
	case PTRACE_EVENT_EXIT:
		th->exiting = 1;
		break;
	default:
		break;
	}
	if (ptrace(PTRACE_CONT, tid, 0L, (long)*sig) < 0 && errno == ESRCH)
		*gone = 1;
	return STOP_NONE;
}

/* Restarts a thread from a stop of this kind. If PTRACE_LISTEN is refused
 * (the group-stop ended meanwhile), running it is the safe answer: a stuck
 * thread is the one outcome never allowed. */
static long restart(pid_t tid, int kind)
{
	if (kind == STOP_GROUP && ptrace(PTRACE_LISTEN, tid, 0L, 0L) == 0)
		return 0;
	return ptrace(PTRACE_CONT, tid, 0L, 0L);
}

/* Answers a stop that nobody is sampling. */
static void settle(struct target *t, pid_t tid, int kind)
{
	(void)t;
	if (kind != STOP_NONE)
		restart(tid, kind);
}

/* An untraced process: a launched child is reaped by us; another
 * process is gone when its pidfd polls readable (every thread ended),
 * or without one when kill(2) finds none or it is a zombie (its parent
 * has not reaped it yet). */
static void watch(struct target *t)
{
	int status;
	char path[64], buf[512], *p;

	if (t->exited || t->detached)
		return;
	if (t->launched) {
		if (waitpid(t->pid, &status, WNOHANG) == t->pid)
			process_gone(t, status);
		return;
	}
	if (t->pid_fd >= 0) {
		struct pollfd pf = { .fd = t->pid_fd, .events = POLLIN };
		if (poll(&pf, 1, 0) > 0)
			process_gone(t, 0);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)t->pid);
	if (kill(t->pid, 0) < 0 && errno == ESRCH) {
		process_gone(t, 0);
		return;
	}
	if (read_small(path, buf, sizeof(buf)) > 0 && (p = strrchr(buf, ')')) && p[1] == ' ' &&
	    (p[2] == 'Z' || p[2] == 'X'))
		process_gone(t, 0);
}

/* target_poll()'s work, which cannot fail: a wait that finds no child
 * left means the process is gone. */
static void poll_events(struct target *t)
{
	if (!t->traced) {
		watch(t);
		return;
	}
	for (;;) {
		int status, gone, sig;
		pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid == 0)
			return;
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD && !t->exited && !t->detached)
				process_gone(t, 0);
			return;
		}
		int kind = classify(t, tid, status, &gone, &sig);
		struct thread *th = find(t, (uint32_t)tid);
		if (th && kind != STOP_NONE)
			th->interrupted = 0;
		settle(t, tid, kind);
	}
}

int target_poll(struct target *t)
{
	poll_events(t);
	return 0;
}

size_t target_threads(struct target *t, const uint32_t **tids)
{
	size_t n = 0;
	t->tids = xgrow(t->tids, &t->tids_cap, t->nthreads + 1, sizeof(*t->tids));
	for (size_t i = 0; i < t->nthreads; i++)
		if (!t->threads[i].exiting)
			t->tids[n++] = t->threads[i].tid;
	*tids = t->tids;
	return n;
}

static uint8_t read_state(const struct target *t, struct thread *th)
{
	char buf[512], *p;
	ssize_t n;

	if (th->stat_fd >= 0) {
		n = pread(th->stat_fd, buf, sizeof(buf) - 1, 0);
	} else {
		/* No descriptor kept (out of them): open it each time. */
		char path[64];
		int fd;
		snprintf(path, sizeof(path), "/proc/%d/task/%u/stat", (int)th->pid, th->tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return TRACE_STATE_UNKNOWN;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return TRACE_STATE_UNKNOWN;
	buf[n] = 0;
	p = strrchr(buf, ')');  /* the name may hold spaces and parentheses */
	if (!p || p[1] != ' ')
		return TRACE_STATE_UNKNOWN;
	switch (p[2]) {
	case 'R': return TRACE_STATE_RUNNING;
	case 'S': case 'I': return TRACE_STATE_SLEEPING;
	case 'D': return TRACE_STATE_DISK;
	case 'T': case 't': return TRACE_STATE_STOPPED;
	default: return TRACE_STATE_OTHER;
	}
}

/* The alarm repeats until disarmed: one that fires just before a blocking
 * waitpid() (a recorder preempted on a loaded machine) must not leave that
 * wait unbounded, with the threads it holds stopped. */
static void arm(int on)
{
	long us = on ? WAIT_TIMEOUT_US : 0;
	struct itimerval it = { { 0, us }, { 0, us } };
	alarm_fired = 0;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Waits for tid to reach a stop we may hold, answering everything else;
 * with nohang, only takes what is there. Returns STOP_INTERRUPT or
 * STOP_GROUP, -ESRCH, or -EAGAIN on timeout (or when nothing is there). */
static int wait_stop(struct target *t, pid_t tid, int nohang)
{
	int ret;

	if (!nohang)
		arm(1);
	for (;;) {
		int status, gone, sig;
		if (alarm_fired) {  /* before the wait, or between two statuses */
			ret = -EAGAIN;
			break;
		}
		pid_t r = waitpid(tid, &status, __WALL | (nohang ? WNOHANG : 0));
		if (r == 0) {
			ret = -EAGAIN;
			break;
		}
		if (r < 0) {
			if (errno == EINTR && !alarm_fired)
				continue;
			ret = errno == EINTR ? -EAGAIN : -ESRCH;
			if (ret == -ESRCH)
				drop_thread(t, (uint32_t)tid);
			break;
		}
		int kind = classify(t, r, status, &gone, &sig);
		if (gone) {
			ret = -ESRCH;
			break;
		}
		if (kind != STOP_NONE) {
			ret = kind;
			break;
		}
		struct thread *th = find(t, (uint32_t)tid);
		if (!th || th->exiting) {
			ret = -ESRCH;
			break;
		}
	}
	if (!nohang)
		arm(0);
	return ret;
}

static size_t read_window(struct target *t, uint64_t sp)
{
	long got = memory_read_upto(t->mem_pid, sp, t->window, WINDOW_BYTES);

	return got > 0 ? (size_t)got : 0;
}

int target_interrupt_thread(struct target *t, uint32_t tid)
{
	struct thread *th = find(t, tid);

	if (!t->traced)
		return -EPERM;
	if (!th || th->exiting)
		return -ESRCH;
	if (th->interrupted)
		return 0;
	/* A vfork parent stops only once its child has exec'd or exited:
	 * waiting for it would hold every other thread's tick. */
	if (th->vforking)
		return -EAGAIN;
	th->state = read_state(t, th);
	if (ptrace(PTRACE_INTERRUPT, (pid_t)tid, 0L, 0L) < 0) {
		if (errno == ESRCH) {
			/* Either gone, or its exit is waiting to be reaped. */
			poll_events(t);
			return -ESRCH;
		}
		return -errno;
	}
	th->interrupted = 1;
	return 0;
}

/* The stop of tid, asked for already, taken (waited for unless nohang),
 * its registers and stack read, and the thread held. */
static int take_stop(struct target *t, uint32_t tid, struct target_stop *s, int nohang)
{
	struct thread *th = find(t, tid);
	struct user_regs_struct regs;
	struct iovec iov = { &regs, sizeof(regs) };
	int kind;

	if (!th || th->exiting)
		return -ESRCH;
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->state = th->state;
	kind = wait_stop(t, (pid_t)tid, nohang);
	if (kind < 0)
		return kind;
	th = find(t, tid);
	th->interrupted = 0;
	if (ptrace(PTRACE_GETREGSET, (pid_t)tid, (void *)(uintptr_t)NT_PRSTATUS, &iov) < 0) {
		int e = errno;
		settle(t, (pid_t)tid, kind);
		return e == ESRCH ? -ESRCH : -e;
	}
	th->held = 1;
	th->held_kind = kind;
	t->mem_pid = (pid_t)tid;
	s->arch = TARGET_ARCH;
	unwind_regs_of(&regs, &s->regs);
	s->window_addr = s->regs.sp;
	s->window = t->window;
	s->window_len = read_window(t, s->regs.sp);
	return 0;
}

int target_stop_thread(struct target *t, uint32_t tid, struct target_stop *s)
{
	int r = target_interrupt_thread(t, tid);

	if (r < 0)
		return r;
	find(t, tid)->interrupted = 0;
	return take_stop(t, tid, s, 0);
}

int target_stopped_thread(struct target *t, uint32_t tid, struct target_stop *s)
{
	return take_stop(t, tid, s, 1);
}

void target_release_thread(struct target *t, uint32_t tid)
{
	struct thread *th = find(t, tid);

	if (!th || !th->held)
		return;
	th->held = 0;
	ptrace(PTRACE_DETACH, (pid_t)tid, 0L, 0L);
	drop_thread(t, tid);
}

uint8_t target_thread_state(struct target *t, uint32_t tid)
{
	struct thread *th = find(t, tid);
	return th ? read_state(t, th) : TRACE_STATE_UNKNOWN;
}

int target_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct target *t = ctx;
	pid_t pid = t->mem_pid ? t->mem_pid : t->pid;

	return memory_read_pid(&pid, addr, buf, len);
}

/* A thread that cannot be restarted stays held, so that detach, which
 * lets held threads go with PTRACE_DETACH, still frees it; one that is
 * gone (ESRCH) is held no more. */
int target_resume_thread(struct target *t, uint32_t tid)
{
	struct thread *th = find(t, tid);
	int e;

	if (!th || !th->held)
		return 0;
	if (restart((pid_t)tid, th->held_kind) == 0 || errno == ESRCH) {
		th->held = 0;
		return 0;
	}
	e = errno;
	prof_error_note(-e, "cannot let thread %u run again: %s", tid, strerror(e));
	return -e;
}

static int read_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -errno;
	got = read(fd, buf, n - 1);
	int e = errno;
	close(fd);
	if (got < 0)
		return -e;
	buf[got] = 0;
	return (int)got;
}

int target_thread_name(struct target *t, uint32_t tid, char *buf, size_t n)
{
	char path[64];
	int r;

	snprintf(path, sizeof(path), "/proc/%d/task/%u/comm", (int)t->pid, tid);
	r = read_small(path, buf, n);
	if (r < 0)
		return r;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* A thread that has not begun to exit, preferring the leader. */
static uint32_t live_tid(const struct target *t)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == (uint32_t)t->pid && !t->threads[i].exiting)
			return t->threads[i].tid;
	for (size_t i = 0; i < t->nthreads; i++)
		if (!t->threads[i].exiting)
			return t->threads[i].tid;
	return (uint32_t)t->pid;
}

int target_read_maps(struct target *t, struct buf *out)
{
	char path[64];
	int fd;

	buf_reset(out);
	/* Through a live thread: a zombie leader shows an empty map (and has
	 * no memory to read, hence mem_pid too). */
	t->mem_pid = (pid_t)live_tid(t);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)t->pid, (int)t->mem_pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		buf_grow(out, 16384);
		ssize_t n = read(fd, out->data + out->len, out->cap - out->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
		out->data[out->len] = 0;
	}
	close(fd);
	return 0;
}

/* Takes fd if it is a file an image can be read from, and, for a file
 * found by path, the one mapped. Returns fd, or a negative errno with
 * why saying what was wrong (fd is closed). */
static int take_mapped(int fd, const struct target_mapping *m, int by_path, struct stat *st, const char **why)
{
	if (fd < 0) {
		*why = strerror(errno);
		return -errno;
	}
	if (fstat(fd, st) < 0) {
		*why = strerror(errno);
	} else if (!S_ISREG(st->st_mode)) {
		*why = "not a regular file";
	} else if (by_path && (st->st_ino != m->inode || major(st->st_dev) != m->dev_major ||
			       minor(st->st_dev) != m->dev_minor)) {
		*why = "another file than the one mapped";
	} else if (st->st_size <= 0) {
		*why = "an empty file";
	} else if ((uint64_t)st->st_size > TARGET_MAPPED_MAX) {
		*why = "larger than 16 GiB";
	} else {
		return fd;
	}
	close(fd);
	return -EINVAL;
}

/* The path without the " (deleted)" the map adds to a file removed. */
static char *live_path(const char *path)
{
	size_t n = strlen(path), k = strlen(" (deleted)");

	if (n > k && !strcmp(path + n - k, " (deleted)"))
		n -= k;
	return xstrndup(path, n);
}

int target_open_mapped(struct target *t, const struct target_mapping *m, int *source, struct stat *st,
		       char *why, size_t n)
{
	const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	struct open_how how = { .flags = flags, .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	const char *w_mapped, *w_root = "not an absolute path", *w_path = "not an absolute path";
	char p[128], *path = live_path(m->path);
	int fd, root;

	snprintf(p, sizeof(p), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)t->pid, m->start, m->end);
	fd = take_mapped(open(p, flags), m, 0, st, &w_mapped);
	*source = TRACE_SOURCE_MAPPED;
	if (fd < 0 && path[0] == '/') {
		snprintf(p, sizeof(p), "/proc/%d/root", (int)t->pid);
		root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0)
			fd = take_mapped(-1, m, 1, st, &w_root);
		else
			fd = take_mapped((int)syscall(SYS_openat2, root, path + 1, &how, sizeof(how)), m, 1, st,
					 &w_root);
		if (root >= 0)
			close(root);
		*source = TRACE_SOURCE_ROOT;
		if (fd < 0) {
			fd = take_mapped(open(path, flags), m, 1, st, &w_path);
			*source = TRACE_SOURCE_PATH;
		}
	}
	if (fd < 0)
		snprintf(why, n, "map_files: %s; root: %s; path: %s", w_mapped, w_root, w_path);
	free(path);
	return fd;
}

int target_cmdline(struct target *t, char ***argv, uint32_t *argc)
{
	char path[64];
	struct buf b;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)t->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf_init(&b);
	for (;;) {
		buf_grow(&b, 4096);
		ssize_t got = read(fd, b.data + b.len, b.cap - b.len - 1);
		if (got <= 0 || b.len + (size_t)got > TRACE_MAX_STRING)
			break;
		b.len += (size_t)got;
	}
	close(fd);
	/* A process that wrote its title over its arguments (nginx's
	 * "nginx: worker process", sshd, postgres) leaves NULs where they
	 * were: not arguments, as ps(1) shows it. */
	while (b.len > 1 && !b.data[b.len - 1] && !b.data[b.len - 2])
		b.len--;
	*argv = buf_split_nul(&b, 0, TRACE_MAX_ARGS, argc);
	buf_release(&b);
	return 0;
}

/* Seizes every thread listed in /proc/PID/task, until a pass finds no new
 * one (threads may be created while we go). */
static int seize_all(struct target *t)
{
	char path[64];
	int first_err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pid);
	for (int pass = 0; pass < 100; pass++) {
		DIR *d = opendir(path);
		struct dirent *de;
		int added = 0;

		if (!d)
			return errno == ENOENT ? -ESRCH : -errno;
		while ((de = readdir(d))) {
			char *end;
			unsigned long tid = strtoul(de->d_name, &end, 10);
			if (*end || tid == 0 || find(t, (uint32_t)tid))
				continue;
			if (t->traced && seize((pid_t)tid, t->follow) < 0) {
				/* EPERM is harmless for a thread that a clone
				 * event already attached, or for a leader that
				 * is a zombie after pthread_exit(); it is the
				 * answer when no thread at all can be traced. */
				if (!first_err && errno != ESRCH)
					first_err = -errno;
				continue;
			}
			add_thread(t, t->pid, (uint32_t)tid);
			added = 1;
		}
		closedir(d);
		if (t->traced)
			poll_events(t);
		if (!added)
			break;
	}
	if (!t->nthreads)
		return first_err ? first_err : TARGET_E_NOTHREADS;
	return 0;
}

/* Seizes the n threads listed; one gone meanwhile is left out. */
static int seize_list(struct target *t, const uint32_t *tids, size_t n)
{
	int first_err = 0;

	for (size_t i = 0; i < n; i++) {
		if (find(t, tids[i]))
			continue;
		if (seize((pid_t)tids[i], t->follow) < 0) {
			if (!first_err && errno != ESRCH)
				first_err = -errno;
			continue;
		}
		add_thread(t, t->pid, tids[i]);
	}
	poll_events(t);
	if (!t->nthreads)
		return first_err ? first_err : -ESRCH;
	return 0;
}

/* Attaches to process pid: to the threads listed if tids, else to all. */
static int attach(pid_t pid, int traced, int follow, const uint32_t *tids, size_t n, struct target **out)
{
	struct target *t;
	int r;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return -ESRCH;
	t = target_new(pid);
	t->traced = traced;
	t->follow = follow;
	if (!traced)
		t->pid_fd = (int)syscall(SYS_pidfd_open, pid, 0);
	r = tids ? seize_list(t, tids, n) : seize_all(t);
	if (r < 0) {
		target_detach(t);
		target_free(t);
		return r;
	}
	*out = t;
	return 0;
}

int target_attach(pid_t pid, int follow, struct target **out) { return attach(pid, 1, follow, NULL, 0, out); }
int target_attach_untraced(pid_t pid, struct target **out) { return attach(pid, 0, 0, NULL, 0, out); }

struct target *target_view(pid_t pid)
{
	struct target *t = target_new(pid);

	t->detached = 1;
	return t;
}

int target_attach_threads(pid_t pid, const uint32_t *tids, size_t n, struct target **out)
{
	return attach(pid, 1, 0, tids, n, out);
}

static int launch(char *const argv[], int traced, int follow, struct target **out)
{
	int go[2] = { -1, -1 }, err[2] = { -1, -1 };
	struct target *t;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return -e;
	}
	if (pid == 0) {
		/* The child: wait until traced, then become the command. No
		 * SIGSTOP is ever raised, so no group-stop can be left behind
		 * if the recorder dies. */
		char c;
		int e;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGALRM, &sa, NULL);
		close(go[1]);
		close(err[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(err[1]);
	t = target_new(pid);
	t->launched = 1;
	t->traced = traced;
	t->follow = follow;
	t->go_fd = go[1];
	t->err_fd = err[0];
	if (traced && seize(pid, follow) < 0) {
		int e = errno;
		target_free(t);  /* closes go: the child exits */
		waitpid(pid, NULL, 0);
		return -e;
	}
	add_thread(t, pid, (uint32_t)pid);
	*out = t;
	return 0;
}

int target_launch(char *const argv[], int follow, struct target **out) { return launch(argv, 1, follow, out); }
int target_launch_untraced(char *const argv[], struct target **out) { return launch(argv, 0, 0, out); }

int target_launch_exec(struct target *t, int *exec_errno)
{
	int e = 0;
	ssize_t n;

	*exec_errno = 0;
	if (write(t->go_fd, "x", 1) != 1)
		return -errno;
	close(t->go_fd);
	t->go_fd = -1;
	/* The error pipe closes on a successful exec. Meanwhile the child may
	 * report stops (a signal before exec) that need an answer. */
	for (;;) {
		struct pollfd p = { t->err_fd, POLLIN, 0 };
		int r = poll(&p, 1, 10);
		if (r > 0)
			break;
		poll_events(t);
		if (t->exited)
			break;
	}
	n = read(t->err_fd, &e, sizeof(e));
	close(t->err_fd);
	t->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		*exec_errno = e;
		while (!t->exited) {
			poll_events(t);
			if (!t->exited)
				usleep(1000);
		}
		return TARGET_E_EXEC;
	}
	poll_events(t);
	return 0;
}

/* Brings one thread into a ptrace-stop and detaches it, delivering any
 * signal it was about to receive. Returns 1 when it is detached or gone,
 * 0 when it did not stop in time (on a loaded machine a runnable thread
 * may wait that long for a CPU): it is still traced, to be tried again. */
static int detach_one(struct target *t, pid_t tid)
{
	struct thread *th = find(t, (uint32_t)tid);

	if (th && th->held) {
		th->held = 0;
		ptrace(PTRACE_DETACH, tid, 0L, 0L);
		return 1;
	}
	if (ptrace(PTRACE_INTERRUPT, tid, 0L, 0L) < 0)
		return 1;
	arm(1);
	for (;;) {
		int status;
		pid_t r = waitpid(tid, &status, __WALL);
		if (r < 0 && errno == EINTR) {
			arm(0);
			return 0;
		}
		if (r < 0)
			break;  /* gone */
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			int gone, sig;
			classify(t, r, status, &gone, &sig);
			break;
		}
		if (!WIFSTOPPED(status))
			continue;
		int event = status >> 16, sig = WSTOPSIG(status);
		if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) {
			unsigned long child = 0;
			if (ptrace(PTRACE_GETEVENTMSG, tid, 0L, &child) == 0 && child)
				add_task(t, (uint32_t)child);
		}
		/* Detaching from a signal-delivery-stop passes the signal on;
		 * from a group-stop the kernel keeps the thread stopped only if
		 * the whole process still is, as whoever stopped it wanted. */
		ptrace(PTRACE_DETACH, tid, 0L, event == 0 ? (long)sig : 0L);
		break;
	}
	arm(0);
	return 1;
}

void target_detach(struct target *t)
{
	if (t->detached)
		return;
	if (t->go_fd >= 0) {
		close(t->go_fd);  /* a child that never exec'd exits */
		t->go_fd = -1;
	}
	if (!t->traced) {
		t->detached = 1;
		return;
	}
	for (int round = 0; round < 20 && t->nthreads; round++) {
		size_t n = t->nthreads;
		uint32_t *tids = xmalloc((n + 1) * sizeof(*tids));
		for (size_t i = 0; i < n; i++)
			tids[i] = t->threads[i].tid;
		for (size_t i = 0; i < n; i++) {
			if (!detach_one(t, (pid_t)tids[i]))
				continue;  /* the next round tries it again */
			struct thread *th = find(t, tids[i]);
			if (th) {
				if (th->stat_fd >= 0)
					close(th->stat_fd);
				*th = t->threads[--t->nthreads];
			}
		}
		free(tids);
		/* Threads cloned meanwhile arrive traced: catch them. */
		usleep(2000);
		for (;;) {
			int status;
			pid_t r = waitpid(-1, &status, __WALL | WNOHANG);
			if (r <= 0)
				break;
			if (WIFEXITED(status) || WIFSIGNALED(status)) {
				if (r == t->pid) {
					t->exited = 1;
					t->exit_status = status;
				}
				continue;
			}
			if (WIFSTOPPED(status)) {
				int event = status >> 16;
				ptrace(PTRACE_DETACH, r, 0L, event == 0 ? (long)WSTOPSIG(status) : 0L);
			}
		}
		if (!t->nthreads)
			break;
	}
	t->detached = 1;
}

int target_wait_exit(struct target *t, int timeout_ms, int *status)
{
	if (t->exited) {
		*status = t->exit_status;
		return 1;
	}
	if (!t->launched)
		return 0;
	for (int waited = 0; waited <= timeout_ms; waited += 5) {
		int st;
		pid_t r = waitpid(t->pid, &st, WNOHANG);
		if (r == t->pid) {
			t->exited = 1;
			t->exit_status = st;
			*status = st;
			return 1;
		}
		if (r < 0)
			return 0;
		usleep(5000);
	}
	return 0;
}

void target_free(struct target *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].stat_fd >= 0)
			close(t->threads[i].stat_fd);
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->err_fd >= 0)
		close(t->err_fd);
	if (t->pid_fd >= 0)
		close(t->pid_fd);
	free(t->threads);
	free(t->tids);
	free(t->events);
	free(t);
}
