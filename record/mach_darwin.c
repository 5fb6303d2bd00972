/*
 * mach_darwin.c: the Mach layer of mach.h, and nothing else.
 *
 * Each function makes the Mach (or BSD) calls its header names and turns
 * their results into the portable structs and errno codes of mach.h; no
 * target memory is parsed here, so that everything which could be wrong
 * with what a process holds is handled in portable code that the tests
 * run on Linux. Part of prof-record on macOS only (the Makefile keeps
 * *_darwin.c out elsewhere, and no test links this one); on Linux, make macos compiles it against the
 * cross-compiler's macOS headers, which is as far as this project's CI
 * goes: it is never run there.
 *
 * Ports: the task port from task_for_pid is kept for the session; the
 * thread ports of the latest task_threads list are kept until the next
 * list replaces them, and every one is given back with
 * mach_port_deallocate, the list itself with vm_deallocate.
 *
 * Memory is read with vm_read_overwrite of <mach/vm_map.h> rather than
 * mach_vm_read_overwrite of <mach/mach_vm.h>, which the cross-compiler's
 * headers lack: prof-record is a 64-bit program, whose vm_address_t and
 * vm_size_t are 64 bits, so the two calls are the same.
 *
 * A command spawned with POSIX_SPAWN_START_SUSPENDED is a process whose
 * task the kernel suspended (task_suspend_internal in XNU's exec), and a
 * SIGKILL alone does not end it: XNU's psignal_internal() marks the
 * process running and aborts one of its threads, but does not resume the
 * task, so the thread parks again before it can take the signal, and a
 * waitpid() for it would wait forever. kill_suspended() resumes it after
 * the signal, and bounds its wait.
 */
#include "mach.h"
#include "common/diag.h"
#include "format/trace.h"

#include <errno.h>
#include <mach/mach.h>
#include <mach/vm_map.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysctl.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

struct port {
	uint64_t id;
	thread_act_t port;
};

struct macos_task {
	pid_t pid;
	task_t task;
	task_suspension_token_t token;   /* while suspended by macos_suspend() */
	struct port *ports;
	size_t nports;
	uint64_t *ids;
	size_t ids_cap;
};

/* A Mach error as mach.h's errno codes. */
static int from_kern(kern_return_t kr)
{
	switch (kr) {
	case KERN_SUCCESS:
		return 0;
	case KERN_TERMINATED:
	case MACH_SEND_INVALID_DEST:
	case KERN_INVALID_NAME:
	case KERN_INVALID_RIGHT:
		return -ESRCH;
	case KERN_INVALID_ARGUMENT:
		return -EINVAL;
	case KERN_INVALID_ADDRESS:
	case KERN_PROTECTION_FAILURE:
	case KERN_NO_SPACE:
		return -EFAULT;
	default:
		return -EIO;
	}
}

static void drop_ports(struct macos_task *t)
{
	for (size_t i = 0; i < t->nports; i++)
		mach_port_deallocate(mach_task_self(), t->ports[i].port);
	free(t->ports);
	t->ports = NULL;
	t->nports = 0;
}

static int take_task(pid_t pid, struct macos_task **out)
{
	mach_port_t task;
	kern_return_t kr = task_for_pid(mach_task_self(), pid, &task);

	if (kr != KERN_SUCCESS) {
		/* task_for_pid says only KERN_FAILURE: tell a missing process
		 * from a refusal. */
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return -ESRCH;
		return -EPERM;
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->pid = pid;
	(*out)->task = task;
	return 0;
}

int macos_attach(pid_t pid, struct macos_task **out)
{
	return take_task(pid, out);
}

/* How long a killed process that was never let run may take to be
 * reaped, and how often SIGCONT is sent meanwhile. */
#define KILL_WAIT_MS 2000
#define KILL_CONT_MS 50

/*
 * Kills pid, which has run nothing since its suspended spawn, and reaps
 * it: SIGKILL, then the task resumed, with task_resume when its port is
 * held (task) and with SIGCONT, whose default action resumes the task,
 * in any case. The thread then takes the pending SIGKILL before it
 * returns to user mode, so no instruction of the command runs. SIGCONT is
 * sent again while the wait lasts: the kernel passes over a thread that
 * the kill's abort still marks, until that thread has been woken and
 * parked again. Returns 0 with *status set, or a negative errno
 * (-ETIMEDOUT when it was not reaped within KILL_WAIT_MS).
 */
static int kill_suspended(pid_t pid, task_t task, int *status)
{
	struct timespec step = { 0, 1000000 };

	kill(pid, SIGKILL);
	if (task != MACH_PORT_NULL)
		task_resume(task);
	for (int waited = 0; waited < KILL_WAIT_MS; waited++) {
		pid_t r;

		if (waited % KILL_CONT_MS == 0)
			kill(pid, SIGCONT);
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0)
			return -errno;
		nanosleep(&step, NULL);
	}
	return -ETIMEDOUT;
}

int macos_spawn(char *const argv[], struct macos_task **out, int *spawn_errno)
{
	posix_spawnattr_t attr;
	pid_t pid;
	int r, k, status;

	*out = NULL;
	*spawn_errno = 0;
	r = posix_spawnattr_init(&attr);
	if (r != 0)
		return -r;
	r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_START_SUSPENDED);
	if (r != 0) {
		/* Ours, not the command's: nothing was run. (Apple's libc
		 * refuses only an object that init did not make.) */
		posix_spawnattr_destroy(&attr);
		return -r;
	}
	r = posix_spawnp(&pid, argv[0], NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (r != 0) {
		*spawn_errno = r;
		return 0;
	}
	r = take_task(pid, out);
	/* Not ours to profile after all: it must not stay suspended. One
	 * that does is the error, which must name it. */
	if (r < 0 && (k = kill_suspended(pid, MACH_PORT_NULL, &status)) < 0) {
		prof_error_note(k, "its task was refused (%s), and process %d, spawned suspended, was not reaped "
				"within %d ms of SIGKILL and SIGCONT (%s): it may be left suspended; "
				"kill -KILL %d, then kill -CONT %d", strerror(-r), (int)pid, KILL_WAIT_MS,
				strerror(-k), (int)pid, (int)pid);
		r = k;
	}
	return r;
}

pid_t macos_pid(const struct macos_task *t) { return t->pid; }

int macos_start(struct macos_task *t)
{
	return from_kern(task_resume(t->task));
}

int macos_kill(struct macos_task *t, int *status)
{
	return kill_suspended(t->pid, t->task, status);
}

int macos_reap(struct macos_task *t, int *status)
{
	pid_t r = waitpid(t->pid, status, WNOHANG);

	if (r < 0)
		return -errno;
	return r == t->pid;
}

int macos_proc_info(pid_t pid, struct macos_proc *out)
{
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PID, pid };
	struct kinfo_proc kp;
	size_t len = sizeof(kp);

	memset(out, 0, sizeof(*out));
	if (sysctl(mib, 4, &kp, &len, NULL, 0) < 0)
		return -errno;
	/* No such process: the kernel answers with nothing. */
	if (len < sizeof(kp)) {
		out->state = MACOS_PROC_GONE;
		return 0;
	}
	out->state = kp.kp_proc.p_stat == SZOMB ? MACOS_PROC_ZOMBIE : MACOS_PROC_ALIVE;
	out->status = kp.kp_proc.p_xstat;
	out->translated = (kp.kp_proc.p_flag & P_TRANSLATED) != 0;
	return 0;
}

int macos_suspend(struct macos_task *t)
{
	return from_kern(task_suspend2(t->task, &t->token));
}

void macos_resume(struct macos_task *t)
{
	task_resume2(t->token);
	t->token = MACH_PORT_NULL;
}

int macos_threads(struct macos_task *t, const uint64_t **ids, size_t *n)
{
	thread_act_array_t list;
	mach_msg_type_number_t count, k = 0;
	kern_return_t kr = task_threads(t->task, &list, &count);

	if (kr != KERN_SUCCESS)
		return from_kern(kr);
	drop_ports(t);
	t->ports = xcalloc(count ? count : 1, sizeof(*t->ports));
	t->ids = xgrow(t->ids, &t->ids_cap, count + 1, sizeof(*t->ids));
	for (mach_msg_type_number_t i = 0; i < count; i++) {
		thread_identifier_info_data_t info;
		mach_msg_type_number_t cnt = THREAD_IDENTIFIER_INFO_COUNT;

		/* A thread that ended since the list was made is left out. */
		if (thread_info(list[i], THREAD_IDENTIFIER_INFO, (thread_info_t)&info, &cnt) != KERN_SUCCESS) {
			mach_port_deallocate(mach_task_self(), list[i]);
			continue;
		}
		t->ports[k] = (struct port){ info.thread_id, list[i] };
		t->ids[k++] = info.thread_id;
	}
	t->nports = k;
	vm_deallocate(mach_task_self(), (vm_address_t)list, count * sizeof(*list));
	*ids = t->ids;
	*n = k;
	return 0;
}

static thread_act_t port_of(struct macos_task *t, uint64_t id)
{
	for (size_t i = 0; i < t->nports; i++)
		if (t->ports[i].id == id)
			return t->ports[i].port;
	return MACH_PORT_NULL;
}

int macos_thread_info(struct macos_task *t, uint64_t id, struct macos_thread_info *out)
{
	thread_act_t port = port_of(t, id);
	thread_extended_info_data_t info;
	mach_msg_type_number_t cnt = THREAD_EXTENDED_INFO_COUNT;
	kern_return_t kr;

	if (port == MACH_PORT_NULL)
		return -ESRCH;
	kr = thread_info(port, THREAD_EXTENDED_INFO, (thread_info_t)&info, &cnt);
	if (kr != KERN_SUCCESS)
		return from_kern(kr);
	switch (info.pth_run_state) {
	case TH_STATE_RUNNING: out->state = TRACE_STATE_RUNNING; break;
	case TH_STATE_WAITING: out->state = TRACE_STATE_SLEEPING; break;
	case TH_STATE_UNINTERRUPTIBLE: out->state = TRACE_STATE_DISK; break;
	case TH_STATE_STOPPED: out->state = TRACE_STATE_STOPPED; break;
	default: out->state = TRACE_STATE_OTHER; break;
	}
	memcpy(out->name, info.pth_name, sizeof(out->name) - 1);
	out->name[sizeof(out->name) - 1] = 0;
	return 0;
}

int macos_thread_regs(struct macos_task *t, uint64_t id, int *arch, struct unwind_regs *r)
{
	thread_act_t port = port_of(t, id);
	kern_return_t kr;

	if (port == MACH_PORT_NULL)
		return -ESRCH;
#if defined(__arm64__)
	arm_thread_state64_t s;
	mach_msg_type_number_t cnt = ARM_THREAD_STATE64_COUNT;
	kr = thread_get_state(port, ARM_THREAD_STATE64, (thread_state_t)&s, &cnt);
	if (kr != KERN_SUCCESS)
		return from_kern(kr);
	/* In a plain arm64 build the accessors return the registers as they
	 * are: lr may be signed, and the unwinder strips it. */
	r->pc = (uint64_t)(uintptr_t)__darwin_arm_thread_state64_get_pc(s);
	r->lr = (uint64_t)(uintptr_t)__darwin_arm_thread_state64_get_lr(s);
	r->sp = (uint64_t)(uintptr_t)__darwin_arm_thread_state64_get_sp(s);
	r->fp = (uint64_t)(uintptr_t)__darwin_arm_thread_state64_get_fp(s);
	*arch = UNWIND_ARCH_ARM64;
#else
	x86_thread_state64_t s;
	mach_msg_type_number_t cnt = x86_THREAD_STATE64_COUNT;
	kr = thread_get_state(port, x86_THREAD_STATE64, (thread_state_t)&s, &cnt);
	if (kr != KERN_SUCCESS)
		return from_kern(kr);
	r->pc = s.__rip;
	r->sp = s.__rsp;
	r->fp = s.__rbp;
	r->lr = 0;
	*arch = UNWIND_ARCH_X86_64;
#endif
	return 0;
}

int macos_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct macos_task *t = ctx;
	vm_size_t got = 0;
	kern_return_t kr = vm_read_overwrite(t->task, addr, len, (vm_address_t)buf, &got);

	if (kr != KERN_SUCCESS)
		return from_kern(kr) == -ESRCH ? -ESRCH : -EFAULT;
	return got == len ? 0 : -EFAULT;
}

int macos_dyld_info(struct macos_task *t, uint64_t *addr, uint64_t *size)
{
	struct task_dyld_info info;
	mach_msg_type_number_t cnt = TASK_DYLD_INFO_COUNT;
	kern_return_t kr = task_info(t->task, TASK_DYLD_INFO, (task_info_t)&info, &cnt);

	if (kr != KERN_SUCCESS)
		return from_kern(kr);
	*addr = info.all_image_info_addr;
	*size = info.all_image_info_size;
	return 0;
}

int macos_procargs(struct macos_task *t, struct buf *out)
{
	int mib[3] = { CTL_KERN, KERN_ARGMAX, 0 }, argmax = 0;
	size_t len = sizeof(argmax);

	if (sysctl(mib, 2, &argmax, &len, NULL, 0) < 0 || argmax <= 0)
		return -errno;
	buf_reset(out);
	buf_grow(out, (size_t)argmax);
	mib[1] = KERN_PROCARGS2;
	mib[2] = t->pid;
	len = (size_t)argmax;
	if (sysctl(mib, 3, out->data, &len, NULL, 0) < 0)
		return -errno;
	out->len = len;
	return 0;
}

void macos_free(struct macos_task *t)
{
	if (!t)
		return;
	drop_ports(t);
	if (t->token != MACH_PORT_NULL)
		task_resume2(t->token);
	mach_port_deallocate(mach_task_self(), t->task);
	free(t->ids);
	free(t);
}
