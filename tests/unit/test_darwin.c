/*
 * test_darwin.c: the macOS target and image table (target_darwin.c,
 * images_darwin.c) and the real loop above them, on a synthetic Mach
 * layer.
 *
 * This file implements mach.h itself: a "task" is a memory image (the
 * Mach-O fixtures of mk/macho.mk mapped at slid addresses, dyld's
 * all_image_infos, stacks of frame records) and a few threads with
 * register states, living and dying on a tick count. So everything of the
 * macOS path but the Mach calls runs here: thread events, the task held
 * suspended per tick, run states and names, dyld's list and its changes,
 * Mach-O identities, the arm64 and x86_64 walks of frameless leaves with
 * signed return addresses, the trace, and prof-report naming each frame
 * from the dSYMs. The stacks it prints are compared exactly with the
 * fixture's known call structure (testdata/macho/app.c, libwork.c).
 * Then what the layer can report that must not be lost: a launched
 * process that was never started (killed at detach or free), registers
 * refused, a process run by Rosetta, one that became a zombie.
 *
 * mk/macos.mk links this test with target_darwin.o and images_darwin.o
 * instead of Linux's target and images.
 */
#include "fake_darwin.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "format/trace.h"
#include "record/images.h"
#include "record/mach.h"
#include "record/loop.h"
#include "record/target.h"

/* --- the synthetic Mach layer ------------------------------------------- */

#define MAX_THREADS 8

struct fake_thread {
	uint64_t id;
	int arch;
	struct unwind_regs regs;
	uint8_t state;
	const char *name;
	int from_tick, until_tick;  /* alive for ticks in [from, until); until 0: forever */
};

struct macos_task {
	struct fake_mem mem;
	pid_t pid;
	struct fake_thread th[MAX_THREADS];
	size_t nth;
	uint64_t live[MAX_THREADS];
	uint64_t infos;
	int ticks, stop_after;
	volatile sig_atomic_t *stop;
	void (*on_tick)(struct macos_task *t);
	int suspended, suspends, resumes, bad_calls, freed;
	int running_reads;          /* registers read with the task running */
	struct buf procargs;
	int spawn_errno, started, killed;
	int start_error, regs_error; /* what macos_start and macos_thread_regs fail with */
	int translated, self_translated;
	/* From tick ends_at on (0: never) the process has ended: a zombie
	 * with exit_status, or gone altogether. Its threads go with it, and
	 * task_threads fails as on a dead task. */
	int ends_at, gone, exit_status;
	/* From tick task_lost_at on (0: never) the process runs on with a
	 * new task (it executed a program): the one held is dead. */
	int task_lost_at;
	int proc_error, reap_error;  /* what macos_proc_info (for the process) and macos_reap fail with */
};

static struct macos_task *next_task;

static int ended(const struct macos_task *t)
{
	return t->ends_at && t->ticks >= t->ends_at;
}

static int task_lost(const struct macos_task *t)
{
	return t->task_lost_at && t->ticks >= t->task_lost_at;
}

static int alive(const struct macos_task *t, const struct fake_thread *th)
{
	return !ended(t) && !task_lost(t) && t->ticks >= th->from_tick &&
	       (th->until_tick == 0 || t->ticks < th->until_tick);
}

static struct fake_thread *thread_of(struct macos_task *t, uint64_t id)
{
	for (size_t i = 0; i < t->nth; i++)
		if (t->th[i].id == id)
			return alive(t, &t->th[i]) ? &t->th[i] : NULL;
	return NULL;
}

int macos_attach(pid_t pid, struct macos_task **out)
{
	if (!next_task || next_task->pid != pid)
		return -ESRCH;
	*out = next_task;
	return 0;
}

int macos_spawn(char *const argv[], struct macos_task **out, int *spawn_errno)
{
	*out = next_task->spawn_errno ? NULL : next_task;
	*spawn_errno = next_task->spawn_errno;
	return 0;
}

pid_t macos_pid(const struct macos_task *t) { return t->pid; }

int macos_start(struct macos_task *t)
{
	if (t->start_error)
		return t->start_error;
	t->started = 1;
	return 0;
}

int macos_kill(struct macos_task *t, int *status)
{
	t->killed++;
	*status = SIGKILL;
	return 0;
}

int macos_reap(struct macos_task *t, int *status)
{
	if (t->reap_error)
		return t->reap_error;
	if (!ended(t))
		return 0;
	*status = t->exit_status;
	return 1;
}

int macos_proc_info(pid_t pid, struct macos_proc *out)
{
	memset(out, 0, sizeof(*out));
	out->state = MACOS_PROC_ALIVE;
	if (pid == getpid()) {
		out->translated = next_task && next_task->self_translated;
	} else if (next_task && pid == next_task->pid) {
		if (next_task->proc_error)
			return next_task->proc_error;
		out->translated = next_task->translated;
		if (ended(next_task))
			out->state = next_task->gone ? MACOS_PROC_GONE : MACOS_PROC_ZOMBIE;
		out->status = out->state == MACOS_PROC_ZOMBIE ? next_task->exit_status : 0;
	} else {
		out->state = MACOS_PROC_GONE;
	}
	return 0;
}

/* Each suspension is one tick of the sampler; a dead task refuses it,
 * and the tick counts all the same. */
int macos_suspend(struct macos_task *t)
{
	if (t->suspended)
		t->bad_calls++;
	t->ticks++;
	if (t->on_tick)
		t->on_tick(t);
	if (t->ticks == t->stop_after)
		*t->stop = 1;
	if (task_lost(t))
		return -ESRCH;
	t->suspended = 1;
	t->suspends++;
	return 0;
}

void macos_resume(struct macos_task *t)
{
	if (!t->suspended)
		t->bad_calls++;
	t->suspended = 0;
	t->resumes++;
}

int macos_threads(struct macos_task *t, const uint64_t **ids, size_t *n)
{
	size_t k = 0;

	if (task_lost(t))
		return -ESRCH;
	if (ended(t))
		return -EIO;
	for (size_t i = 0; i < t->nth; i++)
		if (alive(t, &t->th[i]))
			t->live[k++] = t->th[i].id;
	*ids = t->live;
	*n = k;
	return 0;
}

int macos_thread_info(struct macos_task *t, uint64_t id, struct macos_thread_info *out)
{
	struct fake_thread *th = thread_of(t, id);
	if (!th)
		return -ESRCH;
	out->state = th->state;
	snprintf(out->name, sizeof(out->name), "%s", th->name ? th->name : "");
	return 0;
}

int macos_thread_regs(struct macos_task *t, uint64_t id, int *arch, struct unwind_regs *r)
{
	struct fake_thread *th = thread_of(t, id);
	/* Registers of a running thread prove only that they can be read. */
	if (!t->suspended)
		t->running_reads++;
	if (!th)
		return -ESRCH;
	if (t->regs_error)
		return t->regs_error;
	*arch = th->arch;
	*r = th->regs;
	return 0;
}

int macos_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct macos_task *t = ctx;
	return fake_read(&t->mem, addr, buf, len) < 0 ? -EFAULT : 0;
}

int macos_dyld_info(struct macos_task *t, uint64_t *addr, uint64_t *size)
{
	*addr = t->infos;
	*size = 328;   /* sizeof(struct dyld_all_image_infos), version 17 */
	return 0;
}

int macos_procargs(struct macos_task *t, struct buf *out)
{
	buf_reset(out);
	buf_add(out, t->procargs.data, t->procargs.len);
	return 0;
}

void macos_free(struct macos_task *t)
{
	if (t)
		t->freed = 1;
}

/* --- the process -------------------------------------------------------- */

#define INFOS UINT64_C(0x7ff84a000000)
#define STACK UINT64_C(0x16fd00000)
#define STACK_LEN 65536
#define APP_SLIDE UINT64_C(0x4000)
#define LIB_SLIDE UINT64_C(0x104560000)
#define APP_PATH "/Applications/App.app/Contents/MacOS/App"
#define LIB_PATH "/usr/local/lib/libwork.dylib"
/* What arm64e signing leaves in the top bits of a return address. */
#define PAC(addr) ((addr) | UINT64_C(0x002d000000000000))

/* The link-time address of symbol name (e.g. "_run") in f, and where the
 * next symbol starts (the end of that function). */
struct sym_find {
	const char *name;
	uint64_t addr, end;
};

static int find_cb(void *ctx, const struct macho_symbol *s)
{
	struct sym_find *f = ctx;
	if (strcmp(s->name, f->name) == 0)
		f->addr = s->value;
	return 0;
}

static int end_cb(void *ctx, const struct macho_symbol *s)
{
	struct sym_find *f = ctx;
	if (s->value > f->addr && s->value < f->end)
		f->end = s->value;
	return 0;
}

static struct sym_find symbol(const struct fake_file *ff, const char *name)
{
	struct macho_file m;
	struct sym_find f = { name, 0, UINT64_MAX };
	struct macho_segment text = fake_text(ff);

	cr_assert_eq(macho_parse(&m, ff->p, ff->n), 0);
	macho_symbols(&m, find_cb, &f);
	cr_assert_neq(f.addr, 0, "no symbol %s", name);
	macho_symbols(&m, end_cb, &f);
	if (f.end > text.vmaddr + text.vmsize)
		f.end = text.vmaddr + text.vmsize;
	return f;
}

/* The return address of caller's call to callee (link-time), found in
 * its code: after a BL (arm64) or a call rel32 (x86_64) whose target is
 * callee, or any call when callee is 0 (a call through a stub). */
static uint64_t call_site(const struct fake_file *ff, int arch, const char *caller, const char *callee)
{
	struct sym_find c = symbol(ff, caller);
	uint64_t target = callee ? symbol(ff, callee).addr : 0, base = fake_text(ff).vmaddr;

	for (uint64_t a = c.addr; a + 5 <= c.end; a++) {
		const uint8_t *p = ff->p + (a - base);
		if (arch == UNWIND_ARCH_ARM64 && (a & 3) == 0 && (get_le32(p) & 0xfc000000u) == 0x94000000u) {
			int64_t off = (int64_t)((uint64_t)(get_le32(p) & 0x03ffffffu) << 38) >> 36;
			if (!callee || a + (uint64_t)off == target)
				return a + 4;
		}
		if (arch == UNWIND_ARCH_X86_64 && p[0] == 0xe8 &&
		    (!callee || a + 5 + (uint64_t)(int64_t)(int32_t)get_le32(p + 1) == target))
			return a + 5;
	}
	cr_assert_fail("no call from %s to %s", caller, callee ? callee : "anything");
	return 0;
}

/* Writes a frame record at stack word w: [fp] = next, [fp + 8] = ret. */
static uint64_t record_at(struct macos_task *t, int w, uint64_t next, uint64_t ret)
{
	uint8_t *stack = t->mem.r[0].bytes;   /* the stack is mapped first */
	put_le64(stack + 8 * w, next);
	put_le64(stack + 8 * w + 8, ret);
	return STACK + 8 * (uint64_t)w;
}

static void task_init(struct macos_task *t, volatile sig_atomic_t *stop, int stop_after)
{
	static const char args[] = "\1\0\0\0" APP_PATH "\0\0\0\0App\0HOME=/Users/dev";

	memset(t, 0, sizeof(*t));
	t->pid = 4242;
	t->infos = INFOS;
	t->stop = stop;
	t->stop_after = stop_after;
	buf_init(&t->procargs);
	buf_add(&t->procargs, args, sizeof(args));
	fake_map(&t->mem, STACK, STACK_LEN);
	next_task = t;
}

/* Frees t and removes the test's directory dir (none if ""). */
static void task_release(struct macos_task *t, const char *dir)
{
	char cmd[PATH_MAX + 16];
	fake_fmt(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (*dir)
		cr_assert_eq(system(cmd), 0);
	fake_mem_free(&t->mem);
	buf_release(&t->procargs);
	next_task = NULL;
}

/* The dSYMs, copied where prof-report looks by UUID. */
static const char *symbols_dir(char *dir, size_t n)
{
	char path[PATH_MAX + 64], cmd[3 * PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	fake_fmt(dir, n, "%s/test_darwin.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(dir));
	fake_fixture("app-arm64.dSYM/Contents/Resources/DWARF/app-arm64", path, sizeof(path));
	fake_fmt(cmd, sizeof(cmd), "cp -R '%s/testdata/macho/'*.dSYM '%s'", build_dir, dir);
	cr_assert_eq(system(cmd), 0);
	return dir;
}

/* The prof-report to run: $BIN/prof-report, as tests/run.sh says, or the
 * one at the top of the tree. */
static const char *report_path(char *out, size_t n)
{
	const char *bin = getenv("BIN");
	if (bin && *bin)
		fake_fmt(out, n, "%s/prof-report", bin);
	else
		fake_fmt(out, n, "%s/../prof-report", build_dir);
	if (access(out, X_OK) != 0)
		cr_skip_test("no %s to report with (make builds it)", out);
	return out;
}

/* A new directory for a test's trace (dir, removed by task_release())
 * and the path of the trace in it. */
static const char *scratch_trace(char *dir, size_t dn, char *path, size_t pn)
{
	const char *tmp = getenv("TMPDIR");

	fake_fmt(dir, dn, "%s/test_darwin.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(dir));
	fake_fmt(path, pn, "%s/one.trace", dir);
	return path;
}

/* Runs the real loop on the task until it stops itself or ends; the
 * trace goes to path. *exit_status is the process's, or -1 if the target
 * has none to give. */
static struct loop_stats record(const char *path, volatile sig_atomic_t *stop, int *exit_status)
{
	struct target *t;
	struct source *src;
	struct trace_writer *w;
	struct trace_session sess = { .os = TRACE_OS_MACOS, .arch = TRACE_ARCH_ARM64,
				      .mode = TRACE_MODE_WALL, .rate_hz = 1000,
				      .start_realtime_ns = 1, .start_monotonic_ns = loop_now() };
	struct loop_config cfg = { .rate_hz = 1000, .max_depth = 64, .stop = stop };
	struct loop_stats st;
	struct trace_end end = { 0 };
	char **argv;
	uint32_t argc;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(target_attach(next_task->pid, 0, &t), 0);
	cr_assert_eq(target_cmdline(t, &argv, &argc), 0);
	cr_assert_eq(argc, 1);
	cr_assert_str_eq(argv[0], "App");
	sess.pid = (uint32_t)target_pid(t);
	sess.argc = argc;
	sess.argv = argv;
	cr_assert_eq(trace_writer_new(fd, &sess, &w), 0);
	src = source_tick_new(t);
	cr_assert_eq(loop_run(&cfg, t, src, w, &st), 0);
	source_free(src);
	target_detach(t);
	if (!target_exited(t, exit_status))
		*exit_status = -1;
	end.time = loop_now();
	cr_assert_eq(trace_writer_finish(w, &end), 0);
	trace_writer_free(w);
	close(fd);
	target_free(t);
	free(argv[0]);
	free(argv);
	return st;
}

/* prof-report folded on path, with the dSYMs; static, cut at 16 KiB. */
static const char *folded(const char *path, const char *symdir)
{
	static char out[16384];
	char report[PATH_MAX + 16], cmd[3 * PATH_MAX];
	FILE *p;
	size_t n;

	fake_fmt(cmd, sizeof(cmd), "'%s' folded --symbols '%s' '%s' 2>&1", report_path(report, sizeof(report)),
		 symdir, path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	cr_assert_eq(pclose(p), 0, "prof-report failed: %s", out);
	return out;
}

/* The first address of path_a that llvm-symbolizer places in mix inlined
 * into step inlined into path_a, so a sample there has inline frames. */
static uint64_t inlined_pc(const struct fake_file *app)
{
	char dwarf[PATH_MAX + 64], cmd[2 * PATH_MAX], line[256];
	struct sym_find f = symbol(app, "_path_a");
	FILE *p;

	if (system("command -v llvm-symbolizer >/dev/null 2>&1") != 0)
		cr_skip_test("no llvm-symbolizer to find an inlined address with");
	fake_fixture("app-arm64.dSYM/Contents/Resources/DWARF/app-arm64", dwarf, sizeof(dwarf));
	for (uint64_t a = f.addr; a < f.end; a += 4) {
		char got[3][64] = { "", "", "" };
		int k = 0;
		fake_fmt(cmd, sizeof(cmd), "llvm-symbolizer --obj='%s' --inlining --functions=short 0x%llx",
			 dwarf, (unsigned long long)a);
		p = popen(cmd, "r");
		cr_assert_not_null(p);
		for (int i = 0; fgets(line, sizeof(line), p); i++)
			if (i % 2 == 0 && k < 3)
				sscanf(line, "%63s", got[k++]);
		pclose(p);
		if (strcmp(got[0], "mix") == 0 && strcmp(got[1], "step") == 0 && strcmp(got[2], "path_a") == 0)
			return a;
	}
	cr_assert_fail("no address of path_a is in mix inlined into step");
	return 0;
}

/* --- the arm64 process -------------------------------------------------- */

static struct fake_file app, lib;

/* dlopen at tick 3: libwork.dylib joins the list (the timestamp moves)
 * and the thread that runs in it starts. */
static void arm64_dlopen(struct macos_task *t)
{
	struct fake_infos in = { .timestamp = 2, .dyld_path = "/usr/lib/dyld" };
	struct fake_image img[2] = { { UINT64_C(0x100000000) + APP_SLIDE, APP_PATH }, { LIB_SLIDE, LIB_PATH } };
	if (t->ticks == 3)
		fake_dyld_write(&t->mem, INFOS, &in, img, 2);
}

/*
 * Three threads:
 *  - "main" (unnamed, so it takes the process's name) from the start,
 *    sleeping, in path_a where mix and step are inlined: a frameless leaf
 *    whose caller run is in lr, signed; then run's record, main's, end.
 *  - a worker from tick 3, running in lib_mix of libwork.dylib, frameless
 *    too: lib_work in lr (signed); lib_work's record returns into path_b
 *    through the stub (signed), then run, main.
 *  - "doomed" from the start, gone at tick 4 after the thread list was
 *    read: it vanishes mid-sample, then ends.
 */
static void arm64_process(struct macos_task *t)
{
	struct fake_infos in = { .timestamp = 1, .dyld_path = "/usr/lib/dyld" };
	struct fake_image img[1] = { { UINT64_C(0x100000000) + APP_SLIDE, APP_PATH } };
	uint64_t fmain, frun, fpath_b, flib_work;

	app = fake_load("app-arm64");
	lib = fake_load("libwork.dylib");
	fake_map_macho(&t->mem, &app, APP_SLIDE, NULL);
	fake_map_macho(&t->mem, &lib, LIB_SLIDE, NULL);
	fake_dyld_write(&t->mem, INFOS, &in, img, 1);
	t->on_tick = arm64_dlopen;

	fmain = record_at(t, 1000, 0, 0);
	frun = record_at(t, 990, fmain, PAC(call_site(&app, UNWIND_ARCH_ARM64, "_main", "_run") + APP_SLIDE));
	t->th[0] = (struct fake_thread){
		.id = 0x1a001, .arch = UNWIND_ARCH_ARM64, .state = TRACE_STATE_SLEEPING,
		.regs = { .pc = inlined_pc(&app) + APP_SLIDE, .sp = STACK + 8 * 980, .fp = frun,
			  .lr = PAC(call_site(&app, UNWIND_ARCH_ARM64, "_run", "_path_a") + APP_SLIDE) } };

	fmain = record_at(t, 2000, 0, 0);
	frun = record_at(t, 1990, fmain, PAC(call_site(&app, UNWIND_ARCH_ARM64, "_main", "_run") + APP_SLIDE));
	fpath_b = record_at(t, 1980, frun, PAC(call_site(&app, UNWIND_ARCH_ARM64, "_run", "_path_b") + APP_SLIDE));
	flib_work = record_at(t, 1970, fpath_b, PAC(call_site(&app, UNWIND_ARCH_ARM64, "_path_b", NULL) + APP_SLIDE));
	t->th[1] = (struct fake_thread){
		.id = 0x1a0f3, .arch = UNWIND_ARCH_ARM64, .state = TRACE_STATE_RUNNING, .name = "worker",
		.from_tick = 3,
		.regs = { .pc = symbol(&lib, "_lib_mix").addr + 8 + LIB_SLIDE, .sp = STACK + 8 * 1960,
			  .fp = flib_work,
			  .lr = PAC(call_site(&lib, UNWIND_ARCH_ARM64, "_lib_work", "_lib_mix") + LIB_SLIDE) } };

	t->th[2] = (struct fake_thread){
		.id = 0x1a0f9, .arch = UNWIND_ARCH_ARM64, .state = TRACE_STATE_SLEEPING, .name = "doomed",
		.until_tick = 4,
		.regs = { .pc = symbol(&app, "_run").addr + APP_SLIDE, .sp = STACK + 8 * 2990,
			  .fp = record_at(t, 3000, 0, 0) } };
	t->nth = 3;
}

Test(darwin, arm64_sampler_to_report)
{
	static volatile sig_atomic_t stop;
	static struct macos_task t;
	char trace_path[PATH_MAX], dir[PATH_MAX];
	struct trace *tr;
	struct loop_stats st;
	const char *want, *got;
	size_t per_state[TRACE_STATE__COUNT] = { 0 };
	int status;

	task_init(&t, &stop, 10);
	arm64_process(&t);
	fake_fmt(trace_path, sizeof(trace_path), "%s/arm64.trace", symbols_dir(dir, sizeof(dir)));
	st = record(trace_path, &stop, &status);

	/* The task ran again after every tick, and was never read running
	 * but once, by attach's check. */
	cr_assert_eq(status, -1, "an attached process that runs has no exit status");
	cr_assert_eq(t.ticks, 10);
	cr_assert_eq(t.suspends, t.resumes);
	cr_assert_eq(t.bad_calls, 0);
	cr_assert_eq(t.running_reads, 1);
	cr_assert_not(t.suspended);
	cr_assert(t.freed);

	/* Ticks 1-10 of main; 4-10 of the worker, which the list of tick 3
	 * did not have yet; 1-3 of "doomed", which went at 4. */
	cr_assert_eq(st.samples, 10 + 7 + 3);
	cr_assert_eq(st.counters[TRACE_COUNTER_THREADS_VANISHED], 1);
	cr_assert_eq(trace_load(trace_path, &tr), 0);
	cr_assert_eq(tr->nsamples, 20);
	cr_assert_eq(tr->counters[TRACE_COUNTER_THREADS_VANISHED], 1);
	for (size_t i = 0; i < tr->nsamples; i++)
		per_state[tr->samples[i].state]++;
	cr_assert_eq(per_state[TRACE_STATE_RUNNING], 7);
	cr_assert_eq(per_state[TRACE_STATE_SLEEPING], 13);
	cr_assert_eq(tr->nthreads, 3);
	cr_assert_str_eq(trace_thread_name_at(trace_thread_find(tr, 0x1a001), 0), "App");
	cr_assert_str_eq(trace_thread_name_at(trace_thread_find(tr, 0x1a0f3), 0), "worker");
	cr_assert_neq(trace_thread_find(tr, 0x1a0f9)->time_end, 0, "the thread that went is ended");
	/* The dylib was recorded when dlopen put it in the list, after the
	 * program, with its slide. */
	cr_assert_eq(tr->nimages, 2);
	cr_assert_str_eq(tr->images[0].path, APP_PATH);
	cr_assert_eq(tr->images[0].bias, APP_SLIDE);
	cr_assert_eq(tr->images[0].time_loaded, 0);
	cr_assert_str_eq(tr->images[1].path, LIB_PATH);
	cr_assert_eq(tr->images[1].bias, LIB_SLIDE);
	cr_assert_neq(tr->images[1].time_loaded, 0);
	cr_assert_eq(tr->images[1].ident_kind, TRACE_IDENT_MACHO_UUID);
	trace_free(tr);

	/* Every frame named from the dSYMs, inline frames included, and the
	 * run lost no frame: each leaf's caller came from lr. "doomed" is in
	 * run, the outermost frame it has. */
	want = "App;main;run;path_a;step;mix 10\n"
	       "App;main;run;path_b;lib_work;lib_mix 7\n"
	       "App;run 3\n";
	got = folded(trace_path, dir);
	cr_assert_str_eq(got, want, "prof-report said:\n%s", got);
	task_release(&t, dir);
	free(app.p);
	free(lib.p);
}

/* --- x86_64: a frameless leaf found by the stack search ------------------ */

/* The program fixture (into app) at APP_SLIDE, dyld's only image. */
static void only_image(struct macos_task *t, const char *fixture)
{
	struct fake_infos in = { .timestamp = 1 };
	struct fake_image img[1] = { { UINT64_C(0x100000000) + APP_SLIDE, APP_PATH } };

	app = fake_load(fixture);
	fake_map_macho(&t->mem, &app, APP_SLIDE, NULL);
	fake_dyld_write(&t->mem, INFOS, &in, img, 1);
}

/* Records t, whose one thread is th[0], until it stops itself, and checks
 * what prof-report folds the trace to; then lets the task and app go. */
static void only_thread_folds_to(struct macos_task *t, volatile sig_atomic_t *stop, const char *want)
{
	char trace_path[PATH_MAX + 16], dir[PATH_MAX];
	const char *got;
	int status;

	t->nth = 1;
	fake_fmt(trace_path, sizeof(trace_path), "%s/one.trace", symbols_dir(dir, sizeof(dir)));
	record(trace_path, stop, &status);
	got = folded(trace_path, dir);
	cr_assert_str_eq(got, want, "prof-report said:\n%s", got);
	task_release(t, dir);
	free(app.p);
}

/* lib_mix caught before it pushed a frame: its return address into
 * lib_work is the word at sp, found because it follows a call instruction
 * in the code read from the task's memory. A word below it that points
 * into the image but not after a call is passed over. */
Test(darwin, x86_64_frameless_leaf)
{
	static volatile sig_atomic_t stop;
	static struct macos_task t;
	uint64_t fmain, frun, fpath_b, flib_work, sp = STACK + 8 * 960;
	uint8_t *stack;

	task_init(&t, &stop, 5);
	only_image(&t, "app-x86_64");
	fmain = record_at(&t, 1000, 0, 0);
	frun = record_at(&t, 990, fmain, call_site(&app, UNWIND_ARCH_X86_64, "_main", "_run") + APP_SLIDE);
	fpath_b = record_at(&t, 980, frun, call_site(&app, UNWIND_ARCH_X86_64, "_run", "_path_b") + APP_SLIDE);
	flib_work = record_at(&t, 970, fpath_b,
			      call_site(&app, UNWIND_ARCH_X86_64, "_path_b", "_lib_work") + APP_SLIDE);
	stack = t.mem.r[0].bytes;
	put_le64(stack + 8 * 960, symbol(&app, "_lib_mix").addr + 2 + APP_SLIDE);
	put_le64(stack + 8 * 961, call_site(&app, UNWIND_ARCH_X86_64, "_lib_work", "_lib_mix") + APP_SLIDE);
	t.th[0] = (struct fake_thread){
		.id = 0x2b001, .arch = UNWIND_ARCH_X86_64, .state = TRACE_STATE_RUNNING, .name = "main",
		.regs = { .pc = symbol(&app, "_lib_mix").addr + APP_SLIDE, .sp = sp, .fp = flib_work } };
	only_thread_folds_to(&t, &stop, "App;main;run;path_b;lib_work;lib_mix 5\n");
}

/* --- the image table alone ----------------------------------------------- */

struct session {
	char path[PATH_MAX], dir[PATH_MAX];
	int fd;
	struct target *t;
	struct trace_writer *w;
	struct images *im;
};

static void session_open(struct session *s)
{
	struct trace_session sess = { .os = TRACE_OS_MACOS, .arch = TRACE_ARCH_ARM64, .mode = TRACE_MODE_WALL,
				      .rate_hz = 1000, .start_realtime_ns = 1, .start_monotonic_ns = 1 };
	const char *tmp = getenv("TMPDIR");

	fake_fmt(s->dir, sizeof(s->dir), "%s/test_darwin.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(s->dir));
	fake_fmt(s->path, sizeof(s->path), "%s/images.trace", s->dir);
	s->fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(s->fd, 0);
	/* A task with no thread cannot be attached to. */
	next_task->th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64 };
	next_task->nth = 1;
	cr_assert_eq(target_attach(next_task->pid, 0, &s->t), 0);
	cr_assert_eq(trace_writer_new(s->fd, &sess, &s->w), 0);
	s->im = images_new(s->t, 1, NULL);
}

/* Finishes the trace and loads it back. */
static struct trace *session_close(struct session *s)
{
	struct trace_end end = { .time = 100 };
	struct trace *tr;

	cr_assert_eq(trace_writer_finish(s->w, &end), 0);
	trace_writer_free(s->w);
	close(s->fd);
	images_free(s->im);
	target_free(s->t);
	cr_assert_eq(trace_load(s->path, &tr), 0);
	return tr;
}

/* dyld changes its list while the recorder reads it: the timestamp moves
 * between the two reads of the struct, and the copy is not used. */
static void bump_timestamp(struct fake_mem *m, uint64_t addr)
{
	if (addr == INFOS + 256) {   /* the info array is being read */
		uint8_t *p = m->user;
		put_le64(p + DYLD_OFF_TIMESTAMP, get_le64(p + DYLD_OFF_TIMESTAMP) + 1);
		m->on_read = NULL;
	}
}

Test(darwin, images_follow_dyld)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	struct session s;
	struct trace *tr;
	struct fake_infos in = { .timestamp = 1 };
	struct fake_image img[3];
	uint8_t want[16], *p;
	struct macho_file m;

	task_init(&t, &stop, 0);
	app = fake_load("app-arm64");
	lib = fake_load("libwork.dylib");
	img[0] = (struct fake_image){ fake_map_macho(&t.mem, &app, APP_SLIDE, NULL), APP_PATH };
	img[1] = (struct fake_image){ fake_map_macho(&t.mem, &lib, LIB_SLIDE, NULL), LIB_PATH };
	session_open(&s);

	/* Not yet: dyld has not set the struct's address (a task spawned
	 * suspended), then is mid-change (infoArray NULL). */
	t.infos = 0;
	cr_assert_eq(images_update(s.im, s.w, 0), 0);
	t.infos = INFOS;
	p = fake_dyld_write(&t.mem, INFOS, &in, img, 2);
	put_le64(p + DYLD_OFF_ARRAY, 0);
	cr_assert_eq(images_update(s.im, s.w, 0), 0);
	cr_assert_eq(images_count(s.im), 0);
	/* Torn: the list changed while it was read. */
	p = fake_dyld_write(&t.mem, INFOS, &in, img, 2);
	t.mem.user = p;
	t.mem.on_read = bump_timestamp;
	cr_assert_eq(images_update(s.im, s.w, 0), 0);
	cr_assert_eq(images_count(s.im), 0);
	/* Now whole: both, once, even when listed twice. */
	img[2] = img[1];
	fake_dyld_write(&t.mem, INFOS, &in, img, 3);
	cr_assert_eq(images_update(s.im, s.w, 0), 0);
	cr_assert_eq(images_count(s.im), 2);
	cr_assert(images_covers(s.im, img[1].load + 0x2f0));
	cr_assert_not(images_covers(s.im, img[1].load + fake_text(&lib).vmsize));
	/* Unchanged: nothing new. Then dlclose of the dylib at 50. */
	cr_assert_eq(images_update(s.im, s.w, 10), 0);
	in.timestamp = 2;
	fake_dyld_write(&t.mem, INFOS, &in, img, 1);
	cr_assert_eq(images_update(s.im, s.w, 50), 0);
	cr_assert_not(images_covers(s.im, img[1].load + 0x2f0));

	tr = session_close(&s);
	cr_assert_eq(tr->nimages, 2);
	cr_assert_str_eq(tr->images[0].path, APP_PATH);
	cr_assert_eq(tr->images[0].start, UINT64_C(0x100000000) + APP_SLIDE);
	cr_assert_eq(tr->images[0].size, fake_text(&app).vmsize);
	cr_assert_eq(tr->images[0].arch, TRACE_ARCH_ARM64);
	cr_assert_eq(macho_parse(&m, app.p, app.n), 0);
	cr_assert_eq(macho_uuid(&m, want), 0);
	cr_assert_eq(tr->images[0].ident_len, 16);
	cr_assert_arr_eq(tr->images[0].ident, want, 16);
	cr_assert_str_eq(tr->images[1].path, LIB_PATH);
	cr_assert_eq(tr->images[1].time_unloaded, 50);
	cr_assert_eq(tr->images[0].time_unloaded, 0);
	trace_free(tr);
	task_release(&t, s.dir);
	free(app.p);
	free(lib.p);
}

/* Images in the shared cache slide with it: a header flagged as in the
 * cache whose slide is not the cache's is not believed. dyld itself is
 * recorded from the struct, under its path there. An image whose header
 * is garbage, or whose path is unreadable, does not stop the others. */
Test(darwin, shared_cache_dyld_and_bad_entries)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	struct session s;
	struct trace *tr;
	struct fake_infos in = { .timestamp = 1, .cache_slide = LIB_SLIDE, .dyld_path = "/usr/lib/dyld" };
	struct fake_image img[4];
	uint8_t *cached;

	task_init(&t, &stop, 0);
	app = fake_load("app-arm64");
	lib = fake_load("libwork.dylib");
	in.dyld_address = fake_map_macho(&t.mem, &app, 0x7000000, NULL);   /* stands in for dyld */
	img[0] = (struct fake_image){ fake_map_macho(&t.mem, &lib, LIB_SLIDE, &cached), "/usr/lib/libcached.dylib" };
	put_le32(cached + 24, get_le32(cached + 24) | 0x80000000u);        /* MH_DYLIB_IN_CACHE */
	img[1] = (struct fake_image){ fake_map_macho(&t.mem, &lib, LIB_SLIDE + 0x100000, &cached), "/usr/lib/liblying.dylib" };
	put_le32(cached + 24, get_le32(cached + 24) | 0x80000000u);
	img[2] = (struct fake_image){ INFOS, "/garbage" };
	img[3] = (struct fake_image){ fake_map_macho(&t.mem, &lib, LIB_SLIDE + 0x200000, NULL), "/unreadable" };
	cached = fake_dyld_write(&t.mem, INFOS, &in, img, 4);
	put_le64(cached + 256 + 3 * DYLD_IMAGE_INFO_SIZE + 8, 0x10);       /* its path pointer */
	session_open(&s);
	cr_assert_eq(images_update(s.im, s.w, 0), 0);
	tr = session_close(&s);
	cr_assert_eq(tr->nimages, 3);
	cr_assert_str_eq(tr->images[0].path, "/usr/lib/dyld");
	cr_assert_eq(tr->images[0].bias, 0x7000000);
	cr_assert_str_eq(tr->images[1].path, "/usr/lib/libcached.dylib");
	cr_assert_eq(tr->images[1].bias, LIB_SLIDE);
	cr_assert_str_eq(tr->images[2].path, "[unknown]");
	cr_assert_eq(tr->images[2].bias, LIB_SLIDE + 0x200000);
	trace_free(tr);
	task_release(&t, s.dir);
	free(app.p);
	free(lib.p);
}

/* --- launching ----------------------------------------------------------- */

Test(darwin, attach_launch_and_exec_failure)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	char *argv[] = { "App", NULL };
	struct target *tg;
	int err = 0;

	task_init(&t, &stop, 0);
	cr_assert_eq(target_attach(4243, 0, &tg), -ESRCH);
	cr_assert_eq(target_attach(4242, 0, &tg), TARGET_E_NOTHREADS);
	t.nth = 1;
	t.th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64 };
	cr_assert_eq(target_launch(argv, 0, &tg), 0);
	cr_assert_eq(target_launch_exec(tg, &err), 0);
	cr_assert(t.started, "the task spawned suspended is let go");
	cr_assert_eq(target_pid(tg), 4242);
	target_free(tg);

	t.spawn_errno = ENOENT;
	cr_assert_eq(target_launch(argv, 0, &tg), 0);
	cr_assert_eq(target_launch_exec(tg, &err), TARGET_E_EXEC);
	cr_assert_eq(err, ENOENT);
	cr_assert_str_eq(prof_strerror(TARGET_E_EXEC), "cannot execute the command");
	target_free(tg);
	task_release(&t, "");
}

/* KERN_PROCARGS2 as the kernel gives it (argc, the executable path, NUL
 * padding, the arguments, the environment) and as it should never be. */
Test(darwin, command_line_from_procargs)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	static const char good[] = "\3\0\0\0/bin/app\0\0\0\0app\0-v\0x y\0HOME=/\0";
	static const char huge_argc[] = "\377\377\377\177/bin/app\0a\0b";
	static const char no_nul[] = "\2\0\0\0/bin/app-without-end";
	struct target *tg;
	char **argv, name[64];
	uint32_t argc;

	task_init(&t, &stop, 0);
	t.nth = 1;
	t.th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64 };
	buf_reset(&t.procargs);
	buf_add(&t.procargs, good, sizeof(good));
	cr_assert_eq(target_attach(4242, 0, &tg), 0);
	cr_assert_eq(target_cmdline(tg, &argv, &argc), 0);
	cr_assert_eq(argc, 3);
	cr_assert_str_eq(argv[0], "app");
	cr_assert_str_eq(argv[2], "x y");
	cr_assert_null(argv[3], "the environment is left out");
	for (uint32_t i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	/* An unnamed thread is named after the executable. */
	cr_assert_eq(target_thread_name(tg, 7, name, sizeof(name)), 0);
	cr_assert_str_eq(name, "app");
	target_free(tg);

	buf_reset(&t.procargs);
	buf_add(&t.procargs, huge_argc, sizeof(huge_argc) - 1);
	cr_assert_eq(target_attach(4242, 0, &tg), 0);
	cr_assert_eq(target_cmdline(tg, &argv, &argc), 0);
	cr_assert_eq(argc, 2);
	cr_assert_str_eq(argv[1], "b");
	free(argv[0]);
	free(argv[1]);
	free(argv);
	target_free(tg);

	buf_reset(&t.procargs);
	buf_add(&t.procargs, no_nul, sizeof(no_nul) - 1);
	cr_assert_eq(target_attach(4242, 0, &tg), 0);
	cr_assert_eq(target_cmdline(tg, &argv, &argc), 0);
	cr_assert_eq(argc, 0);
	free(argv);
	buf_reset(&t.procargs);
	buf_add(&t.procargs, "\1\0", 2);
	cr_assert_eq(target_cmdline(tg, &argv, &argc), -EIO);
	target_free(tg);
	task_release(&t, "");
}

/* A stack whose mapping ends less than a window above sp gives what is
 * mapped; the task is suspended for the read and let go with the last
 * thread of the tick. */
Test(darwin, stack_window_and_suspension)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	struct target *tg;
	struct target_stop s;

	task_init(&t, &stop, 0);
	t.nth = 2;
	t.th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64, .state = TRACE_STATE_DISK,
					.regs = { .pc = 0x1000, .sp = STACK + STACK_LEN - 1000 } };
	t.th[1] = (struct fake_thread){ .id = 8, .arch = UNWIND_ARCH_ARM64, .regs = { .pc = 0x1000, .sp = STACK } };
	cr_assert_eq(target_attach(4242, 0, &tg), 0);
	cr_assert_eq(target_interrupt_thread(tg, 7), 0);
	cr_assert_eq(target_interrupt_thread(tg, 8), 0);
	cr_assert_not(t.suspended, "states are read before the task is stopped");
	cr_assert_eq(target_stop_thread(tg, 7, &s), 0);
	cr_assert(t.suspended);
	cr_assert_eq(s.window_addr, STACK + STACK_LEN - 1000);
	cr_assert_eq(s.window_len, 1000);
	cr_assert_eq(s.state, TRACE_STATE_DISK);
	cr_assert_eq(target_resume_thread(tg, 7), 0);
	cr_assert(t.suspended, "until the last thread of the tick is done");
	cr_assert_eq(target_stop_thread(tg, 8, &s), 0);
	cr_assert_eq(s.window_len, 16384);
	cr_assert_eq(target_resume_thread(tg, 8), 0);
	cr_assert_not(t.suspended);
	/* A thread that is gone before its stop lets the task go too. */
	cr_assert_eq(target_interrupt_thread(tg, 7), 0);
	t.th[0].until_tick = 1;
	t.ticks = 1;
	cr_assert_eq(target_stop_thread(tg, 7, &s), -ESRCH);
	cr_assert_not(t.suspended);
	cr_assert_eq(t.suspends, t.resumes);
	cr_assert_eq(t.bad_calls, 0);
	cr_assert_eq(t.running_reads, 1);
	target_free(tg);
	task_release(&t, "");
}

/* --- what the layer reports, and must not be lost ----------------------- */

/* A command is spawned suspended, a suspension that outlives prof-record:
 * every way a launch can end before its start kills and reaps it. */
Test(darwin, unstarted_launch_is_killed)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	char *argv[] = { "App", NULL };
	struct target *tg;
	int err = 0, status = 0;

	task_init(&t, &stop, 0);
	t.nth = 1;
	t.th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64 };

	/* The trace cannot be written: freed before it was ever started. */
	cr_assert_eq(target_launch(argv, 0, &tg), 0);
	target_free(tg);
	cr_assert_eq(t.killed, 1);

	/* A failure after the launch that detaches and dies: killed at the
	 * detach, and its end is known. */
	t.killed = 0;
	cr_assert_eq(target_launch(argv, 0, &tg), 0);
	target_detach(tg);
	cr_assert_eq(t.killed, 1);
	cr_assert(target_exited(tg, &status));
	cr_assert_eq(status, SIGKILL);
	target_free(tg);
	cr_assert_eq(t.killed, 1, "once");

	/* A process that cannot be sampled is never started. */
	t.killed = 0;
	t.translated = 1;
	cr_assert_eq(target_launch(argv, 0, &tg), 0);
	cr_assert_eq(target_launch_exec(tg, &err), TARGET_E_ROSETTA);
	cr_assert_not(t.started);
	target_free(tg);
	cr_assert_eq(t.killed, 1);
	t.translated = 0;

	/* task_resume fails. */
	t.killed = 0;
	t.start_error = -EIO;
	cr_assert_eq(target_launch(argv, 0, &tg), 0);
	cr_assert_eq(target_launch_exec(tg, &err), -EIO);
	target_detach(tg);
	target_free(tg);
	cr_assert_eq(t.killed, 1);
	t.start_error = 0;

	/* Started: it runs on after prof-record. */
	t.killed = 0;
	cr_assert_eq(target_launch(argv, 0, &tg), 0);
	cr_assert_eq(target_launch_exec(tg, &err), 0);
	cr_assert(t.started);
	target_detach(tg);
	target_free(tg);
	cr_assert_eq(t.killed, 0);

	/* Nothing was spawned: nothing to kill. */
	t.spawn_errno = ENOENT;
	cr_assert_eq(target_launch(argv, 0, &tg), 0);
	cr_assert_eq(target_launch_exec(tg, &err), TARGET_E_EXEC);
	target_free(tg);
	cr_assert_eq(t.killed, 0);
	task_release(&t, "");
}

/* What signing can leave in a return address: macOS arm64 user addresses
 * end below 1 << 47, so the code begins at bit 47. */
#define PAC47(addr) ((addr) | UINT64_C(0x0030800000000000))

/* A signed lr and a signed frame-record return, both with bit 47 set:
 * stripped at 47 bits, each names its function. */
Test(darwin, signed_return_addresses_with_bit_47)
{
	static volatile sig_atomic_t stop;
	static struct macos_task t;
	uint64_t fmain, frun;

	task_init(&t, &stop, 5);
	only_image(&t, "app-arm64");
	fmain = record_at(&t, 1000, 0, 0);
	frun = record_at(&t, 990, fmain, PAC47(call_site(&app, UNWIND_ARCH_ARM64, "_main", "_run") + APP_SLIDE));
	t.th[0] = (struct fake_thread){
		.id = 0x3c001, .arch = UNWIND_ARCH_ARM64, .state = TRACE_STATE_RUNNING,
		.regs = { .pc = inlined_pc(&app) + APP_SLIDE, .sp = STACK + 8 * 980, .fp = frun,
			  .lr = PAC47(call_site(&app, UNWIND_ARCH_ARM64, "_run", "_path_a") + APP_SLIDE) } };
	only_thread_folds_to(&t, &stop, "App;main;run;path_a;step;mix 5\n");
}

static void refuse_registers_at_3(struct macos_task *t)
{
	if (t->ticks == 3)
		t->regs_error = -EINVAL;
}

/* KERN_INVALID_ARGUMENT from thread_get_state (a wrong flavor or count, or
 * a thread of another architecture) is an error that says so: at attach
 * and launch, where one thread is read first, and in a sample, where it
 * names the thread and ends the recording, not a lost sample nor a
 * thread that vanished. */
Test(darwin, refused_registers_are_an_error)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	char *argv[] = { "App", NULL };
	struct target *tg;
	struct target_stop s;
	int err;

	task_init(&t, &stop, 0);
	t.nth = 1;
	t.th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64, .regs = { .pc = 0x1000, .sp = STACK } };
	t.regs_error = -EINVAL;
	cr_assert_eq(target_attach(4242, 0, &tg), TARGET_E_REGS);
	cr_assert_str_eq(prof_strerror(TARGET_E_REGS),
			 "the kernel refuses its threads' registers (thread_get_state: invalid argument)");
	cr_assert_eq(target_launch(argv, 0, &tg), 0);
	cr_assert_eq(target_launch_exec(tg, &err), TARGET_E_REGS);
	target_free(tg);
	cr_assert_eq(t.killed, 1);

	t.regs_error = 0;
	cr_assert_eq(target_attach(4242, 0, &tg), 0);
	t.regs_error = -EINVAL;
	cr_assert_eq(target_interrupt_thread(tg, 7), 0);
	cr_assert_eq(target_stop_thread(tg, 7, &s), TARGET_E_REGS);
	cr_assert_not(t.suspended);
	cr_assert_not_null(strstr(prof_strerror(TARGET_E_REGS), "the kernel refused the registers of thread 7"),
			   "%s", prof_strerror(TARGET_E_REGS));
	target_free(tg);
	task_release(&t, "");
}

/* The same refusal in the middle of a recording: it ends there, with the
 * error for prof-record to report, the two ticks before it sampled. */
Test(darwin, refused_registers_end_the_recording)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	char dir[PATH_MAX], path[PATH_MAX + 16];
	struct loop_stats st;
	int status;

	task_init(&t, &stop, 50);
	t.nth = 1;
	t.th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64, .regs = { .pc = 0x1000, .sp = STACK + 800 } };
	t.on_tick = refuse_registers_at_3;
	st = record(scratch_trace(dir, sizeof(dir), path, sizeof(path)), &stop, &status);
	cr_assert_eq(t.ticks, 3, "the recording went on to tick %d", t.ticks);
	cr_assert_eq(st.target_error, TARGET_E_REGS);
	/* (A tick this loaded machine could not take in time is counted
	 * lost, so lost is not asked of it: a third of runs under load.) */
	cr_assert_eq(st.samples, 2);
	cr_assert_eq(st.counters[TRACE_COUNTER_THREADS_VANISHED], 0);
	cr_assert_not_null(strstr(prof_strerror(st.target_error), "refused the registers of thread 7 in the recording"),
			   "%s", prof_strerror(st.target_error));
	cr_assert_eq(t.suspends, t.resumes);
	task_release(&t, dir);
}

/* The recorder reads threads of its own architecture only: a process run
 * by Rosetta is refused by the arm64 build, a native one by the x86_64
 * build run by Rosetta; both under Rosetta may go on. */
Test(darwin, rosetta_is_detected)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	struct target *tg;

	task_init(&t, &stop, 0);
	t.nth = 1;
	t.th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64 };
	t.translated = 1;
	cr_assert_eq(target_attach(4242, 0, &tg), TARGET_E_ROSETTA);
	cr_assert_not_null(strstr(prof_strerror(TARGET_E_ROSETTA), "x86_64 code under Rosetta"));
	t.self_translated = 1;
	cr_assert_eq(target_attach(4242, 0, &tg), 0);
	target_free(tg);
	t.translated = 0;
	cr_assert_eq(target_attach(4242, 0, &tg), TARGET_E_NATIVE);
	cr_assert_not_null(strstr(prof_strerror(TARGET_E_NATIVE), "use the arm64 prof-record"));
	task_release(&t, "");
}

/* An attached process that exits stays a zombie until its parent collects
 * it: its threads are gone and task_threads fails, but kill(pid, 0) still
 * works. The recording ends at the next poll, with its exit status; one
 * that is gone altogether ends it too, with no status to give. */
Test(darwin, zombie_ends_the_recording)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	char dir[PATH_MAX], path[PATH_MAX + 16];
	struct loop_stats st;
	int status;

	scratch_trace(dir, sizeof(dir), path, sizeof(path));
	for (int gone = 0; gone <= 1; gone++) {
		task_init(&t, &stop, 50);
		stop = 0;
		t.nth = 1;
		t.th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64,
						.regs = { .pc = 0x1000, .sp = STACK + 8 * 100 } };
		t.ends_at = 4;
		t.gone = gone;
		t.exit_status = 3 << 8;
		st = record(path, &stop, &status);
		/* Ticks 1-3 sampled; at 4 the thread is gone; the next poll
		 * sees the end. */
		cr_assert_eq(t.ticks, 4, "the recording went on to tick %d", t.ticks);
		cr_assert_eq(st.samples, 3);
		cr_assert_eq(st.counters[TRACE_COUNTER_THREADS_VANISHED], 1);
		cr_assert_eq(status, gone ? -1 : 3 << 8);
		cr_assert_eq(st.target_error, 0);
		task_release(&t, "");
	}
	task_release(&t, dir);
}

static void proc_query_fails_at_4(struct macos_task *t)
{
	if (t->ticks == 4)
		t->proc_error = -ENOMEM;
}

/* When the system cannot say whether the process runs, the recording
 * does not go on as if it did: the poll fails, and the recording ends
 * with the error. So for a launched process whose wait fails. */
Test(darwin, unknown_process_state_ends_the_recording)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	char dir[PATH_MAX], path[PATH_MAX + 16];
	char *argv[] = { "App", NULL };
	struct loop_stats st;
	struct target *tg;
	int status, err;

	task_init(&t, &stop, 50);
	t.nth = 1;
	t.th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64, .regs = { .pc = 0x1000, .sp = STACK + 800 } };
	t.on_tick = proc_query_fails_at_4;
	st = record(scratch_trace(dir, sizeof(dir), path, sizeof(path)), &stop, &status);
	cr_assert_eq(t.ticks, 4, "the recording went on to tick %d", t.ticks);
	cr_assert_eq(st.samples, 4);
	cr_assert_eq(st.target_error, -ENOMEM);
	cr_assert_str_eq(prof_strerror(st.target_error),
			 "cannot tell whether process 4242 still runs: Cannot allocate memory");
	cr_assert_eq(status, -1, "no exit status is made up");

	t.proc_error = 0;
	cr_assert_eq(target_launch(argv, 0, &tg), 0);
	cr_assert_eq(target_launch_exec(tg, &err), 0);
	cr_assert_eq(target_poll(tg), 0);
	t.reap_error = -ECHILD;
	cr_assert_eq(target_poll(tg), -ECHILD);
	cr_assert_not(target_exited(tg, &status));
	target_free(tg);
	task_release(&t, dir);
}

/* A process that executes a new program gets a new task from XNU, and
 * the one held is dead while the process runs on. A moment of it is an
 * ending process (its task goes before it is a zombie): the recording
 * ends as the process does. If it lasts a second, the recording ends
 * with an error that says why. */
Test(darwin, task_lost_while_the_process_runs)
{
	static struct macos_task t;
	static volatile sig_atomic_t stop;
	char dir[PATH_MAX], path[PATH_MAX + 16];
	struct loop_stats st;
	const char *why;
	int status;

	scratch_trace(dir, sizeof(dir), path, sizeof(path));
	task_init(&t, &stop, 5000);
	t.nth = 1;
	t.th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64, .regs = { .pc = 0x1000, .sp = STACK + 800 } };
	t.task_lost_at = 4;
	t.ends_at = 20;
	t.exit_status = 5 << 8;
	st = record(path, &stop, &status);
	cr_assert_eq(t.ticks, 20, "the recording went on to tick %d", t.ticks);
	cr_assert_eq(st.target_error, 0);
	cr_assert_eq(status, 5 << 8);
	task_release(&t, "");

	task_init(&t, &stop, 5000);
	stop = 0;
	t.nth = 1;
	t.th[0] = (struct fake_thread){ .id = 7, .arch = UNWIND_ARCH_ARM64, .regs = { .pc = 0x1000, .sp = STACK + 800 } };
	t.task_lost_at = 4;
	st = record(path, &stop, &status);
	cr_assert_lt(t.ticks, 5000, "the recording went on until stopped");
	cr_assert_geq(st.elapsed_ns, 1000000000ull);
	cr_assert_eq(st.samples, 3);
	cr_assert_eq(st.target_error, -ESRCH);
	why = prof_strerror(st.target_error); /* the note, read once (errors.h) */
	cr_assert_not_null(strstr(why, "process 4242 runs on, but its threads cannot be listed (No such process)"),
			   "%s", why);
	cr_assert_not_null(strstr(why, "launch the program itself"), "%s", why);
	task_release(&t, dir);
}
