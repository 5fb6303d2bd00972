/*
 * target.h: the platform layer under the loop and its sources.
 *
 * A struct target is one profiled process: launched or attached, its
 * threads tracked as they come and go, each thread stopped briefly to be
 * sampled and then let go. The loop (loop.c) and the tick source
 * (source_tick.c) are written against this interface only;
 * target_linux_ptrace.c implements it with ptrace, and target_darwin.c on
 * macOS, above the Mach layer of mach.h.
 *
 * Library code: functions return 0 or a negative errno (or TARGET_E_*),
 * described by prof_strerror(). Nothing prints.
 */
#ifndef RECORD_TARGET_H
#define RECORD_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/errors.h" /* TARGET_E_* */
#include "record/unwind.h"

enum target_event_kind {
	TARGET_EVENT_THREAD_START, /* tid of process pid is new (or was found at attach) */
	TARGET_EVENT_THREAD_END,   /* tid exited */
	TARGET_EVENT_EXEC,         /* process pid called execve: images change;
	                            * status 1 if the program is set-user-ID or
	                            * set-group-ID and runs without it (the
	                            * kernel's rule for a traced process) */
	TARGET_EVENT_EXIT,         /* the process is gone; status is its wait status */
	TARGET_EVENT_PROCESS_START, /* following: process pid, a child of parent, began */
	TARGET_EVENT_PROCESS_END,  /* following: process pid ended, with status */
};

struct target_event {
	int kind;
	uint32_t tid;
	int status;
	uint32_t pid;           /* the process of tid, or the one started or ended */
	uint32_t parent;        /* PROCESS_START: the parent's pid */
};

/* A thread held stopped by target_stop_thread(). The window is a copy of
 * the stack from sp upward, borrowed until target_resume_thread(). */
struct target_stop {
	uint32_t tid;
	uint8_t state;          /* enum trace_state, read before stopping it */
	int arch;               /* enum unwind_arch */
	struct unwind_regs regs;
	uint64_t window_addr;
	const uint8_t *window;
	size_t window_len;
};

struct target;

/* Attaches to every thread of process pid without stopping it for more than
 * an instant. -ESRCH: no such process; -EPERM: not allowed. On success the
 * caller owns *out (target_free()). With follow (Linux), the processes it
 * starts from then on are traced too, their threads among the target's,
 * each start and end an event. */
int target_attach(pid_t pid, int follow, struct target **out);
/* Forks a child for argv (borrowed) that waits, traced, until
 * target_launch_exec(); nothing of argv runs before. follow: as above. */
int target_launch(char *const argv[], int follow, struct target **out);
/* Lets the launched child exec its command and waits until it has. Returns
 * 0, or TARGET_E_EXEC with *exec_errno set when execvp failed (the child
 * has then exited and been reaped). */
int target_launch_exec(struct target *t, int *exec_errno);
/* Linux: the same two, but nothing is traced, for a source that follows
 * the threads itself (perf_event): the threads there at the start are
 * listed from /proc, the process's exit is seen (a launched child's
 * status too, as its parent), and no thread can be stopped. */
int target_attach_untraced(pid_t pid, struct target **out);
int target_launch_untraced(char *const argv[], struct target **out);
/* Linux: attaches to just these n threads of process pid (borrowed), as
 * target_attach() does to all; a thread gone meanwhile is left out. Also
 * -ESRCH when none is left. */
int target_attach_threads(pid_t pid, const uint32_t *tids, size_t n, struct target **out);

/* Linux: process pid seen through /proc only, for what target_read(),
 * target_read_maps(), target_open_mapped(), target_cmdline() and
 * target_thread_name() read of it: nothing is listed, traced or
 * watched. A child process followed. The caller frees it with
 * target_free(). NULL on macOS, where children are not followed. */
struct target *target_view(pid_t pid);

pid_t target_pid(const struct target *t);
/* 1 when the process has exited and its wait(2) status, then in *status,
 * is known (not so for an untraced process we did not launch). */
int target_exited(const struct target *t, int *status);

/* Handles whatever the target's threads reported since the last call
 * (new threads, exits, signals to pass on, job-control stops) without
 * blocking, and queues events for target_next_event(). Returns 0, or a
 * negative errno when the system cannot say whether the process still
 * runs, or lets its threads no longer be listed while it does (macOS):
 * the recording cannot go on. Linux's cannot fail. */
int target_poll(struct target *t);
/* Takes the oldest queued event: returns 1 with *ev set, or 0 when none. */
int target_next_event(struct target *t, struct target_event *ev);

/* The live threads, borrowed until the next call into t. */
size_t target_threads(struct target *t, const uint32_t **tids);

/* Asks thread tid to stop, without waiting, so that several threads can
 * be brought to a stop at once; its run state is read first. The next
 * target_stop_thread() for tid then only waits. */
int target_interrupt_thread(struct target *t, uint32_t tid);
/* Stops thread tid and reads its registers and stack window into *s.
 * Returns 0 (the thread is then stopped until target_resume_thread()),
 * -ESRCH when the thread exited, or -EAGAIN when it did not stop in time. */
int target_stop_thread(struct target *t, uint32_t tid, struct target_stop *s);
/* Linux: thread tid's run state now (enum trace_state), from /proc,
 * without stopping it; TRACE_STATE_UNKNOWN for a thread not known. */
uint8_t target_thread_state(struct target *t, uint32_t tid);
/* Reads target memory of a stopped thread's process; the
 * unwind_memory read callback (ctx is the struct target). */
int target_read(void *ctx, uint64_t addr, void *buf, size_t len);
/* Lets a thread stopped by target_stop_thread() run again. Returns 0
 * once it runs or has ended, or a negative errno when it could not be
 * let go (Linux): it is then still held, and target_detach() lets it go.
 * macOS's cannot fail. */
int target_resume_thread(struct target *t, uint32_t tid);
/* Linux: target_stop_thread() for a thread already asked to stop
 * (target_interrupt_thread()), without waiting: -EAGAIN while it has not
 * stopped yet (a thread waiting for a CPU stops once it gets one). */
int target_stopped_thread(struct target *t, uint32_t tid, struct target_stop *s);
/* Linux: lets a thread held stopped go and stops tracing it, at once. */
void target_release_thread(struct target *t, uint32_t tid);

/* The thread's current name, NUL-terminated into buf of n bytes. */
int target_thread_name(struct target *t, uint32_t tid, char *buf, size_t n);
/* Replaces out's contents with the process's memory-map text. Linux only,
 * like target_open_mapped(): on macOS images come from dyld's list. */
int target_read_maps(struct target *t, struct buf *out);
/* One mapping of a file in the target, as its map shows it. */
struct target_mapping {
	uint64_t start, end;       /* one mapping (a VMA) of the file */
	uint64_t inode;
	unsigned dev_major, dev_minor;
	const char *path;          /* as the map shows it, " (deleted)" and all */
};

/* Files larger than this are not opened. */
#define TARGET_MAPPED_MAX ((uint64_t)16 << 30)

/* Opens the file of mapping m as the target maps it: the very file,
 * through /proc/PID/map_files (which takes privilege); else at its path
 * in the target's root and mount namespace (/proc/PID/root, symlinks kept
 * inside that root); else at its path. A file found by path is taken only
 * if it is the one mapped (the same device and inode), so the target's
 * symlinks lead nowhere it could not read itself. Only a non-empty regular
 * file of at most TARGET_MAPPED_MAX bytes is taken, opened non-blocking and
 * read-only. Returns an fd the caller closes, with *source (enum
 * trace_image_source) and *st its fstat(2); or a negative errno, with
 * why (n bytes) saying what each way gave. */
int target_open_mapped(struct target *t, const struct target_mapping *m, int *source, struct stat *st,
		       char *why, size_t n);
/* The process's command line as a NULL-terminated heap vector; caller frees
 * each string and the vector. */
int target_cmdline(struct target *t, char ***argv, uint32_t *argc);

/* Lets every thread go: none is left stopped by the recorder, and signals
 * that arrived meanwhile are delivered. After this only target_free(),
 * target_exited() and target_wait_exit() may be called. Cannot fail. */
void target_detach(struct target *t);
/* For a launched target after detach: waits up to timeout_ms for it to
 * exit. Returns 1 with *status set if it did, 0 if not. */
int target_wait_exit(struct target *t, int timeout_ms, int *status);
void target_free(struct target *t);

#endif
