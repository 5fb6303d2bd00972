/*
 * dlopen: spins in its own code for 300 ms, then dlopens libdlwork.so from
 * its own directory and spends the rest of its time in dl_hot there.
 */
#include "fixture.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uint64_t units, deadline = fixture_args(argc, argv, &units);
	uint64_t x = 1, warmup = fixture_now_ns() + 300000000;
	char exe[PATH_MAX], path[PATH_MAX + 32];
	uint64_t (*hot)(uint64_t);
	ssize_t n;
	void *lib;

	while (fixture_now_ns() < warmup)
		x = fixture_spin(100000, x);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return 1;
	exe[n] = 0;
	snprintf(path, sizeof(path), "%s/libdlwork.so", dirname(exe));
	lib = dlopen(path, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	hot = (uint64_t (*)(uint64_t))dlsym(lib, "dl_hot");
	while (fixture_now_ns() < deadline)
		x = hot(x);
	fixture_sink(x);
	printf("dlopen: done\n");
	return 0;
}
