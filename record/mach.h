/*
 * mach.h: the thin Mach layer under the macOS target.
 *
 * mach_darwin.c implements these functions with Mach calls and nothing
 * else: it fills the portable structs below and never parses target
 * memory. Everything above it is portable C compiled on Linux too:
 * target_darwin.c (the struct target of target.h: threads, events, the
 * task held suspended while a tick's threads are read) and images_darwin.c
 * (the image table, from dyld's list through record/dyld.c). So a test can
 * link those two with a synthetic layer (a memory image and thread
 * register states) and run the real loop on it. Every _darwin.c file
 * is kept out of Linux's prof-record; mach_darwin.c, the one file that
 * includes Mach's headers, is compiled only for macOS (there, or by make
 * macos), the other two on Linux too, for the tests (mk/macos.mk).
 *
 * Thread ids are the system-wide 64-bit ids of THREAD_IDENTIFIER_INFO.
 * Functions return 0 or a negative errno: -ESRCH for a process or thread
 * that is gone (KERN_TERMINATED, MACH_SEND_INVALID_DEST), -EPERM for a
 * refused task_for_pid, -EFAULT for unreadable memory, -EINVAL for a
 * call the kernel finds malformed (KERN_INVALID_ARGUMENT: a wrong flavor
 * or count, or a thread whose architecture is not the one asked for),
 * -EIO for any other Mach error.
 */
#ifndef RECORD_MACH_H
#define RECORD_MACH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/buf.h"
#include "record/target.h"
#include "record/unwind.h"

#define MACOS_NAME_MAX 64   /* MAXTHREADNAMESIZE */

/* arm64 macOS user addresses lie below 1 << 47 (MACH_VM_MAX_ADDRESS), so
 * a signed pointer's authentication code starts at bit 47. */
#define MACOS_ARM64_VA_BITS 47

struct macos_task;

struct macos_thread_info {
	uint8_t state;                 /* enum trace_state, from THREAD_EXTENDED_INFO */
	char name[MACOS_NAME_MAX];     /* NUL-terminated; empty if unnamed */
};

enum macos_proc_state {
	MACOS_PROC_GONE,       /* no such process */
	MACOS_PROC_ALIVE,
	MACOS_PROC_ZOMBIE,     /* exited, its status not yet collected by its parent */
};

/* What the system says of a process (sysctl KERN_PROC_PID). */
struct macos_proc {
	int state;             /* enum macos_proc_state */
	int status;            /* a zombie's wait(2) status */
	int translated;        /* it runs x86_64 code under Rosetta (P_TRANSLATED) */
};

/* task_for_pid. On success the caller owns *out (macos_free()). */
int macos_attach(pid_t pid, struct macos_task **out);
/* Spawns argv (borrowed; argv[0] looked up on PATH) suspended before its
 * first instruction, and takes its task. *spawn_errno is set, and 0
 * returned with *out NULL, when the command could not be executed. If
 * its task cannot be had, the process is killed and reaped, with a wait
 * bounded as macos_kill()'s; one that outlasts it makes the error that
 * wait's, with a note (prof_error_note()) that names the process. */
int macos_spawn(char *const argv[], struct macos_task **out, int *spawn_errno);
pid_t macos_pid(const struct macos_task *t);
/* Lets a task spawned suspended run (task_resume). */
int macos_start(struct macos_task *t);
/* Kills a spawned process that was never let run and reaps it: SIGKILL,
 * then task_resume and SIGCONT, as a task suspended since its spawn
 * cannot die before it is resumed. Returns 0 with *status set, or a
 * negative errno: -ETIMEDOUT when it was not reaped within 2 s. */
int macos_kill(struct macos_task *t, int *status);
/* Whether a spawned process has exited: 1 with *status set once it has
 * been reaped (waitpid, without blocking), 0 if it runs. */
int macos_reap(struct macos_task *t, int *status);
/* The state of process pid, which may be prof-record's own. */
int macos_proc_info(pid_t pid, struct macos_proc *out);

/* Suspends every thread of the task (task_suspend2: the suspension ends
 * by itself if the recorder dies). */
int macos_suspend(struct macos_task *t);
/* Lets them go again (task_resume2). It cannot fail in a way that leaves
 * them suspended: the kernel uses up the suspension token whatever it
 * answers, and refuses only a task that is gone or holds no suspension
 * (XNU's task_resume2 and release_task_hold). */
void macos_resume(struct macos_task *t);

/* The live threads (task_threads), borrowed until the next call. */
int macos_threads(struct macos_task *t, const uint64_t **ids, size_t *n);
/* Run state and name of thread id (THREAD_EXTENDED_INFO). */
int macos_thread_info(struct macos_task *t, uint64_t id, struct macos_thread_info *out);
/* The registers of thread id of a suspended task (thread_get_state, the
 * flavor of prof-record's own architecture), as the kernel gives them:
 * lr may carry pointer-authentication bits, which the unwinder strips
 * (MACOS_ARM64_VA_BITS). *arch is its enum unwind_arch. */
int macos_thread_regs(struct macos_task *t, uint64_t id, int *arch, struct unwind_regs *r);

/* Reads target memory (vm_read_overwrite); ctx is the macos_task.
 * The memory_read_fn of dyld's reader and the unwinder. */
int macos_read(void *ctx, uint64_t addr, void *buf, size_t len);
/* Where dyld's all_image_infos lies, and its size (TASK_DYLD_INFO); addr
 * is 0 before dyld has set it. */
int macos_dyld_info(struct macos_task *t, uint64_t *addr, uint64_t *size);
/* The raw KERN_PROCARGS2 bytes of the process into out (replaced). */
int macos_procargs(struct macos_task *t, struct buf *out);
/* Lets go a suspension still held, and gives up the task and thread
 * ports; NULL is a no-op. A spawned process is left as it is: the
 * target decides whether to kill it first. */
void macos_free(struct macos_task *t);

/* The task under a struct target of target_darwin.c, borrowed. */
struct macos_task *target_darwin_task(struct target *t);

#endif
