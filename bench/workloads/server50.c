/*
 * server50: a mostly idle server. Fifty worker threads ("-j" to change)
 * wait on one request queue; a client sends one request at a time, waits
 * for its answer and pauses 300 us before the next. A request is about
 * 100 us of work for whichever worker takes it. So at any moment at most
 * one thread runs and the rest are blocked, which is what a wall-mode
 * profiler must still visit at every tick. A unit is one request.
 *
 * switch50.c builds the same server with SERVER_PAUSE_NS and SERVER_WORK
 * of its own.
 */
#include "workload.h"

#ifndef SERVER_NAME
#define SERVER_NAME "server50"
#define SERVER_PAUSE_NS 300000  /* the client's pause between requests */
#define SERVER_WORK 80000       /* fixture_spin rounds of a request */
#endif

#include <sys/prctl.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t asked = PTHREAD_COND_INITIALIZER, answered = PTHREAD_COND_INITIALIZER;
static uint64_t requests, taken, finished;
static int closing;

NOINLINE static uint64_t handle_request(uint64_t x) { return fixture_spin(SERVER_WORK, x); }

static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg;

	pthread_setname_np(pthread_self(), "server-worker");
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!closing && requests == taken)
			pthread_cond_wait(&asked, &lock);
		if (closing)
			break;
		taken++;  /* nobody else serves this one */
		pthread_mutex_unlock(&lock);
		x = handle_request(x);
		pthread_mutex_lock(&lock);
		finished++;
		pthread_cond_signal(&answered);
	}
	pthread_mutex_unlock(&lock);
	fixture_sink(x);
	return NULL;
}

NOINLINE static void client_pause(void)
{
	struct timespec ts = { 0, SERVER_PAUSE_NS };
	if (SERVER_PAUSE_NS)
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	struct workload w;
	pthread_t th[WORKLOAD_MAX_THREADS];
	uint64_t done = 0;

	prctl(PR_SET_TIMERSLACK, 1UL);  /* a pause of 300 us is not 350 */
	workload_start(&w, argc, argv, 50);
	if (w.threads > WORKLOAD_MAX_THREADS)
		w.threads = WORKLOAD_MAX_THREADS;
	for (uintptr_t i = 0; i < w.threads; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	w.t0 = fixture_now_ns();  /* the work, not the thread creation */
	while (workload_more(&w, done, w.units)) {
		pthread_mutex_lock(&lock);
		requests++;
		pthread_cond_signal(&asked);
		while (finished < requests)
			pthread_cond_wait(&answered, &lock);
		pthread_mutex_unlock(&lock);
		done++;
		client_pause();
	}
	workload_done(&w, SERVER_NAME, done);
	pthread_mutex_lock(&lock);
	closing = 1;
	pthread_cond_broadcast(&asked);
	pthread_mutex_unlock(&lock);
	for (unsigned i = 0; i < w.threads; i++)
		pthread_join(th[i], NULL);
	return 0;
}
