/*
 * loop.h: the one recording loop of prof-record, and its sources.
 *
 * loop_run() drives a struct target, a source of samples and a struct
 * trace_writer. The loop owns everything the sources share: the image
 * table (re-read every 100 ms, and at once when a stack reaches code
 * outside every known image), the live threads and their names, the
 * counters, flushing the trace at least once a second, progress reports
 * and the end (asked to stop, the duration up, the target gone or
 * failed, or a write error), and each process's perf map and jitdumps,
 * read every 100 ms too and once more when it ends (jit.h). A source
 * only makes samples, in one of two ways:
 *
 *  - the tick source (source_tick.c) stops each thread of the target on
 *    a clock of its own, through target.h's stop and resume calls: ptrace
 *    on Linux, the Mach task on macOS;
 *  - the perf_event source (source_perf_linux.c) lets the kernel take
 *    the samples and drains its ring buffers.
 *
 * Either hands the loop what it found through the loop_* calls below:
 * thread starts, names and ends, execs, lost samples, and samples as
 * registers plus a stack copy (walked here) or as a walked stack. The loop
 * never prints: progress goes to an optional callback.
 */
#ifndef RECORD_LOOP_H
#define RECORD_LOOP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "format/trace.h"
#include "record/jit.h"
#include "record/target.h"
#include "record/unwind.h"

/* Why a recording ended. */
enum loop_end {
	LOOP_END_TARGET,        /* the target exited */
	LOOP_END_DURATION,      /* -d's time was up */
	LOOP_END_SIGNAL,        /* a signal (cfg->stop) */
	LOOP_END_STOP,          /* the control channel's stop */
	LOOP_END_CANCEL,        /* its cancel: the caller removes the trace */
	LOOP_END_ERROR,         /* a write error, or the target failed */
};

struct control;
struct control_command;

struct loop_stats {
	int end;                /* enum loop_end */
	uint64_t elapsed_ns;
	uint64_t samples;
	uint64_t processes;     /* processes seen: the target's and the children followed */
	uint64_t out_of_reach;  /* children lost to a program of another user */
	uint64_t unprivileged;  /* execs of a set-user-ID or set-group-ID program
	                         * that ran without its privileges (traced) */
	uint64_t threads;       /* threads seen */
	uint64_t live_threads;
	uint64_t thread_ns;     /* the threads' time alive while recorded and not
	                         * paused, summed */
	uint64_t paused_ns;     /* the time sampling was paused */
	uint64_t marks;         /* marks recorded */
	uint64_t first_sample;  /* when the first sample was written (loop_now()), or 0 */
	uint64_t images;
	uint64_t images_kept;   /* files in the image cache for this recording */
	uint64_t image_files;   /* distinct files the images are of */
	uint64_t files_hashed;  /* of them, given a content hash */
	uint64_t bytes_hashed;  /* the bytes read to hash them */
	uint64_t lost;          /* TRACE_COUNTER_SAMPLES_LOST */
	uint64_t bytes;         /* trace bytes written */
	struct jit_stats jit;   /* the perf maps and jitdumps read (jit.h) */
	uint64_t counters[TRACE_COUNTER__COUNT];
	int target_error;       /* what failed on the target's side and ended
	                         * the recording (loop_target_failed()), or 0 */
};

struct loop_config {
	uint32_t rate_hz;
	uint64_t duration_ns;   /* 0: until stopped or the target exits */
	size_t max_depth;
	const uint32_t *tids;   /* only these threads, if ntids > 0 (borrowed) */
	size_t ntids;
	const volatile sig_atomic_t *stop;  /* non-zero: finish now */
	int launched;           /* the target's first exec is its launch, whose
	                         * command the session has recorded */
	/* The image cache (images_keep()): its directory, or NULL for none;
	 * its size cap; whether every image with samples is kept. note()
	 * hears of each file kept, or not kept. */
	const char *image_cache;
	uint64_t image_cache_max;
	int keep_images;
	void (*image_kept)(void *ctx, const char *path, int err);
	void *image_kept_ctx;
	/* The control channel (control.h), borrowed, or NULL: read every
	 * round, as is app_marks, the file of names the launched program
	 * marks with (control_open_names()). command(), if set, hears of
	 * each command or mark read, with its source (TRACE_MARK_CONTROL or
	 * TRACE_MARK_APP), and NULL for one done and why for one refused.
	 * paused: start paused. */
	struct control *control, *app_marks;
	void (*command)(void *ctx, int source, const struct control_command *cmd, const char *refused);
	void *command_ctx;
	int paused;
	/* The files of the recording (output.h), if set: files_due() every
	 * round, and when it says a switch or snapshot is due, the counters
	 * are brought up to date and written, and files() does it (an error
	 * ends the loop as a write error does); ask() for the control
	 * channel's switch (1) or snapshot (0), NULL or why it is refused;
	 * crashed() when a process other than the first dies of a signal, as
	 * far as the sampler learns how processes end. */
	int (*files_due)(void *ctx, const struct trace_writer *w, uint64_t now);
	int (*files)(void *ctx, struct trace_writer *w, uint64_t now);
	const char *(*ask)(void *ctx, int switching);
	void (*crashed)(void *ctx, uint32_t pid, int sig);
	void *files_ctx;
	/* Called about four times a second, if set. */
	void (*progress)(void *ctx, const struct loop_stats *st);
	void *progress_ctx;
};

/* The loop, as its sources see it. */
struct loop;

struct source;

/* What a source does. The loop calls start() once, then, until the end,
 * wait() with the next deadline it has (the earliest of the source's
 * next_due() and its own book-keeping), then take(); at the end finish(),
 * then release(). Functions return 0 or a negative trace_writer error
 * (which ends the loop). */
struct source_ops {
	/* Begins sampling: the threads already there are known. */
	int (*start)(struct source *src, struct loop *s);
	/* When the source next has work, at or after now. */
	uint64_t (*next_due)(struct source *src, uint64_t now);
	/* Sleeps until deadline, until the source has work, or until a
	 * signal asks to stop. */
	void (*wait)(struct source *src, uint64_t deadline, const volatile sig_atomic_t *stop);
	/* Takes what is due at now. */
	int (*take)(struct source *src, struct loop *s, uint64_t now);
	/* Optional: a target event (target_next_event()), before the loop
	 * handles it. */
	int (*target_event)(struct source *src, struct loop *s,
			    const struct target_event *ev, uint64_t now);
	/* Optional: sampling pauses (paused 1) or resumes (0) at now. A
	 * source without it keeps taking, and the loop drops the samples of
	 * the pause. */
	void (*pause)(struct source *src, int paused, uint64_t now);
	/* Optional: brings the counters that only the source knows up to
	 * date in c (TRACE_COUNTER__COUNT of them), before each write of
	 * them, so that each file of a rotated recording counts its own. */
	void (*counters)(struct source *src, uint64_t *c);
	/* Optional: takes what the source still holds, at the end. */
	int (*finish)(struct source *src, struct loop *s, uint64_t now);
	/* Frees the source (NULL is not passed). */
	void (*release)(struct source *src);
};

/* A source: its ops, and whether the loop looks at thread names every
 * 100 ms (a source that reports renames itself does not need it). */
struct source {
	const struct source_ops *ops;
	int poll_names;
};

/* The trace's id of the process launched or attached to
 * (trace_writer_process(), written by the caller); the children a source
 * follows get the ids after it. */
#define LOOP_PROCESS 1

/* Monotonic nanoseconds, the clock of every trace timestamp. */
uint64_t loop_now(void);

/* Samples t into w with src until done; *st holds the totals afterwards.
 * Returns 0, or the negative trace_writer error that ended it. A failure
 * of the target ends it too, with 0 returned (the trace is whole) and
 * the error in st->target_error, for the caller to report. The writer
 * is left unfinished and the target attached: the caller detaches, then
 * finishes. src stays the caller's. */
int loop_run(const struct loop_config *cfg, struct target *t, struct source *src,
	     struct trace_writer *w, struct loop_stats *st);

/* The tick source (source_tick.c): on every tick of an absolute-deadline
 * clock at cfg's rate, each selected thread of t is stopped, read, let
 * go and walked. The caller frees it with source_free(). */
struct source *source_tick_new(struct target *t);
/* Releases a source; NULL is a no-op. */
void source_free(struct source *src);

/*
 * What a source calls, from start(), take(), target_event() and finish().
 */

/* The configuration and target of the run, borrowed. */
const struct loop_config *loop_config(const struct loop *s);
/* When the loop started: the start of the threads there already. */
uint64_t loop_started(const struct loop *s);
struct target *loop_target(const struct loop *s);
/* The counters, which a source may add to (TRACE_COUNTER_*). */
uint64_t *loop_counters(struct loop *s);
/* Whether thread tid is to be sampled (-t; all if none given). */
int loop_selected(const struct loop *s, uint32_t tid);
/* Whether tid is a live thread of the profile (started, not ended). */
int loop_thread_known(const struct loop *s, uint32_t tid);
/* Whether pid is a live process of the profile: the target's, or a child
 * started and not ended. */
int loop_process_known(const struct loop *s, uint32_t pid);
/* The live threads of process pid that the profile has. */
size_t loop_process_threads(const struct loop *s, uint32_t pid);
/* Process pid, a child of process parent (a pid; one not in the profile
 * leaves it without a parent), started at time: recorded, with its image
 * table a copy of its parent's, then what view (target_view(), freed by
 * the loop) reads of its map. A pid known already is ended first (its
 * end was missed, and the pid reused). */
int loop_process_start(struct loop *s, uint32_t pid, uint32_t parent, uint64_t time,
		       struct target *view);
/* A child process ended at time, or went out of reach, as kind (enum
 * trace_end_kind) says, with its wait(2) status for TRACE_END_EXITED:
 * its threads end, it is recorded, and its tables are freed. The
 * target's own process is the caller's. */
int loop_process_end(struct loop *s, uint32_t pid, uint64_t time, int kind, int status);
/* A thread of process pid (a known one; else the target's) started, or
 * was found, at time: recorded with the name the target gives it, if it
 * is selected and not known yet. */
int loop_thread_start(struct loop *s, uint32_t pid, uint32_t tid, uint64_t time);
/* A thread has this name from time on; recorded if it changed. A thread
 * not known is ignored. */
int loop_thread_name(struct loop *s, uint32_t tid, uint64_t time, const char *name);
/* A known thread ended at time. */
int loop_thread_end(struct loop *s, uint32_t tid, uint64_t time);
/* Thread tid of process pid called execve at time: the program's command
 * line recorded (or comm, its name, if given and the command line cannot
 * be read), the process's image table read again and the thread's new
 * name recorded. */
int loop_exec(struct loop *s, uint32_t pid, uint32_t tid, uint64_t time, const char *comm);
/* Process pid's image table, NULL if it is not known, for a source that
 * learns of mappings itself (perf_event's, images_mapped()); and the
 * writer to record them with. */
struct images *loop_images(struct loop *s, uint32_t pid);
struct trace_writer *loop_writer(struct loop *s);
/* The process is gone: the loop ends after this round. */
void loop_exited(struct loop *s);
/* The target failed in a way the recording cannot go on from (err, a
 * negative errno or TARGET_E_*: a thread that could not be let go, its
 * registers refused): the loop ends after this round, with the first
 * such err in the stats' target_error. */
void loop_target_failed(struct loop *s, int err);

/* A thread's registers and the copy of its stack from sp (window), the
 * way a source takes them. read (may be NULL) reads the rest of the
 * target's memory, with ctx. */
struct loop_regs {
	uint32_t tid;           /* whose: its process's images walk it */
	int arch;               /* enum unwind_arch */
	struct unwind_regs regs;
	uint64_t window_addr;
	const uint8_t *window;
	size_t window_len;
	int window_whole;       /* see struct unwind_memory */
	memory_read_fn read;
	void *read_ctx;
};

/* Walks r's stack, with the image table's return-address test and CFI,
 * into the loop's frame buffer, which it returns: *n frames, leaf first,
 * with room for the configured max_depth (the caller may add frames up
 * to that), borrowed until the next walk. *stop is the enum unwind_stop. */
uint64_t *loop_walk(struct loop *s, const struct loop_regs *r, size_t *n, int *stop);
/* How each frame of the last walk was found (struct unwind_frame), *n of
 * them; borrowed until the next walk. */
const struct unwind_frame *loop_trail(const struct loop *s);
/* Whether a sample taken at time is kept: not if sampling was paused
 * then. A source that cannot stop sampling asks before it walks. */
int loop_keeps(const struct loop *s, uint64_t time);
/* Records one sample of tid at time, with its state (enum trace_state),
 * TRACE_SAMPLE_* flags and stack (leaf first, borrowed), whose walk ended
 * for the enum unwind_stop reason stop: counted, and a stack cut at the
 * depth cap marked truncated. A stack that reaches code outside every
 * known image has the image table read again first (at most once per
 * 100 ms), so that its image precedes it. A sample of a pause is left out
 * (loop_keeps()). */
int loop_sample(struct loop *s, uint64_t time, uint32_t tid, uint8_t state, uint8_t flags,
		const uint64_t *frames, size_t n, int stop);
/* Adds n to the samples-lost counter. */
void loop_lost(struct loop *s, uint64_t n);

#endif
