/*
 * plugins: runs plugin alpha for the seconds given, dlcloses it, dlopens
 * plugin bravo, which the dynamic linker maps where alpha was, and runs
 * that as long. The two are the same code under other names, so a
 * profiler that names a stack after the image loaded when the stack was
 * first seen calls bravo alpha. It prints where each was loaded.
 *
 * Between loading bravo and running it, it sleeps for a quarter of a
 * second, so that a recorder that checks the image map every 100 ms has
 * seen the swap before any of bravo's code runs.
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char *const names[] = { "alpha", "bravo" };
	/* Volatile, so the loop is not unrolled: both plugins are called
	 * from one call site, and their stacks are the same all the way
	 * up. */
	volatile int nplugins = 2;
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	char exe[PATH_MAX], path[PATH_MAX + 32], sym[32], *dir;
	uint64_t x = 1;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return 1;
	exe[n] = 0;
	dir = dirname(exe);
	for (int i = 0; i < nplugins; i++) {
		uint64_t (*run)(uint64_t, uint64_t);
		struct link_map *map;
		void *lib;

		snprintf(path, sizeof(path), "%s/libplug_%s.so", dir, names[i]);
		lib = dlopen(path, RTLD_NOW);
		if (!lib || dlinfo(lib, RTLD_DI_LINKMAP, &map) != 0) {
			fprintf(stderr, "plugins: %s\n", dlerror());
			return 1;
		}
		snprintf(sym, sizeof(sym), "%s_run", names[i]);
		run = (uint64_t (*)(uint64_t, uint64_t))dlsym(lib, sym);
		if (!run) {
			fprintf(stderr, "plugins: %s\n", dlerror());
			return 1;
		}
		printf("plugins: %s at 0x%lx\n", names[i], (unsigned long)map->l_addr);
		fflush(stdout);
		if (i > 0)
			usleep(250000);
		x = run(x, fixture_now_ns() + (uint64_t)(seconds * 1e9));
		dlclose(lib);
	}
	fixture_sink(x);
	printf("plugins: done\n");
	return 0;
}
