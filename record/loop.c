/*
 * loop.c: the recording loop, the same for every source of samples.
 *
 * Each round sleeps until the earliest deadline (the source's next tick or
 * drain, or the loop's own book-keeping), then answers the target's events
 * (new threads, ends, exec, exit), lets the source take what is due, and
 * does what is due of the book-keeping, on coarser clocks than samples:
 * the image map and thread names every 100 ms, progress every 250 ms, the
 * counters and a flush every 500 ms (well inside the promised once a
 * second). The live threads are kept in a table with their names, so a
 * name is written only when it changes, and a thread's end only once.
 *
 * The live processes are a table too: the target's, and the children a
 * source follows, each with its own image table (address spaces differ,
 * so a stack is walked with its own process's images) and its exec
 * waiting for a command line. A child's images begin as its parent's (a
 * fork copies the address space), so a child gone before its map could
 * be read still has them; an ended child's tables are freed at once, so
 * a harness that starts thousands of processes costs what those alive
 * at a time do.
 *
 * The control channel (control.h) is read every round, so a stop ends the
 * recording within a round (100 ms at most, the book-keeping's clock),
 * and the launched program's file of marks every 10 ms. A
 * pause tells the source, which stops if it can (the tick source's clock)
 * and leaves the pause out of its accounts (perf_event's CPU time), and
 * the loop drops whatever samples are still made until the resume
 * (perf_event's kernel goes on sampling, and its rings must be drained);
 * the pause is written to the trace at its resume, or at the end, and the
 * live threads' time alive leaves it out.
 */
#include "loop.h"
#include "control.h"
#include "images.h"
#include "common/diag.h"
#include "common/hmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#define NAME_BYTES 64
#define MAINT_NS (100 * 1000000ull)
#define PROGRESS_NS (250 * 1000000ull)
#define MARKS_NS (10 * 1000000ull)  /* the app's marks are stamped as read */
#define FLUSH_NS (500 * 1000000ull)

struct sthread {
	uint32_t tid;
	uint32_t pid;           /* its process's */
	uint64_t start;         /* when it started, or the recording did */
	char name[NAME_BYTES];
};

struct sproc {
	uint32_t pid;
	uint32_t id;            /* the trace's */
	struct target *view;    /* a child's (owned), or the target */
	struct images *images;
	struct jit *jit;        /* its perf map and jitdumps */
	int exec_pending;       /* an exec whose command line is not readable yet: */
	uint64_t exec_time;     /* when it was, */
	char exec_comm[64];     /* and the name it gave, "" if none */
};

struct loop {
	const struct loop_config *cfg;
	struct target *t;
	struct source *src;
	struct trace_writer *w;
	struct loop_stats *st;
	struct sproc *pr;       /* the live processes, the target's first */
	size_t npr, pr_cap;
	struct hmap pr_index;   /* (pid, 0) -> index into pr + 1 */
	uint32_t next_process;  /* the next child's trace id */
	uint64_t images_ended;  /* images recorded of the processes ended */
	struct jit_stats jit_ended; /* what the processes ended read */
	struct images *files;   /* shares the files of every process's images */
	struct sthread *th;     /* the live threads */
	size_t nth, th_cap;
	struct hmap th_index;   /* (tid, 0) -> index into th + 1, of the live ones */
	uint64_t *frames;       /* max_depth of them */
	struct unwind_frame *trail;  /* the last walk's, max_depth of them */
	size_t max_depth;
	uint64_t start;         /* when the loop started */
	uint64_t next_refresh;  /* the earliest unknown-code re-read of the map */
	uint64_t next_maint, next_progress, next_flush, next_marks;
	int exited;
	int launch_seen;        /* the launch's exec has been seen */
	int halt;               /* a stop or cancel read: enum loop_end + 1 */
	int paused;
	uint64_t pause_start;   /* the current pause's, while paused */
	uint64_t drop_from;     /* samples from here on are of the pause (all of
	                         * them before it too, for --paused) */
	uint64_t last_pause_start, last_pause_end; /* the one before */
};

uint64_t loop_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const struct loop_config *loop_config(const struct loop *s) { return s->cfg; }
uint64_t loop_started(const struct loop *s) { return s->start; }
struct target *loop_target(const struct loop *s) { return s->t; }
uint64_t *loop_counters(struct loop *s) { return s->st->counters; }
void loop_exited(struct loop *s) { s->exited = 1; }

void loop_target_failed(struct loop *s, int err)
{
	if (!s->st->target_error)
		s->st->target_error = err;
}

/* Whether the recording is over, the target gone or failed. */
static int ended(const struct loop *s) { return s->exited || s->st->target_error; }

void loop_lost(struct loop *s, uint64_t n)
{
	s->st->counters[TRACE_COUNTER_SAMPLES_LOST] += n;
}

int loop_selected(const struct loop *s, uint32_t tid)
{
	if (!s->cfg->ntids)
		return 1;
	for (size_t i = 0; i < s->cfg->ntids; i++)
		if (s->cfg->tids[i] == tid)
			return 1;
	return 0;
}

static struct sthread *find(const struct loop *s, uint32_t tid)
{
	uint64_t *slot = hmap_get(&s->th_index, tid, 0);
	return slot ? &s->th[*slot - 1] : NULL;
}

int loop_thread_known(const struct loop *s, uint32_t tid) { return find(s, tid) != NULL; }

static struct sproc *find_process(const struct loop *s, uint32_t pid)
{
	uint64_t *slot = hmap_get(&s->pr_index, pid, 0);
	return slot ? &s->pr[*slot - 1] : NULL;
}

int loop_process_known(const struct loop *s, uint32_t pid) { return find_process(s, pid) != NULL; }

size_t loop_process_threads(const struct loop *s, uint32_t pid)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nth; i++)
		n += s->th[i].pid == pid;
	return n;
}

/* Thread tid's process: the one it was started in; else the target's. */
static struct sproc *process_of(const struct loop *s, uint32_t tid)
{
	struct sthread *th = find(s, tid);
	struct sproc *p = th ? find_process(s, th->pid) : NULL;

	return p ? p : &s->pr[0];
}

static struct sproc *add_process(struct loop *s, uint32_t pid, uint32_t id, struct target *view)
{
	struct sproc *p;

	s->pr = xgrow(s->pr, &s->pr_cap, s->npr + 1, sizeof(*s->pr));
	p = &s->pr[s->npr++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->id = id;
	p->view = view;
	p->images = images_new(view, id, s->files);
	p->jit = jit_new(view, id, s->start);
	*hmap_put(&s->pr_index, pid, 0, 0, NULL) = s->npr;
	return p;
}

static int set_name(struct loop *s, struct sthread *th, uint64_t time, const char *name)
{
	if (strcmp(th->name, name) == 0)
		return 0;
	snprintf(th->name, sizeof(th->name), "%s", name);
	return trace_writer_thread_name(s->w, th->tid, time, th->name);
}

int loop_thread_name(struct loop *s, uint32_t tid, uint64_t time, const char *name)
{
	struct sthread *th = find(s, tid);
	return th ? set_name(s, th, time, name) : 0;
}

/* Records the name the target gives tid now, if it changed. */
static int check_name(struct loop *s, struct sthread *th, uint64_t time)
{
	char name[NAME_BYTES];

	struct sproc *p = find_process(s, th->pid);

	if (target_thread_name(p ? p->view : s->t, th->tid, name, sizeof(name)) < 0)
		return 0;
	return set_name(s, th, time, name);
}

int loop_thread_start(struct loop *s, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct sproc *p = find_process(s, pid);
	struct sthread *th;
	int r;

	if (!loop_selected(s, tid) || find(s, tid))
		return 0;
	if (!p)
		p = &s->pr[0];
	s->th = xgrow(s->th, &s->th_cap, s->nth + 1, sizeof(*s->th));
	th = &s->th[s->nth++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->pid = p->pid;
	th->start = time;
	*hmap_put(&s->th_index, tid, 0, 0, NULL) = s->nth;
	s->st->threads++;
	r = trace_writer_thread_start(s->w, p->id, tid, time);
	return r ? r : check_name(s, th, time);
}

int loop_thread_end(struct loop *s, uint32_t tid, uint64_t time)
{
	uint64_t *slot = hmap_get(&s->th_index, tid, 0);
	size_t i;

	if (!slot)
		return 0;
	i = *slot - 1;
	if (time > s->th[i].start)
		s->st->thread_ns += time - s->th[i].start;
	hmap_del(&s->th_index, tid, 0);
	if (i != --s->nth) {
		s->th[i] = s->th[s->nth];
		*hmap_get(&s->th_index, s->th[i].tid, 0) = i + 1;
	}
	return trace_writer_thread_end(s->w, tid, time);
}

/* The pending exec's record, with the command line the process shows
 * now; without one, only once the exec is EXEC_WAIT_NS old or last is
 * set, with its name, if it gave one. */
#define EXEC_WAIT_NS (100 * 1000000ull)
static int exec_record(struct loop *s, struct sproc *p, uint64_t now, int last)
{
	char **argv = NULL, *name[] = { p->exec_comm };
	uint32_t argc = 0;
	int r = 0;

	if (!p->exec_pending)
		return 0;
	if (target_cmdline(p->view, &argv, &argc) == 0 && argc) {
		r = trace_writer_process_exec(s->w, p->id, p->exec_time, argc, argv);
		p->exec_pending = 0;
	} else if (last || now - p->exec_time >= EXEC_WAIT_NS) {
		if (p->exec_comm[0])
			r = trace_writer_process_exec(s->w, p->id, p->exec_time, 1, name);
		p->exec_pending = 0;
	}
	for (uint32_t i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return r;
}

/* Every process's pending exec, as exec_record() does it. */
static int exec_record_all(struct loop *s, uint64_t now, int last)
{
	int r = 0;

	for (size_t i = 0; i < s->npr && r == 0; i++)
		r = exec_record(s, &s->pr[i], now, last);
	return r;
}

int loop_exec(struct loop *s, uint32_t pid, uint32_t tid, uint64_t time, const char *comm)
{
	struct sproc *p = find_process(s, pid);
	struct sthread *th;
	int r = 0;

	if (!p)
		return 0;
	/* The program it runs now. A process in the middle of an exec shows
	 * no command line yet (the kernel says so before the new program's
	 * arguments are in place), so the exec is recorded once it does, and
	 * one gone already is known by its name. The launch's own exec is the
	 * session's command. */
	if (p == &s->pr[0] && s->cfg->launched && !s->launch_seen) {
		s->launch_seen = 1;
	} else {
		if ((r = exec_record(s, p, time, 1)) < 0)
			return r;
		p->exec_pending = 1;
		p->exec_time = time;
		snprintf(p->exec_comm, sizeof(p->exec_comm), "%s", comm ? comm : "");
		if ((r = exec_record(s, p, time, 0)) < 0)
			return r;
	}
	r = images_update(p->images, s->w, time);

	if (r == 0 && (th = find(s, tid)))
		r = check_name(s, th, time);
	return r;
}

struct images *loop_images(struct loop *s, uint32_t pid)
{
	struct sproc *p = find_process(s, pid);

	return p ? p->images : NULL;
}

struct trace_writer *loop_writer(struct loop *s) { return s->w; }

/* Process p's tables freed, its entry gone. */
static void drop_process(struct loop *s, struct sproc *p)
{
	size_t i = (size_t)(p - s->pr);

	s->images_ended += images_count(p->images);
	images_free(p->images);
	jit_add_stats(p->jit, &s->jit_ended);
	jit_free(p->jit);
	if (i)
		target_free(p->view);
	hmap_del(&s->pr_index, p->pid, 0);
	if (i != --s->npr) {
		s->pr[i] = s->pr[s->npr];
		*hmap_get(&s->pr_index, s->pr[i].pid, 0) = i + 1;
	}
}

int loop_process_end(struct loop *s, uint32_t pid, uint64_t time, int kind, int status)
{
	struct sproc *p = find_process(s, pid);
	int r;

	if (!p || p == &s->pr[0])
		return 0;
	r = exec_record(s, p, time, 1);
	/* What its runtime wrote last, read from the files kept open. */
	if (r == 0)
		r = jit_update(p->jit, p->images, s->w, time, 1);
	for (size_t i = s->nth; i-- > 0 && r == 0;)
		if (s->th[i].pid == pid)
			r = loop_thread_end(s, s->th[i].tid, time);
	if (r == 0)
		r = trace_writer_process_end(s->w, p->id, time, kind, status);
	if (kind == TRACE_END_EXITED && WIFSIGNALED(status) && s->cfg->crashed)
		s->cfg->crashed(s->cfg->files_ctx, pid, WTERMSIG(status));
	if (kind == TRACE_END_OUT_OF_REACH)
		s->st->out_of_reach++;
	drop_process(s, p);
	return r;
}

int loop_process_start(struct loop *s, uint32_t pid, uint32_t parent, uint64_t time,
		       struct target *view)
{
	struct sproc *from, *p;
	uint32_t id = s->next_process++, parent_id;
	int r = 0;

	if (find_process(s, pid) == &s->pr[0]) {
		target_free(view);
		return 0;
	}
	if (find_process(s, pid))
		r = loop_process_end(s, pid, time, TRACE_END_UNTOLD, 0);
	from = find_process(s, parent);
	parent_id = from ? from->id : 0;
	p = add_process(s, pid, id, view);
	from = find_process(s, parent);    /* add_process() may move it */
	if (r == 0)
		r = trace_writer_process(s->w, id, pid, parent_id, time);
	if (r == 0 && from)
		r = images_inherit(p->images, from->images, s->w, time);
	if (r == 0)
		r = images_update(p->images, s->w, time);
	return r;
}

uint64_t *loop_walk(struct loop *s, const struct loop_regs *r, size_t *n, int *stop)
{
	struct unwind_config uc = { .arch = r->arch, .max_depth = s->max_depth };
	struct unwind_memory mem = { .read = r->read, .ctx = r->read_ctx, .window_addr = r->window_addr,
				     .window = r->window, .window_len = r->window_len,
				     .window_whole = r->window_whole };

	images_unwind_hooks(process_of(s, r->tid)->images, &uc);
	uc.trail = s->trail;
	*n = 0;
	*stop = unwind_stack(&uc, &r->regs, &mem, s->frames, n);
	return s->frames;
}

const struct unwind_frame *loop_trail(const struct loop *s)
{
	return s->trail;
}

/* Code outside every known image usually means a library was mapped
 * since the last look (in cpu mode, its MMAP2 record may be in another
 * buffer): the map is read again now, so the image precedes its samples.
 * Not more than once per maintenance interval, for code that is in no
 * image (JIT, anonymous memory). */
static int refresh_images(struct loop *s, struct images *im, const uint64_t *frames, size_t n,
			  uint64_t now)
{
	for (size_t i = 0; i < n; i++) {
		if (images_covers(im, frames[i]))
			continue;
		if (now < s->next_refresh)
			return 0;
		s->next_refresh = now + MAINT_NS;
		return images_update(im, s->w, now);
	}
	return 0;
}

/* A source that cannot stop, or a sample taken before the pause and read
 * after its end: none is kept from a pause. */
int loop_keeps(const struct loop *s, uint64_t time)
{
	return !((s->paused && time >= s->drop_from) || (time >= s->last_pause_start && time < s->last_pause_end));
}

int loop_sample(struct loop *s, uint64_t time, uint32_t tid, uint8_t state, uint8_t flags,
		const uint64_t *frames, size_t n, int stop)
{
	struct images *im;
	int r;

	if (!loop_keeps(s, time))
		return 0;
	im = process_of(s, tid)->images;
	r = refresh_images(s, im, frames, n, time);

	s->st->counters[unwind_stop_counter(stop)]++;
	if (stop == UNWIND_STOP_DEPTH)
		flags |= TRACE_SAMPLE_TRUNCATED;
	if (r == 0)
		r = trace_writer_sample(s->w, time, tid, state, flags, frames, n);
	images_hit(im, frames, n);
	if (r == 0 && !s->st->samples++)
		s->st->first_sample = loop_now();
	return r;
}

/* Answers what the target reported since the last look. With -t, the
 * other threads are not part of the profile (loop_thread_start()
 * leaves them out, and an end of one never started is ignored). A poll
 * that fails ends the recording once what it queued is answered. */
static int handle_events(struct loop *s, uint64_t now)
{
	struct target_event ev;
	int r = target_poll(s->t);

	if (r < 0) {
		loop_target_failed(s, r);
		r = 0;
	}
	while (r == 0 && target_next_event(s->t, &ev)) {
		if (s->src->ops->target_event)
			r = s->src->ops->target_event(s->src, s, &ev, now);
		if (r)
			break;
		switch (ev.kind) {
		case TARGET_EVENT_THREAD_START:
			r = loop_thread_start(s, ev.pid, ev.tid, now);
			break;
		case TARGET_EVENT_THREAD_END:
			r = loop_thread_end(s, ev.tid, now);
			break;
		case TARGET_EVENT_EXEC:
			s->st->unprivileged += ev.status != 0;
			r = loop_exec(s, ev.pid ? ev.pid : s->pr[0].pid, ev.tid, now, NULL);
			break;
		case TARGET_EVENT_PROCESS_START:
			r = loop_process_start(s, ev.pid, ev.parent, now, target_view((pid_t)ev.pid));
			break;
		case TARGET_EVENT_PROCESS_END:
			r = loop_process_end(s, ev.pid, now, TRACE_END_EXITED, ev.status);
			break;
		case TARGET_EVENT_EXIT:
			s->exited = 1;
			break;
		}
	}
	return r;
}

static int maintain(struct loop *s, uint64_t now)
{
	int r = 0;

	for (size_t i = 0; i < s->npr && r == 0; i++) {
		r = images_update(s->pr[i].images, s->w, now);
		if (r == 0)
			r = jit_update(s->pr[i].jit, s->pr[i].images, s->w, now, 0);
	}
	for (size_t i = 0; i < s->nth && r == 0 && s->src->poll_names; i++)
		r = check_name(s, &s->th[i], now);
	return r;
}

static void fill_stats(struct loop *s, uint64_t start, uint64_t now)
{
	s->st->elapsed_ns = now - start;
	s->st->live_threads = s->nth;
	s->st->images = s->images_ended;
	s->st->processes = s->next_process - LOOP_PROCESS;
	s->st->jit = s->jit_ended;
	for (size_t i = 0; i < s->npr; i++) {
		s->st->images += images_count(s->pr[i].images);
		jit_add_stats(s->pr[i].jit, &s->st->jit);
	}
	s->st->lost = s->st->counters[TRACE_COUNTER_SAMPLES_LOST];
	s->st->bytes = trace_writer_bytes(s->w);
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static void pause_begin(struct loop *s, uint64_t now)
{
	s->paused = 1;
	s->pause_start = s->drop_from = now;
	if (s->src->ops->pause)
		s->src->ops->pause(s->src, 1, now);
}

/* The pause ends at now (the source resumes if resume is set): written,
 * and left out of the time alive of the
 * threads that lived through it (those started in it, from now on). */
static int pause_end(struct loop *s, uint64_t now, int resume)
{
	uint64_t len = now - s->pause_start;

	s->paused = 0;
	s->last_pause_start = s->drop_from;
	s->last_pause_end = now;
	s->st->paused_ns += len;
	for (size_t i = 0; i < s->nth; i++)
		s->th[i].start = s->th[i].start < s->pause_start ? s->th[i].start + len : now;
	if (resume && s->src->ops->pause)
		s->src->ops->pause(s->src, 0, now);
	return trace_writer_pause(s->w, s->pause_start, now);
}

/* Carries out one command of the control channel, or a mark of the
 * app's (source TRACE_MARK_APP); tells cfg->command. */
static int command(struct loop *s, int source, const struct control_command *cmd, uint64_t now)
{
	const char *refused = NULL;
	int r = 0;

	switch (cmd->kind) {
	case CONTROL_STOP:
		s->halt = LOOP_END_STOP + 1;
		break;
	case CONTROL_CANCEL:
		s->halt = LOOP_END_CANCEL + 1;
		break;
	case CONTROL_PAUSE:
		if (s->paused)
			refused = "already paused";
		else
			pause_begin(s, now);
		break;
	case CONTROL_RESUME:
		if (!s->paused)
			refused = "not paused";
		else
			r = pause_end(s, now, 1);
		break;
	case CONTROL_SWITCH:
	case CONTROL_SNAPSHOT:
		refused = s->cfg->ask ? s->cfg->ask(s->cfg->files_ctx, cmd->kind == CONTROL_SWITCH)
				      : "the recording is one file (--switch-output and --ring make more)";
		break;
	case CONTROL_MARK:
		r = trace_writer_mark(s->w, now, (uint8_t)source, cmd->arg);
		if (r == TRACE_E_TOOBIG || r == TRACE_E_USAGE) {
			refused = "the name cannot be recorded";
			r = 0;
		} else if (r == 0) {
			s->st->marks++;
		}
		break;
	default:
		refused = cmd->arg;
		break;
	}
	if (s->cfg->command)
		s->cfg->command(s->cfg->command_ctx, source, cmd, refused);
	return r;
}

/* The commands waiting on the control channel and the app's marks, a
 * bounded number a round so that a flood cannot starve the samples. */
#define COMMANDS_PER_ROUND 64
static int read_channel(struct loop *s, struct control *c, int source, uint64_t now)
{
	struct control_command cmd;
	int r = 0;

	/* After a stop, nothing more of the host's; the app's marks are
	 * read to the end. */
	for (int i = 0; c && i < COMMANDS_PER_ROUND && r == 0 && (!s->halt || source == TRACE_MARK_APP); i++) {
		if (!control_next(c, &cmd))
			break;
		r = command(s, source, &cmd, now);
	}
	return r;
}

static int read_control(struct loop *s, uint64_t now)
{
	int r = read_channel(s, s->cfg->control, TRACE_MARK_CONTROL, now);

	/* The app's file every MARKS_NS, not every round: in wall mode a
	 * round is a tick. */
	if (r == 0 && s->cfg->app_marks && now >= s->next_marks) {
		s->next_marks = now + MARKS_NS;
		r = read_channel(s, s->cfg->app_marks, TRACE_MARK_APP, now);
	}
	return r;
}

/* The counters as they are now, the source's own brought up to date. */
static int write_counters(struct loop *s)
{
	if (s->src->ops->counters)
		s->src->ops->counters(s->src, s->st->counters);
	return trace_writer_counters(s->w, s->st->counters);
}

/* Book-keeping that is due at now. */
static int book_keeping(struct loop *s, uint64_t start, uint64_t now)
{
	int r = exec_record_all(s, now, 0);

	if (r == 0 && now >= s->next_maint) {
		s->next_maint = now + MAINT_NS;
		r = maintain(s, now);
	}
	if (r == 0 && now >= s->next_flush) {
		s->next_flush = now + FLUSH_NS;
		r = write_counters(s);
		if (r == 0)
			r = trace_writer_flush(s->w);
	}
	if (r == 0 && s->cfg->files_due && s->cfg->files_due(s->cfg->files_ctx, s->w, now)) {
		r = write_counters(s);
		if (r == 0)
			r = s->cfg->files(s->cfg->files_ctx, s->w, now);
	}
	if (r == 0 && s->cfg->progress && now >= s->next_progress) {
		s->next_progress = now + PROGRESS_NS;
		fill_stats(s, start, now);
		s->cfg->progress(s->cfg->progress_ctx, s->st);
	}
	return r;
}

int loop_run(const struct loop_config *cfg, struct target *t, struct source *src,
	     struct trace_writer *w, struct loop_stats *st)
{
	uint64_t start = loop_now(), now = start;
	struct loop s = { .cfg = cfg, .t = t, .src = src, .w = w, .st = st, .start = start };
	uint64_t end = cfg->duration_ns ? start + cfg->duration_ns : UINT64_MAX;
	int r;

	memset(st, 0, sizeof(*st));
	hmap_init(&s.th_index);
	hmap_init(&s.pr_index);
	s.max_depth = cfg->max_depth ? cfg->max_depth : 1;
	s.frames = xmalloc(s.max_depth * sizeof(*s.frames));
	s.trail = xmalloc(s.max_depth * sizeof(*s.trail));
	/* The files of every process's images, kept to the end. */
	s.files = images_new(t, 0, NULL);
	if (cfg->keep_images)
		images_keep_all(s.files);
	add_process(&s, (uint32_t)target_pid(t), LOOP_PROCESS, t);
	s.next_process = LOOP_PROCESS + 1;
	s.next_maint = start + MAINT_NS;
	s.next_progress = start + PROGRESS_NS;
	s.next_flush = start + FLUSH_NS;

	r = images_update(s.pr[0].images, w, 0);
	if (r == 0)
		r = jit_update(s.pr[0].jit, s.pr[0].images, w, 0, 0);
	if (r == 0)
		r = handle_events(&s, start);
	if (r == 0)
		r = src->ops->start(src, &s);
	if (r == 0 && cfg->paused) {
		pause_begin(&s, start);
		s.drop_from = 0;
	}
	if (r == 0)
		r = read_control(&s, start);
	while (r == 0 && !*cfg->stop && !ended(&s) && !s.halt && now < end) {
		uint64_t deadline = min_u64(src->ops->next_due(src, now), end);

		deadline = min_u64(deadline, min_u64(s.next_maint, s.next_flush));
		if (cfg->app_marks)
			deadline = min_u64(deadline, s.next_marks);
		if (cfg->progress)
			deadline = min_u64(deadline, s.next_progress);
		src->ops->wait(src, deadline, cfg->stop);
		if (*cfg->stop)
			break;
		now = loop_now();
		r = handle_events(&s, now);
		if (r == 0)
			r = read_control(&s, now);
		if (r == 0 && !ended(&s) && !s.halt && now < end)
			r = src->ops->take(src, &s, now);
		if (r == 0)
			r = book_keeping(&s, start, now);
	}
	if (r < 0 || st->target_error)
		st->end = LOOP_END_ERROR;
	else if (s.halt)
		st->end = s.halt - 1;
	else if (*cfg->stop)
		st->end = LOOP_END_SIGNAL;
	else if (ended(&s))
		st->end = LOOP_END_TARGET;
	else
		st->end = LOOP_END_DURATION;
	if (r == 0 && src->ops->finish)
		r = src->ops->finish(src, &s, loop_now());
	if (r == 0)
		r = handle_events(&s, loop_now());
	if (r == 0)
		r = exec_record_all(&s, loop_now(), 1);
	/* What the runtimes wrote last. */
	for (size_t i = 0; i < s.npr && r == 0; i++)
		r = jit_update(s.pr[i].jit, s.pr[i].images, w, loop_now(), 1);
	if (r == 0)
		r = read_channel(&s, cfg->app_marks, TRACE_MARK_APP, loop_now());
	if (r == 0 && s.paused)
		r = pause_end(&s, loop_now(), 0);
	if (r == 0)
		r = write_counters(&s);
	now = loop_now();
	for (size_t i = 0; i < s.nth; i++)
		if (now > s.th[i].start)
			st->thread_ns += now - s.th[i].start;
	fill_stats(&s, start, now);
	images_files(s.files, &st->image_files, &st->files_hashed, &st->bytes_hashed);
	if (cfg->image_cache)
		st->images_kept = images_keep(s.files, cfg->image_cache, cfg->image_cache_max, cfg->image_kept,
					      cfg->image_kept_ctx);
	while (s.npr)
		drop_process(&s, &s.pr[s.npr - 1]);
	images_free(s.files);
	free(s.pr);
	hmap_release(&s.pr_index);
	hmap_release(&s.th_index);
	free(s.th);
	free(s.frames);
	free(s.trail);
	return r;
}

void source_free(struct source *src)
{
	if (src)
		src->ops->release(src);
}
