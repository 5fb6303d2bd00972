/*
 * macho_fixture.h: what the Mach-O fixtures share. They are built without
 * a macOS SDK or libc (there is none here) and are never run: tests read
 * their headers, symbols and DWARF, and place synthetic samples in them.
 */
#ifndef TESTDATA_MACHO_FIXTURE_H
#define TESTDATA_MACHO_FIXTURE_H

#define NOINLINE __attribute__((noinline))

/* libwork.c: a dylib for arm64, linked into the x86_64 program. */
unsigned lib_work(unsigned n);

#endif
