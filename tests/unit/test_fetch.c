/*
 * test_fetch.c: the debuginfod fetcher without a server: no fetcher when
 * DEBUGINFOD_URLS names none, the cache directory chosen as libdebuginfod
 * chooses it, and a server that is down asked once per build-id, its
 * refusal said. The answers of real and hostile servers are
 * tests/e2e/test_debuginfod.sh's.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <unistd.h>

#include "common/buf.h"
#include "report/symbols/fetch.h"

static char tmp[] = "/tmp/test_fetch.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp));
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	unsetenv("XDG_CACHE_HOME");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(fetch, .init = setup, .fini = teardown);

Test(fetch, no_servers_no_fetcher)
{
	struct fetch *f;

	cr_assert_null(fetch_new(NULL));
	cr_assert_eq(setenv("DEBUGINFOD_URLS", " \t", 1), 0);
	cr_assert_null(fetch_new(NULL));
	cr_assert_eq(setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1), 0);
	cr_assert_not_null(f = fetch_new(NULL));
	fetch_free(f);
	fetch_free(NULL);
}

Test(fetch, cache_dir_as_libdebuginfod_chooses)
{
	char home[256], legacy[300], *d;

	snprintf(home, sizeof(home), "%s/home", tmp);
	cr_assert_eq(setenv("HOME", home, 1), 0);
	d = fetch_cache_dir();
	cr_assert_str_eq(d, strcat(strcpy(legacy, home), "/.cache/debuginfod_client"));
	free(d);
	cr_assert_eq(setenv("XDG_CACHE_HOME", "/xdg", 1), 0);
	cr_assert_str_eq(d = fetch_cache_dir(), "/xdg/debuginfod_client");
	free(d);
	/* The old place, where it exists, before XDG's. */
	snprintf(legacy, sizeof(legacy), "%s/.debuginfod_client_cache", home);
	cr_assert_eq(mkdir(home, 0700), 0);
	cr_assert_eq(mkdir(legacy, 0700), 0);
	cr_assert_str_eq(d = fetch_cache_dir(), legacy);
	free(d);
	cr_assert_eq(setenv("DEBUGINFOD_CACHE_PATH", "/given", 1), 0);
	cr_assert_str_eq(d = fetch_cache_dir(), "/given");
	free(d);
}

/* A port of 127.0.0.1 that nothing listens on: one the kernel gave, its
 * socket closed. */
static int closed_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t n = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	cr_assert_geq(s, 0);
	cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(s, (struct sockaddr *)&a, &n), 0);
	close(s);
	return ntohs(a.sin_port);
}

Test(fetch, server_down_asked_once_and_said)
{
	static const uint8_t id[20] = { 0xd0, 0xd1, 0xd2, 0xd3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	const struct fetch_result *r, *again;
	char url[64], cache[256];
	struct fetch *f;
	struct buf b;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", closed_port());
	snprintf(cache, sizeof(cache), "%s/cache", tmp);
	cr_assert_eq(setenv("DEBUGINFOD_URLS", url, 1), 0);
	cr_assert_eq(setenv("DEBUGINFOD_CACHE_PATH", cache, 1), 0);
	cr_assert_not_null(f = fetch_new(NULL));
	cr_assert_lt(fetch_debuginfo(f, id, sizeof(id), &r), 0);
	if (r->status == FETCH_NO_LIBRARY) {
		fetch_free(f);
		cr_skip_test("libdebuginfod.so.1 cannot be loaded here: %s", r->detail);
	}
	cr_assert_eq(r->status, FETCH_REFUSED, "%s", fetch_status_name(r->status));
	cr_assert_null(r->path);
	cr_assert_lt(fetch_debuginfo(f, id, sizeof(id), &again), 0);
	cr_assert_eq(again, r, "the first answer, not a second query");
	buf_init(&b);
	fetch_describe(r, &b);
	cr_assert_not_null(strstr((char *)b.data, url), "%s", (char *)b.data);
	cr_assert_not_null(strstr((char *)b.data, "connection refused"), "%s", (char *)b.data);
	buf_release(&b);
	fetch_free(f);
}
