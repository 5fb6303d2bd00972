/*
 * syscall: one thread that spends about a third of its time in read(2),
 * which a profiler that samples only user mode does not see, and that
 * measures that share itself: main -> run -> read_chunk -> read of 1 MiB
 * from /dev/zero, which the kernel spends clearing the buffer on the
 * thread's CPU, then run -> compute -> spin for about twice as long. A
 * unit is one of each, about 0.15 ms here.
 *
 * It is also the benchmark workload bench/workloads/syscall.c, so it takes
 * "SECONDS | -n UNITS" and prints workload.h's line, then its own measure:
 *
 *   syscall share 0.341, cpu share 0.338, on cpu 0.998
 *
 * the share of the work's wall time spent inside the read calls
 * (CLOCK_MONOTONIC around each), what wall mode measures; the share of the
 * thread's CPU time spent there (CLOCK_THREAD_CPUTIME_ID around each),
 * what cpu mode measures; and the share of the wall time the thread was
 * on a CPU at all, which is below 1 when the machine is loaded.
 */
#include "bench/workloads/workload.h"

#include <fcntl.h>
#include <unistd.h>

#define CHUNK (1u << 20)

static char chunk[CHUNK];

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct spent {
	uint64_t wall, cpu; /* nanoseconds */
};

/* One read of CHUNK bytes; adds the time it took to *in. */
NOINLINE static void read_chunk(int fd, struct spent *in)
{
	uint64_t t0 = fixture_now_ns(), c0 = thread_cpu_ns();

	if (read(fd, chunk, CHUNK) != (ssize_t)CHUNK) {
		perror("syscall: read /dev/zero");
		exit(1);
	}
	in->cpu += thread_cpu_ns() - c0;
	in->wall += fixture_now_ns() - t0;
}

NOINLINE static uint64_t compute(uint64_t x) { return fixture_spin(36000, x) + 1; }

NOINLINE static uint64_t run(const struct workload *w, int fd, uint64_t *done, struct spent *in)
{
	uint64_t x = 1;

	while (workload_more(w, *done, w->units)) {
		read_chunk(fd, in);
		x = compute(x);
		++*done;
	}
	return x;
}

int main(int argc, char **argv)
{
	struct workload w;
	struct spent in = { 0 }, first = { 0 };
	uint64_t done = 0, cpu, wall;
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror("syscall: /dev/zero");
		return 1;
	}
	read_chunk(fd, &first); /* the buffer's pages faulted in before the clock starts */
	workload_start(&w, argc, argv, 1);
	cpu = thread_cpu_ns();
	fixture_sink(run(&w, fd, &done, &in));
	wall = fixture_now_ns() - w.t0;
	cpu = thread_cpu_ns() - cpu;
	workload_done(&w, "syscall", done);
	printf("syscall share %.3f, cpu share %.3f, on cpu %.3f\n",
	       wall ? (double)in.wall / (double)wall : 0.0, cpu ? (double)in.cpu / (double)cpu : 0.0,
	       wall ? (double)cpu / (double)wall : 0.0);
	close(fd);
	return 0;
}
