/*
 * trace_codec.h: the records inside a trace's data chunks, shared by the
 * trace writer and reader, and the reader's last steps.
 *
 * Internal to format/: nothing outside this directory includes it. The
 * container around the records (file header, chunks, zstd frames) is
 * format/trace_chunk.h. Every constant here is a byte on disk, and
 * man/prof-trace.5 documents each one; change them together or not at all.
 */
#ifndef FORMAT_TRACE_CODEC_H
#define FORMAT_TRACE_CODEC_H

#include "format/trace_chunk.h"

enum trace_record_type {
	TRACE_REC_SESSION = 1,
	TRACE_REC_IMAGE = 2,
	TRACE_REC_IMAGE_UNLOAD = 3,
	TRACE_REC_THREAD_START = 4,
	TRACE_REC_THREAD_NAME = 5,
	TRACE_REC_THREAD_END = 6,
	TRACE_REC_NODES = 7,
	TRACE_REC_SAMPLES = 8,
	TRACE_REC_COUNTERS = 9,
	TRACE_REC_END = 10,
	TRACE_REC_PROCESS = 11,       /* 2.0 */
	TRACE_REC_PROCESS_EXEC = 12,  /* 2.0 */
	TRACE_REC_PROCESS_END = 13,   /* 2.0 */
	TRACE_REC_SIGNAL_FRAME = 14,  /* 2.2 */
	TRACE_REC_MARK = 15,          /* 2.3 */
	TRACE_REC_PAUSE = 16,         /* 2.3 */
	TRACE_REC_CODE = 17,          /* 2.4 */
};

/* A delta's residual against the period is stored offset by this, so that
 * jitter of either sign leaves the high part 0. */
#define TRACE_RESIDUAL_BIAS 32768u

/* The reader's last step (format/trace_images.c): copies the stack nodes
 * of t whose samples see different images at their address, so that all
 * the samples of a node see the same ones (trace_image_at()), and points
 * each sample at its copy. cap_nodes is the capacity of t->nodes. */
struct trace;
void trace_split_by_image(struct trace *t, size_t cap_nodes);
/* The reader's last steps (format/trace_reader.c), which the merge
 * (format/trace_merge.c) runs again on the whole: no process its own
 * ancestor; marks, code ranges and pauses put in the order struct trace
 * promises; then trace_split_by_image(). */
void trace_settle(struct trace *t, size_t cap_nodes);

#endif
