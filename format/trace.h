/*
 * trace.h: the prof trace, in memory and on disk.
 *
 * This is the only interface to the bytes of a trace file (man/prof-trace.5
 * documents those bytes). prof-record writes through struct trace_writer;
 * prof-report loads a whole trace into a struct trace.
 *
 * Times are nanoseconds on the recording host's CLOCK_MONOTONIC. Addresses
 * are raw addresses in the target. A stack is a node of a prefix tree
 * (nodes[0] is the empty root; a node is its parent's stack plus one callee
 * frame), so a sample refers to its whole stack by the id of its leaf node.
 *
 * Library code: every function returns 0 or a negative error (a -errno, or
 * a TRACE_E_* code of common/errors.h), which prof_strerror() describes.
 * Nothing prints.
 */
#ifndef FORMAT_TRACE_H
#define FORMAT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "common/errors.h"

#define TRACE_FORMAT_MAJOR 2
#define TRACE_FORMAT_MINOR 6

/* The trace prof-record writes and prof-report reads when none is named. */
#define TRACE_DEFAULT_PATH "prof.trace"

/* Caps that keep a hostile file from making the reader allocate or loop
 * without bound. */
#define TRACE_MAX_IDENT 64            /* identity bytes */
#define TRACE_MAX_STRING (64u << 10)  /* a path, name or argument */
#define TRACE_MAX_ARGS 4096
#define TRACE_MAX_CHUNK (64u << 20)   /* raw or compressed bytes of one chunk */
#define TRACE_MAX_MARKS (1u << 20)    /* marks a reader keeps */
#define TRACE_MAX_CODE (1u << 22)     /* code ranges a reader keeps */


enum trace_os { TRACE_OS_UNKNOWN, TRACE_OS_LINUX, TRACE_OS_MACOS };
enum trace_arch { TRACE_ARCH_UNKNOWN, TRACE_ARCH_X86_64, TRACE_ARCH_ARM64 };
enum trace_mode { TRACE_MODE_UNKNOWN, TRACE_MODE_WALL, TRACE_MODE_CPU };

/* A thread's run state when it was sampled (wall mode; cpu mode samples are
 * all RUNNING). */
enum trace_state {
	TRACE_STATE_UNKNOWN,
	TRACE_STATE_RUNNING,
	TRACE_STATE_SLEEPING,
	TRACE_STATE_DISK,
	TRACE_STATE_STOPPED,
	TRACE_STATE_OTHER,
	TRACE_STATE_PREEMPTED, /* runnable, but another thread had the CPU (1.2) */
	TRACE_STATE__COUNT
};

/* What took the samples (1.2). The tick sampler stops the target and reads
 * it (ptrace, Mach); perf is the kernel's perf_event. */
enum trace_sampler { TRACE_SAMPLER_UNKNOWN, TRACE_SAMPLER_TICK, TRACE_SAMPLER_PERF };

/* Whether ticks that land in kernel mode were sampled (1.2). */
enum trace_kernel {
	TRACE_KERNEL_UNKNOWN,
	TRACE_KERNEL_SAMPLED,     /* they were, with TRACE_SAMPLE_KERNEL */
	TRACE_KERNEL_REFUSED,     /* the kernel refused it (perf_event_paranoid,
	                           * capabilities) */
	TRACE_KERNEL_NOT_SAMPLED, /* the sampler cannot sample them */
};

/* The recorder's scheduling priority while it sampled (1.3): a busy
 * target leaves a recorder at normal priority too little of the CPU to
 * drain what the kernel samples. */
enum trace_priority {
	TRACE_PRIORITY_UNKNOWN,
	TRACE_PRIORITY_NORMAL,    /* as asked (--realtime 0), or the platform's only */
	TRACE_PRIORITY_REALTIME,  /* real-time, at rt_priority */
	TRACE_PRIORITY_REFUSED,   /* real-time was refused: normal */
};

/* Who made a mark (2.3). */
enum trace_mark_source {
	TRACE_MARK_UNKNOWN,       /* not told, or a newer minor version's */
	TRACE_MARK_CONTROL,       /* prof-record's control channel (--control) */
	TRACE_MARK_APP,           /* the recorded program itself */
};

/* What told the recorder a code range's name (2.4). */
enum trace_code_source {
	TRACE_CODE_UNKNOWN,       /* not told, or a newer minor version's */
	TRACE_CODE_PERF_MAP,      /* the runtime's perf map, /tmp/perf-PID.map */
	TRACE_CODE_JITDUMP,       /* the runtime's jitdump, jit-PID.dump */
	TRACE_CODE_VDSO,          /* the vDSO's own symbol table */
};

/* What a file is of its recording (2.6): the whole of it, one of the
 * files a rotated recording is cut into, or a flight recorder's snapshot
 * of its last seconds. */
enum trace_part_kind {
	TRACE_PART_WHOLE,
	TRACE_PART_ROTATED,
	TRACE_PART_SNAPSHOT,
};

/* trace_session.kernel_paranoid when it was not read. */
#define TRACE_PARANOID_UNKNOWN 0xff

/* What names an image's build (common/ident.h says how each is made). Go's
 * build ID and the content hash are 2.1's: an image without a GNU build-id
 * or a UUID gets one of them. */
enum trace_ident_kind {
	TRACE_IDENT_NONE,
	TRACE_IDENT_GNU_BUILD_ID,
	TRACE_IDENT_MACHO_UUID,
	TRACE_IDENT_GO_BUILD_ID,  /* the string of Go's build ID note */
	TRACE_IDENT_CONTENT,      /* a hash of the file's loadable segments */
};

/* How the recorder read an image's file (2.1). */
enum trace_image_source {
	TRACE_SOURCE_UNKNOWN,     /* not said (before 2.1) */
	TRACE_SOURCE_PATH,        /* at its path */
	TRACE_SOURCE_ROOT,        /* at its path in the process's root, /proc/PID/root */
	TRACE_SOURCE_MAPPED,      /* the very file mapped, /proc/PID/map_files */
	TRACE_SOURCE_MEMORY,      /* from the process's memory (the vDSO) */
	TRACE_SOURCE_UNREAD,      /* not read: trace_image.why says why */
};

#define TRACE_IMAGE_DELETED 0x1   /* the map named it "(deleted)": gone or replaced */
#define TRACE_IMAGE_ELSEWHERE 0x2 /* its path, as the recorder saw it, did not lead
                                   * to the file mapped: deleted, replaced, or in
                                   * another mount namespace */

/* Counters are cumulative; the last value written wins. Readers ignore
 * counter keys they do not know, so new ones can be added in a minor
 * version. The STOP_* counters say why each stack walk ended. */
enum trace_counter {
	TRACE_COUNTER_SAMPLES_LOST,     /* ticks or records that produced no sample */
	TRACE_COUNTER_THREADS_VANISHED, /* a thread exited mid-sample */
	TRACE_COUNTER_STOP_END,         /* reached the outermost frame (fp 0) */
	TRACE_COUNTER_STOP_UNREADABLE,  /* the next frame was not readable */
	TRACE_COUNTER_STOP_NOT_UP,      /* fp did not move up the stack */
	TRACE_COUNTER_STOP_MISALIGNED,  /* fp was misaligned */
	TRACE_COUNTER_STOP_LOOP,        /* fp pointed at itself */
	TRACE_COUNTER_STOP_DEPTH,       /* the --max-depth cap (stack truncated) */
	TRACE_COUNTER_THROTTLED,        /* times the kernel held samples back (1.3) */
	TRACE_COUNTER_CPU_NS,           /* the target's CPU time sampled, ns; 0 unknown (1.3) */
	TRACE_COUNTER_MAX_SAMPLE_RATE,  /* kernel.perf_event_max_sample_rate at the end (1.3) */
	TRACE_COUNTER_STACKS_READ,      /* wall mode: stacks read off the CPU (1.3) */
	TRACE_COUNTER_STACKS_REUSED,    /* intervals given a thread's stack read before (1.3) */
	TRACE_COUNTER_UNSTARTED,        /* wall mode: ticks lost of threads not run yet (1.3) */
	TRACE_COUNTER_STOP_WINDOW,      /* the next frame lay past the stack copied (2.2) */
	TRACE_COUNTER_STOP_NOT_CODE,    /* a return address outside the code (2.2) */
	TRACE_COUNTER_STACKS_JOINED,    /* stacks completed with their thread's outer frames (2.2) */
	TRACE_COUNTER_LEAF_SCANS,       /* a leaf's caller found by scanning the stack for a
	                                 * return address, as neither a frame pointer nor
	                                 * unwind information could serve (2.4) */
	TRACE_COUNTER__COUNT
};

/* Returns a short lowercase name for each enum value ("linux", "x86_64",
 * "wall", "sleeping", "gnu-build-id", "stop-depth"...), or "unknown". */
const char *trace_os_name(int os);
const char *trace_arch_name(int arch);
const char *trace_mode_name(int mode);
const char *trace_state_name(int state);
const char *trace_sampler_name(int sampler);   /* "tick", "perf" */
const char *trace_kernel_name(int kernel);     /* "sampled", "refused", "not-sampled" */
const char *trace_priority_name(int priority); /* "normal", "realtime", "refused" */
const char *trace_ident_kind_name(int kind);
const char *trace_image_source_name(int source);
const char *trace_counter_name(int counter);
const char *trace_mark_source_name(int source); /* "control", "app" */
const char *trace_code_source_name(int source); /* "perf-map", "jitdump", "vdso" */
const char *trace_part_kind_name(int kind);     /* "whole", "rotated", "snapshot" */
/* Whether a recording of mode (enum trace_mode) fell short of rate_hz:
 * under 90% of the samples due over secs of CPU time (cpu mode) or thread
 * time (wall mode). A short run says little (under 100 samples due, it is
 * not judged), and in cpu mode each of its threads may end with part of
 * a period never sampled, so a sample a thread is forgiven. */
int trace_rate_short(int mode, uint32_t rate_hz, uint64_t samples, double secs, uint64_t threads);
/* Fills buf (n bytes) with what held a recording back from the rate it
 * asked for, as a phrase for a message, from its sampler (enum
 * trace_sampler), counters (TRACE_COUNTER__COUNT of them), and samples
 * over secs of CPU (cpu mode) or thread time (wall mode): the kernel's
 * throttling, its sample-rate limit, ticks of threads not run yet,
 * samples lost, or none of these.
 * Returns buf. */
const char *trace_rate_note(int sampler, const uint64_t *counters, uint32_t rate_hz, uint64_t samples, double secs,
			    char *buf, size_t n);
/* Returns why a chunk counts as damaged, as a phrase ("content checksum
 * mismatch"), for each enum trace_damage value. */
const char *trace_damage_name(int damage);

/* Whether an identity of this kind and length names a build: a GNU
 * build-id of 2 to TRACE_MAX_IDENT bytes, a 16-byte Mach-O UUID, a Go
 * build ID of 1 to TRACE_MAX_IDENT bytes or a content hash of
 * TRACE_IDENT_CONTENT_LEN. No other is ever looked up, nor kept in a symbol
 * pack. */
int trace_ident_valid(int kind, size_t len);
/* Whether two identities, each a kind, a length and its bytes, are the
 * same. */
int trace_ident_same(int kind, size_t len, const uint8_t *ident, int kind2, size_t len2,
		     const uint8_t *ident2);

struct trace_session {
	uint8_t os, arch, mode;
	uint32_t rate_hz;
	uint32_t pid;
	uint64_t start_realtime_ns;  /* CLOCK_REALTIME at the start */
	uint64_t start_monotonic_ns; /* CLOCK_MONOTONIC at the same instant */
	char *host;                  /* e.g. "Linux 6.1.0 x86_64"; may be "" */
	uint32_t argc;
	char **argv;                 /* the profiled command line */
	uint8_t sampler;             /* enum trace_sampler */
	uint8_t kernel;              /* enum trace_kernel */
	uint8_t kernel_paranoid;     /* kernel.perf_event_paranoid at the start, 0 to
	                              * 254, or TRACE_PARANOID_UNKNOWN (not read, or
	                              * -1, which refuses nothing) */
	uint8_t priority;            /* enum trace_priority */
	uint8_t rt_priority;         /* the real-time priority asked, 0 if none */
	/* 2.6: the file's place in its recording. The start times above are
	 * the file's own: a rotated file starts where the one before ended,
	 * a snapshot where its window does. */
	uint8_t part_kind;           /* enum trace_part_kind */
	uint64_t recording;          /* the same in every file of a recording
	                              * that has several; 0 for a whole one */
	uint32_t part;               /* rotated files 1, 2, ... in order;
	                              * snapshots 1, 2, ... likewise; 0 whole */
	uint64_t window_ns;          /* a snapshot: the window asked (--ring) */
};

/* A process of the recording (2.0): the launched or attached one, and
 * each child it started while recorded. A 1.x trace holds one, made from
 * its session and end. */
struct trace_exec {
	uint64_t time;          /* when it called execve (its start, for the
	                         * command the session launched) */
	uint32_t argc;
	char **argv;
};

struct trace_process {
	uint32_t id;            /* the trace's own, unique within it, from 1 */
	uint32_t pid;           /* the system's; may repeat within a trace */
	uint32_t parent;        /* the parent's index in trace.processes, or
	                         * TRACE_NO_PROCESS if it was not recorded */
	uint64_t time_start;    /* when it was first seen */
	uint64_t time_end;      /* 0 if it did not end while recorded */
	int32_t has_exit;       /* its exit status is known */
	int32_t exit_status;    /* its wait(2) status when has_exit */
	int32_t out_of_reach;   /* it did not end at time_end, but could be
	                         * recorded no further (TRACE_END_OUT_OF_REACH) */
	size_t nexecs;
	struct trace_exec *execs; /* its programs, oldest first; may be none */
};

#define TRACE_NO_PROCESS UINT32_MAX

/* [start, end): addresses of a process. */
struct trace_range {
	uint64_t start, end;
};

struct trace_image {
	uint32_t id;            /* unique within the trace */
	uint8_t ident_kind;     /* enum trace_ident_kind; a loaded trace holds
	                         * NONE (and length 0) for an identity that
	                         * trace_ident_valid() refuses */
	uint8_t ident_len;      /* bytes of ident used, <= TRACE_MAX_IDENT */
	uint8_t ident[TRACE_MAX_IDENT];
	uint8_t arch;           /* enum trace_arch */
	char *path;
	uint64_t start;         /* lowest mapped address */
	uint64_t size;          /* bytes from start to the end of the last mapping */
	uint64_t file_offset;   /* file offset mapped at start */
	uint64_t bias;          /* runtime address - link-time address (ELF load
	                         * bias, Mach-O slide) */
	uint64_t time_loaded;   /* 0 if present when recording began */
	uint64_t time_unloaded; /* 0 if never unloaded */
	uint32_t process;       /* the index in trace.processes of the process
	                         * whose address space it is in */
	uint8_t source;         /* enum trace_image_source (2.1) */
	uint8_t flags;          /* TRACE_IMAGE_* (2.1) */
	char *why;              /* why it has no identity, or NULL (2.1); a
	                         * loaded trace owns it */
	size_t nsignal;
	struct trace_range *signal; /* its signal trampolines (2.2): code a
	                         * signal handler returns through, whose caller
	                         * is the interrupted code, at its exact pc */
};

struct trace_name {
	uint64_t time;
	char *name;
};

struct trace_thread {
	uint32_t tid;
	uint64_t time_start;    /* first seen */
	uint64_t time_end;      /* 0 if it did not end while recorded */
	size_t nnames;
	struct trace_name *names; /* name history, oldest first */
	uint32_t process;       /* its process's index in trace.processes */
};

struct trace_node {
	uint64_t addr;
	uint32_t parent;        /* node id of the caller side; 0 for the root */
};

#define TRACE_SAMPLE_TRUNCATED 0x1 /* cut at --max-depth */
#define TRACE_SAMPLE_KERNEL 0x2    /* the tick landed in kernel mode; the stack
                                    * is the user stack at that moment (1.2) */

struct trace_sample {
	uint64_t time;
	uint32_t tid;
	uint32_t stack;         /* id of the leaf node; 0 is an empty stack */
	uint8_t state;          /* enum trace_state */
	uint8_t flags;          /* TRACE_SAMPLE_* */
	uint32_t thread;        /* its thread's index in trace.threads */
};

/* A named instant of the recording (2.3), such as a test's phase or an
 * app's frame. */
struct trace_mark {
	uint64_t time;
	uint8_t source;         /* enum trace_mark_source */
	char *name;             /* a loaded trace owns it */
};

/* A named range of code that no image's file names (2.4): code a runtime
 * compiled while the program ran, as its perf map or jitdump told it, or a
 * function of the vDSO. A range loaded later over the same addresses
 * replaces it from its time on (code moved, or memory reused). */
struct trace_code {
	uint64_t time;          /* when it was loaded; 0 if before recording began */
	uint64_t start, size;   /* [start, start + size), size > 0 */
	uint32_t process;       /* the index in trace.processes of its process */
	uint8_t source;         /* enum trace_code_source */
	char *name;             /* as the runtime wrote it; a loaded trace owns it */
	char *file;             /* its source file, or NULL; owned likewise */
	uint32_t line;          /* its line in file, or 0 */
};

struct trace_end {
	uint64_t time;
	int32_t has_exit;       /* the launched target exited */
	int32_t exit_status;    /* its wait(2) status when has_exit */
};

/*
 * What loading found, for 'prof-report info' and warnings.
 *
 * Every chunk has a sequence number, 0 for the first and one more for each
 * after it, so what is gone can be told from what is left. A loss is one
 * of three kinds. Chunks are missing when their numbers never appear: the
 * bytes are not in the file at all. A chunk is damaged when it is there but
 * cannot be read (a checksum, a length or a record is wrong, it is out of
 * sequence, or it is a trace's data after its footer), and bytes are
 * damaged when they are no chunk at all. A chunk is cut when the file ends
 * inside it, as it does when the recorder is killed mid-write; only the
 * last chunk of a file can be cut. A trace is unfinished when its file
 * ends after a chunk that was read, with no footer: the recorder stopped
 * between two chunks, and what it would have written next is gone.
 */
enum trace_loss_kind {
	TRACE_LOSS_MISSING,
	TRACE_LOSS_DAMAGED,
	TRACE_LOSS_CUT,
	TRACE_LOSS_UNFINISHED,
};

/* Why a chunk, or bytes, count as damaged. */
enum trace_damage {
	TRACE_DAMAGE_HEADER,       /* no intact chunk header: sync bytes or its checksum */
	TRACE_DAMAGE_LENGTH,       /* an intact header with a length over TRACE_MAX_CHUNK */
	TRACE_DAMAGE_TORN,         /* its frame runs into the next intact chunk header */
	TRACE_DAMAGE_FRAME,        /* not one zstd frame as the format requires */
	TRACE_DAMAGE_CONTENT,      /* decompression or the content checksum failed */
	TRACE_DAMAGE_RECORD,       /* its contents do not parse (records before the bad
	                            * one were read) */
	TRACE_DAMAGE_SEQUENCE,     /* its sequence number is not above the one before */
	TRACE_DAMAGE_AFTER_FOOTER, /* a data or footer chunk after a trace's footer */
	TRACE_DAMAGE_FOOTER,       /* the footer disagrees with the chunks before it */
	TRACE_DAMAGE__COUNT
};

/* What a lost chunk held, as far as its intact header tells. */
enum trace_held {
	TRACE_HELD_UNKNOWN,  /* no intact header, or missing */
	TRACE_HELD_RECORDS,  /* a data chunk: samples and the tables they use */
	TRACE_HELD_FOOTER,
	TRACE_HELD_SYMBOLS,
	TRACE_HELD_OTHER,    /* a type this reader does not know */
};

/* Bits of trace_loss.has: which of its times are known. */
#define TRACE_LOSS_BEFORE 0x1 /* a sample was read before the loss */
#define TRACE_LOSS_AFTER 0x2  /* and one after it */

/* One loss, in file order. */
struct trace_loss {
	uint8_t kind;            /* enum trace_loss_kind */
	uint8_t damage;          /* enum trace_damage, for TRACE_LOSS_DAMAGED */
	uint8_t open;            /* damaged to the end of the file, so chunks after
	                          * seq + nseq - 1 may be gone too */
	uint8_t has;             /* TRACE_LOSS_BEFORE | TRACE_LOSS_AFTER */
	uint8_t held;            /* enum trace_held */
	uint32_t seq;            /* the sequence number of the first chunk lost, or
	                          * for damaged bytes that held none, of the next;
	                          * for an unfinished trace, of the chunk due next */
	uint32_t nseq;           /* chunks lost: 0 for damaged bytes that held none */
	uint64_t offset;         /* where in the file (missing: where they belonged) */
	uint64_t bytes;          /* bytes lost there (0 for missing chunks) */
	uint64_t samples_before; /* samples read before it, in file order */
	uint64_t time_before;    /* the latest sample time among those */
	uint64_t time_after;     /* the earliest among the samples read after it */
};

/* Losses are listed up to this many; the counts are always exact. */
#define TRACE_MAX_LOSSES 1024

struct trace_load_status {
	uint16_t major, minor;       /* the file's version */
	uint64_t file_bytes;
	uint64_t chunks;             /* intact chunks read */
	uint64_t chunks_skipped;     /* intact chunks of unknown types, skipped */
	uint64_t chunks_missing;     /* sequence numbers that no chunk had */
	uint64_t chunks_damaged;     /* chunks there that could not be read */
	uint64_t bytes_damaged;      /* bytes of those, and of damage between chunks */
	uint64_t bytes_cut;          /* bytes of the chunk the end of the file cut */
	uint64_t samples_dropped;    /* samples read whose stacks were lost, or
	                              * could not be split (trace_images.c) */
	uint64_t samples_missing;    /* samples the footer counts beyond those read
	                              * or dropped */
	uint64_t nodes_split;        /* stack nodes copied because their samples
	                              * saw different images (trace_image_at()) */
	int has_footer;              /* a footer was read */
	int complete;                /* and it agrees with the file, and no chunk
	                              * before it is missing, damaged or cut */
	int ends_whole;              /* the file ends with a chunk read whole, so
	                              * chunks can be appended */
	uint32_t next_seq;           /* for a chunk appended: one past the last
	                              * sequence number read in order */
	uint32_t footer_seq;         /* the footer's sequence number, if read */
	uint64_t footer[4];          /* and what it counts: chunks before it,
	                              * samples, stack nodes, and its offset */
	size_t nlosses;
	struct trace_loss *losses;   /* the first TRACE_MAX_LOSSES, in file order */
	uint64_t losses_unlisted;    /* and how many more there were */
};

/* Releases the losses of st. */
void trace_load_status_release(struct trace_load_status *st);

struct trace_pack; /* format/trace_pack.h */

/* One of the files a trace was merged from (trace_merge()). */
struct trace_file {
	char *path;                  /* as it was named */
	struct trace_session session; /* its own: its start, its part */
	uint64_t start, end;         /* its span on the trace's clock: its
	                              * session's start, and its end as
	                              * trace_end_ns() gives it for the file alone */
	uint64_t samples;            /* samples it gave the whole */
	uint64_t samples_overlap;    /* its samples left out, as snapshots of
	                              * its recording before it held them */
	struct trace_load_status status; /* what loading it found */
	struct trace_pack *pack;     /* its embedded symbol pack, or NULL */
};

struct trace {
	struct trace_session session;
	size_t nprocesses;
	struct trace_process *processes; /* in the order they were first seen;
	                                  * at least one */
	size_t nimages;
	struct trace_image *images;   /* in the order they were recorded */
	size_t nthreads;
	struct trace_thread *threads; /* in the order they were first seen */
	size_t nnodes;
	struct trace_node *nodes;     /* nodes[0] is the root */
	size_t nsamples;
	struct trace_sample *samples; /* in recording order */
	uint64_t counters[TRACE_COUNTER__COUNT];
	size_t nmarks;
	struct trace_mark *marks;     /* in order of time, those of one time in
	                               * file order; at most TRACE_MAX_MARKS */
	size_t npauses;
	struct trace_range *pauses;   /* when sampling was paused (2.3), in
	                               * order of start; at most TRACE_MAX_MARKS */
	size_t ncode;
	struct trace_code *code;      /* named code ranges (2.4), in order of
	                               * process, start, then time, those alike
	                               * in file order; at most TRACE_MAX_CODE */
	uint64_t code_max_size;       /* the largest size among them */
	int has_end;
	struct trace_end end;
	struct trace_pack *pack;      /* an embedded symbol pack, or NULL */
	struct trace_load_status status;
	size_t nfiles;
	struct trace_file *files;     /* the files it was merged from, in order
	                               * of their start; none for a trace loaded
	                               * from one file, whose own these are */
};

/*
 * Reading.
 */

/* Loads every intact chunk of the trace at path into a new struct trace.
 * A trace cut short, or with chunks missing or damaged, still loads;
 * status says what was lost and where. Fails only when nothing usable is there (not a trace, a newer major
 * version, no session). On success the caller frees *out with trace_free(). */
int trace_load(const char *path, struct trace **out);
struct progress;
/* As trace_load(), saying how far it has read to pg (common/progress.h;
 * NULL: nowhere) as the phase "reading trace", in bytes of the file. */
int trace_load_progress(const char *path, struct progress *pg, struct trace **out);
/* As trace_load(), from n borrowed bytes. */
int trace_load_mem(const void *p, size_t n, struct trace **out);
void trace_free(struct trace *t);

/*
 * Several files as one (format/trace_merge.c): the files of a recording
 * cut by prof-record --switch-output, its --ring snapshots, or any traces
 * of one machine, on one timeline that starts with the earliest of them.
 * What several files re-state (processes, threads, images, code ranges,
 * with the ids and times they had) is kept once; each file's samples and
 * stacks are its own, but a snapshot gives only the samples after those
 * of the snapshots of its recording before it, which held the rest.
 * Counters are summed, but for the largest TRACE_COUNTER_MAX_SAMPLE_RATE;
 * the end is the last file's. The session is the earliest file's, and
 * status sums the counts of every file's (their losses stay in files).
 */

/* Merges the n (>= 1) traces parts, loaded from paths[0..n) (borrowed),
 * into a new trace *out, which the caller frees with trace_free(). parts
 * are taken, and freed whether it succeeds or not. Fails, with *bad (if
 * not NULL) the index in parts of the second of the two it names, with
 * TRACE_E_MACHINES when parts[0] and parts[*bad] were recorded on
 * different hosts, systems or architectures, or TRACE_E_TWICE when they
 * are the same file of a recording (*bad and an earlier one). */
int trace_merge(struct trace **parts, const char *const *paths, size_t n, struct trace **out, size_t *bad);
/* Loads the n (>= 1) traces at paths as trace_load_progress() does, and
 * merges several with trace_merge(); one is loaded as it is, without
 * files. On failure *bad (if not NULL) is the index of the path the
 * error is about, as trace_merge() says, or the one that did not load. */
int trace_load_many(const char *const *paths, size_t n, struct progress *pg, struct trace **out, size_t *bad);

/* Returns the thread with this tid (the first, if the tid was used
 * again), or NULL. Borrowed from t. */
const struct trace_thread *trace_thread_find(const struct trace *t, uint32_t tid);
/* Returns sample s's thread, or NULL. Borrowed from t. */
const struct trace_thread *trace_sample_thread(const struct trace *t, const struct trace_sample *s);
/* Returns the name a thread had at time (its first name if time is earlier,
 * "" if it has none or th is NULL). Borrowed from t. */
const char *trace_thread_name_at(const struct trace_thread *th, uint64_t time);
/* A trace's clock. A time since the start is a time less the session's
 * start_monotonic_ns. A recording ends at its end record when it finished;
 * when it did not (its recorder was killed, or its file was cut short or
 * lost its last chunks), at the latest sample read, the last instant it
 * can be shown to have run. */
/* Returns when the recording ended (a time on the trace's clock, not one
 * since the start), as above, or 0 if it has neither an end record nor a
 * sample. */
uint64_t trace_end_ns(const struct trace *t);
/* Returns how long the recording lasted, in ns: from its start to
 * trace_end_ns(), or 0 if that is not after the start. */
uint64_t trace_duration_ns(const struct trace *t);
/* Returns time (on the trace's clock) since the recording started, in ns,
 * or 0 for a time before the start. */
uint64_t trace_since_start_ns(const struct trace *t, uint64_t time);
/* The same in seconds, for people: negative for a time before the start. */
double trace_since_start_s(const struct trace *t, uint64_t time);
/* The walk up a stack's node chain, leaf first, that every reader of the
 * stack table takes. A loaded trace's parents always precede their
 * children, so a parent that is not older than its node ends the walk
 * (a hand-built or hostile tree can neither loop nor read past nodes),
 * as does the root or an id out of range:
 *
 *	struct trace_chain c;
 *	uint32_t n;
 *	for (trace_chain_init(&c, t, stack); trace_chain_next(&c, &n);)
 *		... t->nodes[n] ...
 */
struct trace_chain {
	const struct trace *t;
	uint32_t next;          /* the node to give next, 0 at the end */
};
void trace_chain_init(struct trace_chain *c, const struct trace *t, uint32_t stack);
/* Sets *node to the next node of the chain and returns 1, or returns 0 at
 * its end. */
int trace_chain_next(struct trace_chain *c, uint32_t *node);
/* Returns the index in t->marks of the first mark named name at or after
 * time (on the trace's clock), or -1 if there is none. */
long trace_mark_find(const struct trace *t, const char *name, uint64_t time);
/* Returns how long sampling was paused (t->pauses) between from and to,
 * times on the trace's clock, in ns. */
uint64_t trace_paused_ns(const struct trace *t, uint64_t from, uint64_t to);
/* Returns the index in t->images of the image that addr names at time in
 * process (an index in t->processes), or -1: of that process's images
 * whose range holds addr, the one loaded at time (the
 * one loaded last, if several are); if none is, the one loaded soonest
 * after time (a recorder notices a load after it happens); of several
 * loaded at one time, the last in t->images, either way; if none is,
 * none, as an image unloaded before time no longer holds the address. A
 * loaded trace guarantees that every sample holding a stack node sees the
 * same image, and the same code range (trace_code_at()), for its address,
 * so a node can be named at the time of any of them. */
long trace_image_at(const struct trace *t, uint32_t process, uint64_t addr, uint64_t time);
/* Returns the index in t->code of the named code range that addr names
 * at time in process (an index in t->processes), or -1, by the rule of
 * trace_image_at(): of the ranges that hold addr, the one loaded last at
 * or before time; if none is, the one loaded soonest after it. */
long trace_code_at(const struct trace *t, uint32_t process, uint64_t addr, uint64_t time);
/* What holds an address: a file, code a runtime named, or neither. */
enum trace_region {
	TRACE_REGION_IMAGE,     /* an image that is a file (or the vDSO) */
	TRACE_REGION_JIT,       /* no such image, but a named code range (2.4) */
	TRACE_REGION_ANON,      /* neither: anonymous memory, JIT code that no
	                         * perf map or jitdump named, or no mapping */
};
/* Whether img is anonymous memory rather than a file: a mapping the kernel
 * reported by a pseudo-name, such as perf_event's "//anon" for executable
 * anonymous memory (JIT code), or /proc's "[anon:NAME]", "[heap]" and
 * "[stack]". The vDSO is code of a file for this purpose. */
int trace_image_anonymous(const struct trace_image *img);
/* The enum trace_region of addr at time in process (an index in
 * t->processes): an image that is not anonymous (trace_image_at()), else
 * a code range (trace_code_at()), else anonymous. *image and *code, if
 * not NULL, get the two lookups' answers. Every sample holding a stack
 * node sees the same region for its address (the split). */
int trace_region_at(const struct trace *t, uint32_t process, uint64_t addr, uint64_t time, long *image,
		    long *code);
/* "image", "jit", "anon". */
const char *trace_region_name(int region);
/* Returns how many of t->code's ranges in process start in [start, end):
 * those of an image with no file, such as the vDSO, that name it. */
size_t trace_code_count(const struct trace *t, uint32_t process, uint64_t start, uint64_t end);
/* The index in t->processes of sample s's process. */
uint32_t trace_sample_process(const struct trace *t, const struct trace_sample *s);
/* Writes up to max addresses of a stack, leaf first, into out and returns
 * how many the stack has (which may exceed max). */
size_t trace_stack(const struct trace *t, uint32_t stack, uint64_t *out, size_t max);

/*
 * Writing. The writer buffers records into chunks and appends each chunk to
 * fd as one zstd frame; it never seeks or rewrites. It flushes by itself
 * when a chunk grows large; the caller must call trace_writer_flush() at
 * least once a second so a crash loses at most a second.
 */
struct trace_writer;

/* Writes the file header and the session to fd (borrowed; the caller closes
 * it after trace_writer_free()). */
int trace_writer_new(int fd, const struct trace_session *s, struct trace_writer **out);
/* Records a process (2.0): id is the trace's own for it, unique and
 * non-zero, as the image and thread records below name it; pid the
 * system's; parent the id of its parent's process record, or 0 if it has
 * none; time when it was first seen. */
int trace_writer_process(struct trace_writer *w, uint32_t id, uint32_t pid, uint32_t parent, uint64_t time);
/* Process id called execve at time with argv[0..argc) (borrowed): its
 * images before then are gone, and the caller records their unloads. */
int trace_writer_process_exec(struct trace_writer *w, uint32_t id, uint64_t time, uint32_t argc,
			      char *const *argv);
/* How a process-end record says its process ended. */
enum trace_end_kind {
	TRACE_END_UNTOLD = 0,       /* it ended, its exit status not known */
	TRACE_END_EXITED = 1,       /* it ended with the exit status given */
	TRACE_END_OUT_OF_REACH = 2, /* it did not end, but ran a program the
	                             * system would not let the recorder
	                             * sample (another user's, set-user-ID) */
};

/* Process id ended at time, or went out of reach, as kind (enum
 * trace_end_kind) says; status (from wait(2)) is told with
 * TRACE_END_EXITED. */
int trace_writer_process_end(struct trace_writer *w, uint32_t id, uint64_t time, int kind, int32_t status);
/* Records an image in process (an id given to trace_writer_process()).
 * img->id must be unique; img->process and time_unloaded are ignored. */
int trace_writer_image(struct trace_writer *w, uint32_t process, const struct trace_image *img);
int trace_writer_image_unload(struct trace_writer *w, uint32_t id, uint64_t time);
/* Records that [start, end) of image id is a signal trampoline (2.2). */
int trace_writer_signal_frame(struct trace_writer *w, uint32_t id, uint64_t start, uint64_t end);
/* A thread of process (an id given to trace_writer_process()) started. */
int trace_writer_thread_start(struct trace_writer *w, uint32_t process, uint32_t tid, uint64_t time);
int trace_writer_thread_name(struct trace_writer *w, uint32_t tid, uint64_t time, const char *name);
int trace_writer_thread_end(struct trace_writer *w, uint32_t tid, uint64_t time);
/* Records one sample. addrs is the stack leaf first, n entries (borrowed);
 * the writer deduplicates it into the stack table. */
int trace_writer_sample(struct trace_writer *w, uint64_t time, uint32_t tid, uint8_t state,
			uint8_t flags, const uint64_t *addrs, size_t n);
/* Records a mark (2.3): name (borrowed; not empty) at time, made by
 * source (enum trace_mark_source). */
int trace_writer_mark(struct trace_writer *w, uint64_t time, int source, const char *name);
/* Records that sampling was paused from start to end (2.3): no sample
 * was taken then, though the recording went on. */
int trace_writer_pause(struct trace_writer *w, uint64_t start, uint64_t end);
/* Records a named code range (2.4) in process (an id given to
 * trace_writer_process()); c->process is ignored, c->name must not be
 * empty, c->file may be NULL. */
int trace_writer_code(struct trace_writer *w, uint32_t process, const struct trace_code *c);
/* Records the cumulative counters (TRACE_COUNTER__COUNT values). Only
 * changed values are written. */
int trace_writer_counters(struct trace_writer *w, const uint64_t *counters);
/* Ends the current chunk and writes it, if it holds anything. */
int trace_writer_flush(struct trace_writer *w);
/* Writes the end record and the footer, and flushes. No more records after. */
int trace_writer_finish(struct trace_writer *w, const struct trace_end *end);

/*
 * Long recordings (2.6). A recording cut into files: trace_writer_new()
 * with a session of part_kind TRACE_PART_ROTATED, part 1 and a recording
 * number, then trace_writer_switch() at each cut. A flight recorder:
 * trace_writer_new_ring(), then trace_writer_snapshot() to write its last
 * seconds. Either way each file is a whole trace: its session (its start
 * the file's own), then each process, image, thread and code range live
 * in it, restated with their ids and times, then its samples, its own
 * counts of the counters, and a footer.
 */
/* Ends the current file at time, with an end record (no exit status) and
 * its footer, and goes on in a new one on fd (borrowed), numbered one
 * more, that starts at time. Nothing recorded is lost between them. Only
 * a writer made with a session of part_kind TRACE_PART_ROTATED switches:
 * one of a whole recording keeps nothing to restate. */
int trace_writer_switch(struct trace_writer *w, int fd, uint64_t time);
/* The file the writer writes to now: after a switch that failed, fd if
 * the new file failed, the old one's if that could not be finished. */
int trace_writer_fd(const struct trace_writer *w);
/* A writer that keeps the last window_ns of samples in memory, as
 * compressed chunks, and writes nothing until trace_writer_snapshot().
 * The chunks and the stack table are kept under max_bytes: past it the
 * oldest chunks go even inside the window (trace_ring_stats.cut). The
 * session's part_kind and window_ns are set here; its recording number
 * is the caller's. */
int trace_writer_new_ring(const struct trace_session *s, uint64_t window_ns, uint64_t max_bytes,
			  struct trace_writer **out);
/* Writes to fd (borrowed) a whole trace of what the ring holds at now
 * (monotonic): at least the window, as far as it was recorded, from the
 * start of its oldest chunk, and end's record if end is not NULL (the
 * last snapshot of a recording that ended). The recording goes on. A
 * snapshot that fails leaves the ring as it was, and fd's file cut back
 * to its last whole chunk. */
int trace_writer_snapshot(struct trace_writer *w, int fd, uint64_t now, const struct trace_end *end);
struct trace_ring_stats {
	uint64_t bytes;      /* memory held: chunks and stack table */
	uint64_t samples;    /* samples held */
	uint64_t from, to;   /* their earliest and latest times, 0 if none */
	uint64_t cut;        /* samples of the window let go for the cap */
	uint32_t snapshots;  /* written */
};
/* What a ring holds now; all 0 for a writer that is not one. */
void trace_writer_ring_stats(const struct trace_writer *w, struct trace_ring_stats *rs);

/* Bytes written so far, to every file of the recording; to the current
 * file; and samples recorded so far. */
uint64_t trace_writer_bytes(const struct trace_writer *w);
uint64_t trace_writer_file_bytes(const struct trace_writer *w);
uint64_t trace_writer_samples(const struct trace_writer *w);
void trace_writer_free(struct trace_writer *w);

#endif
