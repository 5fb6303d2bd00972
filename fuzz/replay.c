/*
 * replay.c: runs a fuzz target's entry point once on each file named on
 * the command line, without libFuzzer.
 *
 * Linked with one fuzz/fuzz_<name>.c in the ordinary (or sanitized)
 * build, so that make check replays the committed crash inputs of
 * testdata/bad/<name>/ and the seeds with any compiler. Each input is
 * handed over in an allocation of exactly its size, as libFuzzer does, so
 * that AddressSanitizer sees a read one byte past it. A crash is the
 * failure; the exit status is 1 only if a file cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/diag.h"
#include "fuzz/fuzz.h"

static int replay(const char *path)
{
	char chunk[65536];
	struct buf b;
	uint8_t *exact = NULL;
	size_t n;
	FILE *f;
	int ret = -1;

	buf_init(&b);
	if (!(f = fopen(path, "rb")))
		goto out;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(f))
		goto out;
	exact = xmalloc(b.len ? b.len : 1);
	memcpy(exact, b.data, b.len);
	LLVMFuzzerTestOneInput(exact, b.len);
	ret = 0;
out:
	if (ret < 0)
		error_errno("cannot read '%s'", path);
	if (f)
		fclose(f);
	free(exact);
	buf_release(&b);
	return ret;
}

int main(int argc, char **argv)
{
	int status = 0;

	diag_set_progname("replay");
	for (int i = 1; i < argc; i++)
		if (replay(argv[i]) < 0)
			status = 1;
	return status;
}
