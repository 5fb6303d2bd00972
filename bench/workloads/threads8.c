/*
 * threads8: eight CPU-bound threads ("worker-N") sharing a fixed amount of
 * work equally: more threads than this machine has cores, so they also
 * compete with each other and with the profiler.
 */
#include "workload.h"

NOINLINE static uint64_t worker_unit(uint64_t x) { return fixture_spin(60000, x); }

static void *worker(void *arg)
{
	struct workload_thread *k = arg;
	char name[16];
	uint64_t x = k->index;

	snprintf(name, sizeof(name), "worker-%u", k->index);
	pthread_setname_np(pthread_self(), name);
	while (workload_more(k->w, k->done, k->share)) {
		x = worker_unit(x);
		k->done++;
	}
	fixture_sink(x);
	return NULL;
}

int main(int argc, char **argv)
{
	struct workload w;

	workload_start(&w, argc, argv, 8);
	workload_done(&w, "threads8", workload_threads(&w, worker));
	return 0;
}
