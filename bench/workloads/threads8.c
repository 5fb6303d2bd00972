/*
 * threads8: eight CPU-bound threads ("worker-N") sharing a fixed amount of
 * work equally: more threads than this machine has cores, so they also
 * compete with each other and with the profiler.
 */
#include "workload.h"

#include <pthread.h>

#define MAX_THREADS 64

struct worker {
	pthread_t th;
	const struct workload *w;
	uint64_t share, done;
	unsigned index;
};

NOINLINE static uint64_t worker_unit(uint64_t x) { return fixture_spin(60000, x); }

static void *worker(void *arg)
{
	struct worker *k = arg;
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
	struct worker k[MAX_THREADS];
	uint64_t done = 0;

	workload_start(&w, argc, argv, 8);
	if (w.threads > MAX_THREADS)
		w.threads = MAX_THREADS;
	for (unsigned i = 0; i < w.threads; i++) {
		k[i] = (struct worker){ .w = &w, .index = i,
			.share = w.units / w.threads + (i < w.units % w.threads) };
		pthread_create(&k[i].th, NULL, worker, &k[i]);
	}
	for (unsigned i = 0; i < w.threads; i++) {
		pthread_join(k[i].th, NULL);
		done += k[i].done;
	}
	workload_done(&w, "threads8", done);
	return 0;
}
