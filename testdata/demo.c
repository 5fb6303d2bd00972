/*
 * demo: the workload 'make demo' records. A small pipeline of named threads
 * doing recognisably different work, so the flamegraph has a shape worth
 * looking at:
 *
 *   "parser"   tokenises a text buffer over and over (parse_text ->
 *              next_token);
 *   "hasher"   hashes blocks (hash_blocks -> fnv1a), with a 2:1 split
 *              between large and small blocks;
 *   "matrix"   multiplies small matrices (matmul);
 *   "ticker"   wakes every 10 ms and does a little work, otherwise sleeps.
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <pthread.h>
#include <unistd.h>

static uint64_t deadline;
static const char text[] =
	"the quick brown fox jumps over the lazy dog while the profiler watches "
	"every thread from outside the process and writes what it saw to disk ";

NOINLINE static size_t next_token(const char *s, size_t i, size_t n)
{
	while (i < n && s[i] != ' ')
		i++;
	return i + 1;
}

NOINLINE static uint64_t parse_text(void)
{
	uint64_t tokens = 0;
	for (size_t i = 0; i < sizeof(text) - 1; i = next_token(text, i, sizeof(text) - 1))
		tokens++;
	return tokens;
}

NOINLINE static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	volatile uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211u;
	return h;
}

NOINLINE static uint64_t hash_large(const uint8_t *p) { return fnv1a(p, 4096); }
NOINLINE static uint64_t hash_small(const uint8_t *p) { return fnv1a(p, 2048); }

NOINLINE static void matmul(double *c, const double *a, const double *b, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			volatile double s = 0;
			for (int k = 0; k < n; k++)
				s += a[i * n + k] * b[k * n + j];
			c[i * n + j] = s;
		}
}

static void *parser(void *arg)
{
	uint64_t x = 0;
	pthread_setname_np(pthread_self(), "parser");
	while (fixture_now_ns() < deadline)
		for (int i = 0; i < 1000; i++)
			x += parse_text();
	fixture_sink(x);
	return arg;
}

static void *hasher(void *arg)
{
	static uint8_t block[4096];
	uint64_t x = 0;
	pthread_setname_np(pthread_self(), "hasher");
	while (fixture_now_ns() < deadline)
		for (int i = 0; i < 100; i++) {
			block[i] = (uint8_t)x;
			x += hash_large(block) + hash_small(block);
		}
	fixture_sink(x);
	return arg;
}

static void *matrix(void *arg)
{
	static double a[32 * 32], b[32 * 32], c[32 * 32];
	pthread_setname_np(pthread_self(), "matrix");
	for (int i = 0; i < 32 * 32; i++)
		a[i] = b[i] = i % 7;
	while (fixture_now_ns() < deadline)
		matmul(c, a, b, 32);
	fixture_sink((uint64_t)c[5]);
	return arg;
}

static void *ticker(void *arg)
{
	uint64_t x = 1;
	pthread_setname_np(pthread_self(), "ticker");
	while (fixture_now_ns() < deadline) {
		x = fixture_spin(200000, x);
		usleep(10000);
	}
	fixture_sink(x);
	return arg;
}

int main(int argc, char **argv)
{
	void *(*fn[])(void *) = { parser, hasher, matrix, ticker };
	pthread_t t[4];
	uint64_t units;

	deadline = fixture_args(argc, argv, &units);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, fn[i], NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("demo: done\n");
	return 0;
}
