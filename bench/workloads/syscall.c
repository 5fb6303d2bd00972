/*
 * syscall: a third of one thread's time in read(2), measured by itself;
 * its one source is the fixture testdata/syscall.c, which says what it
 * does and prints.
 */
#include "testdata/syscall.c"
