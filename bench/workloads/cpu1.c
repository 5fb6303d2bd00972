/*
 * cpu1: one CPU-bound thread, main -> run -> work_a | work_b -> spin, two
 * thirds of the time in work_a. A unit is about 0.1 ms of arithmetic.
 */
#include "workload.h"

NOINLINE static uint64_t work_a(uint64_t x) { return fixture_spin(60000, x) + 1; }
NOINLINE static uint64_t work_b(uint64_t x) { return fixture_spin(60000, x) + 2; }

NOINLINE static uint64_t run(const struct workload *w, uint64_t *done)
{
	uint64_t x = 1;

	while (workload_more(w, *done, w->units)) {
		x = work_a(x);
		x = work_a(x);
		x = work_b(x);
		++*done;
	}
	return x;
}

int main(int argc, char **argv)
{
	struct workload w;
	uint64_t done = 0;

	workload_start(&w, argc, argv, 1);
	fixture_sink(run(&w, &done));
	workload_done(&w, "cpu1", done);
	return 0;
}
