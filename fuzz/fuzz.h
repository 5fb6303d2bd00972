/*
 * fuzz.h: what the libFuzzer targets in fuzz/ share.
 *
 * Each fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput() over one parser
 * of untrusted bytes. A parser that returns a borrowed pointer must have
 * checked it, so the targets read every byte they are handed back:
 * AddressSanitizer then catches a pointer past the input.
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads n bytes at p, so that an out-of-bounds pointer is reported. */
static inline void fuzz_touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t x = 0;

	for (size_t i = 0; i < n; i++)
		x ^= b[i];
	/* Keeps the reads from being optimised away. */
	__asm__ volatile("" : : "r"(x));
}

/* Reads a NUL-terminated string, its terminator included. */
static inline void fuzz_touch_str(const char *s)
{
	if (s)
		fuzz_touch(s, strlen(s) + 1);
}

#endif
