/*
 * progress.h: the one status line a program draws on a terminal.
 *
 * A status line is one line of standard error redrawn in place: "\r", the
 * program's name and the text, then "erase to the end of the line". It is
 * for a person watching: prof-record's live counters, and prof-report's
 * phases when a report takes more than about a second, as
 *
 *   prof-report: reading trace 45% (12.3 MiB of 27.0 MiB)
 *   prof-report: symbolizing 12% (310 of 2.7k stacks; libxul.so)
 *
 * It is drawn only on a terminal and never when the program was told to
 * be quiet (progress_stderr()), and it is cleared before any message of
 * common/diag.h and at the end, so what a program prints reads the same
 * with it or without it.
 *
 * Library code is handed a struct progress (or NULL) and says how far it
 * is; it never decides whether anything is drawn. Every function but
 * progress_init() takes NULL and then does nothing, and with no terminal
 * each costs a branch.
 */
#ifndef COMMON_PROGRESS_H
#define COMMON_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#include "common/diag.h"

/* How often a phase's line is redrawn, at most. */
#define PROGRESS_EVERY_NS 250000000ull
/* How long a phase's line waits to appear, unless PROF_PROGRESS_AFTER_MS
 * says otherwise. */
#define PROGRESS_AFTER_NS 1000000000ull

struct progress {
	FILE *f;                  /* where the line goes; NULL: nowhere */
	uint64_t (*clock)(void);  /* monotonic ns; a test may set its own */
	uint64_t after_ns;        /* no phase is shown before this much time
	                           * since progress_init() */
	uint64_t start_ns;
	uint64_t next_draw_ns;    /* a phase's line is not redrawn before */
	int shown;                /* the line is on the terminal now */
	/* The phase (progress_phase()). */
	const char *what;         /* borrowed: "reading trace" */
	const char *unit;         /* borrowed: "samples", "bytes", or NULL */
	uint64_t done, total;     /* total 0: unknown */
	uint64_t next_check;      /* the clock is read when done reaches it */
	char detail[200];         /* escaped for the terminal, or "" */
};

/* Where a status line goes: standard error if it is a terminal and quiet
 * is 0, else NULL (nowhere). */
FILE *progress_stderr(int quiet);

/* Starts p, drawing on f (NULL: nowhere), with no phase. The delay before
 * a phase is shown is PROGRESS_AFTER_NS, or PROF_PROGRESS_AFTER_MS
 * milliseconds if that is set to a number. Release with
 * progress_release() before p goes away. */
void progress_init(struct progress *p, FILE *f);
/* Ends the phase and clears the line. p can be started again. */
void progress_release(struct progress *p);

/* Draws the line now with this text, whatever the time: for a caller
 * that paces itself (prof-record's loop). */
void progress_show(struct progress *p, const char *fmt, ...) DIAG_PRINTF(2, 3);
/* Takes the line off the terminal, if it is there; a phase goes on, and
 * its line comes back at its next redraw. */
void progress_clear(struct progress *p);
/* Clears whichever line is on the terminal: common/diag.h calls it before
 * every message. */
void progress_clear_shown(void);

/* Starts a phase: what is being done ("folding"), of how many of what
 * (unit "samples", total 0 if not known; unit "bytes" shows the counts as
 * sizes; unit NULL shows no count). Once the delay has passed, a phase is
 * drawn when it starts, and redrawn by progress_update() and
 * progress_detail(). what and unit are borrowed until the next phase. */
void progress_phase(struct progress *p, const char *what, const char *unit, uint64_t total);
/* Says done of the phase's total are done. Cheap enough for every item
 * of a loop: the clock is read only every total/1024 items (every 1024
 * when the total is not known), and the line redrawn at most every
 * PROGRESS_EVERY_NS. */
void progress_update(struct progress *p, uint64_t done);
/* Names what the phase is busy with (an image's name; NULL or "":
 * nothing), shown escaped and cut short, and redraws if one is due. */
void progress_detail(struct progress *p, const char *detail);
/* Ends the phase and clears its line: call it before writing anything
 * else to the terminal. Until the next phase, progress_update() and
 * progress_detail() draw nothing. */
void progress_end(struct progress *p);

/* n bytes as the status lines show sizes: "812 B", "12.3 KiB", "25.7 MiB". */
void progress_bytes(uint64_t n, char *out, size_t len);

#endif
