/*
 * deep200: stacks about 200 frames deep, and 2000 distinct ones. Unit i
 * recurses through deep_a for (i % 50) * 3 levels, then through deep_b
 * down to a total depth of 180 + (i / 50) % 40, and spins at the bottom
 * for about 50 us. "-j THREADS" runs that many such threads (default 1),
 * which is how the harness fills a large trace quickly.
 */
#include "workload.h"

NOINLINE static uint64_t deep_b(int left, uint64_t x)
{
	volatile uint64_t pad = x;  /* a frame per level, no tail call */

	if (left == 0)
		return fixture_spin(40000, x);
	return deep_b(left - 1, x + 1) + pad;
}

NOINLINE static uint64_t deep_a(int left, int switch_at, uint64_t x)
{
	volatile uint64_t pad = x;

	if (switch_at == 0)
		return deep_b(left, x);
	return deep_a(left - 1, switch_at - 1, x + 1) + pad;
}

static void *worker(void *arg)
{
	struct workload_thread *k = arg;
	uint64_t x = 1;

	while (workload_more(k->w, k->done, k->share)) {
		uint64_t i = k->done++;
		x = deep_a(180 + (int)(i / 50 % 40), (int)(i % 50) * 3, x);
	}
	fixture_sink(x);
	return NULL;
}

int main(int argc, char **argv)
{
	struct workload w;

	workload_start(&w, argc, argv, 1);
	workload_done(&w, "deep200", workload_threads(&w, worker));
	return 0;
}
