/*
 * memory.h: how portable code reads a target's memory.
 *
 * The unwinder, the CFI expression evaluator, the loop's sources and
 * the dyld image-list reader never call the OS for a process's memory:
 * they are handed a memory_read_fn and its ctx (process_vm_readv on
 * Linux, vm_read_overwrite on macOS, a memory image in a test).
 */
#ifndef RECORD_MEMORY_H
#define RECORD_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads len bytes of target memory at addr into buf: 0, or negative if
 * any byte is unreadable. */
typedef int (*memory_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/*
 * Linux (memory_linux.c): process_vm_readv(2), which needs the rights
 * ptrace(2) would (PTRACE_MODE_ATTACH: kernel.yama.ptrace_scope, or
 * CAP_SYS_PTRACE), but stops nothing.
 */

/* Reads up to len bytes of process (or thread) pid's memory from addr on
 * into buf, page by page, so that a read running off the end of a mapping
 * (the top of a stack) still returns the pages before it. Returns the
 * bytes read, or a negative errno when not even the first byte was. */
long memory_read_upto(pid_t pid, uint64_t addr, void *buf, size_t len);
/* Reads the 8-byte words at addr[0..n) (n at most 1024) of process pid
 * into out, in one call: 0, or a negative errno if any is unreadable. */
int memory_read_words(pid_t pid, const uint64_t *addr, uint64_t *out, size_t n);
/* A memory_read_fn on the process whose pid ctx points to (a pid_t). */
int memory_read_pid(void *ctx, uint64_t addr, void *buf, size_t len);

#endif
