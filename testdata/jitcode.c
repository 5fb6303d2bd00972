/*
 * jitcode: a program that compiles its code as it runs, the way a JIT
 * does, and says so the way runtimes do: in a perf map or in a jitdump.
 *
 *   jitcode perfmap SECONDS    writes /tmp/perf-PID.map
 *   jitcode jitdump SECONDS    writes ./jit-PID.dump, mapped executable
 *
 * Two functions are copied into anonymous executable memory, each a loop
 * of n iterations in a frame of its own (push rbp; mov rbp, rsp on
 * x86_64, stp x29, x30 on arm64), and called 3:1, hot for 3n iterations
 * and cold for n: hot's share of the time in the two is 75%.
 *
 * Halfway through, the code is laid out again, as a runtime that moves
 * code and reuses the memory it freed: hot moves to a new address, and
 * cold is compiled where hot was. Only the time of each sample tells
 * which of the two an address in the old place was then. Each layout is
 * announced, then the program waits 200 ms before it runs it, so that a
 * reader that looks every 100 ms has read it first.
 *
 * The perf map is hostile besides: malformed lines, a range over the
 * whole region written first (which the functions' own later ranges
 * override), a name of 100 KB, a line written in two halves 300 ms apart
 * (a reader must not take the first half, "jit_h", for a line), and, at
 * the new layout, the file truncated and written again from its start,
 * as some JVM tools rewrite it. The jitdump has a debug record before each
 * load (the file /src/jitcode.js, line 10 for hot and 20 for cold), V8's
 * kind and tier in the names ("JS:*jitHot", "JS:~jitCold"), an unwinding
 * record and a record of an id no reader knows, and moves hot with a move
 * record.
 *
 * Prints "jitcode: hot HOT cold COLD" at the end: the iterations run.
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define REGION (64 * 1024)
#define N 1000000ull    /* cold's iterations a call; hot's are 3N */
#define CODE_SIZE 64    /* what each range says: the code, then padding */

#if defined(__x86_64__)
static const uint8_t loop_code[] = {
	0x55,                   /* push %rbp */
	0x48, 0x89, 0xe5,       /* mov %rsp, %rbp */
	0x48, 0x83, 0xef, 0x01, /* 1: sub $1, %rdi */
	0x75, 0xfa,             /* jnz 1b */
	0x5d,                   /* pop %rbp */
	0xc3,                   /* ret */
};
#define ELF_MACH 62
#elif defined(__aarch64__)
static const uint32_t loop_code[] = {
	0xa9bf7bfd, /* stp x29, x30, [sp, #-16]! */
	0x910003fd, /* mov x29, sp */
	0xf1000400, /* 1: subs x0, x0, #1 */
	0x54ffffe1, /* b.ne 1b */
	0xa8c17bfd, /* ldp x29, x30, [sp], #16 */
	0xd65f03c0, /* ret */
};
#define ELF_MACH 183
#else
#error "jitcode: x86_64 or aarch64 only"
#endif

typedef void (*loop_fn)(uint64_t);

static uint8_t *region;
static int perfmap;          /* the mode: 1 perf map, 0 jitdump */
static FILE *map;
static int dump_fd = -1;
static uint64_t next_index = 1;

static void compile(size_t at)
{
	memset(region + at, 0xcc, CODE_SIZE);
	memcpy(region + at, loop_code, sizeof(loop_code));
	__builtin___clear_cache((char *)region + at, (char *)region + at + CODE_SIZE);
}

static void sleep_ms(unsigned ms)
{
	usleep(ms * 1000u);
}

/*
 * The jitdump, as tools/perf/Documentation/jitdump-specification.txt lays
 * it out, in this machine's byte order.
 */

static void put(uint8_t *b, size_t *n, const void *p, size_t len)
{
	memcpy(b + *n, p, len);
	*n += len;
}
static void put32(uint8_t *b, size_t *n, uint32_t v) { put(b, n, &v, 4); }
static void put64(uint8_t *b, size_t *n, uint64_t v) { put(b, n, &v, 8); }

static void dump_write(const uint8_t *b, size_t n)
{
	if (write(dump_fd, b, n) != (ssize_t)n) {
		perror("jitcode: write jitdump");
		exit(1);
	}
}

/* A record's prefix, its total size to be set at [4]. */
static void prefix(uint8_t *b, size_t *n, uint32_t id)
{
	put32(b, n, id);
	put32(b, n, 0);
	put64(b, n, fixture_now_ns());
}

static void finish(uint8_t *b, size_t n)
{
	uint32_t total = (uint32_t)n;

	memcpy(b + 4, &total, 4);
	dump_write(b, n);
}

static void dump_open(void)
{
	uint8_t b[64];
	size_t n = 0;
	char path[64];

	snprintf(path, sizeof(path), "jit-%d.dump", (int)getpid());
	dump_fd = open(path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
	if (dump_fd < 0) {
		perror("jitcode: open jitdump");
		exit(1);
	}
	put32(b, &n, 0x4A695444);  /* magic */
	put32(b, &n, 1);           /* version */
	put32(b, &n, 40);          /* header size */
	put32(b, &n, ELF_MACH);
	put32(b, &n, 0);
	put32(b, &n, (uint32_t)getpid());
	put64(b, &n, fixture_now_ns());
	put64(b, &n, 0);           /* flags: CLOCK_MONOTONIC timestamps */
	dump_write(b, n);
	/* As perf asks of a writer: mapped executable, so the mapping is seen. */
	if (mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC, MAP_PRIVATE, dump_fd, 0) ==
	    MAP_FAILED) {
		perror("jitcode: mmap jitdump");
		exit(1);
	}
}

static void dump_debug(size_t at, uint32_t line)
{
	uint8_t b[256];
	size_t n = 0;
	static const char file[] = "/src/jitcode.js";

	prefix(b, &n, 2);
	put64(b, &n, (uint64_t)(uintptr_t)(region + at));
	put64(b, &n, 2);
	put64(b, &n, (uint64_t)(uintptr_t)(region + at + 4));
	put32(b, &n, line);
	put32(b, &n, 0);
	put(b, &n, file, sizeof(file));
	put64(b, &n, (uint64_t)(uintptr_t)(region + at + 8));
	put32(b, &n, line + 1);
	put32(b, &n, 0);
	put(b, &n, "\xff", 2);     /* the same file as the entry before */
	finish(b, n);
}

static uint64_t dump_load(size_t at, const char *name)
{
	uint8_t b[512];
	size_t n = 0;
	uint64_t index = next_index++;

	prefix(b, &n, 0);
	put32(b, &n, (uint32_t)getpid());
	put32(b, &n, (uint32_t)gettid());
	put64(b, &n, (uint64_t)(uintptr_t)(region + at));
	put64(b, &n, (uint64_t)(uintptr_t)(region + at));
	put64(b, &n, CODE_SIZE);
	put64(b, &n, index);
	put(b, &n, name, strlen(name) + 1);
	put(b, &n, region + at, CODE_SIZE);
	finish(b, n);
	return index;
}

static void dump_move(uint64_t index, size_t from, size_t to)
{
	uint8_t b[128];
	size_t n = 0;

	prefix(b, &n, 1);
	put32(b, &n, (uint32_t)getpid());
	put32(b, &n, (uint32_t)gettid());
	put64(b, &n, (uint64_t)(uintptr_t)(region + to));
	put64(b, &n, (uint64_t)(uintptr_t)(region + from));
	put64(b, &n, (uint64_t)(uintptr_t)(region + to));
	put64(b, &n, CODE_SIZE);
	put64(b, &n, index);
	finish(b, n);
}

/* A record no reader needs (id, n bytes of body). */
static void dump_other(uint32_t id, size_t body)
{
	uint8_t b[128];
	size_t n = 0;

	prefix(b, &n, id);
	memset(b + n, 0x5a, body);
	n += body;
	finish(b, n);
}

/*
 * The perf map.
 */

static void map_line(size_t at, size_t size, const char *name)
{
	fprintf(map, "%llx %zx %s\n", (unsigned long long)(uintptr_t)(region + at), size, name);
}

static void map_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!(map = fopen(path, "w"))) {
		perror("jitcode: open perf map");
		exit(1);
	}
	/* malformed lines, read past */
	fputs("not a line\n10 0 no-size\n\nzz 10 not-hex\n", map);
	/* a range over the whole region, overridden by the functions' */
	map_line(0, REGION, "jit_region");
	/* a name of 100 KB, for code that never runs */
	fprintf(map, "%llx 10 jit_long_", (unsigned long long)(uintptr_t)(region + 0x800));
	for (int i = 0; i < 100 * 1024; i++)
		fputc('x', map);
	fputc('\n', map);
	fflush(map);
}

int main(int argc, char **argv)
{
	uint64_t start, half, end, hot_done = 0, cold_done = 0, hot_index = 0;
	size_t hot = 0x000, cold = 0x100;

	if (argc != 3 || (strcmp(argv[1], "perfmap") && strcmp(argv[1], "jitdump"))) {
		fprintf(stderr, "usage: jitcode perfmap|jitdump SECONDS\n");
		return 2;
	}
	perfmap = !strcmp(argv[1], "perfmap");
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("jitcode: mmap executable memory");
		return 1;
	}
	compile(hot);
	compile(cold);
	if (perfmap) {
		map_open();
		/* hot's line in two halves: the first is no line */
		fprintf(map, "%llx %x jit_h", (unsigned long long)(uintptr_t)(region + hot), CODE_SIZE);
		fflush(map);
		sleep_ms(300);
		fputs("ot\n", map);
		map_line(cold, CODE_SIZE, "jit_cold");
		fflush(map);
	} else {
		dump_open();
		dump_debug(hot, 10);
		hot_index = dump_load(hot, "JS:*jitHot");
		dump_other(4, 40);   /* JIT_CODE_UNWINDING_INFO */
		dump_debug(cold, 20);
		dump_load(cold, "JS:~jitCold");
		dump_other(99, 12);
	}
	sleep_ms(200);

	start = fixture_now_ns();
	end = start + (uint64_t)(atof(argv[2]) * 1e9);
	half = start + (end - start) / 2;
	for (int layout = 0; layout < 2; layout++) {
		while (fixture_now_ns() < (layout ? end : half)) {
			((loop_fn)(void *)(region + hot))(3 * N);
			hot_done += 3 * N;
			((loop_fn)(void *)(region + cold))(N);
			cold_done += N;
		}
		if (layout)
			break;
		/* hot moves; cold is compiled where hot was */
		hot = 0x200;
		cold = 0x000;
		compile(hot);
		compile(cold);
		if (perfmap) {
			/* written again from its start */
			fflush(map);
			if (ftruncate(fileno(map), 0) < 0) {
				perror("jitcode: truncate perf map");
				return 1;
			}
			rewind(map);
			map_line(0, REGION, "jit_region");
			map_line(hot, CODE_SIZE, "jit_hot");
			map_line(cold, CODE_SIZE, "jit_cold");
			fflush(map);
		} else {
			dump_move(hot_index, 0x000, hot);
			dump_debug(cold, 20);
			dump_load(cold, "JS:~jitCold");
		}
		sleep_ms(200);
	}
	printf("jitcode: hot %llu cold %llu\n", (unsigned long long)hot_done, (unsigned long long)cold_done);
	return 0;
}
