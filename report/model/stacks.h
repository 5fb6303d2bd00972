/*
 * stacks.h: the stacks of a trace's samples, with their frames named and
 * their filter verdict, the one layer every output reads them through.
 *
 * A sample's stack is a node of the trace's prefix tree, walked leaf first
 * with format/trace.h's bounded chain. Each node is resolved once, as a
 * leaf and as a caller (a return address, looked up at address - 1), and
 * its frames are kept for the life of the layer: most nodes are shared by
 * many stacks. A node is named by the images at the time of the first
 * sample, in recording order, whose stack holds it, so a name does not
 * depend on which output asks, nor on the filter; and it is the name for
 * every sample that holds it, as the trace reader splits a node whose
 * samples see different images at its address (trace_image_at()).
 *
 * A sample whose tick landed in kernel mode (TRACE_SAMPLE_KERNEL) shows
 * one frame more, [kernel], above the leaf of its user stack, which the
 * kernel was running on behalf of; the layer gives a sample's stack as
 * every output shows it, with that frame, so it is the same everywhere.
 *
 * The filter decides which samples count, the same way for every output:
 * by thread, state and time window, then by the frames of the whole stack
 * (--focus keeps a stack with a frame whose name matches, --exclude drops
 * one, and exclude wins, as pprof's focus and ignore do). The frames are
 * matched as shown (with --lines, "NAME (FILE:LINE)"); the root and thread
 * frames that a profile adds are not frames of the stack, nor are those
 * past the function that starts it (stacks_nodes()). What each node's
 * chain matched is remembered, so a verdict costs one lookup per sample.
 */
#ifndef REPORT_STACKS_H
#define REPORT_STACKS_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "format/trace.h"
#include "report/symbols/symbolize.h"

/* Stacks deeper than this are cut to their leaf-most frames in what the
 * outputs show (prof-record's --max-depth allows no more). */
#define STACKS_MAX_DEPTH 65536

/* The place of the [kernel] frame in a sample's nodes: never a node id,
 * as a trace's ids are below UINT32_MAX. */
#define STACKS_NODE_KERNEL UINT32_MAX

enum stacks_state {
	STACKS_STATE_ALL,       /* every sample */
	STACKS_STATE_RUNNING,   /* TRACE_STATE_RUNNING only */
	STACKS_STATE_IDLE,      /* sleeping, disk wait, stopped or other;
	                         * samples of unknown state are in none */
	STACKS_STATE_PREEMPTED, /* TRACE_STATE_PREEMPTED only: runnable but off
	                         * the CPU, neither running nor idle */
};

/* Which samples count. Everything is borrowed. An empty filter (all zero)
 * keeps every sample. */
struct stacks_filter {
	const uint32_t *tids;     /* --tid: keep only these, if ntids > 0 */
	size_t ntids;
	const regex_t *thread_re; /* --thread: the name when sampled matches */
	const uint32_t *pids;     /* --pid: keep only these processes, if npids > 0 */
	size_t npids;
	const regex_t *process_re; /* --process: the process's name when sampled
	                           * (stacks_process_name()) matches */
	int state;                /* enum stacks_state */
	uint64_t from;            /* --from: ns since the recording started */
	uint64_t to;              /* --to: keep samples before this, if has_to */
	int has_to;
	const regex_t *focus;     /* --focus: keep only stacks with a frame that
	                           * matches (REG_NOSUB is enough); NULL: all */
	const regex_t *exclude;   /* --exclude: drop stacks with a frame that
	                           * matches; NULL: none */
};

struct stacks;

/* The name of the recording t: the last component of its command's
 * argv[0], else "pid N". A heap string the caller frees. */
char *stacks_root_name(const struct trace *t);
/* The name of process (an index in t's processes) at time, a sample's
 * root frame: the last component of argv[0] of the program the process
 * ran then, else "pid N" (its pid). A heap string the caller frees. */
char *stacks_process_name(const struct trace *t, uint32_t process, uint64_t time);
/* The programs p began by time: its execs at or before it, 0 while it
 * still runs the one its parent forked it in. */
size_t stacks_execs_by(const struct trace_process *p, uint64_t time);

/* The layer over t, naming frames with sym; both are borrowed until
 * stacks_free(). sym may be NULL for a caller that never asks for frames
 * nor filters with focus or exclude. Caller frees. */
struct stacks *stacks_new(const struct trace *t, struct symbolize *sym);
void stacks_free(struct stacks *s);
/* The trace the layer is over. */
const struct trace *stacks_trace(const struct stacks *s);

/* The frames of node (1 to t->nnodes - 1) as the leaf of its stack
 * (leaf != 0) or as a caller: sets *frames to them, innermost first, and
 * returns how many (at least 1). STACKS_NODE_KERNEL has one, "[kernel]",
 * in either role, of no image of the trace (image -1) but with the image
 * label "[kernel]", so that grouping by image gives it a group of its
 * own. Borrowed until stacks_free(). */
size_t stacks_frames(struct stacks *s, uint32_t node, int leaf,
		     const struct symbolize_frame **frames);
/* Whether a frame's name (as shown: with --lines, "NAME (FILE:LINE)")
 * is one of the functions Go's runtime starts a stack with, and so its
 * outermost: runtime.goexit (every goroutine's, the main one's too,
 * returns to it), runtime.mstart (a thread's system stack),
 * runtime.mcall (the system stack a goroutine left for the scheduler)
 * and runtime.rt0_go (the first thread's, before the scheduler runs). The
 * runtime's own tracebacks stop at the same functions. */
int stacks_top_name(const char *name);

/* The nodes of the stack whose leaf is node stack, leaf first, cut at
 * STACKS_MAX_DEPTH and, if the layer has a symbolizer, after the first
 * node whose function starts a stack (stacks_top_name()): what a walk
 * finds past it is not the stack's. Go 1.19's threads begin with the
 * frame pointer of the thread that made them, and its scheduler leaves
 * the one of the goroutine it switched from, so a frame-pointer walk
 * goes on through stale frames of another stack. Sets *nodes to them
 * (borrowed until the next call) and returns how many (0 for the empty
 * stack). */
size_t stacks_nodes(struct stacks *s, uint32_t stack, const uint32_t **nodes);
/* The nodes of sample smp's stack as every output shows it, leaf first:
 * STACKS_NODE_KERNEL if its tick landed in kernel mode, then those of
 * stacks_nodes(), whose first is the leaf (see stacks_leaf()). Sets
 * *nodes (borrowed until the next call) and returns how many. */
size_t stacks_sample_nodes(struct stacks *s, const struct trace_sample *smp, const uint32_t **nodes);
/* Whether nodes[i] of stacks_sample_nodes() or stacks_nodes() is an
 * address where a thread was rather than a return address: its stack's
 * leaf, or the code a signal interrupted (the frame out of a signal
 * trampoline, symbolize_is_signal()). */
int stacks_leaf(struct stacks *s, const uint32_t *nodes, size_t i);
/* A key that two samples share exactly when stacks_sample_nodes() gives
 * them the same nodes. */
uint64_t stacks_sample_key(const struct trace_sample *smp);

/* 1 if sample smp of the trace passes f, else 0 (also for a stack id out
 * of the tree's range). */
int stacks_keep(struct stacks *s, const struct stacks_filter *f, const struct trace_sample *smp);
/* 1 if a sample of this trace state passes the state filter, else 0. */
int stacks_state_match(int filter_state, int sample_state);

#endif
